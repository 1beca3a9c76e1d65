"""One interface for the two kinds of episode: a single hand, or a Hollywood series.

The environments and tools that can run either kind hold a ``Table`` and never branch
on the mode: ``make_table("hand", ...)`` gives a ``HandTable`` (one hand per episode,
on a ``GinEngine``), ``make_table("series", ...)`` a ``SeriesEngine`` (hands dealt one
after another on a score sheet, docs/rules.md §4). Both expose the same members:

- ``engine``: the ``GinEngine`` of the N games; ``sheets``: the ``ScoreSheets``, or None;
- ``finished``: bool[N], games whose episode is over;
- ``reset(mask)``: start new episodes; ``step(actions, active)``: a ``SeriesStep``
  (``series_over`` stays all false in hand mode, where a hand is the whole episode).
"""

from __future__ import annotations

from typing import Literal, Protocol

import numpy as np

from hgin_env.engine.config import RulesConfig, RulesMix
from hgin_env.engine.game import GinEngine
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.keys import SeedLike
from hgin_env.engine.series import SeriesEngine, SeriesStep

Mode = Literal["hand", "series"]
MODES: tuple[Mode, ...] = ("hand", "series")


class Table(Protocol):
    """N games whose episodes are single hands or whole series (see the module docstring)."""

    @property
    def n(self) -> int:
        """Number of games."""
        ...

    @property
    def rules(self) -> RulesConfig:
        """The rules options."""
        ...

    @property
    def engine(self) -> GinEngine:
        """The ``GinEngine`` of the N games."""
        ...

    @property
    def sheets(self) -> ScoreSheets | None:
        """The score sheets (series mode), or None (hand mode)."""
        ...

    @property
    def finished(self) -> np.ndarray:
        """bool[N]: games whose episode is over."""
        ...

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Start a new episode in the selected games (default: all)."""
        ...

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> SeriesStep:
        """Apply one action per game; report the hands that ended."""
        ...


class HandTable:
    """Hand mode: every episode is one hand of a ``GinEngine`` (no score sheet).

    Args:
        n: number of games.
        rules: the rules options, or a mix of rule sets (see ``GinEngine``): each hand
            draws its rule set from its game's seed and hand counter.
        seed: as for ``GinEngine``.
        weights: the mix's weights (see ``GinEngine``).
    """

    sheets: ScoreSheets | None = None

    def __init__(
        self,
        n: int,
        rules: RulesConfig | RulesMix | None = None,
        seed: SeedLike = None,
        weights: tuple[float, ...] | None = None,
    ) -> None:
        self.engine = GinEngine(n, rules, seed, weights)
        self.rules = self.engine.rules
        self.n = n
        # the final state of no hand: what most steps report (copying none each step)
        self._no_hands = self.engine.state.rows(np.zeros(0, np.int64))

    @property
    def finished(self) -> np.ndarray:
        """bool[N]: hands that have ended."""
        return self.engine.over

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Deal a new hand in the selected games (default: all), each under its rule set."""
        eng = self.engine
        rows = np.arange(self.n) if mask is None else np.flatnonzero(np.asarray(mask, bool))
        eng.choose_rules(rows, eng.hand_counter[rows])
        eng.reset(mask)

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> SeriesStep:
        """Apply one action per game (see ``GinEngine.step``); the ended hands' final state."""
        hand_over = self.engine.step(actions, active)
        rows = np.flatnonzero(hand_over)
        hands = self.engine.state.rows(rows) if rows.size else self._no_hands
        return SeriesStep(hand_over, np.zeros(self.n, bool), rows, hands)


def make_table(
    mode: str,
    n: int,
    rules: RulesConfig | RulesMix | None = None,
    seed: SeedLike = None,
    weights: tuple[float, ...] | None = None,
) -> Table:
    """The table of ``n`` games for an episode mode (``"hand"`` or ``"series"``).

    ``rules`` may be a mix (with ``weights``): each episode draws its rule set.

    Raises:
        ValueError: for another mode.
    """
    if mode == "series":
        return SeriesEngine(n, rules, seed, weights)
    if mode == "hand":
        return HandTable(n, rules, seed, weights)
    raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")

"""Hollywood series, batched: hands dealt one after another on one score sheet per game.

The winner of a hand deals the next one; after a drawn (or truncated) hand the same
dealer deals again; the first dealer of a series is drawn from the game's seed
(docs/rules.md §3 "Deal", §4). When a hand ends, its result is entered on the score
sheet and, unless the series is over, the next hand is dealt in the same call, so
callers see a finished hand only through the ``SeriesStep`` that ended it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig, RulesMix
from hgin_env.engine.game import GinEngine, HandState, _deal_rows, _state_views
from hgin_env.engine.hollywood import ScoreSheets, _record_rows
from hgin_env.engine.jit import kernel
from hgin_env.engine.keys import Salt, SeedLike, hash_stream


@dataclass
class SeriesStep:
    """What one ``SeriesEngine.step`` did.

    Attributes:
        hand_over: bool[N], games whose hand ended in this step.
        series_over: bool[N], games whose series ended in this step.
        rows: int[M], the indices of the games whose hand ended (``flatnonzero(hand_over)``).
        hands: the final state of those M hands (rows in the order of ``rows``), taken
            before the next hand was dealt.
    """

    hand_over: np.ndarray
    series_over: np.ndarray
    rows: np.ndarray
    hands: HandState


@kernel
def settle_hands(  # noqa: PLR0913 - the engine's and the score sheets' arrays
    b: np.ndarray,
    i8: np.ndarray,
    i16: np.ndarray,
    i64: np.ndarray,
    cb: np.ndarray,
    ci: np.ndarray,
    n: int,
    rows: np.ndarray,
    seeds: np.ndarray,
    hand_counter: np.ndarray,
    allow_rediscard: bool,
    scores: np.ndarray,
    entered: np.ndarray,
    boxes: np.ndarray,
    game_winners: np.ndarray,
    finished: np.ndarray,
    series_winner: np.ndarray,
    game_target: int,
    stop_when_decided: bool,
    hands_played: np.ndarray,
    series_over: np.ndarray,
) -> None:
    """Enter the hands that ended in the games ``rows`` (int[M]) and deal the next ones.

    Each hand's result goes on its game's score sheet (``ScoreSheets.record``); where
    the series goes on, the winner of the hand deals the next one (after a drawn hand,
    the same dealer). ``series_over`` (bool[N]) marks the series that ended. The first
    six arguments and ``n`` are ``GinEngine.storage`` and the number of games; the
    score sheet's arrays follow ``ScoreSheets``.
    """
    sv = _state_views(b, i8, i16, i64, n)
    dealer, winner, points = sv[8], sv[16], sv[17]
    winners = np.full(n, -1, np.int64)
    hand_points = np.zeros(n, np.int64)
    considered = np.zeros(n, np.bool_)
    for i in rows:
        winners[i] = winner[i]
        hand_points[i] = points[i]
        considered[i] = True
        hands_played[i] += 1
    _record_rows(
        scores, entered, boxes, game_winners, finished, series_winner, winners, hand_points,
        considered, game_target, stop_when_decided, series_over,
    )  # fmt: skip
    deal = np.zeros(rows.shape[0], np.int64)
    dealers = np.zeros(rows.shape[0], np.int8)
    m = 0
    for i in rows:
        if not finished[i]:
            deal[m] = i
            dealers[m] = winner[i] if winner[i] >= 0 else dealer[i]
            m += 1
    if m:
        _deal_rows(
            b, i8, i16, i64, cb, ci, n, deal[:m], seeds, hand_counter,
            np.zeros((0, N_CARDS), np.int8), dealers[:m], allow_rediscard,
        )  # fmt: skip


class SeriesEngine:
    """N Hollywood series played in lock step over a ``GinEngine`` and ``ScoreSheets``.

    Args:
        n: number of series in the batch.
        rules: the rules options, or a mix of rule sets (see ``GinEngine``): each series
            draws its rule set from its game's seed and series counter.
        seed: as for ``GinEngine`` (an int gives series i the seed ``seed + i``).
        weights: the mix's weights (see ``GinEngine``).
    """

    def __init__(
        self,
        n: int,
        rules: RulesConfig | RulesMix | None = None,
        seed: SeedLike = None,
        weights: tuple[float, ...] | None = None,
    ) -> None:
        self.engine = GinEngine(n, rules, seed, weights)
        self.rules: RulesConfig = self.engine.rules
        self.sheets = ScoreSheets(n, self.rules)
        self.n = n
        self.series_counter = np.zeros(n, dtype=np.int64)  # series started per game
        self.hands_played = np.zeros(n, dtype=np.int64)  # hands finished in the current series

    @property
    def finished(self) -> np.ndarray:
        """bool[N]: series that have ended."""
        return self.sheets.finished

    def reset(
        self, mask: np.ndarray | None = None, first_dealers: int | np.ndarray | None = None
    ) -> None:
        """Start a new series in the selected games (default: all).

        Args:
            mask: bool[N] games to restart.
            first_dealers: int or int[N] seat dealing the first hand; default: drawn at
                random from each game's seed and series counter.
        """
        # a copy: the caller's mask may be ``self.finished``, which sheets.reset clears
        sel = np.ones(self.n, bool) if mask is None else np.array(mask, bool)
        rows = np.flatnonzero(sel)
        if rows.size == 0:
            return
        if first_dealers is None:
            bits = hash_stream(
                self.engine.seeds[rows], self.series_counter[rows], Salt.SERIES_DEALER
            )
            dealers = np.zeros(self.n, np.int8)
            dealers[rows] = (bits & np.uint64(1)).astype(np.int8)
        else:
            dealers = np.broadcast_to(np.asarray(first_dealers, np.int8), (self.n,))
        self.engine.choose_rules(rows, self.series_counter[rows])
        self.series_counter[rows] += 1
        self.hands_played[rows] = 0
        self.sheets.reset(sel)
        self.engine.reset(mask=sel, dealers=dealers)

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> SeriesStep:
        """Apply one action per game, score ended hands and deal the next ones.

        Args:
            actions: int[N] action ids.
            active: bool[N], the games that move (default: all live games).

        Raises:
            ValueError: on an illegal action (see ``GinEngine.step``).
        """
        eng = self.engine
        hand_over = eng.step(actions, active)
        rows = np.flatnonzero(hand_over)
        series_over = np.zeros(self.n, bool)
        if rows.size == 0:
            return SeriesStep(hand_over, series_over, rows, _no_hands())
        finished_hands = eng.state.rows(rows)
        sh = self.sheets
        settle_hands(
            *eng.storage, self.n, rows, eng.seeds, eng.hand_counter, eng.rules.allow_rediscard,
            sh.scores, sh.entered, sh.boxes, sh.game_winners, sh.finished, sh.series_winner,
            sh.rules.game_target, sh.rules.stop_when_decided, self.hands_played, series_over,
        )  # fmt: skip
        return SeriesStep(hand_over, series_over, rows, finished_hands)


@functools.cache
def _no_hands() -> HandState:
    """The state of zero hands (made on first use: importing the engine runs no kernel)."""
    return HandState.empty(0)

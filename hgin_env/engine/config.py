"""Rules options: one frozen dataclass holding every Option of docs/rules.md.

A batch of games may play under a *mix* of rule sets: a tuple of ``RulesConfig`` that
differ only in the hand-scoring and knock options of ``PER_GAME_FIELDS`` (checked by
``check_mix``); ``HandRules`` holds those options per game as arrays, for the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hgin_env.engine.options import check_keys, check_record, limits

#: the range of every bonus option
BONUS = limits(0, 10_000)


@dataclass(frozen=True)
class RulesConfig:
    """Every rules Option of docs/rules.md (§3 "A hand", §4 "Hollywood scoring"), with its default.

    Attributes:
        knock_limit: a player may knock when the 10 cards kept have deadwood <= this (0..100).
        gin_bonus: bonus to the knocker for gin (deadwood 0), on top of the defender's deadwood.
        undercut_bonus: bonus to the defender for an undercut (knocker deadwood >= defender's).
        big_gin_bonus: ``None`` (off) or the bonus for knocking with all 11 cards melded.
        allow_rediscard: whether a card just taken from the discard pile may be discarded
            in the same turn.
        max_turns_per_hand: a hand that reaches this many turns (discards) ends as a
            truncated draw.
        game_target: a Hollywood game ends when a player's total in it reaches this.
        stop_when_decided: stop the series as soon as one player has won two games.
        game_bonus: classic bonus to the winner of each game.
        box_bonus: classic bonus per hand won, counted per game.
        shutout_multiplier: multiplies a game winner's total when the loser has no score
            entered in that game.
    """

    knock_limit: int = field(default=10, metadata=limits(0, 100))
    gin_bonus: int = field(default=25, metadata=BONUS)
    undercut_bonus: int = field(default=10, metadata=BONUS)
    big_gin_bonus: int | None = field(default=None, metadata=BONUS)
    allow_rediscard: bool = False
    max_turns_per_hand: int = field(default=200, metadata=limits(2, 100_000))
    game_target: int = field(default=100, metadata=limits(1, 1_000_000))
    stop_when_decided: bool = False
    game_bonus: int = field(default=0, metadata=BONUS)
    box_bonus: int = field(default=0, metadata=BONUS)
    shutout_multiplier: int = field(default=1, metadata=limits(1, 100))

    def __post_init__(self) -> None:
        check_record(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> RulesConfig:
        """Build from a mapping (a YAML section); an unknown key raises ``ValueError``.

        The values are taken as they are (``RulesConfig``'s own check refuses a string
        or a float for an integer field).
        """
        data = dict(data or {})
        check_keys(data, [f.name for f in dataclasses.fields(cls)], noun="rules field")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """Return the options as a plain dict (for saving with a run)."""
        return dataclasses.asdict(self)


#: the options that may differ between the games of one batch: how a hand may end and
#: how it is scored. The others (turn limit, rediscard, the score sheet's options) shape
#: the batch's shared state and must be equal across a mix.
PER_GAME_FIELDS = ("knock_limit", "gin_bonus", "undercut_bonus", "big_gin_bonus")
#: a mix of rule sets: the games of a batch each play under one of them
RulesMix = tuple[RulesConfig, ...]


def check_mix(rules: RulesConfig | Sequence[RulesConfig]) -> RulesMix:
    """The rule sets of a mix as a tuple, after checking that one batch can play them.

    Args:
        rules: one ``RulesConfig``, or a non-empty sequence of them.

    Raises:
        ValueError: an empty mix, an entry that is not a ``RulesConfig``, or rule sets that
            differ in an option outside ``PER_GAME_FIELDS`` (naming it).
    """
    mix = (rules,) if isinstance(rules, RulesConfig) else tuple(rules)
    if not mix:
        raise ValueError("a rules mix needs at least one rule set, got none")
    for i, entry in enumerate(mix):
        if not isinstance(entry, RulesConfig):
            kind = type(entry).__name__
            raise ValueError(f"rules mix entry {i} must be a RulesConfig, got {kind}")
    first = mix[0]
    for f in dataclasses.fields(RulesConfig):
        if f.name in PER_GAME_FIELDS:
            continue
        values = sorted({repr(getattr(r, f.name)) for r in mix})
        if len(values) > 1:
            raise ValueError(
                f"the rule sets of a mix may differ only in {list(PER_GAME_FIELDS)}; "
                f"{f.name} differs ({', '.join(values)}): it must be the same for every game "
                f"of a batch (set it in rules, not per entry; {f.name}={getattr(first, f.name)!r} "
                "is the first entry's)"
            )
    return mix


@dataclass(frozen=True)
class HandRules:
    """The ``PER_GAME_FIELDS`` of N games as arrays (the engine's per-game rules).

    Attributes:
        knock_limit: int64[N].
        gin_bonus: int64[N].
        undercut_bonus: int64[N].
        big_gin: bool[N], whether big gin is on (``big_gin_bonus`` is not None).
        big_gin_bonus: int64[N], the big-gin bonus (0 where big gin is off).
    """

    knock_limit: np.ndarray
    gin_bonus: np.ndarray
    undercut_bonus: np.ndarray
    big_gin: np.ndarray
    big_gin_bonus: np.ndarray

    @classmethod
    def of(cls, mix: RulesConfig | Sequence[RulesConfig], ids: np.ndarray | int = 0) -> HandRules:
        """The per-game rules of games playing ``mix[ids[i]]`` (an int: every game, N = 1).

        Args:
            mix: one rule set or a mix (a sequence of them).
            ids: int[N] index into the mix of each game's rule set.
        """
        table = check_mix(mix)
        idx = np.atleast_1d(np.asarray(ids, dtype=np.int64))
        if idx.size and (idx.min() < 0 or idx.max() >= len(table)):
            raise ValueError(f"rule set ids must be in 0..{len(table) - 1}, got {np.unique(idx)}")

        def column(name: str) -> np.ndarray:
            return np.array([getattr(r, name) or 0 for r in table], dtype=np.int64)[idx]

        big = np.array([r.big_gin_bonus is not None for r in table], dtype=bool)[idx]
        return cls(
            column("knock_limit"), column("gin_bonus"), column("undercut_bonus"), big,
            column("big_gin_bonus"),
        )  # fmt: skip

    def rows(self, index: np.ndarray) -> HandRules:
        """The rules of the selected games (an int or bool index array)."""
        return HandRules(**{f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)})

    def assign(self, index: np.ndarray, other: HandRules) -> None:
        """Overwrite the rules of the selected games with ``other``'s (in place)."""
        for f in dataclasses.fields(self):
            getattr(self, f.name)[index] = getattr(other, f.name)

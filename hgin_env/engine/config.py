"""Rules options: one frozen dataclass holding every Option of docs/rules.md."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any


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

    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 10
    big_gin_bonus: int | None = None
    allow_rediscard: bool = False
    max_turns_per_hand: int = 200
    game_target: int = 100
    stop_when_decided: bool = False
    game_bonus: int = 0
    box_bonus: int = 0
    shutout_multiplier: int = 1

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "big_gin_bonus" and value is None:
                continue
            want = bool if f.name in ("allow_rediscard", "stop_when_decided") else int
            if want is int and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"RulesConfig.{f.name} must be an integer, got {value!r}")
            if want is bool and not isinstance(value, bool):
                raise ValueError(f"RulesConfig.{f.name} must be true or false, got {value!r}")
        _check_range("knock_limit", self.knock_limit, 0, 100)
        for name in ("gin_bonus", "undercut_bonus", "game_bonus", "box_bonus"):
            _check_range(name, getattr(self, name), 0, 10_000)
        if self.big_gin_bonus is not None:
            _check_range("big_gin_bonus", self.big_gin_bonus, 0, 10_000)
        _check_range("max_turns_per_hand", self.max_turns_per_hand, 2, 100_000)
        _check_range("game_target", self.game_target, 1, 1_000_000)
        _check_range("shutout_multiplier", self.shutout_multiplier, 1, 100)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> RulesConfig:
        """Build from a mapping (a YAML section); an unknown key raises ``ValueError``."""
        data = dict(data or {})
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown rules field(s) {unknown}; valid fields are {sorted(known)}")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """Return the options as a plain dict (for saving with a run)."""
        return dataclasses.asdict(self)


def _check_range(name: str, value: int, lo: int, hi: int) -> None:
    if not lo <= value <= hi:
        raise ValueError(f"RulesConfig.{name} must be in {lo}..{hi}, got {value}")

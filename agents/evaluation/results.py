"""The result types of an evaluation: one pair's ``EvalResult``, a ``LeagueResult``.

Every metric is defined once, in ``agents.evaluation.tally`` (``METRICS``); these
dataclasses only carry the numbers, with ``to_dict`` for JSON.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class PlayerStats:
    """Per-player hand statistics of one evaluation (all rates are fractions in 0..1).

    Attributes:
        knocks: hands this player ended by knocking (gin included).
        gins: hands this player won by gin (big gin included).
        undercuts_given: hands this player won by undercutting the opponent's knock.
        undercuts_suffered: knocks of this player that were undercut.
        knock_rate: ``knocks / hands``.
        gin_rate: ``gins / hands``.
        undercut_given_rate: ``undercuts_given`` / the opponent's knocks (0 if none).
        undercut_suffered_rate: ``undercuts_suffered`` / this player's knocks (0 if none);
            the ``undercut_rate`` of the training curves.
        mean_deadwood_at_knock: mean knocker deadwood over this player's knocks (0 if none).
    """

    knocks: int
    gins: int
    undercuts_given: int
    undercuts_suffered: int
    knock_rate: float
    gin_rate: float
    undercut_given_rate: float
    undercut_suffered_rate: float
    mean_deadwood_at_knock: float


@dataclass
class EvalResult:
    """Results of ``evaluate``: A's view of a match of Hollywood series against B.

    Attributes:
        name_a: A's name.
        name_b: B's name.
        seed: the evaluation seed.
        duplicate: whether each deal sequence was played twice with seats swapped.
        rules: the rules options used.
        n_series: series played (``2 * deal_sequences`` in duplicate mode).
        deal_sequences: distinct deal sequences (series seeds).
        series_won: series A won (two games or more).
        series_lost: series B won.
        series_unfinished: series abandoned after ``max_hands_per_series`` hands.
        series_win_rate: ``series_won / n_series``.
        series_win_ci: 95% interval of the series win rate.
        games_won: Hollywood games A won.
        games_lost: Hollywood games B won.
        hands: hands played, drawn ones included.
        hands_won: hands A scored.
        hands_lost: hands B scored.
        hands_drawn: hands nobody scored (stock exhausted, or truncated).
        hands_truncated: drawn hands cut at ``max_turns_per_hand``.
        hand_win_rate: ``hands_won / hands``.
        hand_win_ci: 95% interval of the hand win rate.
        points_per_hand: A's points minus B's points, per hand played.
        points_per_hand_ci: 95% interval of ``points_per_hand``.
        mean_hands_per_series: ``hands / n_series``.
        a: A's hand statistics.
        b: B's hand statistics.
        seconds: wall-clock time of the evaluation.
        series_per_second: ``n_series / seconds``.
        steps: batched engine steps.
        version_a: A's exact version (a bot's ``spec``: ``simple@2``,
            ``patient@1:knock_turns=4``), None for a policy without one (a trained model).
        version_b: B's exact version.
    """

    name_a: str
    name_b: str
    seed: int
    duplicate: bool
    rules: dict[str, Any]
    n_series: int
    deal_sequences: int
    series_won: int
    series_lost: int
    series_unfinished: int
    series_win_rate: float
    series_win_ci: tuple[float, float]
    games_won: int
    games_lost: int
    hands: int
    hands_won: int
    hands_lost: int
    hands_drawn: int
    hands_truncated: int
    hand_win_rate: float
    hand_win_ci: tuple[float, float]
    points_per_hand: float
    points_per_hand_ci: tuple[float, float]
    mean_hands_per_series: float
    a: PlayerStats
    b: PlayerStats
    seconds: float
    series_per_second: float
    steps: int
    version_a: str | None = None
    version_b: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (intervals as two-element lists)."""
        return jsonable(dataclasses.asdict(self))

    def same_play(self, other: EvalResult) -> bool:
        """Whether two results agree on everything but timing (for reproducibility checks)."""
        mine, theirs = self.to_dict(), other.to_dict()
        for d in (mine, theirs):
            for key in ("seconds", "series_per_second"):
                d.pop(key)
        return mine == theirs


@dataclass
class Rating:
    """One player's league rating (Elo scale) with its 95% bootstrap interval."""

    name: str
    rating: float
    ci_low: float
    ci_high: float


@dataclass
class LeagueResult:
    """Results of ``league``: every pair's ``EvalResult``, matrices and ratings.

    Matrices are indexed ``[row][column]`` in ``names`` order from the row player's
    view; the diagonal is ``None``.

    Attributes:
        names: the players.
        n_series: series per pair (per orientation: ``2 *`` this in duplicate mode).
        seed: the league seed (every pair plays the same deal sequences).
        duplicate: duplicate mode.
        pairs: the ``EvalResult`` of each pair ``(i, j)``, ``i < j``, with A = ``names[i]``.
        series_win_rate: series win rate matrix.
        hand_win_rate: hand win rate matrix.
        points_per_hand: points per hand matrix.
        ratings: Bradley-Terry ratings, in ``names`` order (mean 0: each interval also
            carries the uncertainty of the others, large after a clean sweep).
        rating_gaps: ``[gap, low, high]``: row's rating minus column's, with its 95%
            interval (the number to read when two players are close).
        rating_method: how the ratings and their intervals were computed.
        seconds: wall-clock time of the whole league.
    """

    names: list[str]
    n_series: int
    seed: int
    duplicate: bool
    pairs: list[EvalResult]
    series_win_rate: list[list[float | None]]
    hand_win_rate: list[list[float | None]]
    points_per_hand: list[list[float | None]]
    ratings: list[Rating]
    rating_gaps: list[list[list[float] | None]]
    rating_method: str
    seconds: float = field(default=0.0)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict."""
        out = jsonable(dataclasses.asdict(self))
        out["pairs"] = [p.to_dict() for p in self.pairs]
        # every pair of a league plays under the same rules
        out["rules"] = out["pairs"][0]["rules"] if out["pairs"] else None
        return out


def jsonable(value: Any) -> Any:
    """Tuples to lists and numpy scalars to Python numbers, recursively."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value

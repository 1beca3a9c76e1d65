"""One tally for every evaluation: raw per-series (or per-game) counts, from A's side.

``evaluate`` (full Hollywood series) and the trainer's single-hand evaluation
(``agents.evaluation.hand_eval``) both count finished hands with ``MatchTally.add_hands``,
so each metric has the one definition below. The counts are raw integers per series, so
tallies of disjoint shards of an evaluation (worker processes, Ray tasks) concatenate
into exactly the tally of one process (``MatchTally.concat``) and summarise to the same
table, intervals included.

Metric definitions, each from one player's point of view over the hands it played (a
player *knocks* when it ends the hand by knocking, gin and big gin included, whatever
the result):

=========================  ===========================================================
metric                     definition
=========================  ===========================================================
series_win_rate            series the player won / series played (an unfinished series
                           counts as not won)
hand_win_rate              hands the player scored / hands (a drawn hand counts as not
                           won)
points_per_hand            (the player's points - the opponent's points) / hands
knock_rate                 the player's knocks / hands
gin_rate                   hands the player won by gin or big gin / hands
undercut_rate              the fraction of the player's own knocks that the opponent
                           undercut (0 with no knock; ``undercut_suffered_rate`` in
                           the JSON); lower is better
undercut_given_rate        the fraction of the opponent's knocks that the player
                           undercut (0 when the opponent never knocked)
draw_rate                  hands nobody scored (the stock down to two cards, or the
                           turn limit) / hands
mean_deadwood_at_knock     the player's mean deadwood over its knocks
=========================  ===========================================================
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from agents.evaluation.results import PlayerStats
from hgin_env.engine.game import HandState, Outcome
from hgin_env.engine.hollywood import ScoreSheets

_GINS = (Outcome.GIN, Outcome.BIG_GIN)


@dataclass
class MatchTally:
    """Per-series counters of one match, indexed by series (or game) row.

    Attributes:
        a_seat: int8[S], A's seat in each series.
        cluster: int64[S], the deal sequence of each series (duplicate mode plays each
            twice); the unit of the confidence intervals.
        series_result: int8[S], +1 A won the series, -1 B won it, 0 unfinished.
        games_a: int64[S], Hollywood games A won; ``games_b`` likewise for B.
        hands: int64[S], hands finished, drawn ones included.
        drawn, truncated: int64[S], hands nobody scored / cut at the turn limit.
        a_won, a_points, a_knocks, a_gins, a_undercut, a_knock_deadwood: int64[S], A's
            hands scored, points scored, knocks, gins, knocks undercut and deadwood summed
            over its knocks; ``b_*`` likewise for B.
    """

    a_seat: np.ndarray
    cluster: np.ndarray
    series_result: np.ndarray
    games_a: np.ndarray
    games_b: np.ndarray
    hands: np.ndarray
    drawn: np.ndarray
    truncated: np.ndarray
    a_won: np.ndarray
    b_won: np.ndarray
    a_points: np.ndarray
    b_points: np.ndarray
    a_knocks: np.ndarray
    b_knocks: np.ndarray
    a_gins: np.ndarray
    b_gins: np.ndarray
    a_undercut: np.ndarray
    b_undercut: np.ndarray
    a_knock_deadwood: np.ndarray
    b_knock_deadwood: np.ndarray

    @classmethod
    def zeros(cls, a_seat: np.ndarray, cluster: np.ndarray | None = None) -> MatchTally:
        """An empty tally for series with A in the seats ``a_seat`` (int[S])."""
        a_seat = np.asarray(a_seat, dtype=np.int8)
        n = a_seat.size
        cluster = np.arange(n) if cluster is None else np.asarray(cluster, dtype=np.int64)
        counts = {
            f.name: np.zeros(n, dtype=np.int64)
            for f in fields(cls)
            if f.name not in ("a_seat", "cluster", "series_result")
        }
        return cls(a_seat, cluster, np.zeros(n, dtype=np.int8), **counts)

    @classmethod
    def concat(cls, parts: list[MatchTally]) -> MatchTally:
        """The tally of the series of ``parts`` one after another (shards of one match)."""
        return cls(
            **{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)}
        )

    @property
    def n(self) -> int:
        """Series (or games) counted."""
        return int(self.a_seat.size)

    def add_hands(self, rows: np.ndarray, hands: HandState) -> None:
        """Count the finished hands ``hands`` (a ``HandState`` of M rows) of series ``rows``."""
        if rows.size == 0:
            return
        a_seat = self.a_seat[rows].astype(np.int64)
        outcome = hands.outcome.astype(np.int64)
        winner = hands.winner.astype(np.int64)
        knocker = hands.knocker.astype(np.int64)
        points = hands.points.astype(np.int64)
        is_gin = np.isin(outcome, _GINS)
        is_undercut = outcome == Outcome.UNDERCUT
        deadwood = hands.knocker_deadwood.astype(np.int64)
        self.hands[rows] += 1
        self.drawn[rows] += winner < 0
        self.truncated[rows] += outcome == Outcome.TRUNCATED
        for who, seat in (("a", a_seat), ("b", 1 - a_seat)):
            won = winner == seat
            knocked = knocker == seat
            getattr(self, f"{who}_won")[rows] += won
            getattr(self, f"{who}_points")[rows] += np.where(won, points, 0)
            getattr(self, f"{who}_knocks")[rows] += knocked
            getattr(self, f"{who}_gins")[rows] += knocked & is_gin
            getattr(self, f"{who}_undercut")[rows] += knocked & is_undercut  # suffered
            getattr(self, f"{who}_knock_deadwood")[rows] += np.where(knocked, deadwood, 0)

    def end_series(self, sheets: ScoreSheets) -> None:
        """Take the series results and games won from the score sheets (one row a series)."""
        rows = np.arange(self.n)
        a_seat = self.a_seat.astype(np.int64)
        winner = sheets.series_winner.astype(np.int64)
        finished = sheets.finished & (winner >= 0)
        result = np.where(winner == a_seat, 1, -1)
        self.series_result[:] = np.where(finished, result, 0)
        self.games_a[:] = sheets.games_won[rows, a_seat]
        self.games_b[:] = sheets.games_won[rows, 1 - a_seat]

    def player(self, me: str) -> PlayerStats:
        """The hand statistics of player ``"a"`` or ``"b"`` (see the module's table)."""
        other = "b" if me == "a" else "a"
        hands = max(int(self.hands.sum()), 1)
        knocks = int(getattr(self, f"{me}_knocks").sum())
        other_knocks = int(getattr(self, f"{other}_knocks").sum())
        suffered = int(getattr(self, f"{me}_undercut").sum())
        given = int(getattr(self, f"{other}_undercut").sum())
        gins = int(getattr(self, f"{me}_gins").sum())
        deadwood = int(getattr(self, f"{me}_knock_deadwood").sum())
        return PlayerStats(
            knocks=knocks,
            gins=gins,
            undercuts_given=given,
            undercuts_suffered=suffered,
            knock_rate=knocks / hands,
            gin_rate=gins / hands,
            undercut_given_rate=given / other_knocks if other_knocks else 0.0,
            undercut_suffered_rate=suffered / knocks if knocks else 0.0,
            mean_deadwood_at_knock=deadwood / knocks if knocks else 0.0,
        )

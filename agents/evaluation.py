"""Evaluate policies against each other over full Hollywood series, all series in one batch.

``evaluate(A, B, n_series, seed)`` plays ``n_series`` Hollywood series (RULES.md section 4)
at once on one ``SeriesEngine``. At each step the games where A's seat is to act get one
batched ``A.act`` call on their encoded observations, the others one ``B.act`` call; only
the games whose series is still running are encoded. A sits in seat 0 in half of the
series and the first dealer is balanced too (series ``i``: A in seat ``i % 2``, first
dealer ``(i // 2) % 2``). With ``duplicate=True`` every deal sequence (the series' seed,
hence the decks of its hands one after another) is played twice, the second time with the
seats swapped, so luck of the cards cancels out; ``2 * n_series`` series are then played.

Uncertainty (95%, two-sided), each result treating series as the independent units (deal
sequences, two series each, in duplicate mode):

- series win rate: Wilson score interval; in duplicate mode with the effective sample size
  ``p (1 - p) / var`` where ``var`` is the variance of the mean over deal sequences;
- per-hand quantities (hand win rate, points per hand): ratio estimators over series
  (``sum over series / hands``) with the cluster (ratio-estimator) standard error, a Wilson
  interval at the effective sample size for the rate and a normal interval for points;
- league ratings: a Bradley-Terry model on series results (Elo scale, mean 0), fitted with
  a prior of one drawn series per pair (half a win each way) so that a clean sweep gives a
  finite rating; the interval holds the 2.5-97.5 percentiles of the ratings refitted on
  win probabilities drawn (seeded) from every pair's Jeffreys posterior
  ``Beta(wins + 1/2, losses + 1/2)``, so a sweep keeps a wide, one-sided-looking interval.

A series still running after ``max_hands_per_series`` hands (a policy that never knocks)
is abandoned: it counts as unfinished, won by neither player.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from agents.model_policy import load_policy
from agents.transcript import TranscriptRecorder
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import Outcome, hash_stream
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.policy import Policy, accepts_keys

Z95 = 1.959963984540054
#: by default a series is abandoned (counted unfinished) after this many hands, so that
#: policies that never knock cannot stall an evaluation
MAX_HANDS_PER_SERIES = 1000
ELO_SCALE = 400.0 / math.log(10.0)

PolicyLike = str | Policy


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
        undercut_suffered_rate: ``undercuts_suffered`` / this player's knocks (0 if none).
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

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (intervals as two-element lists)."""
        return _jsonable(dataclasses.asdict(self))

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
        out = _jsonable(dataclasses.asdict(self))
        out["pairs"] = [p.to_dict() for p in self.pairs]
        return out


def _jsonable(value: Any) -> Any:
    """Tuples to lists and numpy scalars to Python numbers, recursively."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


# ---------------------------------------------------------------------- statistics
def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``(0, 1)`` when ``n`` is 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return (low, high)


def ratio_standard_error(values: np.ndarray, sizes: np.ndarray) -> float:
    """Standard error of ``sum(values) / sum(sizes)`` over independent clusters.

    The cluster (linearised ratio-estimator) formula; 0 with fewer than two clusters.
    """
    values = np.asarray(values, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.float64)
    k, total = values.size, sizes.sum()
    if k < 2 or total <= 0:
        return 0.0
    ratio = values.sum() / total
    resid = values - ratio * sizes
    return float(math.sqrt(k / (k - 1) * (resid**2).sum()) / total)


def clustered_rate_interval(
    successes: np.ndarray, trials: np.ndarray
) -> tuple[float, tuple[float, float]]:
    """A rate over clusters and its Wilson interval at the clusters' effective sample size.

    Args:
        successes: per cluster successes.
        trials: per cluster trials.

    Returns:
        ``(rate, (low, high))``.
    """
    n = float(np.sum(trials))
    if n <= 0:
        return 0.0, (0.0, 1.0)
    rate = float(np.sum(successes)) / n
    se = ratio_standard_error(successes, trials)
    n_eff = n
    if se > 0 and 0 < rate < 1:
        n_eff = min(rate * (1 - rate) / se**2, n * len(trials))  # design-effect adjusted
    return rate, wilson_interval(rate * n_eff, n_eff)


def mean_interval(values: np.ndarray, sizes: np.ndarray) -> tuple[float, tuple[float, float]]:
    """``sum(values) / sum(sizes)`` with a normal 95% interval from the cluster standard error."""
    total = float(np.sum(sizes))
    mean = float(np.sum(values)) / total if total > 0 else 0.0
    half = Z95 * ratio_standard_error(values, sizes)
    return mean, (mean - half, mean + half)


# ---------------------------------------------------------------------- evaluate
def policy_name(spec: PolicyLike, policy: Policy) -> str:
    """A display name: the spec string, else the policy's ``name``, else its class name."""
    if isinstance(spec, str):
        return spec
    return str(getattr(policy, "name", type(policy).__name__))


def seating(n_series: int, duplicate: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seats and first dealers of the series of one evaluation.

    Series ``i < n_series`` plays deal sequence ``i`` with A in seat ``i % 2`` and first
    dealer ``(i // 2) % 2``; in duplicate mode series ``n_series + i`` replays deal
    sequence ``i`` with the same first dealer and A in the other seat.

    Returns:
        ``(a_seat, first_dealer, deal)``: ``int8``, ``int8`` and ``int64`` arrays, one
        entry per series.
    """
    deal = np.arange(n_series)
    a_seat = (deal % 2).astype(np.int8)
    first_dealer = ((deal // 2) % 2).astype(np.int8)
    if duplicate:
        return (
            np.concatenate([a_seat, 1 - a_seat]).astype(np.int8),
            np.concatenate([first_dealer, first_dealer]),
            np.concatenate([deal, deal]),
        )
    return a_seat, first_dealer, deal


def _sub_seed(seed: int, stream: int) -> int:
    """A 63-bit seed derived from ``(seed, stream)``."""
    return int(np.random.SeedSequence([seed, stream]).generate_state(1, np.uint64)[0] >> 1)


def _prepare(spec: PolicyLike, seed: int) -> Policy:
    """Resolve a spec, and restart a policy object's random stream when it has one."""
    policy = load_policy(spec, seed)
    reseed = getattr(policy, "seed", None)
    if callable(reseed):
        reseed(seed)
    return policy


def players(policy_a: PolicyLike, policy_b: PolicyLike, seed: int) -> tuple[Policy, Policy]:
    """A and B of an evaluation seeded ``seed``, resolved and reseeded (own sub-seeds)."""
    return _prepare(policy_a, _sub_seed(seed, 1)), _prepare(policy_b, _sub_seed(seed, 2))


@dataclass
class SeriesPlan:
    """The series of an evaluation: one entry per series (see ``seating``).

    Attributes:
        deal_seeds: uint64, each series' seed (its decks, and its players' random keys).
        a_seat: int8, A's seat.
        first_dealer: int8, the first hand's dealer.
        cluster: int64, the deal sequence (duplicate twins share one).
    """

    deal_seeds: np.ndarray
    a_seat: np.ndarray
    first_dealer: np.ndarray
    cluster: np.ndarray

    @property
    def n(self) -> int:
        """Series in the plan."""
        return int(self.deal_seeds.size)

    def part(self, lo: int, hi: int) -> SeriesPlan:
        """Series ``[lo, hi)`` of the plan."""
        return SeriesPlan(*(getattr(self, f.name)[lo:hi] for f in dataclasses.fields(self)))


def series_plan(n_series: int, seed: int, duplicate: bool = False) -> SeriesPlan:
    """The series ``evaluate(..., n_series, seed, duplicate=...)`` plays, in order."""
    deal_seeds = np.random.SeedSequence([seed, 0]).generate_state(n_series, np.uint64)
    a_seat, first_dealer, cluster = seating(n_series, duplicate)
    return SeriesPlan(deal_seeds[cluster], a_seat, first_dealer, cluster)


#: hash salts of the players' per-series random keys (keyed policies only)
KEY_SALTS = (501, 502)


def play_series(
    a: Policy,
    b: Policy,
    plan: SeriesPlan,
    rules: RulesConfig,
    max_hands_per_series: int = MAX_HANDS_PER_SERIES,
    on_finished: Any = None,
    recorder: TranscriptRecorder | None = None,
    names: tuple[str, str] = ("A", "B"),
    seed: int = 0,
) -> SeriesTally:
    """Play the plan's series of A against B in one batch; their raw per-series tallies.

    A policy that takes ``keys`` (``hgin_env.envs.policy.accepts_keys``) draws its
    randomness from its series' seed and its own decision counter there, so a series
    plays the same in any batch: any part of a plan, played alone, gives the tallies of
    those series in the whole plan (``agents.parallel_eval`` relies on it).

    Args:
        a: player A.
        b: player B.
        plan: the series (``series_plan``, or a ``part`` of it).
        rules: the rules options.
        max_hands_per_series: abandon a series after this many hands (counted unfinished).
        on_finished: called with the number of series that ended, after each step.
        recorder: an optional ``TranscriptRecorder``.
        names: A's and B's names (for the recorder).
        seed: the evaluation seed (for the recorder).
    """
    n = plan.n
    series = SeriesEngine(n, rules, seed=plan.deal_seeds)
    series.reset(first_dealers=plan.first_dealer)
    a_seat = plan.a_seat
    if recorder is not None:
        recorder.begin(series, names, a_seat, {"seed": seed})
    tally = SeriesTally(n)
    running = np.ones(n, dtype=bool)
    actions = np.zeros(n, dtype=np.int64)
    decisions = np.zeros((2, n), dtype=np.int64)  # per player (A, B) and series
    keyed = (accepts_keys(a), accepts_keys(b))
    steps = 0
    while running.any():
        game = series.engine
        masks = game.legal_action_mask()
        live = np.flatnonzero(~game.over)  # abandoned series still need legal moves
        actions[live] = masks[live].argmax(axis=1)
        rows = np.flatnonzero(running)
        seat = game.current_player[rows].astype(np.int64)
        is_a = seat == a_seat[rows]
        for who, (policy, pick) in enumerate(((a, is_a), (b, ~is_a))):
            sel = rows[pick]
            if sel.size:
                obs = encode_observations(game, seat[pick], series.sheets, sel)
                if keyed[who]:
                    keys = hash_stream(plan.deal_seeds[sel], decisions[who, sel], KEY_SALTS[who])
                    actions[sel] = policy.act(obs, masks[sel], keys=keys)
                else:
                    actions[sel] = policy.act(obs, masks[sel])
                decisions[who, sel] += 1
        if recorder is not None:
            recorder.before_step(series, actions)
        step = series.step(actions)
        if recorder is not None:
            recorder.after_step(step)
        steps += 1
        counted = running[step.rows]
        tally.add(step.rows[counted], step.hands.rows(counted), a_seat[step.rows[counted]])
        ended = step.series_over & running
        abandoned = running & ~ended & (series.hands_played >= max_hands_per_series)
        running &= ~(ended | abandoned)
        if on_finished is not None:
            on_finished(int(ended.sum() + abandoned.sum()))
    tally.close(series.sheets, steps)
    return tally


def evaluate(
    policy_a: PolicyLike,
    policy_b: PolicyLike,
    n_series: int,
    seed: int = 0,
    rules: RulesConfig | None = None,
    duplicate: bool = False,
    progress: bool = True,
    max_hands_per_series: int = MAX_HANDS_PER_SERIES,
    name_a: str | None = None,
    name_b: str | None = None,
    recorder: TranscriptRecorder | None = None,
) -> EvalResult:
    """Play full Hollywood series of A against B, all at once, and summarise them.

    Args:
        policy_a: a policy, a bot name or a model path (see ``agents.load_policy``).
        policy_b: the opponent, same forms.
        n_series: deal sequences to play (series; twice as many in duplicate mode).
        seed: the seed of the deals and of the policies' random streams; the same seed
            gives the same result (policy objects with a ``seed`` method are reseeded;
            keyed policies draw from per-series keys, see ``play_series``).
        rules: rules options (default ``RulesConfig()``).
        duplicate: also play every deal sequence with the seats swapped.
        progress: show a tqdm progress bar of finished series.
        max_hands_per_series: abandon a series after this many hands (counted unfinished).
        name_a: display name of A (default from the spec).
        name_b: display name of B.
        recorder: an optional ``agents.transcript.TranscriptRecorder`` that keeps the
            first hand of a few series (nothing is recorded when None).

    Returns:
        The ``EvalResult``.

    Raises:
        ValueError: ``n_series < 1`` or a bad seed; ``PolicyLoadError`` (a ``ValueError``)
            for a policy that cannot be loaded.
    """
    check_evaluation(n_series, seed)
    rules = rules or RulesConfig()
    a, b = players(policy_a, policy_b, seed)
    name_a = name_a or policy_name(policy_a, a)
    name_b = name_b or policy_name(policy_b, b)
    plan = series_plan(n_series, seed, duplicate)
    start = time.perf_counter()
    bar = tqdm(total=plan.n, disable=not progress, unit="series", desc=f"{name_a} vs {name_b}")
    with bar:
        tally = play_series(
            a, b, plan, rules, max_hands_per_series, bar.update, recorder, (name_a, name_b), seed
        )
    return tally.result(
        plan, name_a=name_a, name_b=name_b, seed=seed, duplicate=duplicate, rules=rules,
        deal_sequences=n_series, seconds=time.perf_counter() - start,
    )  # fmt: skip


def check_evaluation(n_series: int, seed: int) -> None:
    """Raise ``ValueError`` for ``n_series < 1`` or a negative seed."""
    if n_series < 1:
        raise ValueError(f"n_series must be >= 1, got {n_series}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")


class SeriesTally:
    """Per-series counters accumulated as hands end (index = series row), then the sheets.

    ``close`` adds the series' final score-sheet facts and the step count; tallies of
    consecutive parts of a plan ``concat`` into the tally of the whole plan.
    """

    COUNTERS = (
        "hands", "a_won", "b_won", "drawn", "truncated", "a_points", "b_points",
        "a_knocks", "b_knocks", "a_gins", "b_gins", "a_undercut", "b_undercut",
        "a_knock_deadwood", "b_knock_deadwood",
    )  # fmt: skip
    #: per-series facts taken from the score sheets by ``close``
    SHEET = ("series_winner", "finished", "games_won")

    def __init__(self, n: int) -> None:
        for name in self.COUNTERS:
            setattr(self, name, np.zeros(n, dtype=np.int64))
        self.steps = 0

    def close(self, sheets: Any, steps: int) -> None:
        """Keep the sheets' series winners, finished flags and games won, and the steps."""
        self.series_winner = sheets.series_winner.astype(np.int64)
        self.finished = sheets.finished.copy()
        self.games_won = sheets.games_won.copy()  # int64[N, 2]
        self.steps = steps

    @classmethod
    def concat(cls, parts: Sequence[SeriesTally]) -> SeriesTally:
        """The tally of consecutive parts (steps: the longest part's, as one batch's)."""
        whole = cls(0)
        for name in (*cls.COUNTERS, *cls.SHEET):
            setattr(whole, name, np.concatenate([getattr(p, name) for p in parts]))
        whole.steps = max(p.steps for p in parts)
        return whole

    def add(self, rows: np.ndarray, hands, a_seat: np.ndarray) -> None:
        """Count the finished hands ``hands`` (a ``HandState``) of series ``rows``."""
        if rows.size == 0:
            return
        outcome = hands.outcome.astype(np.int64)
        winner = hands.winner.astype(np.int64)
        knocker = hands.knocker.astype(np.int64)
        points = hands.points.astype(np.int64)
        is_gin = (outcome == Outcome.GIN) | (outcome == Outcome.BIG_GIN)
        is_undercut = outcome == Outcome.UNDERCUT
        dw = hands.knocker_deadwood.astype(np.int64)
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
            getattr(self, f"{who}_knock_deadwood")[rows] += np.where(knocked, dw, 0)

    def _player(self, me: str, other: str) -> PlayerStats:
        hands = max(int(self.hands.sum()), 1)
        knocks = int(getattr(self, f"{me}_knocks").sum())
        other_knocks = int(getattr(self, f"{other}_knocks").sum())
        suffered = int(getattr(self, f"{me}_undercut").sum())
        given = int(getattr(self, f"{other}_undercut").sum())
        gins = int(getattr(self, f"{me}_gins").sum())
        return PlayerStats(
            knocks=knocks,
            gins=gins,
            undercuts_given=given,
            undercuts_suffered=suffered,
            knock_rate=knocks / hands,
            gin_rate=gins / hands,
            undercut_given_rate=given / other_knocks if other_knocks else 0.0,
            undercut_suffered_rate=suffered / knocks if knocks else 0.0,
            mean_deadwood_at_knock=(
                int(getattr(self, f"{me}_knock_deadwood").sum()) / knocks if knocks else 0.0
            ),
        )

    def result(self, plan: SeriesPlan, **info: Any) -> EvalResult:
        """Summarise the closed tally of ``plan``'s series into an ``EvalResult``."""
        a_seat, cluster = plan.a_seat, plan.cluster
        n = a_seat.size
        winner = self.series_winner
        finished = self.finished & (winner >= 0)
        a_series = finished & (winner == a_seat)
        b_series = finished & (winner == 1 - a_seat)
        games = self.games_won  # int64[N, 2]
        rows = np.arange(n)
        n_clusters = int(cluster.max()) + 1

        def per_cluster(x: np.ndarray) -> np.ndarray:
            return np.bincount(cluster, weights=x.astype(np.float64), minlength=n_clusters)

        series_rate, series_ci = clustered_rate_interval(
            per_cluster(a_series), per_cluster(np.ones(n))
        )
        hand_rate, hand_ci = clustered_rate_interval(
            per_cluster(self.a_won), per_cluster(self.hands)
        )
        ppH, ppH_ci = mean_interval(
            per_cluster(self.a_points - self.b_points), per_cluster(self.hands)
        )
        hands = int(self.hands.sum())
        seconds = info.pop("seconds")
        rules = info.pop("rules")
        return EvalResult(
            **info,
            rules=rules.to_dict(),
            n_series=n,
            series_won=int(a_series.sum()),
            series_lost=int(b_series.sum()),
            series_unfinished=int((~self.finished).sum()),
            series_win_rate=series_rate,
            series_win_ci=series_ci,
            games_won=int(games[rows, a_seat].sum()),
            games_lost=int(games[rows, 1 - a_seat].sum()),
            hands=hands,
            hands_won=int(self.a_won.sum()),
            hands_lost=int(self.b_won.sum()),
            hands_drawn=int(self.drawn.sum()),
            hands_truncated=int(self.truncated.sum()),
            hand_win_rate=hand_rate,
            hand_win_ci=hand_ci,
            points_per_hand=ppH,
            points_per_hand_ci=ppH_ci,
            mean_hands_per_series=hands / n,
            a=self._player("a", "b"),
            b=self._player("b", "a"),
            seconds=seconds,
            series_per_second=n / seconds if seconds > 0 else float("inf"),
            steps=self.steps,
        )


# ---------------------------------------------------------------------- league
RATING_METHOD = (
    "Bradley-Terry on series results (Elo scale: 400 log10 strength, mean 0), MM fit with a "
    "prior of one drawn series per pair; 95% interval: 2.5-97.5 percentiles of the ratings "
    "refitted on {n} seeded draws of every pair's win probability from its Jeffreys posterior "
    "Beta(wins + 1/2, losses + 1/2)"
)


def bradley_terry(wins: np.ndarray, prior: float = 0.5, iterations: int = 500) -> np.ndarray:
    """Bradley-Terry ratings (Elo scale, mean 0) from win counts, batched.

    Args:
        wins: ``float[..., K, K]``, ``wins[i, j]`` = series i won against j.
        prior: virtual wins added each way for every pair (keeps sweeps finite).
        iterations: MM iterations (Hunter 2004).

    Returns:
        ``float[..., K]`` ratings.
    """
    wins = np.asarray(wins, dtype=np.float64)
    k = wins.shape[-1]
    off = 1.0 - np.eye(k)
    w = wins + prior * off
    games = w + np.swapaxes(w, -1, -2)
    total_wins = w.sum(axis=-1)
    strength = np.ones(wins.shape[:-1])
    for _ in range(iterations):
        denom = (games / (strength[..., :, None] + strength[..., None, :])).sum(axis=-1)
        strength = total_wins / denom
        strength /= np.exp(np.log(strength).mean(axis=-1, keepdims=True))
    rating = ELO_SCALE * np.log(strength)
    return rating - rating.mean(axis=-1, keepdims=True)


def _rating_draws(wins: np.ndarray, n_draws: int, seed: int) -> np.ndarray:
    """``float[n_draws, K]`` ratings refitted under each pair's Jeffreys posterior.

    Each draw replaces every pair's series record by ``n`` series won with a probability
    drawn from ``Beta(wins + 1/2, losses + 1/2)`` and refits Bradley-Terry (no extra
    prior). Unlike a plain bootstrap, a clean sweep keeps an honest, wide interval.
    """
    rng = np.random.default_rng(seed)
    k = wins.shape[0]
    i, j = np.triu_indices(k, 1)
    games = wins[i, j] + wins[j, i]
    p = rng.beta(wins[i, j] + 0.5, wins[j, i] + 0.5, size=(n_draws, i.size))
    p = np.clip(p, 1e-9, 1 - 1e-9)  # a float draw of exactly 0 or 1 has no finite rating
    draws = np.zeros((n_draws, k, k))
    draws[:, i, j] = p * games
    draws[:, j, i] = (1 - p) * games
    return bradley_terry(draws, prior=0.0)


def league(
    policies: Sequence[PolicyLike] | Mapping[str, PolicyLike],
    n_series: int,
    seed: int = 0,
    rules: RulesConfig | None = None,
    duplicate: bool = False,
    progress: bool = True,
    n_rating_draws: int = 1000,
) -> LeagueResult:
    """Round robin: ``evaluate`` every pair once, then matrices and Bradley-Terry ratings.

    Args:
        policies: names / model paths, or a mapping name -> policy (or spec).
        n_series: deal sequences per pair (the same ones for every pair).
        seed: the seed of every pair's evaluation and of the rating draws.
        rules: rules options.
        duplicate: duplicate mode for every pair.
        progress: progress bars.
        n_rating_draws: posterior draws for the rating intervals.

    Returns:
        The ``LeagueResult``.

    Raises:
        ValueError: fewer than two players or a repeated name; ``PolicyLoadError`` for a
            policy that cannot be loaded (checked before any game is played).
    """
    items = (
        list(policies.items())
        if isinstance(policies, Mapping)
        else [(str(p) if isinstance(p, str) else None, p) for p in policies]
    )
    if len(items) < 2:
        raise ValueError(f"a league needs at least two players, got {len(items)}")
    resolved = [(name, load_policy(spec, seed)) for name, spec in items]
    names = [
        name or policy_name(spec, pol)
        for (name, pol), (_, spec) in zip(resolved, items, strict=True)
    ]
    if len(set(names)) != len(names):
        raise ValueError(f"league players must have distinct names, got {names}")
    k = len(names)
    start = time.perf_counter()
    pairs: list[EvalResult] = []
    for i, j in itertools.combinations(range(k), 2):
        pairs.append(
            evaluate(
                resolved[i][1], resolved[j][1], n_series, seed, rules, duplicate, progress,
                name_a=names[i], name_b=names[j],
            )
        )  # fmt: skip
    matrices = {key: [[None] * k for _ in range(k)] for key in ("series", "hand", "points")}
    wins = np.zeros((k, k))
    for (i, j), res in zip(itertools.combinations(range(k), 2), pairs, strict=True):
        matrices["series"][i][j] = res.series_win_rate
        matrices["series"][j][i] = res.series_lost / res.n_series
        matrices["hand"][i][j] = res.hand_win_rate
        matrices["hand"][j][i] = res.hands_lost / res.hands if res.hands else 0.0
        matrices["points"][i][j] = res.points_per_hand
        matrices["points"][j][i] = -res.points_per_hand
        wins[i, j], wins[j, i] = res.series_won, res.series_lost
    rating = bradley_terry(wins)
    draws = _rating_draws(wins, n_rating_draws, _sub_seed(seed, 3))
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    ratings = [Rating(names[i], float(rating[i]), float(low[i]), float(high[i])) for i in range(k)]
    gaps = draws[:, :, None] - draws[:, None, :]  # [D, K, K]: row minus column
    gap_low, gap_high = np.percentile(gaps, [2.5, 97.5], axis=0)
    rating_gaps = [
        [
            None if a == b else [float(rating[a] - rating[b]), gap_low[a, b], gap_high[a, b]]
            for b in range(k)
        ]
        for a in range(k)
    ]
    return LeagueResult(
        names=names,
        n_series=n_series,
        seed=seed,
        duplicate=duplicate,
        pairs=pairs,
        series_win_rate=matrices["series"],
        hand_win_rate=matrices["hand"],
        points_per_hand=matrices["points"],
        ratings=ratings,
        rating_gaps=_jsonable(rating_gaps),
        rating_method=RATING_METHOD.format(n=n_rating_draws),
        seconds=time.perf_counter() - start,
    )

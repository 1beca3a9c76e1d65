"""The match driver: policies A and B play full Hollywood series, all series in one batch.

``evaluate(A, B, n_series, seed)`` plays ``n_series`` Hollywood series (docs/rules.md §4)
at once on one ``SeriesEngine``. At each step the games where A's seat is to act get one
batched ``A.act`` call on their encoded observations, the others one ``B.act`` call; only
the games whose series is still running are encoded. A sits in seat 0 in half of the
series and the first dealer is balanced too (series ``i``: A in seat ``i % 2``, first
dealer ``(i // 2) % 2``). With ``duplicate=True`` every deal sequence (the series' seed,
hence the decks of its hands one after another) is played twice, the second time with the
seats swapped, so luck of the cards cancels out; ``2 * n_series`` series are then played.

Determinism: series ``i`` depends on its deal seed alone. A policy that takes per-game
``keys`` (``hgin_env.envs.policy``) gets, in every series, keys hashed from the series'
seed and that side's decision counter; so a series plays the same whether the match runs
in one batch or split into shards (``play_series`` on a slice of the ``MatchPlan``, then
``MatchTally.concat``), which is what makes a sharded evaluation equal a local one.

A series still running after ``max_hands_per_series`` hands (a policy that never knocks)
is abandoned: it counts as unfinished, won by neither player.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from tqdm.auto import tqdm

from agents.evaluation.results import EvalResult
from agents.evaluation.stats import clustered_rate_interval, mean_interval
from agents.evaluation.tally import MatchTally
from agents.evaluation.transcript import TranscriptRecorder
from agents.policies.model import load_policy
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import SeedStream, series_seeds, sub_seed
from hgin_env.engine.series import SeriesEngine, SeriesStep
from hgin_env.envs.play import play_batch
from hgin_env.envs.policy import Policy

#: by default a series is abandoned (counted unfinished) after this many hands, so that
#: policies that never knock cannot stall an evaluation
MAX_HANDS_PER_SERIES = 1000

PolicyLike = str | Policy


@dataclass(frozen=True)
class MatchPlan:
    """Which series a match plays: one entry per series.

    Attributes:
        deal_seeds: uint64[S], each series' seed (its decks and dealers).
        a_seat: int8[S], A's seat.
        first_dealer: int8[S], the seat dealing the series' first hand.
        cluster: int64[S], the deal sequence (duplicate mode plays each twice).
    """

    deal_seeds: np.ndarray
    a_seat: np.ndarray
    first_dealer: np.ndarray
    cluster: np.ndarray

    @classmethod
    def make(cls, n_series: int, seed: int, duplicate: bool = False) -> MatchPlan:
        """The plan of ``evaluate(..., n_series, seed, duplicate)``."""
        seeds = series_seeds(seed, n_series)
        a_seat, first_dealer, cluster = seating(n_series, duplicate)
        return cls(seeds[cluster], a_seat, first_dealer, cluster)

    def __len__(self) -> int:
        return int(self.a_seat.size)

    def shard(self, start: int, stop: int) -> MatchPlan:
        """The series ``start:stop`` of the plan."""
        part = slice(start, stop)
        return MatchPlan(
            self.deal_seeds[part], self.a_seat[part], self.first_dealer[part], self.cluster[part]
        )


def shard_bounds(n: int, shards: int) -> list[tuple[int, int]]:
    """``shards`` contiguous ``(start, stop)`` ranges covering ``0..n``, the first ones larger.

    The one split of a plan, for worker processes and Ray tasks alike (sizes differ by at
    most one; never more shards than series).

    >>> shard_bounds(5, 2)
    [(0, 3), (3, 5)]
    """
    k = max(1, min(shards, n))
    edges = np.cumsum([0] + [n // k + (i < n % k) for i in range(k)])
    return [(int(lo), int(hi)) for lo, hi in itertools.pairwise(edges)]


def policy_name(spec: PolicyLike, policy: Policy) -> str:
    """A display name: the spec string, else the policy's ``name``, else its class name."""
    if isinstance(spec, str):
        return spec
    return str(getattr(policy, "name", type(policy).__name__))


def policy_version(policy: Policy) -> str | None:
    """The exact version of a player, or None for one without (a trained model).

    A policy carries its own exact name: a bot's versioned name with its options
    (``simple@2``, ``patient@1:knock_turns=4``; ``Bot.spec``) or the named search's
    (``searcher@4``), in ``spec``; ``name@version`` for another policy that has both
    attributes (``random@1``).
    """
    exact = getattr(policy, "spec", None)
    if isinstance(exact, str):
        return exact
    name, version = getattr(policy, "name", None), getattr(policy, "version", None)
    return f"{name}@{version}" if name is not None and version is not None else None


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


def prepare(spec: PolicyLike, seed: int) -> Policy:
    """Resolve a spec, and restart a policy object's random stream when it has one."""
    policy = load_policy(spec, seed)
    reseed = getattr(policy, "seed", None)
    if callable(reseed):
        reseed(seed)
    return policy


def check_evaluation(n_series: int, seed: int) -> None:
    """Raise ``ValueError`` for a series count below 1 or a negative seed."""
    if n_series < 1:
        raise ValueError(f"n_series must be >= 1, got {n_series}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")


def check_transcript(recorder: TranscriptRecorder | None, bounds: list[tuple[int, int]]) -> None:
    """Raise ``ValueError`` unless the first part of a split plan holds the recorded series."""
    if recorder is not None and recorder.hands > bounds[0][1]:
        raise ValueError(
            f"a transcript of {recorder.hands} hands needs that many series in the first "
            f"part ({bounds[0][1]} series): use fewer hands or fewer parts"
        )


def players(policy_a: PolicyLike, policy_b: PolicyLike, seed: int) -> tuple[Policy, Policy]:
    """A's and B's policies for an evaluation seeded ``seed`` (each with its own stream)."""
    a = prepare(policy_a, sub_seed(seed, SeedStream.POLICY_A))
    return a, prepare(policy_b, sub_seed(seed, SeedStream.POLICY_B))


def play_series(
    a: Policy,
    b: Policy,
    plan: MatchPlan,
    rules: RulesConfig | None = None,
    max_hands_per_series: int = MAX_HANDS_PER_SERIES,
    on_finished: Callable[[int], object] | None = None,
    recorder: TranscriptRecorder | None = None,
    names: tuple[str, str] = ("A", "B"),
    seed: int = 0,
) -> tuple[MatchTally, int]:
    """Play the series of ``plan``, A against B, in one batch; return the raw tally.

    Args:
        a: A's policy.
        b: B's policy.
        plan: the series to play.
        rules: rules options (default ``RulesConfig()``).
        max_hands_per_series: abandon a series after this many hands.
        on_finished: called with the number of series that ended, after each step.
        recorder: an optional transcript recorder (first hands of a few series).
        names: A's and B's names (for the recorder).
        seed: the evaluation seed (for the recorder).

    Returns:
        ``(tally, steps)``: the per-series counts and the batched engine steps taken.
    """
    n = len(plan)
    series = SeriesEngine(n, rules or RulesConfig(), seed=plan.deal_seeds)
    series.reset(first_dealers=plan.first_dealer)
    if recorder is not None:
        versions = (policy_version(a), policy_version(b))
        recorder.begin(series, names, plan.a_seat, {"seed": seed}, versions)
    tally = MatchTally.zeros(plan.a_seat, plan.cluster)

    def after_step(step: SeriesStep, running: np.ndarray) -> np.ndarray:
        """Count the hands that ended; abandon the series past the hand limit."""
        if recorder is not None:
            recorder.after_step(step)
        counted = running[step.rows]
        tally.add_hands(step.rows[counted], step.hands.rows(counted))
        ended = step.series_over & running
        abandoned = running & ~ended & (series.hands_played >= max_hands_per_series)
        if on_finished is not None:
            on_finished(int(ended.sum() + abandoned.sum()))
        return abandoned

    before_step = None
    if recorder is not None:
        before_step = functools.partial(recorder.before_step, series)
    steps = play_batch(
        series, a, b, plan.a_seat, key_seeds=plan.deal_seeds,
        before_step=before_step, after_step=after_step,
    )  # fmt: skip
    tally.end_series(series.sheets)
    return tally, steps


def summarize(tally: MatchTally, **info: Any) -> EvalResult:
    """Turn a match's raw tally into an ``EvalResult``.

    Args:
        tally: the per-series counts (of one process, or concatenated shards).
        **info: the ``EvalResult`` fields the tally does not hold: ``name_a``, ``name_b``,
            ``seed``, ``duplicate``, ``rules`` (a ``RulesConfig``), ``deal_sequences``,
            ``seconds`` and ``steps``, and optionally ``version_a``, ``version_b``.
    """
    t = tally
    n = t.n
    n_clusters = int(t.cluster.max()) + 1

    def per_cluster(x: np.ndarray) -> np.ndarray:
        return np.bincount(t.cluster, weights=x.astype(np.float64), minlength=n_clusters)

    a_series = t.series_result > 0
    series_rate, series_ci = clustered_rate_interval(per_cluster(a_series), per_cluster(np.ones(n)))
    hand_rate, hand_ci = clustered_rate_interval(per_cluster(t.a_won), per_cluster(t.hands))
    ppH, ppH_ci = mean_interval(per_cluster(t.a_points - t.b_points), per_cluster(t.hands))
    hands = int(t.hands.sum())
    seconds = info.pop("seconds")
    rules = info.pop("rules")
    return EvalResult(
        **info,
        rules=rules.to_dict(),
        n_series=n,
        series_won=int(a_series.sum()),
        series_lost=int((t.series_result < 0).sum()),
        series_unfinished=int((t.series_result == 0).sum()),
        series_win_rate=series_rate,
        series_win_ci=series_ci,
        games_won=int(t.games_a.sum()),
        games_lost=int(t.games_b.sum()),
        hands=hands,
        hands_won=int(t.a_won.sum()),
        hands_lost=int(t.b_won.sum()),
        hands_drawn=int(t.drawn.sum()),
        hands_truncated=int(t.truncated.sum()),
        hand_win_rate=hand_rate,
        hand_win_ci=hand_ci,
        points_per_hand=ppH,
        points_per_hand_ci=ppH_ci,
        mean_hands_per_series=hands / n,
        a=t.player("a"),
        b=t.player("b"),
        seconds=seconds,
        series_per_second=n / seconds if seconds > 0 else float("inf"),
    )


@dataclass
class MatchJob:
    """One match for a runner: the resolved players, the plan and how to play it."""

    a: Policy
    b: Policy
    plan: MatchPlan
    rules: RulesConfig
    max_hands_per_series: int
    names: tuple[str, str]
    seed: int
    recorder: TranscriptRecorder | None = None


#: what a runner hands back for a job: the raw tally, the batched steps, the seconds
Played = tuple[MatchTally, int, float]


class Runner(Protocol):
    """Where a match's series are played: ``local``, ``processes(K)`` or ``ray(address)``.

    Every runner plays the same ``MatchPlan`` (in contiguous parts of ``shard_bounds``
    when it splits it) and returns the raw tally in plan order, so the result is the same
    whichever runs it (``agents.evaluation.match`` explains why).
    """

    #: whether ``on_finished`` is called as series end (else no progress bar is shown)
    reports_progress: bool

    def session(self) -> contextlib.AbstractContextManager[object]:
        """The context the runner's matches play in (a Ray cluster, or nothing)."""
        ...

    def start(self, job: MatchJob, on_finished: Callable[[int], object]) -> Callable[[], Played]:
        """Start playing ``job``; the returned call waits for it and gives what was played."""
        ...


class LocalRunner:
    """All series in this process, in one batch (the default runner)."""

    reports_progress = True

    def session(self) -> contextlib.AbstractContextManager[object]:
        """Nothing to start."""
        return contextlib.nullcontext()

    def start(self, job: MatchJob, on_finished: Callable[[int], object]) -> Callable[[], Played]:
        """Play the job now."""
        start = time.perf_counter()
        tally, steps = play_series(
            job.a, job.b, job.plan, job.rules, job.max_hands_per_series, on_finished,
            job.recorder, job.names, job.seed,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        return lambda: (tally, steps, seconds)


#: the runner that plays everything in this process
local = LocalRunner()


@contextlib.contextmanager
def _bar(total: int, shown: bool, names: tuple[str, str]) -> Iterator[Callable[[int], object]]:
    """A progress bar of finished series (shown only when asked and the runner reports)."""
    with tqdm(total=total, disable=not shown, unit="series", desc=" vs ".join(names)) as bar:
        yield bar.update


def start_match(runner: Runner, job: MatchJob, progress: bool = True) -> Callable[[], Played]:
    """Hand one match to ``runner`` (with its progress bar); call the result to wait for it."""
    with _bar(len(job.plan), progress and runner.reports_progress, job.names) as on_finished:
        return runner.start(job, on_finished)


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
    runner: Runner = local,
) -> EvalResult:
    """Play full Hollywood series of A against B and summarise them.

    Args:
        policy_a: a policy, a bot name or a model path (see ``agents.load_policy``).
        policy_b: the opponent, same forms.
        n_series: deal sequences to play (series; twice as many in duplicate mode).
        seed: the seed of the deals and of the policies' random streams; the same seed
            gives the same result (policy objects with a ``seed`` method are reseeded).
        rules: rules options (default ``RulesConfig()``).
        duplicate: also play every deal sequence with the seats swapped.
        progress: show a tqdm progress bar of finished series.
        max_hands_per_series: abandon a series after this many hands (counted unfinished).
        name_a: display name of A (default from the spec).
        name_b: display name of B.
        recorder: an optional ``agents.evaluation.transcript.TranscriptRecorder`` that keeps the
            first hand of a few series (nothing is recorded when None); when the runner
            splits the plan, its first part records (it must hold the recorded series).
        runner: where the series play: ``local`` (this process, one batch; the default),
            ``processes(K)`` (K worker processes) or ``ray(address)`` (a Ray cluster);
            every runner gives the same result, timing apart.

    Returns:
        The ``EvalResult``.

    Raises:
        ValueError: ``n_series < 1``, a bad seed, or a transcript longer than the first
            part of a split plan; ``PolicyLoadError`` (a ``ValueError``) for a policy that
            cannot be loaded.
        EnvWorkerError: a worker process of ``processes(K)`` that died.
    """
    check_evaluation(n_series, seed)
    rules = rules or RulesConfig()
    a, b = players(policy_a, policy_b, seed)
    names = (name_a or policy_name(policy_a, a), name_b or policy_name(policy_b, b))
    plan = MatchPlan.make(n_series, seed, duplicate)
    with runner.session():
        job = MatchJob(a, b, plan, rules, max_hands_per_series, names, seed, recorder)
        wait = start_match(runner, job, progress)
        tally, steps, seconds = wait()
    return summarize(
        tally, name_a=names[0], name_b=names[1], seed=seed, duplicate=duplicate, rules=rules,
        deal_sequences=n_series, seconds=seconds, steps=steps,
        version_a=policy_version(a), version_b=policy_version(b),
    )  # fmt: skip

"""Ray-sharded evaluation: the series of a pair or a league split across Ray tasks.

The driver resolves the policies exactly as ``evaluate`` does (same specs, same seeds),
makes the ``MatchPlan`` and cuts it into contiguous shards; each Ray task plays one shard
with ``play_series`` and returns its raw ``MatchTally``; the driver concatenates the
shards in plan order and calls ``summarize``. A series plays the same in any shard when
both policies are deterministic or take per-series ``keys`` (``agents.evaluation.match``),
so the result equals a local ``evaluate`` with the same seed: same table, intervals and
JSON, ``steps`` included (a batch takes as many steps as its longest series, so the
longest shard's count is the batch's); only ``seconds`` differs. Policies with one shared
random stream (no ``keys``) replay that stream from its start in every shard, so their
sharded results are valid but not the local run's.

Call inside ``agents.training.rllib.cluster.ray_cluster`` (or any connected Ray driver); ``ray`` is
imported only when a function here runs.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from agents.evaluation.league import league_players, summarize_league
from agents.evaluation.match import (
    MAX_HANDS_PER_SERIES,
    MatchPlan,
    PolicyLike,
    play_series,
    players,
    policy_name,
    summarize,
)
from agents.evaluation.results import EvalResult, LeagueResult
from agents.evaluation.tally import MatchTally
from agents.training.rllib.cluster import ray_cluster
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.policy import Policy


def shard_bounds(n: int, shards: int) -> list[tuple[int, int]]:
    """``shards`` contiguous ``(start, stop)`` ranges covering ``0..n`` (sizes differ by <= 1).

    >>> shard_bounds(5, 2)
    [(0, 3), (3, 5)]
    """
    k = max(1, min(shards, n))
    edges = np.cumsum([0] + [n // k + (i < n % k) for i in range(k)])
    return [(int(lo), int(hi)) for lo, hi in itertools.pairwise(edges)]


def play_shard(
    a: Policy, b: Policy, plan: MatchPlan, rules: RulesConfig, max_hands_per_series: int
) -> tuple[MatchTally, int]:
    """One Ray task: ``play_series`` on a shard of the plan (no progress bar)."""
    return play_series(a, b, plan, rules, max_hands_per_series)


@cache
def _remote_play_shard() -> Any:
    import ray

    return ray.remote(play_shard)


def default_shards() -> int:
    """One shard per CPU of the connected cluster."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


class _Pair:
    """The shards of one pair in flight: the plan, the names and the Ray object refs."""

    def __init__(
        self,
        a: Policy,
        b: Policy,
        plan: MatchPlan,
        rules: RulesConfig,
        max_hands_per_series: int,
        shards: int,
    ) -> None:
        import ray

        remote = _remote_play_shard()
        a_ref, b_ref = ray.put(a), ray.put(b)  # serialised now: later reseeds do not leak in
        self.refs = [
            remote.remote(a_ref, b_ref, plan.shard(lo, hi), rules, max_hands_per_series)
            for lo, hi in shard_bounds(len(plan), shards)
        ]

    def result(self, start: float, **info: Any) -> EvalResult:
        """Wait for the shards and summarise them as one match."""
        import ray

        parts = ray.get(self.refs)
        tally = MatchTally.concat([t for t, _ in parts])
        steps = max(s for _, s in parts)
        return summarize(tally, seconds=time.perf_counter() - start, steps=steps, **info)


def evaluate_sharded(
    policy_a: PolicyLike,
    policy_b: PolicyLike,
    n_series: int,
    seed: int = 0,
    rules: RulesConfig | None = None,
    duplicate: bool = False,
    max_hands_per_series: int = MAX_HANDS_PER_SERIES,
    name_a: str | None = None,
    name_b: str | None = None,
    shards: int | None = None,
) -> EvalResult:
    """``agents.evaluation.evaluate`` with the series split across Ray tasks.

    Args:
        policy_a: a policy, a bot name or a model path (as for ``evaluate``).
        policy_b: the opponent.
        n_series: deal sequences to play.
        seed: the evaluation seed.
        rules: rules options.
        duplicate: also play every deal sequence with the seats swapped.
        max_hands_per_series: abandon a series after this many hands.
        name_a: display name of A.
        name_b: display name of B.
        shards: Ray tasks (default: one per CPU of the cluster).

    Returns:
        The ``EvalResult`` (equal to the local one but for ``seconds``; see the module
        docstring).

    Raises:
        ValueError: as ``evaluate``.
    """
    if n_series < 1:
        raise ValueError(f"n_series must be >= 1, got {n_series}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    rules = rules or RulesConfig()
    a, b = players(policy_a, policy_b, seed)
    start = time.perf_counter()
    pair = _Pair(
        a, b, MatchPlan.make(n_series, seed, duplicate), rules, max_hands_per_series,
        shards or default_shards(),
    )  # fmt: skip
    return pair.result(
        start, name_a=name_a or policy_name(policy_a, a), name_b=name_b or policy_name(policy_b, b),
        seed=seed, duplicate=duplicate, rules=rules, deal_sequences=n_series,
    )  # fmt: skip


def league_sharded(
    policies: Sequence[PolicyLike] | Mapping[str, PolicyLike],
    n_series: int,
    seed: int = 0,
    rules: RulesConfig | None = None,
    duplicate: bool = False,
    n_rating_draws: int = 1000,
    shards: int | None = None,
) -> LeagueResult:
    """``agents.evaluation.league`` with every pair's series split across Ray tasks.

    All pairs' shards are submitted at once, so the cluster stays busy across pairs.

    Raises:
        ValueError: as ``league``.
    """
    if n_series < 1:
        raise ValueError(f"n_series must be >= 1, got {n_series}")
    rules = rules or RulesConfig()
    names, resolved = league_players(policies, seed)
    start = time.perf_counter()
    plan = MatchPlan.make(n_series, seed, duplicate)
    shards = shards or default_shards()
    pairs = [
        (i, j, _Pair(
            *players(resolved[i], resolved[j], seed),
            plan, rules, MAX_HANDS_PER_SERIES, shards,
        ))
        for i, j in itertools.combinations(range(len(names)), 2)
    ]  # fmt: skip
    results = [
        pair.result(
            start, name_a=names[i], name_b=names[j], seed=seed, duplicate=duplicate,
            rules=rules, deal_sequences=n_series,
        )
        for i, j, pair in pairs
    ]  # fmt: skip
    return summarize_league(names, results, n_series, seed, duplicate, n_rating_draws, start)


@contextmanager
def sharded(
    address: str | None = None,
) -> Iterator[tuple[Callable[..., EvalResult], Callable[..., LeagueResult]]]:
    """Start or join a cluster (``training.rllib.cluster``) for sharded ``evaluate`` / ``league``.

    Yields:
        ``(evaluate, league)`` look-alikes that shard over the cluster; their
        ``progress`` argument is accepted and ignored.
    """

    def pair(*args: Any, progress: bool = False, recorder: Any = None, **kwargs: Any) -> EvalResult:
        return evaluate_sharded(*args, **kwargs)

    def round_robin(*args: Any, progress: bool = False, **kwargs: Any) -> LeagueResult:
        return league_sharded(*args, **kwargs)

    with ray_cluster(address):
        yield pair, round_robin

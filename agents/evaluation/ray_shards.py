"""The ``ray(address)`` runner: a match's series split across Ray tasks.

``evaluate(..., runner=ray(address))`` and ``league(..., runner=ray(address))`` resolve
the policies in the driver exactly as locally (same specs, same seeds), make the
``MatchPlan`` and cut it with ``shard_bounds``; each Ray task plays one shard with
``play_series`` and returns its raw ``MatchTally``; the driver concatenates the shards in
plan order and calls ``summarize``. A series plays the same in any shard when both
policies are deterministic or take per-series ``keys`` (``agents.evaluation.match``), so
the result equals a local one with the same seed: same table, intervals and JSON,
``steps`` included (a batch takes as many steps as its longest series, so the longest
shard's count is the batch's); only ``seconds`` differs. Policies with one shared random
stream (no ``keys``) replay that stream from its start in every shard, so their sharded
results are valid but not the local run's. A league submits every pair's shards before
waiting for any, so the cluster stays busy across pairs.

The runner's ``session`` starts or joins the cluster
(``agents.cluster.ray.ray_cluster``); ``evaluate`` enters it for one match, a
caller playing several enters it once. ``ray`` is imported only when a match is started.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from functools import cache
from typing import Any

from agents.cluster.ray import ray_cluster
from agents.evaluation.match import (
    MatchJob,
    MatchPlan,
    Played,
    check_transcript,
    play_series,
    shard_bounds,
)
from agents.evaluation.tally import MatchTally
from agents.evaluation.transcript import TranscriptRecorder
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.policy import Policy


def play_shard(
    a: Policy,
    b: Policy,
    plan: MatchPlan,
    rules: RulesConfig,
    max_hands_per_series: int,
    names: tuple[str, str],
    seed: int,
    recorder: TranscriptRecorder | None,
) -> tuple[MatchTally, int, TranscriptRecorder | None]:
    """One Ray task: ``play_series`` on a shard of a plan (no progress bar)."""
    tally, steps = play_series(a, b, plan, rules, max_hands_per_series, None, recorder, names, seed)
    return tally, steps, recorder


@cache
def _remote_play_shard() -> Any:
    import ray

    return ray.remote(play_shard)


def default_shards() -> int:
    """One shard per CPU of the connected cluster."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


class RayRunner:
    """Play each match as Ray tasks on a cluster (see the module docstring).

    Args:
        address: ``None`` starts a local loopback cluster; ``auto`` or ``HOST:PORT``
            joins a running one.
        shards: Ray tasks per match (default: one per CPU of the cluster).
    """

    #: the shards report nothing until they end
    reports_progress = False

    def __init__(self, address: str | None = None, shards: int | None = None) -> None:
        self.address = address
        self.shards = shards

    def session(self) -> contextlib.AbstractContextManager[object]:
        """Start or join the cluster (a driver already connected keeps its connection)."""
        return ray_cluster(self.address)

    def start(self, job: MatchJob, on_finished: Callable[[int], object]) -> Callable[[], Played]:
        """Submit the job's shards; the returned call waits for them."""
        import ray

        start = time.perf_counter()
        bounds = shard_bounds(len(job.plan), self.shards or default_shards())
        check_transcript(job.recorder, bounds)
        remote = _remote_play_shard()
        a_ref, b_ref = ray.put(job.a), ray.put(job.b)  # serialised now: no later reseed leaks
        refs = [
            remote.remote(
                a_ref,
                b_ref,
                job.plan.shard(lo, hi),
                job.rules,
                job.max_hands_per_series,
                job.names,
                job.seed,
                job.recorder if k == 0 else None,
            )  # fmt: skip
            for k, (lo, hi) in enumerate(bounds)
        ]

        def wait() -> Played:
            parts = ray.get(refs)
            if job.recorder is not None:
                job.recorder.__dict__.update(parts[0][2].__dict__)
            tally = MatchTally.concat([t for t, _, _ in parts])
            return tally, max(s for _, s, _ in parts), time.perf_counter() - start

        return wait

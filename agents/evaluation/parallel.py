"""The ``processes(K)`` runner: a match's series split across K worker processes.

``evaluate(A, B, n_series, seed, runner=processes(K))`` plans the series exactly as in
one process (``MatchPlan``: seeds, seats, first dealers), plays the K contiguous parts of
``shard_bounds`` in K worker processes (the resolved players are pickled to them: a
model pickles as its file, loaded again there), concatenates the parts' raw per-series
tallies in plan order and summarises them once. So every count, rate and interval equals
the one-process result (the timing apart) whenever the players decide each series alone:
keyed policies, which draw from per-series keys, and deterministic ones (see
``agents.evaluation.match``).

The workers are the env workers' kind of process (``hgin_env.envs.workers``: forkserver,
one thread each, dead with their parent). A worker that dies raises ``EnvWorkerError``
naming it; a worker's error is raised as it was.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from agents.evaluation.match import (
    LocalRunner,
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
from hgin_env.envs.workers import CLOSE_TIMEOUT, EnvWorkerError, die_with_parent, worker_context


class ProcessRunner:
    """Play each match in ``workers`` processes (see the module docstring)."""

    reports_progress = True

    def __init__(self, workers: int) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
        self.workers = workers

    def session(self) -> contextlib.AbstractContextManager[object]:
        """Nothing to start: each match starts its own processes."""
        return contextlib.nullcontext()

    def start(self, job: MatchJob, on_finished: Callable[[int], object]) -> Callable[[], Played]:
        """Play the job now, in the worker processes; ``seconds`` is the longest part's."""
        if self.workers == 1:
            return LocalRunner().start(job, on_finished)
        bounds = shard_bounds(len(job.plan), self.workers)
        check_transcript(job.recorder, bounds)
        jobs = [
            (job.a, job.b, job.seed, job.plan.shard(lo, hi), job.rules,
             job.max_hands_per_series, job.names, job.recorder if k == 0 else None)
            for k, (lo, hi) in enumerate(bounds)
        ]  # fmt: skip
        parts, seconds, recorded = _run(jobs, on_finished)
        if job.recorder is not None:
            job.recorder.__dict__.update(recorded.__dict__)
        # the series step in lock step, so one batch of them all takes the longest part's steps
        steps = max(part_steps for _, part_steps in parts)
        tally = MatchTally.concat([tally for tally, _ in parts])
        return lambda: (tally, steps, seconds)


def processes(workers: int) -> ProcessRunner:
    """The runner that plays each match in ``workers`` processes (1: in this one)."""
    return ProcessRunner(workers)


def _run(jobs: list[tuple], on_finished: Any) -> tuple[list[tuple[MatchTally, int]], float, Any]:
    """Play each job in its own process; the tallies in job order, the time, the recorder."""
    ctx = worker_context()
    messages = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(k, messages, *job), daemon=True,
                    name=f"hgin-eval-worker-{k}")
        for k, job in enumerate(jobs)
    ]  # fmt: skip
    parts: dict[int, tuple[MatchTally, int]] = {}
    seconds, recorded = 0.0, None
    try:
        for proc in procs:
            proc.start()
        while len(parts) < len(procs):
            try:
                kind, k, *payload = messages.get(timeout=0.2)
            except queue.Empty:
                dead = [k for k, p in enumerate(procs) if k not in parts and not p.is_alive()]
                if not dead:
                    continue
                try:  # its last messages may still be on their way
                    kind, k, *payload = messages.get(timeout=1.0)
                except queue.Empty:
                    raise _died(dead[0], procs[dead[0]]) from None
            if kind == "progress":
                on_finished(payload[0])
            elif kind == "done":
                parts[k], took, record = payload
                seconds = max(seconds, took)
                recorded = record if k == 0 else recorded
            else:
                raise _error(k, procs[k].pid, *payload)
    finally:
        for proc in procs:
            proc.join(timeout=CLOSE_TIMEOUT if len(parts) == len(procs) else 0.1)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=1.0)
        messages.close()
    return [parts[k] for k in range(len(procs))], seconds, recorded


def _died(k: int, proc: Any) -> EnvWorkerError:
    """The error for worker k, which ended without sending its results."""
    code = proc.exitcode
    how = f"exit code {code}" + (f" ({signal.Signals(-code).name})" if code and code < 0 else "")
    return EnvWorkerError(f"evaluation worker {k} (pid {proc.pid}) died with {how}")


def _error(k: int, pid: int, exc: BaseException | None, text: str) -> BaseException:
    """The error to raise for worker k's failure: its own exception when it pickled."""
    if exc is not None:
        return exc
    return EnvWorkerError(
        f"evaluation worker {k} (pid {pid}) failed: {text.strip().splitlines()[-1]}"
    )


def _worker(
    k: int,
    messages: Any,
    a: Policy,
    b: Policy,
    seed: int,
    plan: MatchPlan,
    rules: RulesConfig,
    max_hands_per_series: int,
    names: tuple[str, str],
    recorder: TranscriptRecorder | None,
) -> None:
    """One worker: play its part of the plan, send the raw tally."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    try:
        if "torch" in sys.modules:  # a model player: one torch thread per worker
            sys.modules["torch"].set_num_threads(1)
        start = time.perf_counter()

        def report(m: int) -> None:
            if m:
                messages.put(("progress", k, m))

        part = play_series(a, b, plan, rules, max_hands_per_series, report, recorder, names, seed)
        messages.put(("done", k, part, time.perf_counter() - start, recorder))
    except Exception as exc:  # noqa: BLE001 - sent to the parent, which raises it
        text = "".join(traceback.format_exception(exc))
        sent: Exception | None = exc
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:  # noqa: BLE001 - an exception that does not pickle
            sent = None
        messages.put(("error", k, sent, text))

"""Evaluations split across worker processes, giving the table of one process.

``evaluate_parallel(A, B, n_series, seed, workers=K)`` plans the series exactly as
``agents.evaluation.evaluate`` does (``MatchPlan``: seeds, seats, first dealers), plays
K contiguous parts of the plan in K worker processes (each resolves its own players:
names and model paths are loaded in the worker, policy objects are pickled to it),
concatenates the parts' raw per-series tallies in plan order and summarises them once.
So every count, rate and interval equals the one-process result (the timing apart)
whenever the players decide each series alone: keyed policies, which draw from per-series
keys, and deterministic ones (see ``agents.evaluation.match``).

The workers are the env workers' kind of process (``hgin_env.envs.workers``: forkserver,
one thread each, dead with their parent). A worker that dies raises ``EnvWorkerError``
naming it; a worker's error (a policy that cannot be loaded) is raised as it was.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import sys
import time
import traceback
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from agents.evaluation.match import (
    MAX_HANDS_PER_SERIES,
    MatchPlan,
    PolicyLike,
    check_evaluation,
    evaluate,
    play_series,
    players,
    policy_name,
    summarize,
)
from agents.evaluation.results import EvalResult
from agents.evaluation.tally import MatchTally
from agents.evaluation.transcript import TranscriptRecorder
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.workers import CLOSE_TIMEOUT, EnvWorkerError, die_with_parent, worker_context


def shard_bounds(n: int, workers: int) -> list[tuple[int, int]]:
    """``workers`` contiguous ``[lo, hi)`` parts of ``n`` series, sizes within one."""
    edges = np.linspace(0, n, min(workers, n) + 1).round().astype(int)
    return [(int(lo), int(hi)) for lo, hi in zip(edges[:-1], edges[1:], strict=True)]


def evaluate_parallel(
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
    workers: int = 1,
) -> EvalResult:
    """``agents.evaluation.evaluate`` played in ``workers`` processes (see the module docstring).

    Args:
        policy_a: a policy, a bot name or a model path.
        policy_b: the opponent, same forms.
        n_series: deal sequences to play.
        seed: the evaluation seed.
        rules: rules options.
        duplicate: also play every deal sequence with the seats swapped.
        progress: show a progress bar of finished series.
        max_hands_per_series: abandon a series after this many hands.
        name_a: display name of A.
        name_b: display name of B.
        recorder: a ``TranscriptRecorder``; the first worker records (its part must hold
            the recorded series).
        workers: processes (1: ``evaluate`` in this process).

    Returns:
        The ``EvalResult``; ``seconds`` is the longest worker's playing time.

    Raises:
        ValueError: bad arguments; ``PolicyLoadError`` for a policy a worker cannot load.
        EnvWorkerError: a worker process that died.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if workers == 1:
        return evaluate(
            policy_a, policy_b, n_series, seed, rules, duplicate, progress,
            max_hands_per_series, name_a, name_b, recorder,
        )  # fmt: skip
    check_evaluation(n_series, seed)
    rules = rules or RulesConfig()
    name_a = name_a or _spec_name(policy_a)
    name_b = name_b or _spec_name(policy_b)
    plan = MatchPlan.make(n_series, seed, duplicate)
    bounds = shard_bounds(len(plan), workers)
    if recorder is not None and recorder.hands > bounds[0][1]:
        raise ValueError(
            f"a transcript of {recorder.hands} hands needs that many series in the first "
            f"worker's part ({bounds[0][1]} series): use fewer hands or fewer workers"
        )
    jobs = [
        (policy_a, policy_b, seed, plan.shard(lo, hi), rules, max_hands_per_series,
         (name_a, name_b), recorder if k == 0 else None)
        for k, (lo, hi) in enumerate(bounds)
    ]  # fmt: skip
    with tqdm(
        total=len(plan), disable=not progress, unit="series", desc=f"{name_a} vs {name_b}"
    ) as bar:
        parts, seconds, recorded = _run(jobs, bar.update)
    if recorder is not None:
        recorder.__dict__.update(recorded.__dict__)
    # the series step in lock step, so one batch of them all takes the longest part's steps
    steps = max(part_steps for _, part_steps in parts)
    return summarize(
        MatchTally.concat([tally for tally, _ in parts]), name_a=name_a, name_b=name_b,
        seed=seed, duplicate=duplicate, rules=rules, deal_sequences=n_series,
        seconds=seconds, steps=steps,
    )  # fmt: skip


def _spec_name(spec: PolicyLike) -> str:
    """``policy_name`` of a player before it is resolved: a string spec is its own name."""
    return spec if isinstance(spec, str) else policy_name(spec, spec)


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
    policy_a: PolicyLike,
    policy_b: PolicyLike,
    seed: int,
    plan: MatchPlan,
    rules: RulesConfig,
    max_hands_per_series: int,
    names: tuple[str, str],
    recorder: TranscriptRecorder | None,
) -> None:
    """One worker: load the players, play its part of the plan, send the raw tally."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    try:
        a, b = players(policy_a, policy_b, seed)
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

"""Env worker processes: K processes, each stepping a batched ``GinCore`` of ``n / K`` games.

``HollywoodGinVecEnv(n_envs, ..., workers=K)`` and ``HollywoodGinVectorEnv(num_envs, ...,
workers=K)`` use this module for K > 1 (through ``hgin_env.envs.cores.make_games``). Worker k owns
games ``[k * n / K, (k + 1) * n / K)``: a ``GinCore`` of those games with exactly the
per-game seeds they have in one process, and its own opponent (a policy name is resolved
in the worker; a policy object is pickled to it, cut to the worker's games first when it
has a ``shard(lo, hi)`` method, as ``MixturePolicy`` does). So K workers play exactly the
games one process plays whenever the opponent decides each game from that game alone
(a keyed policy, see ``hgin_env.envs.policy``).

Why no library: SB3's ``SubprocVecEnv`` and Gymnasium's ``AsyncVectorEnv`` hold one game
per process (and SB3's pickles every step's observations); stepping games one at a time
is 10-100x slower than the batched core, so they would lose more than they gain. The
libraries that step batched sub-environments over shared memory do not fit either:
PufferLib 3.0 ships only as a source package that fails to build here, EnvPool runs only
its own C++ environments, Sample Factory and RLlib bring their own trainers. What is
needed is small: one shared-memory block and a command pipe per worker.

Data path: one ``multiprocessing.shared_memory`` block holds every per-step array (the
actions in; observations, masks, rewards, done flags, the step's hand results, the last
observations of finished episodes, seats, dealers, episode counters, and the opponent's
per-game state when it has a ``per_game_state()`` method) as numpy views; each worker writes its
rows in place. The pipes carry only short commands and acknowledgements (no per-step
pickles). The block's name is unlinked as soon as every worker has mapped it, so nothing
is left in ``/dev/shm`` however the processes end.

Start method: ``forkserver`` (one clean server process forks the workers), never a
plain ``fork`` of the trainer: forking a process that runs torch's thread pools can
deadlock the child, and the child would inherit the trainer's memory and pipe ends
(which would also hide the trainer's death from it). The server preloads the env
modules (and torch and SB3 when the trainer has them), so a worker starts in well under
a second; ``spawn`` works the same, slower.

Lifetime: workers ignore SIGINT and SIGTERM (Ctrl-C, or a SIGTERM sent to the whole
process group by ``timeout`` or Slurm, is the trainer's to handle: it writes its
checkpoint and closes them) and die with their parent: ``PR_SET_PDEATHSIG`` (Linux), an EOF on the
command pipe, and the daemon flag (ended at interpreter exit) each end them, so neither an
exception, SIGTERM nor SIGKILL of the trainer leaves a worker behind. A worker that dies
or fails raises ``EnvWorkerError`` naming its index, pid and exit code, and so does one
that does not answer within ``reply_timeout`` seconds (a frozen worker, e.g. stopped by
SIGSTOP; default ``REPLY_TIMEOUT``, or the ``HGIN_WORKER_TIMEOUT`` environment
variable); the workers are then unusable (``close`` them).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback
import weakref
from collections.abc import Callable, Sequence
from multiprocessing import connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.shared_memory import SharedMemory
from typing import Any, Final, Protocol, cast

import numpy as np

from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import game_seeds
from hgin_env.envs.config import EnvConfig
from hgin_env.envs.core import (
    GinCore,
    StepResult,
    action_ids,
    illegal_games,
    illegal_message,
)

#: ``Final`` so that the type checker knows the context kind (``ForkServerContext``)
START_METHOD: Final = "forkserver"
#: modules the forkserver imports once, so that each worker starts without importing them
PRELOAD = ["numpy", "hgin_env.envs.core"]
#: modules it also imports when the trainer has them already (an SB3 trainer has): a worker
#: whose opponent is a model then starts without importing torch and SB3, about 4 s of CPU
#: each, for about 3 s once when the server starts. The server only imports them; it runs
#: no torch op, so it starts no thread pool.
PRELOAD_IF_LOADED = ["torch", "stable_baselines3", "sb3_contrib"]
#: StepResult fields that travel through shared memory (``final_*`` apart), with dtypes
RESULT_FIELDS = StepResult.per_game_dtypes()
_PR_SET_PDEATHSIG = 1
#: seconds ``close`` waits for a worker to exit before terminating it
CLOSE_TIMEOUT = 5.0
#: seconds a worker may take to answer one command before it counts as stuck (generous:
#: a step of a few thousand games against a model takes well under a second)
REPLY_TIMEOUT = 60.0
#: the environment variable that sets the default reply timeout (seconds)
REPLY_TIMEOUT_ENV = "HGIN_WORKER_TIMEOUT"


def reply_timeout() -> float:
    """The default reply timeout: ``$HGIN_WORKER_TIMEOUT`` seconds, else ``REPLY_TIMEOUT``.

    Raises:
        ValueError: the variable is set but not a positive number.
    """
    text = os.environ.get(REPLY_TIMEOUT_ENV, "").strip()
    if not text:
        return REPLY_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{REPLY_TIMEOUT_ENV} must be a positive number of seconds, got {text!r}")
    return value


class EnvWorkerError(RuntimeError):
    """An env worker process died or failed; the message names it (index, pid, exit code)."""


def check_workers(workers: int, n: int) -> int:
    """The number of worker processes, checked against the number of games.

    Raises:
        ValueError: ``workers`` is not an int >= 1, or ``n`` is not divisible by it.
    """
    if isinstance(workers, bool) or not isinstance(workers, int | np.integer) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if isinstance(n, int | np.integer) and not isinstance(n, bool) and n % workers:
        raise ValueError(
            f"the number of games ({n}) must be divisible by the number of workers ({workers}): "
            f"each worker steps n / workers games"
        )
    return int(workers)


def _layout(n: int, obs_dim: int, state_names: Sequence[str]) -> list[tuple[str, str, tuple]]:
    """The arrays of the shared block: (name, dtype, shape), in order."""
    arrays = [
        ("actions", "int64", (n,)),
        ("obs", "float32", (n, obs_dim)),
        ("final_obs", "float32", (n, obs_dim)),
        ("masks", "bool", (n, N_ACTIONS)),
        ("awaiting", "bool", (n,)),
        ("phase", "int8", (n,)),
        ("agent_seat", "int8", (n,)),
        ("dealer", "int8", (n,)),
        ("episodes", "int64", (n,)),
    ]
    arrays += [(name, np.dtype(t).name, (n,)) for name, t in RESULT_FIELDS.items()]
    arrays += [(f"state/{name}", "int64", (n,)) for name in state_names]
    return arrays


def _buffer(shm: SharedMemory) -> memoryview:
    """The mapped memory of ``shm``.

    Raises:
        RuntimeError: ``shm`` is already closed (its ``buf`` is then None).
    """
    if shm.buf is None:
        raise RuntimeError(f"the shared memory block {shm.name} is closed")
    return shm.buf


def _views(buffer: memoryview, layout: list[tuple[str, str, tuple]]) -> dict[str, np.ndarray]:
    """Numpy views of the shared block's arrays (each 64-byte aligned)."""
    views, offset = {}, 0
    for name, dtype, shape in layout:
        views[name] = np.ndarray(shape, dtype=dtype, buffer=buffer, offset=offset)
        offset += -(-views[name].nbytes // 64) * 64
    return views


def _size(layout: list[tuple[str, str, tuple]]) -> int:
    return sum(-(-int(np.prod(shape)) * np.dtype(t).itemsize // 64) * 64 for _, t, shape in layout)


def worker_context() -> ForkServerContext | SpawnContext:
    """The multiprocessing context of worker processes (``START_METHOD``, env preloaded)."""
    ctx = mp.get_context(START_METHOD)
    if START_METHOD == "forkserver":  # (no effect once this process's server runs)
        ctx.set_forkserver_preload(PRELOAD + [m for m in PRELOAD_IF_LOADED if m in sys.modules])
    return ctx


# ---------------------------------------------------------------------- the trainer's side
class EnvWorkers:
    """K worker processes stepping ``n`` games together (see the module docstring).

    Args:
        n: games in all.
        workers: worker processes (K > 1; ``n`` divisible by K).
        opponent: a policy name or object (pickled to every worker; see ``shard``).
        config: the environment options.
        rules: the rules options.
        seed: as for ``GinCore``: an int (game i uses ``seed + i``), uint64[n] seeds, or None.
        timeout: seconds a worker may take to answer a command (None: ``reply_timeout()``);
            a worker silent for longer raises ``EnvWorkerError``, as a dead one does.

    Raises:
        ValueError: a bad ``workers`` count or timeout.
        EnvWorkerError: a worker that fails to start (its error is in the message).
    """

    def __init__(
        self,
        n: int,
        workers: int,
        opponent: Any,
        config: EnvConfig,
        rules: RulesConfig,
        seed: int | np.ndarray | None = None,
        timeout: float | None = None,
    ) -> None:
        self.n, self.k = int(n), check_workers(workers, n)
        self.timeout = reply_timeout() if timeout is None else float(timeout)
        if not self.timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
        self.per = self.n // self.k
        self.config = config
        self._procs: list[Any] = []
        self._conns: list[connection.Connection] = []
        self._broken: str | None = None
        self._in_flight = False
        self._started: set[int] = set()  # workers started in the step in flight
        self._autoreset = True  # the step in flight restarts the episodes that end
        self._shm: SharedMemory | None = None
        self.buf: dict[str, np.ndarray] = {}
        self._finalizer = weakref.finalize(self, _shutdown, self._procs, self._conns)
        # at exit, before multiprocessing's own hook (registered earlier, so run later),
        # which would terminate the workers and join them forever: they ignore SIGTERM
        atexit.register(self._finalizer)
        seeds = game_seeds(seed, self.n)
        policy_seed = int(seed) if isinstance(seed, int | np.integer) else None
        ctx = worker_context()
        try:
            for k in range(self.k):
                lo, hi = self.bounds(k)
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(
                    target=_worker_main,
                    args=(k, theirs, _shard(opponent, lo, hi), config, rules, seeds[lo:hi],
                          policy_seed),
                    name=f"hgin-env-worker-{k}",
                    daemon=True,
                )  # fmt: skip
                proc.start()
                theirs.close()
                self._procs.append(proc)
                self._conns.append(mine)
            ready = self._gather(range(self.k))
            self.obs_dim, names = ready[0]
            layout = _layout(self.n, self.obs_dim, names)
            self._shm = SharedMemory(create=True, size=_size(layout))
            try:
                self.buf = _views(_buffer(self._shm), layout)
                self._broadcast("attach", self._shm.name, layout)
            finally:
                self._shm.unlink()  # the memory lives on while mapped; no name to leak
        except BaseException:
            self.close()
            raise
        self.state_names = list(names)

    # ------------------------------------------------------------------ queries
    def bounds(self, k: int) -> tuple[int, int]:
        """Worker k's games: ``[lo, hi)``."""
        return k * self.per, (k + 1) * self.per

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids, by worker index."""
        return [p.pid for p in self._procs]

    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """float32[M, obs_dim]: copies of the observations of all games or the int[M] ``rows``."""
        obs = self.buf["obs"]
        return obs.copy() if rows is None else obs[np.asarray(rows, np.int64)]

    def action_masks(self) -> np.ndarray:
        """bool[n, 107]: the agent's legal actions (a copy)."""
        return self.buf["masks"].copy()

    @property
    def episodes(self) -> np.ndarray:
        """int64[n]: episodes started per game (a live view, updated at every step)."""
        return self.buf["episodes"]

    @property
    def agent_seat(self) -> np.ndarray:
        """int8[n]: the agent's seat per game (a live view)."""
        return self.buf["agent_seat"]

    @property
    def dealer(self) -> np.ndarray:
        """int8[n]: the dealer of each game's current hand (a live view)."""
        return self.buf["dealer"]

    @property
    def awaiting(self) -> np.ndarray:
        """bool[n]: games waiting for an agent action (a live view)."""
        return self.buf["awaiting"]

    def opponent_state(self) -> dict[str, np.ndarray]:
        """The opponent's per-game state arrays (live views of every game, by name)."""
        return {name: self.buf[f"state/{name}"] for name in self.state_names}

    # ------------------------------------------------------------------ commands
    def seed(self, seed: int | np.ndarray) -> None:
        """Give the games new seeds, as ``GinCore.seed``; call ``reset`` next.

        Args:
            seed: an int (game i gets ``seed + i``; each worker's opponent is reseeded with
                it, as in one process) or uint64[n] per-game seeds.
        """
        seeds = game_seeds(seed, self.n)
        policy_seed = int(seed) if isinstance(seed, int | np.integer) else None
        self._ready()
        self._each(range(self.k), lambda k, lo, hi: ("seed", seeds[lo:hi], policy_seed))

    def reseed(self, rows: np.ndarray, seeds: np.ndarray) -> None:
        """Give the games ``rows`` (int[M]) new seeds, as ``GinCore.reseed``; reset them next."""
        rows, seeds = np.asarray(rows, np.int64), np.asarray(seeds, np.uint64)
        owner = rows // self.per
        ks = [int(k) for k in np.unique(owner)]
        self._ready()
        self._each(ks, lambda k, lo, hi: ("reseed", rows[owner == k] - lo, seeds[owner == k]))

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Start a new episode in the selected games (bool[n]; default: all)."""
        self._ready()
        if mask is None:
            self._broadcast("reset", None)
            return
        mask = np.asarray(mask, bool)
        ks = [k for k in range(self.k) if mask[slice(*self.bounds(k))].any()]
        self._each(ks, lambda k, lo, hi: ("reset", mask[lo:hi]))

    def step_async(
        self,
        actions: np.ndarray,
        workers: Sequence[int] | None = None,
        autoreset: bool = True,
    ) -> None:
        """Check the actions (as ``GinCore.step`` does) and start the step in the workers.

        Args:
            actions: int[n], one per game.
            workers: start only these workers (their games' rows of ``actions`` are used);
                the others may be started by later calls, before ``step_wait``, which
                returns once every worker has stepped. Default: all.
            autoreset: restart the episodes that end within the step (``GinCore.step``);
                pass the same value to every call of one step.

        Raises:
            ValueError: wrong shape or dtype, or an illegal action with
                ``illegal_action="raise"`` (the message names the game, as in one process).
        """
        ks = list(range(self.k)) if workers is None else [int(k) for k in workers]
        if self._broken is not None or not self._started:
            self._ready()
        elif self._started.intersection(ks):
            raise EnvWorkerError(f"workers {sorted(self._started.intersection(ks))} were "
                                 "started twice in one step")  # fmt: skip
        a = action_ids(actions, self.n)
        rows = np.zeros(self.n, bool)
        for k in ks:
            rows[slice(*self.bounds(k))] = True
        if self.config.illegal_action == "raise":
            illegal = illegal_games(a, self.buf["masks"], self.buf["awaiting"] & rows)
            if illegal.any():
                raise ValueError(
                    illegal_message(actions, illegal, self.buf["masks"], self.buf["phase"])
                )
        self.buf["actions"][rows] = a[rows]
        self._in_flight = True
        self._started.update(ks)
        self._autoreset = autoreset
        for k in ks:
            self._send(k, self._conns[k], ("step", autoreset))

    def step_wait(self) -> StepResult:
        """Wait for the step: its ``StepResult`` (a copy; ``final_*`` set with autoreset).

        The observations and masks after the step are then ``observe()`` and
        ``action_masks()``.
        """
        if len(self._started) < self.k:
            missing = sorted(set(range(self.k)) - self._started)
            raise RuntimeError(f"step_wait() before step_async() started workers {missing}")
        self._gather(range(self.k), step=True)
        self._in_flight = False
        self._started = set()
        b = self.buf
        result = StepResult(**{name: b[name].copy() for name in RESULT_FIELDS})
        if self._autoreset:
            result.final_rows = np.flatnonzero(result.terminated | result.truncated)
            result.final_obs = b["final_obs"][result.final_rows]
        return result

    def for_each(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """``fn(core, *args)`` in every worker (``core``: its ``GinCore``); the results.

        ``fn`` and ``args`` are pickled: ``fn`` must be a module-level function.
        """
        self._ready()
        return self._broadcast("call", fn, args)

    def call(self, k: int, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(core, *args)`` in worker ``k`` only; its result."""
        self._ready()
        self._send(k, self._conns[k], ("call", fn, args))
        return self._gather([k])[0]

    def close(self) -> None:
        """Stop the workers (asked first, then terminated) and release the shared block."""
        self._finalizer()
        atexit.unregister(self._finalizer)
        self._broken = self._broken or "closed"
        buf, self.buf = self.buf, {}
        del buf
        if self._shm is not None:
            with contextlib.suppress(BufferError):  # views still held elsewhere: freed later
                self._shm.close()
            self._shm = None

    # ------------------------------------------------------------------ internals
    def _ready(self) -> None:
        if self._broken is not None:
            raise EnvWorkerError(f"the env workers cannot be used: {self._broken}")
        if self._in_flight:
            self._broken = "a step was interrupted before its results arrived"
            raise EnvWorkerError(f"the env workers cannot be used: {self._broken}")

    def _send(self, k: int, conn: connection.Connection, message: tuple) -> None:
        try:
            conn.send(message)
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            raise self._died(k) from None

    def _broadcast(self, *message: Any) -> list[Any]:
        for k, conn in enumerate(self._conns):
            self._send(k, conn, message)
        return self._gather(range(self.k))

    def _each(self, ks: Sequence[int] | range, message: Callable[[int, int, int], tuple]) -> None:
        """Send worker k (for k in ``ks``) ``message(k, lo, hi)``; wait for their replies."""
        for k in ks:
            self._send(k, self._conns[k], message(k, *self.bounds(k)))
        self._gather(ks)

    def _gather(self, ks: Sequence[int] | range, step: bool = False) -> list[Any]:
        """Each listed worker's reply, in order; raise once all have answered or one died."""
        pending = {self._conns[k]: k for k in ks}
        results: dict[int, Any] = {}
        failures: dict[int, BaseException] = {}
        deadline = time.monotonic() + self.timeout
        try:
            while pending:
                sentinels = {self._procs[k].sentinel: k for k in pending.values()}
                left = deadline - time.monotonic()
                found = connection.wait([*pending, *sentinels], timeout=max(left, 0.0))
                if not found:
                    raise self._died(min(pending.values()), stuck=True)
                for ready in found:
                    if isinstance(ready, int):  # a process sentinel (the pipes are objects)
                        k = sentinels[ready]
                        if self._conns[k] in pending and not self._conns[k].poll():
                            raise self._died(k)
                        continue
                    conn = cast(connection.Connection, ready)  # wait returns what it was given
                    k = pending.pop(conn)
                    try:
                        status, payload = conn.recv()
                    except (EOFError, OSError):
                        raise self._died(k) from None
                    if status == "ok":
                        results[k] = payload
                    else:
                        failures[k] = _remote_error(k, self._procs[k].pid, self.bounds(k), *payload)
        except BaseException:
            self._broken = self._broken or "a worker failed or the wait was interrupted"
            raise
        if failures:  # the first worker's, whichever answered first
            failure = failures[min(failures)]
            if step:
                self._broken = f"a step failed in a worker ({failure})"
            raise failure
        return [results[k] for k in ks]

    def _died(self, k: int, stuck: bool = False) -> EnvWorkerError:
        proc = self._procs[k]
        proc.join(timeout=0.0 if stuck else 1.0)
        code = proc.exitcode
        how = "is not responding" if code is None else f"died with exit code {code}"
        if stuck and code is None:
            how = f"did not answer within {self.timeout:g} s (frozen or stuck)"
        if code is not None and code < 0:
            how += f" (killed by {signal.Signals(-code).name})"
        self._broken = f"env worker {k} (pid {proc.pid}) {how}"
        lo, hi = self.bounds(k)
        return EnvWorkerError(
            f"env worker {k} (pid {proc.pid}, games {lo}-{hi - 1}) {how}; the other workers "
            "are stopped"
        )


def _shard(opponent: Any, lo: int, hi: int) -> Any:
    """The opponent of games ``[lo, hi)``: ``opponent.shard(lo, hi)`` when it has one."""
    shard = getattr(opponent, "shard", None)
    if not isinstance(opponent, str) and callable(shard):
        return shard(lo, hi)
    return opponent


def _remote_error(k: int, pid: int, bounds: tuple[int, int], kind: str, text: str) -> BaseException:
    """The error to raise for worker k's failure (its traceback as the cause).

    A ``ValueError`` or ``TypeError`` in the worker (a bad option, policy or action) is
    raised as the same type; anything else as ``EnvWorkerError``.
    """
    lo, hi = bounds
    where = f"env worker {k} (pid {pid}, games {lo}-{hi - 1})"
    last = text.strip().splitlines()[-1]
    error_type = {"ValueError": ValueError, "TypeError": TypeError}.get(kind, EnvWorkerError)
    if error_type is not EnvWorkerError:
        last = last.partition(": ")[2] or last
    error = error_type(f"{where}: {last}")
    error.__cause__ = _RemoteTracebackError(text)
    return error


class _RemoteTracebackError(Exception):
    """A worker's traceback, shown as the cause of the error raised in the trainer."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return "\n" + self.text


def _shutdown(procs: list[Any], conns: list[connection.Connection]) -> None:
    """Ask every worker to exit, then terminate (and kill) the ones still running."""
    for conn in conns:
        with contextlib.suppress(Exception):
            conn.send(("close",))
    for proc in procs:
        proc.join(timeout=CLOSE_TIMEOUT)
        if proc.is_alive():
            proc.terminate()
            proc.join(timeout=1.0)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=1.0)
    for conn in conns:
        conn.close()


# ---------------------------------------------------------------------- the worker's side
def die_with_parent() -> None:
    """Linux: have the kernel kill this process when its parent exits."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:  # the parent exited before the call
        os._exit(1)


class _HasPerGameState(Protocol):
    """An opponent with per-game state to share (``MixturePolicy``, for one)."""

    def per_game_state(self) -> dict[str, np.ndarray]:
        """The per-game state arrays, by name (rows: the worker's games)."""
        ...


def _publish(
    core: GinCore,
    buf: dict[str, np.ndarray],
    rows: slice,
    names: list[str],
    changed: np.ndarray | None = None,
) -> None:
    """Write the worker's games' state after a reset or a step into the shared block.

    Args:
        core: the worker's core.
        buf: the shared block's arrays.
        rows: the worker's games in the block.
        names: the opponent's per-game state arrays to share.
        changed: bool[per], the only games whose observations may have changed (a partial
            reset); default: all of them.
    """
    if changed is None:
        buf["obs"][rows] = core.observe()
    elif changed.any():
        local = np.flatnonzero(changed)
        buf["obs"][rows.start + local] = core.observe(local)
    buf["masks"][rows] = core.action_masks()
    buf["awaiting"][rows] = core.awaiting
    buf["phase"][rows] = core.engine.state.phase
    buf["agent_seat"][rows] = core.agent_seat
    buf["dealer"][rows] = core.engine.dealer
    buf["episodes"][rows] = core.episodes
    if names:
        state = cast(_HasPerGameState, core.opponent).per_game_state()  # names: it has one
        for name in names:
            buf[f"state/{name}"][rows] = state[name]


def _step(
    core: GinCore, buf: dict[str, np.ndarray], rows: slice, names: list[str], autoreset: bool
) -> None:
    result = core.step(buf["actions"][rows], autoreset=autoreset)
    for name in RESULT_FIELDS:
        buf[name][rows] = getattr(result, name)
    if result.final_rows is not None:
        buf["final_obs"][rows.start + result.final_rows] = result.final_obs
    _publish(core, buf, rows, names)


def _worker_main(
    index: int,
    conn: connection.Connection,
    opponent: Any,
    config: EnvConfig,
    rules: RulesConfig,
    seeds: np.ndarray,
    policy_seed: int | None,
) -> None:
    """A worker: build the core, map the shared block, then serve commands until told to stop.

    Policy names resolve here as in the parent: the registry finds the installed
    packages' ``hgin_env.policies`` entry points in every process.
    """
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the trainer's to handle
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # so is SIGTERM (it closes the workers)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"  # one core per worker (before a model opponent loads torch)
    shm = None
    buf: dict[str, np.ndarray] | None = None  # dropped at the end, before shm.close()
    try:
        try:
            core = GinCore(len(seeds), opponent=opponent, config=config, rules=rules,
                           seed=policy_seed)  # fmt: skip
            core.seed(seeds)
            if "torch" in sys.modules:  # a model opponent: one torch thread per worker
                sys.modules["torch"].set_num_threads(1)
            state = getattr(core.opponent, "per_game_state", None)
            names = sorted(state()) if callable(state) else []
            conn.send(("ok", (core.obs_dim, names)))
        except Exception as exc:  # noqa: BLE001 - reported to the trainer
            _reply_error(conn, exc)
            return
        command, *args = conn.recv()
        if command != "attach":  # closed before it started (another worker failed)
            return
        name, layout = args
        shm = SharedMemory(name=name)
        buf = _views(_buffer(shm), layout)
        lo = index * len(seeds)
        rows = slice(lo, lo + len(seeds))
        _publish(core, buf, rows, names)
        conn.send(("ok", None))
        while True:
            command, *args = conn.recv()
            try:
                if command == "step":
                    _step(core, buf, rows, names, autoreset=args[0])
                    reply = None
                elif command == "reset":
                    (mask,) = args
                    core.reset(mask)
                    _publish(core, buf, rows, names, changed=mask)
                    reply = None
                elif command == "seed":
                    seeds, policy_seed = args
                    _reseed_policy(core, policy_seed)
                    core.seed(seeds)
                    reply = None
                elif command == "reseed":
                    core.reseed(*args)
                    reply = None
                elif command == "call":
                    fn, fn_args = args
                    reply = fn(core, *fn_args)
                    _publish(core, buf, rows, names)
                elif command == "close":
                    break
                else:
                    raise ValueError(f"unknown command {command!r}")
            except Exception as exc:  # noqa: BLE001 - reported to the trainer
                _reply_error(conn, exc)
                continue
            conn.send(("ok", reply))
    except (EOFError, BrokenPipeError, ConnectionResetError, KeyboardInterrupt):
        pass  # the trainer is gone (or closed the pipe): exit quietly
    finally:
        buf = None
        if shm is not None:
            with contextlib.suppress(BufferError):
                shm.close()


def _reseed_policy(core: GinCore, seed: int | None) -> None:
    """Reseed the opponent with the int seed of the games, as ``GinCore.seed(int)`` does."""
    reseed = getattr(core.opponent, "seed", None)
    if seed is not None and callable(reseed):
        reseed(seed)


def _reply_error(conn: connection.Connection, exc: BaseException) -> None:
    text = "".join(traceback.format_exception(exc))
    kind = type(exc).__name__ if type(exc) in (ValueError, TypeError) else "error"
    with contextlib.suppress(Exception):
        conn.send(("error", (kind, text)))

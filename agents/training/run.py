"""The run folder's lifecycle, shared by every training backend.

A run lives in ``runs/<experiment>__<seed>__<YYYYmmdd-HHMMSS>/`` (or ``--run-name``).
``open_run`` makes a new one, or reopens one to resume it after removing what a killed
session left (temporary files, half checkpoints, TensorBoard events past the newest
checkpoint); the backend then builds its trainer in it and hands ``drive`` a
``Session``, which trains to ``total_timesteps`` and ends the run the same way on every
backend:

- the final evaluation (unless one already ran at the last step), a checkpoint (unless
  one was written at it) and the final model;
- Ctrl-C while training writes a checkpoint and prints the command that resumes it;
  SIGTERM does the same once ``stop_on_sigterm`` has made it raise ``Terminated`` (a
  ``KeyboardInterrupt``; ``train.py`` does, and exits with 143);
- Ctrl-C before training (``start``) leaves a new run with no checkpoint no folder, so
  the same command starts it again.

A run folder has one writer: ``open_run`` takes an exclusive OS file lock on its
``train.lock`` (``fcntl.flock``), held until ``start`` returns; a second process that
opens the folder (a second ``--resume``) is refused with the PID of the holder. The
operating system drops the lock when its process dies, so a killed run never blocks.

What each backend writes in the folder is in its module's docstring
(``agents.training.sb3.runner``, ``agents.training.rllib.backend``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock (fcntl is POSIX)
    fcntl = None  # type: ignore[assignment]

from agents.policies.model_zip import trust_folder
from agents.training.checkpoint import (
    CheckpointError,
    TrainState,
    clean_run_folder,
    latest_checkpoint,
    list_checkpoints,
    read_state,
)
from agents.training.config import ConfigError, TrainConfig, load_config
from agents.training.schema import shown
from agents.training.tb_record import truncate_events

#: fields a resumed run may not change (the network's shape lives in the checkpoint)
FROZEN_ON_RESUME = (
    "policy",
    "net_arch",
    "card_channels",
    "card_blocks",
    "belief_coef",
    "activation",
    "ortho_init",
)
#: the run folder's lock file (``fcntl.flock``; holds the PID of the process holding it)
LOCK_FILE = "train.lock"
#: the longest file name, in bytes, of the common file systems (ext4, XFS, btrfs, APFS)
NAME_MAX = 255


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises ``KeyboardInterrupt``, so both end a run alike."""


#: SIGTERMs received (Ray turns an exception raised by a signal handler during its blocking
#: calls into a plain ``KeyboardInterrupt``, so the type alone does not tell)
_SIGTERMS: list[int] = []


def by_sigterm(exc: BaseException) -> bool:
    """Whether the interrupt ``exc`` came from SIGTERM (``stop_on_sigterm``'s handler)."""
    return isinstance(exc, Terminated) or bool(_SIGTERMS)


def stop_on_sigterm() -> None:
    """Make SIGTERM raise ``Terminated`` in the main thread (as SIGINT raises Ctrl-C's).

    ``train.py`` calls it: a run stopped by ``timeout``, ``docker stop``, Kubernetes or
    Slurm (SIGTERM, then SIGKILL after a grace period) writes its checkpoint first.
    """

    def terminated(signum: int, frame: object) -> None:
        _SIGTERMS.append(signum)
        raise Terminated(f"stopped by {signal.Signals(signum).name}")

    signal.signal(signal.SIGTERM, terminated)


class RunLock:
    """An exclusive lock on a run folder: ``fcntl.flock`` on its ``train.lock``.

    Args:
        run_dir: the run folder (it exists).

    Raises:
        ConfigError: another process holds the lock (the message names its PID).
    """

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK_FILE
        self._file: IO[str] | None = None
        if fcntl is None:
            return
        try:
            file = open(self.path, "a+")  # noqa: SIM115 - held open until release()
        except OSError as exc:
            raise ConfigError(f"cannot lock {run_dir}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            file.seek(0)
            holder = file.read(32).strip() or "unknown"
            file.close()
            raise ConfigError(
                f"{run_dir} is in use by another training process (pid {holder}): a run "
                "folder has one writer; wait for it to end or stop it first"
            ) from None
        file.seek(0)
        file.truncate()
        file.write(f"{os.getpid()}\n")
        file.flush()
        self._file = file

    def release(self) -> None:
        """Drop the lock (the file stays; closing it unlocks)."""
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass
class TrainResult:
    """What a backend's ``train`` returns.

    Attributes:
        run_dir: the run folder.
        steps: the model's step counter at the end.
        interrupted: training stopped on Ctrl-C (a checkpoint was written).
        fps: environment steps per second of this session (evaluations included).
        seconds: wall time of this session.
        final_eval: the last evaluation entry (None if none ran).
        terminated: stopped by SIGTERM (``Terminated``), not Ctrl-C.
    """

    run_dir: Path
    steps: int
    interrupted: bool
    fps: float
    seconds: float
    final_eval: dict[str, Any] | None
    terminated: bool = False


@dataclass
class RunStart:
    """A run folder ready to train in: new, or resumed at its newest checkpoint."""

    config: TrainConfig
    run_dir: Path
    checkpoint: Path | None
    state: TrainState
    lock: RunLock | None = None


class Session(Protocol):
    """One backend's training session in a run folder, as ``drive`` runs it."""

    #: the run folder
    run_dir: Path
    #: the run's state (its ``last_eval_steps`` and ``last_checkpoint_steps`` are read)
    state: TrainState
    #: how to continue the run, e.g. ``python train.py --resume``
    resume_command: str

    @property
    def steps(self) -> int:
        """The environment steps trained so far."""
        ...

    @property
    def history(self) -> list[dict[str, Any]]:
        """The run's evaluations so far."""
        ...

    def learn(self) -> None:
        """Train until ``total_timesteps`` (evaluations and checkpoints on their schedule)."""

    def run_evaluation(self) -> dict[str, Any]:
        """Evaluate now; returns the history entry."""
        ...

    def checkpoint(self) -> Path:
        """Write a checkpoint at the current step; returns its path."""
        ...

    def save_final(self) -> None:
        """Write the final model."""

    def close(self) -> None:
        """Release what the session holds (logs, env workers); called once, at the end."""


def make_run_dir(config: TrainConfig, run_name: str | None = None) -> Path:
    """A new run folder: ``<runs_dir>/<run_name>`` or ``<experiment>__<seed>__<time>``.

    Raises:
        ConfigError: when the folder already exists (use ``--resume`` to continue it),
            the name is not a plain folder name (a path separator, ``..``), or the folder
            cannot be created (the message names it and the reason).
    """
    if run_name is not None:
        if not run_name or "/" in run_name or "\\" in run_name or run_name in (".", ".."):
            raise ConfigError(
                "--run-name must be a plain folder name (no '/', '\\' or '..'), got "
                f"{shown(run_name)}"
            )
        check_name(run_name, "--run-name")
    name = run_name or f"{config.experiment}__{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = Path(config.runs_dir) / name
    if run_dir.is_dir() and any(run_dir.iterdir()):
        if not list_checkpoints(run_dir / "checkpoints"):
            raise ConfigError(
                f"run folder {run_dir} already exists but holds no checkpoint (it stopped "
                "before its first one, so there is nothing to resume): delete it to reuse "
                "the name, or pick another --run-name"
            )
        raise ConfigError(
            f"run folder {run_dir} already exists; pick another --run-name, "
            f"or continue it with --resume {run_dir}"
        )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        probe = run_dir / ".write_probe"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise ConfigError(f"cannot create the run folder {run_dir}: {exc.strerror or exc}") from exc
    return run_dir


def check_name(name: str, what: str) -> None:
    """Refuse a folder name that is empty, not valid UTF-8 or over ``NAME_MAX`` bytes.

    Raises:
        ConfigError: naming ``what`` and the reason (an invalid name is not repeated).
    """
    if not name:
        raise ConfigError(f"{what} must not be empty")
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:  # bytes that are not UTF-8 reach Python as lone surrogates
        raise ConfigError(f"{what} must be valid UTF-8 text") from None
    if size > NAME_MAX:
        raise ConfigError(f"{what} is {size} bytes long; a folder name is at most {NAME_MAX} bytes")


def load_run_config(run_dir: Path, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """The config saved in a run folder, with ``--set`` overrides for the resumed part.

    Raises:
        CheckpointError: when the folder has no ``config.yaml``.
        ConfigError: for an invalid override, or one that changes the network's shape.
    """
    path = run_dir / "config.yaml"
    if not path.is_file():
        raise CheckpointError(f"{run_dir} is not a run folder (no config.yaml)")
    saved = load_config(path)
    config = load_config(path, overrides)
    for name in FROZEN_ON_RESUME:
        if getattr(saved.ppo, name) != getattr(config.ppo, name):
            raise ConfigError(f"ppo.{name} cannot change when resuming (the network is saved)")
    return config


def open_run(
    config: TrainConfig | None,
    run_name: str | None,
    resume: str | Path | None,
    overrides: list[str] | tuple[str, ...],
    check: Callable[[TrainConfig], None],
) -> RunStart:
    """Create a run folder, or resume one: the one lifecycle of every training backend.

    A new run gets a new folder (``make_run_dir``). A resumed one loads its saved config
    (with ``overrides``), loses what a killed session left (``clean_run_folder``: temporary
    files, half-written checkpoints) and the TensorBoard events logged past its newest
    checkpoint (``truncate_events``), and continues from that checkpoint.

    Args:
        config: the config of a new run (default ``default.yaml``).
        run_name: the new run folder's name.
        resume: the run folder to resume, or None.
        overrides: with ``resume``: ``key=value`` changes to the saved config.
        check: the backend's check of the config, run before any file is touched.

    Raises:
        ConfigError: an invalid config or an existing run folder.
        CheckpointError: ``resume`` without a usable checkpoint.
    """
    if resume is None:
        config = config or load_config()
        check(config)
        run_dir = make_run_dir(config, run_name)
        return RunStart(config, run_dir, None, TrainState(), RunLock(run_dir))
    run_dir = Path(resume)
    config = load_run_config(run_dir, overrides)
    check(config)
    lock = RunLock(run_dir)  # before anything in the folder changes
    try:
        for path in clean_run_folder(run_dir):
            print(f"removed {path} (left by a stopped session)")
        checkpoint = latest_checkpoint(run_dir / "checkpoints")
        state = read_state(checkpoint)
        truncate_events(run_dir / "tb", state.steps)  # what a killed session logged past it
    except BaseException:
        lock.release()
        raise
    return RunStart(config, run_dir, checkpoint, state, lock)


def start(run: RunStart, body: Callable[[RunStart], TrainResult]) -> TrainResult:
    """``body(run)``, in which the backend builds its session and drives it.

    Ctrl-C (or SIGTERM) before the session trains ends the run here
    (``interrupted_early``). The run folder's lock is released however it ends.
    """
    trust_folder(run.run_dir)  # its checkpoints and snapshots are this run's own files
    try:
        return body(run)
    except KeyboardInterrupt as exc:  # before the training loop, which handles its own
        result = interrupted_early(run)
        result.terminated = by_sigterm(exc)
        return result
    finally:
        if run.lock is not None:
            run.lock.release()


def interrupted_early(run: RunStart) -> TrainResult:
    """Ctrl-C before the training loop: a new run with no checkpoint leaves no folder."""
    run_dir = run.run_dir
    if run.checkpoint is None and not list_checkpoints(run_dir / "checkpoints"):
        shutil.rmtree(run_dir, ignore_errors=True)
        print(
            f"\ninterrupted before the first checkpoint: nothing to resume, so {run_dir} "
            "was removed; run the same command to start again"
        )
    else:
        print(f"\ninterrupted before training began; continue with --resume {run_dir}")
    return TrainResult(run_dir, int(run.state.steps), True, 0.0, 0.0, None)


def drive(session: Session) -> TrainResult:
    """Train a session to the end, then its final evaluation, checkpoint and model.

    Ctrl-C (or SIGTERM, see ``stop_on_sigterm``) while it trains or evaluates at the end
    writes a checkpoint and prints the command that continues the run; a second signal
    while that checkpoint is written is ignored. ``session.close()`` runs however it
    ends.

    The final evaluation runs once per step: when the history already ends at this step
    (a stopped session evaluated it, then was killed before its checkpoint recorded it),
    that entry is the final one, and it is not logged a second time.
    """
    start_time, steps0 = time.perf_counter(), session.steps
    interrupted, terminated, final_eval, seconds = False, False, None, 0.0
    try:
        session.learn()
        seconds = time.perf_counter() - start_time
        history = session.history
        if history and history[-1].get("steps") == session.steps:
            final_eval = history[-1]
            session.state.last_eval_steps = session.steps
        else:
            final_eval = session.run_evaluation()
        if session.state.last_checkpoint_steps != session.steps:
            session.checkpoint()
        session.save_final()
    except KeyboardInterrupt as exc:
        interrupted, terminated = True, by_sigterm(exc)
        seconds = seconds or time.perf_counter() - start_time
        with _ignoring_stop_signals():
            path = session.checkpoint()
        how = "terminated (SIGTERM)" if terminated else "interrupted"
        print(
            f"\n{how} at step {session.steps:,}: checkpoint {path} written.\n"
            f"continue with: {session.resume_command} {session.run_dir}",
            flush=True,
        )
    finally:
        session.close()
    fps = (session.steps - steps0) / seconds if seconds > 0 else 0.0
    return TrainResult(
        session.run_dir, session.steps, interrupted, fps, seconds, final_eval, terminated
    )


@contextlib.contextmanager
def _ignoring_stop_signals() -> Iterator[None]:
    """Ignore SIGINT and SIGTERM inside the block (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

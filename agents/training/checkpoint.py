"""Atomic checkpoints: ``checkpoints/ckpt_<steps>.zip`` plus ``ckpt_<steps>.json``.

Every file is written to a temporary name in the same folder, flushed to disk and then
renamed over its final name (``os.replace`` is atomic), so a crash or Ctrl-C mid-write
never leaves a half-written checkpoint under a real name; the file gets the mode a
plain ``open(path, "w")`` would give (the umask's, or the mode of the file it replaces).
A checkpoint is the MaskablePPO ``.zip`` (network, optimizer, step counter) and a small
JSON state (the self-play pool, the best evaluation so far, when the last evaluation and
snapshot ran). The JSON is written after the zip, so a checkpoint counts only once both
exist; pruning deletes the JSON first, so a kill mid-prune leaves at worst a lone zip.
``clean_run_folder`` removes what a killed process can leave (temporary files, a zip
without its JSON, a JSON without its zip) when the run is resumed.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
import signal
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

#: a checkpoint of either backend: ``ckpt_<steps>.zip`` (SB3) or the folder ``ckpt_<steps>``
#: (RLlib), always with its state ``ckpt_<steps>.json``; steps zero-padded to 12 digits
CHECKPOINT_RE = re.compile(r"^ckpt_(\d+)(\.zip)?$")
#: an RLlib checkpoint folder being written: ``.ckpt_<steps>.tmp``
TEMP_DIR_RE = re.compile(r"^\.ckpt_\d+\.tmp$")
#: a temporary file of ``atomic_write``: ``.<final name>.<random>.tmp``
TEMP_RE = re.compile(r"^\..+\.[0-9a-z_]+\.tmp$")


class CheckpointError(RuntimeError):
    """A checkpoint or run folder that cannot be used; the message names the file."""


@dataclass
class TrainState:
    """What a checkpoint stores besides the model.

    Attributes:
        steps: the model's step counter when the checkpoint was written.
        pool: self-play snapshot files (relative to the run folder), oldest first.
        best_metric: the best ``eval.best_metric`` value so far (None: no evaluation yet).
        best_steps: the step of that evaluation.
        last_eval_steps: the step of the latest evaluation.
        last_snapshot_steps: the step of the latest self-play snapshot.
        last_checkpoint_steps: the step of this checkpoint.
        league: the league's records and exploiter files (``League.state``; empty
            without ``opponents.league``).
    """

    steps: int = 0
    pool: list[str] = field(default_factory=list)
    best_metric: float | None = None
    best_steps: int = 0
    last_eval_steps: int = 0
    last_snapshot_steps: int = 0
    last_checkpoint_steps: int = 0
    league: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainState:
        """Build from the JSON dict (unknown keys are ignored, for forward compatibility)."""
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], None]) -> Path:
    """Write a file atomically: ``write(file)`` into a temp file, fsync, rename over ``path``.

    Args:
        path: the final file name.
        write: called with a binary file object opened for writing.

    Returns:
        The final path.

    Raises:
        OSError: ``path`` exists and is not a regular file (a folder, a device such as
            ``/dev/full``, a FIFO), which a rename would replace; or the write failed.
    """
    path = Path(path)
    if path.exists() and not path.is_file():  # a device, a FIFO: never replace it
        raise OSError(
            errno.EISDIR if path.is_dir() else errno.EINVAL, "not a regular file", str(path)
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with _interrupt_after():
        fd, tmp = _create_temp(path)
        try:
            with os.fdopen(fd, "wb") as f:
                if path.exists():  # keep the mode of the file replaced, as open(path, "w") does
                    os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
                write(f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return path


#: the signals that stop a training run as Ctrl-C does (SIGTERM: ``timeout``, ``docker
#: stop``, Kubernetes and Slurm send it before SIGKILL)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _interrupt_after() -> Iterator[None]:
    """Hold a SIGINT or SIGTERM that arrives inside the block until the block has finished.

    A Ctrl-C inside ``torch.save`` breaks its zip writer mid-file (a ``RuntimeError``, not
    a ``KeyboardInterrupt``), so the interrupted run would lose the checkpoint it was
    writing. Held here, the signal reaches the previous handler once the file is whole.
    Only the main thread can own signal handlers; elsewhere the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, Any]] = []
    previous = {
        signum: signal.signal(signum, lambda signum, frame: held.append((signum, frame)))
        for signum in STOP_SIGNALS
    }
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)
    if held:
        got, frame = held[0]
        handler = previous[signal.Signals(got)]
        if callable(handler):
            handler(got, frame)
        elif handler == signal.SIG_DFL:
            if got == signal.SIGINT:
                raise KeyboardInterrupt
            signal.raise_signal(got)  # SIGTERM's default: the process ends


def _create_temp(path: Path) -> tuple[int, Path]:
    """Create ``.<name>.<random>.tmp`` next to ``path`` with mode 0666 less the umask.

    ``tempfile.mkstemp`` would create it 0600; ``os.open`` with 0o666 lets the kernel
    apply the umask exactly as for a plain ``open(path, "w")``.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def atomic_write_text(path: str | Path, text: str) -> Path:
    """``atomic_write`` for text (UTF-8)."""

    def write(file: IO[bytes]) -> None:
        file.write(text.encode())

    return atomic_write(path, write)


def save_model(model: Any, path: str | Path) -> Path:
    """Save an SB3 model (``model.save``) atomically to ``path``."""
    return atomic_write(path, model.save)


def checkpoint_path(folder: Path, steps: int) -> Path:
    """``folder/ckpt_<steps>.zip`` (steps zero-padded so names sort by step)."""
    return folder / f"ckpt_{steps:012d}.zip"


def write_checkpoint(model: Any, folder: Path, state: TrainState, keep: int) -> Path:
    """Write ``ckpt_<steps>.zip`` and its ``.json``, then delete all but the newest ``keep``.

    Returns:
        The checkpoint's zip path.
    """
    steps = int(model.num_timesteps)
    state.steps = state.last_checkpoint_steps = steps
    path = save_model(model, checkpoint_path(folder, steps))
    atomic_write_text(path.with_suffix(".json"), json.dumps(asdict(state), indent=2))
    for old in list_checkpoints(folder)[:-keep]:
        old.with_suffix(".json").unlink(missing_ok=True)  # first: it makes the pair count
        old.unlink(missing_ok=True)
    return path


def prune_pool_files(run_dir: Path, current: list[str]) -> None:
    """Delete the self-play snapshots in ``run_dir/pool`` that nothing needs any more.

    A snapshot is kept while the current pool (``current``, relative paths) or a
    checkpoint in ``run_dir/checkpoints`` lists it.
    """
    listed = referenced_pool_files(run_dir) | set(current)
    for snapshot in sorted((run_dir / "pool").glob("snapshot_*.zip")):
        if str(snapshot.relative_to(run_dir)) not in listed:
            snapshot.unlink(missing_ok=True)


def referenced_pool_files(run_dir: Path) -> set[str]:
    """The self-play snapshot files (relative to ``run_dir``) its checkpoints list."""
    files: set[str] = set()
    for path in list_checkpoints(run_dir / "checkpoints"):
        try:
            files.update(read_state(path).pool)
        except CheckpointError:
            continue
    return files


def clean_run_folder(run_dir: Path) -> list[Path]:
    """Remove what a killed run leaves behind; returns the files removed.

    That is: ``atomic_write`` temporary files (``.<name>.<random>.tmp``) in the run
    folder, ``checkpoints/`` and ``pool/``; and in ``checkpoints/`` a ``ckpt_*.zip``
    without its ``.json`` (killed between the two writes) or a ``.json`` without its zip
    (killed while pruning). Neither half is a checkpoint (``list_checkpoints``).
    """
    removed = []
    for folder in (run_dir, run_dir / "checkpoints", run_dir / "pool"):
        if folder.is_dir():
            removed += [p for p in folder.iterdir() if p.is_file() and TEMP_RE.match(p.name)]
    folder = run_dir / "checkpoints"
    if folder.is_dir():
        for p in folder.iterdir():
            if p.suffix == ".json" and CHECKPOINT_RE.match(p.stem):
                if not (p.with_suffix(".zip").exists() or p.with_suffix("").is_dir()):
                    removed.append(p)
            elif (
                CHECKPOINT_RE.match(p.name)
                and not p.with_suffix(".json").exists()
                or p.is_dir()
                and TEMP_DIR_RE.match(p.name)
            ):
                removed.append(p)
    for p in removed:
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
    return sorted(removed)


def list_checkpoints(folder: Path) -> list[Path]:
    """Complete checkpoints (zip or RLlib folder, and json) in ``folder``, oldest first."""
    if not folder.is_dir():
        return []
    found = [
        (int(m.group(1)), p)
        for p in folder.iterdir()
        if (m := CHECKPOINT_RE.match(p.name)) and p.with_suffix(".json").exists()
    ]
    return [p for _, p in sorted(found)]


def latest_checkpoint(folder: Path) -> Path:
    """The newest complete checkpoint in ``folder``.

    Raises:
        CheckpointError: when there is none.
    """
    found = list_checkpoints(folder)
    if not found:
        raise CheckpointError(
            f"no checkpoint in {folder} (expected ckpt_<steps>.zip or ckpt_<steps>/ with "
            "its .json); "
            "nothing to resume: the run stopped before its first checkpoint, so start it "
            "again (delete the folder to reuse its name)"
        )
    return found[-1]


def read_state(path: Path) -> TrainState:
    """The ``TrainState`` stored next to checkpoint ``path`` (``ckpt_<steps>.json``).

    Raises:
        CheckpointError: when the JSON is missing or unreadable.
    """
    state_path = path.with_suffix(".json")
    try:
        return TrainState.from_dict(json.loads(state_path.read_text()))
    except (OSError, ValueError, TypeError) as exc:
        raise CheckpointError(
            f"checkpoint state {state_path} is missing or corrupt ({exc})"
        ) from exc

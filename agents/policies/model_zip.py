"""The one reader of a Stable-Baselines3 model zip: every entry checked once, one error text.

A model ``.zip`` (``MaskablePPO.save``: a shipped model, a training checkpoint, a
self-play snapshot, a ``pretrain.init_from`` source) is opened here and nowhere else.
``model_zip_problem`` says what is wrong with a file without loading it (missing, a
folder, not a zip, an entry failing its CRC check, an entry ``MaskablePPO.load`` needs
absent); ``open_model_zip`` raises that as ``PolicyLoadError`` (``cannot load model
<path>: <problem>``, one line) and otherwise loads the model, a failure inside SB3
reported the same way. ``sb3_contrib`` (and torch) are imported only when a model loads.

A model zip is code: SB3 stores parts of a model (its policy class, schedules, spaces)
as pickled Python objects in the ``data`` entry, and unpickling one runs whatever it
names. So, as torch's ``weights_only`` loader does, ``open_model_zip`` refuses a zip
whose ``data`` holds pickled objects unless it is trusted: a shipped model (it comes
with the code), a file in a folder registered with ``trust_folder`` (a training run's
own checkpoints and snapshots), or any file when ``HGIN_TRUST_MODEL=1`` is set (the
CLIs' ``--trust-model`` sets it, for their worker processes too).
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any

from agents.shipped import shipped_dir
from hgin_env.envs.policy import PolicyLoadError

#: the file a model folder holds (``models/<name>/model.zip``)
MODEL_FILE = "model.zip"
#: the entries ``MaskablePPO.load`` reads: the saved attributes and the network's weights
REQUIRED_ENTRIES = ("data", "policy.pth")
#: the environment variable that trusts every model zip (``--trust-model`` sets it to 1)
TRUST_ENV = "HGIN_TRUST_MODEL"
#: folders whose model zips this process wrote itself (``trust_folder``)
_TRUSTED_FOLDERS: set[Path] = set()


def trust_folder(folder: str | Path) -> None:
    """Trust the model zips under ``folder`` (a run folder: its checkpoints, snapshots)."""
    _TRUSTED_FOLDERS.add(Path(folder).resolve())


def is_trusted(path: Path) -> bool:
    """Whether ``path`` may be unpickled: ``HGIN_TRUST_MODEL=1``, shipped, or trusted."""
    if os.environ.get(TRUST_ENV, "").strip().lower() in ("1", "true", "yes"):
        return True
    where = path.resolve()
    folders = [shipped_dir("models").resolve(), *_TRUSTED_FOLDERS]
    return any(where.is_relative_to(folder) for folder in folders)


def pickled_objects(path: Path) -> list[str]:
    """The attributes the zip's ``data`` entry stores as pickled objects (nothing is run)."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (KeyError, ValueError, OSError, zipfile.BadZipFile, RecursionError):
        return []  # SB3 fails on it too, before anything is unpickled: a corrupt model
    if not isinstance(data, dict):
        return []
    return [str(k) for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v]


def model_zip_problem(path: Path) -> str | None:
    """What keeps ``path`` from being an intact model zip, or None when nothing does.

    Every entry is read once (its CRC checked); nothing is unpickled.

    Returns:
        A short text for ``cannot load model <path>: <text>``, or None.
    """
    if not path.exists():
        return "no such file"
    if path.is_dir():
        return f"is a directory without {MODEL_FILE}"
    if not zipfile.is_zipfile(path):
        return "corrupt or not a zip file (a MaskablePPO .zip expected)"
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            bad = archive.testzip()
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError) as exc:
        return f"corrupt zip (not readable: {exc})"
    if bad is not None:
        return f"corrupt zip (entry {bad} fails its CRC check)"
    missing = [entry for entry in REQUIRED_ENTRIES if entry not in names]
    if missing:
        entries = ", ".join(f"no {entry!r} entry" for entry in missing)
        return f"not a Stable-Baselines3 model ({entries} in the zip)"
    return None


def open_model_zip(path: str | Path, **load_args: Any) -> Any:
    """Check ``path`` (``model_zip_problem``), then ``MaskablePPO.load(path, **load_args)``.

    Args:
        path: the model's ``.zip`` file.
        load_args: passed to ``MaskablePPO.load`` (``device``, ``env``, ``custom_objects``).

    Raises:
        PolicyLoadError: ``cannot load model <path>: <problem>``, one line; also for an
            untrusted zip holding pickled objects (see the module docstring).
    """
    path = Path(path)
    problem = model_zip_problem(path)
    if problem is not None:
        raise PolicyLoadError(f"cannot load model {path}: {problem}")
    pickled = [] if is_trusted(path) else pickled_objects(path)
    if pickled:
        shown = ", ".join(pickled[:4]) + (", ..." if len(pickled) > 4 else "")
        raise PolicyLoadError(
            f"cannot load model {path}: its data holds pickled Python objects ({shown}), "
            "and unpickling runs whatever code they name. Load it only if you trust where "
            f"it came from: pass --trust-model (or set {TRUST_ENV}=1)"
        )
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, **load_args)
    except Exception as exc:  # noqa: BLE001 - any failure inside SB3 is a load problem
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise PolicyLoadError(
            f"cannot load model {path}: corrupt or not a MaskablePPO model "
            f"({type(exc).__name__}: {message})"
        ) from exc

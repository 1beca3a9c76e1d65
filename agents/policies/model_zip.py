"""The one reader of a Stable-Baselines3 model zip: every entry checked once, one error text.

A model ``.zip`` (``MaskablePPO.save``: a shipped model, a training checkpoint, a
self-play snapshot, a ``pretrain.init_from`` source) is opened here and nowhere else.
``model_zip_problem`` says what is wrong with a file without loading it (missing, a
folder, not a zip, an entry failing its CRC check, an entry ``MaskablePPO.load`` needs
absent); ``open_model_zip`` raises that as ``PolicyLoadError`` (``cannot load model
<path>: <problem>``, one line) and otherwise loads the model, a failure inside SB3
reported the same way. ``sb3_contrib`` (and torch) are imported only when a model loads.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import Any

from hgin_env.envs.policy import PolicyLoadError

#: the file a model folder holds (``models/<name>/model.zip``)
MODEL_FILE = "model.zip"
#: the entries ``MaskablePPO.load`` reads: the saved attributes and the network's weights
REQUIRED_ENTRIES = ("data", "policy.pth")


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
        PolicyLoadError: ``cannot load model <path>: <problem>``, one line.
    """
    path = Path(path)
    problem = model_zip_problem(path)
    if problem is not None:
        raise PolicyLoadError(f"cannot load model {path}: {problem}")
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, **load_args)
    except Exception as exc:  # noqa: BLE001 - any failure inside SB3 is a load problem
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise PolicyLoadError(
            f"cannot load model {path}: corrupt or not a MaskablePPO model "
            f"({type(exc).__name__}: {message})"
        ) from exc

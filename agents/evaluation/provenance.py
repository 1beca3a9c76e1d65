"""Where a result came from: package version, git commit, model hashes, rules and seeds.

``provenance(policies, rules=..., seeds=...)`` is the block every results JSON carries
under its one top-level key ``"provenance"`` (so a comparison of results can drop it as
a whole): the package version, the git commit of the clone (None outside a git clone,
``dirty`` when tracked files differ from it), Python's version, the time it was written,
the sha256 of every model file a policy spec names (a shipped model's folder: each of
its weights files, whatever their format), the rules and the seeds.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import platform
import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agents.shipped import CHECKOUT, shipped_dir
from hgin_env import __version__

#: the repository root (a clone), where ``.git`` is
ROOT = CHECKOUT
#: the suffixes of the files that hold a model's weights or its network's spec
WEIGHT_SUFFIXES = (".zip", ".safetensors", ".pt", ".pth", ".npz", ".onnx", ".pkl", ".bin")
#: a model folder's JSON files that describe its network (not its results)
SPEC_NAMES = ("spec", "policy", "network", "model")


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def git_commit(root: Path = ROOT) -> dict[str, Any] | None:
    """``{"commit": sha, "dirty": bool}`` of the clone at ``root``; None outside a clone."""
    if not (root / ".git").exists():
        return None
    try:
        sha = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()  # fmt: skip
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": sha, "dirty": bool(status.strip())}


def is_model_file(path: Path) -> bool:
    """Whether ``path`` holds a model's weights or its network's spec (by its name)."""
    if path.suffix in WEIGHT_SUFFIXES:
        return True
    return path.suffix == ".json" and any(word in path.stem for word in SPEC_NAMES)


def model_files(spec: str | Path, models_dir: Path | None = None) -> list[Path]:
    """The model files a policy spec names: a file, a folder's model files, a shipped name.

    A bot or search name (or anything else that is no file) names none.
    """
    models_dir = models_dir if models_dir is not None else shipped_dir("models")
    text = str(spec).split(":", 1)[0] if not Path(str(spec)).exists() else str(spec)
    path = Path(text)
    if not path.exists() and (models_dir / text).is_dir() and "/" not in text:
        path = models_dir / text
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file() and is_model_file(p))
    return []


def shown_path(path: Path) -> str:
    """``path`` relative to the clone when inside it, else as it is."""
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def named_models(spec: str) -> list[str]:
    """The specs of the models a policy spec uses: itself, and the models in its options.

    A search spec names its networks in its options (``pimc:rollout=ppo-league2``); a
    ``searcher`` version names them in its fixed parameters.

    >>> named_models("pimc:worlds=8,rollout=ppo-league2")
    ['pimc:worlds=8,rollout=ppo-league2', 'ppo-league2']
    """
    texts = [spec]
    if spec.split("@", 1)[0].split(":", 1)[0] == "searcher":
        from agents.registry import maker

        with contextlib.suppress(ValueError, KeyError):
            version, _ = maker(spec)
            texts.append(str(getattr(version, "params", "")))
    found = [spec]
    for text in texts:
        for item in re.split(r"[:,]", text)[1 if text is spec else 0 :]:
            value = item.partition("=")[2]
            if value and value not in found and model_files(value):
                found.append(value)
    return found


def model_hashes(policies: Iterable[str | Path]) -> dict[str, dict[str, str]]:
    """``{model spec: {file: sha256}}`` for each model a policy spec names or uses."""
    out: dict[str, dict[str, str]] = {}
    for given in dict.fromkeys(str(p) for p in policies):
        for spec in named_models(given):
            files = model_files(spec)
            if files and spec not in out:
                out[spec] = {shown_path(f): file_sha256(f) for f in files}
    return out


def provenance(
    policies: Iterable[str | Path] = (),
    rules: Mapping[str, Any] | None = None,
    seeds: Mapping[str, Any] | None = None,
    command: list[str] | None = None,
) -> dict[str, Any]:
    """The ``"provenance"`` block of a results JSON (see the module docstring)."""
    return {
        "package": "hollywood-gin",
        "version": __version__,
        "git": git_commit(),
        "python": platform.python_version(),
        "written": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": command,
        "models": model_hashes(policies),
        "rules": dict(rules) if rules is not None else None,
        "seeds": dict(seeds) if seeds is not None else None,
    }


def model_summary(name: str, models_dir: Path | None = None) -> tuple[str, str]:
    """``(version, one line)`` of a shipped model, read from its folder (nothing loaded).

    The version is ``sha256:`` and the first 12 hex digits of its first model file (a
    model has no version number: a new file is a new model); the line is the first
    sentence of its card (``README.md``), else its config's experiment name.
    """
    folder = (models_dir if models_dir is not None else shipped_dir("models")) / name
    files = model_files(folder) if folder.is_dir() else model_files(name)
    weights = [f for f in files if f.suffix in WEIGHT_SUFFIXES] or files
    version = f"sha256:{file_sha256(weights[0])[:12]}" if weights else "-"
    card = folder / "README.md"
    if card.is_file():
        for line in card.read_text().splitlines():
            if line.strip() and not line.startswith(("#", "<!--", "|", ">")):
                return version, line.strip().split(". ")[0].rstrip(".")
    return version, "a trained model"

"""The wheel works outside the clone: shipped models and named configs are package data.

The wheel is built from a copy of the checkout and installed with ``--no-deps`` into a
fresh venv in a temporary folder; the venv sees the dev venv's third-party packages
through a ``.pth`` file naming a folder of links to them, less this project's own install
(its editable finder and ``hollywood_gin-*.dist-info``), so only the wheel's copy of the
project can answer. Everything runs there with no ``PYTHONPATH`` and the temporary folder
as working directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]
#: what is not copied from the checkout before building (outputs, caches, version control)
UNCOPIED = (".git", ".venv", "runs", "build", "dist", "*.egg-info", "__pycache__", ".*_cache")


def _project_install(name: str) -> bool:
    """Whether a site-packages entry is this project's own install (hidden from the venv)."""
    return name.startswith(("__editable__", "hollywood_gin")) or name.endswith(".pth")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv outside the clone holding the wheel; its ``bin`` folder."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*UNCOPIED))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(tmp / "dist"), str(source)],
        check=True, capture_output=True, cwd=tmp,
    )  # fmt: skip
    (wheel,) = (tmp / "dist").glob("hollywood_gin-*.whl")
    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         str(wheel)],
        check=True, capture_output=True, cwd=tmp,
    )  # fmt: skip
    links = tmp / "deps"
    links.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not _project_install(entry.name):
            (links / entry.name).symlink_to(entry)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "dev_dependencies.pth").write_text(f"{links}\n")
    return env_dir / "bin"


def _run(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a command of the venv in its temporary folder, with no ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]],
        capture_output=True, text=True, cwd=bin_dir.parent.parent, env=env, timeout=300,
    )  # fmt: skip


def test_wheel_imports_its_own_copy(installed: Path) -> None:
    """The venv imports the wheel's ``agents``, whose data holds the models and configs."""
    code = (
        "import agents; from agents.policies.model import MODELS_DIR;"
        "from agents.training.config import DEFAULT_CONFIG;"
        "print(agents.__file__, MODELS_DIR, DEFAULT_CONFIG, sep='\\n')"
    )
    proc = _run(installed, "python", "-c", code)
    assert proc.returncode == 0, proc.stderr
    paths = proc.stdout.split()
    venv_dir = str(installed.parent)
    assert all(p.startswith(venv_dir) for p in paths), paths
    assert (
        Path(paths[2]).is_file() and (Path(paths[1]) / "ppo-league2" / "hgin_policy.json").is_file()
    )
    site = Path(paths[0]).parents[1]
    tops = {p.name for p in site.iterdir() if p.is_dir() and not p.name.endswith(".dist-info")}
    assert tops == {"agents", "hgin_env", "hgin_ui", "hgin_cli"}  # no top-level models, configs


def test_wheel_evaluates_a_shipped_model(installed: Path) -> None:
    """``hgin-evaluate ppo-league2 simple`` plays series with the wheel's shipped model."""
    proc = _run(installed, "hgin-evaluate", "ppo-league2", "simple", "--series", "2",
                "--no-progress")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "ppo-league2" in proc.stdout


def test_wheel_trains_from_a_named_config(installed: Path) -> None:
    """``hgin-train --config vs_simple`` reads the wheel's named config."""
    proc = _run(installed, "hgin-train", "--config", "vs_simple", "--print-config")
    assert proc.returncode == 0, proc.stderr
    assert "experiment: vs_simple" in proc.stdout

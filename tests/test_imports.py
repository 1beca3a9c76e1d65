"""Importing the package starts nothing: no Ray, no processes, no threads.

``--doctest-modules`` imports every module of ``hgin_env``, ``agents`` and ``hgin_cli``
(pyproject's ``testpaths``), and so does any tool that walks the package; the Ray and
torch modules must only start work when called.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())

#: imports every module of the packages (and the extra ones named), then reports what runs
_PROBE = """
import importlib, json, multiprocessing, os, pkgutil, sys, threading
names = list(sys.argv[1:])
for pkg in ("hgin_env", "agents", "hgin_cli"):
    mod = importlib.import_module(pkg)
    names += [m.name for m in pkgutil.walk_packages(mod.__path__, pkg + ".")]
for name in names:
    importlib.import_module(name)
ray = sys.modules.get("ray")
me = str(os.getpid())
children = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    if stat.rpartition(") ")[2].split()[1] == me:
        children.append(pid)
print(json.dumps({
    "modules": len(names),
    "threads": sorted(t.name for t in threading.enumerate() if t is not threading.main_thread()),
    "processes": len(multiprocessing.active_children()) + len(children),
    "ray": bool(ray is not None and ray.is_initialized()),
}))
"""


def _probe(*extra: str, path: Path = ROOT) -> dict:
    """What is running after importing every module (plus ``extra``) in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, *extra],
        cwd=path,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_importing_every_module_starts_nothing():
    """After importing all modules of the three packages no thread, process or Ray runs."""
    seen = _probe()
    assert seen["modules"] > 40
    assert seen == {"modules": seen["modules"], "threads": [], "processes": 0, "ray": False}


def test_the_probe_sees_a_started_thread(tmp_path):
    """The check can fail: a module that starts a thread at import is caught."""
    (tmp_path / "starts_a_thread.py").write_text(
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(30,), name='side', daemon=True).start()\n"
    )
    seen = _probe("starts_a_thread", path=tmp_path)
    assert seen["threads"] == ["side"]

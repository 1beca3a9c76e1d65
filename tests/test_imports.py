"""Importing the package starts nothing: no Ray, no processes, no threads.

``--doctest-modules`` imports every module of ``hgin_env``, ``agents`` and ``hgin_cli``
(pyproject's ``testpaths``), and so does any tool that walks the package; the Ray and
torch modules must only start work when called.
"""

from __future__ import annotations

import json
import subprocess
import sys

#: imports every module of the packages, then the extra modules named; reports what runs
#: after each of the two steps
_PROBE = """
import importlib, json, multiprocessing, os, pkgutil, sys, threading
me = str(os.getpid())

def running():
    children = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        if stat.rpartition(") ")[2].split()[1] == me:
            children.append(pid)
    ray = sys.modules.get("ray")
    return {
        "threads": sorted(t.name for t in threading.enumerate()
                          if t is not threading.main_thread()),
        "processes": len(multiprocessing.active_children()) + len(children),
        "ray": bool(ray is not None and ray.is_initialized()),
    }

names = []
for pkg in ("hgin_env", "agents", "hgin_cli"):
    mod = importlib.import_module(pkg)
    names += [m.name for m in pkgutil.walk_packages(mod.__path__, pkg + ".")]
for name in names:
    importlib.import_module(name)
seen = {"modules": len(names), "package": running()}
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps({**seen, "extra": running()}))
"""


def test_importing_every_module_starts_nothing(tmp_path):
    """After importing all modules of the three packages no thread, process or Ray runs.

    The check can fail: a module that starts a thread at import, imported next in the
    same interpreter, is caught.
    """
    (tmp_path / "starts_a_thread.py").write_text(
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(30,), name='side', daemon=True).start()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, "starts_a_thread"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    seen = json.loads(result.stdout.splitlines()[-1])
    assert seen["modules"] > 40
    assert seen["package"] == {"threads": [], "processes": 0, "ray": False}
    assert seen["extra"]["threads"] == ["side"]

"""The engine's compile cost: a cold first use (empty kernel cache) against a warm one.

Usage: ``python -m benchmarks.kernel_cache [--repeats 3]``

Each sample is a fresh Python process that imports ``hgin_env.engine`` and plays one
short seeded game through every kernel of the engine (deal, legal masks, steps, a knock,
``min_deadwood``, ``deadwood_after_discard``, the keyed streams). The cold sample points
``NUMBA_CACHE_DIR`` at an empty folder, so every kernel compiles; the warm samples reuse
that folder, so every kernel loads from disk. A third column runs the package from a
read-only copy with no ``NUMBA_CACHE_DIR``: numba then writes the cache to the user's cache
folder (here a temporary ``XDG_CACHE_HOME``), as for a wheel in a read-only site-packages.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._common import load_text, print_table

PLAY = """
import numpy as np
from hgin_env.engine import GinEngine, RulesConfig, min_deadwood, deadwood_after_discard
from hgin_env.engine.keys import hash_stream, shuffled_decks
eng = GinEngine(2, RulesConfig(big_gin_bonus=31), seed=0)
eng.reset()
for _ in range(400):
    mask = eng.legal_action_mask()
    knocks = mask[:, 52:104].any(axis=1)
    eng.step(np.where(knocks, mask[:, 52:104].argmax(axis=1) + 52, mask.argmax(axis=1)))
    if eng.over.any():
        eng.reset(mask=eng.over)
min_deadwood(eng.state.hands[:, 0]); deadwood_after_discard(eng.state.hands[:, 0])
hash_stream(np.arange(3, dtype=np.uint64), 0, 1); shuffled_decks(np.arange(3, dtype=np.uint64), 0)
"""


def run(env: dict[str, str], cwd: Path, prefix: tuple[str, ...] = ()) -> float:
    """Seconds for one fresh process to import the engine and play through every kernel."""
    start = time.perf_counter()
    subprocess.run([*prefix, sys.executable, "-c", PLAY], env=env, cwd=cwd, check=True)
    return time.perf_counter() - start


def main() -> None:
    """Run the samples and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="warm samples")
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        base = dict(os.environ, PYTHONPATH=str(root), NUMBA_CACHE_DIR=f"{tmp}/cache")
        cold = run(base, root)
        warm = sorted(run(base, root) for _ in range(args.repeats))[args.repeats // 2]
        # a read-only copy of the package, no NUMBA_CACHE_DIR: numba's user cache folder
        ro = Path(tmp) / "site"
        shutil.copytree(root / "hgin_env", ro / "hgin_env", ignore=shutil.ignore_patterns("*.nb?"))
        for path in ro.rglob("*"):
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        env = {k: v for k, v in base.items() if k != "NUMBA_CACHE_DIR"}
        env.update(PYTHONPATH=str(ro), XDG_CACHE_HOME=f"{tmp}/xdg")
        # root writes anywhere: run this column as an unprivileged user where one can be
        prefix: tuple[str, ...] = ()
        if os.geteuid() == 0 and shutil.which("setpriv"):
            prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
            Path(tmp).chmod(0o755)
            Path(f"{tmp}/xdg").mkdir(mode=0o777)
            Path(f"{tmp}/xdg").chmod(0o777)
        ro_cold = run(env, Path(tmp), prefix)
        ro_warm = run(env, Path(tmp), prefix)
        in_tree = len(list(ro.rglob("*.nbc")))
        written = len(list(Path(f"{tmp}/xdg/numba").rglob("*.nbc")))
        for path in ro.rglob("*"):
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    print_table(
        f"Engine import and first use of every kernel, seconds ({load_text()})",
        ["cache", "cold (empty cache)", "warm (median)", "cache files in user folder/package"],
        [
            ["NUMBA_CACHE_DIR", f"{cold:.1f}", f"{warm:.2f}", "-"],
            [
                "read-only package, user cache" + (" (as nobody)" if prefix else ""),
                f"{ro_cold:.1f}",
                f"{ro_warm:.2f}",
                f"{written}/{in_tree}",
            ],
        ],
    )


if __name__ == "__main__":
    main()

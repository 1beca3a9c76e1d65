"""Every benchmark script repeats each row (``--repeats``) and prints the median with its spread."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))


def _common():
    """``benchmarks/_common.py``, imported as the scripts import it."""
    from benchmarks import _common

    return _common


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_script_takes_repeats(script):
    """Each script under benchmarks/ has the shared --repeats option (its --help says so)."""
    result = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{script.stem}", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "--repeats" in result.stdout


def test_repeats_are_interleaved_and_summarized():
    """Repeats run round by round; the median and min-max summarize them (the doctests)."""
    module = _common()
    failures, tried = doctest.testmod(module)
    assert tried >= 5 and failures == 0
    sample = module.Sample((5.0, 1.0, 100.0))  # one preempted sample moves the median little
    assert sample.median == 5.0 and sample.spread(str) == "1.0-100.0"


def test_repeats_must_be_positive():
    """--repeats 0 is refused with a message naming the option (argparse exit code 2)."""
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.engine_speed", "--repeats", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 2 and "--repeats must be >= 1" in result.stderr

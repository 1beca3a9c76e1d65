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


def test_the_train_speed_profile_charges_each_part_its_own_time():
    """A timed part that calls another is charged only its own time (the parts add up)."""
    import time

    from benchmarks.train_speed import Profile

    profile = Profile()
    inner = profile.wrap("backward", lambda: time.sleep(0.05))

    def outer_body() -> None:
        time.sleep(0.02)
        inner()

    outer = profile.wrap("forward (update)", outer_body)
    start = time.perf_counter()
    outer()
    total = time.perf_counter() - start
    assert profile.seconds["backward"] >= 0.05
    assert 0.02 <= profile.seconds["forward (update)"] < 0.045
    assert abs(sum(profile.seconds.values()) - total) < 0.005


def test_train_speed_refuses_an_unknown_recipe_by_name():
    """A config name that is not shipped: exit code 2, the shipped names listed."""
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.train_speed", "--configs", "nosuch"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 2 and "no shipped config named nosuch" in result.stderr
    assert "default" in result.stderr

"""Shared helpers for the benchmark scripts: single-core setup, timing and tables."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def rate(work: Callable[[], int], min_seconds: float) -> float:
    """Run ``work`` (which returns a count of items done) until ``min_seconds``; items/s."""
    done = 0
    start = time.perf_counter()
    while True:
        done += work()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return done / elapsed


def print_table(title: str, header: list[str], rows: list[list[str]]) -> str:
    """Print (and return) a Markdown table."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "| " + " | ".join(f"{{:{w}}}" for w in widths) + " |"
    lines = [f"### {title}", "", fmt.format(*header)]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines += [fmt.format(*map(str, r)) for r in rows]
    text = "\n".join(lines)
    print(text + "\n", flush=True)
    return text


def rlcard_steps(seconds: float) -> float | None:
    """RLCard gin-rummy: ``env.step`` calls (player actions) per second, random legal play.

    Returns None when RLCard is not installed.
    """
    try:
        import numpy as np
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("gin-rummy", config={"seed": 0})
    rng = np.random.default_rng(0)

    def work() -> int:
        state, _ = env.reset()
        done = 0
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = env.step(legal[rng.integers(len(legal))])
            done += 1
        return done

    return rate(work, seconds)


def fmt_rate(x: float) -> str:
    """Format a rate with thousands separators."""
    return f"{x:,.0f}"

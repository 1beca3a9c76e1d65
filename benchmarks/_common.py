"""Shared helpers for the benchmark scripts: single-core setup, repeats, timing and tables.

Every timed row of every script is the median of ``--repeats`` samples (``add_repeats``),
printed beside its spread (min-max), and the repeats are interleaved (``interleaved``:
round r measures every row once), so one preemption of a shared machine spoils one
sample of one row, never a whole row.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


K = TypeVar("K")


def add_repeats(parser: argparse.ArgumentParser, default: int = 5) -> None:
    """Add ``--repeats N`` (the samples per row; the median is printed, with the spread)."""

    def positive(text: str) -> int:
        value = int(text)
        if value < 1:
            raise argparse.ArgumentTypeError(f"--repeats must be >= 1, got {value}")
        return value

    parser.add_argument(
        "--repeats",
        type=positive,
        default=default,
        help=f"samples per row, interleaved; prints the median and min-max (default {default})",
    )


@dataclass(frozen=True)
class Sample:
    """The repeated measurements of one row.

    >>> s = Sample((3.0, 1.0, 2.0, 10.0))
    >>> s.median, s.low, s.high
    (2.5, 1.0, 10.0)
    >>> s.spread(lambda x: f"{x:.0f}")
    '1-10'
    """

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        """The median of the samples."""
        return statistics.median(self.values)

    @property
    def low(self) -> float:
        """The smallest sample."""
        return min(self.values)

    @property
    def high(self) -> float:
        """The largest sample."""
        return max(self.values)

    def spread(self, fmt: Callable[[float], str] | None = None) -> str:
        """``min-max`` of the samples, each formatted by ``fmt`` (default: ``fmt_rate``)."""
        fmt = fmt or fmt_rate
        return f"{fmt(self.low)}-{fmt(self.high)}"


def interleaved(
    measures: Mapping[K, Callable[[], float | None]], repeats: int
) -> dict[K, Sample | None]:
    """Run every measure ``repeats`` times, round by round; ``None`` where one returns None.

    >>> calls = []
    >>> got = interleaved({"a": lambda: calls.append("a") or 1.0,
    ...                    "b": lambda: calls.append("b") or 2.0}, 2)
    >>> calls, got["a"].median
    (['a', 'b', 'a', 'b'], 1.0)
    """
    samples: dict[K, list[float] | None] = {key: [] for key in measures}
    for _ in range(repeats):
        for key, measure in measures.items():
            if samples[key] is None:
                continue
            value = measure()
            if value is None:  # not installed: measured once, skipped after
                samples[key] = None
            else:
                samples[key].append(value)  # type: ignore[union-attr]
    return {key: Sample(tuple(v)) if v else None for key, v in samples.items()}


def load_text() -> str:
    """The machine's load averages (1, 5 and 15 minutes), for table titles."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


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

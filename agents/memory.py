"""What the machine can hold: counts a user asks for, checked before anything is allocated.

A batch of games lives in memory at once (every series of an evaluation, every game of
a training rollout), so a count far past the machine's memory would fail deep inside
numpy after minutes, or get the process killed. ``check_fits`` refuses such a count at
once, with the largest count that fits in the message.
"""

from __future__ import annotations

import os

#: bytes of memory per series of an evaluation batch (engine state, tallies, the
#: policies' per-game arrays): 4.75 KiB measured over 20,000 and 120,000 series of
#: random against simple (peak RSS, 2026-12-06), rounded up for a model's observations
SERIES_BYTES = 8 * 1024


def physical_memory() -> int | None:
    """The machine's physical memory in bytes (None where the OS does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def most_that_fit(bytes_each: int) -> int | None:
    """The largest count of items of ``bytes_each`` bytes the machine's memory holds."""
    memory = physical_memory()
    return None if memory is None else max(1, memory // max(1, bytes_each))


def check_fits(count: int, bytes_each: int, what: str) -> None:
    """Raise ``ValueError`` when ``count`` items of ``bytes_each`` bytes exceed the memory.

    Args:
        count: how many items (games, series) were asked for.
        bytes_each: the estimated memory of one.
        what: the option's name for the message (``--series``, ``ppo.n_envs``).
    """
    limit = most_that_fit(bytes_each)
    if limit is not None and count > limit:
        gib = physical_memory() / 2**30  # type: ignore[operator]
        raise ValueError(
            f"{what} {count:,} needs about {count * bytes_each / 2**30:,.1f} GiB of memory; "
            f"this machine has {gib:,.1f} GiB, which holds at most {limit:,}"
        )

"""The command-line layer: ``train``, ``evaluate`` and ``play``.

They are the console scripts ``hgin-train``, ``hgin-evaluate`` and ``hgin-play``;
``python train.py`` and the others at the repository root call the same ``main``.
Imports flow one way, engine -> envs -> agents -> this package. Importing it sets up the
process before anything loads numpy or torch:

- one intra-op thread for torch and numpy's BLAS: the engine is single-threaded, a model
  plays small batches between engine steps, and with several OpenMP threads its forward
  passes ran ~30x slower whenever another process held the other core (threads
  spin-waiting); training sets torch's threads from its config;
- passive OpenMP waiting (``OMP_WAIT_POLICY=PASSIVE``): an idle OpenMP thread sleeps
  instead of spinning, so a run with ``ppo.torch_threads: 2`` no longer collapses when
  another process holds a core (measured in docs/training.md);
- glibc's malloc keeps freed memory for reuse (``mallopt``: blocks up to 32 MiB come from
  the heap, and up to 1 GiB of free heap is kept instead of being handed back): the
  update's minibatch tensors (13 MiB each at 2048 rows) were handed back and
  page-faulted in again at every minibatch, about 10,000 faults per step, and this cut
  them to a fifth (docs/benchmarks.md). Where the C library has no ``mallopt`` this
  does nothing;
- a check that ``import agents`` gives hollywood-gin's package: the import name is also
  used by the OpenAI Agents SDK, and whichever comes first on ``sys.path`` shadows the
  other. A wrong one stops the program with exit status 2 and a message saying so.
"""

from __future__ import annotations

import ctypes
import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest
TRIM_THRESHOLD = 1024 * 1024 * 1024


def hold_freed_memory() -> bool:
    """Have glibc's malloc keep freed memory for reuse; False where it cannot (no glibc)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )


hold_freed_memory()


def shadowing_message(module: object) -> str | None:
    """Why ``module`` (what ``import agents`` gave) is not hollywood-gin's, or None if it is."""
    if getattr(module, "HOLLYWOOD_GIN", False):
        return None
    where = getattr(module, "__file__", None) or "an unknown location"
    return (
        f"error: the 'agents' package imported from {where} is not hollywood-gin's: another "
        "installed package uses the same import name (the OpenAI Agents SDK does). Run "
        "hollywood-gin in a virtual environment of its own (make setup creates .venv)."
    )


def _check_agents() -> None:
    import agents

    message = shadowing_message(agents)
    if message is not None:
        print(message, file=sys.stderr)
        raise SystemExit(2)


_check_agents()

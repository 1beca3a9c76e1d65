"""Shared test settings: one thread for torch and numpy, and the bots registered.

No torch here (a test in ``test_layers.py`` checks that this file stays light): torch
reads ``OMP_NUM_THREADS`` when it is first imported, by whichever test needs it. One
thread, as the CLIs use: models play small batches, and several OpenMP threads slow them
down badly when another process holds the other core.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import agents  # noqa: E402, F401  - registers the bots and shipped models by name

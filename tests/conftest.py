"""Shared test settings: one thread for torch and numpy, and a shared Ray cluster.

No torch here (a test in ``test_layers.py`` checks that this file stays light): torch
reads ``OMP_NUM_THREADS`` when it is first imported, by whichever test needs it. One
thread, as the CLIs use: models play small batches, and several OpenMP threads slow them
down badly when another process holds the other core.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def ray_local():
    """One local loopback Ray cluster (2 CPUs) shared by the Ray tests; stopped at the end."""
    pytest.importorskip("ray")
    from agents.cluster.ray import ray_cluster

    with ray_cluster(num_cpus=2, log_to_driver=False) as cluster:
        yield cluster


#: helper modules, not tests: kept out of ``--doctest-modules`` collection (the OpenSpiel
#: harness imports pyspiel, an optional extra)
collect_ignore = ["helpers.py", "agents/bots/openspiel_peer.py"]

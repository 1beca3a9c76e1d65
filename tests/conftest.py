"""Shared test settings: one thread for torch and numpy, a shared Ray cluster, xdist groups.

No torch here (a test in ``test_layers.py`` checks that this file stays light): torch
reads ``OMP_NUM_THREADS`` when it is first imported, by whichever test needs it. One
thread, as the CLIs use: models play small batches, and several OpenMP threads slow them
down badly when another process holds the other core.

Under pytest-xdist (``make test`` runs ``-n 2 --dist loadgroup``) each test file is one
group, so its module-scoped fixtures are built once, and every test that starts Ray is in
one group ``ray``: one worker runs them one after another on the shared cluster, and no
two Ray clusters compete for the two cores.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def ray_local():
    """One local loopback Ray cluster (2 CPUs) shared by the Ray tests; stopped at the end."""
    pytest.importorskip("ray")
    from agents.training.rllib.cluster import ray_cluster

    with ray_cluster(num_cpus=2, log_to_driver=False) as cluster:
        yield cluster


#: the test files that start Ray (the ``ray`` group, sent to a worker first: it is the longest)
RAY_FILES = {
    "tests/agents/evaluation/test_ray_eval.py",
    "tests/agents/training/test_ray_safety.py",
    "tests/agents/training/test_rllib_backend.py",
    "tests/agents/training/test_rllib_selfplay.py",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group each test by its file (the Ray files together) for ``--dist loadgroup``."""
    root = config.rootpath
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            path = item.path.relative_to(root).as_posix()
            group = "ray" if path in RAY_FILES else path
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: item.path.relative_to(root).as_posix() not in RAY_FILES)


#: helper modules, not tests: kept out of ``--doctest-modules`` collection (the OpenSpiel
#: harness imports pyspiel, an optional extra)
collect_ignore = ["helpers.py", "agents/bots/openspiel_peer.py"]

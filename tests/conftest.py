"""Shared test settings: one thread for torch and numpy, a shared Ray cluster, xdist units.

No torch here (a test in ``test_layers.py`` checks that this file stays light): torch
reads ``OMP_NUM_THREADS`` when it is first imported, by whichever test needs it. One
thread, as the CLIs use: models play small batches, and several OpenMP threads slow them
down badly when another process holds the other core.

Under pytest-xdist (``make test`` runs ``-n 2 --dist loadfile --no-loadscope-reorder``)
each test file is one work unit, so its module-scoped fixtures are built once, and the
files that start Ray are one unit: one worker runs them one after another on the shared
cluster, and no two Ray clusters compete for the two cores. (xdist 3.8's ``loadgroup``
groups nothing under pytest 9: it renames ``item._nodeid``, which pytest 9 no longer reads.)
"""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the CLIs: no spinning threads

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def ray_local():
    """One local loopback Ray cluster (2 CPUs) shared by the Ray tests; stopped at the end."""
    pytest.importorskip("ray")
    from agents.cluster.ray import ray_cluster

    with ray_cluster(num_cpus=2, log_to_driver=False) as cluster:
        yield cluster


#: the test files that start Ray (the ``ray`` group, sent to a worker first: it is the longest)
RAY_FILES = {
    "tests/agents/evaluation/test_ray_eval.py",
    "tests/agents/training/test_ray_safety.py",
    "tests/agents/training/test_rllib_backend.py",
    "tests/agents/training/test_rllib_selfplay.py",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The Ray files first: under xdist their work unit starts at once (it is the longest)."""
    root = config.rootpath
    items.sort(key=lambda item: item.path.relative_to(root).as_posix() not in RAY_FILES)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist loadfile``: a work unit per test file, and one for all the Ray files."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class RayTogether(LoadFileScheduling):
        """xdist's ``loadfile``, with the Ray files as one unit (one cluster at a time)."""

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "ray" if path in RAY_FILES else path

    return RayTogether(config, log)


#: one game of every compiled path: the engine's kernels (deal, masks, steps, knocks, the
#: sheet, the keyed streams), the observation encoder, the keyed random policy, the bots'
#: features and the one-game env path
WARM_KERNELS = """
import numpy as np
from hgin_env.engine import RulesConfig, deadwood_after_discard, knock_discards, min_deadwood
from hgin_env.envs.gym_env import HollywoodGinEnv
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

rng = np.random.default_rng(0)
for opponent in ("random", "simple", "expert", "patient", "tempo"):
    env = HollywoodGinVecEnv(n_envs=2, opponent=opponent, mode="series", seed=0,
                             rules=RulesConfig(big_gin_bonus=31))
    env.reset()
    for _ in range(150):
        masks = env.action_masks()
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
one = HollywoodGinEnv(opponent="random")
obs, info = one.reset(seed=0)
for _ in range(60):
    obs, _, done, cut, info = one.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    if done or cut:
        obs, info = one.reset()
hands = np.zeros((2, 52), bool)
hands[:, :11] = True
min_deadwood(hands), deadwood_after_discard(hands), knock_discards(hands, np.array([10, 10]))
"""


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the kernels once, before the xdist workers start (a fresh clone has no cache).

    Otherwise each worker and each subprocess a test starts compiles the same kernels at
    the same time; with the on-disk cache filled first, every later process loads them.
    """
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller did it
        return
    if not getattr(session.config.option, "numprocesses", None):  # one process: it compiles
        return
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-c", WARM_KERNELS], cwd=root, env=env, check=True)


#: helper modules, not tests: kept out of ``--doctest-modules`` collection (the OpenSpiel
#: harness imports pyspiel, an optional extra)
collect_ignore = ["helpers", "agents/bots/openspiel_peer.py"]

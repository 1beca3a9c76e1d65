"""A real two-node Ray cluster on this machine: the quick start's recipe trains on both nodes.

The head and the worker node are separate ``ray start`` processes on 127.0.0.1
(``agents.training.rllib.nodes``), ``train.py --backend rllib --address`` joins them
with two env runners (one CPU per node, so one runner per node), and every process
group is killed at the end, also when an assertion fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

from helpers.processes import is_loopback, sockets  # noqa: E402

from agents.cluster.nodes import loopback_nodes, node_processes, running  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]

#: configs/default.yaml, shortened: a 300-decision imitation of expert, one PPO iteration
#: of 2 env runners x 16 games x 16 steps, a one-series evaluation
SHORT = [
    "total_timesteps=512", "ppo.n_envs=16", "ppo.n_steps=16", "ppo.batch_size=256",
    "ppo.n_epochs=1", "pretrain.samples=300", "pretrain.epochs=1", "eval.every_steps=0",
    "eval.opponents=[random]", "eval.n_series=1", "eval.max_hands_per_series=4",
    "checkpoint.every_steps=0", "progress_bar=false",
]  # fmt: skip

#: run in a fresh interpreter (Ray caches the first auth token a process reads): the
#: cluster's nodes and the node of every env runner actor it has seen, from the GCS
STATE = """
import json, sys, ray
from ray._private.state import actors
from agents.cluster.ray import ray_cluster
with ray_cluster(sys.argv[1], log_to_driver=False):
    nodes = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
    runners = [a["Address"]["NodeID"] for a in actors().values()
               if a["ActorClassName"] == "SingleAgentEnvRunner"]
print(json.dumps({"nodes": nodes, "runners": sorted(runners)}))
"""


def test_the_quick_start_trains_with_env_runners_on_two_loopback_nodes(tmp_path):
    """Two nodes, loopback listeners only; train.py's two env runners run one on each."""
    env = {**os.environ, "HOME": str(tmp_path), "OMP_NUM_THREADS": "1"}
    with loopback_nodes(workers=1, cpus=1) as nodes:
        env.update(nodes.env)
        sets = [arg for s in SHORT + [f"runs_dir={tmp_path / 'runs'}"] for arg in ("--set", s)]
        train = subprocess.run(
            [sys.executable, "train.py", "--backend", "rllib", "--address", nodes.address,
             "--env-runners", "2", "--config", "configs/default.yaml", "--run-name", "two",
             *sets],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=400,
        )  # fmt: skip
        assert train.returncode == 0, train.stderr[-3000:]
        state = subprocess.run(
            [sys.executable, "-c", STATE, nodes.address],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        seen = json.loads(state.stdout.strip().splitlines()[-1])
        pids = node_processes(nodes.groups)
        listening = [s for s in sockets(pids) if s["listen"]]
    assert len(seen["nodes"]) == 2 and sorted(set(seen["runners"])) == seen["nodes"]
    assert listening and all(is_loopback(s["local"]) for s in listening), listening
    run = tmp_path / "runs" / "two"
    assert json.loads((run / "pretrain.json").read_text())["teacher"] == "expert"
    assert (run / "final_model" / "hgin_policy.json").is_file()
    assert not [pid for pid in pids if running(pid)]  # every process of both nodes stopped

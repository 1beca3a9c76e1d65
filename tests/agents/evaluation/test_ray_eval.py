"""Ray-sharded evaluation: shards of a pair or a league merge into exactly the local result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.evaluation import evaluate, league, ray

ROOT = Path(__file__).resolve().parents[3]


def without_timing(result: dict) -> dict:
    """A result's JSON without its wall-clock fields (everything else must match)."""
    out = dict(result)
    for key in ("seconds", "series_per_second", "provenance"):
        out.pop(key, None)
    if "pairs" in out:
        out["pairs"] = [without_timing(p) for p in out["pairs"]]
    return out


@pytest.mark.parametrize(
    "bot",
    [
        "random",
        "ppo-cards",
        pytest.param("simple"),
        pytest.param("expert"),
    ],
)
def test_a_sharded_pair_equals_the_local_evaluation(ray_local, bot):
    """Three shards give the local run's JSON, intervals and steps included (timing aside).

    Four series: the shards are uneven (two series, one, one).
    """
    local = evaluate(bot, "ppo-cards", 4, seed=5, progress=False)
    sharded = evaluate(bot, "ppo-cards", 4, seed=5, progress=False, runner=ray(shards=3))
    assert without_timing(sharded.to_dict()) == without_timing(local.to_dict())


def test_duplicate_mode_shards_equal_the_local_run(ray_local):
    """Duplicate mode's replayed deal sequences (clusters) survive the split and merge."""
    local = evaluate("ppo-cards", "random", 5, seed=11, duplicate=True, progress=False)
    sharded = evaluate(
        "ppo-cards", "random", 5, seed=11, duplicate=True, progress=False, runner=ray(shards=4)
    )
    assert sharded.n_series == 10
    assert without_timing(sharded.to_dict()) == without_timing(local.to_dict())


def test_a_different_seed_gives_a_different_result(ray_local):
    """The comparison above can fail: another seed plays other deals."""
    local = evaluate("ppo-cards", "random", 6, seed=1, progress=False)
    sharded = evaluate("ppo-cards", "random", 6, seed=2, progress=False, runner=ray(shards=2))
    assert without_timing(sharded.to_dict()) != without_timing(local.to_dict())


def test_a_sharded_league_equals_the_local_league(ray_local):
    """Every pair, the matrices and the Bradley-Terry ratings match the local league."""
    players = ["random", "ppo-cards"]
    local = league(players, 6, seed=3, progress=False, n_rating_draws=50)
    sharded = league(players, 6, seed=3, n_rating_draws=50, progress=False, runner=ray(shards=2))
    assert without_timing(sharded.to_dict()) == without_timing(local.to_dict())


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run evaluate.py in a fresh interpreter from the repository root."""
    return subprocess.run(
        [sys.executable, "evaluate.py", *args, "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def test_evaluate_cli_joins_a_cluster_and_writes_the_local_json(ray_local, tmp_path):
    """``evaluate.py A B --ray HOST:PORT`` joins the running cluster; its JSON is the local one."""
    out = tmp_path / "sharded.json"
    # two bots: the new driver and its workers need no torch (the model pairs are above)
    proc = run_cli("expert", "simple", "--series", "2", "--seed", "7", "--json", str(out),
                   "--ray", ray_local.address)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    local = evaluate("expert", "simple", 2, seed=7, progress=False)
    assert without_timing(json.loads(out.read_text())) == without_timing(local.to_dict())


def test_joining_with_a_wrong_token_is_one_clear_error(ray_local):
    """A driver whose auth token the cluster rejects exits with code 2 and one line."""
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64}
    # Ray retries a rejected GCS connection once a second, 20 times by default: two will do
    env["RAY_NUM_REDIS_GET_RETRIES"] = "2"
    proc = run_cli("random", "random", "--series", "2", "--ray", ray_local.address, env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith(f"error: cannot join the Ray cluster at {ray_local.address}")
    assert "Traceback" not in proc.stderr


def test_joining_an_address_where_nothing_listens_fails_at_once(tmp_path):
    """``--ray 127.0.0.1:PORT`` with no cluster there: one line, exit code 2, no long retry."""
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = run_cli("random", "random", "--series", "2", "--ray", f"127.0.0.1:{port}")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .startswith(
            f"error: cannot join the Ray cluster at 127.0.0.1:{port}: nothing answers there"
        )
    )

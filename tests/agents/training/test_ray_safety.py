"""A local Ray cluster is safe by default: loopback only, no dashboard, nothing left behind.

The cluster runs in a fresh interpreter (its own HOME and temporary folder) whose body
records what it sees and then raises, so every check below also proves that the cluster
is stopped and cleaned up when the code using it fails.
"""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.processes import cmdline, decode_address, is_loopback

pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = r"""
import json, os, sys
sys.path.insert(0, "tests")
from helpers.processes import cmdline, descendants, sockets
from agents.cluster.ray import ray_cluster
import ray

@ray.remote
def probe():
    from ray._raylet import AuthenticationMode, get_authentication_mode
    return {"usage": os.environ.get("RAY_USAGE_STATS_ENABLED"),
            "token_auth": get_authentication_mode() == AuthenticationMode.TOKEN}

try:
    with ray_cluster(num_cpus=1, log_to_driver=False) as cluster:
        seen = {"task": ray.get(probe.remote()), "temp_dir": str(cluster.temp_dir)}
        pids = descendants(os.getpid())
        seen["pids"] = pids
        seen["programs"] = {str(p): cmdline(p) for p in pids}
        seen["sockets"] = sockets(pids)
        json.dump(seen, open(sys.argv[1], "w"))
        raise RuntimeError("the code using the cluster failed")
except RuntimeError as exc:
    print("raised:", exc)
print("initialized after:", ray.is_initialized())
with ray_cluster(num_cpus=1, log_to_driver=False):
    print("second cluster:", ray.get(probe.remote())["token_auth"])
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Run the script once with its own HOME; return what it saw, its output and its HOME."""
    home = tmp_path_factory.mktemp("home")
    seen_file = home.parent / "seen.json"
    env = {**os.environ, "HOME": str(home)}
    for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"):
        env.pop(key, None)  # the defaults a user starts from
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(seen_file)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(seen_file.read_text()), proc.stdout, home


def test_decode_address_reads_proc_net_forms():
    """The /proc/net decoder reads IPv4, IPv6 and IPv4-mapped entries (guards the checks)."""
    assert decode_address("0100007F:1F90") == "127.0.0.1"
    assert decode_address("00000000000000000000000000000000:1F90") == "::"
    mapped = decode_address("0000000000000000FFFF00000100007F:0050")
    assert ipaddress.ip_address(mapped) == ipaddress.ip_address("::ffff:127.0.0.1")
    assert not is_loopback("::") and not is_loopback("0.0.0.0") and not is_loopback("192.0.2.2")
    assert is_loopback("::ffff:127.0.0.1") and is_loopback("::1")


def test_every_ray_listener_is_on_loopback(run):
    """GCS, raylet, agents, workers and the driver listen on 127.0.0.1 only."""
    seen, _, _ = run
    listeners = [s for s in seen["sockets"] if s["listen"]]
    owners = " ".join(seen["programs"][str(s["pid"])] for s in listeners)
    assert "gcs_server" in owners and "raylet" in owners
    assert len(listeners) >= 3
    assert [s for s in listeners if not is_loopback(s["local"])] == []


def test_no_ray_traffic_leaves_loopback(run):
    """Every connected socket of the Ray processes has both ends on loopback."""
    seen, _, _ = run
    connected = [
        s for s in seen["sockets"] if not s["listen"] and s["remote"] not in ("0.0.0.0", "::")
    ]
    assert connected, "no connections seen: the check would be empty"
    assert [
        s for s in connected if not (is_loopback(s["local"]) and is_loopback(s["remote"]))
    ] == []


def test_dashboard_and_usage_stats_are_off(run):
    """No dashboard web UI is served, and the workers see usage statistics disabled.

    With ``include_dashboard=False`` Ray still runs a headless ``dashboard.py --minimal
    --disable-frontend`` (its job and usage-stats modules); it listens nowhere.
    """
    seen, _, _ = run
    assert seen["task"]["usage"] == "0"
    heads = {p: c for p, c in seen["programs"].items() if "dashboard/dashboard.py" in c}
    assert all("--disable-frontend" in c and "--minimal" in c for c in heads.values())
    assert [s for s in seen["sockets"] if s["listen"] and str(s["pid"]) in heads] == []


def test_token_auth_is_on_and_no_token_file_is_written(run):
    """Token authentication is on, yet nothing is written under HOME (no ~/.ray/auth_token)."""
    seen, _, home = run
    assert seen["task"]["token_auth"] is True
    assert list(home.iterdir()) == []


def test_a_second_local_cluster_in_the_same_process_starts(run):
    """After one cluster stopped, the next one starts and runs a task (same process token)."""
    _, stdout, _ = run
    assert "second cluster: True" in stdout


def test_a_failing_body_still_stops_the_cluster_and_removes_its_folder(run):
    """The body raised; Ray was shut down, its processes ended and its session folder removed."""
    seen, stdout, _ = run
    assert "raised: the code using the cluster failed" in stdout
    assert "initialized after: False" in stdout
    assert not Path(seen["temp_dir"]).exists()
    ray_pids = [
        int(p) for p, c in seen["programs"].items() if "ray" in c and int(p) != seen["pids"][0]
    ]
    assert ray_pids
    deadline = time.monotonic() + 60  # processes exit asynchronously; wait, do not time them
    while any(cmdline(p) for p in ray_pids) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert [p for p in ray_pids if cmdline(p)] == []

"""Several Ray nodes on one machine, every one on loopback: a multi-node rehearsal.

``python -m agents.cluster.nodes start ...`` is Ray's own ``ray start`` (same
options) with one change: ``--node-ip-address 127.0.0.1`` is kept. Plain ``ray start``
on Linux swaps a loopback address for the machine's interface address
(``ray._private.services.resolve_ip_for_localhost``) and its servers then listen on
every interface; Ray's single-node switch (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``)
keeps the address but refuses to start a worker node. Here the head runs with the
switch and a worker node without it, both keeping 127.0.0.1, so every listener of
every node stays on loopback (``tests/agents/training/test_rllib_multinode.py`` checks
the sockets). Real machines use ``ray start`` with their private address instead
(``docs/rllib.md``, A real cluster).

``loopback_nodes(workers)`` starts a head and ``workers`` worker nodes this way, each in
its own process group with its own ports, yields the head's address, and kills every
group at the end, also when the code using the cluster fails.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from agents.cluster.ray import REPO_ROOT, RayClusterError

#: Ray's single-node switch (see the module docstring)
SINGLE_NODE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the OS's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LoopbackNodes:
    """A running rehearsal cluster.

    Attributes:
        address: the head's GCS address (``127.0.0.1:PORT``), for ``--address``.
        env: the environment a driver needs to join it (the auth token).
        groups: the process group of each node (head first).
        temp_dir: the nodes' session folder.
    """

    address: str
    env: dict[str, str]
    temp_dir: Path
    groups: list[int] = field(default_factory=list)


def node_command(head: bool, address: str, cpus: int, temp_dir: Path) -> list[str]:
    """The command line that starts one node (head, or a worker joining ``address``)."""
    own = ["--num-cpus", str(cpus), "--node-ip-address", "127.0.0.1", "--disable-usage-stats"]
    own += ["--dashboard-agent-listen-port", str(free_port())]
    if head:
        port = address.rpartition(":")[2]
        own += ["--head", "--port", port, "--include-dashboard=false", "--temp-dir", str(temp_dir)]
        own += ["--ray-client-server-port", str(free_port())]
    else:
        own += ["--address", address]
    return [sys.executable, "-m", "agents.cluster.nodes", "start", *own]


@contextmanager
def loopback_nodes(
    workers: int = 1, cpus: int = 1, timeout: float = 120.0
) -> Iterator[LoopbackNodes]:
    """Start a head and ``workers`` worker nodes on 127.0.0.1; stop them all at the end.

    Args:
        workers: worker nodes besides the head.
        cpus: CPUs each node offers.
        timeout: seconds each ``start`` may take.

    Raises:
        RayClusterError: a node failed to start (its output's last line).
    """
    temp_dir = Path(tempfile.mkdtemp(prefix="hgin-nodes-"))
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="token")
    env.update(RAY_AUTH_TOKEN=secrets.token_hex(32), PYTHONPATH=str(REPO_ROOT))
    nodes = LoopbackNodes(f"127.0.0.1:{free_port()}", {}, temp_dir)
    nodes.env = {k: env[k] for k in ("RAY_USAGE_STATS_ENABLED", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
    try:
        for i in range(workers + 1):
            command = node_command(i == 0, nodes.address, cpus, temp_dir)
            node_env = dict(env, **{SINGLE_NODE: "0" if i == 0 else "1"})
            proc = subprocess.Popen(
                command, env=node_env, cwd=REPO_ROOT, start_new_session=True,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
            nodes.groups.append(proc.pid)
            try:
                out, _ = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise RayClusterError(f"a Ray node did not start within {timeout:.0f} s") from None
            if proc.returncode:
                last = out.strip().splitlines()[-1] if out.strip() else ""
                raise RayClusterError(f"a Ray node failed to start: {last}")
        yield nodes
    finally:
        stop_groups(nodes.groups)
        shutil.rmtree(temp_dir, ignore_errors=True)


def stop_groups(groups: list[int], grace: float = 10.0) -> None:
    """Stop every node: SIGTERM its process group and the worker processes below it.

    Ray's raylet starts its workers (``ray::IDLE``, the env runners) in process groups of
    their own, so the processes below the groups' members are signalled too; whatever is
    left after ``grace`` seconds gets SIGKILL.
    """
    pids = node_processes(groups)
    for group in groups:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGTERM)
    for pid in pids:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _alive(pids):
        time.sleep(0.2)
    for pid in pids:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def node_processes(groups: list[int]) -> list[int]:
    """The live processes of the given process groups and every process below them."""
    parent, group = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with suppress(OSError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            pid = int(stat.parent.name)
            parent[pid], group[pid] = int(fields[1]), int(fields[3])
    found = {pid for pid, g in group.items() if g in groups}
    grew = True
    while grew:
        below = {pid for pid, ppid in parent.items() if ppid in found} - found
        found |= below
        grew = bool(below)
    return sorted(found)


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not exited (a zombie has)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _alive(pids: list[int]) -> bool:
    return any(running(pid) for pid in pids)


def main(argv: list[str] | None = None) -> None:
    """Ray's ``ray`` command line, keeping a loopback ``--node-ip-address`` as it is."""
    from ray._private import services
    from ray.scripts.scripts import main as ray_main

    services.resolve_ip_for_localhost = lambda host: host  # type: ignore[assignment]
    sys.argv = ["ray", *(sys.argv[1:] if argv is None else argv)]
    ray_main()


if __name__ == "__main__":
    main()

"""Start or join a Ray cluster for the project: loopback-only by default, code shipped to it.

``ray_cluster(address)`` is the one way the project talks to Ray (``train.py --backend
rllib``, ``evaluate.py --ray``). With no address it starts a local cluster that is safe by
default:

- every Ray process listens on 127.0.0.1 only. On Linux ``--node-ip-address=127.0.0.1``
  is not enough: Ray replaces a loopback address by the machine's interface address and
  its servers then bind every interface. ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` (Ray's
  switch for "this is a single-node cluster") keeps the node address on loopback, and
  then every listener stays there (``tests/agents/training/test_ray_safety.py`` checks the sockets);
- the dashboard and usage statistics are off (``include_dashboard=False``,
  ``RAY_USAGE_STATS_ENABLED=0``);
- token authentication is on with a random token held in the environment
  (``RAY_AUTH_MODE=token``, ``RAY_AUTH_TOKEN``), so nothing is written to
  ``~/.ray/auth_token`` (a plain ``ray.init()`` writes one there, and later drivers
  joining an older token-less cluster then fail with ``InvalidAuthToken``); a user who
  sets ``RAY_AUTH_MODE`` keeps their own choice;
- the session folder lives in a fresh temporary directory, removed at the end.

With ``address`` (``auto`` or ``HOST:PORT``) it joins a running cluster as it is.
Either way the driver's job carries a runtime environment whose ``working_dir`` is this
checkout's code (``agents/``, ``hgin_env/``, ``models/``, ``configs/``), so no node
needs a checkout, only the same Python packages; the workers run with one thread for
torch and numpy.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the checkout's root: what the runtime environment ships to the workers
REPO_ROOT = Path(__file__).resolve().parents[2]
#: shipped to the workers: the importable code, the shipped models and the configs
SHIPPED = ("agents", "hgin_env", "models", "configs")
#: one thread per worker process for torch and numpy, idle OpenMP threads asleep rather
#: than spinning (as the CLIs set them; an env runner sets ``ppo.torch_threads`` itself)
WORKER_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
}
#: what a local cluster sets in the driver's environment while it runs
LOCAL_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


#: host names of a cluster joined on this machine's loopback
LOOPBACK = ("127.0.0.1", "localhost")

#: the local clusters' token: one per process, because Ray's C++ token loader caches the
#: first token it reads (a second cluster with a new token then fails with InvalidAuthToken)
_TOKEN = secrets.token_hex(32)


class RayClusterError(RuntimeError):
    """Ray is missing, or the cluster could not be started or joined (one-line message)."""


@dataclass(frozen=True)
class RayCluster:
    """A connected cluster.

    Attributes:
        address: the GCS address (``HOST:PORT``) the driver is connected to.
        local: True when ``ray_cluster`` started it (it stops with the context).
        temp_dir: the local cluster's temporary folder (None when joined).
        num_cpus: CPUs the cluster offers.
    """

    address: str
    local: bool
    temp_dir: Path | None
    num_cpus: int


def runtime_env() -> dict[str, Any]:
    """The runtime environment of the project's Ray jobs (code and thread settings)."""
    keep = set(SHIPPED)
    excludes = [f"/{p.name}" for p in REPO_ROOT.iterdir() if p.name not in keep and not p.is_file()]
    excludes += ["__pycache__", "*.pyc"]
    return {"working_dir": str(REPO_ROOT), "excludes": excludes, "env_vars": dict(WORKER_ENV)}


def import_ray() -> Any:
    """``import ray``, or a ``RayClusterError`` naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise RayClusterError(
            "Ray is not installed: pip install -e '.[rllib]' (ray[rllib]==2.60.*)"
        ) from exc
    return ray


@contextmanager
def _local_environment() -> Iterator[None]:
    """Set the local cluster's environment variables (see the module docstring); restore."""
    changes = dict(LOCAL_ENV)
    if "RAY_AUTH_MODE" not in os.environ:
        changes.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=_TOKEN)
    saved = {key: os.environ.get(key) for key in changes}
    os.environ.update(changes)
    import_ray()
    from ray._private import ray_constants
    from ray._raylet import Config  # type: ignore[attr-defined]

    # Both are read once: the constant when Ray is imported, the auth mode when its
    # config is first loaded; a driver that imported Ray earlier must see the new values.
    single_node = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    Config.initialize("")
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = single_node
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        Config.initialize("")


@contextmanager
def _single_node() -> Iterator[None]:
    """Ray's single-node switch in this driver while it is connected (then restored).

    Joining a cluster on this machine's loopback (``agents.cluster.nodes``), the
    driver keeps ``127.0.0.1``: with the switch off, Ray swaps the address for the
    machine's interface address and waits for a GCS there.
    """
    from ray._private import ray_constants

    saved = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved


@contextmanager
def ray_cluster(
    address: str | None = None,
    num_cpus: int | None = None,
    log_to_driver: bool = True,
) -> Iterator[RayCluster]:
    """Start a local loopback cluster (``address=None``) or join one; shut down at the end.

    Args:
        address: None for a new local cluster, ``auto`` for the cluster started on this
            machine by ``ray start``, or ``HOST:PORT`` of a cluster's head.
        num_cpus: CPUs of a local cluster (default: the machine's).
        log_to_driver: forward the workers' output to this process.

    Yields:
        The ``RayCluster``.

    A driver already connected to Ray (a notebook, a test fixture) keeps its connection:
    it is used as it is and left open.

    Raises:
        RayClusterError: Ray is not installed, or the cluster could not be started or
            joined.
    """
    ray = import_ray()
    if ray.is_initialized():
        yield _connected(ray, local=False, temp_dir=None)
        return
    kwargs: dict[str, Any] = {
        "runtime_env": runtime_env(),
        "log_to_driver": log_to_driver,
        "include_dashboard": False,
        "logging_level": logging.WARNING,
    }
    if address is not None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        check_reachable(address)
        joining = f"cannot join the Ray cluster at {address}"
        loopback = address.rpartition(":")[0].strip("[]") in LOOPBACK
        with (
            _single_node() if loopback else nullcontext(),
            _session(ray, joining, None, address=address, **kwargs) as cluster,
        ):
            yield cluster
        return
    temp_dir = Path(tempfile.mkdtemp(prefix="hgin-ray-"))
    try:
        local = {"num_cpus": num_cpus, "_temp_dir": str(temp_dir), "_node_ip_address": "127.0.0.1"}
        starting = "cannot start a local Ray cluster"
        with _local_environment(), _session(ray, starting, temp_dir, **local, **kwargs) as cluster:
            yield cluster
    finally:
        _remove(temp_dir)


@contextmanager
def _session(ray: Any, failure: str, temp_dir: Path | None, **init: Any) -> Iterator[RayCluster]:
    """Connect with ``ray.init(**init)``; yield the cluster; shut Ray down at the end.

    A failed ``ray.init`` becomes one ``RayClusterError``, ``"<failure>: <why>"``. The
    cluster is the local one when it has a ``temp_dir``.
    """
    try:
        ray.init(**init)
    except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; all mean "cannot connect"
        raise RayClusterError(f"{failure}: {_first_line(exc)}") from exc
    try:
        yield _connected(ray, local=temp_dir is not None, temp_dir=temp_dir)
    finally:
        ray.shutdown()


def _remove(folder: Path, attempts: int = 20) -> None:
    """Delete the session folder, retrying for up to ~10 s until it is gone.

    Ray's processes exit (and stop writing there) asynchronously after ``ray.shutdown``.
    """
    for _ in range(attempts):
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            return
        time.sleep(0.5)


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once when nothing listens at ``HOST:PORT``.

    ``ray.init`` would retry for minutes; ``auto`` and other forms are left to Ray.

    Raises:
        RayClusterError: the connection is refused or times out.
    """
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise RayClusterError(
            f"cannot join the Ray cluster at {address}: nothing answers there "
            f"({exc.strerror or exc})"
        ) from exc


def _connected(ray: Any, local: bool, temp_dir: Path | None) -> RayCluster:
    context = ray.get_runtime_context()
    address = context.gcs_address
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return RayCluster(address=address, local=local, temp_dir=temp_dir, num_cpus=cpus)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__

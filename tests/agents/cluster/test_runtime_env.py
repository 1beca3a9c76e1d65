"""What the Ray runtime environment ships to the workers (no cluster is started)."""

from __future__ import annotations

from pathlib import Path

from agents.cluster.ray import REPO_ROOT, SHIPPED, runtime_env

CHECKOUT = Path(__file__).resolve().parents[3]


def test_the_working_dir_is_the_checkout() -> None:
    """The runtime environment ships this checkout's root, not the folder above it."""
    env = runtime_env()
    assert Path(env["working_dir"]) == REPO_ROOT == CHECKOUT
    assert (REPO_ROOT / "pyproject.toml").is_file()


def test_every_shipped_folder_is_shipped_and_nothing_else() -> None:
    """The code, models and configs go to the workers; other top-level folders are left out."""
    excludes = set(runtime_env()["excludes"])
    for name in SHIPPED:
        assert (REPO_ROOT / name).is_dir() and f"/{name}" not in excludes
    assert "/tests" in excludes and "/docs" in excludes


def test_the_workers_run_one_thread_with_idle_openmp_threads_asleep() -> None:
    """Each worker gets one BLAS/OpenMP thread and passive OpenMP waiting, as the CLIs set."""
    env_vars = runtime_env()["env_vars"]
    assert env_vars["OMP_NUM_THREADS"] == "1"
    assert env_vars["OMP_WAIT_POLICY"] == "PASSIVE"

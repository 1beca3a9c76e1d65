"""The console scripts and the root scripts run the same CLIs; a shadowing ``agents`` is named."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize("name", ["train", "evaluate", "play"])
def test_console_script_and_root_script_print_the_same_help(name):
    """``hgin-<name> --help`` and ``python <name>.py --help`` print the same usage."""
    script = BIN / f"hgin-{name}"
    if not script.exists():
        pytest.skip(f"{script} is not installed (pip install -e .)")
    console = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    root = subprocess.run(
        [sys.executable, str(ROOT / f"{name}.py"), "--help"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert console.returncode == root.returncode == 0
    # past "usage: <prog>", up to the examples (which name the program as it was called)
    options = lambda text: text[text.index("options:") : text.index("examples:")]  # noqa: E731
    assert options(console.stdout) == options(root.stdout)


def test_a_shadowing_agents_package_stops_the_cli_with_a_clear_message(tmp_path):
    """Another top-level ``agents`` first on the path (the OpenAI Agents SDK's name) is named."""
    fake = tmp_path / "agents"
    fake.mkdir()
    (fake / "__init__.py").write_text('"""Not hollywood-gin\'s agents package."""\n')
    proc = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
         "import hgin_cli.evaluate"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "is not hollywood-gin's" in proc.stderr and str(fake) in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("given", "expected"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_the_clis_make_idle_openmp_threads_sleep_unless_told_otherwise(given, expected):
    """Importing a CLI sets ``OMP_WAIT_POLICY=PASSIVE`` before torch loads; a set value stays."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    proc = subprocess.run(
        [sys.executable, "-c", "import os, hgin_cli.train; print(os.environ['OMP_WAIT_POLICY'])"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == expected


#: allocate 24 blocks of 1 MiB, write them and free them, 20 times after 3 warm-up rounds,
#: then print the page faults per round (glibc hands a freed heap top back to the OS and
#: faults it in again unless told to keep it)
FAULTS = """
import resource, sys
if sys.argv[1] == "cli":
    import hgin_cli.train
import numpy as np
def round_():
    blocks = [np.ones(1 << 17) for _ in range(24)]
    del blocks
for _ in range(3):
    round_()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    round_()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
    reason="mallopt is glibc's",
)
def test_the_clis_keep_freed_memory_instead_of_faulting_it_in_again():
    """Under a CLI, freeing and reallocating megabytes costs no new page faults."""

    def faults(mode: str) -> float:
        proc = subprocess.run(
            [sys.executable, "-c", FAULTS, mode],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return float(proc.stdout)

    plain, cli = faults("plain"), faults("cli")
    assert plain > 1000  # 24 MiB handed back and faulted in every round
    assert cli < plain / 10

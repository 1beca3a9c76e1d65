"""A run folder's safety: one writer, SIGTERM saves, one final evaluation, bounded input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.training import TINY, scalars, tiny_config, tiny_yaml

import hgin_cli.train as train_cli
from agents.training.checkpoint import list_checkpoints
from agents.training.config import ConfigError, build_config, load_config
from agents.training.run import make_run_dir
from agents.training.sb3 import runner
from agents.training.sb3.runner import train

ROOT = Path(__file__).resolve().parents[3]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def hold_lock(run_dir: Path) -> subprocess.Popen:
    """Another process holding the run folder's lock (until killed)."""
    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from agents.training.run import RunLock
        lock = RunLock(Path({str(run_dir)!r}))
        print("locked", flush=True)
        time.sleep(600)
    """)
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_writer_is_refused_and_a_killed_ones_lock_never_blocks(tmp_path) -> None:
    """While another process holds the folder, --resume is one line naming its PID.

    The folder holds a config and no checkpoint: past the lock, resuming it fails on
    the missing checkpoint, so which error comes shows whether the lock let it pass.
    """
    from agents.training.run import LOCK_FILE, RunLock

    run = tmp_path / "one"
    run.mkdir()
    (run / "config.yaml").write_text(tiny_config(tmp_path).to_yaml())
    holder = hold_lock(run)
    try:
        with pytest.raises(
            ConfigError, match=rf"in use by another training process \(pid {holder.pid}\)"
        ):
            train(resume=run)
    finally:
        holder.kill()  # SIGKILL: the OS drops its lock
        holder.wait()
    assert (run / LOCK_FILE).read_text().strip() == str(holder.pid)  # a stale file stays
    with pytest.raises(runner.CheckpointError, match="no checkpoint"):
        train(resume=run)
    RunLock(run).release()  # the failed resume released the lock too


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_sigterm_to_the_process_group_writes_a_checkpoint_and_exits_143(tmp_path) -> None:
    """SIGTERM to train.py and its env workers (as timeout sends it): Ctrl-C's path.

    The trainer writes a checkpoint at the step it reached, prints the resume command
    and exits with 143; the workers ignore the signal and are closed by the trainer
    (none is left), and --resume continues from that checkpoint.
    """
    config = tiny_yaml(
        tmp_path, total_timesteps=10_000_000, ppo={**TINY["ppo"], "env_workers": 2},
        checkpoint={"every_steps": 10_000_000, "keep": 2},
    )  # fmt: skip
    run = tmp_path / "runs" / "term"
    cmd = [sys.executable, str(ROOT / "train.py"), "--config", str(config), "--run-name", "term"]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.time() + 120
    while not list((run / "tb").glob("events.out.tfevents.*")) or len(descendants(proc.pid)) < 3:
        assert time.time() < deadline and proc.poll() is None, "training never started"
        time.sleep(0.2)
    time.sleep(2.0)
    workers = descendants(proc.pid)
    os.killpg(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 143, out
    assert "terminated (SIGTERM) at step" in out and "continue with:" in out, out
    assert "Traceback" not in out
    (checkpoint,) = list_checkpoints(run / "checkpoints")
    assert int(checkpoint.stem.split("_")[1]) > 0
    deadline = time.time() + 10
    while any(alive(pid) for pid in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if alive(pid)], "an env worker outlived the trainer"


class Killed(BaseException):
    """Stands for a SIGKILL: no handler of the trainer runs."""


def test_a_kill_during_the_final_model_records_the_final_evaluation_once(
    tmp_path, monkeypatch
) -> None:
    """Killed while writing final_model.zip, then resumed: one evaluation at the last step."""
    config = tiny_config(tmp_path, "eval.every_steps=0", "checkpoint.every_steps=512")

    def killed(self):
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(runner.SB3Session, "save_final", killed)
        with pytest.raises(Killed):
            train(config, run_name="final")
    run = tmp_path / "final"
    assert not (run / "final_model.zip").exists()
    result = train(resume=run)
    assert result.steps == 1024 and (run / "final_model.zip").exists()
    history = [e["steps"] for e in json.loads((run / "eval.json").read_text())["history"]]
    assert history == [1024]
    found = scalars(run)
    for tag in [t for t in found if t.startswith("eval/")]:
        assert found[tag] == [1024], (tag, found[tag])


# ---------------------------------------------------------------------- bounded input
@pytest.mark.parametrize(
    ("name", "reason"),
    [("x" * 300, "is 300 bytes long; a folder name is at most 255"),
     ("run\udcff", "must be valid UTF-8")],
)  # fmt: skip
def test_a_run_name_past_the_filesystem_is_one_line_before_any_folder(
    tmp_path, name, reason, capsys
) -> None:
    """A 300-character or non-UTF-8 --run-name: one line, exit 2, no runs folder."""
    config = tiny_yaml(tmp_path)
    assert train_cli.main(["--config", str(config), "--run-name", name]) == 2
    err = capsys.readouterr().err
    assert reason in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "runs").exists()
    with pytest.raises(ConfigError, match=reason):
        make_run_dir(tiny_config(tmp_path / "lib"), name)
    assert not (tmp_path / "lib").exists()


def test_a_long_experiment_name_is_refused() -> None:
    """A 250-character experiment would make a folder name past 255 bytes."""
    with pytest.raises(ConfigError, match="experiment is 250 bytes long; it is at most 200"):
        build_config({"experiment": "e" * 250})


def test_n_envs_past_the_memory_is_refused_before_anything(tmp_path, capsys) -> None:
    """--set ppo.n_envs=1e9: one line with the limit, exit 2, no run folder."""
    config = tiny_yaml(tmp_path)
    status = train_cli.main(["--config", str(config), "--set", "ppo.n_envs=1e9"])
    err = capsys.readouterr().err
    assert status == 2 and "ppo.n_envs 1,000,000,000 needs about" in err
    assert "holds at most" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


def laughs(levels: int = 9) -> str:
    """A "billion laughs": each level an anchored list of nine aliases of the one before."""
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [(laughs(), "expands to over 20,000 values"),
     ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested over 64 levels deep"),
     ("a: &a [1, *a]\n", "repeats a value that holds it")],
)  # fmt: skip
def test_a_yaml_bomb_is_one_line_at_once(tmp_path, text, reason) -> None:
    """Nested aliases, deep nesting and a recursive alias: refused fast, in a file or --set."""
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    start = time.perf_counter()
    with pytest.raises(ConfigError, match=reason) as info:
        load_config(path)
    assert len(str(info.value).splitlines()) == 1 and len(str(info.value)) < 300
    value = (
        text.split(": ", 1)[1] if text.count("\n") == 1 else "{" + text.replace("\n", ", ") + "}"
    )
    with pytest.raises(ConfigError, match=reason):
        load_config(None, [f"ppo.net_arch={value}"])
    assert time.perf_counter() - start < 5


def test_an_error_message_never_expands_a_big_value() -> None:
    """A wrong value of 10,000 entries is quoted in a few dozen characters."""
    with pytest.raises(ConfigError) as info:
        load_config(None, ["seed=[" + ", ".join(["abc"] * 9000) + "]"])
    assert len(str(info.value)) < 300, str(info.value)

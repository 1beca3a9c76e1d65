"""The run folder: resume after a kill, cleaning, Ctrl-C, atomic writes."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from helpers.training import TINY, scalars, tiny_config, tiny_yaml
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import hgin_cli.train as train_cli
from agents.training.checkpoint import (
    TrainState,
    atomic_write_text,
    clean_run_folder,
    list_checkpoints,
    write_checkpoint,
)
from agents.training.config import ConfigError, build_config
from agents.training.run import make_run_dir
from agents.training.sb3 import pretrain as pretrain_module
from agents.training.sb3 import runner
from agents.training.sb3.runner import train

ROOT = Path(__file__).resolve().parents[3]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def killed_and_resumed(tmp_path_factory):
    """A tiny run stopped as if killed after its 768 evaluation, then resumed from 512.

    The first session ran to 1024 (evaluations every 256, checkpoints every 512). To
    stand for a SIGKILL after the 1024 evaluation and before its checkpoint, the 1024
    checkpoint loses its json (killed between the two writes) and the final model goes;
    temporary files of interrupted writes and an orphan json of an interrupted pruning
    are left. The stopped session's best (eval.json, best_model.zip) is set to 1.0 at
    step 768, which no evaluation can beat, and the 512 checkpoint's recorded best to
    -1.0, below any score (the killed session found its best after the checkpoint).
    """
    runs = tmp_path_factory.mktemp("killed")
    config = tiny_config(runs, "eval.every_steps=256", "opponents.selfplay.enabled=false")
    run = train(config, run_name="killed").run_dir
    folder = run / "checkpoints"
    (folder / "ckpt_000000001024.json").unlink()
    (run / "final_model.zip").unlink()
    data = json.loads((run / "eval.json").read_text())
    entry = next(e for e in data["history"] if e["steps"] == 768)
    entry["value"] = 1.0
    data["best"] = {**entry, "model": "best_model.zip"}
    (run / "eval.json").write_text(json.dumps(data))
    state = json.loads((folder / "ckpt_000000000512.json").read_text())
    state["best_metric"] = -1.0
    (folder / "ckpt_000000000512.json").write_text(json.dumps(state))
    leftovers = [
        folder / ".ckpt_000000001280.zip.k3x9_q2a.tmp",
        folder / "ckpt_000000000256.json",  # orphan of a pruning cut short
        run / ".best_model.zip.0a1b2c3d.tmp",
        run / ".eval.json.zz_9y8x7.tmp",
    ]
    for path in leftovers:
        path.write_bytes(b"partial")
    best_before = _digest(run / "best_model.zip")
    events_before = sorted(p.name for p in (run / "tb").glob("events.out.tfevents.*"))
    result = train(resume=run, overrides=["total_timesteps=1024"])
    return {
        "run": run,
        "result": result,
        "best_before": best_before,
        "leftovers": leftovers,
        "events_before": events_before,
    }


def test_resume_keeps_a_better_best_model(killed_and_resumed) -> None:
    """best_model.zip stays the stopped session's (1.0) and eval.json's best still names it."""
    run = killed_and_resumed["run"]
    assert _digest(run / "best_model.zip") == killed_and_resumed["best_before"]
    data = json.loads((run / "eval.json").read_text())
    assert data["best"]["value"] == 1.0 and data["best"]["steps"] == 768
    assert data["best"]["from_stopped_session"] is True


def test_resume_keeps_one_increasing_eval_history(killed_and_resumed) -> None:
    """eval.json's history drops the stopped session's entries past 512: 256, 512, 768, 1024."""
    data = json.loads((killed_and_resumed["run"] / "eval.json").read_text())
    assert [e["steps"] for e in data["history"]] == [256, 512, 768, 1024]
    assert data["latest"]["steps"] == 1024 and killed_and_resumed["result"].steps == 1024


def test_resume_removes_what_the_killed_session_left(killed_and_resumed) -> None:
    """Temporary files, the orphan json and the zip without its json are gone."""
    run = killed_and_resumed["run"]
    for path in killed_and_resumed["leftovers"]:
        assert not path.exists(), path
    names = sorted(p.name for p in (run / "checkpoints").iterdir())
    assert names == [
        "ckpt_000000000512.json", "ckpt_000000000512.zip",
        "ckpt_000000001024.json", "ckpt_000000001024.zip",
    ]  # fmt: skip


def _steps_by_tag(accumulator: EventAccumulator) -> dict[str, list[int]]:
    return {t: [e.step for e in accumulator.Scalars(t)] for t in accumulator.Tags()["scalars"]}


def test_tensorboard_steps_never_go_back_after_resume(killed_and_resumed) -> None:
    """Read as a folder and file by file, every scalar tag has strictly increasing steps."""
    run = killed_and_resumed["run"]
    folder = EventAccumulator(str(run / "tb"))
    folder.Reload()
    per_file = scalars(run)  # file by file, oldest file first
    for found in (_steps_by_tag(folder), per_file):
        for tag, steps in found.items():
            assert steps == sorted(set(steps)), (tag, steps)
    assert per_file["eval/hand_win_rate/random"] == [256, 512, 768, 1024]
    assert per_file["train/value_loss"] == [256, 512, 768, 1024]


@pytest.mark.slow
def test_sigkill_then_resume_end_to_end(tmp_path: Path) -> None:
    """Kill -9 of ``python train.py`` past its last checkpoint, then --resume: one record."""
    config = tiny_yaml(
        tmp_path, total_timesteps=10_000_000, eval={**TINY["eval"], "every_steps": 256},
        checkpoint={"every_steps": 1024, "keep": 2},
    )  # fmt: skip
    run = tmp_path / "runs" / "kill"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, str(ROOT / "train.py"), "--config", str(config), "--run-name", "kill"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    deadline = time.time() + 180

    def evaluated_past_checkpoint() -> bool:
        ckpts = list_checkpoints(run / "checkpoints")
        if not ckpts or not (run / "eval.json").exists():
            return False
        last = int(ckpts[-1].stem.split("_")[1])
        history = json.loads((run / "eval.json").read_text())["history"]
        return last > 0 and history[-1]["steps"] > last

    try:
        while not evaluated_past_checkpoint():
            assert time.time() < deadline and proc.poll() is None, "no evaluation past a checkpoint"
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    last = int(list_checkpoints(run / "checkpoints")[-1].stem.split("_")[1])
    result = train(resume=run, overrides=[f"total_timesteps={last + 512}"])
    assert result.steps >= last + 512
    history = [e["steps"] for e in json.loads((run / "eval.json").read_text())["history"]]
    assert history == sorted(set(history)) and history[-1] == result.steps
    folder = EventAccumulator(str(run / "tb"))
    folder.Reload()
    for found in (_steps_by_tag(folder), scalars(run)):
        for tag, steps in found.items():
            assert steps == sorted(set(steps)), (tag, steps)
    assert not [p for p in run.rglob(".*.tmp")]


def test_clean_run_folder_touches_only_leftovers(tmp_path: Path) -> None:
    """Complete checkpoints, models and user files survive; half checkpoints and temps go."""
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    keep = [folder / "ckpt_000000000100.zip", folder / "ckpt_000000000100.json",
            tmp_path / "best_model.zip", tmp_path / "notes.tmp", tmp_path / "e.json"]  # fmt: skip
    gone = [folder / "ckpt_000000000200.zip", folder / "ckpt_000000000050.json",
            folder / ".ckpt_000000000300.zip.abcd1234.tmp"]  # fmt: skip
    for path in keep + gone:
        path.write_text("x")
    assert clean_run_folder(tmp_path) == sorted(gone)
    assert all(p.exists() for p in keep)


def test_pool_files_stay_while_a_kept_checkpoint_lists_them(tmp_path: Path) -> None:
    """A run's pool/ holds exactly the snapshots its kept checkpoints list (none missing)."""
    config = tiny_config(tmp_path, "checkpoint.every_steps=256", "total_timesteps=768")
    run = train(config, run_name="pool").run_dir
    listed = set()
    for path in list_checkpoints(run / "checkpoints"):
        listed.update(json.loads(path.with_suffix(".json").read_text())["pool"])
    on_disk = {str(p.relative_to(run)) for p in (run / "pool").glob("snapshot_*.zip")}
    assert on_disk == listed == {f"pool/snapshot_{s:012d}.zip" for s in (256, 512, 768)}


class _StubModel:
    """Stands in for a MaskablePPO model: a step counter and a ``save`` that writes bytes."""

    def __init__(self, steps: int) -> None:
        self.num_timesteps = steps

    def save(self, f) -> None:
        """Write a few bytes."""
        f.write(b"model")


def test_pruning_cut_short_leaves_no_orphan_json(tmp_path: Path, monkeypatch) -> None:
    """A kill right after the first delete of a pruning leaves no json without its zip."""
    for steps in (100, 200):
        write_checkpoint(_StubModel(steps), tmp_path, TrainState(), keep=2)
    original = Path.unlink

    def killed_after_first_delete(self, missing_ok=False):
        original(self, missing_ok=missing_ok)
        raise KeyboardInterrupt  # the process dies here

    monkeypatch.setattr(Path, "unlink", killed_after_first_delete)
    with pytest.raises(KeyboardInterrupt):
        write_checkpoint(_StubModel(300), tmp_path, TrainState(), keep=2)
    monkeypatch.setattr(Path, "unlink", original)
    orphans = [p for p in tmp_path.glob("ckpt_*.json") if not p.with_suffix(".zip").exists()]
    assert orphans == []
    assert [p.name for p in list_checkpoints(tmp_path)] == [
        "ckpt_000000000200.zip", "ckpt_000000000300.zip",
    ]  # fmt: skip


def test_ctrl_c_while_pretraining_exits_130_and_frees_the_name(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """KeyboardInterrupt while recording the teacher: status 130, one line, no folder left."""

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pretrain_module, "record", interrupted)
    config = tiny_yaml(tmp_path, pretrain={"teacher": "simple", "samples": 64})
    argv = ["--config", str(config), "--run-name", "pre"]
    try:
        status = train_cli.main(argv)
    except KeyboardInterrupt:  # would end the test session, not just fail this test
        pytest.fail("KeyboardInterrupt escaped train.py's main")
    assert status == 130
    out = capsys.readouterr()
    lines = [line for line in (out.out + out.err).splitlines() if line.strip()]
    assert len(lines) == 1 and "run the same command" in lines[0], lines
    assert "Traceback" not in out.err
    assert not (tmp_path / "runs" / "pre").exists()
    make_run_dir(build_config(yaml.safe_load(config.read_text())), "pre")  # the name is free


def test_a_folder_without_checkpoint_says_what_to_do(tmp_path: Path) -> None:
    """A folder a killed run left before its first checkpoint: both errors say what to do."""
    config = tiny_config(tmp_path)
    (tmp_path / "stale").mkdir()
    (tmp_path / "stale" / "config.yaml").write_text(config.to_yaml())
    with pytest.raises(ConfigError, match="holds no checkpoint.*delete it"):
        make_run_dir(config, "stale")
    with pytest.raises(runner.CheckpointError, match="nothing to resume.*start it again"):
        train(resume=tmp_path / "stale")


def test_sigint_while_pretraining_to_the_cli(tmp_path: Path) -> None:
    """A real SIGINT to ``python train.py`` while it records the teacher: 130, folder gone."""
    config = tiny_yaml(tmp_path, pretrain={"teacher": "simple", "samples": 10_000_000})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, str(ROOT / "train.py"), "--config", str(config), "--run-name", "sig"]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    deadline = time.time() + 120
    while not (tmp_path / "runs" / "sig" / "tb").exists():
        assert time.time() < deadline and proc.poll() is None, "pretraining never started"
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "run the same command" in out and "Traceback" not in out
    assert not (tmp_path / "runs" / "sig").exists()


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_atomic_write_respects_the_umask(tmp_path: Path, umask: int) -> None:
    """atomic_write gives the mode open(path, 'w') gives; a replaced file keeps its mode."""
    old = os.umask(umask)
    try:
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
        atomic = atomic_write_text(tmp_path / "atomic.txt", "x")
        assert atomic.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777 == 0o666 & ~umask
        atomic.chmod(0o640)
        atomic_write_text(atomic, "y")
        assert atomic.stat().st_mode & 0o777 == 0o640 and atomic.read_text() == "y"
    finally:
        os.umask(old)


def test_one_checkpoint_scheme_serves_both_backends(tmp_path: Path) -> None:
    """SB3 ckpt_<steps>.zip files and RLlib ckpt_<steps>/ folders list together, by steps."""
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / "ckpt_000000002048.zip").write_bytes(b"zip")
    (folder / "ckpt_000000000512").mkdir()
    (folder / "ckpt_000000000512" / "module_state.pkl").write_bytes(b"")
    for steps in (512, 2048):
        (folder / f"ckpt_{steps:012d}.json").write_text("{}")
    assert [p.name for p in list_checkpoints(folder)] == [
        "ckpt_000000000512",
        "ckpt_000000002048.zip",
    ]


def test_cleaning_removes_half_written_rllib_checkpoints(tmp_path: Path) -> None:
    """A checkpoint folder without its json, its .tmp folder or a lone json go; the rest stays."""
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    kept = folder / "ckpt_000000000512"
    kept.mkdir()
    (folder / "ckpt_000000000512.json").write_text("{}")
    halves = [folder / "ckpt_000000001024", folder / ".ckpt_000000001536.tmp"]
    for half in halves:
        half.mkdir()
        (half / "rllib_checkpoint.json").write_text("{}")
    lone = folder / "ckpt_000000002048.json"
    lone.write_text("{}")
    assert clean_run_folder(tmp_path) == sorted([*halves, lone])
    assert sorted(p.name for p in folder.iterdir()) == [kept.name, "ckpt_000000000512.json"]


def test_a_ctrl_c_inside_a_file_write_lands_after_the_file_is_whole(tmp_path: Path) -> None:
    """SIGINT in mid-write: the file is still written whole, then KeyboardInterrupt is raised."""
    from agents.training.checkpoint import atomic_write

    def write(f) -> None:  # noqa: ANN001 - a binary file
        f.write(b"first half, ")
        os.kill(os.getpid(), signal.SIGINT)  # delivered at the next bytecode boundary
        time.sleep(0.05)
        f.write(b"second half")

    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "model.zip", write)
    assert (tmp_path / "model.zip").read_bytes() == b"first half, second half"
    assert [p.name for p in tmp_path.iterdir()] == ["model.zip"]  # no temp file left
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

"""Issue 17, training side: resume after a kill, Ctrl-C in pretraining, validation, files."""

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
import torch
import yaml
from helpers import TINY, scalars, tiny_config
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import hgin_cli.train as train_cli
from agents.training import pretrain as pretrain_module
from agents.training import runner
from agents.training.checkpoint import (
    TrainState,
    atomic_write_text,
    clean_run_folder,
    list_checkpoints,
    write_checkpoint,
)
from agents.training.config import ConfigError, build_config
from agents.training.runner import LinearSchedule, make_run_dir, train

# ---------------------------------------------------------------- items 1, 6, 7: resume

ROOT = Path(__file__).resolve().parents[2]


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
    config = _tiny_yaml(
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


# ---------------------------------------------------------------- item 3 and 7: schedule, train/*


def test_linear_schedule_is_clamped_at_zero() -> None:
    """Past total_timesteps (negative progress) the linear rate is 0, never negative."""
    schedule = LinearSchedule(1e-3)
    assert schedule(1.0) == 1e-3 and schedule(0.5) == 5e-4
    assert schedule(-0.024) == 0.0 and schedule(-1.0) == 0.0


@pytest.mark.parametrize("total", [600, 768])
def test_last_update_logs_once_with_a_rate_not_below_zero(tmp_path: Path, total: int) -> None:
    """Each update's train/* is logged once, at its step; the last rate is 0, not negative."""
    config = tiny_config(
        tmp_path, f"total_timesteps={total}", "eval.every_steps=0", "checkpoint.every_steps=0",
        "opponents.selfplay.enabled=false",
    )  # fmt: skip
    found = scalars(train(config, run_name="lr").run_dir)
    assert found["train/value_loss"] == [256, 512, 768]
    rates = EventAccumulator(str(tmp_path / "lr" / "tb"))
    rates.Reload()
    values = [e.value for e in rates.Scalars("train/learning_rate")]
    assert len(values) == 3 and min(values) >= 0.0 and values[-1] == 0.0


# ---------------------------------------------------------------- item 2: Ctrl-C in pretraining


def _tiny_yaml(tmp_path: Path, **changes) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "runs_dir": str(tmp_path / "runs"), **changes}))
    return path


def test_ctrl_c_while_pretraining_exits_130_and_frees_the_name(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """KeyboardInterrupt while recording the teacher: status 130, one line, no folder left."""

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pretrain_module, "record", interrupted)
    config = _tiny_yaml(tmp_path, pretrain={"teacher": "simple", "samples": 64})
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
    config = _tiny_yaml(tmp_path, pretrain={"teacher": "simple", "samples": 10_000_000})
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


# ---------------------------------------------------------------- items 9, 10, 13: validation


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ("opponents.mix={nosuchbot: 1}", "opponents.mix.nosuchbot: unknown policy 'nosuchbot'"),
        ("eval.opponents=[random, nosuch]", "eval.opponents[1]: unknown policy 'nosuch'"),
        ("pretrain.teacher=nosuch", "pretrain.teacher: unknown policy 'nosuch'"),
        ("pretrain.init_from=missing/model.zip", "pretrain.init_from: cannot load model"),
        ("pretrain.init_from=simple", "pretrain.init_from: 'simple' is not a model"),
    ],
)
def test_unknown_policies_fail_config_validation(override: str, named: str) -> None:
    """A policy that names nothing fails when the config is built, naming the field."""
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        build_config(TINY, [override])


def test_known_policies_pass_config_validation(tmp_path: Path) -> None:
    """Bots, a shipped model name and an existing model file are accepted."""
    model = tmp_path / "model.zip"
    model.write_bytes(b"checked when it loads")
    config = build_config(
        TINY, ["opponents.mix={simple: 1, expert: 1, ppo-cards: 1}",
               f"eval.opponents=[random, {model}]", f"pretrain.init_from={model}"],
    )  # fmt: skip
    assert config.pretrain.init_from == str(model)


def test_unknown_policy_creates_no_run_folder(tmp_path: Path, capsys) -> None:
    """train.py with a bad opponent name: status 2, one line, and no run folder."""
    config = _tiny_yaml(tmp_path)
    assert train_cli.main(["--config", str(config), "--set", "opponents.mix={nosuchbot: 1}"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "nosuchbot" in lines[0]
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", ["nan", ".nan", "inf", "-.inf"])
def test_non_finite_floats_are_refused(value: str) -> None:
    """--set ppo.learning_rate=nan (or inf) fails validation, naming the field."""
    with pytest.raises(ConfigError, match="ppo.learning_rate must be a finite number"):
        build_config(TINY, [f"ppo.learning_rate={value}"])


@pytest.mark.parametrize("name", ["../escape_probe", "a/b", "..", "a\\b", ""])
def test_run_names_with_path_parts_are_refused(tmp_path: Path, name: str) -> None:
    """--run-name must be a plain folder name: nothing is created outside runs_dir."""
    config = tiny_config(tmp_path / "runs")
    with pytest.raises(ConfigError, match="plain folder name"):
        make_run_dir(config, name)
    assert not (tmp_path / "escape_probe").exists() and not (tmp_path / "runs").exists()


def test_cuda_device_without_cuda_is_refused(tmp_path: Path, monkeypatch) -> None:
    """ppo.device=cuda where torch sees no CUDA: a ConfigError before any run folder."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for device, message in (("cuda", "finds no CUDA device"), ("cdua", "not a torch device")):
        with pytest.raises(ConfigError, match=message):
            train(tiny_config(tmp_path / "runs", f"ppo.device={device}"), run_name="gpu")
    assert not (tmp_path / "runs").exists()


# ---------------------------------------------------------------- item 14: file modes


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

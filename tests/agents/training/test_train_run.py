"""Tiny training runs: the run folder, TensorBoard tags, checkpoints, resume and Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml
from helpers.training import TINY, scalars, tiny_config
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from agents.evaluation import evaluate
from agents.policies.model import load_policy
from agents.training.checkpoint import (
    CheckpointError,
    latest_checkpoint,
    list_checkpoints,
)
from agents.training.config import ConfigError, build_config, load_config
from agents.training.sb3 import callbacks as callbacks_module
from agents.training.sb3.model import LinearSchedule
from agents.training.sb3.runner import train

ROOT = Path(__file__).resolve().parents[3]

EVAL_TAGS = [
    "eval/hand_win_rate/random",
    "eval/series_win_rate/random",
    "eval/points_per_hand/random",
    "eval/hand_win_rate/simple",
    "eval/series_win_rate/simple",
    "eval/points_per_hand/simple",
    "charts/gin_rate",
    "charts/knock_rate",
    "charts/undercut_rate",
    "charts/hand_length",
    "selfplay/pool_size",
    "opponents/share/simple",
]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """One tiny training run shared by the tests of this module (read-only)."""
    return train(tiny_config(tmp_path_factory.mktemp("runs")), run_name="tiny")


def test_run_folder_has_every_output(tiny_run) -> None:
    """config.yaml, tb/, checkpoints/, pool/, final and best models and eval.json exist."""
    run = tiny_run.run_dir
    for name in ("config.yaml", "final_model.zip", "best_model.zip", "eval.json"):
        assert (run / name).is_file(), name
    assert list((run / "tb").glob("events.out.tfevents.*"))
    assert len(list_checkpoints(run / "checkpoints")) == 2
    assert len(list((run / "pool").glob("snapshot_*.zip"))) == 4  # both checkpoints' pools
    assert tiny_run.steps == 1024 and not tiny_run.interrupted


def test_the_final_model_is_saved_as_data_that_plays_as_the_zip(tiny_run) -> None:
    """final_model/ is a saved policy (JSON + safetensors) with the final zip's logits."""
    from agents.policies.model import ModelPolicy, load_policy
    from hgin_env.envs.observation import OBS_DIM

    run = tiny_run.run_dir
    assert {p.name for p in (run / "final_model").iterdir()} == {
        "hgin_policy.json",
        "weights.safetensors",
    }
    played = load_policy(str(run))  # a run folder plays its final_model/
    assert isinstance(played, ModelPolicy) and played.name == "tiny"
    obs = np.random.default_rng(5).random((64, OBS_DIM), dtype=np.float32)
    np.testing.assert_array_equal(
        played.logits(obs), ModelPolicy(run / "final_model.zip").logits(obs)
    )


def test_saved_config_is_the_resolved_config(tiny_run) -> None:
    """config.yaml holds every field and loads back to the config that ran."""
    saved = load_config(tiny_run.run_dir / "config.yaml")
    assert saved == tiny_config(tiny_run.run_dir.parent)
    assert saved.ppo.net_arch == (32, 32)


def test_tensorboard_events_hold_the_eval_and_chart_tags(tiny_run) -> None:
    """The event files, read back with TensorBoard's reader, contain every promised tag."""
    found = scalars(tiny_run.run_dir)
    missing = [tag for tag in EVAL_TAGS if tag not in found]
    assert not missing, f"missing tags {missing}; found {sorted(found)}"
    assert found["eval/hand_win_rate/random"] == [512, 1024]
    assert "train/value_loss" in found  # SB3's own scalars too


def test_tensorboard_has_the_hyperparameters_and_config_text(tiny_run) -> None:
    """The HPARAMS plugin data and the config text table are in the event file."""
    path = next((tiny_run.run_dir / "tb").glob("events.out.tfevents.*"))
    events = EventAccumulator(str(path))
    events.Reload()
    assert "_hparams_/experiment" in events.PluginTagToContent("hparams")
    assert "config/text_summary" in events.Tags()["tensors"]


def test_eval_json_has_latest_best_and_history(tiny_run) -> None:
    """eval.json holds the latest evaluation per opponent, the best one and the history."""
    data = json.loads((tiny_run.run_dir / "eval.json").read_text())
    assert data["latest"]["steps"] == 1024
    assert set(data["latest"]["opponents"]) == {"random", "simple"}
    assert {"hand_win_rate", "series_win_rate", "points_per_hand"} <= set(
        data["latest"]["opponents"]["random"]
    )
    assert [e["steps"] for e in data["history"]] == [512, 1024]
    assert data["best"]["model"] == "best_model.zip"


def test_checkpoint_loads_and_evaluates(tiny_run) -> None:
    """The newest checkpoint loads as a policy and plays a Hollywood series."""
    path = latest_checkpoint(tiny_run.run_dir / "checkpoints")
    result = evaluate(load_policy(str(path)), "random", n_series=1, seed=0, progress=False,
                      max_hands_per_series=2)  # fmt: skip
    assert result.hands >= 1
    state = json.loads(path.with_suffix(".json").read_text())
    assert state["steps"] == 1024 and len(state["pool"]) == 2


def test_resume_continues_the_step_counter(tiny_run, tmp_path: Path) -> None:
    """--resume continues from the newest checkpoint: steps, optimizer and pool intact."""
    import shutil

    from sb3_contrib import MaskablePPO

    run = tmp_path / "copy"
    shutil.copytree(tiny_run.run_dir, run)
    before = MaskablePPO.load(latest_checkpoint(run / "checkpoints"))
    adam_steps = before.policy.optimizer.state_dict()["state"][0]["step"]
    result = train(resume=run, overrides=["total_timesteps=1536"])
    assert result.steps == 1536
    after = MaskablePPO.load(latest_checkpoint(run / "checkpoints"))
    assert after.num_timesteps == 1536
    assert after.policy.optimizer.state_dict()["state"][0]["step"] > adam_steps
    steps = scalars(run)["eval/hand_win_rate/random"]
    assert steps == [512, 1024, 1536]
    state = json.loads(latest_checkpoint(run / "checkpoints").with_suffix(".json").read_text())
    assert state["pool"] == ["pool/snapshot_000000001280.zip", "pool/snapshot_000000001536.zip"]
    assert load_config(run / "config.yaml").total_timesteps == 1536


def test_resume_may_not_change_the_network(tiny_run) -> None:
    """Changing ppo.net_arch when resuming fails before anything runs."""
    with pytest.raises(ConfigError, match="net_arch"):
        train(resume=tiny_run.run_dir, overrides=["ppo.net_arch=[8]"])


def test_corrupt_checkpoint_gives_a_clear_error(tiny_run, tmp_path: Path) -> None:
    """A truncated checkpoint zip fails to resume with an error naming the file."""
    import shutil

    run = tmp_path / "corrupt"
    shutil.copytree(tiny_run.run_dir, run)
    newest = latest_checkpoint(run / "checkpoints")
    newest.write_bytes(newest.read_bytes()[:500])
    with pytest.raises(CheckpointError, match=newest.name) as info:
        train(resume=run)
    assert "corrupt" in str(info.value)


def test_resume_without_checkpoint_fails_clearly(tmp_path: Path) -> None:
    """Resuming a folder without checkpoints names the folder."""
    (tmp_path / "config.yaml").write_text(tiny_config(tmp_path).to_yaml())
    with pytest.raises(CheckpointError, match="no checkpoint"):
        train(resume=tmp_path)


def test_keyboard_interrupt_writes_a_checkpoint(tmp_path: Path, monkeypatch, capsys) -> None:
    """Ctrl-C (KeyboardInterrupt) mid-training writes a checkpoint and says how to resume."""
    original = callbacks_module.HandStatsCallback._on_step

    def interrupt_at_600(self):
        if self.num_timesteps >= 600:
            raise KeyboardInterrupt
        return original(self)

    monkeypatch.setattr(callbacks_module.HandStatsCallback, "_on_step", interrupt_at_600)
    config = tiny_config(tmp_path, "checkpoint.every_steps=0", "eval.every_steps=0")
    result = train(config, run_name="stopped")
    assert result.interrupted and result.steps == 600
    assert latest_checkpoint(result.run_dir / "checkpoints").name == "ckpt_000000000600.zip"
    assert "--resume" in capsys.readouterr().out
    assert not (result.run_dir / "final_model.zip").exists()


def test_pure_selfplay_starts_against_the_initial_network(tmp_path: Path) -> None:
    """With an empty mix the pool gets a snapshot at step 0 and the pool plays every game."""
    config = tiny_config(
        tmp_path, "opponents.mix={}", "opponents.selfplay.weight=1.0", "total_timesteps=512"
    )
    result = train(config, run_name="pure")
    pool = sorted(p.name for p in (result.run_dir / "pool").glob("*.zip"))
    assert pool == ["snapshot_000000000256.zip", "snapshot_000000000512.zip"]
    assert scalars(result.run_dir)["opponents/share/selfplay"]


def test_existing_run_folder_is_not_overwritten(tiny_run) -> None:
    """Starting a new run in an existing run folder fails and points to --resume."""
    config = build_config(TINY, [f"runs_dir={tiny_run.run_dir.parent}"])
    with pytest.raises(ConfigError, match="--resume"):
        train(config, run_name="tiny")


def test_sigint_to_the_cli_saves_a_checkpoint(tmp_path: Path) -> None:
    """A real SIGINT to ``python train.py`` writes a checkpoint and exits with status 130."""
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "total_timesteps": 10_000_000}))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, str(ROOT / "train.py"), "--config", str(config),
           "--set", f"runs_dir={tmp_path}", "--run-name", "sig"]  # fmt: skip
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    deadline = time.time() + 120
    while not list((tmp_path / "sig" / "checkpoints").glob("ckpt_*.json")):
        assert time.time() < deadline and proc.poll() is None, "no first checkpoint"
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"train.py did not exit after SIGINT; output:\n{proc.communicate()[0]}")
    assert proc.returncode == 130, out
    assert "--resume" in out
    found = re.search(r"interrupted at step ([\d,]+)", out)
    assert found, out
    steps = int(found.group(1).replace(",", ""))
    assert latest_checkpoint(tmp_path / "sig" / "checkpoints").name == f"ckpt_{steps:012d}.zip"


@pytest.mark.slow
def test_default_config_beats_random(tmp_path: Path) -> None:
    """``python train.py``'s config ends with a model that wins most hands against random."""
    config = load_config(overrides=[f"runs_dir={tmp_path}", "progress_bar=false"])
    result = train(config, run_name="default")
    assert result.final_eval is not None
    assert result.final_eval["opponents"]["random"]["hand_win_rate"] > 0.8


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

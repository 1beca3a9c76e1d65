"""The rllib backend: the NEXT_STEP env, masking, the config mapping, and a Ray smoke run."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.policies.model import PolicyLoadError, load_policy
from agents.training.config import ConfigError, build_config
from agents.training.rllib.env import RLlibEntryEnv, RLlibGinEnv, split_observation

ROOT = Path(__file__).resolve().parents[3]
TINY = {
    "experiment": "tiny",
    "total_timesteps": 600,
    "progress_bar": False,
    "opponents": {"mix": {"simple": 1.0}},
    "ppo": {"n_envs": 16, "n_steps": 16, "batch_size": 128, "n_epochs": 1},
    # random never knocks, so its hands are long: a short evaluation (its tags are checked)
    "eval": {
        "every_steps": 0,
        "n_series": 1,
        "n_hands": 4,
        "max_hands_per_series": 3,
        "opponents": ["random"],
    },
    "checkpoint": {"every_steps": 0, "keep": 2},
}


def first_legal(masks: np.ndarray) -> np.ndarray:
    """The lowest legal action id of each row (0 for a row without any)."""
    return np.asarray(masks, bool).argmax(axis=1)


def mask_of(obs: np.ndarray) -> np.ndarray:
    """The legal-action mask part of the env's observations."""
    return split_observation(obs)[1]


def test_the_env_autoresets_on_the_next_step():
    """An ended episode shows its final view (no legal move), then restarts with reward 0."""
    env = RLlibGinEnv(build_config(TINY), num_envs=8, seed=4)
    assert env.metadata["autoreset_mode"].name == "NEXT_STEP"
    obs, _ = env.reset()
    ended = np.zeros(8, bool)
    for _ in range(400):
        obs, reward, term, trunc, _ = env.step(first_legal(mask_of(obs)))
        done = term | trunc
        if done.any():
            ended = done
            break
    assert ended.any(), "no episode ended in 400 steps"
    assert (mask_of(obs)[ended] == 0).all()
    actions = first_legal(mask_of(obs))
    actions[ended] = 999  # not even an action id: ignored by the restarting games
    obs, reward, term, trunc, _ = env.step(actions)
    assert (reward[ended] == 0).all() and not (term | trunc)[ended].any()
    assert (mask_of(obs)[ended].sum(axis=1) > 0).all()


def test_an_unmasked_action_raises_the_engines_error():
    """An illegal (unmasked random) action raises the engine's message naming it.

    RLlib's env pre-check steps such actions; it then reported "does not abide to the
    new gymnasium-style API", so the backend turns the check off (``disable_env_checking``).
    """
    env = RLlibGinEnv(build_config(TINY), num_envs=2, seed=1)
    obs, _ = env.reset()
    illegal = np.argmin(mask_of(obs), axis=1)
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)


def test_each_env_runner_sets_its_torch_threads():
    """The env runner's entry point applies ppo.torch_threads to torch in its process."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    config = build_config(TINY, ["ppo.torch_threads=3"]).to_dict()
    try:
        env = RLlibEntryEnv({"config": config, "num_envs": 2})
        assert torch.get_num_threads() == 3 and env.num_envs == 2
    finally:
        torch.set_num_threads(before)


def test_masked_logits_keep_only_legal_actions():
    """Illegal logits fall to the float minimum; a row with no legal action is left whole."""
    torch = pytest.importorskip("torch")
    from agents.policies.rllib_net import masked_logits

    logits = torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    mask = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    out = masked_logits(logits, mask)
    assert out[0, 1] == torch.finfo(torch.float32).min and out[0, 2] == 3.0
    assert torch.equal(out[1], logits[1])


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("ppo.target_kl=0.02", "ppo.target_kl"),
        ("ppo.normalize_advantage=false", "ppo.normalize_advantage"),
        ("ppo.device=cuda", "ppo.device"),
        ("stats_window=100", "stats_window"),
    ],
)
def test_fields_without_an_rllib_meaning_are_refused_by_name(override, field):
    """Each unsupported field fails with a ConfigError that names it."""
    pytest.importorskip("ray")
    from agents.training.rllib.backend import check_config

    with pytest.raises(ConfigError, match=rf"^{field} is not supported by the rllib backend"):
        check_config(build_config(TINY, [override]))


def test_the_cli_refuses_a_field_in_one_line_with_code_2(tmp_path):
    """``train.py --backend rllib --set ppo.target_kl=0.02``: exit 2, one line, no run folder."""
    proc = subprocess.run(
        [sys.executable, "train.py", "--backend", "rllib", "--config", "configs/mlp_hand.yaml",
         "--set", "ppo.target_kl=0.02",
         "--set", f"runs_dir={tmp_path}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: ppo.target_kl is not supported by the rllib backend: RLlib has no early stop "
        "of the epochs (its kl_target tunes a KL penalty); set it to null"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_failed_join_is_one_line_and_leaves_no_run_folder(tmp_path):
    """``--address`` where no cluster listens: exit 2, one line, nothing under runs_dir."""
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.run(
        [sys.executable, "train.py", "--backend", "rllib", "--config", "configs/mlp_hand.yaml",
         "--address", f"127.0.0.1:{port}",
         "--set", f"runs_dir={tmp_path}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("error: cannot join the Ray cluster")
    assert list(tmp_path.iterdir()) == []


def test_ppo_fields_map_onto_rllibs_ppo_config():
    """The PPO hyperparameters land on RLlib's settings of the same meaning."""
    pytest.importorskip("ray")
    from agents.training.rllib.backend import algorithm_config

    config = build_config(TINY, ["ppo.learning_rate=3e-4", "ppo.ent_coef=0.01"])
    algo = algorithm_config(config, env_runners=2)
    assert algo.lr == [[0, 3e-4], [600, 0.0]]  # lr_schedule: linear
    assert (algo.num_envs_per_env_runner, algo.rollout_fragment_length) == (16, 16)
    assert algo.train_batch_size_per_learner == 16 * 16 * 2
    assert (algo.minibatch_size, algo.num_epochs) == (128, 1)
    assert (algo.gamma, algo.lambda_, algo.clip_param) == (0.99, 0.95, 0.2)
    assert (algo.entropy_coeff, algo.vf_loss_coeff, algo.grad_clip) == (0.01, 0.5, 0.5)
    assert algo.use_kl_loss is False and math.isinf(algo.vf_clip_param)
    assert algo.gym_env_vectorize_mode == "vector_entry_point"
    assert algo.disable_env_checking is True
    assert algo.normalize_actions is False and algo.clip_actions is False  # discrete actions


def test_a_folder_that_is_not_a_checkpoint_fails_to_load_by_name(tmp_path):
    """A saved-policy folder with a damaged weights file gives a one-line load error."""
    from agents.policies.saved import POLICY_FILE, WEIGHTS_FILE, network_spec, policy_spec

    spec = policy_spec(network_spec("mlp", (8,)))
    (tmp_path / POLICY_FILE).write_text(json.dumps(spec))
    (tmp_path / WEIGHTS_FILE).write_bytes(b"not safetensors")
    with pytest.raises(PolicyLoadError, match=r"cannot load model .*weights\.safetensors"):
        load_policy(str(tmp_path))


@pytest.fixture(scope="module")
def trained(ray_local, tmp_path_factory):
    """One short rllib run (1 env runner, two PPO iterations) on the shared local cluster."""
    import torch

    from agents.training.rllib.backend import train

    runs = tmp_path_factory.mktemp("runs")
    config = build_config(TINY, [f"runs_dir={runs}"])
    result = train(config, run_name="smoke", address=ray_local.address, env_runners=1)
    assert torch.get_num_threads() == config.ppo.torch_threads
    return result


def test_a_short_run_fills_the_run_folder(trained):
    """config.yaml, TensorBoard eval/ curves, a checkpoint, eval.json and the final model."""
    run = trained.run_dir
    assert trained.steps >= TINY["total_timesteps"] and not trained.interrupted
    assert (run / "config.yaml").is_file() and (run / "final_model" / "hgin_policy.json").is_file()
    (ckpt,) = sorted((run / "checkpoints").glob("ckpt_*/"))
    assert (ckpt / "rllib_checkpoint.json").is_file() and ckpt.with_suffix(".json").is_file()
    assert (ckpt / "weights.safetensors").is_file() and load_policy(str(ckpt)).act
    history = json.loads((run / "eval.json").read_text())["history"]
    assert [h["steps"] for h in history] == [trained.steps]
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (events,) = (run / "tb").iterdir()
    tags = EventAccumulator(str(events)).Reload().Tags()["scalars"]
    assert {
        "eval/hand_win_rate/random",
        "eval/series_win_rate/random",
        "rollout/ep_rew_mean",
    } <= set(tags)


def test_the_same_seed_trains_the_same_weights(trained, ray_local, tmp_path):
    """A second run of the smoke config ends with the same weights; another seed does not."""
    from safetensors.numpy import load_file

    from agents.training.rllib.backend import train

    def weights(run_dir: Path) -> dict:
        return load_file(str(run_dir / "final_model" / "weights.safetensors"))

    first = weights(trained.run_dir)
    for seed, same in ((0, True), (1, False)):
        config = build_config(TINY, [f"runs_dir={tmp_path}", f"seed={seed}"])
        run = train(config, run_name=f"seed{seed}", address=ray_local.address, env_runners=1)
        again = weights(run.run_dir)
        assert first.keys() == again.keys()
        assert all(np.array_equal(first[k], again[k]) for k in first) is same


def test_the_checkpoint_plays_without_starting_ray(trained):
    """A fresh interpreter loads the run folder as a policy and never imports Ray."""
    code = (
        "import sys, numpy as np\n"
        "from agents.policies.model import load_policy\n"
        f"p = load_policy({str(trained.run_dir)!r})\n"
        "m = np.zeros((1, 107), bool); m[0, 5] = True\n"
        "from hgin_env.envs.observation import OBS_DIM\n"
        "print(int(p.act(np.zeros((1, OBS_DIM), np.float32), m)[0]), 'ray' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.stdout.split() == ["5", "False"], proc.stderr


def test_evaluate_cli_reads_the_checkpoint_and_ray_shards_agree(trained, tmp_path):
    """``evaluate.py RUN ppo-cards`` works on the checkpoint; a Ray-sharded run gives its JSON."""
    from agents.evaluation import evaluate, ray
    from hgin_cli.evaluate import main

    out = tmp_path / "local.json"
    # the command line in this process: the test is about reading the run, not the process
    args = [str(trained.run_dir), "ppo-cards", "--series", "2", "--seed", "2", "--no-progress",
            "--json", str(out)]  # fmt: skip
    assert main(args) == 0
    local = json.loads(out.read_text())
    sharded = evaluate(
        str(trained.run_dir), "ppo-cards", 2, seed=2, progress=False, runner=ray(shards=2)
    ).to_dict()
    local.pop("provenance")  # where the numbers came from: the file's, not the play's
    for d in (local, sharded):
        d.pop("seconds"), d.pop("series_per_second")
        d.pop("provenance", None)  # the CLI's JSON records its command line; evaluate() none
    assert sharded == local and local["name_a"] == str(trained.run_dir)


def test_resume_continues_the_run(trained):
    """``--resume`` continues from the newest checkpoint: more steps, one more evaluation."""
    from agents.training.rllib.backend import train

    more = trained.steps + 1  # one more PPO iteration
    result = train(resume=trained.run_dir, overrides=[f"total_timesteps={more}"], env_runners=1)
    history = json.loads((trained.run_dir / "eval.json").read_text())["history"]
    assert result.steps >= more and len(history) == 2 and history[0]["steps"] < history[1]["steps"]
    assert len(list((trained.run_dir / "checkpoints").glob("ckpt_*.json"))) == 2


def test_ctrl_c_writes_a_checkpoint_to_resume_from(ray_local, tmp_path):
    """SIGINT in a running ``train.py --backend rllib``: a checkpoint at that step, exit 130."""
    cmd = [
        sys.executable, "train.py", "--backend", "rllib", "--address", ray_local.address,
        "--config", "configs/mlp_hand.yaml",
        "--set", "total_timesteps=10000000", "--set", "progress_bar=true",
        "--set", "ppo.n_envs=8", "--set", "ppo.n_steps=16", "--set", "ppo.batch_size=64",
        "--set", "eval.every_steps=0", "--set", "checkpoint.every_steps=0",
        "--set", f"runs_dir={tmp_path}", "--run-name", "ctrl-c",
    ]  # fmt: skip
    env = os.environ | {"PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        steps_lines = 0
        for line in proc.stdout:
            steps_lines += line.startswith("step ")
            if steps_lines == 2:
                break
        assert steps_lines == 2, proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err[-2000:]
    (note,) = [line for line in out.splitlines() if line.startswith("interrupted at step")]
    (state,) = (tmp_path / "ctrl-c" / "checkpoints").glob("ckpt_*.json")
    steps = json.loads(state.read_text())["steps"]
    assert f"interrupted at step {steps:,}:" in note and steps > 0
    assert "continue with: python train.py --backend rllib --resume" in out


def _stop_before_training(*args, **kwargs):
    """Stands for ``algorithm_config``: Ctrl-C while the Algorithm is being built."""
    raise KeyboardInterrupt


def test_an_early_ctrl_c_leaves_no_run_folder(ray_local, tmp_path, monkeypatch):
    """Ctrl-C before the first checkpoint of a new rllib run removes its folder (as SB3's)."""
    from agents.training.rllib import backend

    monkeypatch.setattr(backend, "algorithm_config", _stop_before_training)
    config = build_config(TINY, [f"runs_dir={tmp_path}"])
    result = backend.train(config, run_name="early")
    assert result.interrupted and not (tmp_path / "early").exists()


def test_an_rllib_resume_cleans_the_folder_and_drops_later_events(ray_local, tmp_path, monkeypatch):
    """Resuming removes a killed session's leftovers and the events past the checkpoint."""
    from helpers.training import scalars
    from torch.utils.tensorboard import SummaryWriter

    from agents.training.config import save_config
    from agents.training.rllib import backend

    run = tmp_path / "killed"
    folder = run / "checkpoints"
    folder.mkdir(parents=True)
    save_config(build_config(TINY, [f"runs_dir={tmp_path}"]), run / "config.yaml")
    (folder / "ckpt_000000000512").mkdir()
    (folder / "ckpt_000000000512.json").write_text(json.dumps({"steps": 512}))
    leftovers = [folder / "ckpt_000000001024", folder / ".ckpt_000000001536.tmp"]
    for path in leftovers:
        path.mkdir()
    (run / ".eval.json.ab12cd.tmp").write_text("partial")
    leftovers.append(run / ".eval.json.ab12cd.tmp")
    writer = SummaryWriter(str(run / "tb"))
    for step in (256, 512, 768):
        writer.add_scalar("train/x", 1.0, step)
    writer.close()
    monkeypatch.setattr(backend, "algorithm_config", _stop_before_training)
    result = backend.train(resume=run)
    assert result.interrupted and (folder / "ckpt_000000000512").is_dir()
    assert not any(path.exists() for path in leftovers)
    assert scalars(run)["train/x"] == [256, 512]


def test_the_league_trains_with_snapshots_sent_to_the_env_runners(ray_local, tmp_path):
    """Bots and snapshots in one league: runners' records reach the driver, PFSP re-weights."""
    from helpers.training import scalars

    from agents.policies.model import ModelPolicy
    from agents.training.rllib.backend import train
    from agents.training.sb3.convert import SB3_BRIDGE

    league = {"enabled": True, "bots": {"random": 1.0, "simple": 1.0}, "snapshot_every": 512,
              "snapshots": 2, "exploiter_every": 0, "window": 50}  # fmt: skip
    sets = [f"runs_dir={tmp_path}", "total_timesteps=2048", "ppo.n_steps=32"]
    config = build_config(TINY, sets)
    config = build_config(config.to_dict() | {"opponents": {"mix": {}, "league": league}})
    result = train(
        config, run_name="league", address=ray_local.address, env_runners=1, bridge=SB3_BRIDGE
    )
    run = result.run_dir
    tags = scalars(run)
    steps = tags["league/members"]  # one entry per PPO iteration
    assert len(steps) >= 4 and steps[-1] == result.steps
    # a snapshot after each iteration (of 512 steps and more) but the last; two are kept
    files = [f"pool/snapshot_{s:012d}.zip" for s in steps[-3:-1]]
    assert sorted(str(p.relative_to(run)) for p in (run / "pool").iterdir()) == files
    assert tags[f"league/probability/self@{steps[-2]}"] == [steps[-2], steps[-1]]
    (ckpt,) = (run / "checkpoints").glob("ckpt_*.json")
    saved = json.loads(ckpt.read_text())
    assert saved["pool"] == files and saved["last_snapshot_steps"] == steps[-2]
    records = saved["league"]["records"]
    assert records["random"] and records["simple"]
    assert any(hands for name, hands in records.items() if name.startswith("self@"))
    assert isinstance(load_policy(str(run / files[-1])), ModelPolicy)


def test_init_from_a_shipped_card_model_starts_the_rllib_learner(ray_local, tmp_path):
    """pretrain.init_from=ppo-cards on RLlib: at a 1e-12 learning rate it plays as ppo-cards."""
    from agents.training.rllib.backend import train
    from agents.training.sb3.convert import SB3_BRIDGE
    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    sets = [f"runs_dir={tmp_path}", "ppo.policy=cards", "ppo.net_arch=[128]",
            "pretrain.init_from=ppo-cards", "ppo.learning_rate=1e-12", "total_timesteps=256",
            "eval.n_series=0", "eval.n_hands=4"]  # fmt: skip
    config = build_config(TINY, sets)
    result = train(config, run_name="init", address=ray_local.address, bridge=SB3_BRIDGE)
    assert json.loads((result.run_dir / "pretrain.json").read_text()) == {"init_from": "ppo-cards"}
    env = HollywoodGinVecEnv(64, opponent="simple", mode="series", seed=4)
    obs, mask, simple = env.reset(), env.action_masks(), load_policy("simple", seed=1)
    for _ in range(5):
        obs, *_ = env.step(simple.act(obs, mask))
        mask = env.action_masks()
    mine, shipped = load_policy(str(result.run_dir)), load_policy("ppo-cards")
    np.testing.assert_array_equal(mine.act(obs, mask), shipped.act(obs, mask))


def test_league_exploiters_are_refused_and_the_bridge_is_asked_for():
    """exploiter_every > 0 is refused by name; pretrain without the SB3 bridge says so."""
    pytest.importorskip("ray")
    from agents.training.rllib.backend import check_config, train

    league = {"enabled": True, "bots": {"simple": 1.0}, "exploiter_every": 1000}
    config = build_config(TINY | {"opponents": {"mix": {}, "league": league}})
    with pytest.raises(ConfigError, match=r"^opponents.league.exploiter_every is not supported"):
        check_config(config)
    with pytest.raises(ConfigError, match="pass bridge=agents.training.sb3.convert.SB3_BRIDGE"):
        train(build_config(TINY, ["pretrain.teacher=simple"]))

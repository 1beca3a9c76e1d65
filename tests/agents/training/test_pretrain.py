"""Pretraining before PPO: imitation of a teacher, start weights, and their errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.policies.model import load_policy
from agents.training.config import ConfigError, build_config
from agents.training.sb3.model import load_model
from agents.training.sb3.pretrain import record
from agents.training.sb3.runner import train
from hgin_env.envs.policy import resolve_policy
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

TINY = {
    "experiment": "tiny_pretrain",
    "total_timesteps": 256,
    "progress_bar": False,
    "ppo": {"n_envs": 8, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [32]},
    "eval": {"every_steps": 0, "n_series": 0, "n_hands": 8, "opponents": ["random"]},
    "checkpoint": {"every_steps": 0, "keep": 1},
    "opponents": {"mix": {"random": 1}},
}


def test_record_keeps_finished_hands_with_discounted_returns() -> None:
    """Recorded returns are the hand's final reward discounted back to each decision."""
    env = HollywoodGinVecEnv(1, opponent="random", seed=2)  # one game: decisions in order
    demos = record(env, resolve_policy("simple", seed=0), 300, gamma=0.5)
    assert demos.obs.shape[0] == demos.actions.size == demos.returns.size == 300
    assert demos.masks[np.arange(300), demos.actions].all()  # the teacher played legally
    # each hand's last decision has the whole reward; halving backwards within a hand
    returns = demos.returns.astype(np.float64)
    assert np.all(np.abs(returns) <= 1.0 + 1e-6) and (returns != 0).mean() > 0.9
    halved = np.isclose(returns[:-1], 0.5 * returns[1:], rtol=1e-4)
    assert halved.mean() > 0.8  # all but the pairs that straddle two hands


def test_imitation_learns_the_teachers_moves(tmp_path: Path) -> None:
    """After imitating ``simple``, the network agrees with it on most fresh decisions."""
    config = build_config(
        TINY,
        [
            f"runs_dir={tmp_path}",
            "pretrain.teacher=simple",
            "pretrain.samples=6000",
            "pretrain.epochs=6",
            "pretrain.batch_size=256",
            "ppo.learning_rate=1e-9",  # PPO afterwards barely moves the network
        ],
    )
    result = train(config, run_name="bc")
    summary = json.loads((result.run_dir / "pretrain.json").read_text())
    assert summary["teacher"] == "simple" and summary["samples"] == 6000
    accuracy = [e["accuracy"] for e in summary["epochs"]]
    assert accuracy[-1] > accuracy[0]
    model = load_policy(result.run_dir / "final_model.zip")
    teacher = resolve_policy("simple", seed=1)
    env = HollywoodGinVecEnv(64, opponent="random", seed=99)
    obs, agree, total = env.reset(), 0, 0
    for _ in range(40):
        masks = env.action_masks()
        ours, theirs = model.act(obs, masks), teacher.act(obs, masks)
        agree, total = agree + int((ours == theirs).sum()), total + ours.size
        obs, _, _, _ = env.step(theirs)  # type: ignore[assignment]  # SB3: a union of obs types
    assert agree / total > 0.6  # well above a fresh network


def test_init_from_copies_the_weights_and_refuses_other_shapes(tmp_path: Path) -> None:
    """``init_from`` starts a run from a saved network of the same shape, else names the layer."""
    first = train(build_config(TINY, [f"runs_dir={tmp_path}"]), run_name="first")
    source = first.run_dir / "final_model.zip"
    config = build_config(
        TINY, [f"runs_dir={tmp_path}", f"pretrain.init_from={source}", "ppo.learning_rate=1e-9"]
    )
    second = train(config, run_name="second")
    a = load_model(source).policy.state_dict()
    b = load_model(second.run_dir / "final_model.zip").policy.state_dict()
    assert all(torch.allclose(a[k], b[k], atol=1e-5) for k in a)
    bigger = build_config(
        TINY, [f"runs_dir={tmp_path}", f"pretrain.init_from={source}", "ppo.net_arch=[48]"]
    )
    with pytest.raises(ConfigError, match=r"pretrain.init_from .* has shape"):
        train(bigger, run_name="third")


def test_pretrain_fields_are_validated() -> None:
    """Bad pretrain fields name themselves."""
    with pytest.raises(ConfigError, match="pretrain.samples must be > 0"):
        build_config(TINY, ["pretrain.samples=0"])
    with pytest.raises(ConfigError, match="pretrain.techer"):
        build_config(TINY, ["pretrain.techer=expert"])


def test_warm_start_widens_a_layout_1_model_to_play_exactly_as_before() -> None:
    """ppo-cards (394 entries) starts a rules-aware cards network that picks its very logits."""
    from sb3_contrib import MaskablePPO

    from agents.policies.torch_policy import TorchPolicy
    from agents.training.card_net import CardNetPolicy
    from agents.training.sb3.pretrain import copy_weights
    from hgin_env.envs.observation import OBS_DIM, OBS_LAYOUT

    env = HollywoodGinVecEnv(
        32, opponent="simple", mode="series", seed=8, rules={"undercut_bonus": 25}
    )
    model = MaskablePPO(
        CardNetPolicy, env, policy_kwargs={"net_arch": [128], "channels": 32, "blocks": 3}
    )
    assert model.observation_space.shape == (OBS_DIM,)
    copy_weights(model, "ppo-cards")
    old = load_policy("ppo-cards")
    new = TorchPolicy(model.policy)
    obs = env.reset()
    assert (
        obs[:, OBS_LAYOUT["rules_undercut_bonus"].start].max() == 0.25
    )  # the undercut bonus is in the observation
    for _ in range(30):
        masks = env.action_masks()
        np.testing.assert_allclose(new.logits(obs), old.logits(obs), atol=1e-5)  # type: ignore[attr-defined]
        obs, *_ = env.step(old.act(obs, masks))  # type: ignore[assignment]
    narrow = MaskablePPO(
        CardNetPolicy, env, policy_kwargs={"net_arch": [64], "channels": 32, "blocks": 3}
    )
    with pytest.raises(ConfigError, match=r"pretrain.init_from ppo-cards: .* has shape"):
        copy_weights(narrow, "ppo-cards")


@pytest.mark.parametrize("policy", ["mlp", "cards"])
def test_value_only_fits_the_value_head_and_leaves_the_play(policy: str) -> None:
    """``pretrain.value_only`` moves the value head's weights only, so the play is unchanged."""
    from sb3_contrib import MaskablePPO

    from agents.training.card_net import CardNetPolicy
    from agents.training.config import PretrainConfig
    from agents.training.sb3.pretrain import imitate, value_head

    env = HollywoodGinVecEnv(8, opponent="random", seed=5)
    if policy == "cards":
        model = MaskablePPO(
            CardNetPolicy, env, policy_kwargs={"net_arch": [32], "channels": 8, "blocks": 1}
        )
    else:
        model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [32]})
    head = {id(p) for p in value_head(model.policy)}
    names = {n for n, p in model.policy.named_parameters() if id(p) in head}
    assert names and all("value" in n for n in names)
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    demos = record(env, resolve_policy("simple", seed=0), 600, gamma=0.9)
    config = PretrainConfig(teacher="simple", value_only=True, epochs=3, batch_size=64)
    history = imitate(model, demos, config, seed=0)
    after = model.policy.state_dict()
    changed = {k for k in after if not torch.equal(after[k], before[k])}
    assert changed and changed <= names  # only the value head moved, and it did
    assert history[-1]["value_loss"] < history[0]["value_loss"]
    assert history[0]["accuracy"] == history[-1]["accuracy"]  # the policy did not move


def test_value_only_needs_a_teacher() -> None:
    """Without a teacher there are no returns to fit: the field names what it needs."""
    with pytest.raises(ConfigError, match="pretrain.value_only needs pretrain.teacher"):
        build_config(TINY, ["pretrain.value_only=true"])

"""One card network on both backends: saved policies as MaskablePPO zips and back, same play."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
import torch

from agents.policies.card_layers import CardActorCritic, sb3_card_weights
from agents.policies.model import ModelPolicy, load_policy
from agents.policies.model_zip import trust_folder
from agents.policies.saved import POLICY_FILE, network_spec, save_policy
from agents.training.card_net import CardNetPolicy
from agents.training.sb3.model import load_model, module_weights, policy_to_zip, save_policy_of
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv


@pytest.fixture(scope="module")
def recorded() -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of 64 seeded series played by the simple bot, 40 moves each."""
    env = HollywoodGinVecEnv(64, opponent="simple", mode="series", seed=2026)
    player = load_policy("simple", seed=7)
    obs: Any = env.reset()
    rows, masks = [], []
    for _ in range(40):
        mask = env.action_masks()
        rows.append(obs)
        masks.append(mask)
        obs, *_ = env.step(player.act(obs, mask))
    return np.concatenate(rows), np.concatenate(masks)


def test_the_card_network_has_sb3s_parameter_names():
    """CardActorCritic's state is CardNetPolicy's, less SB3's aliases of the shared trunk."""
    sb3 = sb3_card_weights(load_model("ppo-cards").policy.state_dict())
    ours = CardActorCritic(394, [128], 32, 3).state_dict()
    assert {k: v.shape for k, v in ours.items()} == {k: v.shape for k, v in sb3.items()}


def test_a_shipped_card_model_converts_both_ways_and_plays_the_same(recorded, tmp_path):
    """ppo-cards -> MaskablePPO zip -> saved-policy folder: the same actions on every row."""
    trust_folder(tmp_path)  # the test's own zips
    obs, masks = recorded
    shipped = load_policy("ppo-cards")
    path = policy_to_zip("ppo-cards", tmp_path / "cards.zip")
    as_zip = load_policy(str(path))
    folder = save_policy_of(path, tmp_path / "again")
    spec = json.loads((folder / POLICY_FILE).read_text())
    assert spec["network"]["policy"] == "cards" and spec["network"]["obs_dim"] == 394
    back = load_policy(str(folder))
    expected = shipped.act(obs, masks)
    assert (expected >= 0).all() and len(set(expected.tolist())) > 10
    np.testing.assert_array_equal(as_zip.act(obs, masks), expected)
    np.testing.assert_array_equal(back.act(obs, masks), expected)


def test_an_rllib_card_network_converts_to_sb3_and_back(recorded, tmp_path):
    """A fresh RLlib-side card network -> zip -> saved policy: same weights, same actions."""
    trust_folder(tmp_path)  # the test's own zips
    obs, masks = recorded
    torch.manual_seed(5)
    net = CardActorCritic(net_arch=[64], channels=8, blocks=2)
    for p in net.parameters():  # away from the near-uniform start, so the argmax means something
        p.data.normal_(0.0, 0.2)
    state = {f"net.{k}": v.numpy() for k, v in net.state_dict().items()}
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    start = save_policy(
        tmp_path / "start", network_spec("cards", [64], channels=8, blocks=2), weights
    )
    path = policy_to_zip(start, tmp_path / "model.zip")
    sb3 = load_policy(str(path))
    model = load_model(path)
    assert isinstance(sb3, ModelPolicy) and isinstance(model.policy, CardNetPolicy)
    again = module_weights(model)
    assert again.keys() == state.keys()
    for name, value in state.items():
        np.testing.assert_array_equal(again[name], value)
    expected = ModelPolicy(start).act(obs, masks)
    assert len(set(expected.tolist())) > 10
    np.testing.assert_array_equal(sb3.act(obs, masks), expected)
    np.testing.assert_array_equal(
        load_policy(str(save_policy_of(path, tmp_path / "again"))).act(obs, masks), expected
    )


def test_a_saved_policy_in_models_serves_by_name(recorded, tmp_path, monkeypatch):
    """models/<name>/ holding a saved policy: a policy by name, an opponent, an init_from."""
    import agents.policies.model as model_module
    from agents.policies.model import policy_problem
    from agents.policies.torch_policy import TorchPolicy
    from agents.training.config import build_config
    from agents.training.sb3.model import new_sb3_model
    from agents.training.sb3.pretrain import copy_weights

    obs, masks = recorded
    expected = load_policy("ppo-cards").act(obs, masks)
    save_policy_of("ppo-cards", tmp_path / "cards-rl")
    monkeypatch.setattr(model_module, "MODELS_DIR", tmp_path)
    assert policy_problem("cards-rl") is None and "cards-rl" in model_module.MODELS.names()
    build_config({"opponents": {"mix": {"cards-rl": 1.0}}, "pretrain": {"init_from": "cards-rl"}})
    np.testing.assert_array_equal(load_policy("cards-rl").act(obs, masks), expected)
    fresh = new_sb3_model(network_spec("cards", [128]))  # this layout's width: widened
    copy_weights(fresh, "cards-rl")
    np.testing.assert_array_equal(TorchPolicy(fresh.policy).act(obs, masks), expected)

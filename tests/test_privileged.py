"""The privileged critic: ``env.privileged`` appends hidden information that only the value sees."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import assert_plays_legally, deal, step_one
from test_card_net import TINY_CARDS

from agents.model_policy import load_policy
from agents.training.card_net import CardNetPolicy
from agents.training.config import ConfigError, build_config
from agents.training.pretrain import copy_weights
from agents.training.runner import train
from hgin_env.engine.cards import card_id, parse_card_list
from hgin_env.envs import HollywoodGinEnv, HollywoodGinVecEnv, HollywoodGinVectorEnv
from hgin_env.envs.config import EnvConfig
from hgin_env.envs.observation import (
    OBS_DIM,
    PRIVILEGED_DIM,
    PRIVILEGED_LAYOUT,
    encode_observations,
    encode_privileged,
)

P = PRIVILEGED_LAYOUT


def _block(row: np.ndarray, name: str) -> np.ndarray:
    return row[P[name]]


def test_privileged_block_shows_the_opponents_hand_and_the_stock_order() -> None:
    """Table: a dealt hand's hidden block, seen by the non-dealer (seat 1)."""
    eng = deal(
        non_dealer="AC 2C 3C 4D 5D 6D 7H 8H 9H KS",
        dealer="AS 2S 3S 4S 5H 6H 7C 8C 9C QD",
        upcard="JD",
        stock="TC TD TH",
    )
    row = encode_privileged(eng, np.array([1]))[0]
    assert row.shape == (PRIVILEGED_DIM,)
    dealer_hand = set(parse_card_list("AS 2S 3S 4S 5H 6H 7C 8C 9C QD"))
    assert set(np.flatnonzero(_block(row, "opponent_hand"))) == dealer_hand
    stock = _block(row, "stock_order")
    assert stock[card_id("TC")] == 1.0
    assert stock[card_id("TD")] == pytest.approx(1 - 1 / 31)
    assert stock[card_id("TH")] == pytest.approx(1 - 2 / 31)
    assert (stock > 0).sum() == 31
    assert stock[card_id("JD")] == 0.0 and stock[card_id("AC")] == 0.0
    # AS-4S run, 7C-9C run; 5H 6H QD loose: 5 + 6 + 10 = 21
    assert _block(row, "opponent_deadwood")[0] == pytest.approx(0.21)
    # both pass the upcard, the non-dealer draws TC: the dealer's critic sees its 11 cards
    step_one(eng, "pass")
    step_one(eng, "pass")
    step_one(eng, "draw")
    row = encode_privileged(eng, np.array([0]))[0]
    assert set(np.flatnonzero(_block(row, "opponent_hand"))) == set(
        parse_card_list("AC 2C 3C 4D 5D 6D 7H 8H 9H KS TC")
    )
    stock = _block(row, "stock_order")
    assert stock[card_id("TC")] == 0.0 and stock[card_id("TD")] == 1.0
    assert (stock > 0).sum() == 30


def test_privileged_observations_extend_the_plain_ones() -> None:
    """All three single-agent envs append the block; the first OBS_DIM entries are unchanged."""
    width = OBS_DIM + PRIVILEGED_DIM
    plain = HollywoodGinVecEnv(6, opponent="simple", mode="series", seed=4)
    priv = HollywoodGinVecEnv(6, opponent="simple", mode="series", seed=4, privileged=True)
    assert priv.observation_space.shape == (width,)
    a, b = plain.reset(), priv.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        assert b.shape == (6, width)
        assert np.array_equal(a, b[:, :OBS_DIM])
        core = priv.core
        assert np.array_equal(b[:, OBS_DIM:], encode_privileged(core.engine, core.agent_seat))
        masks = priv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        (a, _, _, _), (b, _, _, infos) = plain.step(actions), priv.step(actions)
        for info in infos:
            if "terminal_observation" in info:
                assert info["terminal_observation"].shape == (width,)
    gym_env = HollywoodGinEnv(opponent="random", privileged=True, seed=1)
    obs, _ = gym_env.reset()
    assert obs.shape == (width,) and gym_env.observation_space.contains(obs)
    vector = HollywoodGinVectorEnv(3, opponent="random", privileged=True, seed=1)
    obs, _ = vector.reset()
    assert obs.shape == (3, width)


def test_opponents_never_get_the_privileged_block() -> None:
    """The opponent policy is called with plain observations."""
    widths: list[int] = []

    class Spy:
        def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
            widths.append(observations.shape[1])
            return np.array([np.flatnonzero(m)[0] for m in action_masks])

    env = HollywoodGinVecEnv(4, opponent=Spy(), privileged=True, seed=2)
    env.reset()
    for _ in range(10):
        masks = env.action_masks()
        env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    assert widths and set(widths) == {OBS_DIM}


def test_the_pettingzoo_env_refuses_privileged() -> None:
    """Both seats act there, so no observation may carry hidden information."""
    from hgin_env.envs.pettingzoo_env import raw_env

    with pytest.raises(ValueError, match="privileged is an option of the single-agent envs"):
        raw_env(privileged=True)


def test_privileged_must_be_a_bool() -> None:
    """A non-boolean ``privileged`` is refused, naming the field."""
    with pytest.raises(ValueError, match="EnvConfig.privileged must be true or false"):
        EnvConfig(privileged="yes")


def test_privileged_needs_the_cards_policy(tmp_path: Path) -> None:
    """An MLP policy would act on the hidden block: the config refuses the pair."""
    with pytest.raises(ConfigError, match="env.privileged needs ppo.policy: cards"):
        build_config({"env": {"privileged": True}, "ppo": {"policy": "mlp"}})


def _network(privileged: bool) -> CardNetPolicy:
    env = HollywoodGinVecEnv(4, opponent="random", seed=3, privileged=privileged)
    return CardNetPolicy(
        env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16], channels=4
    )


def _observations(n: int = 16) -> np.ndarray:
    env = HollywoodGinVecEnv(n, opponent="random", mode="series", seed=8, privileged=True)
    return env.reset()


def test_the_actor_ignores_the_privileged_block_and_the_critic_uses_it() -> None:
    """Changing the hidden block changes the value, never the action logits."""
    net = _network(privileged=True)
    # give the privileged value path weight (it starts at zero)
    torch.nn.init.normal_(net.mlp_extractor.privileged_value[-1].weight)
    obs = torch.as_tensor(_observations())
    shuffled = obs.clone()
    shuffled[:, OBS_DIM:] = shuffled[torch.randperm(obs.shape[0]), OBS_DIM:]
    with torch.no_grad():
        f1, f2 = net.extract_features(obs), net.extract_features(shuffled)
        heads = net.mlp_extractor
        assert torch.equal(heads.forward_actor(f1), heads.forward_actor(f2))
        plain = net.extract_features(obs[:, :OBS_DIM])
        assert torch.equal(heads.forward_actor(f1), heads.forward_actor(plain))
        v1, v2 = net.value_net(heads.forward_critic(f1)), net.value_net(heads.forward_critic(f2))
    assert not torch.allclose(v1, v2)


def test_a_plain_network_copied_into_a_privileged_one_keeps_its_values(tmp_path: Path) -> None:
    """``pretrain.init_from`` adds the critic: same logits and, at first, the same values."""
    from sb3_contrib import MaskablePPO

    plain_env = HollywoodGinVecEnv(4, opponent="random", seed=3)
    kwargs = {"net_arch": [16], "channels": 4, "blocks": 1}
    plain = MaskablePPO(CardNetPolicy, plain_env, policy_kwargs=kwargs, n_steps=8, seed=0)
    plain.save(tmp_path / "plain.zip")
    priv_env = HollywoodGinVecEnv(4, opponent="random", seed=3, privileged=True)
    priv = MaskablePPO(CardNetPolicy, priv_env, policy_kwargs=kwargs, n_steps=8, seed=1)
    copy_weights(priv, str(tmp_path / "plain.zip"))
    obs = torch.as_tensor(_observations())
    with torch.no_grad():
        v_plain = plain.policy.predict_values(obs[:, :OBS_DIM])
        v_priv = priv.policy.predict_values(obs)
    assert torch.allclose(v_plain, v_priv)
    # and back: a privileged network into a plain one drops the critic's parameters
    priv.save(tmp_path / "priv.zip")
    copy_weights(plain, str(tmp_path / "priv.zip"))


def test_a_privileged_run_saves_a_model_that_plays_from_plain_observations(
    tmp_path: Path,
) -> None:
    """Train with ``env.privileged``; the model loads by path and plays the plain env."""
    config = build_config({**TINY_CARDS, "env": {"privileged": True}}, [f"runs_dir={tmp_path}"])
    result = train(config, run_name="priv")
    policy = load_policy(result.run_dir / "final_model.zip")
    env = HollywoodGinVecEnv(8, opponent="simple", seed=11)
    assert_plays_legally(policy, env, 60)
    obs = encode_observations(env.core.engine, env.core.agent_seat)
    assert policy.act(obs, env.action_masks()).shape == (8,)
    # handed a privileged observation, it plays from the plain part alone
    assert_plays_legally(policy, HollywoodGinVecEnv(8, seed=11, privileged=True), 60)

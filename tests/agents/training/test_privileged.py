"""The privileged critic: ``env.privileged`` appends hidden information that only the value sees."""
# mypy: disable-error-code="union-attr,operator,index,arg-type,misc"
# (torch types every nn.Module attribute as Tensor | Module and a grad as Tensor | None,
# and SB3's extract_features as Tensor | tuple; these tests reach into the networks)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.deck import deal, step_one
from helpers.policies import assert_plays_legally
from helpers.training import TINY_CARDS

from agents.policies.card_layers import belief_loss
from agents.policies.model import load_policy
from agents.training.card_net import CardNetPolicy
from agents.training.config import ConfigError, build_config
from agents.training.sb3.pretrain import copy_weights
from agents.training.sb3.runner import train
from hgin_env.engine.cards import card_id, parse_card_list
from hgin_env.engine.game import GinEngine
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


# the deal of the table tests: seat 0 deals
NON_DEALER = "AC 2C 3C 4D 5D 6D 7H 8H 9H KS"
DEALER = "AS 2S 3S 4S 5H 6H 7C 8C 9C QD"
UPCARD = "JD"


def _dealt() -> GinEngine:
    return deal(non_dealer=NON_DEALER, dealer=DEALER, upcard=UPCARD, stock="TC TD TH")


def test_privileged_block_shows_the_opponents_hand_and_the_stock_order() -> None:
    """Table: a dealt hand's hidden block, seen by the non-dealer (seat 1)."""
    eng = _dealt()
    row = encode_privileged(eng, np.array([1]))[0]
    assert row.shape == (PRIVILEGED_DIM,)
    dealer_hand = set(parse_card_list(DEALER))
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
        EnvConfig(privileged="yes")  # type: ignore[arg-type]  # the bad input under test


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


def test_a_plain_network_copied_into_a_privileged_one_keeps_its_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pretrain.init_from`` adds the critic: same logits and, at first, the same values."""
    monkeypatch.setenv("HGIN_TRUST_MODEL", "1")  # the zip this test saves itself
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
    """Train with ``env.privileged`` and the belief loss; the model plays the plain env."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = build_config(
        {**TINY_CARDS, "env": {"privileged": True}},
        [f"runs_dir={tmp_path}", "ppo.belief_coef=0.5", "total_timesteps=768"],
    )
    result = train(config, run_name="priv")
    events = EventAccumulator(str(result.run_dir / "tb"))
    events.Reload()
    accuracy = [e.value for e in events.Scalars("train/belief_accuracy")]
    assert accuracy and all(0.0 <= a <= 1.0 for a in accuracy)
    assert all(e.value > 0 for e in events.Scalars("train/belief_loss"))
    policy = load_policy(result.run_dir / "final_model.zip")
    env = HollywoodGinVecEnv(8, opponent="simple", seed=11)
    assert_plays_legally(policy, env, 60)
    obs = encode_observations(env.core.engine, env.core.agent_seat)
    assert policy.act(obs, env.action_masks()).shape == (8,)
    # handed a privileged observation, it plays from the plain part alone
    assert_plays_legally(policy, HollywoodGinVecEnv(8, seed=11, privileged=True), 60)


def _belief_network(coef: float) -> CardNetPolicy:
    env = HollywoodGinVecEnv(4, opponent="random", seed=3, privileged=True)
    return CardNetPolicy(
        env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16], channels=4,
        belief_coef=coef,
    )  # fmt: skip


def test_belief_loss_counts_only_the_unseen_cards() -> None:
    """Table: the dealer's view after the deal; its own cards and the upcard are not scored."""
    eng = _dealt()
    seat = np.array([0])  # the dealer
    rows = np.concatenate([encode_observations(eng, seat), encode_privileged(eng, seat)], axis=1)
    obs = torch.as_tensor(rows)
    held = torch.zeros(1, 52)
    held[0, parse_card_list(NON_DEALER)] = 1.0
    right = 20.0 * (2 * held - 1)  # confident and right on every card
    loss, accuracy = belief_loss(right, obs)
    assert loss.item() < 1e-6 and accuracy.item() == 1.0
    # wrong only on cards it can see (its hand, the upcard): nothing changes
    seen = parse_card_list(f"{DEALER} {UPCARD}")
    fooled = right.clone()
    fooled[0, seen] = 20.0
    assert belief_loss(fooled, obs)[0].item() < 1e-6
    # wrong on one of the 41 unseen cards: accuracy 40/41
    fooled[0, card_id("KS")] = -20.0
    loss, accuracy = belief_loss(fooled, obs)
    assert accuracy.item() == pytest.approx(40 / 41)
    assert loss.item() == pytest.approx(20.0 / 41, rel=1e-3)


def test_belief_loss_joins_the_gradient_and_leaves_the_values() -> None:
    """PPO's numbers are unchanged; the belief head gets ``coef`` times the loss gradient."""
    coef = 0.3
    net, plain = _belief_network(coef), _belief_network(0.0)
    plain.load_state_dict(
        {k: v for k, v in net.state_dict().items() if ".belief." not in k}, strict=True
    )
    obs = torch.as_tensor(_observations())
    masks = torch.ones(obs.shape[0], 107, dtype=torch.bool)
    actions = torch.full((obs.shape[0],), 105)
    v1, lp1, e1 = net.evaluate_actions(obs, actions, masks)
    with torch.no_grad():
        v2, lp2, e2 = plain.evaluate_actions(obs, actions, masks)
    assert torch.allclose(v1, v2) and torch.allclose(lp1, lp2) and torch.allclose(e1, e2)
    v1.sum().mul(0.0).backward()  # the PPO loss itself sends no gradient here
    head = net.mlp_extractor.belief
    got = head.weight.grad.clone()
    head.weight.grad = None
    features = net.extract_features(obs)
    (coef * belief_loss(net.mlp_extractor.belief_logits(features), obs)[0]).backward()
    assert got.abs().sum() > 0
    assert torch.allclose(got, head.weight.grad, atol=1e-7)
    loss, accuracy = net.belief_stats()
    assert loss > 0 and 0 <= accuracy <= 1
    assert net.belief_stats() is None  # the sums restart after each read
    with torch.no_grad():  # no gradient, no belief loss (rollouts, evaluation)
        net.evaluate_actions(obs, actions, masks)
    assert net.belief_stats() is None


def test_belief_coef_needs_the_privileged_block() -> None:
    """The config and the network refuse a belief loss without its targets."""
    with pytest.raises(ConfigError, match="ppo.belief_coef > 0 needs"):
        build_config({"ppo": {"policy": "cards", "belief_coef": 0.5}})
    with pytest.raises(ConfigError, match="ppo.belief_coef must be >= 0"):
        build_config({"env": {"privileged": True}, "ppo": {"policy": "cards", "belief_coef": -1}})
    env = HollywoodGinVecEnv(4, opponent="random", seed=3)
    with pytest.raises(ValueError, match="belief_coef > 0 needs the privileged observation"):
        CardNetPolicy(env.observation_space, env.action_space, lambda _: 1e-3, belief_coef=0.5)


def test_a_plain_network_copied_into_a_belief_network_plays_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pretrain.init_from`` adds the belief head and the critic; the logits are unchanged."""
    monkeypatch.setenv("HGIN_TRUST_MODEL", "1")  # the zip this test saves itself
    from sb3_contrib import MaskablePPO

    kwargs = {"net_arch": [16], "channels": 4, "blocks": 1}
    plain = MaskablePPO(
        CardNetPolicy, HollywoodGinVecEnv(4, seed=3), policy_kwargs=kwargs, n_steps=8, seed=0
    )
    plain.save(tmp_path / "plain.zip")
    env = HollywoodGinVecEnv(4, seed=3, privileged=True)
    belief = MaskablePPO(
        CardNetPolicy, env, policy_kwargs={**kwargs, "belief_coef": 0.5}, n_steps=8, seed=1
    )
    copy_weights(belief, str(tmp_path / "plain.zip"))
    obs = torch.as_tensor(_observations())
    with torch.no_grad():
        p, b = plain.policy, belief.policy
        a = p.mlp_extractor.forward_actor(p.extract_features(obs[:, :OBS_DIM]))
        c = b.mlp_extractor.forward_actor(b.extract_features(obs))
    assert torch.equal(a, c)
    belief.save(tmp_path / "belief.zip")
    copy_weights(plain, str(tmp_path / "belief.zip"))  # and back: the head is dropped

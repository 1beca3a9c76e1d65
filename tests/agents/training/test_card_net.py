"""The card network (``ppo.policy: cards``): planes, logit layout, training, save and load."""
# mypy: disable-error-code="union-attr,operator,index,arg-type,misc"
# (torch types every nn.Module attribute as Tensor | Module and a grad as Tensor | None,
# and SB3's extract_features as Tensor | tuple; these tests reach into the networks)

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.policies import assert_plays_legally
from helpers.training import TINY_CARDS

from agents.policies.card_layers import (
    CONTEXT_START,
    N_CONTEXT,
    N_PLANES,
    CardActorCritic,
    CardFeatures,
    CardHeads,
    card_planes,
    meld_with,
    privileged_planes,
)
from agents.policies.model import load_policy
from agents.training.card_net import CardNetPolicy
from agents.training.config import ConfigError, build_config
from agents.training.sb3.runner import train
from hgin_env.engine.actions import DRAW, KNOCK, N_ACTIONS, PASS, TAKE
from hgin_env.engine.cards import N_CARDS, card_id, parse_cards
from hgin_env.engine.melds import meld_with as meld_with_np
from hgin_env.envs.observation import (
    OBS_DIM,
    OBS_DIMS,
    OBS_LAYOUT,
    PRIVILEGED_DIM,
    PRIVILEGED_LAYOUT,
    encode_observations,
)
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv


def test_meld_with_matches_the_bots_numpy_version() -> None:
    """Property: the torch ``meld_with`` equals the bots' numpy one on random hands."""
    rng = np.random.default_rng(0)
    hands = rng.random((500, N_CARDS)) < rng.uniform(0.1, 0.5, (500, 1))
    got = meld_with(torch.as_tensor(hands, dtype=torch.float32).reshape(-1, 4, 13))
    assert np.array_equal(got.reshape(-1, N_CARDS).numpy() > 0.5, meld_with_np(hands))


@pytest.mark.parametrize(
    ("hand", "melding", "not_melding"),
    [
        ("5H 6H 9C 9D", "4H 7H 9S 9H", "3H 8H 8C TC"),
        ("AS 2S KD QD", "3S JD", "KS AD TD"),
    ],
)
def test_meld_with_table(hand: str, melding: str, not_melding: str) -> None:
    """Runs need two suit neighbours (ace low, no wrap); sets two cards of the rank."""
    planes = meld_with(torch.as_tensor(parse_cards(hand), dtype=torch.float32).reshape(1, 4, 13))
    got = planes.reshape(N_CARDS).numpy() > 0.5
    assert got[parse_cards(melding)].all()
    assert not got[parse_cards(not_melding)].any()


def test_card_planes_show_the_observation_and_nothing_else() -> None:
    """Hand and unseen planes of live observations partition the cards with the pile."""
    env = HollywoodGinVecEnv(16, opponent="random", seed=3)
    obs = torch.as_tensor(env.reset())
    planes = card_planes(obs)
    assert planes.shape == (16, N_PLANES, 4, 13)
    flat = planes.reshape(16, N_PLANES, N_CARDS)
    assert torch.equal(flat[:, 0], obs[:, OBS_LAYOUT["hand"]])
    # hand + top + rest of pile + known pickups + unseen cover each card exactly once
    assert torch.equal(flat[:, [0, 1, 2, 3, 6]].sum(dim=1), torch.ones(16, N_CARDS))


def test_logits_follow_the_action_ids() -> None:
    """Per-card channel 0 -> discard ids 0-51, channel 1 -> knock ids; then draw/take/pass."""
    heads = CardHeads(channels=2, hidden=[4])
    with torch.no_grad():
        heads.cards.weight.zero_()
        heads.cards.bias.zero_()
        heads.cards.weight[0, 0] = 1.0  # discard logit = channel 0
        heads.cards.weight[1, 1] = 1.0  # knock logit = channel 1
        last = heads.pickup[-1]
        last.weight.zero_()
        last.bias.copy_(torch.tensor([1.0, 2.0, 3.0]))  # draw, take, pass
    cards = torch.zeros(1, N_CARDS, 2)
    cards[0, card_id("7D"), 0] = 5.0
    cards[0, card_id("QS"), 1] = 6.0
    features = CardFeatures(cards, torch.zeros(1, 3 * 2 + N_CONTEXT), torch.zeros(1, 0))
    logits = heads.forward_actor(features)[0]
    assert logits.shape == (N_ACTIONS,)
    assert logits[card_id("7D")] == 5.0 and logits[:N_CARDS].sum() == 5.0
    assert logits[KNOCK + card_id("QS")] == 6.0
    assert logits[KNOCK : KNOCK + N_CARDS].sum() == 6.0
    assert [logits[DRAW].item(), logits[TAKE].item(), logits[PASS].item()] == [1.0, 2.0, 3.0]


def test_observation_of_the_wrong_size_is_refused() -> None:
    """The card network names the observation it needs."""
    import gymnasium as gym

    with pytest.raises(ValueError, match=f"{OBS_DIM}-entry observation"):
        CardNetPolicy(gym.spaces.Box(0, 1, (10,)), gym.spaces.Discrete(N_ACTIONS), lambda _: 1e-3)


def test_card_fields_are_validated() -> None:
    """Bad card-network fields name themselves."""
    with pytest.raises(ConfigError, match="ppo.card_channels must be > 0"):
        build_config(TINY_CARDS, ["ppo.card_channels=0"])
    with pytest.raises(ConfigError, match="ppo.policy"):
        build_config(TINY_CARDS, ["ppo.policy=transformer"])


def test_cards_policy_trains_saves_and_plays_legally(tmp_path: Path) -> None:
    """A tiny ``cards`` run writes a model that loads by path and plays only legal moves."""
    config = build_config(TINY_CARDS, [f"runs_dir={tmp_path}"])
    result = train(config, run_name="cards")
    assert result.steps == 512
    policy = load_policy(result.run_dir / "final_model.zip")
    assert_plays_legally(policy, HollywoodGinVecEnv(8, opponent="simple", seed=11), 60)
    with pytest.raises(ConfigError, match="ppo.card_channels cannot change"):
        train(resume=result.run_dir, overrides=["ppo.card_channels=8"])


def test_encoder_and_planes_agree_on_deadwood() -> None:
    """In the discard phase the 'left' plane is the engine's deadwood after each discard."""
    env = HollywoodGinVecEnv(32, opponent="random", seed=5)
    env.reset()
    core = env.core
    for _ in range(200):
        masks = env.action_masks()
        discarding = masks[:, :N_CARDS].any(axis=1)
        if discarding.any():
            break
        env.step(np.argmax(masks, axis=1))
    rows = np.flatnonzero(discarding)
    obs = encode_observations(core.engine, core.agent_seat[rows], rows=rows)
    planes = card_planes(torch.as_tensor(obs)).reshape(rows.size, N_PLANES, N_CARDS)
    dd = core.engine.discard_deadwood(rows)
    hand = obs[:, OBS_LAYOUT["hand"]] > 0.5
    expected = np.where(hand, np.minimum(dd, 100) / 100.0, 0.0)
    assert np.allclose(planes[:, 7].numpy(), expected)


def _reference_block(block, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
    """``CardBlock`` as its layers read on ``[B, C, 4, 13]``: convolutions and means."""
    y = block.run(x) + block.set(x.mean(dim=2, keepdim=True))
    y = y + (block.hand(x.mean(dim=(2, 3))) + block.context(context))[:, :, None, None]
    return x + torch.relu(y)


def _reference_forward(net: CardActorCritic, obs: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Logits and values of ``net`` computed the plain way (the network's documented math)."""
    trunk, heads = net.features_extractor, net.mlp_extractor
    context = obs[:, CONTEXT_START : trunk.obs_dim]
    x = trunk.stem(card_planes(obs)) + trunk.stem_context(context)[:, :, None, None]
    x = torch.relu(x)
    for block in trunk.blocks:
        x = _reference_block(block, x, context)
    top = obs[:, OBS_LAYOUT["top_discard"]].reshape(-1, 1, 4, 13)
    pooled = torch.cat(
        [x.mean(dim=(2, 3)), x.amax(dim=(2, 3)), (x * top).sum(dim=(2, 3)), context], 1
    )
    latent = heads.value(pooled)
    if trunk.critic_dim:
        z = torch.relu(trunk.critic_stem(torch.cat([x, privileged_planes(obs, trunk.obs_dim)], 1)))
        z = _reference_block(trunk.critic_block, z, context)
        deadwood = obs[:, trunk.obs_dim + PRIVILEGED_LAYOUT["opponent_deadwood"].start, None]
        critic = torch.cat([z.mean(dim=(2, 3)), z.amax(dim=(2, 3)), deadwood], dim=1)
        latent = latent + heads.privileged_value(critic)
    per_card = heads.cards(x).flatten(2)
    logits = torch.cat([per_card[:, 0], per_card[:, 1], heads.pickup(pooled)], dim=1)
    return x, logits, net.value_net(latent).squeeze(-1)


@pytest.mark.parametrize(
    "width", [OBS_DIM, OBS_DIM + PRIVILEGED_DIM, OBS_DIMS[1], OBS_DIMS[1] + PRIVILEGED_DIM]
)
def test_network_matches_the_plain_convolutions(width: int) -> None:
    """Property: the fast trunk and heads compute the convolution formulation, gradients too.

    The trunk keeps the card features card-last and the heads contract the ``1 x 1``
    convolutions by hand; on random 0/1 observations (torch's default initialisation,
    so that the logits are not near zero) the features' grid, logits, values and every
    parameter's gradient equal those of the layers applied as plain ``nn.Conv2d`` / means.
    """
    torch.manual_seed(0)
    net = CardActorCritic(width, net_arch=[32], channels=8, blocks=2, ortho_init=False)
    obs = (torch.rand(96, width, generator=torch.Generator().manual_seed(1)) < 0.3).float()
    weights = torch.randn(N_ACTIONS)
    params = list(net.parameters())
    features = net.features(obs)
    logits, value = net.logits_of(features), net.value_of(features)
    grid, ref_logits, ref_value = _reference_forward(net, obs)
    torch.testing.assert_close(
        features.cards, grid.flatten(2).transpose(1, 2), rtol=1e-5, atol=1e-4
    )
    torch.testing.assert_close(logits, ref_logits, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(value, ref_value, rtol=1e-5, atol=1e-4)
    got = torch.autograd.grad((logits * weights).sum() + value.sum(), params, allow_unused=True)
    ref = torch.autograd.grad(
        (ref_logits * weights).sum() + ref_value.sum(), params, allow_unused=True
    )
    for (name, _), g, r in zip(net.named_parameters(), got, ref, strict=True):
        assert (g is None) == (r is None), name
        if r is not None:
            torch.testing.assert_close(g, r, rtol=1e-4, atol=1e-4 * float(r.abs().max()), msg=name)
    with torch.inference_mode():  # the in-place path of the blocks
        torch.testing.assert_close(net.logits(obs), ref_logits.detach(), rtol=1e-5, atol=1e-4)
        torch.testing.assert_close(net.value(obs), ref_value.detach(), rtol=1e-5, atol=1e-4)

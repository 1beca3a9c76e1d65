"""The card network (``ppo.policy: cards``) in plain torch, shared by both backends.

The plain ``MlpPolicy`` has to learn, separately for each of the 52 cards, that discard
logit ``c`` depends on the deadwood left by discarding card ``c`` and on the cards next
to ``c``. This network builds that structure in:

- **Card planes.** The observation's card blocks become planes on a 4 x 13 (suit x
  rank) grid: the hand, the top discard, the rest of the pile, the opponent's known
  pickups and discards, this seat's discards, the unseen cards (neither in hand, nor in
  the pile, nor known to be held by the opponent), the deadwood left by discarding each
  held card and its excess over the best discard, whether a card would meld with the
  hand and with the opponent's known pickups, and each card's point value and rank.
  Everything is computed from the observation alone, so the network sees nothing the
  environment hides.
- **Trunk.** A stem, then residual blocks. Each block mixes a card with its rank
  neighbours in the suit (a ``1 x 5`` convolution: runs), with the same rank in the
  other suits (the suit mean: sets) and with the whole hand (the grid mean), and adds
  the scalar context (deadwood, phase, stock, dealer, turn, the Hollywood score sheet).
- **Heads.** Discard and knock logits come per card from the card's own features (a
  ``1 x 1`` convolution shared by all 52 cards); draw / take / pass and the value come
  from the pooled grid, the top discard's features and the scalar context.
- **Privileged critic** (when the env appends ``observation.PRIVILEGED_LAYOUT``,
  ``env.privileged: true``): the value also sees the hidden information. The trunk's
  card features are joined with planes of the opponent's hand, the cards that would
  meld with it and the stock order, mixed by one more block, pooled, and added (with
  the opponent's deadwood) to the value latent. The actor never reads these entries:
  its logits depend on the first ``OBS_DIM`` entries only, so the trained network plays
  from a plain observation (the critic's extra features are then zero).
- **Belief loss** (``ppo.belief_coef > 0``, with the privileged block): a ``1 x 1``
  convolution on the actor's card features predicts, for each unseen card, whether the
  opponent holds it; its binary cross-entropy (over the unseen cards, the targets taken
  from the privileged block) is added to the PPO loss with weight ``belief_coef``. It
  shapes the features the actor acts on; the prediction itself is never an input.

SB3 trains it as ``agents.training.card_net.CardNetPolicy`` (this trunk as its features
extractor, these heads as its ``mlp_extractor``); the rllib backend trains
``CardActorCritic`` (the same modules under the same parameter names) inside an RLModule.
Nothing here imports SB3.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from hgin_env.engine.actions import DRAW, KNOCK, N_ACTIONS, PASS, TAKE
from hgin_env.engine.cards import CARD_VALUE, N_CARDS, N_RANKS, N_SUITS
from hgin_env.envs.observation import (
    OBS_DIM,
    OBS_DIMS,
    OBS_LAYOUT,
    PRIVILEGED_DIM,
    PRIVILEGED_LAYOUT,
    layout_version,
)

#: scalar context: everything after the per-card blocks (deadwood, phase, ..., Hollywood,
#: then the rules blocks); a network of observation layout 1 has no rules blocks
CONTEXT_START = OBS_LAYOUT["deadwood"].start
CONTEXT = slice(CONTEXT_START, OBS_DIM)
N_CONTEXT = OBS_DIM - CONTEXT_START
# the logits are laid out in id order: discards, knocks, then draw, take, pass
if (DRAW, TAKE, PASS) != (KNOCK + N_CARDS, KNOCK + N_CARDS + 1, KNOCK + N_CARDS + 2):
    raise ImportError("action ids moved: DRAW, TAKE, PASS must follow the knock ids")

#: card planes fed to the trunk (see ``card_planes``)
N_PLANES = 14
#: the two constant planes: each card's point value / 10 and its rank / 12
_CONSTANT_PLANES = torch.tensor(
    np.stack(
        [
            (CARD_VALUE / 10.0).reshape(N_SUITS, N_RANKS),
            np.tile(np.arange(N_RANKS) / (N_RANKS - 1), (N_SUITS, 1)),
        ]
    ),
    dtype=torch.float32,
)


def _grid(block: torch.Tensor) -> torch.Tensor:
    """``[B, 52]`` card data as ``[B, 4, 13]`` (suit, rank)."""
    return block.reshape(-1, N_SUITS, N_RANKS)


def _shift(grid: torch.Tensor, k: int) -> torch.Tensor:
    """``out[..., r] = grid[..., r - k]`` along ranks, zero-filled (no wrap-around)."""
    pad = (k, 0) if k > 0 else (0, -k)
    padded = nn.functional.pad(grid, pad)
    return padded[..., : grid.shape[-1]] if k > 0 else padded[..., -k:]


def meld_with(held: torch.Tensor) -> torch.Tensor:
    """``[B, 4, 13]``: 1 where a card would form a meld with two ``held`` cards (itself aside).

    The torch twin of ``hgin_env.engine.melds.meld_with``: two other cards of its rank
    (a set), or two suit neighbours at ranks ``(r-2, r-1)``, ``(r-1, r+1)`` or
    ``(r+1, r+2)`` (a run).
    """
    same_rank = held.sum(dim=1, keepdim=True) - held
    makes_set = same_rank >= 2
    b1, b2, a1, a2 = (_shift(held, k) > 0.5 for k in (1, 2, -1, -2))
    makes_run = (b1 & b2) | (b1 & a1) | (a1 & a2)
    return (makes_set | makes_run).to(held.dtype)


def unseen_cards(obs: torch.Tensor) -> torch.Tensor:
    """``[B, 52]``: 1 for each card neither held, nor in the pile, nor a known pickup."""
    L = OBS_LAYOUT
    seen = obs[:, L["hand"]] + obs[:, L["top_discard"]] + obs[:, L["pile_below"]]
    return (1.0 - seen - obs[:, L["opponent_known"]]).clamp(0.0, 1.0)


def card_planes(obs: torch.Tensor) -> torch.Tensor:
    """The ``[B, N_PLANES, 4, 13]`` card planes of a batch of observations.

    The planes are stored plane-last (the returned tensor is a permuted view of a
    contiguous ``[B, 4, 13, N_PLANES]`` one), the layout the trunk computes in.
    """
    L = OBS_LAYOUT
    hand = _grid(obs[:, L["hand"]])
    top = _grid(obs[:, L["top_discard"]])
    opp_known = _grid(obs[:, L["opponent_known"]])
    # deadwood left by each discard (0 when not discarding or not held), and its excess
    # over the best discard (the observation's deadwood scalar)
    left = _grid(obs[:, L["discard_deadwood"]]) * hand
    excess = (left - obs[:, L["deadwood"].start, None, None]).clamp(min=0.0) * hand
    consts = _CONSTANT_PLANES.to(obs.device).expand(obs.shape[0], -1, -1, -1)
    planes = [
        hand,
        top,
        _grid(obs[:, L["pile_below"]]),
        opp_known,
        _grid(obs[:, L["opponent_discards"]]),
        _grid(obs[:, L["own_discards"]]),
        _grid(unseen_cards(obs)),
        left,
        excess * 10.0,
        meld_with(hand),
        meld_with(opp_known),
        consts[:, 0],
        consts[:, 1],
        meld_with(hand + top),
    ]
    return torch.stack(planes, dim=-1).permute(0, 3, 1, 2)


#: planes of the privileged critic: opponent's hand, cards melding with it, stock order
N_PRIVILEGED_PLANES = 3


def privileged_planes(obs: torch.Tensor, obs_dim: int = OBS_DIM) -> torch.Tensor:
    """The ``[B, N_PRIVILEGED_PLANES, 4, 13]`` hidden-information planes of ``obs``.

    ``obs_dim``: where the privileged block starts (the network's observation layout).
    """
    P = PRIVILEGED_LAYOUT
    hidden = obs[:, obs_dim:]
    opp_hand = _grid(hidden[:, P["opponent_hand"]])
    stock = _grid(hidden[:, P["stock_order"]])
    return torch.stack([opp_hand, meld_with(opp_hand), stock], dim=1)


def _layout_or_none(width: int) -> int | None:
    """The observation layout of ``width`` entries, None when it matches none."""
    try:
        return layout_version(width)
    except ValueError:
        return None


def _conv_card_last(conv: nn.Conv2d, x: torch.Tensor, bias: bool = True) -> torch.Tensor:
    """``conv`` applied to card-last features: ``[B, 4, 13, Ci]`` -> ``[B, 4, 13, Co]``.

    The permuted view is a channels-last ``[B, Ci, 4, 13]`` tensor, the memory format in
    which the CPU convolutions are fastest; no data is copied on either side.
    """
    out = nn.functional.conv2d(
        x.permute(0, 3, 1, 2), conv.weight, conv.bias if bias else None, padding=conv.padding
    )
    return out.permute(0, 2, 3, 1)


class CardFeatures(NamedTuple):
    """The trunk's output, as the heads read it (all card-last: no copy to another order).

    Attributes:
        cards: ``[B, 52, C]`` features of each card, in card-id order.
        pooled: ``[B, 3 C + n_context]``: the cards' mean, their max, the top discard's
            features, then the scalar context (the rules blocks last).
        critic: ``[B, critic_dim]``: the privileged critic's features (``[B, 0]``
            without a privileged block; zero when playing from a plain observation).
    """

    cards: torch.Tensor
    pooled: torch.Tensor
    critic: torch.Tensor


class _CardMax(torch.autograd.Function):
    """``x.amax(dim=1)`` of ``[B, 52, C]`` card features, with the same gradient, faster.

    The gradient is torch's own (split evenly between tied cards), computed with one
    float mask and one sum over the cards instead of torch's generic reduction, which took
    a tenth of the card network's backward.
    """

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        top = x.amax(dim=1)
        ctx.save_for_backward(x, top)
        return top

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        x, top = ctx.saved_tensors
        mask = (x == top[:, None]).to(x.dtype)
        return mask.mul_((grad / mask.sum(dim=1))[:, None])


def card_max(cards: torch.Tensor) -> torch.Tensor:
    """``[B, 52, C]`` -> ``[B, C]``: each feature's largest value over the cards."""
    if not torch.is_grad_enabled() or not cards.requires_grad:
        return cards.amax(dim=1)
    out: torch.Tensor = _CardMax.apply(cards)
    return out


class _TopFeatures(torch.autograd.Function):
    """``(top @ cards)[:, 0]``: the card features weighted by the top-discard block.

    ``top`` (``[B, 1, 52]``, from the observation) takes no gradient; the gradient of
    ``cards`` is the outer product as one broadcast multiply, which is several times
    faster on the CPU than the batched matrix product autograd would run for it.
    """

    @staticmethod
    def forward(ctx: Any, cards: torch.Tensor, top: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(top)
        return (top @ cards)[:, 0]

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (top,) = ctx.saved_tensors
        return top.transpose(1, 2) * grad[:, None], None


def top_features(cards: torch.Tensor, top: torch.Tensor) -> torch.Tensor:
    """``[B, 52, C]`` card features, ``[B, 1, 52]`` top-discard block -> ``[B, C]``."""
    if not torch.is_grad_enabled() or not cards.requires_grad:
        return (top @ cards)[:, 0]
    out: torch.Tensor = _TopFeatures.apply(cards, top)
    return out


class CardBlock(nn.Module):
    """One residual block: runs (1 x 5 along ranks), sets (suit mean), hand (grid mean).

    The parameters are those of ``1 x 5`` and ``1 x 1`` convolutions on a ``[C, 4, 13]``
    grid; the forward computes the same function on the card-last layout
    ``[B, 4, 13, C]`` (suit, rank, feature): the ``1 x 5`` convolution on its
    channels-last view, the suit and grid terms as small matrix products on the suit sum.
    """

    def __init__(self, channels: int, n_context: int) -> None:
        super().__init__()
        self.run = nn.Conv2d(channels, channels, (1, 5), padding=(0, 2))
        self.set = nn.Conv2d(channels, channels, 1)
        self.hand = nn.Linear(channels, channels)
        self.context = nn.Linear(n_context, channels)

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """``x``: ``[B, 4, 13, C]`` (contiguous); ``context``: ``[B, n_context]``.

        Returns:
            ``[B, 4, 13, C]``: ``x + relu(run(x) + set(suit mean) + hand(grid mean) +
            context(context))``, the set term broadcast over suits, the hand and context
            terms over the grid.
        """
        _, suits, ranks, _ = x.shape
        runs = _conv_card_last(self.run, x, bias=False)
        # sums, not means: the 1/4 and 1/52 go into the (small) weights
        suit_sum = x.sum(dim=1)  # [B, 13, C]
        sets = suit_sum @ (self.set.weight[:, :, 0, 0].t() / suits)
        hand = nn.functional.linear(
            suit_sum.sum(dim=1), self.hand.weight / (suits * ranks), self.hand.bias
        )
        whole = hand + self.context(context) + self.run.bias + self.set.bias  # [B, C]
        if not torch.is_grad_enabled():  # in place: nothing is kept for a backward
            return runs.add_((sets + whole[:, None])[:, None]).relu_().add_(x)
        y = runs + (sets + whole[:, None])[:, None]
        return x + torch.relu(y)


class CardTrunk(nn.Module):
    """Features extractor: observation -> per-card features, pooled features, context.

    A plain torch module with SB3's features-extractor interface (``features_dim``), so
    that SB3's ``CardNetPolicy`` and the rllib backend's ``CardActorCritic`` share it.

    Output: a ``CardFeatures`` (``features_dim = 52 C + 3 C + n_context [+ critic_dim]``
    numbers in all): each card's ``C`` features, then the grid mean, the grid max, the top
    discard's features and the scalar context (the rules blocks last), then (privileged
    observation space only) the ``critic_dim = 2 C + 1`` critic features: the pooled
    privileged block and the opponent's deadwood. Given a plain observation, those are
    zero.

    The grid is kept card-last throughout, ``[B, 4, 13, C]`` (see ``CardBlock``: the fast
    layout on the CPU), and reaches the heads in that order, as separate tensors: no
    permuted copy and no concatenation of the grid, forward or backward.

    Args:
        observation_space: the env's ``Box(OBS_DIM)``, or ``Box(OBS_DIM + PRIVILEGED_DIM)``
            for a privileged critic; the widths of observation layout 1 (394, without the
            rules blocks) load the networks trained before them.
        channels: features per card (C).
        blocks: residual blocks.
    """

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 32, blocks: int = 3):
        shape = observation_space.shape
        version = _layout_or_none(int(shape[0])) if len(shape or ()) == 1 else None
        if version is None:
            raise ValueError(
                f"the cards policy needs the {OBS_DIM}-entry observation (or "
                f"{OBS_DIM + PRIVILEGED_DIM} with env.privileged), got shape {shape}"
            )
        obs_dim = OBS_DIMS[version]
        privileged = shape == (obs_dim + PRIVILEGED_DIM,)
        critic_dim = 2 * channels + 1 if privileged else 0
        n_context = obs_dim - CONTEXT_START
        super().__init__()
        self._observation_space = observation_space
        #: the output width (SB3 reads it as a features extractor's ``features_dim``)
        self.features_dim = N_CARDS * channels + 3 * channels + n_context + critic_dim
        self.channels = channels
        self.critic_dim = critic_dim
        #: the observation layout's width (the privileged block starts here) and context
        self.obs_dim, self.n_context = obs_dim, n_context
        self.stem = nn.Conv2d(N_PLANES, channels, (1, 5), padding=(0, 2))
        self.stem_context = nn.Linear(n_context, channels)
        self.blocks = nn.ModuleList(CardBlock(channels, n_context) for _ in range(blocks))
        if privileged:
            self.critic_stem = nn.Conv2d(channels + N_PRIVILEGED_PLANES, channels, 1)
            self.critic_block = CardBlock(channels, n_context)

    def forward(self, obs: torch.Tensor) -> CardFeatures:
        """``[B, obs_dim]`` (or the privileged width) -> the ``CardFeatures`` of each row."""
        batch = obs.shape[0]
        context = obs[:, CONTEXT_START : self.obs_dim]
        planes = card_planes(obs).permute(0, 2, 3, 1)  # [B, 4, 13, N_PLANES]
        x = _conv_card_last(self.stem, planes)
        x = torch.relu(x + self.stem_context(context)[:, None, None])
        for block in self.blocks:
            x = block(x, context)
        cards = x.view(batch, N_CARDS, self.channels)
        top = obs[:, None, OBS_LAYOUT["top_discard"]]  # [B, 1, 52]
        pooled = [cards.mean(dim=1), card_max(cards), top_features(cards, top), context]
        if self.critic_dim:
            critic = self._critic_features(x, obs, context)
        else:
            critic = obs.new_zeros(batch, 0)
        return CardFeatures(cards, torch.cat(pooled, dim=1), critic)

    def _critic_features(
        self, x: torch.Tensor, obs: torch.Tensor, context: torch.Tensor
    ) -> torch.Tensor:
        """``[B, critic_dim]``: the privileged block mixed with the card features.

        ``x``: the trunk's ``[B, 4, 13, C]`` card features.
        """
        if obs.shape[1] == self.obs_dim:  # playing from a plain observation: no critic input
            return obs.new_zeros(obs.shape[0], self.critic_dim)
        planes = privileged_planes(obs, self.obs_dim).permute(0, 2, 3, 1)  # [B, 4, 13, 3]
        stem = self.critic_stem
        z = nn.functional.linear(torch.cat([x, planes], dim=3), stem.weight[:, :, 0, 0], stem.bias)
        z = self.critic_block(torch.relu(z), context).view(obs.shape[0], N_CARDS, self.channels)
        deadwood = obs[:, self.obs_dim + PRIVILEGED_LAYOUT["opponent_deadwood"].start, None]
        return torch.cat([z.mean(dim=1), card_max(z), deadwood], dim=1)


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


def _per_card(conv: nn.Conv2d, cards: torch.Tensor) -> torch.Tensor:
    """A ``1 x 1`` convolution ``conv`` on ``[B, 52, C]`` card features -> ``[B, 52, Co]``.

    As one matrix product over every (row, card): faster on the CPU than the convolution.
    """
    return nn.functional.linear(cards, conv.weight[:, :, 0, 0], conv.bias)


class CardHeads(nn.Module):
    """The ``mlp_extractor``: actor -> the 107 action logits, critic -> a value latent.

    Args:
        channels: C of the trunk.
        hidden: hidden sizes of the pickup and value MLPs (``ppo.net_arch``).
        critic_dim: the trunk's privileged critic features (0: none). Their MLP's output
            is added to the value latent; its last layer starts at zero, so a network
            copied from a plain one starts with the same values.
        belief: add the belief head.
        n_context: the trunk's scalar context entries (``N_CONTEXT``; fewer for a
            network of observation layout 1).
    """

    def __init__(
        self,
        channels: int,
        hidden: list[int],
        critic_dim: int = 0,
        belief: bool = False,
        n_context: int = N_CONTEXT,
    ) -> None:
        super().__init__()
        self.channels = channels
        self.n_pooled = 3 * channels + n_context
        self.cards = nn.Conv2d(channels, 2, 1)  # discard, knock logit of each card
        self.pickup = nn.Sequential(_mlp([self.n_pooled, *hidden]), nn.Linear(hidden[-1], 3))
        self.value = _mlp([self.n_pooled, *hidden])
        if critic_dim:
            self.privileged_value = nn.Sequential(
                _mlp([critic_dim, hidden[-1]]), nn.Linear(hidden[-1], hidden[-1])
            )
            last: Any = self.privileged_value[-1]
            nn.init.zeros_(last.weight)
            nn.init.zeros_(last.bias)
        if belief:
            self.belief = nn.Conv2d(channels, 1, 1)  # logit: the opponent holds the card
        self.latent_dim_pi = N_ACTIONS
        self.latent_dim_vf = hidden[-1]

    def _actor(self, features: CardFeatures) -> torch.Tensor:
        """The 107 logits from the card features and the pooled features."""
        per_card = _per_card(self.cards, features.cards)  # [B, 52, 2]: discard, knock
        pickup = self.pickup(features.pooled)  # draw, take, pass: the ids after the knocks
        # discard ids 0-51, then knock ids 52-103, then the pickups
        return torch.cat([per_card[:, :, 0], per_card[:, :, 1], pickup], dim=1)

    def _critic(self, features: CardFeatures) -> torch.Tensor:
        """The value latent from the pooled and the critic features."""
        latent = self.value(features.pooled)
        if features.critic.shape[1]:
            latent = latent + self.privileged_value(features.critic)
        return latent

    def forward_actor(self, features: CardFeatures) -> torch.Tensor:
        """The trunk's features -> ``[B, 107]`` logits in action-id order."""
        return self._actor(features)

    def forward_critic(self, features: CardFeatures) -> torch.Tensor:
        """The trunk's features -> ``[B, latent_dim_vf]``."""
        return self._critic(features)

    def forward(self, features: CardFeatures) -> tuple[torch.Tensor, torch.Tensor]:
        """Both latents (SB3's ``mlp_extractor`` contract)."""
        return self._actor(features), self._critic(features)

    def belief_logits(self, features: CardFeatures) -> torch.Tensor:
        """The trunk's features -> ``[B, 52]``: logits that the opponent holds each card."""
        return _per_card(self.belief, features.cards)[:, :, 0]


def belief_loss(
    logits: torch.Tensor, obs: torch.Tensor, obs_dim: int = OBS_DIM
) -> tuple[torch.Tensor, torch.Tensor]:
    """The belief loss and accuracy over the unseen cards of privileged observations.

    Args:
        logits: ``[B, 52]`` from ``CardHeads.belief_logits``.
        obs: ``[B, obs_dim + PRIVILEGED_DIM]``.
        obs_dim: the width of the network's observation layout.

    Returns:
        The mean binary cross-entropy over (row, unseen card) pairs, and the fraction of
        them predicted right (probability above 1/2 exactly for held cards), detached.
    """
    held = obs[:, obs_dim:][:, PRIVILEGED_LAYOUT["opponent_hand"]]
    weight = unseen_cards(obs)
    bce = nn.functional.binary_cross_entropy_with_logits(logits, held, reduction="none")
    count = weight.sum().clamp(min=1.0)
    loss = (bce * weight).sum() / count
    right = ((logits > 0).float() == held).float()
    return loss, ((right * weight).sum() / count).detach()


class CardActorCritic(nn.Module):
    """The card network outside SB3: ``CardNetPolicy``'s trunk, heads and value layer.

    Its parameters are named as in ``CardNetPolicy.state_dict()`` (``features_extractor.``,
    ``mlp_extractor.``, ``value_net.``; SB3's aliases ``pi_features_extractor.`` and
    ``vf_features_extractor.`` of the shared trunk aside, see ``sb3_card_weights``), so one
    set of weights plays in either: the rllib backend trains it inside an RLModule
    (``agents.training.rllib.module``) and ``agents.policies.saved`` rebuilds it to play.

    Args:
        obs_width: the observation's width (a layout's ``OBS_DIM``, plus ``PRIVILEGED_DIM``
            for a privileged critic).
        net_arch: hidden sizes of the pickup and value MLPs.
        channels: features per card.
        blocks: residual blocks.
        ortho_init: initialise as ``CardNetPolicy`` does (SB3's orthogonal gains, the
            logit layers near zero); False leaves torch's defaults (weights get loaded).
    """

    def __init__(
        self,
        obs_width: int = OBS_DIM,
        net_arch: list[int] | tuple[int, ...] = (128,),
        channels: int = 32,
        blocks: int = 3,
        ortho_init: bool = True,
    ) -> None:
        super().__init__()
        #: the observation width it was built for (with a privileged block, if any)
        self.obs_width = int(obs_width)
        space = gym.spaces.Box(-np.inf, np.inf, (obs_width,), np.float32)
        self.features_extractor = CardTrunk(space, channels, blocks)
        trunk = self.features_extractor
        hidden = list(net_arch)
        self.mlp_extractor = CardHeads(
            channels, hidden, trunk.critic_dim, n_context=trunk.n_context
        )
        self.value_net = nn.Linear(hidden[-1], 1)
        if ortho_init:
            self._initialise()

    def _initialise(self) -> None:
        """``CardNetPolicy``'s initialisation: SB3's gains, then its own logit layers."""
        gains = {self.features_extractor: np.sqrt(2), self.mlp_extractor: np.sqrt(2)}
        gains[self.value_net] = 1.0
        layer: Any
        for module, gain in gains.items():
            for sub in module.modules():
                if isinstance(sub, nn.Linear | nn.Conv2d):
                    layer = sub
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    nn.init.zeros_(layer.bias)
        heads: Any = self.mlp_extractor
        for layer in (heads.cards, heads.pickup[-1]):
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)
        if hasattr(heads, "privileged_value"):
            nn.init.zeros_(heads.privileged_value[-1].weight)
            nn.init.zeros_(heads.privileged_value[-1].bias)

    def features(self, obs: torch.Tensor) -> CardFeatures:
        """``[B, obs_width]`` (or the plain width) -> the trunk's ``CardFeatures``."""
        return self.features_extractor(obs)

    def logits_of(self, features: CardFeatures) -> torch.Tensor:
        """``[B, 107]`` unmasked action logits from the trunk's features."""
        return self.mlp_extractor.forward_actor(features)

    def value_of(self, features: CardFeatures) -> torch.Tensor:
        """``[B]`` value estimates from the trunk's features."""
        return self.value_net(self.mlp_extractor.forward_critic(features)).squeeze(-1)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """float[B, 107] unmasked action logits."""
        return self.logits_of(self.features(obs))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """float[B] value estimates."""
        return self.value_of(self.features(obs))


#: SB3's aliases of the shared trunk in ``CardNetPolicy.state_dict()``
SB3_TRUNK_ALIASES = ("pi_features_extractor.", "vf_features_extractor.")


def sb3_card_weights(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``CardNetPolicy.state_dict()`` as ``CardActorCritic``'s: without the trunk's aliases."""
    return {k: v for k, v in state.items() if not k.startswith(SB3_TRUNK_ALIASES)}

"""The card network as an SB3 policy for MaskablePPO (``ppo.policy: cards``).

The network itself (card planes, trunk, heads; the architecture) is
``agents.policies.card_layers``. It plugs into SB3 as a ``MaskableActorCriticPolicy``:
the trunk is the features extractor, ``CardHeads`` is the ``mlp_extractor`` whose actor
output *is* the 107 logits (``action_net`` is the identity), so ``TorchPolicy`` and
``MaskablePPO.load`` use it like any other policy. A trained network is saved as data
(``agents.training.sb3.model.save_policy_of``) and plays without this module.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from agents.policies.card_layers import CardHeads, CardTrunk, _layout_or_none, belief_loss
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIMS, PRIVILEGED_DIM


class _AddLoss(torch.autograd.Function):
    """Identity on ``x`` whose backward also sends gradient 1 into ``loss``.

    Joined to a tensor that the PPO loss uses, it adds ``loss`` to that loss's gradient
    without changing any value SB3 computes or logs.
    """

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, loss: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return grad, grad.new_ones(())


class CardNetPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with the card trunk and heads (see the module docstring).

    Keyword arguments beyond SB3's: ``channels`` and ``blocks`` of the trunk; ``net_arch``
    is a list of hidden sizes of the pickup and value MLPs.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Space,
        action_space: gym.spaces.Space,
        lr_schedule: Any,
        net_arch: list[int] | None = None,
        channels: int = 32,
        blocks: int = 3,
        belief_coef: float = 0.0,
        **kwargs: Any,
    ) -> None:
        if int(getattr(action_space, "n", -1)) != N_ACTIONS:
            raise ValueError(f"the cards policy needs Discrete({N_ACTIONS}), got {action_space}")
        if belief_coef < 0:
            raise ValueError(f"belief_coef must be >= 0, got {belief_coef}")
        width = int((observation_space.shape or (0,))[0])
        version = _layout_or_none(width)
        privileged = version is not None and width - OBS_DIMS[version] == PRIVILEGED_DIM
        if belief_coef and not privileged:
            raise ValueError(
                "belief_coef > 0 needs the privileged observation (env.privileged), which "
                "holds the opponent's hand it learns to predict"
            )
        self.head_sizes = list(net_arch or [128])
        self.belief_coef = float(belief_coef)
        #: running sums of the belief loss and accuracy over minibatches (see ``belief_stats``)
        self._belief_sums = np.zeros(3)
        kwargs.pop("features_extractor_class", None)
        kwargs["features_extractor_kwargs"] = {"channels": channels, "blocks": blocks}
        trunk: Any = CardTrunk  # a torch module with SB3's features-extractor interface
        super().__init__(
            observation_space,
            action_space,
            lr_schedule,
            net_arch=[],
            features_extractor_class=trunk,
            **kwargs,
        )

    def _build_mlp_extractor(self) -> None:
        trunk: Any = self.features_extractor
        # SB3 declares an MlpExtractor; CardHeads offers the same interface
        self.mlp_extractor = CardHeads(  # type: ignore[assignment]
            trunk.channels,
            self.head_sizes,
            trunk.critic_dim,
            belief=self.belief_coef > 0,
            n_context=trunk.n_context,
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        # the actor latent already is the logits: drop the extra linear layer, start the
        # logit layers near zero (a near-uniform first policy), and rebuild the optimizer
        self.action_net = nn.Identity()
        heads: Any = self.mlp_extractor
        for layer in (heads.cards, heads.pickup[-1]):
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)
        if hasattr(heads, "privileged_value"):  # starts adding nothing to the value
            nn.init.zeros_(heads.privileged_value[-1].weight)
            nn.init.zeros_(heads.privileged_value[-1].bias)
        optimizer_class: Any = self.optimizer_class
        self.optimizer = optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def evaluate_actions(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        action_masks: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """SB3's values, log-probabilities and entropy; in training, plus the belief loss.

        With ``belief_coef > 0``, a privileged batch and gradients on (PPO's update), the
        belief loss times ``belief_coef`` joins the gradient of the loss PPO builds from
        these values (``_AddLoss``); the returned numbers are unchanged.
        """
        features = self.extract_features(obs)
        latent_pi, latent_vf = self.mlp_extractor(features)
        distribution = self._get_action_dist_from_latent(latent_pi)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        log_prob = distribution.log_prob(actions)
        values = self.value_net(latent_vf)
        trunk: Any = self.features_extractor
        if self.belief_coef and torch.is_grad_enabled() and obs.shape[1] > trunk.obs_dim:
            heads: Any = self.mlp_extractor
            loss, accuracy = belief_loss(heads.belief_logits(features), obs, trunk.obs_dim)
            values = _AddLoss.apply(values, self.belief_coef * loss)
            self._belief_sums += (float(loss.detach()), float(accuracy), 1.0)
        return values, log_prob, distribution.entropy()

    def belief_stats(self) -> tuple[float, float] | None:
        """Mean belief loss and accuracy since the last call (None if none was computed)."""
        loss, accuracy, n = self._belief_sums
        self._belief_sums = np.zeros(3)
        return (loss / n, accuracy / n) if n else None

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        trunk: Any = self.features_extractor
        data.update(
            net_arch=self.head_sizes,
            channels=trunk.channels,
            blocks=len(trunk.blocks),
            belief_coef=self.belief_coef,
        )
        data.pop("features_extractor_class", None)
        data.pop("features_extractor_kwargs", None)
        return data

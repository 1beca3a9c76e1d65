"""The network the rllib backend trains: separate policy and value MLPs, masked logits.

Plain torch (no Ray): ``agents.training.rllib.module`` wraps it in an RLlib ``RLModule``
for training, and ``agents.policies.saved`` rebuilds it from a saved policy to play.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}


class MaskedActorCritic(nn.Module):
    """Separate policy and value MLPs (as SB3's ``MlpPolicy``); logits masked by the caller.

    Args:
        obs_dim: observation length.
        net_arch: hidden sizes of each MLP.
        activation: ``relu`` or ``tanh``.
        ortho_init: orthogonal initialisation with SB3's gains (sqrt 2 hidden, 0.01 for
            the action logits, 1 for the value).
    """

    def __init__(
        self,
        obs_dim: int = OBS_DIM,
        net_arch: tuple[int, ...] | list[int] = (128, 128),
        activation: str = "relu",
        ortho_init: bool = True,
    ) -> None:
        super().__init__()
        #: the observation width it reads
        self.obs_width = int(obs_dim)
        self.pi = _mlp(obs_dim, net_arch, activation)
        self.vf = _mlp(obs_dim, net_arch, activation)
        self.action_head = nn.Linear(net_arch[-1], N_ACTIONS)
        self.value_head = nn.Linear(net_arch[-1], 1)
        if ortho_init:
            for mlp in (self.pi, self.vf):
                for layer in mlp:
                    if isinstance(layer, nn.Linear):
                        _orthogonal(layer, np.sqrt(2))
            _orthogonal(self.action_head, 0.01)
            _orthogonal(self.value_head, 1.0)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """float[B, 107] unmasked action logits."""
        return self.action_head(self.pi(obs))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """float[B] value estimates."""
        return self.value_head(self.vf(obs)).squeeze(-1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The logits with illegal actions' set to the float minimum.

    A row without any legal action keeps all its logits: it is a game between episodes
    (NEXT_STEP autoreset), whose action the env ignores.
    """
    legal = mask > 0.5
    legal = legal | ~legal.any(dim=-1, keepdim=True)
    return torch.where(legal, logits, torch.finfo(logits.dtype).min)


def _mlp(inputs: int, sizes: tuple[int, ...] | list[int], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in sizes:
        layers += [nn.Linear(inputs, size), ACTIVATIONS[activation]()]
        inputs = size
    return nn.Sequential(*layers)


def _orthogonal(layer: nn.Linear, gain: float) -> None:
    nn.init.orthogonal_(layer.weight, gain=gain)
    nn.init.zeros_(layer.bias)

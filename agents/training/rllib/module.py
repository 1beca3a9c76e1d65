"""The RLlib ``RLModule`` of the rllib backend: ``MaskedActorCritic`` with masking inside.

RLlib's new API stack (RLModule / Learner / EnvRunner): a plain ``TorchRLModule`` with
``ValueFunctionAPI``, not the deprecated ``PPOTorchRLModule`` classes RLlib's masking
example still inherits. Observations are the flat rows of ``agents.training.rllib.env``
(the view, then the legal-action mask);
``_forward`` returns the masked logits (``Columns.ACTION_DIST_INPUTS``), so every action
RLlib samples, at rollout time or in the loss, is a legal one, and ``compute_values``
feeds GAE and the value loss. The network's weights sit under ``net.`` in the module's
state, which is what ``agents.policies.rllib_policy`` loads without Ray.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from agents.policies.rllib_net import MaskedActorCritic, masked_logits
from agents.training.rllib.env import split_observation
from hgin_env.engine.actions import N_ACTIONS


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value MLPs over the observation's view, logits masked by its mask part.

    ``model_config``: ``net_arch`` (list of sizes), ``activation`` and ``ortho_init``.
    """

    def setup(self) -> None:
        """Build the network for the view part of the flat observation space."""
        cfg: Any = self.model_config
        space: Any = self.observation_space
        obs_dim = int(space.shape[0]) - N_ACTIONS
        self.net = MaskedActorCritic(
            obs_dim, tuple(cfg["net_arch"]), cfg["activation"], bool(cfg["ortho_init"])
        )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        view, mask = split_observation(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(self.net.logits(view), mask)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """float[B] value estimates of the batch's observations (no shared encoder)."""
        view, _ = split_observation(batch[Columns.OBS])
        return self.net.value(view)

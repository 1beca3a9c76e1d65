"""The RLlib ``RLModule`` of the rllib backend: the MLP or the card network, masking inside.

RLlib's new API stack (RLModule / Learner / EnvRunner): a plain ``TorchRLModule`` with
``ValueFunctionAPI``, not the deprecated ``PPOTorchRLModule`` classes RLlib's masking
example still inherits. Observations are the flat rows of ``agents.training.rllib.env``
(the view, then the legal-action mask); ``_forward`` returns the masked logits
(``Columns.ACTION_DIST_INPUTS``), so every action RLlib samples, at rollout time or in
the loss, is a legal one, and ``compute_values`` feeds GAE and the value loss.

The network (``model_config["network"]``, an ``agents.policies.saved.network_spec``)
is ``MaskedActorCritic`` (``mlp``) or ``CardActorCritic`` (``cards``: SB3's
``CardNetPolicy`` layout). In training the card network's trunk runs once per minibatch:
``_forward_train`` hands its features to ``compute_values`` as ``Columns.EMBEDDINGS``.
The weights sit under ``net.`` in the module's state; the backend writes them, without
the prefix, as a saved policy (``agents.policies.saved``) that plays without Ray.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from agents.policies.rllib_net import masked_logits
from agents.policies.saved import build_network
from agents.training.rllib.env import split_observation


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value of the observation's view, logits masked by its mask part.

    ``model_config``: ``network`` (a ``network_spec``) and ``ortho_init``.
    """

    def setup(self) -> None:
        """Build the network the model config describes."""
        cfg: Any = self.model_config
        self.net = build_network(cfg["network"], bool(cfg["ortho_init"]))
        self.cards = cfg["network"].get("policy") == "cards"

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        view, mask = split_observation(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(self.net.logits(view), mask)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        if not self.cards:
            return self._forward(batch, **kwargs)
        view, mask = split_observation(batch[Columns.OBS])
        features = self.net.features(view)
        logits = masked_logits(self.net.logits_of(features), mask)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """float[B] value estimates of the batch's observations (or of their trunk features)."""
        if embeddings is not None:
            return self.net.value_of(embeddings)
        view, _ = split_observation(batch[Columns.OBS])
        return self.net.value(view)

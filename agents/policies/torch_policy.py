"""A MaskablePPO network as a batched policy: ``act(observations, action_masks)``.

``TorchPolicy`` runs only the actor half of a ``MaskableActorCriticPolicy`` (features,
policy MLP, action logits), or of a network of ``agents.policies.networks`` (its
``logits``), masks illegal actions and picks the most likely action or samples one
(Gumbel-max: from the environment's per-game ``keys`` when given, so a game samples the
same alone or in any batch, else from its own seeded numpy stream). It is how the
trainer evaluates the live model and how frozen self-play snapshots play.
``frozen_copy`` takes a snapshot of a model's network in memory.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch

from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.keys import Salt, hash_stream, to_uniform
from hgin_env.envs.observation import OBS_DIM, OBS_DIMS, layout_version, plain_observations


class TorchPolicy:
    """Play with a (Maskable) actor-critic policy network.

    Args:
        network: a ``MaskableActorCriticPolicy`` (its ``mlp_extractor`` and ``action_net``
            are used), or a network of ``agents.policies.networks`` (its ``logits``; a
            saved policy's, ``agents.policies.saved.load_network``).
        deterministic: play the most likely legal action; else sample.
        seed: seed of the sampling stream.
        name: display name.
    """

    def __init__(
        self,
        network: Any,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "model",
    ) -> None:
        self.network = network
        space = getattr(network, "observation_space", None)
        shape = getattr(space, "shape", None)
        width = int(shape[0]) if shape else getattr(network, "obs_width", None)
        #: the network's observation layout width: a layout-1 model reads the first 394
        self.obs_dim = OBS_DIMS[layout_version(width)] if width else OBS_DIM
        self.deterministic = deterministic
        self.name = name
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the sampling stream."""
        self.rng = np.random.default_rng(seed)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """float32[N, 107] unmasked action logits.

        Only the first ``obs_dim`` entries of each row are used (``OBS_DIM``, or 394 for a
        network of observation layout 1, trained before the rules blocks): a privileged
        block (``env.privileged``) is for the critic, never for choosing actions.
        """
        net = self.network
        # contiguous: a reversed or strided view (``obs[::-1]``) is no tensor
        obs = torch.as_tensor(np.ascontiguousarray(plain_observations(observations, self.obs_dim)))
        with torch.inference_mode():
            if not hasattr(net, "pi_features_extractor"):  # a network of our own
                return net.logits(obs).numpy()
            features = net.pi_features_extractor(obs)
            latent = net.mlp_extractor.forward_actor(features)
            return net.action_net(latent).numpy()

    def act(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        keys: np.ndarray | None = None,
    ) -> np.ndarray:
        """Return int64[N] legal actions (-1 for a row without any).

        Args:
            observations: float32[N, D].
            action_masks: bool[N, 107].
            keys: uint64[N] per-game random keys (sampling only; else the own stream).
        """
        masks = np.asarray(action_masks, dtype=bool).reshape(-1, N_ACTIONS)
        if masks.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        logits = self.logits(observations).astype(np.float64)
        if not self.deterministic:
            uniform: np.ndarray  # float64[N, 107] in (0, 1)
            if keys is None:
                uniform = self.rng.random(logits.shape)
            else:
                bits = hash_stream(
                    np.asarray(keys, np.uint64)[:, None],
                    np.arange(logits.shape[1], dtype=np.uint64)[None, :],
                    Salt.GUMBEL,
                )
                uniform = to_uniform(bits, open_interval=True)
            logits -= np.log(-np.log(uniform))
        logits[~masks] = -np.inf
        return np.where(masks.any(axis=1), logits.argmax(axis=1), -1).astype(np.int64)


def frozen_copy(network: Any) -> Any:
    """A detached copy of a policy network, in eval mode, without gradients or optimizer."""
    optimizer = getattr(network, "optimizer", None)
    if optimizer is not None:
        network.optimizer = None  # do not deep-copy the Adam state
    try:
        clone = copy.deepcopy(network)
    finally:
        if optimizer is not None:
            network.optimizer = optimizer
    clone.set_training_mode(False)
    for p in clone.parameters():
        p.requires_grad_(False)
    return clone

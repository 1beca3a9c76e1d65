"""Policies that are not rule bots: trained models, and mixtures of opponents.

- ``model``: ``ModelPolicy`` (a MaskablePPO ``.zip``), ``load_policy`` (a name, path or
  policy object -> a policy) and the shipped models ``models/<name>/model.zip``;
- ``torch_policy``: ``TorchPolicy``, a MaskablePPO network playing in memory (the trainer's
  live model and its self-play snapshots);
- ``rllib_policy``, ``rllib_net``: RLlib-trained networks, loaded with torch alone;
- ``mixture``: ``MixturePolicy``, one policy whose games each face their own opponent.

Nothing is imported here, so that ``import agents.policies.mixture`` loads no torch.
"""

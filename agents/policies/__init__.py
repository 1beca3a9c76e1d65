"""Policies that are not rule bots: trained models, and mixtures of opponents.

- ``model``: ``ModelPolicy`` (a trained network), ``load_policy`` (a name, path or
  policy object -> a policy) and the shipped models ``models/<name>/``;
- ``saved``: the saved-policy format (a JSON spec, safetensors weights) and its one
  loader; ``model_zip``: a MaskablePPO ``.zip`` read as data, without SB3;
- ``torch_policy``: ``TorchPolicy``, a MaskablePPO network playing in memory (the trainer's
  live model and its self-play snapshots);
- ``card_layers``, ``rllib_net``: the networks (the card network, the MLP);
- ``mixture``: ``MixturePolicy``, one policy whose games each face their own opponent.

Nothing is imported here, so that ``import agents.policies.mixture`` loads no torch.
"""

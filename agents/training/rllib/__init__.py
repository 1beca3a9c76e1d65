"""The Ray RLlib training backend (``train.py --backend rllib``, ``docs/rllib.md``).

- ``backend``: ``train_rllib``, the driver (build the Algorithm, train, checkpoint);
- ``env``: the Gymnasium and PettingZoo envs RLlib's env runners build;
- ``module``: the ``RLModule`` around ``agents.policies.rllib_net.MaskedActorCritic``;
- ``selfplay``: shared-policy self-play (both seats one network).

The cluster it runs on comes from ``agents.cluster.ray`` (shared with the Ray-sharded
evaluation).

Nothing is imported here: Ray is an optional extra, loaded only by the modules that need it.
"""

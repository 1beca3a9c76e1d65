"""The Stable-Baselines3 training backend (``train.py``, the default ``--backend sb3``).

- ``runner``: ``train``, the MaskablePPO loop in a run folder of the core
  (``agents.training.run``);
- ``callbacks``: the SB3 callbacks (hand statistics, self-play snapshots, evaluation,
  checkpoints, progress);
- ``league_callback``: the league's records and weights;
- ``pretrain``: start weights and imitation of a teacher before PPO;
- ``model``: the MaskablePPO built from a config, loaded (the one SB3 loader) and saved
  as data (``agents.policies.saved``);
- ``convert``: the rllib backend's ``bridge`` (this side's imitation and snapshot models,
  handed over by ``train.py``).

It sits beside ``agents.training.rllib``; neither imports the other (both write trained
networks in one format, ``agents.policies.saved``).
"""

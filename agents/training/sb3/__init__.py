"""The Stable-Baselines3 training backend (``train.py``, the default ``--backend sb3``).

- ``runner``: ``train``, the MaskablePPO loop in a run folder of the core
  (``agents.training.run``);
- ``callbacks``: the SB3 callbacks (hand statistics, self-play snapshots, evaluation,
  checkpoints, progress);
- ``league_callback``: the league's records and weights;
- ``pretrain``: start weights and imitation of a teacher before PPO;
- ``convert``: SB3 models as rllib policies and back, and the rllib backend's ``bridge``
  (this side's imitation and snapshot models, handed over by ``train.py``).

It sits beside ``agents.training.rllib``; neither imports the other (``convert`` reads and
writes rllib policies through ``agents.policies.rllib_policy``).
"""

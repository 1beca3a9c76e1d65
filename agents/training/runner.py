"""The name saved SB3 models pickled their learning-rate schedule under.

Models and checkpoints written before the SB3 backend moved to ``agents.training.sb3``
store ``agents.training.runner.LinearSchedule``; this alias lets them load (the shipped
``ppo-cards``, ``ppo-league`` and ``ppo-league2`` among them). The runner itself is
``agents.training.sb3.runner``.
"""

from __future__ import annotations

from agents.training.sb3.runner import LinearSchedule

__all__ = ["LinearSchedule"]

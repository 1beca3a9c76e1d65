"""Policies (rule bots, trained models) and their evaluation.

Importing this package registers the bots with the environments' policy registry
(``hgin_env.envs.policy``): ``random``, ``simple``, ``expert``, and every shipped model
``models/<name>/model.zip`` under its directory name. ``load_policy`` also accepts a
model path.
"""

from __future__ import annotations

from agents.bots import ExpertBot, SimpleBot
from agents.evaluation import EvalResult, LeagueResult, PlayerStats, Rating, evaluate, league
from agents.model_policy import ModelPolicy, PolicyLoadError, load_policy, shipped_models
from hgin_env.envs.policy import RandomPolicy, register_policy

BOTS = {"random": RandomPolicy, "simple": SimpleBot, "expert": ExpertBot}


def _register() -> None:
    """Register the bots and the shipped models by name (models load on first use)."""
    for name, factory in BOTS.items():
        register_policy(name, factory)
    for name, path in shipped_models().items():
        if name not in BOTS:
            register_policy(name, lambda seed, path=path: ModelPolicy(path))


_register()

__all__ = [
    "BOTS",
    "EvalResult",
    "ExpertBot",
    "LeagueResult",
    "ModelPolicy",
    "PlayerStats",
    "PolicyLoadError",
    "Rating",
    "RandomPolicy",
    "SimpleBot",
    "evaluate",
    "league",
    "load_policy",
]

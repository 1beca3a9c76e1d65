"""Policies (rule bots, trained models), their evaluation, and training.

The bots (``simple``, ``expert``, ``patient``, ``tempo``, with their versions and options:
``simple@1``, ``patient:knock_turns=4``, see ``agents.registry``; ``random`` is built
into the environments) and the
models (every shipped ``models/<name>/`` under its directory name, saved-policy folders
of either backend, MaskablePPO files) reach the environments' policy registry
(``hgin_env.envs.policy``)
through the ``hgin_env.policies`` entry points of ``pyproject.toml``, so a name works in
any process without importing this package first. ``load_policy`` is the one resolver.

Importing a bot needs numpy only: the evaluator (``agents.evaluation``: tqdm), the
trainer (``agents.training``: torch, SB3) and the model players load on first use.

The import name ``agents`` is also used by another popular package (the OpenAI Agents
SDK). Installed in one environment, one shadows the other; the CLIs check for the
``HOLLYWOOD_GIN`` marker below and say so clearly.
"""

from __future__ import annotations

import importlib
from typing import Any

from agents.bots import ExpertBot, PatientBot, SimpleBot, TempoBot
from agents.policies.model import ModelPolicy, PolicyLoadError, load_policy
from hgin_env.envs.policy import RandomPolicy

#: marks this ``agents`` package as hollywood-gin's (the CLIs check it)
HOLLYWOOD_GIN = True

#: loaded on first use, so that importing a bot loads neither tqdm nor torch
_LAZY = {
    "EvalResult": "agents.evaluation",
    "LeagueResult": "agents.evaluation",
    "PlayerStats": "agents.evaluation",
    "Rating": "agents.evaluation",
    "evaluate": "agents.evaluation",
    "league": "agents.evaluation",
    "local": "agents.evaluation",
    "processes": "agents.evaluation",
    "ray": "agents.evaluation",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = [
    "HOLLYWOOD_GIN",
    "ExpertBot",
    "ModelPolicy",
    "PatientBot",
    "PolicyLoadError",
    "RandomPolicy",
    "SimpleBot",
    "TempoBot",
    "load_policy",
    *_LAZY,
]

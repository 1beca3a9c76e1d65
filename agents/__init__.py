"""Policies (rule bots, trained models), their evaluation, and training.

Importing this package registers the bots with the environments' policy registry
(``hgin_env.envs.policy``): ``simple``, ``expert`` (``random`` is built in), every
shipped model ``models/<name>/model.zip`` under its directory name, and the search
family ``pimc`` / ``pimc:worlds=64,...`` (``agents.search``). Registration is
explicit: the environments never import this package; the CLIs, the evaluator and the
trainer do. ``load_policy`` also accepts a model path.

Importing a bot needs numpy only: the evaluator (``agents.evaluation``: tqdm), the
trainer (``agents.training``: torch, SB3) and the model players load on first use.

The import name ``agents`` is also used by another popular package (the OpenAI Agents
SDK). Installed in one environment, one shadows the other; the CLIs check for the
``HOLLYWOOD_GIN`` marker below and say so clearly.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from agents.bots import ExpertBot, SimpleBot
from agents.model_policy import ModelPolicy, PolicyLoadError, load_policy, shipped_models
from agents.search import make_pimc
from hgin_env.envs.policy import (
    PolicyFactory,
    RandomPolicy,
    register_policy,
    register_policy_family,
)

#: marks this ``agents`` package as hollywood-gin's (the CLIs check it)
HOLLYWOOD_GIN = True

BOTS: dict[str, PolicyFactory] = {"random": RandomPolicy, "simple": SimpleBot, "expert": ExpertBot}

#: loaded on first use, so that importing a bot loads neither tqdm nor torch
_LAZY = {
    "EvalResult": "agents.evaluation",
    "LeagueResult": "agents.evaluation",
    "PlayerStats": "agents.evaluation",
    "Rating": "agents.evaluation",
    "evaluate": "agents.evaluation",
    "league": "agents.evaluation",
}


def _model_factory(path: Path) -> PolicyFactory:
    """A factory that loads the model at ``path`` (seeds do not matter to a model)."""
    return lambda seed: ModelPolicy(path)


def _register() -> None:
    """Register the bots, the shipped models (loaded on first use) and the search family."""
    for name, factory in BOTS.items():
        register_policy(name, factory)
    register_policy_family("pimc", make_pimc)
    for name, path in shipped_models().items():
        if name not in BOTS:
            register_policy(name, _model_factory(path))


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


_register()

__all__ = [
    "BOTS",
    "HOLLYWOOD_GIN",
    "ExpertBot",
    "ModelPolicy",
    "PolicyLoadError",
    "RandomPolicy",
    "SimpleBot",
    "load_policy",
    *_LAZY,
]

"""Training: a backend-neutral core and the two backends beside it.

The core (this folder): typed configs (``config``), the run folder's lifecycle
(``run``), checkpoints, evaluation during training (``eval_record``), the opponents,
self-play and the league. The backends import only the core: ``sb3`` (MaskablePPO, the
default) and ``rllib`` (RLlib's PPO on Ray). ``python train.py --config
configs/<name>.yaml`` calls ``load_config`` then ``train`` (the SB3 backend's);
``docs/training.md`` documents every config field and TensorBoard curve.
"""

from __future__ import annotations

from typing import Any

from agents.training.checkpoint import CheckpointError
from agents.training.config import TrainConfig, build_config, load_config
from agents.training.schema import ConfigError

__all__ = ["CheckpointError", "ConfigError", "TrainConfig", "build_config", "load_config", "train"]


def __getattr__(name: str) -> Any:
    """Import the SB3 runner (torch, SB3) only when ``train`` is used."""
    if name in ("train", "TrainResult"):
        from agents.training.sb3 import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'agents.training' has no attribute {name!r}")

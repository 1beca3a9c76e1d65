"""Training MaskablePPO agents: typed configs, the runner, callbacks, self-play, checkpoints.

``python train.py --config configs/<name>.yaml`` calls ``load_config`` then ``train``;
``docs/training.md`` documents every config field and TensorBoard curve.
"""

from __future__ import annotations

from typing import Any

from agents.training.checkpoint import CheckpointError
from agents.training.config import TrainConfig, build_config, load_config
from agents.training.schema import ConfigError

__all__ = ["CheckpointError", "ConfigError", "TrainConfig", "build_config", "load_config", "train"]


def __getattr__(name: str) -> Any:
    """Import the runner (torch, SB3) only when ``train`` is used."""
    if name in ("train", "TrainResult"):
        from agents.training.sb3 import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'agents.training' has no attribute {name!r}")

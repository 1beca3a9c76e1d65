"""Tiny training runs (a few seconds each) and the scalars they log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agents.training.config import build_config

#: a run of a few seconds: 8 games, 256-step rollouts, evaluation and checkpoints every 512
TINY: dict[str, Any] = {
    "experiment": "tiny",
    "total_timesteps": 1024,
    "progress_bar": False,
    "ppo": {"n_envs": 8, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [32, 32]},
    "eval": {
        "every_steps": 512,
        "n_series": 1,
        "n_hands": 16,
        "max_hands_per_series": 2,
        "opponents": ["random", "simple"],
    },
    "checkpoint": {"every_steps": 512, "keep": 2},
    "opponents": {
        "mix": {"random": 1, "simple": 1},
        "selfplay": {"enabled": True, "snapshot_every": 256, "pool_size": 2, "weight": 0.5},
    },
}


#: a tiny run of the card network (4 channels, one block)
TINY_CARDS: dict[str, Any] = {
    "experiment": "tiny_cards",
    "total_timesteps": 512,
    "progress_bar": False,
    "ppo": {
        "policy": "cards",
        "n_envs": 8,
        "n_steps": 32,
        "batch_size": 64,
        "n_epochs": 1,
        "net_arch": [16],
        "card_channels": 4,
        "card_blocks": 1,
    },
    "eval": {"every_steps": 0, "n_series": 0, "n_hands": 8, "opponents": ["random"]},
    "checkpoint": {"every_steps": 256, "keep": 1},
    "opponents": {"mix": {"random": 1}},
}


def tiny_yaml(tmp_path: Path, **changes) -> Path:
    """A config file of the ``TINY`` run (with ``changes``) whose runs go under ``tmp_path``."""
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "runs_dir": str(tmp_path / "runs"), **changes}))
    return path


def tiny_config(tmp_path: Path, *overrides: str):
    """The tiny config with its runs folder under ``tmp_path``."""
    return build_config(TINY, [f"runs_dir={tmp_path}", *overrides])


def scalars(run_dir: Path) -> dict[str, list[int]]:
    """Tag -> steps of every scalar in the run's TensorBoard event files."""
    found: dict[str, list[int]] = {}
    for path in sorted((run_dir / "tb").glob("events.out.tfevents.*")):
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        events = EventAccumulator(str(path))
        events.Reload()
        for tag in events.Tags()["scalars"]:
            found.setdefault(tag, []).extend(e.step for e in events.Scalars(tag))
    return found

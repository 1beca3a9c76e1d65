"""What the rllib backend borrows from the SB3 side: imitation, and league snapshots.

``SB3_BRIDGE`` (``train.py`` hands it to ``agents.training.rllib.backend.train``) runs
``config.pretrain`` with the SB3 path's code and turns the learner's weights into
MaskablePPO snapshots for the league's pool. The models themselves (building, loading,
saving as data) are ``agents.training.sb3.model``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.training.sb3.model import module_weights, sb3_model


def pretrained_weights(config: Any, run_dir: Path) -> dict[str, np.ndarray]:
    """``config.pretrain`` done by the SB3 path's code; the network's weights afterwards.

    ``agents.training.sb3.pretrain.pretrain`` runs on a MaskablePPO of the run's network
    (the same layout) in the SB3 training env with the SB3 path's deals: the same start
    weights (``init_from``, widened across observation layouts), the same teacher data
    and the same imitation loss. Its summary goes to ``pretrain.json``. The rllib backend
    starts its learner from the result (``SB3_BRIDGE``).
    """
    import json

    from agents.training.opponents import TrainingOpponents
    from agents.training.sb3.model import make_model
    from agents.training.sb3.pretrain import pretrain
    from agents.training.sb3.runner import make_env
    from hgin_env.engine.keys import session_seed

    opponents = TrainingOpponents(
        config.opponents, config.ppo.n_envs, run_dir / "pool", config.seed
    )
    env = make_env(config, opponents)
    try:
        model = make_model(config, env)
        env.seed(session_seed(config.seed, 0))
        summary = pretrain(model, env, config)
    finally:
        env.close()
    (run_dir / "pretrain.json").write_text(json.dumps(summary, indent=2))
    return module_weights(model)


def snapshot_model(network: dict[str, Any], state: dict[str, Any], steps: int) -> Any:
    """The learner's weights at ``steps`` as a MaskablePPO for the self-play pool."""
    model = sb3_model(network, state)
    model.num_timesteps = steps
    return model


class SB3Bridge:
    """What the rllib backend borrows from the SB3 side (``backend.train``'s ``bridge``)."""

    pretrained_weights = staticmethod(pretrained_weights)
    snapshot_model = staticmethod(snapshot_model)


#: the bridge ``train.py`` hands the rllib backend
SB3_BRIDGE = SB3Bridge()

"""The config of a best-response run: ``base`` trained against one frozen target alone.

The one place such a config is made: ``agents.training.exploit`` (exploitability) and the
league's exploiters (``agents.training.league``) both use it. It imports no trainer, so
the runner, the league and the exploit command import it without a cycle.
"""

from __future__ import annotations

from typing import Any

from agents.policies.model import policy_problem
from agents.training.config import TrainConfig, build_config
from agents.training.schema import ConfigError


def best_response_config(
    base: TrainConfig,
    target: str,
    steps: int,
    runs_dir: str | None = None,
    init_from: str | None = None,
    experiment: str = "exploiter",
) -> TrainConfig:
    """``base`` turned into a run that trains only against ``target`` for ``steps`` steps.

    The rules, env, network, PPO and pretraining settings stay; the opponents become
    ``target`` alone, the evaluation plays it only, and no checkpoint is written before the
    end. ``init_from`` (a model file) replaces the pretraining: the run starts from those
    weights and imitates nobody (the league's exploiters start from the learner).

    Raises:
        ConfigError: ``target`` names no policy, or the result is not a valid config.
    """
    problem = policy_problem(target)
    if problem is not None:
        raise ConfigError(f"exploit target: {problem}")
    data: dict[str, Any] = base.to_dict()
    data.update(experiment=experiment, total_timesteps=steps)
    if runs_dir is not None:
        data["runs_dir"] = runs_dir
    data["opponents"] = {"mix": {target: 1.0}}
    if init_from is not None:
        data["pretrain"] = {"init_from": init_from}
    data["eval"] = {**data["eval"], "opponents": [target]}
    data["checkpoint"] = {**data["checkpoint"], "every_steps": 0}
    return build_config(data)

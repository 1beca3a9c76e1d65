"""The league's training callback: records each member's results, trains exploiters.

``LeagueCallback`` keeps ``agents.training.league.League``'s records from the hands the
learner finishes, trains an exploiter against the learner when one is due
(``train_exploiter``, through the runner's ``train``, passed in), puts it in the league,
and re-weights the opponents every rollout. Apart from ``league.py`` so that the league's
bookkeeping imports neither the opponents nor the runner.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from agents.training.checkpoint import TrainState, save_model
from agents.training.config import TrainConfig
from agents.training.league import League, hand_score
from agents.training.opponents import TrainingOpponents


def train_exploiter(
    config: TrainConfig, run_dir: Path, model: Any, train: Callable[..., Any]
) -> Path:
    """Train one exploiter against a frozen copy of ``model``; returns its model file.

    ``train`` is the runner's ``train`` (passed in: the runner imports this module).

    The learner is saved as ``exploiters/target_<steps>.zip``; the exploiter trains in
    ``exploiters/exploiter_<steps>/`` (a folder left by a stopped session is replaced) on
    the learner's env, rules and network settings (``agents.training.best_response``).

    Raises:
        KeyboardInterrupt: when the exploiter's training was interrupted.
    """
    from agents.training.best_response import best_response_config

    league = config.opponents.league
    steps = int(model.num_timesteps)
    folder = run_dir / "exploiters"
    target = save_model(model, folder / f"target_{steps:012d}.zip")
    name = f"exploiter_{steps:012d}"
    shutil.rmtree(folder / name, ignore_errors=True)
    init = str(target) if league.exploiter_init == "learner" else None
    exploiter = best_response_config(
        config, str(target), league.exploiter_steps, runs_dir=str(folder), init_from=init
    )
    print(f"\ntraining {name} against the learner at step {steps:,} ...")
    result = train(exploiter, run_name=name)
    if result.interrupted:
        raise KeyboardInterrupt
    target.unlink(missing_ok=True)
    return result.run_dir / "final_model.zip"


class LeagueCallback(BaseCallback):
    """Keeps the league's records, trains its exploiters and re-weights it every rollout.

    Args:
        opponents: the training opponents (their ``league`` is set).
        config: the whole training config.
        run_dir: the run folder.
        state: the run's ``TrainState`` (its ``league`` entry is kept up to date).
        train: the runner's ``train``, which trains each exploiter.
    """

    def __init__(
        self,
        opponents: TrainingOpponents,
        config: TrainConfig,
        run_dir: Path,
        state: TrainState,
        train: Callable[..., Any],
    ) -> None:
        super().__init__()
        self.train = train
        self.opponents = opponents
        self.config = config
        self.run_dir = run_dir
        self.state = state
        assert opponents.league is not None
        self.league: League = opponents.league

    def _on_step(self) -> bool:
        infos, dones = self.locals["infos"], self.locals["dones"]
        for i, info in enumerate(infos):
            if info.get("hands_ended"):
                slot = self.opponents.opponent_slot(i, ended=bool(dones[i]))
                member = self.opponents.member(slot)
                if member is not None:
                    self.league.record(member[0], hand_score(int(info["hand_result"])))
        return True

    def _on_rollout_end(self) -> None:
        every = self.config.opponents.league.exploiter_every
        due = every and self.num_timesteps - self.league.last_exploiter_steps >= every
        if due and self.num_timesteps < self.config.total_timesteps:  # none after the last
            path = train_exploiter(self.config, self.run_dir, self.model, self.train)
            self.opponents.add_exploiter(path, int(self.num_timesteps))
            self.league.last_exploiter_steps = int(self.num_timesteps)
        self.opponents.update_weights()
        self.state.league = self.league.state()
        record = self.logger.record
        probabilities = self.opponents.mixture.probabilities
        members = self.opponents.members()
        for slot, member in enumerate(members):
            if member is not None:
                record(f"league/score/{member[0]}", self.league.score(member[0]))
                record(f"league/probability/{member[0]}", probabilities[slot])
        record("league/members", sum(m is not None for m in members))

"""The training callbacks: hand statistics, opponents, evaluation, checkpoints, progress.

Each is a Stable-Baselines3 ``BaseCallback`` with one job; the runner puts them in a
``CallbackList`` in this order. TensorBoard tags they write:

============================  ===========================================================
tag                           meaning
============================  ===========================================================
charts/hand_win_rate          training hands the agent won (last ``stats_window`` hands)
charts/points_per_hand        the agent's points minus the opponent's, per training hand
charts/gin_rate               training hands the agent won by gin
charts/knock_rate             training hands the agent ended by knocking (gin included)
charts/undercut_rate          the agent's knocks that were undercut
charts/draw_rate              training hands nobody scored
charts/hand_length            the agent's decisions per hand
opponents/share/<name>        share of games currently assigned to each opponent
opponents/hand_win_rate/<n>   the agent's training hand win rate against each opponent
selfplay/pool_size            snapshots in the self-play pool
eval/...                      see ``EvalCallback``
============================  ===========================================================
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from tqdm.auto import tqdm

from agents.policies.model import load_policy
from agents.policies.torch_policy import TorchPolicy
from agents.training.checkpoint import (
    TrainState,
    prune_pool_files,
    save_model,
    write_checkpoint,
)
from agents.training.config import TrainConfig
from agents.training.eval_record import EvalRecord, evaluate_opponent
from agents.training.opponents import TrainingOpponents
from hgin_env.engine.game import Outcome

_GINS = (Outcome.GIN, Outcome.BIG_GIN)


class TrainLogFlushCallback(BaseCallback):
    """Writes the pending logs (an update's ``train/*``) at the start of each rollout.

    SB3 records an update's losses after its ``dump``; without this they would appear at
    the end of the next rollout (see ``agents.training.tb_record``).
    """

    def _on_rollout_start(self) -> None:
        if self.logger.name_to_value:
            self.logger.dump(self.num_timesteps)

    def _on_step(self) -> bool:
        return True


class HandStatsCallback(BaseCallback):
    """Per-hand statistics of the training games, logged as ``charts/*`` and ``opponents/*``.

    Reads the ``hand_score``, ``outcome``, ``hand_result`` and ``agent_knocked`` that the
    VecEnv puts in the info of every game whose hand ended, and the opponent each game
    faced (``TrainingOpponents``).

    Args:
        opponents: the training opponents (for the per-opponent split).
        window: hands averaged.
    """

    def __init__(self, opponents: TrainingOpponents, window: int) -> None:
        super().__init__()
        self.opponents = opponents
        # per finished hand: (won, lost, points, gin, knocked, undercut, length, group)
        self.hands: deque[tuple] = deque(maxlen=window)
        self.decisions = np.zeros(0, dtype=np.int64)  # per game, sized at training start

    def _on_training_start(self) -> None:
        self.decisions = np.zeros(self.training_env.num_envs, dtype=np.int64)

    def _on_step(self) -> bool:
        self.decisions += 1
        infos, dones = self.locals["infos"], self.locals["dones"]
        for i, info in enumerate(infos):
            if not info.get("hands_ended"):
                continue
            score, outcome = int(info["hand_score"]), int(info["outcome"])
            # who scored and who knocked come from the engine: with undercut_bonus 0 an
            # undercut can score 0 points, so the score's sign alone would miss it
            won, lost = info["hand_result"] > 0, info["hand_result"] < 0
            knocked = bool(info["agent_knocked"])
            group = self.opponents.opponent_group(i, ended=bool(dones[i]))
            self.hands.append(
                (won, lost, score, won and outcome in _GINS, knocked,
                 knocked and outcome == Outcome.UNDERCUT, self.decisions[i], group)
            )  # fmt: skip
            self.decisions[i] = 0
        return True

    def _on_rollout_end(self) -> None:
        belief = getattr(self.model.policy, "belief_stats", None)
        stats = belief() if belief is not None else None
        if stats is not None:  # the previous update's belief loss (ppo.belief_coef)
            self.logger.record("train/belief_loss", stats[0])
            self.logger.record("train/belief_accuracy", stats[1])
        if not self.hands:
            return
        cols = list(zip(*self.hands, strict=True))
        won, lost, points, gin, knocked, undercut, length = (
            np.asarray(c, dtype=float) for c in cols[:7]
        )
        record = self.logger.record
        record("charts/hand_win_rate", won.mean())
        record("charts/points_per_hand", points.mean())
        record("charts/gin_rate", gin.mean())
        record("charts/knock_rate", knocked.mean())
        record("charts/undercut_rate", undercut.sum() / knocked.sum() if knocked.any() else 0.0)
        record("charts/draw_rate", 1.0 - won.mean() - lost.mean())
        record("charts/hand_length", length.mean())
        groups = np.asarray(cols[7])
        for name, share in self.opponents.shares().items():
            record(f"opponents/share/{name}", share)
            mine = groups == name
            if mine.any():
                record(f"opponents/hand_win_rate/{name}", won[mine].mean())
        if self.opponents.pool is not None:
            record("selfplay/pool_size", len(self.opponents.pool))


class SelfPlayCallback(BaseCallback):
    """Adds a snapshot of the agent to the self-play pool every ``snapshot_every`` steps.

    Args:
        opponents: the training opponents holding the pool.
        every: steps between snapshots.
        state: the run's ``TrainState`` (its ``last_snapshot_steps`` is kept up to date).
    """

    def __init__(self, opponents: TrainingOpponents, every: int, state: TrainState) -> None:
        super().__init__()
        self.opponents = opponents
        self.every = every
        self.state = state

    def _on_step(self) -> bool:
        if self.num_timesteps - self.state.last_snapshot_steps >= self.every:
            self._snapshot()
        return True

    def _snapshot(self) -> None:
        self.opponents.add_snapshot(self.model)
        self.state.last_snapshot_steps = self.num_timesteps
        # (selfplay/pool_size is logged at each rollout's end by HandStatsCallback: logged
        # here as well, it got two points at one step when an evaluation dumped in between)


class EvalCallback(BaseCallback):
    """Evaluates the agent against each ``eval.opponents`` entry every ``eval.every_steps``.

    Each evaluation plays ``n_hands`` single hands (``hand_eval``) and ``n_series`` full
    Hollywood series (``agents.evaluation.evaluate``) per opponent, on the same seeded
    deals every time, and logs (``<opp>`` is the opponent's name):

    - ``eval/hand_win_rate/<opp>``, ``eval/points_per_hand/<opp>``,
      ``eval/gin_rate/<opp>``, ``eval/knock_rate/<opp>``, ``eval/undercut_rate/<opp>``:
      over the single hands (over the series' hands when ``n_hands`` is 0);
    - ``eval/series_win_rate/<opp>`` and ``eval/series_<metric>/<opp>`` for each of the
      five above: the series (``agents.training.eval_record.evaluate_opponent``);
    - ``eval/<best_metric>`` (mean over opponents) and ``eval/best_<best_metric>``.

    The model with the best mean ``best_metric`` so far is saved as ``best_model.zip``;
    ``eval.json`` holds the latest evaluation in full, the best one and a short history
    (``agents.training.eval_record``, shared with the rllib backend; it also says how a
    resumed run keeps them).

    Args:
        config: the whole training config (``eval`` and ``rules`` are used).
        run_dir: the run folder.
        state: the run's ``TrainState`` (best metric, last evaluation step).
        on_result: called with a one-line summary after each evaluation (progress bar).
    """

    def __init__(
        self,
        config: TrainConfig,
        run_dir: Path,
        state: TrainState,
        on_result: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self.config = config.eval
        self.rules = config.rules
        self.seed = config.eval.seed
        self.run_dir = run_dir
        self.state = state
        self.on_result = on_result
        self.opponents = {name: load_policy(name, self.seed) for name in self.config.opponents}
        self.record = EvalRecord(run_dir, config.eval.best_metric, "best_model.zip", state)

    @property
    def history(self) -> list[dict[str, Any]]:
        """The run's evaluations so far (``eval.json``'s history)."""
        return self.record.history

    def _on_step(self) -> bool:
        every = self.config.every_steps
        if every and self.num_timesteps - self.state.last_eval_steps >= every:
            self.run_evaluation()
        return True

    def run_evaluation(self) -> dict[str, Any]:
        """Evaluate now, log, keep the best model and write ``eval.json``; returns the entry."""
        start = time.perf_counter()
        agent = TorchPolicy(
            self.model.policy, deterministic=self.config.deterministic, seed=self.seed
        )
        results = {
            name: self._evaluate_one(agent, name, opponent)
            for name, opponent in self.opponents.items()
        }
        steps = self.model.num_timesteps
        entry = self.record.add(
            results,
            steps,
            start,
            self.logger.record,
            lambda: save_model(self.model, self.run_dir / "best_model.zip"),
        )
        self.logger.dump(steps)
        if self.on_result is not None:
            metric = self.config.best_metric
            self.on_result(" ".join(f"{n}:{r['summary'][metric]:.2f}" for n, r in results.items()))
        return entry

    def _evaluate_one(self, agent: TorchPolicy, name: str, opponent: Any) -> dict[str, Any]:
        """Single hands and series against one opponent (``evaluate_opponent``)."""
        return evaluate_opponent(agent, name, opponent, self.config, self.rules, self.seed)


class CheckpointCallback(BaseCallback):
    """Writes ``checkpoints/ckpt_<steps>.zip`` (+ state json) every ``every_steps``.

    Args:
        folder: the run's ``checkpoints/`` folder.
        every: steps between checkpoints (0: never on a schedule).
        keep: newest checkpoints kept.
        state: the run's ``TrainState``.
        state_update: called before each write to refresh ``state`` (the pool files).
    """

    def __init__(
        self,
        folder: Path,
        every: int,
        keep: int,
        state: TrainState,
        state_update: Callable[[], None],
    ) -> None:
        super().__init__()
        self.folder = folder
        self.every = every
        self.keep = keep
        self.state = state
        self.state_update = state_update

    def _on_step(self) -> bool:
        if self.every and self.num_timesteps - self.state.last_checkpoint_steps >= self.every:
            self.save()
        return True

    def save(self) -> Path:
        """Write a checkpoint of the model now; returns its path.

        Then the self-play snapshots that neither the pool nor a kept checkpoint lists
        are deleted (an evicted snapshot stays while an older checkpoint needs it).
        """
        self.state_update()
        path = write_checkpoint(self.model, self.folder, self.state, self.keep)
        prune_pool_files(self.folder.parent, self.state.pool)
        return path


class ProgressCallback(BaseCallback):
    """A tqdm bar over the run's steps with the fps and the latest evaluation.

    Args:
        total: the run's total steps.
        enabled: show the bar (else only keep the fps).
    """

    def __init__(self, total: int, enabled: bool = True) -> None:
        super().__init__()
        self.total = total
        self.enabled = enabled
        self.bar: tqdm | None = None
        self.latest_eval = "-"
        self._t0 = 0.0
        self._steps0 = 0
        self._last_refresh = 0.0

    def _on_training_start(self) -> None:
        self._t0 = time.perf_counter()
        self._steps0 = self.model.num_timesteps
        self.bar = tqdm(
            total=self.total,
            initial=self._steps0,
            unit="step",
            unit_scale=True,
            dynamic_ncols=True,
            disable=not self.enabled,
            desc="train",
        )

    @property
    def fps(self) -> float:
        """Steps per second since this training session started."""
        elapsed = time.perf_counter() - self._t0
        return (self.num_timesteps - self._steps0) / elapsed if elapsed > 0 else 0.0

    def set_eval(self, text: str) -> None:
        """Show ``text`` as the latest evaluation."""
        self.latest_eval = text
        self._refresh(force=True)

    def _on_step(self) -> bool:
        self._refresh()
        return True

    def _refresh(self, force: bool = False) -> None:
        if self.bar is None:
            return
        now = time.perf_counter()
        if not force and now - self._last_refresh < 0.5:
            return
        self._last_refresh = now
        self.bar.n = min(self.num_timesteps, self.total)
        self.bar.set_postfix_str(f"fps={self.fps:,.0f} eval[{self.latest_eval}]", refresh=True)

    def _on_training_end(self) -> None:
        self.close()

    def close(self) -> None:
        """Close the bar (idempotent)."""
        if self.bar is not None:
            self._refresh(force=True)
            self.bar.close()
            self.bar = None

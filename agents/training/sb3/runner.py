"""Train a MaskablePPO agent on the batched Hollywood Gin VecEnv, top to bottom.

``train(config)`` does, in order:

1. make the run folder ``runs/<experiment>__<seed>__<YYYYmmdd-HHMMSS>/`` (or, with
   ``resume``, reopen a run folder and its newest checkpoint, after removing what a
   killed session left: temporary files, half checkpoints, TensorBoard events and
   evaluation history past the checkpoint);
2. build the opponents (bots, models, self-play pool: one ``MixturePolicy``, or the
   only opponent itself) and the batched ``HollywoodGinVecEnv`` around them;
3. build the ``MaskablePPO`` model from ``config.ppo`` (or load the checkpoint:
   network, optimizer and step counter) and save the resolved ``config.yaml``; a fresh
   run then applies ``config.pretrain`` (start weights, imitation of a teacher:
   ``agents.training.sb3.pretrain``) and writes a checkpoint;
4. build the callbacks (hand statistics, self-play snapshots, the league's records,
   evaluation, checkpoints, progress bar) and log the hyperparameters;
5. MaskablePPO's loop (a rollout, an update) for the remaining steps, with a league
   exploiter trained between two updates when one is due (``SB3Session.learn``); an
   env worker that dies writes a checkpoint and raises ``EnvWorkerError`` with the
   resume command;
6. a final evaluation and checkpoint, then ``final_model/`` and ``final_model.zip``.

Steps 5 and 6, Ctrl-C while training (a checkpoint, then stop) and Ctrl-C before the
first checkpoint of a fresh run (the run folder is removed, so the same command and
``--run-name`` start the run again) are the core's, the same on every backend
(``agents.training.run``).

Run folder::

    runs/<name>/
      config.yaml          the resolved config (every field)
      tb/                  TensorBoard event files
      checkpoints/         ckpt_<steps>.zip + ckpt_<steps>.json (atomic, newest kept)
      pool/                self-play snapshots (snapshot_<steps>.zip)
      best_model.zip       the best model by eval.best_metric
      eval.json            the latest evaluation in full, the best, and the history
      pretrain.json        what config.pretrain did (only when it did something)
      exploiters/          the league's exploiters (exploiter_<steps>/, each a run folder)
      final_model/         the model at the end of training, as a saved policy
                           (hgin_policy.json + weights.safetensors: what plays)
      final_model.zip      the same model as a whole MaskablePPO (to fine-tune from)
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import HParam, configure
from stable_baselines3.common.vec_env import VecMonitor

from agents.training.best_response import best_response_config
from agents.training.checkpoint import CheckpointError, TrainState, save_model
from agents.training.config import ConfigError, TrainConfig, save_config
from agents.training.opponents import TrainingOpponents, attach
from agents.training.run import RunStart, TrainResult, drive, open_run, start
from agents.training.sb3.callbacks import (
    CheckpointCallback,
    EvalCallback,
    HandStatsCallback,
    ProgressCallback,
    SelfPlayCallback,
    TrainLogFlushCallback,
)
from agents.training.sb3.league_callback import LeagueCallback
from agents.training.sb3.model import make_model, open_model_zip, ppo_kwargs, save_policy_of
from agents.training.sb3.pretrain import pretrain
from hgin_env.engine.keys import SeedStream, session_seed, sub_seed
from hgin_env.envs.policy import PolicyLoadError
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
from hgin_env.envs.workers import EnvWorkerError


def check_device(device: str) -> None:
    """Refuse a ``ppo.device`` this machine's torch cannot use (``auto`` always works).

    Raises:
        ConfigError: an unknown device name, or ``cuda``/``mps`` where torch sees none.
    """
    if device == "auto":
        return
    try:
        kind = torch.device(device).type
    except (RuntimeError, TypeError) as exc:
        raise ConfigError(f"ppo.device {device!r} is not a torch device ({exc})") from exc
    if kind == "cuda" and not torch.cuda.is_available():
        raise ConfigError(
            f"ppo.device is {device!r} but torch {torch.__version__} finds no CUDA device; "
            "use ppo.device=cpu (or auto: a GPU when there is one)"
        )
    if kind == "mps" and not torch.backends.mps.is_available():
        raise ConfigError(f"ppo.device is {device!r} but torch finds no MPS device")


def load_checkpoint(
    path: Path, env: Any, custom_objects: dict[str, Any] | None = None, device: str = "cpu"
) -> Any:
    """Load a MaskablePPO checkpoint onto ``env`` (optimizer and step counter included).

    ``device`` is the torch device the resumed model trains on (``ppo.device``).

    Raises:
        CheckpointError: a missing or corrupt file, naming it.
    """
    try:
        return open_model_zip(path, env=env, device=device, custom_objects=custom_objects)
    except PolicyLoadError as exc:  # the model zip's one error text, as a checkpoint problem
        raise CheckpointError(str(exc)) from exc


def make_env(config: TrainConfig, opponents: TrainingOpponents) -> VecMonitor:
    """The batched VecEnv (``ppo.n_envs`` games) against the opponent mixture.

    The games step in ``ppo.env_workers`` processes (1: in this one).

    Wrapped in ``VecMonitor`` so SB3 logs ``rollout/ep_rew_mean`` and ``ep_len_mean``.
    """
    env = HollywoodGinVecEnv(
        n_envs=config.ppo.n_envs,
        opponent=opponents.policy,
        config=config.env,
        rules=config.rules,
        seed=0,
        workers=config.ppo.env_workers,
    )
    if opponents.policy is opponents.mixture:
        opponents.apply = attach(env, opponents.mixture)
    return VecMonitor(env)


def hparams(config: TrainConfig) -> HParam:
    """The hyperparameters for TensorBoard's HPARAMS tab (flat scalars of the config)."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}{k}.", v)
        elif isinstance(value, list):
            flat[prefix[:-1]] = str(value)
        else:
            flat[prefix[:-1]] = value if isinstance(value, bool | int | float | str) else str(value)

    walk("", config.to_dict())
    metric = config.eval.best_metric
    return HParam(flat, {f"eval/{metric}": 0.0, "charts/hand_win_rate": 0.0})


def train(
    config: TrainConfig | None = None,
    run_name: str | None = None,
    resume: str | Path | None = None,
    overrides: list[str] | tuple[str, ...] = (),
) -> TrainResult:
    """Train (or resume) a run; see the module docstring for the steps and the run folder.

    Args:
        config: the resolved config (ignored with ``resume``; default: ``default.yaml``).
        run_name: the run folder's name instead of ``<experiment>__<seed>__<time>``.
        resume: a run folder to continue from its newest checkpoint.
        overrides: with ``resume``: ``key=value`` changes to the saved config.

    Returns:
        The ``TrainResult``.

    Raises:
        ConfigError: an invalid config or an existing run folder.
        CheckpointError: ``resume`` without a usable checkpoint (the message names it).
    """
    # 1. the run folder and its config
    run = open_run(config, run_name, resume, overrides, lambda c: check_device(c.ppo.device))
    return start(run, _session)


def _session(run: RunStart) -> TrainResult:
    """Steps 2 to 6 of ``train`` in a run folder that is ready (see the module docstring)."""
    config, run_dir, checkpoint, state = run.config, run.run_dir, run.checkpoint, run.state
    torch.set_num_threads(config.ppo.torch_threads)

    # 2. opponents and the batched environment
    opponents = TrainingOpponents(
        config.opponents, config.ppo.n_envs, run_dir / "pool", config.seed
    )
    opponents.restore_pool(run_dir, state.pool, state.league)
    env = make_env(config, opponents)

    # 3. the model: new, or the checkpoint (optimizer and step counter included)
    if checkpoint is None:
        model = make_model(config, env)
    else:
        model = load_checkpoint(
            checkpoint, env, custom_objects=ppo_kwargs(config), device=config.ppo.device
        )
        steps = model.num_timesteps
        model.set_random_seed(sub_seed(config.seed, SeedStream.RESUME, steps, bits=32))
        print(f"resuming {run_dir} from {checkpoint.name} at step {model.num_timesteps:,}")
    save_config(config, run_dir / "config.yaml")
    model.set_logger(configure(str(run_dir / "tb"), ["tensorboard"]))
    pretrained = checkpoint is None and config.pretrain.active
    if pretrained:  # start weights and imitation (a resumed run has them in its checkpoint)
        env.seed(sub_seed(config.seed, SeedStream.PRETRAIN_DEALS, bits=62))
        try:
            summary = pretrain(model, env, config, model.logger)
        except KeyboardInterrupt:
            model.logger.close()  # the run folder goes (see ``train``)
            env.close()
            raise
        (run_dir / "pretrain.json").write_text(json.dumps(summary, indent=2))
    env.seed(session_seed(config.seed, model.num_timesteps))
    if opponents.needs_initial_snapshot():  # pure self-play starts against its initial self
        opponents.add_snapshot(model)
        state.last_snapshot_steps = model.num_timesteps

    # 4. callbacks and the hyperparameters
    session = SB3Session(model, env, config, run_dir, state, opponents)
    if pretrained:  # so that --resume does not pretrain again
        session.checkpoint()
    model.logger.record("hparams", hparams(config))
    model.logger.record("config", f"```yaml\n{config.to_yaml()}```")
    model.logger.dump(model.num_timesteps)

    # 5. learn, then 6. the final evaluation, checkpoint and model; Ctrl-C writes a checkpoint
    return drive(session)


class SB3Session:
    """One SB3 training session: the model, its env, its callbacks, the league's exploiters.

    ``learn`` is MaskablePPO's own loop (collect a rollout, update) written out, so that
    the runner, not a callback, trains the league's exploiters between two updates.
    """

    resume_command = "python train.py --resume"

    def __init__(
        self,
        model: MaskablePPO,
        env: VecMonitor,
        config: TrainConfig,
        run_dir: Path,
        state: TrainState,
        opponents: TrainingOpponents,
    ) -> None:
        self.model, self.env, self.config, self.run_dir = model, env, config, run_dir
        self.state, self.opponents = state, opponents
        self.progress = ProgressCallback(config.total_timesteps, enabled=config.progress_bar)
        self.evaluation = EvalCallback(config, run_dir, state, on_result=self.progress.set_eval)
        self.checkpoints = CheckpointCallback(
            run_dir / "checkpoints",
            config.checkpoint.every_steps,
            config.checkpoint.keep,
            state,
            self._refresh_state,
        )
        self.league = LeagueCallback(opponents, state) if opponents.league is not None else None
        self.callbacks: list[BaseCallback] = [
            TrainLogFlushCallback(),
            HandStatsCallback(opponents, config.stats_window),
        ]
        if opponents.pool is not None:
            self.callbacks.append(SelfPlayCallback(opponents, opponents.snapshot_every, state))
        if self.league is not None:
            self.callbacks.append(self.league)
        self.callbacks += [self.evaluation, self.checkpoints, self.progress]

    def _refresh_state(self) -> None:
        opponents, state = self.opponents, self.state
        state.pool = opponents.pool.files(self.run_dir) if opponents.pool is not None else []
        state.league = opponents.league.state() if opponents.league is not None else {}

    @property
    def steps(self) -> int:
        """The model's step counter."""
        return int(self.model.num_timesteps)

    @property
    def history(self) -> list[dict[str, Any]]:
        """The run's evaluations so far."""
        return self.evaluation.history

    def learn(self) -> None:
        """Rollouts and PPO updates to ``total_timesteps``; an exploiter when one is due.

        Raises:
            EnvWorkerError: an env worker died (a checkpoint is written first; the
                message says how to resume).
        """
        model, remaining = self.model, self.config.total_timesteps - self.steps
        try:
            if remaining > 0:
                total, callback = model._setup_learn(
                    remaining, CallbackList(self.callbacks), reset_num_timesteps=False
                )
                callback.on_training_start(locals(), globals())
                env, iteration = model.get_env(), 0
                assert env is not None
                while model.num_timesteps < total:  # MaskablePPO.learn's loop, written out
                    if not model.collect_rollouts(
                        env, callback, model.rollout_buffer, model.n_steps
                    ):
                        break
                    iteration += 1
                    model._update_current_progress_remaining(model.num_timesteps, total)
                    model.dump_logs(iteration)
                    model.train()
                    if self._exploiter_due():
                        self._add_exploiter()
                callback.on_training_end()
                model.logger.dump(model.num_timesteps)  # the last update's train/* (tb_record)
        except EnvWorkerError as exc:  # a worker died: save what the model has, then stop
            path = self.checkpoint()
            raise EnvWorkerError(
                f"{exc}; training stopped at step {self.steps:,}, checkpoint {path} "
                f"written; continue with: {self.resume_command} {self.run_dir}"
            ) from exc
        finally:
            self.progress.close()

    def _exploiter_due(self) -> bool:
        """Whether the league trains an exploiter now (never after the last update)."""
        if self.opponents.league is None:
            return False
        every = self.config.opponents.league.exploiter_every
        since = self.steps - self.opponents.league.last_exploiter_steps
        return bool(every) and since >= every and self.steps < self.config.total_timesteps

    def _add_exploiter(self) -> None:
        """Train an exploiter against the learner as it is now and put it in the league."""
        league = self.opponents.league
        assert league is not None
        path = train_exploiter(self.config, self.run_dir, self.model)
        self.opponents.add_exploiter(path, self.steps)
        league.last_exploiter_steps = self.steps
        self.opponents.update_weights()
        self.state.league = league.state()

    def run_evaluation(self) -> dict[str, Any]:
        """Evaluate the model now (``EvalCallback``)."""
        self.evaluation.init_callback(self.model)
        return self.evaluation.run_evaluation()

    def checkpoint(self) -> Path:
        """Write a checkpoint of the model now."""
        self.checkpoints.init_callback(self.model)
        return self.checkpoints.save()

    def save_final(self) -> None:
        """Write ``final_model/`` (the saved policy: what plays) and ``final_model.zip``.

        The zip is the whole MaskablePPO (optimizer included), to fine-tune from.
        """
        save_model(self.model, self.run_dir / "final_model.zip")
        save_policy_of(self.model, self.run_dir / "final_model", self.config.to_dict()["rules"])

    def close(self) -> None:
        """Close the progress bar, the logger and the env workers."""
        self.progress.close()
        self.model.logger.close()
        self.env.close()


def train_exploiter(config: TrainConfig, run_dir: Path, model: MaskablePPO) -> Path:
    """Train one exploiter against a frozen copy of ``model``; returns its model file.

    The learner is saved as ``exploiters/target_<steps>.zip``; the exploiter trains in
    ``exploiters/exploiter_<steps>/`` (a folder left by a stopped session is replaced) on
    the learner's env, rules and network settings (``agents.training.best_response``).

    Raises:
        KeyboardInterrupt: when the exploiter's training was interrupted.
    """
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

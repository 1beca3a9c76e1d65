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
4. build the callbacks (hand statistics, self-play snapshots, evaluation,
   checkpoints, progress bar) and log the hyperparameters;
5. ``model.learn`` for the remaining steps; Ctrl-C writes a checkpoint and stops (so
   does an env worker that dies, raising ``EnvWorkerError`` with the resume command);
6. a final evaluation and checkpoint, then ``final_model.zip``.

Ctrl-C before the first checkpoint of a fresh run (while building it or pretraining)
has nothing to save: the run folder is removed, so the same command (and
``--run-name``) starts the run again.

Run folder::

    runs/<name>/
      config.yaml          the resolved config (every field)
      tb/                  TensorBoard event files
      checkpoints/         ckpt_<steps>.zip + ckpt_<steps>.json (atomic, newest kept)
      pool/                self-play snapshots (snapshot_<steps>.zip)
      best_model.zip       the best model by eval.best_metric
      eval.json            the latest evaluation in full, the best, and the history
      pretrain.json        what config.pretrain did (only when it did something)
      final_model.zip      the model at the end of training
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import CallbackList
from stable_baselines3.common.logger import HParam, configure
from stable_baselines3.common.vec_env import VecMonitor

from agents.training.card_net import CardNetPolicy
from agents.training.checkpoint import (
    CheckpointError,
    TrainState,
    clean_run_folder,
    latest_checkpoint,
    list_checkpoints,
    load_model,
    read_state,
    save_model,
)
from agents.training.config import ConfigError, TrainConfig, load_config, save_config
from agents.training.opponents import TrainingOpponents, attach
from agents.training.sb3.callbacks import (
    CheckpointCallback,
    EvalCallback,
    HandStatsCallback,
    ProgressCallback,
    SelfPlayCallback,
)
from agents.training.sb3.league_callback import LeagueCallback
from agents.training.sb3.pretrain import pretrain
from agents.training.tb_record import TrainLogFlushCallback, truncate_events
from hgin_env.engine.keys import SeedStream, session_seed, sub_seed
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
from hgin_env.envs.workers import EnvWorkerError

#: fields a resumed run may not change (the network's shape lives in the checkpoint)
FROZEN_ON_RESUME = (
    "policy",
    "net_arch",
    "card_channels",
    "card_blocks",
    "belief_coef",
    "activation",
    "ortho_init",
)


@dataclass
class TrainResult:
    """What ``train`` returns.

    Attributes:
        run_dir: the run folder.
        steps: the model's step counter at the end.
        interrupted: training stopped on Ctrl-C (a checkpoint was written).
        fps: environment steps per second of this session (evaluations included).
        seconds: wall time of this session.
        final_eval: the last evaluation entry (None if none ran).
    """

    run_dir: Path
    steps: int
    interrupted: bool
    fps: float
    seconds: float
    final_eval: dict[str, Any] | None


def make_run_dir(config: TrainConfig, run_name: str | None = None) -> Path:
    """A new run folder: ``<runs_dir>/<run_name>`` or ``<experiment>__<seed>__<time>``.

    Raises:
        ConfigError: when the folder already exists (use ``--resume`` to continue it),
            the name is not a plain folder name (a path separator, ``..``), or the folder
            cannot be created (the message names it and the reason).
    """
    if run_name is not None and (
        not run_name or "/" in run_name or "\\" in run_name or run_name in (".", "..")
    ):
        raise ConfigError(
            f"--run-name must be a plain folder name (no '/', '\\' or '..'), got {run_name!r}"
        )
    name = run_name or f"{config.experiment}__{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = Path(config.runs_dir) / name
    if run_dir.is_dir() and any(run_dir.iterdir()):
        if not list_checkpoints(run_dir / "checkpoints"):
            raise ConfigError(
                f"run folder {run_dir} already exists but holds no checkpoint (it stopped "
                "before its first one, so there is nothing to resume): delete it to reuse "
                "the name, or pick another --run-name"
            )
        raise ConfigError(
            f"run folder {run_dir} already exists; pick another --run-name, "
            f"or continue it with --resume {run_dir}"
        )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        probe = run_dir / ".write_probe"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise ConfigError(f"cannot create the run folder {run_dir}: {exc.strerror or exc}") from exc
    return run_dir


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


def load_run_config(run_dir: Path, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """The config saved in a run folder, with ``--set`` overrides for the resumed part.

    Raises:
        CheckpointError: when the folder has no ``config.yaml``.
        ConfigError: for an invalid override, or one that changes the network's shape.
    """
    path = run_dir / "config.yaml"
    if not path.is_file():
        raise CheckpointError(f"{run_dir} is not a run folder (no config.yaml)")
    saved = load_config(path)
    config = load_config(path, overrides)
    for name in FROZEN_ON_RESUME:
        if getattr(saved.ppo, name) != getattr(config.ppo, name):
            raise ConfigError(f"ppo.{name} cannot change when resuming (the network is saved)")
    return config


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


def ppo_kwargs(config: TrainConfig) -> dict[str, Any]:
    """MaskablePPO's keyword arguments from ``config.ppo`` (those a checkpoint may update)."""
    p = config.ppo
    learning_rate: Any = p.learning_rate
    if p.lr_schedule == "linear":
        learning_rate = LinearSchedule(p.learning_rate)
    return {
        "learning_rate": learning_rate,
        "n_steps": p.n_steps,
        "batch_size": p.batch_size,
        "n_epochs": p.n_epochs,
        "gamma": p.gamma,
        "gae_lambda": p.gae_lambda,
        "clip_range": p.clip_range,
        "ent_coef": p.ent_coef,
        "vf_coef": p.vf_coef,
        "max_grad_norm": p.max_grad_norm,
        "target_kl": p.target_kl,
        "normalize_advantage": p.normalize_advantage,
    }


class LinearSchedule:
    """Learning rate decaying linearly from ``start`` to 0 (``progress`` goes 1 -> 0)."""

    def __init__(self, start: float) -> None:
        self.start = start

    def __call__(self, progress_remaining: float) -> float:
        """The rate at ``progress_remaining`` (1 at the start of training, 0 at the end).

        SB3 passes ``1 - num_timesteps / total_timesteps`` before each update. Training
        stops after the first whole rollout past ``total_timesteps``, so the last update
        gets a negative value: the rate is clamped at 0 (never negative).
        """
        return self.start * max(progress_remaining, 0.0)


def make_model(config: TrainConfig, env: VecMonitor) -> MaskablePPO:
    """A fresh MaskablePPO for ``ppo.policy``.

    ``mlp``: separate policy and value MLPs of ``ppo.net_arch``; ``cards``: the card
    network of ``agents.training.card_net``.
    """
    p = config.ppo
    activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[p.activation]
    policy: Any = "MlpPolicy"
    policy_kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(p.net_arch), "vf": list(p.net_arch)},
        "activation_fn": activation,
        "ortho_init": p.ortho_init,
    }
    if p.policy == "cards":
        policy = CardNetPolicy
        policy_kwargs.update(
            net_arch=list(p.net_arch), channels=p.card_channels, blocks=p.card_blocks
        )
        if p.belief_coef:
            policy_kwargs["belief_coef"] = p.belief_coef
    return MaskablePPO(
        policy,
        env,
        **ppo_kwargs(config),
        policy_kwargs=policy_kwargs,
        seed=config.seed,
        device=p.device,
        verbose=0,
    )


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
    try:
        return _session(run.config, run.run_dir, run.checkpoint, run.state)
    except KeyboardInterrupt:  # before the training loop, which handles its own
        return interrupted_early(run)


@dataclass
class RunStart:
    """A run folder ready to train in: new, or resumed at its newest checkpoint."""

    config: TrainConfig
    run_dir: Path
    checkpoint: Path | None
    state: TrainState


def open_run(
    config: TrainConfig | None,
    run_name: str | None,
    resume: str | Path | None,
    overrides: list[str] | tuple[str, ...],
    check: Callable[[TrainConfig], None],
) -> RunStart:
    """Create a run folder, or resume one: the one lifecycle of both training backends.

    A new run gets a new folder (``make_run_dir``). A resumed one loads its saved config
    (with ``overrides``), loses what a killed session left (``clean_run_folder``: temporary
    files, half-written checkpoints) and the TensorBoard events logged past its newest
    checkpoint (``truncate_events``), and continues from that checkpoint.

    Args:
        config: the config of a new run (default ``default.yaml``).
        run_name: the new run folder's name.
        resume: the run folder to resume, or None.
        overrides: with ``resume``: ``key=value`` changes to the saved config.
        check: the backend's check of the config, run before any file is touched.

    Raises:
        ConfigError: an invalid config or an existing run folder.
        CheckpointError: ``resume`` without a usable checkpoint.
    """
    if resume is None:
        config = config or load_config()
        check(config)
        return RunStart(config, make_run_dir(config, run_name), None, TrainState())
    run_dir = Path(resume)
    config = load_run_config(run_dir, overrides)
    check(config)
    for path in clean_run_folder(run_dir):
        print(f"removed {path} (left by a stopped session)")
    checkpoint = latest_checkpoint(run_dir / "checkpoints")
    state = read_state(checkpoint)
    truncate_events(run_dir / "tb", state.steps)  # what a killed session logged past it
    return RunStart(config, run_dir, checkpoint, state)


def interrupted_early(run: RunStart) -> TrainResult:
    """Ctrl-C before the training loop: a new run with no checkpoint leaves no folder."""
    run_dir = run.run_dir
    if run.checkpoint is None and not list_checkpoints(run_dir / "checkpoints"):
        shutil.rmtree(run_dir, ignore_errors=True)
        print(
            f"\ninterrupted before the first checkpoint: nothing to resume, so {run_dir} "
            "was removed; run the same command to start again"
        )
    else:
        print(f"\ninterrupted before training began; continue with --resume {run_dir}")
    return TrainResult(run_dir, int(run.state.steps), True, 0.0, 0.0, None)


def _session(
    config: TrainConfig, run_dir: Path, checkpoint: Path | None, state: TrainState
) -> TrainResult:
    """Steps 2 to 6 of ``train`` in a run folder that is ready (see the module docstring)."""
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
        model = load_model(
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
    progress = ProgressCallback(config.total_timesteps, enabled=config.progress_bar)
    evaluation = EvalCallback(config, run_dir, state, on_result=progress.set_eval)

    def refresh_state() -> None:
        state.pool = opponents.pool.files(run_dir) if opponents.pool is not None else []
        state.league = opponents.league.state() if opponents.league is not None else {}

    checkpoints = CheckpointCallback(
        run_dir / "checkpoints",
        config.checkpoint.every_steps,
        config.checkpoint.keep,
        state,
        refresh_state,
    )
    if pretrained:  # so that --resume does not pretrain again
        checkpoints.init_callback(model)
        checkpoints.save()
    callbacks = [TrainLogFlushCallback(), HandStatsCallback(opponents, config.stats_window)]
    if opponents.pool is not None:
        callbacks.append(SelfPlayCallback(opponents, opponents.snapshot_every, state))
    if opponents.league is not None:
        callbacks.append(LeagueCallback(opponents, config, run_dir, state, train))
    callbacks += [evaluation, checkpoints, progress]
    model.logger.record("hparams", hparams(config))
    model.logger.record("config", f"```yaml\n{config.to_yaml()}```")
    model.logger.dump(model.num_timesteps)

    # 5. learn, then 6. the final evaluation, checkpoint and model; Ctrl-C writes a checkpoint
    start, steps0 = time.perf_counter(), model.num_timesteps
    remaining = config.total_timesteps - model.num_timesteps
    interrupted, final_eval, seconds = False, None, 0.0
    try:
        if remaining > 0:
            model.learn(remaining, callback=CallbackList(callbacks), reset_num_timesteps=False)
            model.logger.dump(model.num_timesteps)  # the last update's train/* (tb_record)
        seconds = time.perf_counter() - start
        progress.close()
        evaluation.init_callback(model)
        if state.last_eval_steps != model.num_timesteps or not evaluation.history:
            final_eval = evaluation.run_evaluation()
        else:
            final_eval = evaluation.history[-1]
        checkpoints.init_callback(model)
        if state.last_checkpoint_steps != model.num_timesteps:
            checkpoints.save()
        save_model(model, run_dir / "final_model.zip")
    except KeyboardInterrupt:
        interrupted = True
        seconds = seconds or time.perf_counter() - start
        progress.close()
        checkpoints.init_callback(model)
        path = checkpoints.save()
        print(
            f"\ninterrupted at step {model.num_timesteps:,}: checkpoint {path} written.\n"
            f"continue with: python train.py --resume {run_dir}"
        )
    except EnvWorkerError as exc:  # a worker died: save what the model has, then stop
        progress.close()
        env.close()
        checkpoints.init_callback(model)
        path = checkpoints.save()
        model.logger.close()
        raise EnvWorkerError(
            f"{exc}; training stopped at step {model.num_timesteps:,}, checkpoint {path} "
            f"written; continue with: python train.py --resume {run_dir}"
        ) from exc
    except BaseException:
        env.close()  # end the env workers before the error propagates
        raise
    fps = (model.num_timesteps - steps0) / seconds if seconds > 0 else 0.0
    model.logger.close()
    env.close()
    return TrainResult(run_dir, int(model.num_timesteps), interrupted, fps, seconds, final_eval)

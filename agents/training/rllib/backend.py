"""``train.py --backend rllib``: the project's YAML configs trained by RLlib's PPO on Ray.

The same config file and run folder as the SB3 path (``agents.training.sb3.runner``), trained
by RLlib's PPO on its new API stack (RLModule / Learner / EnvRunner):

- each env runner steps one batched env of ``ppo.n_envs`` games
  (``agents.training.rllib.env``: NEXT_STEP autoreset, the action mask in the
  observation), and the RLModule masks its own logits (``agents.training.rllib.module``);
- ``opponents.selfplay.enabled``: shared-policy self-play instead, both seats of
  ``ppo.n_envs`` PettingZoo games per env runner played by one module, ``shared``
  (``agents.training.rllib.selfplay``; no snapshot pool, so its fields are refused);
- ``ppo.*`` maps onto ``PPOConfig`` as in ``FIELD_MAP``; fields RLlib has no meaning for
  are refused with a ``ConfigError`` naming the field (``check_config``);
- evaluations use the project's own evaluator (``agents.evaluation.evaluate`` and the
  single-hand ``evaluate_hands``) against ``eval.opponents`` and log the ``eval/`` tags of
  the SB3 path; ``best_model/`` follows ``eval.best_metric``;
- the learner runs in the driver with ``ppo.torch_threads`` threads (with torch's default
  of one thread per core it stalled 20-30 s per update while env runners shared the
  cores).

Run folder::

    runs/<name>/
      config.yaml                  the resolved config
      tb/                          TensorBoard: eval/..., rollout/..., train/..., time/...
      checkpoints/ckpt_<steps>/    RLlib Algorithm checkpoints (+ ckpt_<steps>.json state)
      best_model/, final_model/    the policy alone: hgin_policy.json + weights.safetensors
      eval.json                    the latest evaluation, the best one and the history

``evaluate.py runs/<name> simple`` and ``play.py`` load ``final_model/`` with torch
alone (``agents.policies.saved``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from agents.cluster.ray import ray_cluster
from agents.policies.model import ModelPolicy, load_policy
from agents.policies.saved import network_spec, save_policy, write_policy_files
from agents.training.checkpoint import TrainState, atomic_write_text, list_checkpoints
from agents.training.config import (
    ConfigError,
    PPOConfig,
    SelfPlayConfig,
    TrainConfig,
    load_config,
    save_config,
)
from agents.training.eval_record import EvalRecord, evaluate_opponent
from agents.training.rllib.env import DEFAULT_MODULE, SHARED_MODULE
from agents.training.run import (
    RunStart,
    TrainResult,
    drive,
    load_run_config,
    open_run,
    start,
)
from hgin_env.engine.keys import driver_seeds
from hgin_env.envs.config import EnvConfig
from hgin_env.envs.observation import OBS_DIM, PRIVILEGED_DIM

#: PPO iterations in a row with no samples from the env runners before the run fails
_EMPTY_ITERATIONS = 10

#: how each ``ppo`` field reaches RLlib's ``PPOConfig`` (the docs' table)
FIELD_MAP = {
    "n_envs": "env_runners(num_envs_per_env_runner=...)",
    "n_steps": "env_runners(rollout_fragment_length=...); a rollout is "
    "n_envs * n_steps * max(1, env runners) steps (train_batch_size_per_learner)",
    "batch_size": "training(minibatch_size=...)",
    "n_epochs": "training(num_epochs=...)",
    "learning_rate": "training(lr=...)",
    "lr_schedule": "linear: lr=[[0, learning_rate], [total_timesteps, 0]]",
    "gamma": "training(gamma=...)",
    "gae_lambda": "training(lambda_=...)",
    "clip_range": "training(clip_param=...)",
    "ent_coef": "training(entropy_coeff=...)",
    "vf_coef": "training(vf_loss_coeff=...)",
    "max_grad_norm": "training(grad_clip=..., grad_clip_by='global_norm')",
    "policy": "the RLModule's network: mlp (MaskedActorCritic) or cards (CardActorCritic, "
    "SB3's CardNetPolicy layout)",
    "net_arch": "the RLModule's policy and value MLPs (cards: its pickup and value MLPs)",
    "activation": "the RLModule's activation (mlp)",
    "card_channels": "the card trunk's channels (cards)",
    "card_blocks": "the card trunk's residual blocks (cards)",
    "ortho_init": "the RLModule's initialisation",
    "torch_threads": "torch.set_num_threads in the driver (learner) and each env runner",
}


def check_config(config: TrainConfig) -> None:
    """Refuse what this backend cannot do, naming the field.

    Raises:
        ConfigError: for a field with no RLlib meaning (or one not supported here yet).
    """
    for refused, field, why in refusals(config):
        if refused:
            raise ConfigError(f"{field} is not supported by the rllib backend: {why}")


def refusals(config: TrainConfig) -> list[tuple[bool, str, str]]:
    """``(refused, field, why)`` for every field this backend may refuse, ``config`` or not.

    The self-play fields (``selfplay_refusals``) are included when
    ``opponents.selfplay.enabled``, the league's (``league_refusals``) with
    ``opponents.league.enabled``. ``docs/gen_tables.py`` prints the fields and reasons
    of the default config and of ``selfplay_refusals`` as the table of ``docs/rllib.md``.
    """
    p, default = config.ppo, PPOConfig()
    found = [
        (
            p.target_kl is not None,
            "ppo.target_kl",
            "RLlib has no early stop of the epochs (its kl_target tunes a KL penalty); "
            "set it to null",
        ),
        (
            not p.normalize_advantage,
            "ppo.normalize_advantage",
            "false: RLlib always standardizes the advantages (per rollout)",
        ),
        (p.device != "cpu", "ppo.device", "only 'cpu'"),
        (
            config.stats_window != TrainConfig().stats_window,
            "stats_window",
            "it sizes the SB3 path's charts/ curves, which this backend does not write",
        ),
        (p.belief_coef != default.belief_coef, "ppo.belief_coef", "needs the cards network"),
    ]
    if config.opponents.selfplay.enabled:
        found += selfplay_refusals(config)
    if config.opponents.league.enabled:
        found += league_refusals(config)
    return found


def league_refusals(config: TrainConfig) -> list[tuple[bool, str, str]]:
    """The league fields this backend cannot honour (with ``opponents.league.enabled``)."""
    why = "exploiters are trained by the SB3 path only (bots, snapshots and PFSP run here); "
    return [
        (
            config.opponents.league.exploiter_every > 0,
            "opponents.league.exploiter_every",
            why + "set it to 0",
        )
    ]


def selfplay_refusals(config: TrainConfig) -> list[tuple[bool, str, str]]:
    """The self-play fields with no meaning here: there is no snapshot pool.

    On this backend, ``opponents.selfplay.enabled`` means shared-policy self-play: both
    seats of the PettingZoo env are the learning policy, in every game.
    """
    sp, default = config.opponents.selfplay, SelfPlayConfig()
    pool = "both seats play the learning policy itself; there is no snapshot pool"
    refusals = [
        (
            sp.weight != 1.0,
            "opponents.selfplay.weight",
            "every game is self-play here; set it to 1.0",
        ),
        (
            config.env.agent_seat != EnvConfig().agent_seat,
            "env.agent_seat",
            "in self-play the policy takes both seats",
        ),
    ]
    for name in ("snapshot_every", "pool_size", "sampling", "decay", "deterministic"):
        changed = getattr(sp, name) != getattr(default, name)
        refusals.append((changed, f"opponents.selfplay.{name}", pool))
    return refusals


def rollout_steps(config: TrainConfig, env_runners: int) -> int:
    """Environment steps per PPO iteration: every env runner's ``n_envs * n_steps``."""
    return config.ppo.n_envs * config.ppo.n_steps * max(1, env_runners)


def algorithm_config(config: TrainConfig, env_runners: int = 1) -> Any:
    """RLlib's ``PPOConfig`` for a training config (see ``FIELD_MAP``).

    Args:
        config: the checked training config.
        env_runners: remote env runners (0: sample in the driver).
    """
    from ray.rllib.algorithms.ppo import PPOConfig as RLlibPPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.training.rllib.env import RLlibEntryEnv, seed_worker
    from agents.training.rllib.module import MaskedPPOModule
    from agents.training.rllib.selfplay import RLlibSelfPlayEnv, shared_policy

    p = config.ppo
    lr: Any = p.learning_rate
    if p.lr_schedule == "linear":
        lr = [[0, p.learning_rate], [config.total_timesteps, 0.0]]
    selfplay = config.opponents.selfplay.enabled
    algo = (
        RLlibPPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(
            env=RLlibSelfPlayEnv if selfplay else RLlibEntryEnv,
            env_config={"config": config.to_dict()},
            # RLlib's env pre-check steps random, unmasked actions; the engine then
            # (rightly) raises, and RLlib reports "does not abide to the new
            # gymnasium-style API". Masking is the module's job, so the check is off.
            disable_env_checking=True,
            # the actions are discrete: RLlib's default unsquash connector has nothing to
            # do but still walks every game's action each step (about 6% of sampling)
            normalize_actions=False,
            clip_actions=False,
        )
        .env_runners(
            num_env_runners=env_runners,
            num_envs_per_env_runner=p.n_envs,
            # self-play: RLlib's own vector of n_envs PettingZoo games
            gym_env_vectorize_mode="sync" if selfplay else "vector_entry_point",
            rollout_fragment_length=p.n_steps,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)
        .training(
            lr=lr,
            gamma=p.gamma,
            lambda_=p.gae_lambda,
            clip_param=p.clip_range,
            entropy_coeff=p.ent_coef,
            vf_loss_coeff=p.vf_coef,
            grad_clip=p.max_grad_norm,
            grad_clip_by="global_norm",
            train_batch_size_per_learner=rollout_steps(config, env_runners),
            minibatch_size=p.batch_size,
            num_epochs=p.n_epochs,
            use_kl_loss=False,  # SB3 has no KL penalty
            vf_clip_param=math.inf,  # nor value-loss clipping
        )
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=MaskedPPOModule,
                model_config={"network": network(config), "ortho_init": p.ortho_init},
            )
        )
        .callbacks(on_environment_created=seed_worker)
        .debugging(log_level="WARN")
    )
    if selfplay:
        algo = algo.multi_agent(policies={SHARED_MODULE}, policy_mapping_fn=shared_policy)
    return algo


def seed_driver(seed: int) -> None:
    """Seed the driver's random streams, as SB3 does: the learner lives there.

    The learner draws the network's first weights from torch and the minibatch order from
    numpy's global stream; the env runners seed their own (``env.seed_worker``).
    Together the same seed trains the same weights (with the same env runners).
    """
    import random

    import torch

    python_seed, numpy_seed, torch_seed = driver_seeds(seed)
    random.seed(python_seed)
    np.random.seed(numpy_seed)
    torch.manual_seed(torch_seed)


def network(config: TrainConfig) -> dict[str, Any]:
    """The ``network_spec`` of the run's RLModule (``ppo.policy`` and its sizes)."""
    p = config.ppo
    width = OBS_DIM + PRIVILEGED_DIM * config.env.privileged
    return network_spec(p.policy, p.net_arch, width, p.activation, p.card_channels, p.card_blocks)


def module_id(config: TrainConfig) -> str:
    """The RLModule the run trains: ``shared`` in self-play, else RLlib's default."""
    return SHARED_MODULE if config.opponents.selfplay.enabled else DEFAULT_MODULE


def module_state(algo: Any, module: str = DEFAULT_MODULE) -> dict[str, np.ndarray]:
    """The learner's current weights of RLModule ``module`` (numpy arrays, as RLlib saves them)."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{module}")
    return state["learner"]["rl_module"][module]


def write_policy(folder: Path, state: dict[str, np.ndarray], config: TrainConfig) -> Path:
    """A saved-policy folder of the run's network (``agents.policies.saved``), replaced whole."""
    return save_policy(folder, network(config), policy_weights(state), *policy_record(config))


def policy_weights(state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """An RLModule state's network weights under the saved format's names (``net.`` dropped)."""
    return {k.removeprefix("net."): v for k, v in state.items() if k.startswith("net.")}


def policy_record(config: TrainConfig) -> tuple[dict[str, Any], str]:
    """What a saved policy records of its run: the rules, and the trainer's version."""
    import ray

    return config.to_dict()["rules"], f"ray[rllib] {ray.__version__}"


def checkpoint_dir(folder: Path, steps: int) -> Path:
    """``folder/ckpt_<steps>`` (zero-padded so names sort by step)."""
    return folder / f"ckpt_{steps:012d}"


def write_checkpoint(
    algo: Any, folder: Path, state: TrainState, keep: int, config: TrainConfig
) -> Path:
    """Save the Algorithm to ``ckpt_<steps>/`` (policy file included), then its JSON state.

    The JSON is written last, so a checkpoint counts only once both exist; all but the
    newest ``keep`` are deleted.
    """
    path = checkpoint_dir(folder, state.steps)
    state.last_checkpoint_steps = state.steps
    tmp = path.with_name(f".{path.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    weights = policy_weights(module_state(algo, module_id(config)))
    write_policy_files(tmp, network(config), weights, *policy_record(config))
    shutil.rmtree(path, ignore_errors=True)
    os.replace(tmp, path)
    atomic_write_text(path.with_suffix(".json"), json.dumps(asdict(state), indent=2))
    for old in list_checkpoints(folder)[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
        old.with_suffix(".json").unlink(missing_ok=True)
    return path


def evaluate_agent(agent: ModelPolicy, config: TrainConfig) -> dict[str, dict[str, Any]]:
    """The SB3 path's evaluation (same deals, same metrics) of a policy, per opponent.

    Returns:
        opponent name -> ``{"summary": {...}, "series": ..., "hands": ...}``.
    """
    cfg, seed = config.eval, config.eval.seed
    out: dict[str, dict[str, Any]] = {}
    for name in cfg.opponents:
        out[name] = evaluate_opponent(agent, name, load_policy(name, seed), cfg, config.rules, seed)
    return out


class Session:
    """One training session of a run: the Algorithm, the run folder, TensorBoard, state.

    ``agents.training.run.drive`` runs it: ``learn``, then the final evaluation,
    checkpoint and policy; Ctrl-C writes a checkpoint.
    """

    resume_command = "python train.py --backend rllib --resume"

    def __init__(
        self, algo: Any, config: TrainConfig, run_dir: Path, state: TrainState, writer: Any
    ) -> None:
        self.algo, self.config, self.run_dir, self.state = algo, config, run_dir, state
        self.writer = writer
        #: the league's driver (``agents.training.rllib.league``), with ``opponents.league``
        self.league: Any = None
        self.record = EvalRecord(run_dir, config.eval.best_metric, "best_model", state)

    @property
    def steps(self) -> int:
        """The environment steps trained so far."""
        return self.state.steps

    @property
    def history(self) -> list[dict[str, Any]]:
        """The run's evaluations so far (``eval.json``'s history)."""
        return self.record.history

    def log_iteration(self, result: dict[str, Any], fps: float) -> None:
        """RLlib's rollout and learner statistics under SB3-like tags."""
        steps, scalar = self.state.steps, self.writer.add_scalar
        runners = result.get("env_runners", {})
        if "episode_len_mean" in runners and not math.isnan(runners["episode_len_mean"]):
            scalar("rollout/ep_len_mean", runners["episode_len_mean"], steps)
            # in self-play the two seats' returns sum to zero: no curve to draw
            if not self.config.opponents.selfplay.enabled:
                scalar("rollout/ep_rew_mean", runners["episode_return_mean"], steps)
        learner = result.get("learners", {}).get(module_id(self.config), {})
        for ours, theirs in (
            ("train/policy_gradient_loss", "policy_loss"),
            ("train/value_loss", "vf_loss"),
            ("train/entropy", "entropy"),
            ("train/approx_kl", "mean_kl_loss"),
            ("train/explained_variance", "vf_explained_var"),
            ("train/learning_rate", "default_optimizer_learning_rate"),
        ):
            if theirs in learner:
                scalar(ours, float(learner[theirs]), steps)
        scalar("time/fps", fps, steps)

    def learn(self) -> None:
        """PPO iterations to ``total_timesteps``, evaluations and checkpoints on schedule."""
        config, state, algo = self.config, self.state, self.algo
        cfg_eval, cfg_ckpt = config.eval, config.checkpoint
        steps0, lifetime0, empty = state.steps, None, 0
        while state.steps < config.total_timesteps:
            tick = time.perf_counter()
            result = algo.train()
            runners = result.get("env_runners", {})
            if "num_env_steps_sampled_lifetime" not in runners:
                # no sample came back in RLlib's sample timeout (env runners still starting
                # on a loaded machine): nothing was learned, the next iteration samples again
                empty += 1
                if empty >= _EMPTY_ITERATIONS:
                    raise RuntimeError(
                        f"the env runners returned no samples in {empty} PPO iterations in a row"
                    )
                print("no samples from the env runners in this iteration; sampling again")
                continue
            empty = 0
            lifetime = int(runners["num_env_steps_sampled_lifetime"])
            sampled = int(runners.get("num_env_steps_sampled", 0))
            if lifetime0 is None:  # the counter survives a restore; count this session's
                lifetime0 = lifetime - sampled
            state.steps = steps0 + lifetime - lifetime0
            fps = sampled / (time.perf_counter() - tick)
            self.log_iteration(result, fps)
            if self.league is not None:
                scalars = self.league.after_iteration(state.steps, self.weights, network(config))
                for tag, value in scalars.items():
                    self.writer.add_scalar(tag, value, state.steps)
            if config.progress_bar:
                print(f"step {state.steps:>10,}  {fps:8,.0f} steps/s", flush=True)
            if cfg_eval.every_steps and state.steps - state.last_eval_steps >= cfg_eval.every_steps:
                self.run_evaluation()
            due_ckpt = (
                cfg_ckpt.every_steps
                and state.steps - state.last_checkpoint_steps >= cfg_ckpt.every_steps
            )
            if due_ckpt:
                self.checkpoint()

    def save_final(self) -> None:
        """Write the policy alone to ``final_model/``."""
        write_policy(self.run_dir / "final_model", self.weights(), self.config)

    def close(self) -> None:
        """Close the TensorBoard writer (the Algorithm is stopped by ``train``)."""
        self.writer.close()

    def weights(self) -> dict[str, np.ndarray]:
        """The learner's current weights of the run's module."""
        return module_state(self.algo, module_id(self.config))

    def run_evaluation(self) -> dict[str, Any]:
        """Evaluate the learner's weights; log, keep the best policy, write ``eval.json``."""
        start = time.perf_counter()
        weights = self.weights()
        folder = write_policy(self.run_dir / ".eval_policy", weights, self.config)
        agent = ModelPolicy(folder, name="agent")
        results = evaluate_agent(agent, self.config)
        shutil.rmtree(folder, ignore_errors=True)
        steps = self.state.steps
        entry = self.record.add(
            results,
            steps,
            start,
            lambda tag, value: self.writer.add_scalar(tag, value, steps),
            lambda: write_policy(self.run_dir / "best_model", weights, self.config),
        )
        self.writer.flush()
        return entry

    def checkpoint(self) -> Path:
        """Write a checkpoint of the whole Algorithm at the current step."""
        cfg = self.config.checkpoint
        return write_checkpoint(
            self.algo, self.run_dir / "checkpoints", self.state, cfg.keep, self.config
        )


def train(
    config: TrainConfig | None = None,
    run_name: str | None = None,
    resume: str | Path | None = None,
    overrides: list[str] | tuple[str, ...] = (),
    address: str | None = None,
    env_runners: int = 1,
    bridge: Any = None,
) -> TrainResult:
    """Train (or resume) a run with RLlib's PPO; see the module docstring.

    Args:
        config: the resolved config (ignored with ``resume``; default: ``default.yaml``).
        run_name: the run folder's name instead of ``<experiment>__<seed>__<time>``.
        resume: a run folder to continue from its newest checkpoint.
        overrides: with ``resume``: ``key=value`` changes to the saved config.
        address: None to start a local loopback cluster, else ``auto`` or ``HOST:PORT``.
        env_runners: remote env runners, each stepping ``ppo.n_envs`` games (0: the
            driver samples).
        bridge: what the run borrows from the SB3 side, passed in by the caller so that
            this backend imports nothing of SB3 (``train.py`` passes
            ``agents.training.sb3.convert.SB3_BRIDGE``): ``pretrain``'s imitation and
            the league's snapshots as MaskablePPO models. Needed with ``pretrain`` or a
            league with snapshots.

    Returns:
        The ``TrainResult``.

    Raises:
        ConfigError: an invalid config, a field the backend refuses, or an existing run
            folder.
        CheckpointError: ``resume`` without a usable checkpoint.
        RayClusterError: Ray is missing, or the cluster cannot be started or joined.
    """
    if env_runners < 0:
        raise ConfigError(f"--env-runners must be >= 0, got {env_runners}")
    # refuse a bad config before any cluster starts (open_run checks it again, cheaply)
    config = load_run_config(Path(resume), overrides) if resume else (config or load_config())
    check_config(config)
    league = config.opponents.league
    if bridge is None and (config.pretrain.active or (league.enabled and league.snapshot_every)):
        raise ConfigError(
            "pretrain and the league's snapshots on the rllib backend use the SB3 side's "
            "code: pass bridge=agents.training.sb3.convert.SB3_BRIDGE (train.py does)"
        )
    # a local cluster offers at least one CPU per env runner (else RLlib waits for them)
    cpus = None if address else max(os.cpu_count() or 1, env_runners)
    sigterm = signal.getsignal(signal.SIGTERM)
    with ray_cluster(address, num_cpus=cpus):  # first: a failed join leaves no run folder
        if callable(sigterm) and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, sigterm)  # ray.init's own exits with no checkpoint
        run = open_run(config, run_name, resume, overrides, check_config)
        return start(run, lambda ready: _start(ready, env_runners, bridge))


def _start(run: RunStart, env_runners: int, bridge: Any) -> TrainResult:
    """Build the Algorithm in a ready run folder (restored from its checkpoint) and train."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    config, run_dir, checkpoint, state = run.config, run.run_dir, run.checkpoint, run.state
    torch.set_num_threads(config.ppo.torch_threads)
    save_config(config, run_dir / "config.yaml")
    seed_driver(config.seed)
    algo = algorithm_config(config, env_runners).build_algo()
    try:
        if checkpoint is None and config.pretrain.active:
            start_from(algo, bridge.pretrained_weights(config, run_dir), module_id(config))
        if checkpoint is not None:
            algo.restore_from_path(str(checkpoint.resolve()))
            print(f"resuming {run_dir} from {checkpoint.name} at step {state.steps:,}")
        writer = SummaryWriter(str(run_dir / "tb"))
        session = Session(algo, config, run_dir, state, writer)
        if config.opponents.league.enabled:
            from agents.training.rllib.league import LeagueDriver

            session.league = LeagueDriver(algo, config, run_dir, state, bridge)
        if checkpoint is None:
            writer.add_text("config", f"```yaml\n{config.to_yaml()}```", 0)
        return drive(session)
    finally:
        algo.stop()


def start_from(algo: Any, weights: dict[str, np.ndarray], module: str) -> None:
    """Load ``weights`` into the learner's module ``module`` and send them to every env runner.

    Raises:
        ConfigError: the weights do not fit the module (names the first misfit).
    """
    own = module_state(algo, module)
    misfit = sorted(set(own) ^ set(weights)) or [
        k for k in own if np.shape(own[k]) != np.shape(weights[k])
    ]
    if misfit:
        raise ConfigError(f"pretrain: the start weights do not fit the RLModule ({misfit[0]})")
    algo.learner_group.set_state({"learner": {"rl_module": {module: weights}}})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, inference_only=True
    )

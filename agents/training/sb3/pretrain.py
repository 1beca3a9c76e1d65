"""Before PPO: start from a saved network, and/or imitate a teacher (behaviour cloning).

``config.pretrain`` (``PretrainConfig``) holds two independent options, applied in order
to a fresh run's network (a resumed run skips both: its checkpoint already holds them):

1. ``init_from``: copy the network weights of a saved model (a shipped model's name or
   a ``.zip`` path). Its network must have the same shape; a mismatch names the first
   parameter that differs. This is how a series-mode run continues a hand-mode agent.
   The privileged critic's parameters (``env.privileged``) are the exception: a run
   may add or drop it, and a new one starts adding nothing to the value.
   **Warm start across observation layouts**: a model of observation layout 1 (394
   entries, trained before the rules blocks, e.g. ``models/ppo-cards``) starts a
   layout-2 network: each layer that reads the observation's scalar context (or, for
   an MLP, the observation) gets zero weights for the new rules inputs, which come
   last, so the new network at first plays exactly as the old model (``widen_inputs``).
2. ``teacher``: play ``samples`` of the agent's decisions with the teacher (a bot name
   or a model) against the training opponents, recording the observation, the mask,
   the teacher's action and the discounted return of each decision; then fit the
   policy to the teacher's actions (masked cross-entropy) and the value head to the
   returns, for ``epochs`` passes in minibatches of ``batch_size``. The environment
   steps spent here do not count towards ``total_timesteps``. With ``value_only``
   only the value head is fitted, to the returns: with ``init_from`` and the same
   model as the teacher, a critic warm-up that leaves the play as it was.

Both log to TensorBoard under ``pretrain/`` (loss, accuracy, value loss per epoch).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.training.config import PretrainConfig
from agents.training.schema import ConfigError
from hgin_env.engine.keys import SeedStream, sub_seed
from hgin_env.envs.observation import OBS_DIMS, layout_version, plain_observations

#: parameter names of the ``cards`` network's privileged critic (``env.privileged``) and
#: belief head (``ppo.belief_coef``): a network copied from one without them keeps these
#: as initialised (and the other way round, they are dropped), since play never uses them
PRIVILEGED_CRITIC_PARAMS = ("critic_stem.", "critic_block.", "privileged_value.", "belief.")

#: parameter names only the value reads (the ``cards`` network's value MLP and SB3's,
#: the value layer, a privileged critic): what ``pretrain.value_only`` fits
VALUE_PARAMS = ("value.", "value_net.", "critic_stem.", "critic_block.", "privileged_value.")


def _named(name: str, parts: tuple[str, ...]) -> bool:
    """True when one of ``parts`` is a whole component of the parameter ``name``."""
    return any(f".{part}" in f".{name}" for part in parts)


def value_head(policy: Any) -> list[torch.nn.Parameter]:
    """The parameters only the value reads: the value head's and a privileged critic's."""
    return [p for name, p in policy.named_parameters() if _named(name, VALUE_PARAMS)]


def _privileged(name: str) -> bool:
    return _named(name, PRIVILEGED_CRITIC_PARAMS)


def copy_weights(model: Any, source: str) -> None:
    """Load the network weights of ``source`` (a model name, ``.zip``, rllib policy) into ``model``.

    Privileged critic parameters present on one side only are skipped (see the module
    docstring).

    Raises:
        ConfigError: when the saved network's parameters differ in name or shape.
        agents.policies.model.PolicyLoadError: a missing or corrupt file.
    """
    from agents.policies.model import model_file
    from agents.policies.model_zip import to_sb3_names
    from agents.policies.saved import policy_folder, read_spec, read_weights

    path = model_file(source) or Path(source)
    folder = policy_folder(path)
    if folder is not None:  # a saved policy: the same parameters under SB3's names
        spec = read_spec(folder)
        network = spec["network"]
        weights = to_sb3_names(read_weights(folder, spec), network.get("policy") == "cards")
        width = int(network["obs_dim"])
    else:
        from agents.training.sb3.model import load_model

        old = load_model(path)
        weights, width = old.policy.state_dict(), int(old.observation_space.shape[0])
    saved = widen_inputs(weights, width, model, source)
    own = model.policy.state_dict()
    for name in set(saved) ^ set(own):  # a privileged critic on one side only
        if _privileged(name) and name in own:
            saved[name] = own[name]  # added: keep this run's initial weights
        elif _privileged(name):
            del saved[name]  # dropped
    for name, tensor in own.items():
        if name not in saved:
            raise ConfigError(f"pretrain.init_from {source}: its network has no {name!r}")
        if saved[name].shape != tensor.shape:
            raise ConfigError(
                f"pretrain.init_from {source}: {name} has shape {tuple(saved[name].shape)}, "
                f"this run's network {tuple(tensor.shape)}"
            )
    extra = sorted(set(saved) - set(own))
    if extra:
        raise ConfigError(f"pretrain.init_from {source}: unexpected parameter {extra[0]!r}")
    model.policy.load_state_dict(saved)


def widen_inputs(
    saved: dict[str, torch.Tensor], width: int, model: Any, source: str
) -> dict[str, torch.Tensor]:
    """The saved network's parameters, with zero weights for inputs ``model`` adds.

    ``saved`` is the old network's ``state_dict`` and ``width`` its observation width.
    When it reads observation layout 1 and ``model`` layout 2, the rules blocks are
    the only new inputs, and they come last in every layer that reads them: the scalar
    context of the ``cards`` network (its context layers and the pickup and value MLPs'
    first layers, whose inputs end with the context) or the observation of an MLP. Such
    a weight ``[out, in]`` becomes ``[out, in + n_rules]`` with zero columns at the end,
    so the widened network's outputs equal the old one's on the first 394 entries.

    Raises:
        ConfigError: ``old`` reads a newer layout than ``model``.
    """
    saved = dict(saved)
    have = layout_version(width)
    want = layout_version(int(model.observation_space.shape[0]))
    if have > want:
        raise ConfigError(
            f"pretrain.init_from {source}: it reads observation layout {have}, this run's "
            f"network layout {want} (a newer model cannot start an older network)"
        )
    extra = OBS_DIMS[want] - OBS_DIMS[have]
    if not extra:
        return saved
    own = model.policy.state_dict()
    for name, tensor in saved.items():
        target = own.get(name)
        if target is None or target.dim() != 2 or tensor.dim() != 2:
            continue
        if target.shape == (tensor.shape[0], tensor.shape[1] + extra):
            widened = torch.zeros_like(target)
            widened[:, : tensor.shape[1]] = tensor
            saved[name] = widened
    return saved


@dataclass
class Demonstrations:
    """Recorded teacher decisions: obs, masks, the teacher's actions and the discounted returns.

    One row per decision, from finished hands only.
    """

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray


def record(
    env: Any, teacher: Any, samples: int, gamma: float, progress: Any = None
) -> Demonstrations:
    """Play the teacher in the agent's seat of a VecEnv until ``samples`` decisions are kept.

    Only decisions of finished episodes are kept (their returns are known), so the env
    runs until enough episodes have ended.

    Args:
        env: an SB3 VecEnv with ``action_masks()`` (the training env).
        teacher: a batched policy ``act(observations, action_masks)``.
        samples: decisions to keep.
        gamma: discount of the returns.
        progress: an optional callable ``progress(kept)``.
    """
    n = env.num_envs
    obs = env.reset()
    steps: list[tuple[np.ndarray, ...]] = []
    last_done = np.full(n, -1)
    while (last_done + 1).sum() < samples:
        masks = np.array(env.action_masks(), dtype=bool)
        # the teacher plays from the plain observation (never a privileged block)
        actions = np.asarray(teacher.act(plain_observations(obs), masks), dtype=np.int64)
        next_obs, rewards, dones, _ = env.step(actions)
        steps.append((np.array(obs, dtype=np.float32), masks, actions, rewards, dones))
        last_done[dones] = len(steps) - 1
        obs = next_obs
        if progress is not None:
            progress(int(min((last_done + 1).sum(), samples)))
    # discounted returns backwards in time; a decision is kept when its episode ended
    ret = np.zeros(n, dtype=np.float64)
    finished = np.zeros(n, dtype=bool)
    kept: list[tuple[np.ndarray, ...]] = []
    for s_obs, s_masks, s_actions, s_rewards, s_dones in reversed(steps):
        ret = s_rewards + gamma * ret * ~s_dones
        finished |= s_dones
        kept.append((s_obs[finished], s_masks[finished], s_actions[finished], ret[finished]))
    kept.reverse()
    parts = [np.concatenate([k[i] for k in kept]) for i in range(4)]
    return Demonstrations(
        parts[0][:samples],
        parts[1][:samples],
        parts[2][:samples],
        parts[3][:samples].astype(np.float32),
    )


def imitate(
    model: Any, demos: Demonstrations, config: PretrainConfig, seed: int, logger: Any = None
) -> list[dict[str, float]]:
    """Fit the policy to the teacher's actions and the value head to the returns.

    With ``config.value_only`` only the value head is fitted (``value_head``), to the
    returns alone: the policy and the trunk it shares keep their weights.

    Returns:
        One entry per epoch: ``loss`` (cross-entropy), ``accuracy`` (the policy's most
        likely legal action equals the teacher's, before each minibatch's update) and
        ``value_loss``.
    """
    policy = model.policy
    policy.set_training_mode(True)
    fitted = value_head(policy) if config.value_only else list(policy.parameters())
    optimizer = torch.optim.Adam(fitted, lr=config.learning_rate)
    rng = np.random.default_rng(seed)
    m = demos.actions.size
    history = []
    for epoch in range(config.epochs):
        order = rng.permutation(m)
        totals = np.zeros(3)
        for start in range(0, m, config.batch_size):
            idx = order[start : start + config.batch_size]
            obs = torch.as_tensor(demos.obs[idx])
            actions = torch.as_tensor(demos.actions[idx])
            masks = demos.masks[idx]
            # one forward pass for the loss and the accuracy (``evaluate_actions`` without
            # the entropy, keeping the masked distribution)
            latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
            dist = policy._get_action_dist_from_latent(latent_pi)
            dist.apply_masking(masks)
            log_prob = dist.log_prob(actions)
            values = policy.value_net(latent_vf)
            best = dist.distribution.logits.argmax(dim=1)
            value_loss = torch.nn.functional.mse_loss(
                values.flatten(), torch.as_tensor(demos.returns[idx])
            )
            if config.value_only:
                loss = value_loss
            else:
                loss = -log_prob.mean() + config.value_coef * value_loss
            policy.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(fitted, 1.0)
            optimizer.step()
            totals += [
                -log_prob.mean().item() * idx.size,
                (best == actions).float().sum().item(),
                value_loss.item() * idx.size,
            ]
        entry = dict(zip(("loss", "accuracy", "value_loss"), (totals / m).tolist(), strict=True))
        history.append(entry)
        if logger is not None:
            for key, value in entry.items():
                logger.record(f"pretrain/{key}", value)
            logger.dump(epoch)
        print(
            f"imitation epoch {epoch + 1}/{config.epochs}: loss {entry['loss']:.3f}, "
            f"accuracy {entry['accuracy']:.3f}, value loss {entry['value_loss']:.4f}"
        )
    policy.set_training_mode(False)
    return history


def pretrain(model: Any, env: Any, config: Any, logger: Any = None) -> dict[str, Any]:
    """Apply ``config.pretrain`` to a fresh model (see the module docstring).

    Args:
        model: the fresh MaskablePPO.
        env: the training VecEnv.
        config: the ``TrainConfig``.
        logger: SB3 logger for the ``pretrain/`` curves.

    Returns:
        A summary for the run's records (empty when there was nothing to do).
    """
    from tqdm.auto import tqdm

    from agents.policies.model import load_policy

    p: PretrainConfig = config.pretrain
    summary: dict[str, Any] = {}
    if p.init_from is not None:
        copy_weights(model, p.init_from)
        summary["init_from"] = p.init_from
        print(f"network initialised from {p.init_from}")
    if p.teacher is not None:
        teacher_seed = sub_seed(config.seed, SeedStream.TEACHER)
        teacher = load_policy(p.teacher, seed=teacher_seed)  # a bot or a model file
        bar = tqdm(total=p.samples, desc=f"recording {p.teacher}", disable=not config.progress_bar)

        def advance(kept: int) -> None:
            bar.update(kept - bar.n)

        demos = record(env, teacher, p.samples, config.ppo.gamma, advance)
        bar.close()
        history = imitate(model, demos, p, sub_seed(config.seed, SeedStream.IMITATION), logger)
        summary.update(teacher=p.teacher, samples=int(demos.actions.size), epochs=history)
        if p.value_only:
            summary["value_only"] = True
    return summary

"""The MaskablePPO model of the SB3 backend: built from a config, loaded, saved as data.

- ``make_model(config, env)``: a fresh MaskablePPO for ``ppo.policy`` (``ppo_kwargs``,
  ``LinearSchedule``);
- ``load_model(source)``: a MaskablePPO of a ``.zip``, a saved-policy folder or a shipped
  model's name, the one loader of SB3 models (``open_model_zip`` checks a zip first;
  playing needs no SB3 at all, see ``agents.policies.model``);
- ``save_policy_of(model, folder)``: an SB3 model as a saved-policy folder
  (``agents.policies.saved``: the runner's ``final_model/``), ``policy_to_zip`` back;
- ``model_network``, ``network_weights``, ``module_weights``: an SB3 model's network as
  the saved format's spec and weights, or as an RLModule state (the rllib backend).

The card network has one parameter layout in both (``CardActorCritic`` names its
parameters as SB3's ``CardNetPolicy`` does); the MLP's differ in name only
(``agents.policies.model_zip.MLP_NAMES``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

from agents.policies.model_zip import (
    SB3_ONLY,
    from_sb3_names,
    model_zip_problem,
    refuse_untrusted,
    to_sb3_names,
)
from agents.policies.saved import (
    network_spec,
    policy_folder,
    read_spec,
    read_weights,
    save_policy,
    write_policy_files,
)
from agents.training.card_net import CardNetPolicy
from agents.training.config import TrainConfig
from hgin_env.envs.policy import PolicyLoadError


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


def open_model_zip(path: str | Path, **load_args: Any) -> Any:
    """Check ``path`` (``model_zip_problem``), then ``MaskablePPO.load(path, **load_args)``.

    A zip holding pickled objects that is not trusted is refused
    (``agents.policies.model_zip.refuse_untrusted``). Without ``custom_objects`` for
    them, the learning rate and its schedule are not
    unpickled (a model loaded to play or to start weights needs neither; a resumed
    run passes its own).

    Args:
        path: the model's ``.zip`` file.
        load_args: passed to ``MaskablePPO.load`` (``device``, ``env``, ``custom_objects``).

    Raises:
        PolicyLoadError: ``cannot load model <path>: <problem>``, one line.
    """
    path = Path(path)
    problem = model_zip_problem(path)
    if problem is not None:
        raise PolicyLoadError(f"cannot load model {path}: {problem}")
    refuse_untrusted(path)
    custom = dict(load_args.pop("custom_objects", None) or {})
    custom.setdefault("learning_rate", 0.0)
    custom.setdefault("lr_schedule", _zero)
    try:
        return MaskablePPO.load(path, custom_objects=custom, **load_args)
    except Exception as exc:  # noqa: BLE001 - any failure inside SB3 is a load problem
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise PolicyLoadError(
            f"cannot load model {path}: corrupt or not a MaskablePPO model "
            f"({type(exc).__name__}: {message})"
        ) from exc


def _zero(_progress: float) -> float:
    return 0.0


def load_model(source: str | Path, device: str = "cpu") -> Any:
    """A MaskablePPO of a ``.zip``, a saved-policy folder or a shipped model's name.

    A saved policy becomes a fresh MaskablePPO holding its network (no optimizer state).

    Raises:
        PolicyLoadError: a missing or damaged file, or a network that does not fit.
    """
    from agents.policies.model import model_file
    from agents.policies.saved import load_network

    path = model_file(source) or Path(source)
    folder = policy_folder(path)
    if folder is None:
        model = open_model_zip(path, device=device)
        load_network(path)  # the same checks as playing it: spaces, and it plays
        return model
    load_network(folder)
    spec = read_spec(folder)
    return sb3_model(spec["network"], read_weights(folder, spec), device)


def model_network(model: Any) -> dict[str, Any]:
    """The ``network_spec`` of an SB3 MaskablePPO model (its policy's kind and sizes)."""
    policy = model.policy
    width = int(model.observation_space.shape[0])
    if isinstance(policy, CardNetPolicy):
        trunk: Any = policy.features_extractor
        return network_spec("cards", policy.head_sizes, width, channels=trunk.channels,
                            blocks=len(trunk.blocks))  # fmt: skip
    arch: Any = policy.net_arch
    if not isinstance(arch, dict) or arch.get("pi") != arch.get("vf"):
        raise ValueError(f"only an MLP with equal policy and value layers converts, got {arch}")
    activation = {"ReLU": "relu", "Tanh": "tanh"}[policy.activation_fn.__name__]
    return network_spec("mlp", list(arch["pi"]), width, activation)


def network_weights(model: Any) -> dict[str, np.ndarray]:
    """An SB3 model's network under the saved format's names (numpy arrays)."""
    cards = model_network(model)["policy"] == "cards"
    state = {k: v.detach().cpu().numpy().copy() for k, v in model.policy.state_dict().items()}
    return from_sb3_names(state, cards)


def module_weights(model: Any) -> dict[str, np.ndarray]:
    """An SB3 model's network as an RLModule state: ``net.<name>`` -> numpy array."""
    return {f"net.{name}": value for name, value in network_weights(model).items()}


def save_policy_of(
    source: Any, folder: str | Path, rules: dict[str, Any] | None = None, replace: bool = True
) -> Path:
    """Write an SB3 model (a MaskablePPO, a ``.zip`` or a shipped name) as a saved-policy folder.

    ``replace``: the folder is replaced whole (else its other files are kept).

    Raises:
        PolicyLoadError: ``source`` cannot be loaded.
        ValueError: a network with no counterpart in the saved format.
    """
    import stable_baselines3

    model = source if hasattr(source, "policy") else load_model(source)
    trained_with = f"stable-baselines3 {stable_baselines3.__version__}"
    write = save_policy if replace else write_policy_files
    return write(Path(folder), model_network(model), network_weights(model), rules, trained_with)


def policy_to_zip(source: str | Path, path: str | Path) -> Path:
    """Write the saved policy ``source`` (a folder, run folder or shipped name) as a ``.zip``.

    The model holds the network only (a fresh optimizer, no training state); it plays,
    evaluates and starts runs (``pretrain.init_from``) like any MaskablePPO model.

    Raises:
        PolicyLoadError: ``source`` is no saved policy, or its files do not fit.
    """
    from agents.policies.model import model_file

    if policy_folder(model_file(source) or Path(source)) is None:
        raise PolicyLoadError(f"cannot load model {source}: no hgin_policy.json there")
    path = Path(path)
    load_model(source).save(path)
    return path


def sb3_model(network: dict[str, Any], weights: dict[str, Any], device: str = "cpu") -> Any:
    """A MaskablePPO holding the network ``network`` describes, with ``weights``.

    Args:
        network: a ``network_spec``.
        weights: the network's parameters by the saved format's names, or an RLModule
            state (``net.<name>``, as ``module_weights`` gives); arrays or tensors.
        device: the torch device of the model.
    """
    model = new_sb3_model(network, device)
    ours = {k.removeprefix("net."): torch.as_tensor(np.asarray(v)) for k, v in weights.items()}
    state = to_sb3_names(ours, network.get("policy", "mlp") == "cards")
    own = model.policy.state_dict()
    state.update({k: v for k, v in own.items() if k.startswith(SB3_ONLY[2])})
    model.policy.load_state_dict(state)
    return model


def new_sb3_model(spec: dict[str, Any], device: str = "cpu") -> Any:
    """A fresh MaskablePPO whose network has the shape ``spec`` describes."""
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from agents.training.config import build_config
    from hgin_env.envs.gym_env import action_space, observation_space

    def spaces() -> gym.Env[Any, Any]:
        env: gym.Env[Any, Any] = gym.Env()  # the model's spaces only: nothing steps it
        env.observation_space = observation_space(int(spec["obs_dim"]))
        env.action_space = action_space()
        return env

    sets = [f"ppo.policy={spec.get('policy', 'mlp')}", f"ppo.net_arch={spec['net_arch']}"]
    if spec.get("policy") == "cards":
        sets += [f"ppo.card_channels={spec['channels']}", f"ppo.card_blocks={spec['blocks']}"]
    else:
        sets.append(f"ppo.activation={spec['activation']}")
    config = build_config({}, [*sets, "ppo.n_steps=8", "ppo.batch_size=8", f"ppo.device={device}"])
    return make_model(config, VecMonitor(DummyVecEnv([spaces])))

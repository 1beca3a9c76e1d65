"""SB3 models and the saved-policy format, both ways; the one MaskablePPO loader.

A trained network is a saved-policy folder (``agents.policies.saved``: a JSON spec and
safetensors weights), whichever backend trained it. The card network has one parameter
layout on both backends (``CardActorCritic`` names its parameters as SB3's
``CardNetPolicy`` does); the MLP's differ in name only (``sb3_zip.MLP_NAMES``). The SB3
side needs a MaskablePPO object to train, so:

- ``load_model(source)``: a MaskablePPO of a ``.zip``, a saved-policy folder or a shipped
  model's name (the one loader of SB3 models; playing needs none, see
  ``agents.policies.model``);
- ``save_policy_of(model, folder)``: an SB3 model (or ``.zip``, or shipped name) as a
  saved-policy folder (the runner's ``final_model/``);
- ``policy_to_zip(folder, path)``: a saved policy as a MaskablePPO ``.zip``;
- ``module_weights(model)``: an SB3 model's weights as an RLModule state (the rllib
  backend starts its learner from them after ``pretrain``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.policies.saved import (
    network_spec,
    policy_folder,
    read_spec,
    read_weights,
    save_policy,
)
from agents.policies.sb3_zip import SB3_ONLY, from_sb3_names, model_zip_problem, to_sb3_names
from hgin_env.envs.policy import PolicyLoadError


def open_model_zip(path: str | Path, **load_args: Any) -> Any:
    """Check ``path`` (``model_zip_problem``), then ``MaskablePPO.load(path, **load_args)``.

    Without ``custom_objects`` for them, the learning rate and its schedule are not
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
    from sb3_contrib import MaskablePPO

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
    from agents.training.card_net import CardNetPolicy

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


def save_policy_of(source: Any, folder: str | Path, rules: dict[str, Any] | None = None) -> Path:
    """Write an SB3 model (a MaskablePPO, a ``.zip`` or a shipped name) as a saved-policy folder.

    Raises:
        PolicyLoadError: ``source`` cannot be loaded.
        ValueError: a network with no counterpart in the saved format.
    """
    model = source if hasattr(source, "policy") else load_model(source)
    import stable_baselines3

    trained_with = f"stable-baselines3 {stable_baselines3.__version__}"
    return save_policy(
        Path(folder), model_network(model), network_weights(model), rules, trained_with
    )


def policy_to_zip(source: str | Path, path: str | Path) -> Path:
    """Write the saved policy ``source`` (its folder, or a run folder) as a MaskablePPO ``.zip``.

    The model holds the network only (a fresh optimizer, no training state); it plays,
    evaluates and starts runs (``pretrain.init_from``) like any MaskablePPO model.

    Raises:
        PolicyLoadError: ``source`` is no saved policy, or its files do not fit.
    """
    if policy_folder(source) is None:
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
    import torch

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
    from agents.training.sb3.runner import make_model
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
    from agents.training.sb3.pretrain import pretrain
    from agents.training.sb3.runner import make_env, make_model
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

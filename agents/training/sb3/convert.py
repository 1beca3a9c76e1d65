"""One network, two backends: SB3 models as rllib policy folders and back (no Ray needed).

The card network has one parameter layout on both backends: ``CardActorCritic``
(``agents.training.card_net``) names its parameters as SB3's ``CardNetPolicy`` does, so a
conversion copies them as they are (SB3's aliases of the shared trunk aside). The MLP's
parameters differ in name only (``MLP_NAMES``). So a model trained on either backend
starts, plays or joins the other's runs:

- ``sb3_to_rllib(model, folder)``: a MaskablePPO ``.zip`` (or a shipped model's name) as
  a policy folder (``hgin_policy.json`` + ``module_state.pkl``) that ``load_policy``,
  ``evaluate.py`` and ``play.py`` read;
- ``rllib_to_sb3(folder, path)``: an rllib checkpoint, run folder or policy folder as a
  MaskablePPO ``.zip``;
- ``module_weights(model)``: an SB3 model's weights as an RLModule state (the rllib
  backend starts its learner from them after ``pretrain``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.policies.rllib_policy import (
    MLP_NAMES,
    SB3_ONLY,
    network_spec,
    read_module_state,
    read_spec,
    rename,
    rllib_checkpoint,
    sb3_weights,
    write_policy_folder,
)


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


def module_weights(model: Any) -> dict[str, np.ndarray]:
    """An SB3 model's network as an RLModule state: ``net.<name>`` -> numpy array."""
    cards = model_network(model)["policy"] == "cards"
    out = {}
    for name, tensor in model.policy.state_dict().items():
        if name.startswith(SB3_ONLY):
            continue
        ours = name if cards else rename(name, [(b, a) for a, b in MLP_NAMES])
        out[f"net.{ours}"] = tensor.detach().cpu().numpy().copy()
    return out


def sb3_to_rllib(source: str | Path, folder: str | Path) -> Path:
    """Write the SB3 model ``source`` (a ``.zip`` or a shipped model's name) as a policy folder.

    Raises:
        agents.policies.model.PolicyLoadError: ``source`` cannot be loaded.
        ValueError: a network with no RLlib counterpart.
    """
    from agents.policies.model import load_model, model_file

    model = load_model(model_file(source) or Path(source))
    return write_policy_folder(Path(folder), module_weights(model), model_network(model))


def rllib_to_sb3(source: str | Path, path: str | Path) -> Path:
    """Write the rllib policy of ``source`` (checkpoint, run or policy folder) as a ``.zip``.

    The model holds the network only (a fresh optimizer, no training state); it plays,
    evaluates and starts runs (``pretrain.init_from``) like any MaskablePPO model.

    Raises:
        ValueError: ``source`` is no rllib policy, or its files do not fit.
    """
    folder = rllib_checkpoint(source)
    if folder is None:
        raise ValueError(f"{source} is not an rllib checkpoint")
    model = load_rllib_model(folder)
    path = Path(path)
    model.save(path)
    return path


def load_rllib_model(folder: Path) -> Any:
    """The rllib policy folder ``folder`` (holding ``hgin_policy.json``) as a MaskablePPO."""
    spec = read_spec(folder)
    return sb3_model(spec, read_module_state(folder, spec))


def sb3_model(network: dict[str, Any], state: dict[str, Any]) -> Any:
    """A MaskablePPO holding the network ``network`` describes, with the weights ``state``.

    Args:
        network: a ``network_spec``.
        state: an RLModule state (``net.<name>`` -> array), as ``module_weights`` gives.
    """
    model = new_sb3_model(network)
    weights = sb3_weights(network, state)
    own = model.policy.state_dict()
    weights.update({k: v for k, v in own.items() if k.startswith(SB3_ONLY[2])})
    model.policy.load_state_dict(weights)
    return model


def new_sb3_model(spec: dict[str, Any]) -> Any:
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
    config = build_config({}, sets + ["ppo.n_steps=8", "ppo.batch_size=8"])
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

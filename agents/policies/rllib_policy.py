"""RLlib-trained networks as policies, loaded with torch alone (no Ray, not even installed).

The rllib backend (``agents.training.rllib.backend``) trains
``agents.policies.rllib_net.MaskedActorCritic`` (``ppo.policy: mlp``) or the card network
``agents.policies.card_layers.CardActorCritic`` (``ppo.policy: cards``, the parameter names
of SB3's ``CardNetPolicy``) inside an RLlib ``RLModule`` and writes, in each
checkpoint folder it saves, a small ``hgin_policy.json``: the network's kind and shape and where
its weights are (in an Algorithm checkpoint, RLlib 2.x keeps them in
``learner_group/learner/rl_module/<module>/module_state.pkl``, a pickled dict of
numpy arrays). ``RLlibPolicy`` rebuilds the network from those files and plays
greedily, so ``evaluate.py``, ``play.py`` and ``load_policy`` accept an RLlib checkpoint
(or a run folder holding ``final_model/``) like a ``.zip`` model.
Finding a checkpoint needs no torch; loading one imports it.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM, OBS_DIMS, layout_version, plain_observations

#: the file that marks a checkpoint folder as one of ours
POLICY_FILE = "hgin_policy.json"
POLICY_FORMAT = "hollywood-gin rllib policy 1"
#: RLlib's module id of a single-agent run
DEFAULT_MODULE = "default_policy"
#: the module both seats share in self-play (RLlib runs a lone ``default_policy`` as
#: single-agent, so the self-play module needs another id)
SHARED_MODULE = "shared"
#: where RLlib 2.x saves a module's weights inside an Algorithm checkpoint
MODULE_STATE = "learner_group/learner/rl_module/{module}/module_state.pkl"
#: the final model inside an rllib run folder
FINAL_MODEL = "final_model"


#: the MLP's parameter names: ``MaskedActorCritic`` prefix -> SB3 ``MlpPolicy`` prefix
MLP_NAMES = (
    ("pi.", "mlp_extractor.policy_net."),
    ("vf.", "mlp_extractor.value_net."),
    ("action_head.", "action_net."),
    ("value_head.", "value_net."),
)
#: SB3's parameters that the RLlib networks do not have: the card trunk's two aliases
#: and the belief head (``ppo.belief_coef``, a training-time loss that play never uses)
SB3_ONLY = ("pi_features_extractor.", "vf_features_extractor.", "mlp_extractor.belief.")


def network_spec(
    policy: str,
    net_arch: tuple[int, ...] | list[int],
    obs_dim: int = OBS_DIM,
    activation: str = "relu",
    channels: int = 32,
    blocks: int = 3,
) -> dict[str, Any]:
    """The network part of ``hgin_policy.json``: what ``build_network`` rebuilds.

    Args:
        policy: ``mlp`` (``agents.policies.rllib_net.MaskedActorCritic``) or ``cards``
            (``agents.policies.card_layers.CardActorCritic``, SB3's ``CardNetPolicy`` layout).
        net_arch: hidden sizes (of each MLP; of the card network's pickup and value MLPs).
        obs_dim: the network's input width (with a privileged block, if it reads one).
        activation: the MLP's activation (``mlp`` only).
        channels: the card trunk's channels (``cards`` only).
        blocks: the card trunk's residual blocks (``cards`` only).
    """
    spec: dict[str, Any] = {"policy": policy, "obs_dim": int(obs_dim), "net_arch": list(net_arch)}
    if policy == "cards":
        spec.update(channels=int(channels), blocks=int(blocks))
    else:
        spec["activation"] = activation
    return spec


def policy_spec(network: dict[str, Any], module: str = DEFAULT_MODULE) -> dict[str, Any]:
    """The ``hgin_policy.json`` of a checkpoint of RLModule ``module`` of ``network``."""
    return {
        "format": POLICY_FORMAT,
        "module_state": MODULE_STATE.format(module=module),
        **network,
    }


def build_network(spec: dict[str, Any], ortho_init: bool = False) -> Any:
    """The torch network a ``network_spec`` describes (a spec without ``policy``: an MLP)."""
    if spec.get("policy", "mlp") == "cards":
        from agents.policies.card_layers import CardActorCritic

        return CardActorCritic(
            spec["obs_dim"], spec["net_arch"], spec["channels"], spec["blocks"], ortho_init
        )
    from agents.policies.rllib_net import MaskedActorCritic

    return MaskedActorCritic(spec["obs_dim"], spec["net_arch"], spec["activation"], ortho_init)


def play_width(spec: dict[str, Any]) -> int:
    """How many observation entries the network plays from.

    An MLP reads its whole input; the card network reads the plain observation of its
    layout (it ignores a privileged block it was trained with, and a layout-1 network
    reads the first 394 entries).
    """
    width = int(spec["obs_dim"])
    if spec.get("policy", "mlp") != "cards":
        return width
    return OBS_DIMS[layout_version(width)]


def rllib_checkpoint(spec: str | Path) -> Path | None:
    """The checkpoint folder a spec names (itself, or a run folder's ``final_model/``)."""
    path = Path(spec).expanduser()
    for folder in (path, path / FINAL_MODEL):
        if (folder / POLICY_FILE).is_file():
            return folder
    return None


class RLlibPolicy:
    """A network trained by the rllib backend, playing its most likely legal action.

    Args:
        path: a checkpoint folder holding ``hgin_policy.json`` (or a run folder).
        name: display name (default: the run folder's name).

    Raises:
        ValueError: the folder is no such checkpoint, or its files are missing or
            damaged (the message names the file); ``load_policy`` turns this into a
            ``PolicyLoadError``.
    """

    def __init__(self, path: str | Path, name: str | None = None) -> None:
        folder = rllib_checkpoint(path)
        if folder is None:
            raise ValueError(f"{path} is not an rllib checkpoint (no {POLICY_FILE})")
        self.path = folder
        self.name = name or (folder.parent.name if folder.name == FINAL_MODEL else folder.name)
        self.network, self.obs_dim = load_network(folder)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Return int64[N] legal actions (-1 for a row without any)."""
        masks = np.asarray(action_masks, dtype=bool).reshape(-1, N_ACTIONS)
        if masks.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        import torch

        obs = torch.as_tensor(plain_observations(observations, self.obs_dim))
        with torch.inference_mode():
            logits = self.network.logits(obs).numpy().astype(np.float64)
        logits[~masks] = -np.inf
        return np.where(masks.any(axis=1), logits.argmax(axis=1), -1).astype(np.int64)


def write_policy_folder(
    folder: Path, state: dict[str, np.ndarray], network: dict[str, Any]
) -> Path:
    """A policy-only folder: ``module_state.pkl`` (``state``) and ``hgin_policy.json``.

    The folder is replaced whole (written next to it, then renamed).
    """
    tmp = folder.with_name(f".{folder.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with (tmp / "module_state.pkl").open("wb") as f:
        pickle.dump(state, f)
    spec = policy_spec(network)
    spec["module_state"] = "module_state.pkl"  # the weights alone, next to the spec
    (tmp / POLICY_FILE).write_text(json.dumps(spec, indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)
    return folder


def read_spec(folder: Path) -> dict[str, Any]:
    """The ``hgin_policy.json`` of a checkpoint folder, checked for its format."""
    try:
        spec: dict[str, Any] = json.loads((folder / POLICY_FILE).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {folder / POLICY_FILE}: {exc}") from exc
    if spec.get("format") != POLICY_FORMAT:
        raise ValueError(f"{folder / POLICY_FILE}: unknown format {spec.get('format')!r}")
    return spec


def read_module_state(folder: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """The RLModule state (numpy arrays by name) a checkpoint folder's spec points at."""
    state_file = folder / spec["module_state"]
    try:
        with state_file.open("rb") as f:
            state: dict[str, Any] = pickle.load(f)  # noqa: S301 - as trusted as a model .zip
    except (OSError, pickle.UnpicklingError, EOFError) as exc:
        raise ValueError(f"cannot read the module weights {state_file}: {exc}") from exc
    return state


def load_network(folder: Path) -> tuple[Any, int]:
    """The network of a checkpoint folder, in eval mode, and the width it plays from."""
    import torch

    spec = read_spec(folder)
    state = read_module_state(folder, spec)
    try:
        network = build_network(spec)
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"{folder / POLICY_FILE} describes no network: {exc}") from exc
    weights = {
        key.removeprefix("net."): torch.as_tensor(np.asarray(value))
        for key, value in state.items()
        if key.startswith("net.")
    }
    try:
        network.load_state_dict(weights)
    except RuntimeError as exc:
        message = str(exc).strip().splitlines()[0]
        state_file = folder / spec["module_state"]
        raise ValueError(f"{state_file} does not fit {POLICY_FILE}: {message}") from exc
    network.eval()
    return network, play_width(spec)


def rename(name: str, pairs: list[tuple[str, str]]) -> str:
    """``name`` with the first matching prefix of ``(old, new)`` pairs replaced."""
    for old, new in pairs:
        if name.startswith(old):
            return new + name.removeprefix(old)
    raise ValueError(f"no counterpart for the parameter {name!r}")


def sb3_weights(network: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """An RLModule state (``net.<name>``) under SB3's parameter names, as torch tensors.

    The card network's trunk appears under SB3's two aliases too; the belief head, which
    the rllib networks lack, is not included.
    """
    import torch

    cards = network.get("policy", "mlp") == "cards"
    weights = {}
    for name, value in state.items():
        if name.startswith("net."):
            ours = name.removeprefix("net.")
            weights[ours if cards else rename(ours, list(MLP_NAMES))] = torch.as_tensor(value)
    if cards:
        for alias in SB3_ONLY[:2]:
            for name, value in list(weights.items()):
                if name.startswith("features_extractor."):
                    weights[alias + name.removeprefix("features_extractor.")] = value
    return weights


def load_sb3_weights(folder: Path) -> tuple[dict[str, Any], int]:
    """An rllib policy folder's weights under SB3's names, and the network's input width."""
    spec = read_spec(folder)
    return sb3_weights(spec, read_module_state(folder, spec)), int(spec["obs_dim"])

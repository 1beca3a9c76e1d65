"""A trained network as data: a JSON spec and a file of weights, read without unpickling.

A saved policy is a folder holding two files::

    hgin_policy.json       what the network is (see ``policy_spec``)
    weights.safetensors    its parameters by name (safetensors: tensors only, no code)

``hgin_policy.json``::

    {
      "format": "hollywood-gin policy 2",
      "network": {"policy": "cards", "obs_dim": 394, "net_arch": [128],
                  "channels": 32, "blocks": 3},
      "observation": {"layout": 1, "width": 394, "plays_from": 394},
      "rules": {...} or null,
      "versions": {"hollywood-gin": "0.1.0", "observation_layout": 1, ...},
      "weights": "weights.safetensors"
    }

- ``network``: ``policy`` is ``cards`` (``agents.policies.card_layers.CardActorCritic``:
  ``net_arch`` sizes of its pickup and value MLPs, ``channels``, ``blocks``) or ``mlp``
  (``agents.policies.rllib_net.MaskedActorCritic``: ``net_arch`` sizes of each MLP,
  ``activation``); ``obs_dim`` is the width it was trained on (a layout's ``OBS_DIM``,
  plus ``PRIVILEGED_DIM`` when its critic read the opponent's hand).
- ``observation``: the layout (``hgin_env.envs.observation.layout_version``) and how many
  leading entries of an observation the actor reads (``plays_from``).
- ``rules``: the rules the network was trained under (the run's ``rules`` section), for
  the record; a layout-2 network reads the rules of each game from its observation.
- ``versions``: the package that wrote the file and the trainer, for the record.

Both training backends write this folder (the SB3 runner's ``final_model/``, the rllib
backend's ``final_model/``, ``best_model/`` and every checkpoint), and the shipped models
are such folders. ``load_network`` is the one loader; it also reads a Stable-Baselines3
``.zip`` through ``agents.policies.model_zip`` (no SB3 needed). Files that hold pickled
objects (the first rllib format's ``module_state.pkl``) load only when the caller
trusts them (``trust=True``, or ``HGIN_TRUST_MODEL=1`` in the environment): unpickling a
file runs the code it names.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from agents.policies.model_zip import TRUST_ENV, is_trusted, read_sb3_zip, trusted
from agents.policies.networks import build_network, network_spec, play_width
from hgin_env import __version__
from hgin_env.envs.observation import OBS_DIM, OBS_DIMS, layout_version
from hgin_env.envs.policy import PolicyLoadError

__all__ = ["TRUST_ENV", "build_network", "load_network", "network_spec", "save_policy", "trusted"]

#: the spec file that marks a folder as a saved policy
POLICY_FILE = "hgin_policy.json"
#: the weights file next to it
WEIGHTS_FILE = "weights.safetensors"
#: the format this module writes
POLICY_FORMAT = "hollywood-gin policy 2"
#: the rllib backend's first format: a flat spec and a pickled RLlib module state
PICKLED_FORMAT = "hollywood-gin rllib policy 1"
#: the final model inside a run folder (both backends)
FINAL_MODEL = "final_model"


def policy_spec(
    network: dict[str, Any],
    rules: dict[str, Any] | None = None,
    trained_with: str | None = None,
) -> dict[str, Any]:
    """The whole ``hgin_policy.json`` of a network (see the module docstring).

    Args:
        network: a ``network_spec``.
        rules: the rules it was trained under (recorded only).
        trained_with: the trainer and its version (``stable-baselines3 2.7.0``), recorded.
    """
    width = int(network["obs_dim"])
    layout = layout_version(width)
    versions: dict[str, Any] = {"hollywood-gin": __version__, "observation_layout": layout}
    if trained_with:
        versions["trained_with"] = trained_with
    return {
        "format": POLICY_FORMAT,
        "network": dict(network),
        "observation": {"layout": layout, "width": width, "plays_from": play_width(network)},
        "rules": rules,
        "versions": versions,
        "weights": WEIGHTS_FILE,
    }


def write_policy_files(
    folder: Path,
    network: dict[str, Any],
    weights: dict[str, Any],
    rules: dict[str, Any] | None = None,
    trained_with: str | None = None,
) -> Path:
    """Write ``hgin_policy.json`` and ``weights.safetensors`` into ``folder`` (kept otherwise).

    Args:
        folder: made if missing (a checkpoint folder keeps its other files).
        network: a ``network_spec``.
        weights: the network's parameters by its own names (tensors or numpy arrays).
        rules: the rules it was trained under.
        trained_with: the trainer and its version.
    """
    import torch
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    tensors = {
        name: torch.as_tensor(np.asarray(value) if not torch.is_tensor(value) else value)
        .detach()
        .cpu()
        .contiguous()
        .clone()
        for name, value in weights.items()
    }
    save_file(tensors, str(folder / WEIGHTS_FILE))
    spec = policy_spec(network, rules, trained_with)
    (folder / POLICY_FILE).write_text(json.dumps(spec, indent=2) + "\n")
    return folder


def save_policy(
    folder: str | Path,
    network: dict[str, Any],
    weights: dict[str, Any],
    rules: dict[str, Any] | None = None,
    trained_with: str | None = None,
) -> Path:
    """A saved-policy folder, replaced whole (written next to it, then renamed).

    Arguments as ``write_policy_files``.
    """
    folder = Path(folder)
    tmp = folder.with_name(f".{folder.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    write_policy_files(tmp, network, weights, rules, trained_with)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)
    return folder


def policy_folder(spec: str | Path) -> Path | None:
    """The saved-policy folder a path names (itself, or a run folder's ``final_model/``)."""
    path = Path(spec).expanduser()
    for folder in (path, path / FINAL_MODEL):
        if (folder / POLICY_FILE).is_file():
            return folder
    return None


def read_spec(folder: Path) -> dict[str, Any]:
    """The ``hgin_policy.json`` of a folder, in this format (the first rllib one converted).

    Raises:
        PolicyLoadError: unreadable, or of an unknown format.
    """
    path = folder / POLICY_FILE
    try:
        spec: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise PolicyLoadError(f"cannot load model {folder}: cannot read {path} ({exc})") from exc
    if not isinstance(spec, dict):
        raise PolicyLoadError(f"cannot load model {folder}: {path} is not a JSON object")
    if spec.get("format") == PICKLED_FORMAT:  # flat: the network's fields at the top
        network = {k: v for k, v in spec.items() if k not in ("format", "module_state")}
        try:
            converted = policy_spec(network)
        except (KeyError, ValueError, TypeError) as exc:
            raise PolicyLoadError(
                f"cannot load model {folder}: {path} describes no network ({exc})"
            ) from exc
        return {**converted, "format": PICKLED_FORMAT, "weights": spec.get("module_state")}
    if spec.get("format") != POLICY_FORMAT:
        raise PolicyLoadError(
            f"cannot load model {folder}: {path} has an unknown format {spec.get('format')!r} "
            f"({POLICY_FORMAT!r} expected)"
        )
    if not isinstance(spec.get("network"), dict):
        raise PolicyLoadError(f"cannot load model {folder}: {path} describes no network")
    return spec


def read_weights(folder: Path, spec: dict[str, Any], trust: bool | None = None) -> dict[str, Any]:
    """The weights a folder's spec points at, as torch tensors by the network's names.

    Raises:
        PolicyLoadError: a missing or damaged file, or pickled weights not trusted.
    """
    path = folder / str(spec.get("weights", WEIGHTS_FILE))
    if spec.get("format") == PICKLED_FORMAT:
        return _pickled_module_state(folder, path, trust)
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        return dict(load_file(str(path)))
    except (OSError, SafetensorError) as exc:
        raise PolicyLoadError(f"cannot load model {folder}: cannot read {path} ({exc})") from exc


def _pickled_module_state(folder: Path, path: Path, trust: bool | None) -> dict[str, Any]:
    """The first rllib format's weights: an RLlib module state pickled (trusted only)."""
    import torch

    if not is_trusted(path, trust):
        raise PolicyLoadError(
            f"cannot load model {folder}: its weights {path.name} are pickled, and "
            f"unpickling runs the code a file names; pass --trust-model (or set {TRUST_ENV}=1) "
            "if you trust it"
        )
    try:
        with path.open("rb") as f:
            state = pickle.load(f)  # noqa: S301 - the caller trusts this file
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        raise PolicyLoadError(f"cannot load model {folder}: cannot read {path} ({exc})") from exc
    return {
        key.removeprefix("net."): torch.as_tensor(np.asarray(value))
        for key, value in state.items()
        if key.startswith("net.")
    }


def network_from(source: Path, network: dict[str, Any], weights: dict[str, Any]) -> tuple[Any, int]:
    """The network ``network`` describes with ``weights`` loaded, in eval mode, and its width.

    The network must choose actions from a plain observation (an MLP trained with a
    privileged block cannot): one forward pass on a zero observation checks it.

    Raises:
        PolicyLoadError: the spec describes no network this package builds, the weights
            do not fit it, or it cannot play.
    """
    import torch

    try:
        layout_version(int(network["obs_dim"]))
        net = build_network(network)
    except (KeyError, ValueError, TypeError) as exc:
        raise PolicyLoadError(
            f"cannot load model {source}: it describes no network this package plays "
            f"({type(exc).__name__}: {exc})"
        ) from exc
    try:
        net.load_state_dict(weights)
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()[0]
        raise PolicyLoadError(
            f"cannot load model {source}: its weights do not fit its network ({first})"
        ) from exc
    net.eval()
    width = play_width(network)
    try:
        with torch.inference_mode():
            net.logits(torch.zeros((1, OBS_DIMS[layout_version(int(network["obs_dim"]))])))
    except Exception as exc:  # noqa: BLE001 - any failure means the model cannot play
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise PolicyLoadError(
            f"cannot use model {source}: its network cannot choose actions from the "
            f"{OBS_DIM}-entry observation ({type(exc).__name__}: {first})"
        ) from exc
    return net, width


def load_network(path: str | Path, trust: bool | None = None) -> tuple[Any, int, dict[str, Any]]:
    """The one loader: a saved-policy folder, or a Stable-Baselines3 ``.zip``, as a network.

    Args:
        path: a folder holding ``hgin_policy.json`` (or a run folder with ``final_model/``),
            or a MaskablePPO ``.zip`` (read by ``agents.policies.model_zip``, no SB3 needed).
        trust: allow pickled weights (default: ``HGIN_TRUST_MODEL``).

    Returns:
        The torch network (eval mode, ``logits(obs)``), the observation width it plays
        from, and its spec (``policy_spec``'s fields).

    Raises:
        PolicyLoadError: a missing, damaged or untrusted file, or a network that does
            not fit the environment (the message names the path).
    """
    path = Path(path)
    folder = policy_folder(path)
    if folder is not None:
        spec = read_spec(folder)
        weights = read_weights(folder, spec, trust)
        source = folder
    else:
        network, weights, trained_with = read_sb3_zip(path, trust)
        spec = policy_spec(network, trained_with=trained_with)
        source = path
    net, width = network_from(source, spec["network"], weights)
    return net, width, spec


def convert_sb3_zip(
    path: str | Path,
    folder: str | Path,
    rules: dict[str, Any] | None = None,
    trust: bool | None = None,
) -> Path:
    """Write a MaskablePPO ``.zip`` as a saved-policy folder (the same network, as data).

    ``folder`` keeps its other files (a shipped model's ``config.yaml`` and reports).

    Args:
        path: the ``.zip``.
        folder: where ``hgin_policy.json`` and ``weights.safetensors`` go.
        rules: the rules it was trained under, recorded in the spec.
        trust: as ``read_sb3_zip``.

    Raises:
        PolicyLoadError: as ``read_sb3_zip``, or a network that cannot play.
    """
    network, weights, trained_with = read_sb3_zip(path, trust)
    network_from(Path(path), network, weights)  # it loads and plays before it is written
    return write_policy_files(Path(folder), network, weights, rules, trained_with)

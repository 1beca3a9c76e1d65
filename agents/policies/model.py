"""Trained networks as policies, and the source that names them for the resolver.

The one resolver is ``hgin_env.envs.policy.resolve_policy`` (``load_policy`` here is it,
under the name the agents package has always used). It accepts, in this order:

1. a policy object (anything with ``act(observations, action_masks)``), returned as is;
2. a registered name (``random``, ``simple``, ``expert``: entry points of
   ``pyproject.toml``, or any installed package's);
3. what ``MODELS`` (this module's ``PolicySource``, the ``__models__`` entry point)
   serves: the name of a shipped model (a saved-policy folder ``models/<name>/`` under
   the repository root), a saved-policy folder or a run folder holding ``final_model/``
   (either backend's), a MaskablePPO ``.zip`` file, or a directory holding ``model.zip``.

Every model loads through the one loader, ``agents.policies.saved.load_network``: a JSON
spec and safetensors weights, or a MaskablePPO zip read as data (``model_zip``). No
training module, no Stable-Baselines3 and no unpickling is involved. Loading problems
(missing file, not a zip, corrupt file, wrong observation or action space) raise
``PolicyLoadError`` with a one-line message naming the path and the problem; torch is
imported only when a model is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.policies.model_zip import MODEL_FILE, trust_folder
from agents.policies.saved import FINAL_MODEL, POLICY_FILE, load_network, policy_folder
from agents.shipped import shipped_dir
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import plain_observations
from hgin_env.envs.policy import (
    Policy,
    PolicyLoadError,
    is_variant,
    registered_policies,
    resolve_policy,
    unknown_policy_message,
)

__all__ = ["MODEL_FILE", "MODELS", "ModelPolicy", "PolicyLoadError", "load_policy"]

#: where shipped models live: ``models/<name>/hgin_policy.json`` (the checkout's or the wheel's)
MODELS_DIR = shipped_dir("models")


class ModelPolicy:
    """A trained network playing greedily: its most likely legal action.

    The actor half of the network reads the first ``obs_dim`` entries of each
    observation (its layout's plain observation: a privileged block is for the critic),
    as ``MaskablePPO.predict(..., deterministic=True)`` does.

    Args:
        path: a saved-policy folder (or a run folder holding ``final_model/``), or a
            MaskablePPO ``.zip``.
        name: display name (default: the folder's name, the run's for ``final_model``,
            the file's stem, or its directory for ``model.zip``).
        trust: allow pickled weights (default: ``HGIN_TRUST_MODEL``).

    Raises:
        PolicyLoadError: see ``agents.policies.saved.load_network``.
    """

    def __init__(
        self, path: str | Path, name: str | None = None, trust: bool | None = None
    ) -> None:
        self.path = Path(path)
        self.trust = trust
        self.network, self.obs_dim, self.spec = load_network(self.path, trust)
        self.name = name or _display_name(self.path)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """float32[N, 107]: the network's unmasked action logits."""
        import torch

        # contiguous: a reversed or strided view (``obs[::-1]``) is no tensor
        obs = np.ascontiguousarray(plain_observations(observations, self.obs_dim))
        with torch.inference_mode():
            return self.network.logits(torch.as_tensor(obs)).numpy()

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Return the model's most likely legal action in each row (``int64[N]``, -1: none)."""
        masks = np.asarray(action_masks, dtype=bool).reshape(-1, N_ACTIONS)
        if masks.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        logits = self.logits(observations).astype(np.float64)
        logits[~masks] = -np.inf
        return np.where(masks.any(axis=1), logits.argmax(axis=1), -1).astype(np.int64)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the file to load (an env worker process loads the model itself)."""
        return (_reloaded, (self.path, self.name, self.trust))


def _reloaded(path: Path, name: str, trust: bool | None) -> ModelPolicy:
    """A ``ModelPolicy`` loaded again in another process: trusted, as it was loaded here."""
    trust_folder(path.parent)
    return ModelPolicy(path, name, trust)


def _display_name(path: Path) -> str:
    folder = policy_folder(path)
    if folder is not None:
        return folder.parent.name if folder.name == FINAL_MODEL else folder.name
    return path.parent.name if path.name == MODEL_FILE else path.stem


def shipped_models() -> dict[str, Path]:
    """The models under ``models/``: name -> its folder ``models/<name>/`` (a saved policy).

    A folder holding a MaskablePPO ``model.zip`` instead serves that zip under its name.
    """
    if not MODELS_DIR.is_dir():
        return {}
    found = {p.parent.name: p.parent for p in sorted(MODELS_DIR.glob(f"*/{POLICY_FILE}"))}
    for zip_file in sorted(MODELS_DIR.glob(f"*/{MODEL_FILE}")):
        found.setdefault(zip_file.parent.name, zip_file)
    return dict(sorted(found.items()))


def model_file(spec: str | Path) -> Path | None:
    """The model a spec names (a saved-policy folder or a ``.zip``), or None when none.

    A spec is a path (returned as it is, even when missing, so loading it names the
    problem), a saved-policy folder or run folder, a folder holding ``model.zip``, or a
    shipped model's name.
    """
    text = str(spec)
    path = Path(text).expanduser()
    if not path.exists() and is_variant(text):
        return None  # a registered name with options, whose options may hold a path
    folder = policy_folder(path)
    if folder is not None:
        return folder
    if path.is_dir() and (path / MODEL_FILE).exists():
        return path / MODEL_FILE
    if path.exists() or path.suffix == ".zip" or "/" in text or "\\" in text:
        return path
    return shipped_models().get(text)


def policy_problem(spec: str, model_only: bool = False) -> str | None:
    """Why ``spec`` names no policy, or None when it does; nothing is loaded (cheap).

    A spec is fine when it is a registered bot or shipped model name, or the path of an
    existing model file or folder (whether it is a usable model shows only when it loads).

    Args:
        spec: a policy name or model path, as ``load_policy`` takes it.
        model_only: accept models only (no bots), as ``pretrain.init_from`` needs.
    """
    text = str(spec)
    if text in registered_policies() and not model_only:
        return None
    if not model_only and is_variant(text):  # a version or options of a bot or search
        try:
            resolve_policy(text)
        except ValueError as exc:
            return str(exc)
        return None
    path = model_file(text)
    if path is not None:
        if path.is_file() or policy_folder(path) is not None:
            return None
        if path.is_dir():
            return f"cannot load model {path}: is a directory without {POLICY_FILE} or {MODEL_FILE}"
        return f"cannot load model {path}: no such file"
    if model_only:
        shipped = MODELS_DIR / text
        return f"{text!r} is not a model: not a model file, and no shipped model {shipped}"
    return unknown_policy_message(text)


class ModelSource:
    """The models as a ``PolicySource``: shipped names, saved-policy folders, model zips."""

    #: asked for the specs no registered name claims (paths)
    serves_paths = True

    def names(self) -> list[str]:
        """The shipped models' names."""
        return list(shipped_models())

    def load(self, spec: str, seed: int | None = None) -> Policy | None:
        """The model ``spec`` names (a shipped name first, then a path), None if none.

        Raises:
            PolicyLoadError: a model that cannot be loaded (the message names the file).
        """
        path = shipped_models().get(spec) or model_file(spec)
        return None if path is None else ModelPolicy(path)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ModelSource)

    def __hash__(self) -> int:
        return hash(ModelSource)


#: the ``__models__`` entry point of ``pyproject.toml``
MODELS = ModelSource()


def load_policy(spec: str | Path | Policy, seed: int | None = None) -> Policy:
    """Turn a bot name, a model path, a shipped model name or a policy object into a policy.

    The one resolver, ``hgin_env.envs.policy.resolve_policy`` (see the module docstring).

    Args:
        spec: see the module docstring for the accepted forms.
        seed: seed for seeded bots (models are deterministic).

    Raises:
        PolicyLoadError: a model that cannot be loaded, or a spec that is none of the
            accepted forms (the message lists the known names).
    """
    return resolve_policy(spec, seed)

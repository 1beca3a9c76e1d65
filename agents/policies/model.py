"""Trained MaskablePPO models as policies, and the source that names them for the resolver.

The one resolver is ``hgin_env.envs.policy.resolve_policy`` (``load_policy`` here is it,
under the name the agents package has always used). It accepts, in this order:

1. a policy object (anything with ``act(observations, action_masks)``), returned as is;
2. a registered name (``random``, ``simple``, ``expert``: entry points of
   ``pyproject.toml``, or any installed package's);
3. what ``MODELS`` (this module's ``PolicySource``, the ``__models__`` entry point)
   serves: the name of a shipped model (``models/<name>/model.zip`` under the repository
   root, or an rllib policy folder ``models/<name>/hgin_policy.json``); an RLlib
   checkpoint or rllib run folder (``agents.policies.rllib_policy``; no Ray needed); a
   path to a MaskablePPO ``.zip`` file, or to a directory holding ``model.zip``.

Loading problems (missing file, not a zip, corrupt zip, wrong observation or action
space) raise ``PolicyLoadError`` with a one-line message naming the path and the
problem. ``sb3_contrib`` (and torch) are imported only when a model is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.policies.model_zip import MODEL_FILE, open_model_zip, trust_folder
from agents.shipped import shipped_dir
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM, PRIVILEGED_DIM, layout_version
from hgin_env.envs.policy import (
    Policy,
    PolicyLoadError,
    is_variant,
    registered_policies,
    resolve_policy,
    unknown_policy_message,
)

#: where shipped models live: ``models/<name>/model.zip`` (the checkout's or the wheel's)
MODELS_DIR = shipped_dir("models")


def load_model(path: str | Path) -> Any:
    """Load a MaskablePPO model on the CPU and check its spaces against the environment's.

    Args:
        path: the ``.zip`` file written by ``MaskablePPO.save``.

    Returns:
        The ``sb3_contrib.MaskablePPO`` model.

    Raises:
        PolicyLoadError: the file is not an intact model zip (``model_zip.open_model_zip``),
            or its observation/action space does not match ``OBS_DIM`` / ``N_ACTIONS``.
    """
    path = Path(path)
    model = open_model_zip(path, device="cpu")
    _check_spaces(model, path)
    _check_plays(model, path)
    return model


def _check_spaces(model: Any, path: Path) -> None:
    """Raise ``PolicyLoadError`` unless the model fits the environment's spaces.

    The observation layout is recorded with a model as its observation space's width
    (``observation.layout_version``): a model of layout 1 (394 entries, trained before
    the rules blocks) plays from the first 394 entries of each observation.
    """
    obs_shape = getattr(model.observation_space, "shape", None)
    try:
        layout_version(int(obs_shape[0]) if obs_shape and len(obs_shape) == 1 else -1)
    except ValueError:
        raise PolicyLoadError(
            f"cannot use model {path}: observation shape {obs_shape} does not match "
            f"the environment's ({OBS_DIM},) (or ({OBS_DIM + PRIVILEGED_DIM},) with a "
            "privileged critic), nor the 394 entries of observation layout 1"
        ) from None
    n_actions = getattr(model.action_space, "n", None)
    if n_actions is None or int(n_actions) != N_ACTIONS:
        raise PolicyLoadError(
            f"cannot use model {path}: action space {model.action_space} does not match "
            f"Discrete({N_ACTIONS})"
        )


def _check_plays(model: Any, path: Path) -> None:
    """Raise ``PolicyLoadError`` unless the network picks actions from a plain observation.

    Play feeds the first ``OBS_DIM`` entries only, so a network built for the privileged
    width must ignore the privileged block (the ``cards`` network does; an MLP cannot):
    one forward pass on a zero observation finds out at load time.
    """
    from agents.policies.torch_policy import TorchPolicy

    try:
        TorchPolicy(model.policy, deterministic=True).logits(np.zeros((1, OBS_DIM), np.float32))
    except Exception as exc:  # noqa: BLE001 - any failure means the model cannot play
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise PolicyLoadError(
            f"cannot use model {path}: its network cannot choose actions from the "
            f"{OBS_DIM}-entry observation ({type(exc).__name__}: {first})"
        ) from exc


class ModelPolicy:
    """A trained MaskablePPO model playing greedily: its most likely legal action.

    It plays through ``TorchPolicy`` (the actor half of the network, as
    ``predict(..., deterministic=True)`` does) from the plain observation, so a model
    trained with a privileged critic plays like any other.

    Args:
        path: the model's ``.zip`` file.
        name: display name (default: the file's stem, or its directory for ``model.zip``).
    """

    def __init__(self, path: str | Path, name: str | None = None) -> None:
        self.path = Path(path)
        self.model = load_model(self.path)
        stem = self.path.parent.name if self.path.name == MODEL_FILE else self.path.stem
        self.name = name or stem
        from agents.policies.torch_policy import TorchPolicy

        self.model.policy.set_training_mode(False)
        self._actor = TorchPolicy(self.model.policy, deterministic=True, name=self.name)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Return the model's most likely legal action in each row (``int64[N]``, -1: none)."""
        return self._actor.act(observations, action_masks)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """float32[N, 107]: the network's unmasked action logits (``TorchPolicy.logits``)."""
        return self._actor.logits(observations)

    def __reduce__(self) -> tuple:
        """Pickle as the file to load (an env worker process loads the model itself)."""
        return (_reloaded, (self.path, self.name))


def _reloaded(path: Path, name: str) -> ModelPolicy:
    """A ``ModelPolicy`` loaded again in another process: trusted, as it was loaded here."""
    trust_folder(path.parent)
    return ModelPolicy(path, name)


def shipped_models() -> dict[str, Path]:
    """The shipped models: name -> ``models/<name>/model.zip`` under the repository root."""
    if not MODELS_DIR.is_dir():
        return {}
    return {p.parent.name: p for p in sorted(MODELS_DIR.glob(f"*/{MODEL_FILE}"))}


def model_file(spec: str | Path) -> Path | None:
    """The ``.zip`` a model spec names, or None when it names no model.

    A spec is a path (returned as it is, even when missing, so loading it names the
    problem), a folder holding ``model.zip``, or a shipped model's name.
    """
    text = str(spec)
    path = Path(text).expanduser()
    if not path.exists() and is_variant(text):
        return None  # a registered name with options, whose options may hold a path
    if path.is_dir() and (path / MODEL_FILE).exists():
        return path / MODEL_FILE
    if path.exists() or path.suffix == ".zip" or "/" in text or "\\" in text:
        return path
    shipped = MODELS_DIR / text / MODEL_FILE
    return shipped if shipped.exists() else None


def policy_problem(spec: str, model_only: bool = False) -> str | None:
    """Why ``spec`` names no policy, or None when it does; nothing is loaded (cheap).

    A spec is fine when it is a registered bot or shipped model name, or the path of an
    existing model file (whether the file is a usable model shows only when it loads).

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
    if rllib_folder(text) is not None:
        return None
    path = model_file(text)
    if path is not None:
        if path.is_file():
            return None
        if path.is_dir():
            return f"cannot load model {path}: is a directory without {MODEL_FILE}"
        return f"cannot load model {path}: no such file"
    if model_only:
        shipped = MODELS_DIR / text / MODEL_FILE
        return f"{text!r} is not a model: not a model file, and no shipped model {shipped}"
    return unknown_policy_message(text)


def rllib_folder(spec: str | Path) -> Path | None:
    """The rllib policy a spec names: a checkpoint, run or policy folder, or ``models/<name>/``."""
    from agents.policies.rllib_policy import rllib_checkpoint

    found = rllib_checkpoint(spec)
    if found is None and "/" not in str(spec) and str(spec):
        found = rllib_checkpoint(MODELS_DIR / str(spec))
    return found


class ModelSource:
    """The models as a ``PolicySource``: shipped names, model files, RLlib checkpoints."""

    #: asked for the specs no registered name claims (paths)
    serves_paths = True

    def names(self) -> list[str]:
        """The shipped models' names (MaskablePPO zips, then rllib policy folders)."""
        found = list(shipped_models())
        if MODELS_DIR.is_dir():
            found += [p.parent.name for p in sorted(MODELS_DIR.glob("*/hgin_policy.json"))]
        return list(dict.fromkeys(found))

    def load(self, spec: str, seed: int | None = None) -> Policy | None:
        """The model ``spec`` names (a shipped name first, then a path), None if none.

        Raises:
            PolicyLoadError: a model that cannot be loaded (the message names the file).
        """
        shipped = shipped_models().get(spec)
        if shipped is not None:
            return ModelPolicy(shipped)
        from agents.policies.rllib_policy import RLlibPolicy

        folder = rllib_folder(spec)
        if folder is not None:
            try:
                return RLlibPolicy(folder)
            except ValueError as exc:
                raise PolicyLoadError(f"cannot load model {spec}: {exc}") from exc
        path = model_file(spec)
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

"""A Stable-Baselines3 model zip read as data: the network's spec and weights, no SB3 needed.

A MaskablePPO ``.zip`` (``MaskablePPO.save``: a user's model, a training checkpoint, a
self-play snapshot) holds ``data`` (JSON; some values are pickles, base64-encoded, which
this reader never decodes) and ``policy.pth`` (the network's ``state_dict``, read with
``torch.load(weights_only=True)``: tensors only). ``read_sb3_zip`` finds from them the
network this package builds (``agents.policies.saved.network_spec``): the card network
(``ppo.policy: cards``; its parameters have the same names) or an MLP with equal policy
and value layers (renamed, ``MLP_NAMES``). ``model_zip_problem`` says what is wrong with
a file without reading its values (missing, a folder, not a zip, a CRC failure, an entry
missing). Every problem is a ``PolicyLoadError``: ``cannot load model <path>: <problem>``.

A model zip is code: SB3 stores parts of a model (its policy class, schedules, spaces)
as pickled Python objects in the ``data`` entry, and unpickling one runs whatever it
names. This reader never unpickles them, but a zip that holds them is refused unless it
is trusted (as ``MaskablePPO.load``, which does unpickle them, is in
``agents.training.sb3.model.open_model_zip``): a shipped model, a file in a folder
registered with ``trust_folder`` (a training run's own checkpoints and snapshots), or
any file when ``trust=True`` or ``HGIN_TRUST_MODEL=1`` (the CLIs' ``--trust-model`` sets
it, for their worker processes too). A trusted ``policy.pth`` may hold more than tensors.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

from agents.policies.networks import network_spec
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM, PRIVILEGED_DIM, layout_version
from hgin_env.envs.policy import PolicyLoadError

#: the environment variable that trusts every model file (``--trust-model`` sets it to 1)
TRUST_ENV = "HGIN_TRUST_MODEL"
#: folders whose model zips this process wrote itself (``trust_folder``)
_TRUSTED_FOLDERS: set[Path] = set()
#: the file a model folder of the SB3 runs holds (``runs/<name>/final_model.zip`` aside)
MODEL_FILE = "model.zip"
#: the entries ``MaskablePPO.load`` reads: the saved attributes and the network's weights
REQUIRED_ENTRIES = ("data", "policy.pth")
#: the MLP's parameter names: ``MaskedActorCritic`` prefix -> SB3 ``MlpPolicy`` prefix
MLP_NAMES = (
    ("pi.", "mlp_extractor.policy_net."),
    ("vf.", "mlp_extractor.value_net."),
    ("action_head.", "action_net."),
    ("value_head.", "value_net."),
)
#: SB3's parameters that this package's networks do not have: the card trunk's two
#: aliases and the belief head (``ppo.belief_coef``, a training-time loss play never uses)
SB3_ONLY = ("pi_features_extractor.", "vf_features_extractor.", "mlp_extractor.belief.")
#: SB3's activation class names -> ``network_spec``'s
ACTIVATIONS = {"ReLU": "relu", "Tanh": "tanh"}
_CLASS = re.compile(r"<class '[\w.]*\.(\w+)'>")


def trusted(trust: bool | None = None) -> bool:
    """Whether pickled model files may be loaded: ``trust``, else ``HGIN_TRUST_MODEL``."""
    if trust is not None:
        return trust
    return os.environ.get(TRUST_ENV, "").strip().lower() in ("1", "true", "yes")


def trust_folder(folder: str | Path) -> None:
    """Trust the model files under ``folder`` (a run folder: its checkpoints, snapshots)."""
    _TRUSTED_FOLDERS.add(Path(folder).resolve())


def is_trusted(path: str | Path, trust: bool | None = None) -> bool:
    """Whether ``path`` may hold pickled objects: ``trust``, ``HGIN_TRUST_MODEL``, shipped, ours."""
    if trusted(trust):
        return True
    from agents.shipped import shipped_dir

    where = Path(path).resolve()
    folders = [shipped_dir("models").resolve(), *_TRUSTED_FOLDERS]
    return any(where.is_relative_to(folder) for folder in folders)


def pickled_objects(path: Path) -> list[str]:
    """The attributes the zip's ``data`` entry stores as pickled objects (nothing is run)."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (KeyError, ValueError, OSError, zipfile.BadZipFile, RecursionError):
        return []  # a corrupt model: refused later, before anything is unpickled
    if not isinstance(data, dict):
        return []
    return [str(k) for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v]


def refuse_untrusted(path: Path, trust: bool | None = None) -> None:
    """Raise ``PolicyLoadError`` for a zip holding pickled objects that is not trusted."""
    pickled = [] if is_trusted(path, trust) else pickled_objects(path)
    if pickled:
        shown = ", ".join(pickled[:4]) + (", ..." if len(pickled) > 4 else "")
        raise PolicyLoadError(
            f"cannot load model {path}: its data holds pickled Python objects ({shown}), "
            "and unpickling runs whatever code they name. Load it only if you trust where "
            f"it came from: pass --trust-model (or set {TRUST_ENV}=1)"
        )


def model_zip_problem(path: Path) -> str | None:
    """What keeps ``path`` from being an intact model zip, or None when nothing does.

    Every entry is read once (its CRC checked); nothing is unpickled.

    Returns:
        A short text for ``cannot load model <path>: <text>``, or None.
    """
    if not path.exists():
        return "no such file"
    if path.is_dir():
        return "is a directory without hgin_policy.json or model.zip"
    if not zipfile.is_zipfile(path):
        return "corrupt or not a zip file (a MaskablePPO .zip expected)"
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            bad = archive.testzip()
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError) as exc:
        return f"corrupt zip (not readable: {exc})"
    if bad is not None:
        return f"corrupt zip (entry {bad} fails its CRC check)"
    missing = [entry for entry in REQUIRED_ENTRIES if entry not in names]
    if missing:
        entries = ", ".join(f"no {entry!r} entry" for entry in missing)
        return f"not a Stable-Baselines3 model ({entries} in the zip)"
    return None


def rename(name: str, pairs: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> str:
    """``name`` with the first matching prefix of ``(old, new)`` pairs replaced."""
    for old, new in pairs:
        if name.startswith(old):
            return new + name.removeprefix(old)
    raise ValueError(f"no counterpart for the parameter {name!r}")


def from_sb3_names(state: dict[str, Any], cards: bool) -> dict[str, Any]:
    """An SB3 policy's ``state_dict`` under this package's names (SB3's extras dropped)."""
    out = {}
    for name, value in state.items():
        if name.startswith(SB3_ONLY):
            continue
        out[name if cards else rename(name, [(b, a) for a, b in MLP_NAMES])] = value
    return out


def to_sb3_names(state: dict[str, Any], cards: bool) -> dict[str, Any]:
    """This package's network's parameters under SB3's names (the card trunk's aliases too)."""
    out = {name if cards else rename(name, MLP_NAMES): value for name, value in state.items()}
    if cards:
        for alias in SB3_ONLY[:2]:
            for name, value in list(out.items()):
                if name.startswith("features_extractor."):
                    out[alias + name.removeprefix("features_extractor.")] = value
    return out


def read_sb3_zip(
    path: str | Path, trust: bool | None = None
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """The network of a MaskablePPO ``.zip``: its ``network_spec``, weights and trainer.

    Args:
        path: the ``.zip`` file.
        trust: allow a ``policy.pth`` holding pickled objects (default: ``HGIN_TRUST_MODEL``).

    Returns:
        The ``network_spec``, the weights under this package's names (torch tensors) and
        ``stable-baselines3 <version>`` (None when the zip does not say).

    Raises:
        PolicyLoadError: the file is not an intact model zip, or holds a network of
            another kind or for other spaces (the message names the path).
    """
    path = Path(path)
    problem = model_zip_problem(path)
    if problem is not None:
        raise PolicyLoadError(f"cannot load model {path}: {problem}")
    refuse_untrusted(path, trust)
    with zipfile.ZipFile(path) as archive:
        raw = archive.read("data")
        pth = archive.read("policy.pth")
        version = (
            archive.read("_stable_baselines3_version").decode(errors="replace").strip()
            if "_stable_baselines3_version" in archive.namelist()
            else None
        )
    try:
        data = json.loads(raw)
        width = int(data["observation_space"]["_shape"][0])
        n_actions = int(data["action_space"]["n"])
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise PolicyLoadError(
            f"cannot load model {path}: corrupt or not a MaskablePPO model (its 'data' "
            f"entry has no readable observation and action spaces: {exc})"
        ) from exc
    if n_actions != N_ACTIONS:
        raise PolicyLoadError(
            f"cannot use model {path}: action space Discrete({n_actions}) does not match "
            f"Discrete({N_ACTIONS})"
        )
    try:
        layout_version(width)
    except ValueError:
        raise PolicyLoadError(
            f"cannot use model {path}: observation shape ({width},) does not match the "
            f"environment's ({OBS_DIM},) (or ({OBS_DIM + PRIVILEGED_DIM},) with a privileged "
            "critic), nor the 394 entries of observation layout 1"
        ) from None
    state = _weights(path, pth, is_trusted(path, trust), TRUST_ENV)
    kwargs = data.get("policy_kwargs") or {}
    kwargs = kwargs if isinstance(kwargs, dict) else {}
    cards = any(name.startswith("features_extractor.") for name in state)
    if cards:
        network = network_spec(
            "cards",
            list(kwargs.get("net_arch") or [128]),
            width,
            channels=int(kwargs.get("channels", 32)),
            blocks=int(kwargs.get("blocks", 3)),
        )
    else:
        network = network_spec("mlp", _mlp_sizes(path, state), width, _activation(path, kwargs))
    return (
        network,
        from_sb3_names(state, cards),
        f"stable-baselines3 {version}" if version else None,
    )


def _weights(path: Path, pth: bytes, trust: bool, trust_env: str) -> dict[str, Any]:
    """``policy.pth``'s tensors (``weights_only``; a trusted file may hold more)."""
    import torch

    try:
        state = torch.load(io.BytesIO(pth), map_location="cpu", weights_only=not trust)
    except Exception as exc:  # noqa: BLE001 - any failure of the reader is a load problem
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        hint = "" if trust else f"; pass --trust-model (or set {trust_env}=1) if you trust it"
        raise PolicyLoadError(
            f"cannot load model {path}: its policy.pth holds more than tensors or is "
            f"damaged ({first[:200]}){hint}"
        ) from exc
    if not isinstance(state, dict):
        raise PolicyLoadError(f"cannot load model {path}: its policy.pth is no state_dict")
    return dict(state)


def _mlp_sizes(path: Path, state: dict[str, Any]) -> list[int]:
    """The hidden sizes of an SB3 MLP from its weights; the policy and value MLPs must match."""
    sizes = {}
    for net in ("policy_net", "value_net"):
        prefix = f"mlp_extractor.{net}."
        layers = sorted(
            (int(name[len(prefix) :].split(".")[0]), value)
            for name, value in state.items()
            if name.startswith(prefix) and name.endswith(".weight")
        )
        sizes[net] = [int(value.shape[0]) for _, value in layers]
    if not sizes["policy_net"] or sizes["policy_net"] != sizes["value_net"]:
        raise PolicyLoadError(
            f"cannot load model {path}: not a network this package plays (the card network, "
            f"or an MLP with equal policy and value layers; found {sizes})"
        )
    return sizes["policy_net"]


def _activation(path: Path, kwargs: dict[str, Any]) -> str:
    """The MLP's activation from ``policy_kwargs`` (SB3's default: Tanh)."""
    text = kwargs.get("activation_fn")
    if text is None:
        return "tanh"
    found = _CLASS.fullmatch(str(text))
    name = ACTIVATIONS.get(found.group(1)) if found else None
    if name is None:
        raise PolicyLoadError(
            f"cannot load model {path}: activation {text} is not one this package plays "
            f"({', '.join(ACTIVATIONS)})"
        )
    return name

"""RLlib-trained networks as policies, loaded with torch alone (no Ray, not even installed).

The rllib backend (``agents.training.rllib.backend``) trains
``agents.policies.rllib_net.MaskedActorCritic`` inside an RLlib ``RLModule`` and writes, in each
checkpoint folder it saves, a small ``hgin_policy.json``: the network's shape and where
its weights are (in an Algorithm checkpoint, RLlib 2.x keeps them in
``learner_group/learner/rl_module/<module>/module_state.pkl``, a pickled dict of
numpy arrays). ``RLlibPolicy`` rebuilds the network from those files and plays
greedily, so ``evaluate.py``, ``play.py`` and ``load_policy`` accept an RLlib checkpoint
(or a run folder holding ``final_model/``) like a ``.zip`` model.
Finding a checkpoint needs no torch; loading one imports it.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np

from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM, plain_observations

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


def policy_spec(
    net_arch: tuple[int, ...],
    activation: str,
    obs_dim: int = OBS_DIM,
    module: str = DEFAULT_MODULE,
) -> dict:
    """The ``hgin_policy.json`` content of a checkpoint of module ``module`` of this network."""
    return {
        "format": POLICY_FORMAT,
        "module_state": MODULE_STATE.format(module=module),
        "obs_dim": obs_dim,
        "net_arch": list(net_arch),
        "activation": activation,
    }


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

        obs = torch.as_tensor(plain_observations(observations)[:, : self.obs_dim])
        with torch.inference_mode():
            logits = self.network.logits(obs).numpy().astype(np.float64)
        logits[~masks] = -np.inf
        return np.where(masks.any(axis=1), logits.argmax(axis=1), -1).astype(np.int64)


def load_network(folder: Path) -> tuple[Any, int]:
    """The ``MaskedActorCritic`` of a checkpoint folder, in eval mode, and its obs length."""
    import torch

    from agents.policies.rllib_net import MaskedActorCritic

    try:
        spec = json.loads((folder / POLICY_FILE).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {folder / POLICY_FILE}: {exc}") from exc
    if spec.get("format") != POLICY_FORMAT:
        raise ValueError(f"{folder / POLICY_FILE}: unknown format {spec.get('format')!r}")
    state_file = folder / spec["module_state"]
    try:
        with state_file.open("rb") as f:
            state: dict[str, Any] = pickle.load(f)  # noqa: S301 - as trusted as a model .zip
    except (OSError, pickle.UnpicklingError, EOFError) as exc:
        raise ValueError(f"cannot read the module weights {state_file}: {exc}") from exc
    network = MaskedActorCritic(spec["obs_dim"], spec["net_arch"], spec["activation"], False)
    weights = {
        key.removeprefix("net."): torch.as_tensor(np.asarray(value))
        for key, value in state.items()
        if key.startswith("net.")
    }
    try:
        network.load_state_dict(weights)
    except RuntimeError as exc:
        message = str(exc).strip().splitlines()[0]
        raise ValueError(f"{state_file} does not fit {POLICY_FILE}: {message}") from exc
    network.eval()
    return network, int(spec["obs_dim"])

"""Environment adapters over the engine: Gymnasium, Stable-Baselines3 and PettingZoo.

``HollywoodGin-v1`` is registered with Gymnasium by ``register_envs()``, which runs
when any adapter module is imported, and when this package is imported while Gymnasium
already is; ``gymnasium.make("hgin_env:HollywoodGin-v1", opponent=..., mode=...)``
always works (Gymnasium imports the module named before the colon). ``HollywoodGin-v0``
(the 394-entry observation) is gone: Gymnasium's ``make`` refuses it with an error that
names ``HollywoodGin-v1`` (the version history is in ``HollywoodGinEnv``'s docstring). Also
``gymnasium.make_vec(...)``, which builds the batched ``HollywoodGinVectorEnv``.
Everything is imported lazily: importing this package, the observation encoder, the
text rendering or the policy protocol needs numpy only (no Gymnasium, torch or SB3):

- ``HollywoodGinEnv`` (``gym_env``): single-agent Gymnasium env;
- ``HollywoodGinVecEnv`` (``sb3_vec_env``): batched SB3 ``VecEnv`` over one engine;
- ``HollywoodGinVectorEnv`` (``vector_env``): batched Gymnasium ``VectorEnv``;
- ``hollywood_gin_v0.env()`` / ``raw_env``: two-player PettingZoo AEC env, versioned as
  PettingZoo's own (``pettingzoo_env`` holds the class);
- ``GinCore`` (``core``): the batched agent-vs-opponent driver they share;
- ``EnvConfig`` (``config``), ``render_view`` (``render``), the observation encoder and
  the policy protocol.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

ENV_ID = "HollywoodGin-v1"

_LAZY = {
    "EnvConfig": "hgin_env.envs.config",
    "GinCore": "hgin_env.envs.core",
    "StepResult": "hgin_env.envs.core",
    "HollywoodGinEnv": "hgin_env.envs.gym_env",
    "HollywoodGinVecEnv": "hgin_env.envs.sb3_vec_env",
    "HollywoodGinVectorEnv": "hgin_env.envs.vector_env",
    "render_view": "hgin_env.envs.render",
    "OBS_DIM": "hgin_env.envs.observation",
    "OBS_LAYOUT": "hgin_env.envs.observation",
    "PRIVILEGED_DIM": "hgin_env.envs.observation",
    "PRIVILEGED_LAYOUT": "hgin_env.envs.observation",
    "encode_observations": "hgin_env.envs.observation",
    "decode_observations": "hgin_env.envs.observation",
    "Policy": "hgin_env.envs.policy",
    "PolicyLoadError": "hgin_env.envs.policy",
    "registered_policies": "hgin_env.envs.policy",
    "RandomPolicy": "hgin_env.envs.policy",
    "register_policy": "hgin_env.envs.policy",
    "resolve_policy": "hgin_env.envs.policy",
}

__all__ = ["ENV_ID", "register_envs", *_LAZY]


def register_envs() -> None:
    """Register ``HollywoodGin-v1`` with Gymnasium (idempotent; imports Gymnasium)."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="hgin_env.envs.gym_env:HollywoodGinEnv",
            vector_entry_point="hgin_env.envs.vector_env:HollywoodGinVectorEnv",
        )


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hgin_env.envs' has no attribute {name!r}")


if "gymnasium" in sys.modules:  # registering costs nothing then
    register_envs()

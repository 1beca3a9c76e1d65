"""hollywood-gin: a batched Hollywood Gin rules engine and RL environments.

The engine (``hgin_env.engine``) imports numpy only; the environment adapters live
in ``hgin_env.envs``.
"""

from __future__ import annotations

from hgin_env.engine import *  # noqa: F403
from hgin_env.engine import __all__ as _engine_all

__all__ = list(_engine_all)
__version__ = "0.1.0"

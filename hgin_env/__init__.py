"""hollywood-gin: a batched Hollywood Gin rules engine and RL environments.

The engine (``hgin_env.engine``) imports numpy only; the environment adapters live
in ``hgin_env.envs``.
"""

from __future__ import annotations

import sys

from hgin_env.engine import *  # noqa: F403
from hgin_env.engine import __all__ as _engine_all

__all__ = list(_engine_all)
__version__ = "0.2.0"

# Register HollywoodGin-v1 when Gymnasium is already loaded (as in
# ``gymnasium.make("hgin_env:HollywoodGin-v1")``); never import it here, so that the
# engine stays numpy-only. ``import hgin_env.envs`` registers on the same condition
# (Gymnasium imported first); importing an adapter module (``hgin_env.envs.gym_env``,
# ``sb3_vec_env``, ...) or calling ``hgin_env.envs.register_envs()`` always registers.
if "gymnasium" in sys.modules:
    import hgin_env.envs  # noqa: E402, F401

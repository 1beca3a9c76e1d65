"""Hollywood Gin for two agents, versioned as PettingZoo's own environments are.

Import it as PettingZoo's classic games are imported (``from pettingzoo.classic import
gin_rummy_v4``)::

    from hgin_env.envs import hollywood_gin_v0

    env = hollywood_gin_v0.env(mode="series", render_mode="ansi")

``env()`` is the AEC env wrapped as PettingZoo's classic envs are (order enforcing);
``raw_env`` is the bare class. The game, observations, rewards and options are
documented in ``hgin_env.envs.pettingzoo_env``. There is no ``parallel_env()``: the game
is turn-based, one agent acts at a time, and PettingZoo's AEC-to-parallel conversion is
for games whose agents act at once (like its other classic games, this one offers the
AEC API only).

The version in the name changes whenever the observation, the actions or the rewards
change, so that a trained agent keeps meeting the game it learned.

Version history:

- v0: the first versioned release (observation of ``OBS_DIM`` = 400 entries, int8
  action masks, ``render_mode`` ``"ansi"``, ``"human"`` or ``"rgb_array"``).

Example (a doctest): PettingZoo's API test passes.

    >>> from pettingzoo.test import api_test
    >>> api_test(env(mode="hand"), num_cycles=200)
    Starting API test
    Passed API test
"""

from __future__ import annotations

from hgin_env.envs.pettingzoo_env import env, raw_env

__all__ = ["env", "raw_env"]

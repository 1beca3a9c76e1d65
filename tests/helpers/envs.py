"""The batched-env cases: a few games whose episodes end often, and their single envs."""

from __future__ import annotations

from typing import Any

import numpy as np

from hgin_env.engine.config import RulesConfig
from hgin_env.envs.gym_env import HollywoodGinEnv

N = 4


SEED = 40


#: hand mode with frequent max-turn draws; series mode with easy knocks and short games, so
#: that episodes end (and autoreset) often in a short test
CASES: dict[str, dict[str, Any]] = {
    "hand": {"mode": "hand", "rules": RulesConfig(max_turns_per_hand=6)},
    "series": {"mode": "series", "rules": RulesConfig(game_target=25, knock_limit=30)},
    # each series draws one of the rule sets from its seed: a VecEnv still equals singles
    "series_mix": {"mode": "series", "rules": RulesConfig(game_target=25, knock_limit=30),
                   "rules_mix": [{"undercut_bonus": 25}, {"gin_bonus": 40, "knock_limit": 10}]},
    "hand_mix": {"mode": "hand", "rules": RulesConfig(max_turns_per_hand=6),
                 "rules_mix": [{}, {"knock_limit": 20, "undercut_bonus": 25}]},
}  # fmt: skip


def singles_for(case: dict) -> tuple[list[HollywoodGinEnv], list[np.ndarray], list[dict]]:
    """N single envs reset with seeds SEED + i, with their first observations and infos."""
    envs = [HollywoodGinEnv(**case) for _ in range(N)]
    firsts = [env.reset(seed=SEED + i) for i, env in enumerate(envs)]
    return envs, [f[0] for f in firsts], [f[1] for f in firsts]

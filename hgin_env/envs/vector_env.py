"""A Gymnasium ``VectorEnv`` over the batched engine, for users outside Stable-Baselines3.

Same games, options and core as ``HollywoodGinEnv`` and ``HollywoodGinVecEnv``. Autoreset
is ``AutoresetMode.SAME_STEP`` (declared in ``metadata["autoreset_mode"]``): a game that
ends is reset within the same ``step``; the returned observation is the new episode's
first one, and ``infos["final_obs"][i]`` / ``infos["final_info"]`` (with the masks
``infos["_final_obs"]`` / ``infos["_final_info"]``) hold the episode's last observation
and facts. ``infos["action_mask"]`` (bool[N, 107]) and ``action_masks()`` give the legal
actions. ``gymnasium.make_vec("HollywoodGin-v0", num_envs=N)`` builds this class.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hgin_env.engine.config import RulesConfig
from hgin_env.envs.config import EnvConfig, check_render_mode, make_env_config
from hgin_env.envs.core import GinCore, StepResult
from hgin_env.envs.gym_env import action_space, observation_space
from hgin_env.envs.policy import Policy
from hgin_env.envs.render import render_view


class HollywoodGinVectorEnv(VectorEnv):
    """N games of ``HollywoodGin-v0`` as one Gymnasium ``VectorEnv`` (same-step autoreset).

    Args:
        num_envs: number of games.
        opponent: a policy name or an object with a batched ``act``.
        mode: ``"hand"`` (default) or ``"series"``.
        rules: a ``RulesConfig`` or a dict of its fields.
        render_mode: None, ``"ansi"`` (``render()`` returns one text per game) or
            ``"human"`` (prints game 0).
        seed: an int (game i uses ``seed + i``) or None, until ``reset(seed=...)``.
        config: an ``EnvConfig`` (or dict); keyword options override its fields.
        **options: ``EnvConfig`` fields (``reward_scale``, ``illegal_action``, ...).
    """

    metadata = {
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": ["ansi", "human"],
        "render_fps": 1,
    }

    def __init__(
        self,
        num_envs: int = 1,
        opponent: str | Policy = "random",
        mode: str | None = None,
        rules: RulesConfig | dict | None = None,
        render_mode: str | None = None,
        seed: int | None = None,
        config: EnvConfig | dict | None = None,
        **options: Any,
    ) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.config = make_env_config(config, mode, **options)
        self.core = GinCore(num_envs, opponent=opponent, config=self.config, rules=rules, seed=seed)
        self.rules = self.core.rules
        self.num_envs = self.core.n
        self.render_mode = render_mode
        self.single_observation_space = observation_space(self.core.obs_dim)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(
        self,
        *,
        seed: int | list[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode in every game (``seed``: an int s gives game i ``s + i``)."""
        super().reset(seed=seed if isinstance(seed, int) else None)
        if seed is not None:
            self.core.seed(seed if isinstance(seed, int) else np.asarray(seed, np.uint64))
        self.core.reset()
        return self.core.observe(), self._infos()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game; games that end are reset in the same step."""
        core = self.core
        result = core.step(actions, autoreset=True)
        done = result.terminated | result.truncated
        final: dict[str, Any] = {}
        if done.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i, obs in zip(result.final_rows, result.final_obs, strict=True):
                final_obs[i] = obs
            final = {
                "final_obs": final_obs,
                "_final_obs": done.copy(),
                "final_info": _with_masks(_result_arrays(result), done),
                "_final_info": done.copy(),
            }
        infos = self._infos()
        infos.update(_with_masks(_result_arrays(result), np.ones(self.num_envs, bool)))
        infos.update(final)
        return (
            core.observe(),
            result.reward.copy(),
            result.terminated.copy(),
            result.truncated.copy(),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """bool[N, 107]: each game's legal actions."""
        return self.core.action_masks()

    def render(self) -> tuple[str, ...] | None:
        """Each game's view from the agent's seat (``"ansi"``), or print game 0 (``"human"``)."""
        core = self.core
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(render_view(core.engine, core.sheets, 0, int(core.agent_seat[0])) + "\n")
            return None
        return tuple(
            render_view(core.engine, core.sheets, i, int(core.agent_seat[i]))
            for i in range(self.num_envs)
        )

    def _infos(self) -> dict[str, Any]:
        core = self.core
        every = np.ones(self.num_envs, bool)
        return _with_masks(
            {
                "action_mask": core.action_masks(),
                "agent_seat": core.agent_seat.astype(np.int64),
                "dealer": core.engine.dealer.astype(np.int64),
            },
            every,
        )


def _result_arrays(result: StepResult) -> dict[str, np.ndarray]:
    return {
        "hands_ended": result.hands_ended.copy(),
        "hand_score": result.hand_score.copy(),
        "outcome": result.outcome.astype(np.int64),
        "series_result": result.series_result.astype(np.int64),
        "illegal_action": result.illegal.copy(),
    }


def _with_masks(values: dict[str, np.ndarray], present: np.ndarray) -> dict[str, Any]:
    """Add Gymnasium's ``_key`` masks (which games have the entry) to a vector info dict."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        out[key] = value
        out[f"_{key}"] = present.copy()
    return out

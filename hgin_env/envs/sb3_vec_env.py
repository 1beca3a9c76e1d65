"""A batched Stable-Baselines3 ``VecEnv`` backed directly by the engine: N games, one engine.

No per-game Python env objects: the N games are rows of one ``GinCore`` (one
``GinEngine`` or ``SeriesEngine``), the opponent answers with one batched ``act`` call
per move, and finished games are reset in the same step (SB3's autoreset contract:
``infos[i]["terminal_observation"]`` holds the last observation of the episode and
``infos[i]["TimeLimit.truncated"]`` is true for the max-turn draw). Masks come from
``action_masks()`` (bool[N, 107]) and ``env_method("action_masks")``, so::

    from sb3_contrib import MaskablePPO
    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    vec_env = HollywoodGinVecEnv(n_envs=64, opponent="random", mode="hand", seed=0)
    MaskablePPO("MlpPolicy", vec_env).learn(10_000)

Game i of a VecEnv seeded ``s`` plays exactly like ``HollywoodGinEnv`` reset with seed
``s + i`` (same actions, same opponent, same trajectory).

``workers=K`` (K > 1) steps the games in K worker processes of ``n_envs / K`` games each
(``hgin_env.envs.workers``; see docs/workers.md for when it pays): same API, same
infos, same games for a keyed opponent; ``core`` is then None (each worker holds its
own), ``for_each_core`` runs a function on every core, and ``close()`` stops the workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import check_seed
from hgin_env.envs.config import EnvConfig, check_render_mode, make_env_config, make_rules
from hgin_env.envs.core import GinCore
from hgin_env.envs.cores import make_games, render_game
from hgin_env.envs.gym_env import action_space, observation_space, result_info
from hgin_env.envs.policy import Policy
from hgin_env.envs.workers import check_workers

RENDER_MODES = ("ansi", "human")


class HollywoodGinVecEnv(VecEnv):
    """N games of ``HollywoodGin-v1`` as one SB3 ``VecEnv`` (same options as the Gym env).

    Args:
        n_envs: number of games.
        opponent: a policy name or an object with a batched ``act``.
        mode: ``"hand"`` (default) or ``"series"``.
        rules: a ``RulesConfig`` or a dict of its fields.
        seed: an int (game i uses ``seed + i``) or None; ``seed()`` then ``reset()``
            reseeds, as with any SB3 VecEnv.
        render_mode: None, ``"ansi"`` or ``"human"`` (the view of game 0).
        config: an ``EnvConfig`` (or dict); keyword options override its fields.
        workers: processes stepping the games (1: this process; K > 1: K workers of
            ``n_envs / K`` games, ``n_envs`` divisible by K).
        **options: ``EnvConfig`` fields (``reward_scale``, ``illegal_action``, ...).

    Attributes:
        core: the ``GinCore`` of the games (None with workers).
        workers: the number of worker processes (1: none).
    """

    def __init__(
        self,
        n_envs: int = 1,
        opponent: str | Policy = "random",
        mode: str | None = None,
        rules: RulesConfig | dict | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        config: EnvConfig | dict | None = None,
        workers: int = 1,
        **options: Any,
    ) -> None:
        check_render_mode(render_mode, RENDER_MODES)
        self.config = make_env_config(config, mode, **options)
        self.workers = check_workers(workers, n_envs)
        self.rules = make_rules(rules)
        self._games = make_games(n_envs, self.workers, opponent, self.config, self.rules, seed)
        self.core: GinCore | None = getattr(self._games, "core", None)
        n, obs_dim = self._games.n, self._games.obs_dim
        self.render_mode = render_mode
        self._actions: np.ndarray | None = None
        super().__init__(n, observation_space(obs_dim), action_space())
        self.metadata = {"render_modes": list(RENDER_MODES)}

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        """Start a new episode in every game; applies the seeds given by ``seed()``."""
        given = [s for s in self._seeds if s is not None]
        if given:
            if len(given) < len(self._seeds):
                raise ValueError("seed() must give a seed to every game or to none")
            seeds = np.asarray([s % 2**64 for s in given], dtype=np.uint64)
            self._games.seed(seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._games.reset()
        return self._games.observe()

    def step_async(self, actions: np.ndarray) -> None:
        """Store the actions for ``step_wait`` (with workers: start the step in them).

        Raises:
            ValueError: ``actions`` is not shaped ``(num_envs,)`` or ``(num_envs, 1)``
                (one action per game; the message names the shape given).
        """
        shape = np.shape(actions)
        if shape not in ((self.num_envs,), (self.num_envs, 1)):
            raise ValueError(
                f"expected one action per game, shaped ({self.num_envs},) or "
                f"({self.num_envs}, 1), got shape {shape}"
            )
        self._games.step_async(np.reshape(actions, (self.num_envs,)))
        self._actions = np.zeros(0)

    def step_async_workers(self, actions: np.ndarray, workers: Sequence[int]) -> None:
        """With workers: start the step of these workers' games only (rows of ``actions``).

        The other workers are started by further calls; ``step_wait`` then returns the
        whole step. A trainer can so decide half of the games while the other half steps.
        """
        if self.workers == 1:
            raise RuntimeError("step_async_workers needs workers > 1")
        self._games.step_async(actions, workers)
        self._actions = np.zeros(0)

    def worker_bounds(self) -> list[tuple[int, int]]:
        """Each worker's games ``[lo, hi)`` (one range of all games without workers)."""
        return [self._games.bounds(k) for k in range(self._games.k)]

    def step_wait(self) -> VecEnvStepReturn:
        """Step every game; finished games are reset at once (see the module docstring)."""
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        self._actions = None
        result = self._games.step_wait()
        obs = self._games.observe()
        done = result.terminated | result.truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero((result.hands_ended > 0) | result.illegal):
            infos[i].update(result_info(result, int(i)))
        time_limit = result.truncated & ~result.terminated
        if result.final_rows is None or result.final_obs is None:
            raise RuntimeError("an autoreset step returned no final observations")
        for i, final in zip(result.final_rows, result.final_obs, strict=True):
            infos[i]["terminal_observation"] = final
            infos[i]["TimeLimit.truncated"] = bool(time_limit[i])
        return obs, result.reward.copy(), done, infos

    def close(self) -> None:
        """Stop the worker processes (nothing to release without workers)."""
        self._games.close()

    def action_masks(self) -> np.ndarray:
        """bool[N, 107]: each game's legal actions (what ``MaskablePPO`` asks for)."""
        return self._games.action_masks()

    # ------------------------------------------------------------------ cores and workers
    def for_each_core(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """``fn(core, *args)`` on every ``GinCore`` of the env: one, or one per worker.

        How a change reaches every worker's opponent (a new self-play snapshot, new
        weights): with workers ``fn`` and ``args`` are pickled to each worker, so ``fn``
        must be a module-level function. Returns the results, one per core.
        """
        return self._games.for_each(fn, *args)

    @property
    def episodes(self) -> np.ndarray:
        """int64[N]: episodes started per game (``core.episodes``; with workers a live copy)."""
        return self._games.episodes

    def opponent_state(self) -> dict[str, np.ndarray]:
        """With workers: the opponents' ``per_game_state()`` arrays of all games (live views)."""
        return self._games.opponent_state()

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes' ids (empty without workers)."""
        return self._games.pids

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute of this env, once per selected game (the games share it)."""
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of this env (shared by all games)."""
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs
    ) -> list[Any]:
        """Per-game ``action_masks`` and ``render``; other methods are called once per game."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        if method_name == "render":
            return [self.render_game(i) for i in idx]
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No game is wrapped."""
        return [False for _ in self._get_indices(indices)]

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seeds ``seed + i`` for game i, applied at the next ``reset()``.

        Raises:
            ValueError: a seed outside 0..2**64-1.
        """
        if seed is not None:
            check_seed(seed)
        return super().seed(seed)

    # ------------------------------------------------------------------ rendering
    def render_game(self, i: int) -> str:
        """The text view of game ``i`` from the agent's seat."""
        return render_game(self._games, i)

    def render(self, mode: str | None = None) -> str | None:  # type: ignore[override]  # text frames ("ansi")
        """The view of game 0: returned (``"ansi"``) or printed (``"human"``)."""
        mode = mode or self.render_mode
        if mode is None:
            return None
        text = self.render_game(0)
        if mode == "human":
            print(text + "\n")
            return None
        return text

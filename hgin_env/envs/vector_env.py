"""A Gymnasium ``VectorEnv`` over the batched engine, for users outside Stable-Baselines3.

Same games, options and core as ``HollywoodGinEnv`` and ``HollywoodGinVecEnv``.
``gymnasium.make_vec("HollywoodGin-v1", num_envs=N)`` builds this class. Every step
returns ``infos["action_mask"]`` (int8[N, 107]; ``action_masks()`` gives it as bool), ``agent_seat``
and ``dealer``, plus the step's ``hands_ended``, ``hand_score``, ``outcome``,
``hand_result``, ``agent_knocked``, ``series_result`` and ``illegal_action`` (each with
Gymnasium's ``_key`` mask saying which games have it).

Autoreset follows Gymnasium 1.x exactly (``autoreset_mode=``, an ``AutoresetMode`` or
its name; declared in ``metadata["autoreset_mode"]``); game i behaves as the i-th
``HollywoodGinEnv`` of ``gymnasium.vector.SyncVectorEnv(..., autoreset_mode=mode)``, info
dicts included:

- ``NEXT_STEP`` (the default, what most libraries assume): the step in which an episode
  ends returns its last observation; the next ``step`` ignores that game's action and
  resets it (reward 0, not terminated or truncated, the info of a reset: no step keys).
  Between the two, the game's action mask is all false (no legal action: the episode is
  over), so send any id for it.
- ``SAME_STEP``: an ending game is reset within the step; the returned observation is
  the new episode's first, ``infos["final_obs"][i]`` and ``infos["final_info"]`` hold the
  last observation and info (masks ``_final_obs`` / ``_final_info``), and the top-level
  info of that game is the reset's.
- ``DISABLED``: nothing is reset automatically; stepping a game whose episode ended is an
  error until ``reset(options={"reset_mask": mask})`` restarts it (mask: bool[N], at
  least one true; only those games restart, ``seed`` then applies to them alone, and the
  returned infos cover them alone).

``reset(options={"reset_mask": mask})`` works in every mode (it also clears a pending
next-step reset of the masked games).

``workers=K`` (K > 1) steps the games in K worker processes of ``num_envs / K`` games
each, through the same games interface as the SB3 ``VecEnv`` (``hgin_env.envs.cores``;
docs/workers.md): same API, same observations, rewards, flags and infos in every autoreset
mode whenever the opponent decides each game alone (a keyed policy); ``core`` is then None,
``worker_pids`` lists the processes and ``close()`` stops them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import game_seeds
from hgin_env.envs.config import EnvConfig, check_render_mode, make_env_config, make_rules
from hgin_env.envs.core import STEP_INFO, GinCore, StepResult
from hgin_env.envs.cores import make_games, render_game
from hgin_env.envs.gym_env import action_space, info_mask, observation_space
from hgin_env.envs.policy import Policy
from hgin_env.envs.workers import check_workers


def parse_autoreset_mode(value: AutoresetMode | str) -> AutoresetMode:
    """An ``AutoresetMode`` from itself, its value (``"NextStep"``) or its name (``"NEXT_STEP"``).

    Raises:
        ValueError: for anything else, listing the accepted names.
    """
    if isinstance(value, AutoresetMode):
        return value
    for mode in AutoresetMode:
        if isinstance(value, str) and value in (mode.value, mode.name, mode.name.lower()):
            return mode
    names = [m.name for m in AutoresetMode] + [m.value for m in AutoresetMode]
    raise ValueError(
        f"autoreset_mode must be a gymnasium AutoresetMode or one of {names}, got {value!r}"
    )


class HollywoodGinVectorEnv(VectorEnv):
    """N games of ``HollywoodGin-v1`` as one Gymnasium ``VectorEnv``.

    Args:
        num_envs: number of games.
        opponent: a policy name or an object with a batched ``act``.
        mode: ``"hand"`` (default) or ``"series"``.
        rules: a ``RulesConfig`` or a dict of its fields.
        render_mode: None, ``"ansi"`` (``render()`` returns one text per game) or
            ``"human"`` (prints game 0).
        seed: an int (game i uses ``seed + i``) or None, until ``reset(seed=...)``.
        config: an ``EnvConfig`` (or dict); keyword options override its fields.
        autoreset_mode: ``NEXT_STEP`` (default), ``SAME_STEP`` or ``DISABLED`` (see the
            module docstring), as an ``AutoresetMode`` or its name.
        workers: processes stepping the games (1: this process; K > 1: K workers of
            ``num_envs / K`` games, ``num_envs`` divisible by K).
        **options: ``EnvConfig`` fields (``reward_scale``, ``illegal_action``, ...).

    Attributes:
        core: the ``GinCore`` of the games (None with workers).
        workers: the number of worker processes (1: none).

    Raises:
        ValueError: a bad option, ``workers`` count or opponent name (before any worker
            starts).
        EnvWorkerError: a worker that fails to start (the others are stopped).
    """

    metadata = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
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
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        workers: int = 1,
        **options: Any,
    ) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.autoreset_mode = parse_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.config = make_env_config(config, mode, **options)
        self.workers = check_workers(workers, num_envs)
        self.rules = make_rules(rules)
        self._games = make_games(num_envs, self.workers, opponent, self.config, self.rules, seed)
        self.core: GinCore | None = getattr(self._games, "core", None)
        self.num_envs = self._games.n
        self.render_mode = render_mode
        self.single_observation_space = observation_space(self._games.obs_dim)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        # NEXT_STEP: games whose episode ended in the last step (reset by the next one)
        self._autoreset = np.zeros(self.num_envs, bool)

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode in every game, or in ``options["reset_mask"]``'s games.

        Args:
            seed: an int s gives game i the seed ``s + i``; a list gives one seed (or
                None: no reseed) per game. With a mask only the masked games are reseeded.
            options: ``{"reset_mask": bool[N]}`` restarts only those games (Gymnasium's
                partial reset; needed in ``DISABLED`` mode); other keys are ignored.

        Raises:
            TypeError / ValueError: a reset mask that is not a bool array of shape (N,)
                with a true entry, or a seed list of the wrong length (as Gymnasium's).
        """
        n = self.num_envs
        mask = self._reset_mask(options)
        if isinstance(seed, np.integer):
            seed = int(seed)
        if seed is not None and not isinstance(seed, int) and len(seed) != n:
            raise ValueError(
                f"If seeds are passed as a list the length must match num_envs={n} "
                f"but got length={len(seed)}."
            )
        games = self._games
        if mask is None:
            super().reset(seed=seed if isinstance(seed, int) else None)
            if isinstance(seed, int) or (seed is not None and None not in seed):
                games.seed(seed if isinstance(seed, int) else np.asarray(seed, np.uint64))
            elif seed is not None:
                self._reseed(np.ones(n, bool), seed)
            self._autoreset[:] = False
            games.reset()
            return games.observe(), self._state_infos()
        if seed is not None:
            self._reseed(mask, seed)
        self._autoreset[mask] = False
        games.reset(mask)  # a live episode of a masked game is abandoned
        return games.observe(), self._state_infos(mask)

    def _reset_mask(self, options: dict[str, Any] | None) -> np.ndarray | None:
        """The checked ``options["reset_mask"]`` (Gymnasium's rules), or None."""
        if options is None or "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        n = self.num_envs
        if not isinstance(mask, np.ndarray):
            raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
        if mask.shape != (n,):
            raise ValueError(f"`options['reset_mask']` must have shape `({n},)`, got {mask.shape}")
        if mask.dtype != np.bool_:
            raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
        if not mask.any():
            raise ValueError(
                "`options['reset_mask']` must contain a boolean array with at least one True "
                f"value, got reset_mask={mask}"
            )
        return mask.copy()

    def _reseed(self, mask: np.ndarray, seed: int | list[int | None]) -> None:
        """Reseed the masked games: an int s gives game i ``s + i``; a list, its entries."""
        seeds = list(game_seeds(seed, self.num_envs)) if isinstance(seed, int) else list(seed)
        rows = [i for i in np.flatnonzero(mask) if seeds[i] is not None]
        if rows:
            self._games.reseed(np.array(rows), np.array([seeds[i] for i in rows], np.uint64))

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game; finished games are reset as ``autoreset_mode`` says.

        Raises:
            ValueError: an illegal action, or (``DISABLED``) an action for a game whose
                episode ended and was not reset.
        """
        games, n = self._games, self.num_envs
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and not games.awaiting.all():
            ended = np.flatnonzero(~games.awaiting)[:10].tolist()
            raise ValueError(
                f"games {ended} have no live episode (autoreset_mode DISABLED): restart them "
                "with reset(options={'reset_mask': terminations | truncations})"
            )
        restart = self._autoreset.copy()  # NEXT_STEP only: the games this step resets
        games.step_async(actions, autoreset=False)  # games without a live episode ignore theirs
        result = games.step_wait()
        done = result.terminated | result.truncated
        stepped = ~restart
        final: dict[str, Any] = {}
        if mode == AutoresetMode.SAME_STEP and done.any():
            final_obs = np.full(n, None, dtype=object)
            rows = np.flatnonzero(done)
            for i, obs in zip(rows, games.observe(rows), strict=True):
                final_obs[i] = obs
            final = {
                "final_obs": final_obs,
                "_final_obs": done.copy(),
                "final_info": {**self._state_infos(done), **_step_infos(result, done)},
                "_final_info": done.copy(),
            }
            games.reset(done)
            stepped = ~done  # the reset games carry the reset's info only
        if restart.any():
            games.reset(restart)
        self._autoreset = done if mode == AutoresetMode.NEXT_STEP else np.zeros(n, bool)
        infos = self._state_infos()
        if stepped.any():
            infos.update(_step_infos(result, stepped))
        infos.update(final)
        reward = result.reward.copy()
        terminated, truncated = result.terminated.copy(), result.truncated.copy()
        reward[restart] = 0.0
        terminated[restart] = truncated[restart] = False
        return games.observe(), reward, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """bool[N, 107]: each game's legal actions (all false for a game whose episode ended)."""
        return self._games.action_masks()

    def render(self) -> tuple[str, ...] | None:  # type: ignore[override]  # text frames
        """Each game's view from the agent's seat (``"ansi"``), or print game 0 (``"human"``)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(render_game(self._games, 0) + "\n")
            return None
        return tuple(render_game(self._games, i) for i in range(self.num_envs))

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes' ids (empty without workers)."""
        return self._games.pids

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the worker processes (nothing to release without workers)."""
        games = getattr(self, "_games", None)  # None: the constructor failed before them
        if games is not None:
            games.close()

    def _state_infos(self, present: np.ndarray | None = None) -> dict[str, Any]:
        """The reset infos (mask, seat, dealer) of the ``present`` games (default: all)."""
        games = self._games
        values = {
            "action_mask": info_mask(games.action_masks()),
            "agent_seat": games.agent_seat.astype(np.int64),
            "dealer": games.dealer.astype(np.int64),
        }
        return _with_masks(values, present)


def _step_infos(result: StepResult, present: np.ndarray) -> dict[str, Any]:
    """The step's facts of the ``present`` games, with their masks."""
    values = {}
    for key, name in STEP_INFO.items():
        array = getattr(result, name)  # integers as int64, flags as bool
        values[key] = array.astype(np.int64) if array.dtype.kind == "i" else array.copy()
    return _with_masks(values, present)


def _with_masks(values: dict[str, np.ndarray], present: np.ndarray | None) -> dict[str, Any]:
    """Gymnasium's vector info: each entry with its ``_key`` mask (the games that have it).

    Games outside ``present`` (default: every game has the entries) get zeros.
    """
    out: dict[str, Any] = {}
    for key, value in values.items():
        mask = np.ones(len(value), bool) if present is None else present.copy()
        value[~mask] = 0
        out[key] = value
        out[f"_{key}"] = mask
    return out

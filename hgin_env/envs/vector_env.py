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
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import game_seeds
from hgin_env.envs.config import EnvConfig, check_render_mode, make_env_config
from hgin_env.envs.core import STEP_INFO, GinCore, StepResult
from hgin_env.envs.gym_env import action_space, info_mask, observation_space
from hgin_env.envs.policy import Policy
from hgin_env.envs.render import render_view


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
        **options: ``EnvConfig`` fields (``reward_scale``, ``illegal_action``, ...).
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
        **options: Any,
    ) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.autoreset_mode = parse_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.config = make_env_config(config, mode, **options)
        self.core = GinCore(num_envs, opponent=opponent, config=self.config, rules=rules, seed=seed)
        self.rules = self.core.rules
        self.num_envs = self.core.n
        self.render_mode = render_mode
        self.single_observation_space = observation_space(self.core.obs_dim)
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
        core = self.core
        if mask is None:
            super().reset(seed=seed if isinstance(seed, int) else None)
            if isinstance(seed, int) or (seed is not None and None not in seed):
                core.seed(seed if isinstance(seed, int) else np.asarray(seed, np.uint64))
            elif seed is not None:
                self._reseed(np.ones(n, bool), seed)
            self._autoreset[:] = False
            core.reset()
            return core.observe(), self._state_infos()
        if seed is not None:
            self._reseed(mask, seed)
        self._autoreset[mask] = False
        core.awaiting[mask] = False  # a live episode of a masked game is abandoned
        core.reset(mask)
        return core.observe(), self._state_infos(mask)

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
            self.core.reseed(np.array(rows), np.array([seeds[i] for i in rows], np.uint64))

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game; finished games are reset as ``autoreset_mode`` says.

        Raises:
            ValueError: an illegal action, or (``DISABLED``) an action for a game whose
                episode ended and was not reset.
        """
        core, n = self.core, self.num_envs
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and not core.awaiting.all():
            games = np.flatnonzero(~core.awaiting)[:10].tolist()
            raise ValueError(
                f"games {games} have no live episode (autoreset_mode DISABLED): restart them "
                "with reset(options={'reset_mask': terminations | truncations})"
            )
        restart = self._autoreset.copy()  # NEXT_STEP only: the games this step resets
        result = core.step(actions)  # games without a live episode ignore their action
        done = result.terminated | result.truncated
        stepped = ~restart
        final: dict[str, Any] = {}
        if mode == AutoresetMode.SAME_STEP and done.any():
            final_obs = np.full(n, None, dtype=object)
            for i, obs in zip(np.flatnonzero(done), core.final_observations(done), strict=True):
                final_obs[i] = obs
            final = {
                "final_obs": final_obs,
                "_final_obs": done.copy(),
                "final_info": {**self._state_infos(done), **_step_infos(result, done)},
                "_final_info": done.copy(),
            }
            core.reset(done)
            stepped = ~done  # the reset games carry the reset's info only
        if restart.any():
            core.reset(restart)
        self._autoreset = done if mode == AutoresetMode.NEXT_STEP else np.zeros(n, bool)
        infos = self._state_infos()
        if stepped.any():
            infos.update(_step_infos(result, stepped))
        infos.update(final)
        reward = result.reward.copy()
        terminated, truncated = result.terminated.copy(), result.truncated.copy()
        reward[restart] = 0.0
        terminated[restart] = truncated[restart] = False
        return core.observe(), reward, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """bool[N, 107]: each game's legal actions (all false for a game whose episode ended)."""
        return self.core.action_masks()

    def render(self) -> tuple[str, ...] | None:  # type: ignore[override]  # text frames
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

    def _state_infos(self, present: np.ndarray | None = None) -> dict[str, Any]:
        """The reset infos (mask, seat, dealer) of the ``present`` games (default: all)."""
        core = self.core
        values = {
            "action_mask": info_mask(core.action_masks()),
            "agent_seat": core.agent_seat.astype(np.int64),
            "dealer": core.engine.dealer.astype(np.int64),
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

"""The games of a vector env, in this process or in worker processes, behind one interface.

``EnvWorkers`` (``hgin_env.envs.workers``) steps the games in K worker processes;
``LocalGames`` holds them in one in-process ``GinCore`` with the same methods, so a
vector env (the SB3 ``VecEnv`` and the Gymnasium ``VectorEnv``) is written once against
either (``make_games`` picks by the worker count): ``seed`` / ``reseed`` (all games, or
some), ``reset`` (all games, or a mask), ``observe``, ``action_masks``, ``step_async`` /
``step_wait`` (the step's ``StepResult``: with ``autoreset`` the ended episodes restart
within the step and their last observations come with it; without, they wait for a
``reset``), ``for_each`` / ``call`` (a function on every core, or on one), ``bounds``,
``episodes``, ``agent_seat``, ``dealer``, ``awaiting``, ``opponent_state``, ``pids`` and
``close``; ``render_game`` draws one game from either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hgin_env.engine.config import RulesConfig
from hgin_env.envs.config import EnvConfig
from hgin_env.envs.core import GinCore, StepResult
from hgin_env.envs.policy import registered_policies, resolve_policy
from hgin_env.envs.render import render_view
from hgin_env.envs.workers import EnvWorkers, check_workers


class LocalGames:
    """``n`` games in one in-process ``GinCore``, with the interface of ``EnvWorkers``.

    Args:
        n: games.
        opponent: a policy name or object.
        config: the environment options.
        rules: the rules options.
        seed: as for ``GinCore``.

    Attributes:
        core: the ``GinCore`` of the games.
        k: the number of cores (1).
    """

    k = 1

    def __init__(
        self,
        n: int,
        opponent: Any,
        config: EnvConfig,
        rules: RulesConfig,
        seed: int | np.ndarray | None = None,
    ) -> None:
        self.core = GinCore(n, opponent=opponent, config=config, rules=rules, seed=seed)
        self.n = self.per = self.core.n
        self.obs_dim = self.core.obs_dim
        self._actions: np.ndarray | None = None
        self._autoreset = True

    def bounds(self, k: int) -> tuple[int, int]:
        """The games of core ``k`` (0): all of them."""
        return 0, self.n

    @property
    def pids(self) -> list[int]:
        """No worker processes."""
        return []

    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """float32[M, obs_dim]: the agent's observations (all games, or the int[M] ``rows``)."""
        return self.core.observe(rows)

    def action_masks(self) -> np.ndarray:
        """bool[n, 107]: each game's legal actions."""
        return self.core.action_masks()

    @property
    def episodes(self) -> np.ndarray:
        """int64[n]: episodes started per game."""
        return self.core.episodes

    @property
    def agent_seat(self) -> np.ndarray:
        """int8[n]: the agent's seat per game."""
        return self.core.agent_seat

    @property
    def dealer(self) -> np.ndarray:
        """int8[n]: the dealer of each game's current hand."""
        return self.core.engine.dealer

    @property
    def awaiting(self) -> np.ndarray:
        """bool[n]: games waiting for an agent action."""
        return self.core.awaiting

    def opponent_state(self) -> dict[str, np.ndarray]:
        """Nothing to share: the opponent lives in this process."""
        return {}

    def seed(self, seed: int | np.ndarray) -> None:
        """Give the games new seeds (``GinCore.seed``: an int or uint64[n]); call ``reset`` next."""
        self.core.seed(seed)

    def reseed(self, rows: np.ndarray, seeds: np.ndarray) -> None:
        """Give the games ``rows`` (int[M]) new seeds (``GinCore.reseed``); reset them next."""
        self.core.reseed(rows, seeds)

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Start a new episode in the selected games (bool[n]; default: all)."""
        self.core.reset(mask)

    def step_async(
        self,
        actions: np.ndarray,
        workers: Sequence[int] | None = None,
        autoreset: bool = True,
    ) -> None:
        """Keep the actions for ``step_wait`` (checked there, by ``GinCore.step``).

        Raises:
            RuntimeError: ``workers`` given: there are no worker processes to start apart.
        """
        if workers is not None:
            raise RuntimeError("starting some workers of a step needs workers > 1")
        self._actions = np.asarray(actions)
        self._autoreset = autoreset

    def step_wait(self) -> StepResult:
        """Step every game (``GinCore.step``, with or without autoreset): its ``StepResult``."""
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        actions, self._actions = self._actions, None
        return self.core.step(actions, autoreset=self._autoreset)

    def for_each(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """``[fn(core, *args)]``."""
        return [fn(self.core, *args)]

    def call(self, k: int, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(core, *args)``."""
        return fn(self.core, *args)

    def close(self) -> None:
        """Nothing to release."""


def make_games(
    n: int,
    workers: int,
    opponent: Any,
    config: EnvConfig,
    rules: RulesConfig,
    seed: int | np.ndarray | None = None,
) -> LocalGames | EnvWorkers:
    """The ``n`` games of a vector env: in this process (``workers=1``) or in K processes.

    Raises:
        ValueError: a bad ``workers`` count (``check_workers``), or an unknown opponent
            name (before any worker starts).
        EnvWorkerError: a worker that fails to start.
    """
    if check_workers(workers, n) == 1:
        return LocalGames(n, opponent, config, rules, seed)
    if isinstance(opponent, str) and opponent not in registered_policies():
        resolve_policy(opponent)  # raises: an unknown name fails here, not in a worker
    return EnvWorkers(n, workers, opponent, config, rules, seed)


def render_game(games: LocalGames | EnvWorkers, i: int) -> str:
    """The text view of game ``i`` from the agent's seat (drawn by the core that holds it)."""
    k = i // games.per
    return games.call(k, _render_game, i - k * games.per)


def _render_game(core: GinCore, i: int) -> str:
    """Game ``i`` of ``core`` as text, from the agent's seat."""
    return render_view(core.engine, core.sheets, i, int(core.agent_seat[i]))

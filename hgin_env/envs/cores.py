"""The games of a vector env, in this process or in worker processes, behind one interface.

``EnvWorkers`` (``hgin_env.envs.workers``) steps the games in K worker processes;
``LocalGames`` holds them in one in-process ``GinCore`` with the same methods, so a
vector env is written once against either (``make_games`` picks by the worker count):
``seed``, ``reset``, ``observe``, ``action_masks``, ``step_async`` / ``step_wait`` (an
autoreset step: the ``StepResult`` with the ended episodes' last observations, and the
new observations), ``for_each`` / ``call`` (a function on every core, or on one),
``bounds``, ``episodes``, ``agent_seat``, ``opponent_state``, ``pids`` and ``close``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hgin_env.engine.config import RulesConfig
from hgin_env.envs.config import EnvConfig
from hgin_env.envs.core import GinCore, StepResult
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

    def bounds(self, k: int) -> tuple[int, int]:
        """The games of core ``k`` (0): all of them."""
        return 0, self.n

    @property
    def pids(self) -> list[int]:
        """No worker processes."""
        return []

    def observe(self) -> np.ndarray:
        """float32[n, obs_dim]: the agent's observations."""
        return self.core.observe()

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

    def opponent_state(self) -> dict[str, np.ndarray]:
        """Nothing to share: the opponent lives in this process."""
        return {}

    def seed(self, seeds: np.ndarray) -> None:
        """Give the games new per-game seeds (uint64[n]); call ``reset`` next."""
        self.core.seed(seeds)

    def reset(self) -> None:
        """Start a new episode in every game."""
        self.core.reset()

    def step_async(self, actions: np.ndarray, workers: Sequence[int] | None = None) -> None:
        """Keep the actions for ``step_wait`` (checked there, by ``GinCore.step``).

        Raises:
            RuntimeError: ``workers`` given: there are no worker processes to start apart.
        """
        if workers is not None:
            raise RuntimeError("starting some workers of a step needs workers > 1")
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[StepResult, np.ndarray]:
        """Step every game (autoreset): its ``StepResult`` and the new observations."""
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        actions, self._actions = self._actions, None
        result = self.core.step(actions, autoreset=True)
        return result, self.core.observe()

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
        ValueError: a bad ``workers`` count (``check_workers``).
        EnvWorkerError: a worker that fails to start.
    """
    if check_workers(workers, n) == 1:
        return LocalGames(n, opponent, config, rules, seed)
    return EnvWorkers(n, workers, opponent, config, rules, seed)

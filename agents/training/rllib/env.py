"""The batched training env RLlib's env runners step: N games, NEXT_STEP autoreset, masks inside.

``RLlibGinEnv`` is a Gymnasium ``VectorEnv`` over the environments' ``GinCore`` (N games
of the agent against the training opponents on one engine), shaped the way RLlib's
``SingleAgentEnvRunner`` expects with ``gym_env_vectorize_mode="vector_entry_point"``:

- autoreset is ``AutoresetMode.NEXT_STEP`` (Gymnasium's default, the one RLlib's episode
  bookkeeping assumes): a game whose episode ended in step t returns that episode's last
  observation at t; at t + 1 it ignores its action, starts a new episode and returns the
  first observation with reward 0 and both flags false;
- an observation is one ``float32[OBS_DIM + 107]`` row: the encoded view, then the
  legal-action mask (1.0 = legal; ``split_observation``), so the RLModule masks its
  logits itself (``agents.training.rllib.module``). One flat array rather than a ``Dict``
  space: RLlib's connectors walk every game's observation at every step, and with a
  ``Dict`` the driver spent 13% and 32% more CPU time (two A/B runs of 4 iterations).
  A game between episodes has an all-zero mask;
- infos are empty: RLlib turns a vector info dict into one dict per game at every step,
  and the facts the project logs come from its own evaluator instead;
- an illegal action raises the engine's ``ValueError`` naming the action and the legal
  ones (``env.illegal_action: raise``), never a silent default.

The opponents are the config's (``agents.training.opponents``: bots, shipped models,
mixes, the league); the driver keeps the league and its snapshots and mirrors each change
into every env runner's mixture (``agents.training.rllib.league``), and with a league the
env records each finished hand's score against its opponent for the driver
(``take_records``). Shared-policy self-play trains through the PettingZoo env instead
(``agents.training.rllib.selfplay``). ``RLlibEntryEnv`` is the class RLlib builds in each
env runner. It imports no Ray.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from agents.training.config import TrainConfig, build_config
from agents.training.league import hand_score
from agents.training.opponents import TrainingOpponents, attach
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.keys import worker_seeds
from hgin_env.envs.core import GinCore
from hgin_env.envs.gym_env import action_space, observation_space

#: RLlib's module id of a single-agent run
DEFAULT_MODULE = "default_policy"
#: the module both seats share in self-play (RLlib runs a lone ``default_policy`` as
#: single-agent, so the self-play module needs another id)
SHARED_MODULE = "shared"

#: RLlib's worker_index of the local env runner (remote ones count from 1)
LOCAL_WORKER = 0


def single_observation_space(obs_dim: int) -> spaces.Box:
    """One game's observation: the encoded view, then the legal-action mask (0 or 1)."""
    view = observation_space(obs_dim)
    low = np.concatenate([view.low, np.zeros(N_ACTIONS, np.float32)])
    high = np.concatenate([view.high, np.ones(N_ACTIONS, np.float32)])
    return spaces.Box(low, high, dtype=np.float32)


def split_observation(obs: Any) -> tuple[Any, Any]:
    """``(view, mask)`` of observations of this layout (numpy arrays or torch tensors)."""
    return obs[..., :-N_ACTIONS], obs[..., -N_ACTIONS:]


def join_observation(view: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """float32 rows of this layout from views and bool or 0/1 masks (one row or a batch)."""
    return np.concatenate([view, mask.astype(np.float32)], axis=-1, dtype=np.float32)


class RLlibGinEnv(VectorEnv):
    """N games of the training config against its opponents; NEXT_STEP autoreset.

    Args:
        config: the training config (``env``, ``rules``, ``opponents`` and ``seed`` are used).
        num_envs: games in the batch.
        seed: game i of this env uses ``seed + i`` until ``reset(seed=...)``.
        opponent_seed: seeds the opponents' sampling and bots (default ``config.seed``).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        config: TrainConfig,
        num_envs: int,
        seed: int = 0,
        opponent_seed: int | None = None,
    ) -> None:
        if config.opponents.selfplay.enabled:
            raise ValueError(
                "self-play trains on RLlibSelfPlayEnv (agents.training.rllib.selfplay)"
            )
        self.opponents = TrainingOpponents(
            config.opponents,
            num_envs,
            Path(tempfile.gettempdir()) / "unused-pool",
            config.seed if opponent_seed is None else opponent_seed,
        )
        self.core = GinCore(
            num_envs, self.opponents.policy, config.env, config.rules, seed=int(seed)
        )
        if self.opponents.policy is self.opponents.mixture:
            attach(self, self.opponents.mixture)
        self.num_envs = num_envs
        self.run_seed = config.seed
        self.single_observation_space = single_observation_space(self.core.obs_dim)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._ended = np.zeros(num_envs, bool)
        #: the league's results since ``take_records``: ``(member, score)`` per hand
        self.records: list[tuple[str, float]] = []

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode in every game (``seed``: an int s gives game i ``s + i``)."""
        super().reset(seed=seed if isinstance(seed, int) else None)
        if seed is not None:
            self.core.seed(seed if isinstance(seed, int) else np.asarray(seed, np.uint64))
        self.core.reset()
        self._ended[:] = False
        return self._observe(), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step the live games; restart the games whose episode ended in the previous step."""
        core = self.core
        restart = self._ended.copy()
        actions = np.asarray(actions).reshape(-1)
        result = core.step(np.where(restart, 0, actions))  # restarting games are not awaiting
        if restart.any():
            core.reset(restart)
        self._ended = result.terminated | result.truncated
        if self.opponents.league is not None:
            self._record_hands(result, restart)
        reward = np.where(restart, 0.0, result.reward).astype(np.float32)
        return (
            self._observe(),
            reward,
            result.terminated & ~restart,
            result.truncated & ~restart,
            {},
        )

    def _record_hands(self, result: Any, restart: np.ndarray) -> None:
        """The league's records: each finished hand's score against its opponent."""
        names = self.opponents.mixture.names
        for i in np.flatnonzero((result.hands_ended > 0) & ~restart):
            # NEXT_STEP autoreset: a game whose episode just ended restarts on the next
            # step, so its episode counter still names the episode that ended
            slot = self.opponents.opponent_slot(int(i), ended=False)
            if slot >= 0:
                self.records.append((names[slot], hand_score(int(result.hand_result[i]))))

    def take_records(self) -> list[tuple[str, float]]:
        """The league's records since the last call (the driver keeps the league)."""
        records, self.records = self.records, []
        return records

    def action_masks(self) -> np.ndarray:
        """bool[N, 107]: each game's legal actions (none for a game between episodes)."""
        return self.core.action_masks()

    def _observe(self) -> np.ndarray:
        return join_observation(self.core.observe(), self.core.action_masks())


class RLlibEntryEnv(RLlibGinEnv):
    """What RLlib builds in each env runner: ``RLlibGinEnv`` from RLlib's ``env_config``.

    RLlib calls the class given as ``config.environment(env=...)`` with one dict,
    ``env_config | {"num_envs": N}``; ``env_config`` holds ``config`` (the training config
    as a dict). torch gets ``ppo.torch_threads`` threads in the env runner's process (with
    torch's default, one thread per core, processes sharing a machine stall each other).
    """

    def __init__(self, env_config: dict[str, Any]) -> None:
        import torch

        config = build_config(env_config["config"])
        torch.set_num_threads(config.ppo.torch_threads)
        games, _ = worker_seeds(config.seed, LOCAL_WORKER)
        super().__init__(config, int(env_config["num_envs"]), games)


def seed_worker(*, env_runner: Any, env: Any, **kwargs: Any) -> None:
    """RLlib's ``on_environment_created`` callback: each env runner its own deals and draws.

    RLlib passes the vector entry point a plain dict (no ``worker_index``), so the env
    runner's index arrives here: its games get their own seeds and torch (RLlib samples
    the actions with it) its own stream.
    """
    import torch

    single_games = getattr(env, "envs", None)  # self-play: RLlib's vector of one-game envs
    run_seed = env.run_seed if single_games is None else single_games[0].unwrapped.run_seed
    games, draws = worker_seeds(run_seed, int(env_runner.worker_index))
    if single_games is None:
        env.core.seed(games)
    else:  # agents.training.rllib.selfplay: game i deals from games + i
        for i, game in enumerate(single_games):
            game.unwrapped.seed_games(games + i)
    torch.manual_seed(draws)

"""Self-play on the rllib backend: both seats of the PettingZoo env played by one policy.

``RLlibSelfPlayEnv`` is an RLlib ``MultiAgentEnv`` over one game of the project's
PettingZoo AEC env (``hgin_env.envs.pettingzoo_env``): agents ``player_0`` and
``player_1`` are the two seats, and the backend maps both onto the one learning module
(``shared``), so every move of every game trains the same network, against
itself as it is now (no frozen snapshots). RLlib's ``MultiAgentEnvRunner`` steps
``ppo.n_envs`` of these games in each env runner (its own synchronous vector env, NEXT_STEP
autoreset).

Turn-based, as the game: a step returns an observation for the agent to act next only
(one player may act twice in a row: draw, then discard); when a game ends, both agents
get their last observation, their reward and ``terminated`` (or ``truncated``: a hand
past ``max_turns_per_hand``). Observations have the single-agent backend's layout
(``float32[OBS_DIM + 107]``: the view, then the legal-action mask), so the module, its
masking and the saved policy are the same as when training against bots; an illegal
action raises the engine's ``ValueError`` (``env.illegal_action: raise``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.typing import MultiAgentDict

from agents.training.config import TrainConfig, build_config
from agents.training.rllib.env import SHARED_MODULE, join_observation, single_observation_space
from hgin_env.envs import pettingzoo_env
from hgin_env.envs.gym_env import action_space
from hgin_env.envs.observation import OBS_DIM

AGENTS = pettingzoo_env.AGENTS


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn``: every agent plays the shared module."""
    return SHARED_MODULE


class RLlibSelfPlayEnv(MultiAgentEnv):
    """One game of the training config's env and rules, both seats external agents.

    Args:
        env_config: RLlib's env config: ``{"config": <the training config as a dict>}``.
    """

    def __init__(self, env_config: dict[str, Any]) -> None:
        super().__init__()
        config: TrainConfig = build_config(env_config["config"])
        self.run_seed = config.seed
        self.game = pettingzoo_env.raw_env(config=config.env, rules=config.rules)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = {a: single_observation_space(OBS_DIM) for a in AGENTS}
        self.action_spaces = {a: action_space() for a in AGENTS}

    def seed_games(self, seed: int) -> None:
        """Restart the game's random streams from ``seed`` (the next reset deals from it)."""
        self.game.reset(seed=int(seed))

    # as step: RLlib's MultiAgentEnv overrides gymnasium.Env's signature
    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        """A new game; the observation of the agent to act first."""
        self.game.reset(seed=seed)
        self.agents = list(AGENTS)
        return {self.game.agent_selection: self._observe(self.game.agent_selection)}, {}

    # as reset
    def step(  # type: ignore[override]
        self, action_dict: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        """Play the acting agent's action; observations for whoever acts next."""
        game = self.game
        agent = game.agent_selection
        if agent not in action_dict:
            raise ValueError(
                f"{agent} is to act, but the actions are for {sorted(map(str, action_dict))}"
            )
        game.step(int(action_dict[agent]))
        rewards: MultiAgentDict = {a: float(game.rewards[a]) for a in AGENTS}
        terminated = all(game.terminations.values())
        truncated = all(game.truncations.values())
        obs: MultiAgentDict
        if terminated or truncated:
            obs = {a: self._observe(a) for a in AGENTS}
            self.agents = []
        else:
            obs = {game.agent_selection: self._observe(game.agent_selection)}
        terminateds: MultiAgentDict = {a: terminated for a in (*AGENTS, "__all__")}
        truncateds: MultiAgentDict = {a: truncated for a in (*AGENTS, "__all__")}
        return obs, rewards, terminateds, truncateds, {}

    def _observe(self, agent: str) -> np.ndarray:
        seen = self.game.observe(agent)
        return join_observation(seen["observation"], seen["action_mask"])

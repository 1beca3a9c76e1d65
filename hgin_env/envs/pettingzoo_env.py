"""PettingZoo AEC environment: two learners, ``player_0`` and ``player_1`` (seats 0 and 1).

Follows PettingZoo's classic conventions (``env()`` wraps ``raw_env`` in the
order-enforcing wrapper; observations are ``{"observation", "action_mask"}``; the mask is
all zeros for the agent not to act). Each agent's observation is built from its own seat
only: its hand, the discard pile, the cards the other player took from the pile, both
discards and the score sheet; the other player's hand is never part of it.

``mode="hand"``: a game is one hand; ``mode="series"``: a game is a Hollywood series.
Rewards per agent: (points won - points lost) / ``reward_scale`` when a hand ends (so the
two rewards sum to zero), and +/- ``series_win_reward`` at the end of a series. A hand
that reaches ``max_turns_per_hand`` truncates both agents (hand mode). An illegal action
raises ``ValueError``; with ``illegal_action="penalize"`` it ends the game with
``-illegal_penalty`` to the offender and 0 to the other agent.

Example (a doctest): one hand of random legal moves; the returns sum to zero.

    >>> from hgin_env.envs import pettingzoo_env
    >>> env = pettingzoo_env.env(mode="hand")
    >>> env.reset(seed=0)
    >>> returns = {agent: 0.0 for agent in env.possible_agents}
    >>> for agent in env.agent_iter():
    ...     obs, reward, termination, truncation, info = env.last()
    ...     returns[agent] += reward
    ...     done = termination or truncation
    ...     env.step(None if done else env.action_space(agent).sample(obs["action_mask"]))
    >>> abs(sum(returns.values())) < 1e-9
    True
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hgin_env.engine.actions import N_ACTIONS, illegal_action_message
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, Outcome, Phase
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.table import Table, make_table
from hgin_env.envs.config import (
    EnvConfig,
    check_render_mode,
    make_env_config,
    make_rules,
    rules_mix,
)
from hgin_env.envs.gym_env import OBS_HIGH, RENDER_MODES
from hgin_env.envs.observation import OBS_DIM, encode_observations
from hgin_env.envs.render import render_rgb, render_view

AGENTS = ("player_0", "player_1")
#: the observing seat and the one game as index arrays, built once (the observe hot path)
_SEATS = (np.zeros(1, np.int64), np.ones(1, np.int64))
_ROW0 = np.zeros(1, np.int64)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped as PettingZoo's classic envs are (order enforcing)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo's naming convention)
    """Hollywood Gin for two agents; see the module docstring.

    Args:
        mode: ``"hand"`` (default) or ``"series"``.
        rules: a ``RulesConfig`` or a dict of its fields.
        render_mode: None, ``"ansi"`` (``render()`` returns the acting agent's view),
            ``"human"`` (prints it after every step) or ``"rgb_array"`` (that view as a
            ``uint8[H, W, 3]`` picture).
        config: an ``EnvConfig`` (or dict); keyword options override its fields
            (``reward_scale``, ``series_win_reward``, ``illegal_action``, ``illegal_penalty``;
            ``agent_seat`` does not apply here).
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "hollywood_gin_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        mode: str | None = None,
        rules: RulesConfig | dict | None = None,
        render_mode: str | None = None,
        config: EnvConfig | dict | None = None,
        **options: Any,
    ) -> None:
        EzPickle.__init__(self, mode, rules, render_mode, config, **options)
        super().__init__()
        check_render_mode(render_mode, RENDER_MODES)
        self.config = make_env_config(config, mode, **options)
        if self.config.privileged:
            raise ValueError(
                "privileged is an option of the single-agent envs (a critic's hidden "
                "information); the PettingZoo env gives both seats plain observations"
            )
        self.rules = make_rules(rules)
        self.rules_mix, self.mix_weights = rules_mix(self.rules, self.config)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, OBS_HIGH, (OBS_DIM,), np.float32),
                    "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space] = {
            agent: spaces.Discrete(N_ACTIONS) for agent in self.possible_agents
        }
        self._build(None)
        self._start()

    # ------------------------------------------------------------------ setup
    def _build(self, seed: int | None) -> None:
        self.table: Table = make_table(self.config.mode, 1, self.rules_mix, seed, self.mix_weights)
        self.engine: GinEngine = self.table.engine
        self.sheets: ScoreSheets | None = self.table.sheets

    def _start(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.table.reset()
        self.agent_selection = AGENTS[int(self.engine.current_player[0])]

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the 107 action ids)."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game (a hand or a series); ``seed`` restarts the random streams."""
        if seed is not None:
            self._build(seed)
        self._start()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` may see: its observation vector and its legal-action mask."""
        seat = AGENTS.index(agent)
        obs = encode_observations(self.engine, _SEATS[seat], self.sheets, _ROW0)[0]
        mask = np.zeros(N_ACTIONS, np.int8)
        if agent == self.agent_selection and not self._done(agent):
            mask[:] = self.engine.legal_action_mask(copy=False)[0]
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play the selected agent's action."""
        agent = self.agent_selection
        if self._done(agent):
            self._was_dead_step(action)
            return
        seat = AGENTS.index(agent)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        a = self._check_action(action)
        if a is None:  # illegal, penalized
            self.rewards[agent] = -float(self.config.illegal_penalty)
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {name: {"illegal_action": name == agent} for name in self.agents}
        else:
            self._play(a)
        if not self._done(agent):
            self.agent_selection = AGENTS[int(self.engine.current_player[0])]
        else:
            self.agent_selection = AGENTS[1 - seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _done(self, agent: str) -> bool:
        return self.terminations[agent] or self.truncations[agent]

    def _check_action(self, action: Any) -> int | None:
        """The action as an int if legal; None if illegal and penalized; else raise."""
        scalar = np.ndim(action) == 0  # an array of several ids is no action
        try:
            a = int(action) if scalar else -1
        except (TypeError, ValueError):
            a = -1
        whole = scalar and bool(a == action)  # one id, not 3.5 or an array
        mask = self.engine.legal_action_mask(copy=False)[0]
        if 0 <= a < N_ACTIONS and mask[a] and whole:
            return a
        if self.config.illegal_action == "penalize":
            return None
        phase = Phase(int(self.engine.phase[0])).name
        shown = a if whole else action
        raise ValueError(illegal_action_message(shown, mask, phase, f"{self.agent_selection}: "))

    def _play(self, action: int) -> None:
        """Step the engine and turn an ended hand or series into rewards."""
        st = self.table.step(np.array([action]))
        self.infos = {name: {} for name in self.agents}
        if not st.hand_over[0]:
            return
        ended = st.hands
        winner, points = int(ended.winner[0]), int(ended.points[0])
        outcome = Outcome(int(ended.outcome[0]))
        if winner >= 0:
            self.rewards[AGENTS[winner]] += points / self.config.reward_scale
            self.rewards[AGENTS[1 - winner]] -= points / self.config.reward_scale
        for seat, name in enumerate(AGENTS):
            sign = 0 if winner < 0 else (1 if winner == seat else -1)
            self.infos[name] = {
                "hand_over": True,
                "outcome": int(outcome),
                "hand_score": sign * points,
            }
        if self.sheets is not None:
            if st.series_over[0]:
                champion = int(self.sheets.series_winner[0])
                if champion >= 0:
                    self.rewards[AGENTS[champion]] += self.config.series_win_reward
                    self.rewards[AGENTS[1 - champion]] -= self.config.series_win_reward
                self.terminations = dict.fromkeys(self.agents, True)
        elif outcome == Outcome.TRUNCATED:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.terminations = dict.fromkeys(self.agents, True)

    def render(self) -> str | np.ndarray | None:
        """The acting agent's view as text (``"ansi"``), printed (``"human"``) or a picture."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        agent = self.agent_selection
        seat = AGENTS.index(agent)
        if self.render_mode == "rgb_array":
            return render_rgb(self.engine, self.sheets, 0, seat, names=(agent, AGENTS[1 - seat]))
        text = render_view(self.engine, self.sheets, 0, seat, names=(agent, AGENTS[1 - seat]))
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

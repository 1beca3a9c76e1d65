"""The single-agent Gymnasium environment ``HollywoodGin-v1``: the learner against a policy."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import check_seed
from hgin_env.envs import register_envs
from hgin_env.envs.config import EnvConfig, make_env_config
from hgin_env.envs.core import STEP_INFO, GinCore, StepResult
from hgin_env.envs.observation import OBS_DIM
from hgin_env.envs.one_game import TALLY
from hgin_env.envs.policy import Policy
from hgin_env.envs.render import render_rgb, render_view

_HANDS, _SCORE, _TERMINATED, _TRUNCATED = (
    TALLY.index(name) for name in ("hands_ended", "hand_score", "terminated", "truncated")
)
#: upper bound of the observation entries (scores are capped at twice the game target)
OBS_HIGH = 2.0


def observation_space(dim: int = OBS_DIM) -> spaces.Box:
    """The observation space of one seat: float32[dim] in [0, 2] (``GinCore.obs_dim``)."""
    return spaces.Box(low=0.0, high=OBS_HIGH, shape=(dim,), dtype=np.float32)


def action_space() -> spaces.Discrete:
    """The action space: the engine's 107 action ids."""
    return spaces.Discrete(N_ACTIONS)


def result_info(result: StepResult, i: int) -> dict[str, Any]:
    """The per-step facts of game ``i`` as a plain info dict."""
    return {key: getattr(result, name)[i].item() for key, name in STEP_INFO.items()}


def tally_info(tally: list[int]) -> dict[str, Any]:
    """``result_info`` of a one-game step's tally (``GinCore.step_one``, ``TALLY`` order)."""
    hands, score, outcome, result, knocked, series, illegal = tally[:7]
    return {
        "hands_ended": hands,
        "hand_score": score,
        "outcome": outcome,
        "hand_result": result,
        "agent_knocked": knocked == 1,
        "series_result": series,
        "illegal_action": illegal == 1,
    }


#: the render modes of every env here: ``"ansi"`` returns the text, ``"human"`` prints it,
#: ``"rgb_array"`` returns the table as a picture (uint8[H, W, 3], drawn with Pillow)
RENDER_MODES = ("ansi", "human", "rgb_array")


def info_mask(masks: np.ndarray) -> np.ndarray:
    """The ``info["action_mask"]`` of bool masks: int8, as Gymnasium's ``Discrete.sample`` takes."""
    return masks.astype(np.int8)


class HollywoodGinEnv(gym.Env):
    """Hollywood Gin, two players, the agent against an opponent policy.

    ## Description

    Gin rummy with Hollywood scoring, following ``docs/rules.md``: 52 cards, ten each, an
    upcard offer on the first turn, then draw (stock or discard pile) and discard,
    knocking with 10 or less deadwood, gin and undercut bonuses, layoffs, a drawn hand
    when two stock cards remain. The agent plays one seat; the opponent is a policy that
    acts inside ``step`` (default: uniformly random legal moves), so every observation
    the agent receives is one where it is to act. ``mode="hand"``: an episode is one
    hand. ``mode="series"``: an episode is a whole Hollywood series (three games scored
    at once to 100; the winner of a hand deals the next; the score sheet is part of the
    observation).

    The agent's seat is drawn from the seed at every episode (``agent_seat="random"``;
    also ``"alternate"``, 0 or 1); the dealer is drawn by the engine (series: the first
    dealer, then the winner deals). All randomness is counter-based per seed, so a seeded
    env replays exactly, and ``HollywoodGinVecEnv`` game i equals this env seeded
    ``seed + i``.

    ## Action Space

    ``Discrete(107)``, always masked: ``info["action_mask"]`` (int8[107], 1 = legal, so
    ``env.action_space.sample(mask=info["action_mask"])`` draws a legal action) and
    ``action_masks()`` (bool[107], what sb3-contrib's ``MaskablePPO`` asks for) give the
    legal ids. Gymnasium's wrappers do not forward ``action_masks``: on a ``gym.make``
    env call ``env.get_wrapper_attr("action_masks")()`` or ``env.unwrapped.action_masks()``,
    or wrap it in sb3-contrib's ``ActionMasker`` (docs/environments.md).

    | id | action |
    |---|---|
    | 0..51 | discard card ``id`` (card id = suit * 13 + rank; suits C D H S, ace = 0) |
    | 52..103 | knock, discarding card ``id - 52`` |
    | 104 | draw the top card of the stock |
    | 105 | take the top of the discard pile (the upcard on the first turn) |
    | 106 | pass (first-turn upcard offer only) |

    ## Observation Space

    ``Box(0, 2, (OBS_DIM,), float32)``: what the agent may legally know, laid out in
    ``hgin_env.envs.observation.OBS_LAYOUT`` (own hand, top discard, rest of the pile,
    cards the opponent took from the pile, both players' discards, deadwood after each
    discard, phase, stock size, dealer, turn, and the score sheet in series mode). The
    opponent's other cards and the stock order never enter it.

    ## Starting State

    A fresh deal (a fresh series in series mode), advanced through the opponent's moves
    until the agent is to act. If the opponent ends the hand before the agent's first
    decision (it takes the upcard and knocks at once), hand mode deals again and series
    mode pays that hand's reward with the agent's first step.

    ## Rewards

    Per hand: (points the agent won - points it lost) / ``reward_scale`` (default 100),
    0 for a drawn hand, given at the step in which the hand ends (by either player's
    move). Series mode adds +``series_win_reward`` (default 1.0) when the agent wins the
    series and -``series_win_reward`` when it loses it. With
    ``illegal_action="penalize"`` an illegal action gives ``-illegal_penalty``.

    ## Episode End

    - Terminated: the hand ended by a knock, gin, undercut or the stock running down to
      two cards (hand mode); the series ended (series mode); an illegal action with
      ``illegal_action="penalize"``.
    - Truncated: hand mode only, the hand reached ``RulesConfig.max_turns_per_hand``
      turns (a drawn hand that guards against endless discard swapping). In series mode
      such a hand is a drawn hand and the series goes on.

    ## Information

    ``reset`` and ``step`` return ``action_mask`` (int8[107]), ``agent_seat`` and
    ``dealer``; ``step`` also returns ``hands_ended``, ``hand_score`` (points won minus
    lost in those hands), ``outcome`` (an ``Outcome`` value of the last hand that ended,
    0 if none), ``hand_result`` (that hand: +1 the agent scored, -1 the opponent did, 0
    nobody), ``agent_knocked`` (the agent knocked or went gin in it), ``series_result``
    (+1/-1 at the end of a series) and ``illegal_action``.

    ## Arguments

    ```python
    import gymnasium as gym
    import hgin_env.envs  # registers HollywoodGin-v1

    env = gym.make("HollywoodGin-v1", opponent="random", mode="hand", rules=None)
    ```

    - ``opponent``: a policy name (``"random"``, ``"simple"``, ``"expert"``, a shipped
      model or any ``hgin_env.policies`` entry point), a model path, or an object with
      a batched ``act(observations, action_masks) -> actions``.
    - ``mode``: ``"hand"`` (default) or ``"series"``.
    - ``rules``: a ``RulesConfig`` or a dict of its fields (knock limit, bonuses, ...).
    - ``render_mode``: ``"ansi"`` (``render()`` returns a text table of the agent's view:
      hand grouped into melds, deadwood, top discard, stock, score sheet), ``"human"``
      (prints it) or ``"rgb_array"`` (the same view drawn as a ``uint8[360, 640, 3]``
      picture, for ``gymnasium.wrappers.RecordVideo``); another mode only warns and
      ``render()`` then returns None.
    - ``config``: an ``EnvConfig`` (or dict); keyword arguments ``reward_scale``,
      ``series_win_reward``, ``illegal_action`` (``"raise"`` or ``"penalize"``),
      ``illegal_penalty`` and ``agent_seat`` override its fields.
    - ``seed``: the seed used until ``reset(seed=...)`` gives another.

    An illegal action raises ``ValueError`` naming the action and the legal ones (unless
    ``illegal_action="penalize"``).

    ## Version History

    - v1: the observation gained six rules entries, the rules of each game's rule set
      (394 -> 400 entries, layout 2 of ``hgin_env.envs.observation``);
      ``info["action_mask"]`` is int8; ``render_mode="rgb_array"``.
    - v0: initial version (394 observation entries); ``gym.make`` of it now raises an
      error that names v1.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        opponent: str | Policy = "random",
        mode: str | None = None,
        rules: RulesConfig | dict | None = None,
        render_mode: str | None = None,
        config: EnvConfig | dict | None = None,
        seed: int | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            # a warning, not an error: tools (rl-zoo, wrappers) ask for modes an env may lack
            gym.logger.warn(
                f"render_mode {render_mode!r} is not supported (use one of "
                f"{self.metadata['render_modes']}); render() will return None"
            )
        self.config = make_env_config(config, mode, **options)
        self.core = GinCore(1, opponent=opponent, config=self.config, rules=rules, seed=seed)
        self.rules = self.core.rules
        self.render_mode = render_mode
        self.observation_space = observation_space(self.core.obs_dim)
        self.action_space = action_space()
        self._last: list[int] | None = None  # the last step's tally (``GinCore.step_one``)

    @property
    def opponent(self) -> Policy:
        """The opponent policy."""
        return self.core.opponent

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode (a hand or a series); ``seed`` restarts the random streams.

        Raises:
            ValueError: a seed outside 0..2**64-1.
        """
        if seed is not None:
            check_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self.core.seed(seed)
        self.core.reset()
        self._last = None
        if self.render_mode == "human":
            self.render()
        obs, mask = self.core.observe_one()
        return obs, self._info(mask)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the opponent's answer; see the class docstring."""
        core = self.core
        if not core.awaiting[0]:
            raise RuntimeError("the episode is over (or was never started): call reset()")
        reward, tally = core.step_one(action)
        self._last = tally
        obs, mask = core.observe_one()
        info = self._info(mask)
        info.update(tally_info(tally))
        if self.render_mode == "human":
            self.render()
        return obs, reward, bool(tally[_TERMINATED]), bool(tally[_TRUNCATED]), info

    def action_masks(self) -> np.ndarray:
        """bool[107]: the legal actions now (what ``MaskablePPO`` asks for)."""
        return self.core.action_masks()[0]

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]  # text or pictures
        """The agent's view as text (``"ansi"``), printed (``"human"``) or a picture."""
        if self.render_mode not in self.metadata["render_modes"]:
            gym.logger.warn("render() needs render_mode='ansi', 'human' or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return render_rgb(self.core.engine, self.core.sheets, 0, int(self.core.agent_seat[0]))
        text = render_view(self.core.engine, self.core.sheets, 0, int(self.core.agent_seat[0]))
        last = self._last
        if last is not None and last[_HANDS] and self.core.awaiting[0]:
            text += f"\nLast hand: your score {last[_SCORE]:+d}"
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        """The info of every step and reset: the int8 ``mask``, the seats."""
        core = self.core
        return {
            "action_mask": mask,
            "agent_seat": int(core.agent_seat[0]),
            "dealer": int(core.engine.dealer[0]),
        }


register_envs()

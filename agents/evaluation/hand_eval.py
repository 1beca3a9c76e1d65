"""Single-hand evaluation: a policy plays ``n_hands`` one-hand episodes against an opponent.

The games run as one batch on the environments' ``GinCore`` in hand mode (no score
sheet, so the observation's Hollywood blocks are zero, exactly as in hand-mode
training); the agent's seat alternates from game to game and the deals come from
``seed``, so two evaluations with the same seed play the same deals. Full Hollywood
series are evaluated by ``agents.evaluation.evaluate``; both count hands with the same
``agents.evaluation.tally.MatchTally``, so every metric has one definition.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.evaluation.tally import MatchTally
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.core import GinCore
from hgin_env.envs.policy import Policy


@dataclass
class HandEvalResult:
    """The agent's results over single hands (rates as defined in ``agents.evaluation.tally``).

    Attributes:
        hands: hands played.
        hand_win_rate: hands the agent scored.
        hand_loss_rate: hands the opponent scored.
        draw_rate: hands nobody scored (stock exhausted or truncated).
        points_per_hand: the agent's points minus the opponent's, per hand.
        gin_rate: hands the agent won by gin.
        knock_rate: hands the agent ended by knocking (gin included).
        undercut_rate: the agent's knocks that were undercut, per agent knock.
        decisions_per_hand: the agent's decisions per hand.
    """

    hands: int
    hand_win_rate: float
    hand_loss_rate: float
    draw_rate: float
    points_per_hand: float
    gin_rate: float
    knock_rate: float
    undercut_rate: float
    decisions_per_hand: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def evaluate_hands(
    policy: Policy,
    opponent: Policy,
    n_hands: int,
    seed: int = 0,
    rules: RulesConfig | None = None,
) -> HandEvalResult:
    """Play one hand in each of ``n_hands`` games at once and summarise the agent's side.

    Args:
        policy: the agent (a policy object).
        opponent: the opponent (a policy object or a registered name).
        n_hands: hands to play (>= 1).
        seed: deal seed (game i uses ``seed + i``).
        rules: rules options.

    Returns:
        The ``HandEvalResult``.
    """
    if n_hands < 1:
        raise ValueError(f"n_hands must be >= 1, got {n_hands}")
    core = GinCore(n_hands, opponent, {"mode": "hand", "agent_seat": "alternate"}, rules, seed)
    core.reset()
    tally = MatchTally.zeros(core.agent_seat)  # one row per game, A = the agent
    decisions = np.zeros(n_hands, np.int64)
    actions = np.zeros(n_hands, np.int64)
    while core.awaiting.any():
        rows = np.flatnonzero(core.awaiting)
        actions[:] = 0
        actions[rows] = policy.act(core.observe(rows), core.action_masks()[rows])
        decisions[rows] += 1
        ended = np.flatnonzero(core.step(actions).hands_ended > 0)
        tally.add_hands(ended, core.engine.state.rows(ended))  # hand mode: no autoreset
    agent = tally.player("a")
    n = float(n_hands)
    return HandEvalResult(
        hands=n_hands,
        hand_win_rate=tally.a_won.sum() / n,
        hand_loss_rate=tally.b_won.sum() / n,
        draw_rate=tally.drawn.sum() / n,
        points_per_hand=(tally.a_points - tally.b_points).sum() / n,
        gin_rate=agent.gin_rate,
        knock_rate=agent.knock_rate,
        undercut_rate=agent.undercut_suffered_rate,
        decisions_per_hand=decisions.sum() / n,
    )

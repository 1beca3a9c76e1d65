"""Single-hand evaluation: a policy plays ``n_hands`` one-hand episodes against an opponent.

The games run as one batch on the environments' ``GinCore`` in hand mode (no score
sheet, so the observation's Hollywood blocks are zero, exactly as in hand-mode
training); the agent's seat alternates from game to game and the deals come from
``seed``, so two evaluations with the same seed play the same deals. Full Hollywood
series are evaluated by ``agents.evaluation.evaluate``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import Outcome
from hgin_env.envs.core import GinCore
from hgin_env.envs.policy import Policy

_KNOCKS = (Outcome.KNOCK, Outcome.GIN, Outcome.BIG_GIN)


@dataclass
class HandEvalResult:
    """The agent's results over single hands (rates are fractions of ``hands``).

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
    score = np.zeros(n_hands, np.int64)
    outcome = np.zeros(n_hands, np.int64)
    decisions = np.zeros(n_hands, np.int64)
    actions = np.zeros(n_hands, np.int64)
    while core.awaiting.any():
        rows = np.flatnonzero(core.awaiting)
        actions[:] = 0
        actions[rows] = policy.act(core.observe(rows), core.action_masks()[rows])
        decisions[rows] += 1
        result = core.step(actions)
        ended = result.hands_ended > 0
        score[ended] = result.hand_score[ended]
        outcome[ended] = result.outcome[ended]
    won, lost = score > 0, score < 0
    knocked = (won & np.isin(outcome, _KNOCKS)) | (lost & (outcome == Outcome.UNDERCUT))
    gin = won & ((outcome == Outcome.GIN) | (outcome == Outcome.BIG_GIN))
    undercut = lost & (outcome == Outcome.UNDERCUT)
    n = float(n_hands)
    return HandEvalResult(
        hands=n_hands,
        hand_win_rate=won.sum() / n,
        hand_loss_rate=lost.sum() / n,
        draw_rate=(~won & ~lost).sum() / n,
        points_per_hand=score.sum() / n,
        gin_rate=gin.sum() / n,
        knock_rate=knocked.sum() / n,
        undercut_rate=undercut.sum() / knocked.sum() if knocked.any() else 0.0,
        decisions_per_hand=decisions.sum() / n,
    )

"""Single-hand evaluation: a policy plays ``n_hands`` one-hand games against an opponent.

The games run as one batch through ``hgin_env.envs.play.play_batch``, the loop every
evaluation shares, on a ``GinEngine`` (no score sheet, so the observation's Hollywood
blocks are zero, exactly as in hand-mode training). Game i is dealt from seed
``seed + i``, and the agent sits in seat ``(seed + i) % 2`` (alternating from game to
game, the seat ``GinCore`` gives with ``agent_seat="alternate"``), so two evaluations
with the same seed play the same deals. Each side decides each game from that game's own
keys when it takes them (``hash_stream(seed + i, its decisions so far, salt)``: the
opponent's salt is ``Salt.OPPONENT``, as in the environments, the agent's
``Salt.EVAL_A``), so a hand plays the same in a batch of any size. Full Hollywood series
are evaluated by ``agents.evaluation.evaluate``; both count hands with the same
``agents.evaluation.tally.MatchTally``, so every metric has one definition.

Every dealt hand counts, including one the opponent ends before the agent's first
decision (it takes the upcard and knocks at once: two or three hands in a thousand
against a bot), which counts with no decision of the agent's. The hand-mode environments
deal such a hand again instead, since they have no observation to show the agent; apart
from those hands, an agent that takes no keys plays here exactly the hands it plays in
the first episodes of a hand-mode env seeded ``seed`` with ``agent_seat="alternate"``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.evaluation.tally import MatchTally
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.engine.keys import Salt
from hgin_env.envs.play import play_batch
from hgin_env.envs.policy import Policy, resolve_policy

#: the salts of the agent's and the opponent's decision keys (the opponent's as in the envs)
SALTS = (Salt.EVAL_A, Salt.OPPONENT)


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
    opponent: Policy | str,
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
    engine = GinEngine(n_hands, rules or RulesConfig(), seed)
    engine.reset()
    a_seat = (engine.seeds & np.uint64(1)).astype(np.int8)  # alternate, from each game's seed
    opponent = resolve_policy(opponent, seed=seed)
    reseed = getattr(opponent, "seed", None)
    if callable(reseed):
        reseed(seed)
    decisions = np.zeros(n_hands, np.int64)

    def count_decisions(actions: np.ndarray) -> None:
        """Count the agent's decisions of the step about to be taken."""
        decisions[~engine.over & (engine.current_player == a_seat)] += 1

    play_batch(engine, policy, opponent, a_seat, salts=SALTS, before_step=count_decisions)
    tally = MatchTally.zeros(a_seat)  # one row per game, A = the agent
    rows = np.arange(n_hands)
    tally.add_hands(rows, engine.state.rows(rows))
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

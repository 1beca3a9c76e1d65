"""An evidence belief: worlds weighed by what the opponent did that their hand contradicts.

Research only: no shipped searcher weighs its worlds so (the search's former ``evidence``
option; uniform weights are the product's).
"""

from __future__ import annotations

import numpy as np

from agents.search.worlds import SeenPosition
from hgin_env.engine.cards import CARD_VALUE
from hgin_env.engine.game import HandState
from hgin_env.engine.melds import meld_with


def world_weights(seen: SeenPosition, worlds: HandState, evidence: float) -> np.ndarray:
    """float64[G, W]: how well each world's opponent hand explains what the opponent did.

    A belief, as the expert bot's danger model (``agents.bots.expert``): each world's
    weight is ``evidence ** contradictions``, counting the cards of the seat's discards
    still in the pile that would meld with the sampled hand (the opponent let them go by),
    and the sampled hand's loose cards above the value of the opponent's last discard (a
    player throws its highest loose card). ``evidence = 1``: uniform worlds.

    Args:
        seen: the positions of G games.
        worlds: their ``G * W`` worlds (``sample_worlds``).
        evidence: weight factor per contradiction, in (0, 1].
    """
    g = seen.hand.shape[0]
    w = worlds.hands.shape[0] // g
    if evidence >= 1.0:
        return np.ones((g, w))
    rows = np.repeat(np.arange(g), w)
    hands = worlds.hands[:, 1]
    melds = meld_with(hands)
    in_pile = seen.pile_below.copy()
    has_top = np.flatnonzero(seen.top >= 0)
    in_pile[has_top, seen.top[has_top]] = True
    passed = (seen.own_discards & in_pile)[rows]
    top = seen.top
    thrown_top = (top >= 0) & seen.opponent_discards[np.arange(g), np.maximum(top, 0)]
    limit = np.where(thrown_top, CARD_VALUE[np.maximum(top, 0)], 10)[rows]
    loose = hands & ~melds & ~seen.opponent_known[rows]
    above = (loose & (CARD_VALUE[None, :] > limit[:, None])).sum(axis=1)
    contradictions = (melds & passed).sum(axis=1) + above
    return (evidence ** contradictions.astype(np.float64)).reshape(g, w)

"""The evidence belief (research): worlds that contradict the opponent's play weigh less."""

from __future__ import annotations

import numpy as np
from helpers.search import search_decision, simple_positions

from agents.search.worlds import sample_worlds, seen_position, world_keys
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.melds import meld_with
from research.search.evidence import world_weights


def test_the_belief_weighs_down_worlds_that_contradict_the_opponents_play():
    """With evidence < 1 a world whose opponent hand would meld a card it let pass weighs less."""
    series = simple_positions(16, 15, seed=2)
    obs, masks, keys = search_decision(series)
    seen = seen_position(obs, masks, RulesConfig())
    worlds = sample_worlds(seen, world_keys(keys, 32))
    assert (world_weights(seen, worlds, 1.0) == 1.0).all()
    weights = world_weights(seen, worlds, 0.5)
    assert ((weights > 0) & (weights <= 1)).all() and (weights < 1).any()
    # a world's weight is 0.5 ** (contradictions): recount one by hand
    g = int(np.argmin(weights.min(axis=1)))
    w = int(np.argmin(weights[g]))
    hand = worlds.hands[g * 32 + w, 1]
    pile = seen.pile_below[g].copy()
    pile[seen.top[g]] = True
    passed = int((meld_with(hand[None])[0] & seen.own_discards[g] & pile).sum())
    assert weights[g, w] <= 0.5**passed + 1e-12

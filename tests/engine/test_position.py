"""Hands started mid-way: ``position_state`` and ``GinEngine.from_state``."""

from __future__ import annotations

import numpy as np
import pytest

from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.game import GinEngine, HandState, Phase
from hgin_env.engine.position import position_state


def _played(n: int, plies: int, seed: int) -> GinEngine:
    """Some hands after ``plies`` random legal actions each (finished hands stay finished)."""
    eng = GinEngine(n, seed=seed)
    eng.reset()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        mask = eng.legal_action_mask()
        if not mask.any():
            break
        legal = np.where(mask.any(axis=1, keepdims=True), mask, True)
        eng.step(np.argmax(legal * rng.random(mask.shape) * (1 + (np.arange(107) < 52)), axis=1))
    return eng


def _position_of(eng: GinEngine, rows: np.ndarray) -> HandState:
    """The position of the given live games rebuilt from their cards (pile below unordered)."""
    s = eng.state
    size = eng.stock_sizes(rows)
    stock = np.zeros((rows.size, N_CARDS), np.int64)
    for i, g in enumerate(rows):
        stock[i, : size[i]] = s.deck[g, s.stock_pos[g] :]
    top = eng.top_discards(rows)
    below = s.in_pile[rows].copy()
    below[np.arange(rows.size), top] = False
    return position_state(
        hands=s.hands[rows], top=top, pile_below=below, stock=stock, stock_size=size,
        dealer=s.dealer[rows], current=s.current[rows], phase=s.phase[rows],
        known=s.known[rows], discards=s.discards[rows], passes=s.passes[rows],
        must_draw_stock=s.must_draw_stock[rows], taken=s.taken[rows], turns=s.turns[rows],
    )  # fmt: skip


def test_a_rebuilt_position_plays_on_exactly_like_the_original():
    """An engine started from a position rebuilt from a live hand's cards ends it the same way."""
    eng = _played(64, 13, seed=4)
    rows = np.flatnonzero(~eng.over)
    assert rows.size > 10
    twin = GinEngine.from_state(_position_of(eng, rows))
    twin.check_invariants()
    orig = GinEngine.from_state(eng.state.rows(rows))
    rng = np.random.default_rng(9)
    while not orig.all_over:
        mask = orig.legal_action_mask()
        assert np.array_equal(mask, twin.legal_action_mask())
        actions = np.argmax(np.where(mask, rng.random(mask.shape), -1), axis=1)
        orig.step(actions)
        twin.step(actions)
    for name in ("winner", "points", "outcome", "knocker", "turns"):
        assert np.array_equal(getattr(orig.state, name), getattr(twin.state, name)), name


def test_an_offer_position_counts_the_passes_from_the_seat():
    """At the first-turn offer the dealer's turn means one pass was made (the default)."""
    eng = GinEngine(1, seed=2)
    eng.reset(dealers=0)
    eng.step(np.array([106]))  # the non-dealer passes; the dealer is offered the upcard
    state = _position_of(eng, np.array([0]))
    assert int(state.passes[0]) == 1 and int(state.phase[0]) == Phase.OFFER
    twin = GinEngine.from_state(state)
    twin.step(np.array([106]))
    assert bool(twin.state.must_draw_stock[0]) and int(twin.current_player[0]) == 1


@pytest.mark.parametrize(
    "change, message",
    [
        ("two_places", "a card is missing or in two places"),
        ("hand_size", "the seat to act holds the wrong number of cards"),
        ("phase", "phase must be"),
        ("stock", "the stock size is out of range"),
    ],
)
def test_an_inconsistent_position_is_refused_naming_the_game(change, message):
    """A card in two places, a wrong hand size, a bad phase or stock size raise ValueError."""
    eng = _played(4, 3, seed=1)
    rows = np.flatnonzero(~eng.over)
    s = eng.state
    args = dict(
        hands=s.hands[rows].copy(), top=eng.top_discards(rows),
        pile_below=np.zeros((rows.size, 52), bool),
        stock=np.zeros((rows.size, 52), np.int64), stock_size=eng.stock_sizes(rows),
        dealer=s.dealer[rows], current=s.current[rows], phase=s.phase[rows].astype(np.int64),
    )  # fmt: skip
    below = s.in_pile[rows].copy()
    below[np.arange(rows.size), args["top"]] = False
    args["pile_below"] = below
    for i, g in enumerate(rows):
        args["stock"][i, : args["stock_size"][i]] = s.deck[g, s.stock_pos[g] :]
    position_state(**args)  # the unchanged position is accepted
    last = rows.size - 1
    if change == "two_places":
        args["pile_below"][last, np.flatnonzero(args["hands"][last, 0])[0]] = True
    elif change == "hand_size":
        seat = int(args["current"][last])  # one of the waiting seat's cards moves over
        card = np.flatnonzero(args["hands"][last, 1 - seat])[0]
        args["hands"][last, 1 - seat, card] = False
        args["hands"][last, seat, card] = True
    elif change == "phase":
        args["phase"][last] = int(Phase.OVER)
    else:
        args["stock_size"][last] = 1
    with pytest.raises(ValueError, match=f"game {last}: {message}"):
        position_state(**args)

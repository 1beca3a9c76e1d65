"""Hands started from a given position instead of a deal: ``position_state`` builds the state.

A search that samples the cards it cannot see (the opponent's hidden cards, the stock
order) needs to start the engine in the middle of a hand. ``position_state`` builds the
``HandState`` of N such positions from per-game card arrays and checks that they are
consistent; ``GinEngine.from_state`` starts an engine on it.

What a position needs (and what it does not): the order of the discard pile below its
top never matters again in a hand (a card taken from the pile is always followed by a
discard on top of it), so ``pile_below`` is a set; the stock is an ordered list. The
score of a finished hand, the layoffs and the melds are not part of a live position.
"""

from __future__ import annotations

import numpy as np

from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.game import HAND_SIZE, STOCK_LEFT_AT_DRAW, HandState, Phase

_OFFER, _DRAW, _DISCARD = int(Phase.OFFER), int(Phase.DRAW), int(Phase.DISCARD)


def position_state(
    hands: np.ndarray,
    top: np.ndarray,
    pile_below: np.ndarray,
    stock: np.ndarray,
    stock_size: np.ndarray,
    dealer: np.ndarray,
    current: np.ndarray,
    phase: np.ndarray,
    known: np.ndarray | None = None,
    discards: np.ndarray | None = None,
    passes: np.ndarray | None = None,
    must_draw_stock: np.ndarray | None = None,
    taken: np.ndarray | None = None,
    turns: np.ndarray | None = None,
) -> HandState:
    """The state of N live hands in the given positions.

    Args:
        hands: bool[N, 2, 52], the cards each seat holds (10, and 11 for a seat discarding).
        top: int[N], the card on top of the discard pile (-1: empty pile).
        pile_below: bool[N, 52], the other cards of the pile (their order never matters).
        stock: int[N, 52], the stock top first in ``stock[:, :stock_size]`` (the rest is
            ignored).
        stock_size: int[N], cards in the stock (at least 2: a hand ends at 2).
        dealer: int[N], the seat that dealt.
        current: int[N], the seat to act.
        phase: int[N], ``Phase.OFFER``, ``DRAW`` or ``DISCARD``.
        known: bool[N, 2, 52], cards a seat took from the pile and still holds (default none).
        discards: bool[N, 2, 52], cards a seat discarded this hand (default none).
        passes: int[N], passes made on the first-turn offer: default 0 when the
            non-dealer is offered the upcard, 1 when the dealer is.
        must_draw_stock: bool[N], both passed the upcard (default false).
        taken: int[N], the card the seat discarding took from the pile this turn (-1: none).
        turns: int[N], turns completed this hand (default 0).

    Returns:
        The ``HandState`` (all fields with the batch as leading axis).

    Raises:
        ValueError: naming the first game whose position is inconsistent (a card in two
            places or missing, the wrong number of cards, a phase that cannot be).
    """
    hands = np.asarray(hands, dtype=bool)
    n = hands.shape[0]
    if hands.shape != (n, 2, N_CARDS):
        raise ValueError(f"hands must have shape (N, 2, 52), got {hands.shape}")

    def ints(x: np.ndarray | None, default: int, name: str) -> np.ndarray:
        out = np.full(n, default, np.int64) if x is None else np.asarray(x, np.int64).reshape(-1)
        if out.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), got {out.shape}")
        return out

    def masks(x: np.ndarray | None, name: str) -> np.ndarray:
        out = np.zeros((n, 2, N_CARDS), bool) if x is None else np.asarray(x, dtype=bool)
        if out.shape != (n, 2, N_CARDS):
            raise ValueError(f"{name} must have shape ({n}, 2, 52), got {out.shape}")
        return out

    top = ints(top, -1, "top")
    size = ints(stock_size, 0, "stock_size")
    dealer = ints(dealer, 0, "dealer")
    current = ints(current, 0, "current")
    phase = ints(phase, 0, "phase")
    taken = ints(taken, -1, "taken")
    turns = ints(turns, 0, "turns")
    known, discards = masks(known, "known"), masks(discards, "discards")
    below = np.asarray(pile_below, dtype=bool)
    stock = np.asarray(stock, dtype=np.int64)
    if below.shape != (n, N_CARDS) or stock.shape != (n, N_CARDS):
        raise ValueError("pile_below and stock must have shape (N, 52)")
    default_passes = (phase == _OFFER) & (current == dealer)
    passes = ints(passes, 0, "passes") if passes is not None else default_passes.astype(np.int64)
    must_draw = np.zeros(n, bool) if must_draw_stock is None else np.asarray(must_draw_stock, bool)
    r = np.arange(n)

    def fail(bad: np.ndarray, what: str) -> None:
        rows = np.flatnonzero(bad)
        if rows.size:
            raise ValueError(f"game {int(rows[0])}: {what}")

    fail(~np.isin(dealer, (0, 1)) | ~np.isin(current, (0, 1)), "dealer and current must be 0 or 1")
    fail(~np.isin(phase, (_OFFER, _DRAW, _DISCARD)), "phase must be OFFER, DRAW or DISCARD")
    fail((size < STOCK_LEFT_AT_DRAW) | (size > N_CARDS), "the stock size is out of range")
    fail((top < -1) | (top >= N_CARDS), "the top card is not a card id")
    in_stock = np.arange(N_CARDS)[None, :] < size[:, None]
    fail(in_stock & ((stock < 0) | (stock >= N_CARDS)), "a stock entry is not a card id")
    copies = hands.sum(axis=1).astype(np.int64) + below
    np.add.at(copies, (r[top >= 0], top[top >= 0]), 1)
    rows, cols = np.nonzero(in_stock)
    np.add.at(copies, (rows, np.where(in_stock, stock, 0)[rows, cols]), 1)
    fail((copies != 1).any(axis=1), "a card is missing or in two places")
    fail(below.any(axis=1) & (top < 0), "the pile has cards below an empty top")
    sizes = hands.sum(axis=2)
    want = np.where(phase == _DISCARD, HAND_SIZE + 1, HAND_SIZE)
    fail(sizes[r, current] != want, "the seat to act holds the wrong number of cards")
    fail(sizes[r, 1 - current] != HAND_SIZE, "the waiting seat does not hold 10 cards")
    fail((known & ~hands).any(axis=(1, 2)), "a known card is not in its seat's hand")
    fail((phase == _OFFER) & (passes != (current == dealer)), "passes disagree with the seat")
    fail((phase == _OFFER) & (top < 0), "an upcard offer needs an upcard")
    fail(
        (phase == _DISCARD) & (taken >= 0) & ~hands[r, current, np.maximum(taken, 0)],
        "the card taken is not in the hand",
    )

    state = HandState.empty(n)
    # the deck: the cards outside the stock first (any order), then the stock top first
    pos = N_CARDS - size
    is_stock_card = np.zeros((n, N_CARDS), bool)
    is_stock_card[rows, stock[rows, cols]] = True
    order = np.argsort(np.where(is_stock_card, N_CARDS, np.arange(N_CARDS)), axis=1, kind="stable")
    deck = order.copy()
    deck[rows, pos[rows] + cols] = stock[rows, cols]
    state.deck = deck.astype(np.int8)
    state.stock_pos = pos.astype(np.int16)
    state.hands = hands.copy()
    pile_size = below.sum(axis=1) + (top >= 0)
    pile = np.argsort(~below, axis=1, kind="stable")  # the cards below first, any order
    has_top = np.flatnonzero(top >= 0)
    pile[has_top, pile_size[has_top] - 1] = top[has_top]
    state.pile = pile.astype(np.int8)
    state.pile_size = pile_size.astype(np.int16)
    state.in_pile = below.copy()
    state.in_pile[has_top, top[has_top]] = True
    state.known = known.copy()
    state.discards = discards.copy()
    state.dealer = dealer.astype(np.int8)
    state.current = current.astype(np.int8)
    state.phase = phase.astype(np.int8)
    state.passes = passes.astype(np.int8)
    state.must_draw_stock = must_draw & (phase == _DRAW)
    state.taken = np.where(phase == _DISCARD, taken, -1).astype(np.int8)
    state.turns = turns.astype(np.int16)
    return state

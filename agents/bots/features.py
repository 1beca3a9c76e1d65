"""Card features shared by the rule bots, vectorized over a batch of observations.

Everything here works on ``bool[N, 52]`` card masks (card id = ``suit * 13 + rank``)
decoded from the observation, and never on hidden state: the bots see exactly what
a trained policy sees.
"""

from __future__ import annotations

import numpy as np

from hgin_env.engine.cards import CARD_VALUE, N_CARDS, N_RANKS, N_SUITS
from hgin_env.engine.melds import deadwood_after_discard, min_deadwood

#: a score larger than any real one, for masked-out choices
NO_CHOICE = 1e9


def by_suit(cards: np.ndarray) -> np.ndarray:
    """View ``[N, 52]`` card data as ``[N, 4, 13]`` (suit, rank)."""
    return cards.reshape(cards.shape[:-1] + (N_SUITS, N_RANKS))


def shift_rank(grid: np.ndarray, k: int) -> np.ndarray:
    """``out[..., r] = grid[..., r - k]`` along the rank axis, zero-filled (no wrap-around).

    ``shift_rank(held, 1)[s, r]`` tells whether rank ``r - 1`` of suit ``s`` is held.
    """
    out = np.zeros_like(grid)
    if k > 0:
        out[..., k:] = grid[..., :-k]
    elif k < 0:
        out[..., :k] = grid[..., -k:]
    else:
        out[...] = grid
    return out


def meld_with(hand: np.ndarray) -> np.ndarray:
    """``bool[N, 52]``: card c would form a meld with cards of ``hand`` (c itself aside).

    A set: two other cards of c's rank in the hand. A run: two cards of c's suit in the
    hand at ranks ``(c-2, c-1)``, ``(c-1, c+1)`` or ``(c+1, c+2)`` (ace low, no wrap).
    """
    held = by_suit(np.asarray(hand, dtype=bool))
    same_rank = held.sum(axis=1, keepdims=True) - held  # other cards of the rank
    makes_set = same_rank >= 2
    below1, below2 = shift_rank(held, 1), shift_rank(held, 2)
    above1, above2 = shift_rank(held, -1), shift_rank(held, -2)
    makes_run = (below1 & below2) | (below1 & above1) | (above1 & above2)
    return (makes_set | makes_run).reshape(held.shape[0], N_CARDS)


def jittered_argmin(scores: np.ndarray, rng: np.random.Generator, scale: float) -> np.ndarray:
    """Row-wise argmin with ties broken uniformly at random.

    Args:
        scores: ``float[N, K]``, ``NO_CHOICE`` where a choice is not allowed.
        rng: the bot's random stream (one draw per entry, whatever the data).
        scale: jitter amplitude; below the smallest gap between different scores, so the
            jitter only reorders exact ties.

    Returns:
        ``int64[N]``.
    """
    noise = rng.random(scores.shape) * scale
    return np.argmin(scores + noise, axis=1)


def best_after_draws(hands: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Deadwood after adding a card and making the best discard (a one-card lookahead).

    Args:
        hands: ``bool[M, 52]`` hands of 10 cards.
        draws: ``int64[M]`` the card added to each hand (not already in it).

    Returns:
        ``int64[M]``: the least deadwood of the 10 cards kept out of the 11 (discarding
        the new card included).
    """
    if hands.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    eleven = hands.copy()
    eleven[np.arange(hands.shape[0]), draws] = True
    return deadwood_after_discard(eleven).min(axis=1)


def expected_after_draw(kept: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """Mean over unseen cards x of ``best_after_draws(kept, x)``: the expected deadwood next turn.

    A card x that melds with no two cards of the hand is deadwood in every arrangement
    of ``kept + x``, so its value has a closed form: ``min(dw10, dw9 + value(x))`` with
    ``dw10`` the hand's deadwood and ``dw9`` the least deadwood after discarding one of
    its cards. Only the cards that can meld (``meld_with``) need a full evaluation.

    Args:
        kept: ``bool[M, 52]`` hands of 10 cards.
        unseen: ``bool[M, 52]`` the cards each hand may draw (uniformly), disjoint from it.

    Returns:
        ``float64[M]`` (the hand's deadwood where nothing is unseen).
    """
    m = kept.shape[0]
    if m == 0:
        return np.zeros(0, dtype=np.float64)
    dw10 = min_deadwood(kept)
    dw9 = deadwood_after_discard(kept).min(axis=1)
    melds = meld_with(kept) & unseen
    loose = unseen & ~melds
    loose_value = np.minimum(dw10[:, None], dw9[:, None] + CARD_VALUE[None, :])
    total = np.where(loose, loose_value, 0).sum(axis=1).astype(np.float64)
    rows, cards = np.nonzero(melds)
    np.add.at(total, rows, best_after_draws(kept[rows], cards))
    count = unseen.sum(axis=1)
    return np.where(count > 0, total / np.maximum(count, 1), dw10)

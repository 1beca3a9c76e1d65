"""Numpy references of the rule bots' compiled features (``agents.bots.features``).

The vectorized numpy code the kernels replaced, kept as the tests' oracles: the set
scenarios of ``set_scenarios`` with runs melded greedily, the Gumbel priorities of the
expert's sampled opponent hands from ``key_uniforms``, and a full argsort to draw them.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hgin_env.engine.cards import CARD_VALUE, N_CARDS, N_RANKS, N_SUITS
from hgin_env.engine.keys import key_uniforms
from hgin_env.engine.melds import (
    RUN_COVER,
    RUN_VALUE,
    deadwood_after_discard,
    meld_with,
    min_deadwood,
    set_scenarios,
)

#: small batches enumerate their set scenarios in one pass (see ``set_scenarios``)
_ONE_GROUP_BELOW = 512


def deadwood_scenarios(
    hands: np.ndarray,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per group of ``set_scenarios``: its rows, each scenario's unmelded cards and best flag.

    Yields ``(rows, deadwood, best)``: ``int64[G]``, ``int64[G, S]`` 52-bit card masks of
    the cards each scenario leaves unmelded, ``bool[G, S]`` least deadwood.
    """
    shifts = np.int64(N_RANKS) * np.arange(N_SUITS, dtype=np.int64)
    for sc in set_scenarios(hands, one_group_below=_ONE_GROUP_BELOW):
        loose = sc.remaining & ~RUN_COVER[sc.remaining]  # [G, S, 4] suit masks
        deadwood = (loose << shifts).sum(axis=2)
        if sc.valid.shape[1] == 1:
            yield sc.rows, deadwood, np.ones_like(deadwood, dtype=bool)
            continue
        melded = np.where(sc.valid, sc.set_value + RUN_VALUE[sc.remaining].sum(axis=2), -1)
        yield sc.rows, deadwood, melded == melded.max(axis=1, keepdims=True)


def best_deadwood_sets(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The deadwood cards of every arrangement of least deadwood, as 52-bit card masks.

    An arrangement is a set scenario of ``set_scenarios`` (which cards go into sets)
    with every stretch of 3+ consecutive cards left in a suit melded as a run; these
    give every way to leave a least-deadwood set of cards unmelded.

    Args:
        hands: ``bool[N, 52]``.

    Returns:
        ``(deadwood, best)``: ``int64[N, S]`` the unmelded cards of each scenario (bit c
        for card c) and ``bool[N, S]`` whether the scenario has the least deadwood
        (several scenarios may leave the same cards; padding entries are not best).
    """
    hands = np.asarray(hands, dtype=bool)
    groups = list(deadwood_scenarios(hands))
    width = max((d.shape[1] for _, d, _ in groups), default=1)
    deadwood = np.zeros((hands.shape[0], width), dtype=np.int64)
    best = np.zeros((hands.shape[0], width), dtype=bool)
    for rows, d, b in groups:
        deadwood[rows, : d.shape[1]] = d
        best[rows, : d.shape[1]] = b
    return deadwood, best


def random_best_deadwood(hands: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """The deadwood cards of one least-deadwood arrangement per hand, chosen at random.

    The choice is uniform over the distinct sets of unmelded cards that an arrangement
    of least deadwood can leave (``best_deadwood_sets``).

    Args:
        hands: ``bool[N, 52]``.
        uniforms: ``float[N]`` uniform numbers in [0, 1) that make the choice.

    Returns:
        ``bool[N, 52]``, a subset of each hand.
    """
    hands = np.asarray(hands, dtype=bool)
    uniforms = np.asarray(uniforms, dtype=np.float64)
    chosen = np.zeros(hands.shape[0], dtype=np.int64)
    for rows, deadwood, best in deadwood_scenarios(hands):
        if deadwood.shape[1] == 1:
            chosen[rows] = deadwood[:, 0]
            continue
        ordered = np.sort(np.where(best, deadwood, -1), axis=1)
        distinct = ordered >= 0
        distinct[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
        count = distinct.sum(axis=1)
        pick = np.minimum((uniforms[rows] * count).astype(np.int64), count - 1)
        nth = np.cumsum(distinct, axis=1) == pick[:, None] + 1
        chosen[rows] = ordered[np.arange(rows.size), np.argmax(distinct & nth, axis=1)]
    return ((chosen[:, None] >> np.arange(N_CARDS, dtype=np.int64)) & 1).astype(bool)


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


def sample_priorities(
    keys: np.ndarray, offset: int, n_samples: int, unseen: np.ndarray, log_weight: np.ndarray
) -> np.ndarray:
    """``float64[G, S, 52]``: the Gumbel priorities ``sample_melds`` draws by (-inf: not unseen)."""
    g = unseen.shape[0]
    uniform = key_uniforms(keys, n_samples * N_CARDS, offset=offset).reshape(g, n_samples, N_CARDS)
    gumbel = -np.log(-np.log(uniform + 1e-300) + 1e-300)
    return np.where(unseen[:, None, :], log_weight + gumbel, -np.inf)


def sample_melds(priority, hidden, known, passed, thrown, limit, de, hde):
    """The samples by a full argsort of the priorities, then numpy counts."""
    g, s, _ = priority.shape
    unseen = np.isfinite(priority[:, 0, :])
    order = np.argsort(-priority, axis=2)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(N_CARDS)[None, None, :], axis=2)
    samples = (rank < hidden[:, None, None]) & unseen[:, None, :]
    samples |= known[:, None, :]
    melds = meld_with(samples.reshape(g * s, N_CARDS)).reshape(g, s, N_CARDS)
    contradictions = (
        (melds & passed[:, None, :]).sum(axis=2)
        + (melds & thrown[:, None, :]).sum(axis=2) * de
        + (~melds & known[:, None, :]).sum(axis=2)
    )
    loose = samples & ~melds & ~known[:, None, :]
    above = (loose & (CARD_VALUE[None, None, :] > limit[:, None, None])).sum(axis=2)
    return melds, contradictions + hde * above

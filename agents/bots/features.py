"""Card features shared by the rule bots, vectorized over a batch of observations.

Everything here works on ``bool[N, 52]`` card masks (card id = ``suit * 13 + rank``)
decoded from the observation, and never on hidden state: the bots see exactly what
a trained policy sees.

Randomness: the bots draw every random number of a decision from that game's uint64
key (``keys`` of ``act``, one fresh key per game and decision, see
``hgin_env.envs.policy``), through ``key_uniforms``; called without keys they draw one
key per row from their seeded generator (``decision_keys``). So a game plays the same
alone or in a batch of any size.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hgin_env.engine.cards import CARD_VALUE, N_CARDS, N_RANKS, N_SUITS
from hgin_env.engine.jit import kernel
from hgin_env.engine.melds import (
    RUN_COVER,
    RUN_VALUE,
    deadwood_after_discard,
    meld_with,
    meld_with_row,
    min_deadwood,
    set_scenarios,
)
from hgin_env.envs.observation import DecodedObservation

#: a score larger than any real one, for masked-out choices
NO_CHOICE = 1e9
#: small batches enumerate their set scenarios in one pass (see ``set_scenarios``)
_ONE_GROUP_BELOW = 512


def decision_keys(keys: np.ndarray | None, rng: np.random.Generator, n: int) -> np.ndarray:
    """uint64[N]: the per-game keys of one decision, or N keys drawn from ``rng`` without them."""
    if keys is not None:
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        if keys.shape != (n,):
            raise ValueError(f"expected {n} keys (one per row), got shape {keys.shape}")
        return keys
    return rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


def unseen_cards(obs: DecodedObservation, rows: np.ndarray) -> np.ndarray:
    """``bool[R, 52]``: the cards the seat has not seen (in the stock or the opponent's hand).

    A card is seen when it is held, in the discard pile, or a known pickup of the opponent.
    """
    seen = obs.hand[rows] | obs.pile_below[rows] | obs.opponent_known[rows]
    top = obs.top_discard[rows]
    has_top = np.flatnonzero(top >= 0)
    seen[has_top, top[has_top]] = True
    return ~seen


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


@kernel
def sample_melds(
    priority: np.ndarray,
    hidden: np.ndarray,
    known: np.ndarray,
    passed: np.ndarray,
    thrown: np.ndarray,
    limit: np.ndarray,
    discard_evidence: float,
    highest_discard_evidence: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Opponent hands sampled by priority, their meld cards, and their contradictions.

    Sample ``(g, s)`` holds the known pickups ``known[g]`` and the ``hidden[g]`` cards
    of highest ``priority[g, s]`` among the finite ones (the unseen cards; ties do not
    occur with continuous priorities).

    Args:
        priority: ``float64[G, S, 52]``, ``-inf`` for a card that cannot be drawn.
        hidden: ``int[G]`` cards to draw per sample.
        known: ``bool[G, 52]`` the opponent's known pickups (in every sample).
        passed: ``bool[G, 52]`` cards the opponent let go by.
        thrown: ``bool[G, 52]`` the opponent's discards.
        limit: ``int[G]``: a loose card worth more than this contradicts the last discard.
        discard_evidence: contradictions counted per thrown card the sample melds.
        highest_discard_evidence: contradictions counted per loose card above ``limit``.

    Returns:
        ``(melds, contradictions)``: ``bool[G, S, 52]`` the cards each sample could meld
        (``meld_with``), and ``float64[G, S]`` melded passed cards + ``discard_evidence``
        x melded thrown cards + unmelded known pickups + ``highest_discard_evidence`` x
        loose cards above ``limit``.
    """
    g_count, s_count = priority.shape[0], priority.shape[1]
    melds = np.zeros((g_count, s_count, N_CARDS), dtype=np.bool_)
    contradictions = np.zeros((g_count, s_count), dtype=np.float64)
    sample = np.zeros(N_CARDS, dtype=np.bool_)
    top_value = np.empty(N_CARDS, dtype=np.float64)  # the drawn cards, best first
    top_card = np.empty(N_CARDS, dtype=np.int64)
    for g in range(g_count):
        k = min(max(hidden[g], 0), N_CARDS)
        for s in range(s_count):
            p = priority[g, s]
            drawn = 0
            for c in range(N_CARDS):  # one pass, keeping the k highest finite priorities
                v = p[c]
                if k == 0 or known[g, c] or v == -np.inf:
                    continue
                if drawn == k and not v > top_value[k - 1]:
                    continue
                j = drawn if drawn < k else k - 1
                while j > 0 and top_value[j - 1] < v:
                    top_value[j], top_card[j] = top_value[j - 1], top_card[j - 1]
                    j -= 1
                top_value[j], top_card[j] = v, c
                drawn = min(drawn + 1, k)
            for c in range(N_CARDS):
                sample[c] = known[g, c]
            for j in range(drawn):
                sample[top_card[j]] = True
            m = melds[g, s]
            meld_with_row(sample, m)
            melded_passed = melded_thrown = unmelded_known = above = 0
            for c in range(N_CARDS):
                if m[c]:
                    melded_passed += passed[g, c]
                    melded_thrown += thrown[g, c]
                elif known[g, c]:
                    unmelded_known += 1
                elif sample[c] and CARD_VALUE[c] > limit[g]:
                    above += 1
            x = melded_passed + melded_thrown * discard_evidence
            x = x + unmelded_known
            contradictions[g, s] = x + highest_discard_evidence * above
    return melds, contradictions


def jittered_argmin(scores: np.ndarray, uniforms: np.ndarray, scale: float) -> np.ndarray:
    """Row-wise argmin with ties broken uniformly at random.

    Args:
        scores: ``float[N, K]``, ``NO_CHOICE`` where a choice is not allowed.
        uniforms: ``float[N, K]`` uniform numbers in [0, 1) (from ``key_uniforms``).
        scale: jitter amplitude; below the smallest gap between different scores, so the
            jitter only reorders exact ties.

    Returns:
        ``int64[N]``.
    """
    return np.argmin(scores + uniforms * scale, axis=1)


def _deadwood_scenarios(
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
    groups = list(_deadwood_scenarios(hands))
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
    for rows, deadwood, best in _deadwood_scenarios(hands):
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

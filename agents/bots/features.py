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

import numpy as np

from hgin_env.engine.cards import CARD_VALUE, N_CARDS, N_RANKS, N_SUITS, RANK_VALUE
from hgin_env.engine.jit import inline_kernel, kernel
from hgin_env.engine.keys import key_uniform
from hgin_env.engine.melds import (
    RUN_COVER,
    RUN_VALUE,
    hand_discard_deadwood,
    hand_min_deadwood,
    hand_suit_masks,
    meld_with_row,
    next_scenario,
    scenario_at,
    scratch,
    set_ranks,
)
from hgin_env.envs.observation import DecodedObservation

#: a score larger than any real one, for masked-out choices
NO_CHOICE = 1e9


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
    keys: np.ndarray,
    offset: int,
    n_samples: int,
    log_weight: np.ndarray,
    unseen: np.ndarray,
    hidden: np.ndarray,
    known: np.ndarray,
    passed: np.ndarray,
    thrown: np.ndarray,
    limit: np.ndarray,
    discard_evidence: float,
    highest_discard_evidence: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Opponent hands sampled by Gumbel priority, their meld cards, and their contradictions.

    Sample ``(g, s)`` holds the known pickups ``known[g]`` and the ``hidden[g]`` unseen
    cards of highest priority ``log_weight[c] - log(-log(u + 1e-300) + 1e-300)``, with
    ``u = key_uniform(keys[g], offset + s * 52 + c)``: a draw without replacement, card
    c weighted ``exp(log_weight[c])`` (ties do not occur with continuous priorities).

    Args:
        keys: ``uint64[G]`` the decision keys.
        offset: the index of the first uniform number the samples use.
        n_samples: S, the hands sampled per row.
        log_weight: ``float64[52]`` each card's log weight.
        unseen: ``bool[G, 52]`` the cards that may be drawn.
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
    g_count = unseen.shape[0]
    melds = np.zeros((g_count, n_samples, N_CARDS), dtype=np.bool_)
    contradictions = np.zeros((g_count, n_samples), dtype=np.float64)
    pool = np.empty(N_CARDS, dtype=np.int64)  # the unseen cards that are not known
    top_value = np.empty(N_CARDS, dtype=np.float64)  # the drawn cards, best first
    top_card = np.empty(N_CARDS, dtype=np.int64)
    values = np.empty(N_CARDS, dtype=np.float64)  # the priorities of the pool
    for g in range(g_count):
        k = min(max(hidden[g], 0), N_CARDS)
        n_pool = 0
        for c in range(N_CARDS):
            if unseen[g, c] and not known[g, c]:
                pool[n_pool] = c
                n_pool += 1
        known_bits = _card_bits(known[g])
        passed_bits = _card_bits(passed[g])
        thrown_bits = _card_bits(thrown[g])
        high_bits = 0
        for c in range(N_CARDS):
            if CARD_VALUE[c] > limit[g]:
                high_bits |= 1 << c
        for s in range(n_samples):
            for i in range(n_pool):  # every priority first: no branch between the logs
                c = pool[i]
                u = key_uniform(keys[g], offset + s * N_CARDS + c)
                values[i] = log_weight[c] + -np.log(-np.log(u + 1e-300) + 1e-300)
            drawn = 0
            for i in range(n_pool if k > 0 else 0):  # keep the k highest priorities
                c = pool[i]
                v = values[i]
                if drawn == k and not v > top_value[k - 1]:
                    continue
                j = drawn if drawn < k else k - 1
                while j > 0 and top_value[j - 1] < v:
                    top_value[j], top_card[j] = top_value[j - 1], top_card[j - 1]
                    j -= 1
                top_value[j], top_card[j] = v, c
                drawn = min(drawn + 1, k)
            sample = known_bits
            for j in range(drawn):
                sample |= 1 << top_card[j]
            meld = _meld_with_bits(sample)
            m = melds[g, s]
            for c in range(N_CARDS):
                m[c] = (meld >> c) & 1
            melded_passed = _popcount(meld & passed_bits)
            melded_thrown = _popcount(meld & thrown_bits)
            unmelded_known = _popcount(known_bits & ~meld)
            above = _popcount(sample & ~meld & ~known_bits & high_bits)
            x = melded_passed + melded_thrown * discard_evidence
            x = x + unmelded_known
            contradictions[g, s] = x + highest_discard_evidence * above
    return melds, contradictions


#: 52-bit card masks (bit c for card c) of the cards of each rank, for ``_meld_with_bits``
_RANK_BITS = np.array(
    [sum(1 << (s * N_RANKS + r) for s in range(N_SUITS)) for r in range(N_RANKS)], np.int64
)
_ALL_BITS = (1 << N_CARDS) - 1


@inline_kernel
def _card_bits(cards: np.ndarray) -> int:
    """The 52-bit mask (bit c for card c) of a ``bool[52]`` card set."""
    bits = 0
    for c in range(N_CARDS):
        if cards[c]:
            bits |= 1 << c
    return bits


@inline_kernel
def _popcount(bits: int) -> int:
    """The number of set bits of a non-negative 64-bit integer."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@inline_kernel
def _meld_with_bits(hand: int) -> int:
    """``meld_with`` of one hand given and returned as a 52-bit card mask."""
    low1 = (hand << 1) & ~_RANK_BITS[0]  # card c - 1 of the same suit held
    low2 = (hand << 2) & ~(_RANK_BITS[0] | _RANK_BITS[1])
    high1 = (hand >> 1) & ~_RANK_BITS[N_RANKS - 1]  # card c + 1 held
    high2 = (hand >> 2) & ~(_RANK_BITS[N_RANKS - 1] | _RANK_BITS[N_RANKS - 2])
    runs = (low1 & low2) | (low1 & high1) | (high1 & high2)
    # the same rank in the other three suits: the hand rotated by one, two, three suits
    suit1 = ((hand << N_RANKS) | (hand >> (N_CARDS - N_RANKS))) & _ALL_BITS
    suit2 = ((hand << 2 * N_RANKS) | (hand >> (N_CARDS - 2 * N_RANKS))) & _ALL_BITS
    suit3 = ((hand << 3 * N_RANKS) | (hand >> (N_CARDS - 3 * N_RANKS))) & _ALL_BITS
    sets = (suit1 & suit2) | (suit1 & suit3) | (suit2 & suit3)
    return (runs | sets) & _ALL_BITS


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


def random_best_deadwood(hands: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """The deadwood cards of one least-deadwood arrangement per hand, chosen at random.

    An arrangement is a set scenario (which cards go into sets, as the meld search
    walks them: ``hgin_env.engine.melds.scenario_at``) with every stretch of 3+
    consecutive cards left in a suit melded as a run; these give every way to leave a
    least-deadwood set of cards unmelded. The choice is uniform over the distinct sets
    of unmelded cards the arrangements of least deadwood leave: with ``count`` of them
    in ascending order of their 52-bit masks (bit c for card c), number
    ``min(floor(u * count), count - 1)``. One compiled loop over the hands.

    Args:
        hands: ``bool[N, 52]``.
        uniforms: ``float[N]`` uniform numbers in [0, 1) that make the choice.

    Returns:
        ``bool[N, 52]``, a subset of each hand.
    """
    hands = _card_rows(hands)
    out = np.zeros_like(hands)
    _random_best_deadwood_rows(hands, np.ascontiguousarray(uniforms, np.float64), out)
    return out


@kernel
def _random_best_deadwood_rows(hands: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """``random_best_deadwood`` of each row of bool[N, 52] into ``out``."""
    smask, ranks, suits, n_opt, idx, removed = scratch()
    remaining = np.zeros(N_SUITS, np.int64)
    best_masks = np.empty(1, np.int64)
    for i in range(hands.shape[0]):
        hand_suit_masks(hands[i], smask)
        k = set_ranks(smask, ranks, suits, n_opt)
        n_scenarios = 1
        for j in range(k):
            n_scenarios *= n_opt[j]
        if best_masks.size < n_scenarios:
            best_masks = np.empty(n_scenarios, np.int64)
        idx[:k] = 0
        best = -1
        n_best = 0
        while True:  # the deadwood of every scenario of the most melded value
            melded = scenario_at(smask, k, ranks, suits, idx, removed, remaining)
            deadwood = 0
            for s in range(N_SUITS):
                melded += RUN_VALUE[remaining[s]]
                deadwood |= (remaining[s] & ~RUN_COVER[remaining[s]]) << (N_RANKS * s)
            if melded > best:
                best = melded
                n_best = 0
            if melded == best:
                best_masks[n_best] = deadwood
                n_best += 1
            if not next_scenario(idx, n_opt, k):
                break
        ordered = np.sort(best_masks[:n_best])
        count = 1
        for j in range(1, n_best):
            count += ordered[j] != ordered[j - 1]
        pick = min(int(uniforms[i] * count), count - 1)
        chosen = ordered[0]
        nth = 0
        for j in range(1, n_best):
            if ordered[j] != ordered[j - 1]:
                nth += 1
                if nth == pick:
                    chosen = ordered[j]
                    break
        for c in range(N_CARDS):
            out[i, c] = (chosen >> c) & 1


def expected_after_draw(kept: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """Mean over unseen cards x of the least deadwood of ``kept + x`` less one card (any).

    That is the expected deadwood next turn, after a blind draw and the best discard
    (the drawn card included).

    A card x that melds with no two cards of the hand is deadwood in every arrangement
    of ``kept + x``, so its value has a closed form: ``min(dw10, dw9 + value(x))`` with
    ``dw10`` the hand's deadwood and ``dw9`` the least deadwood after discarding one of
    its cards. Only the cards that can meld (``meld_with``) need a full evaluation. One
    compiled loop over the hands (``_expected_after_draw_rows``); the sum is of integers,
    divided once.

    Args:
        kept: ``bool[M, 52]`` hands of 10 cards.
        unseen: ``bool[M, 52]`` the cards each hand may draw (uniformly), disjoint from it.

    Returns:
        ``float64[M]`` (the hand's deadwood where nothing is unseen).
    """
    out = np.empty(len(kept), dtype=np.float64)
    _expected_after_draw_rows(_card_rows(kept), _card_rows(unseen), out)
    return out


def _card_rows(cards: np.ndarray) -> np.ndarray:
    """``cards`` as a C-contiguous ``bool[N, 52]`` (what the kernels take)."""
    return np.ascontiguousarray(cards, dtype=bool).reshape(-1, N_CARDS)


@kernel
def _expected_after_draw_rows(kept: np.ndarray, unseen: np.ndarray, out: np.ndarray) -> None:
    """``expected_after_draw`` of each row of bool[M, 52] into ``out``."""
    smask, ranks, suits, n_opt, idx, removed = scratch()
    remaining = np.zeros(N_SUITS, np.int64)
    after = np.empty(N_CARDS, np.int64)
    melds = np.empty(N_CARDS, np.bool_)
    for i in range(kept.shape[0]):
        total = hand_suit_masks(kept[i], smask)
        dw10 = hand_min_deadwood(smask, total, ranks, suits, n_opt, idx, removed, remaining)
        hand_discard_deadwood(smask, total, ranks, suits, n_opt, idx, removed, remaining, after)
        dw9 = after.min()
        meld_with_row(kept[i], melds)
        summed = 0
        count = 0
        for c in range(N_CARDS):
            if not unseen[i, c]:
                continue
            count += 1
            if not melds[c]:
                summed += min(dw10, dw9 + CARD_VALUE[c])
                continue
            s, r = c // N_RANKS, c % N_RANKS  # the card joins the hand, one goes
            smask[s] |= 1 << r
            hand_discard_deadwood(
                smask, total + RANK_VALUE[r], ranks, suits, n_opt, idx, removed, remaining, after
            )
            smask[s] &= ~(1 << r)
            summed += after.min()
        out[i] = summed / count if count > 0 else dw10

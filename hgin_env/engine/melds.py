"""Melds and deadwood, exact and vectorized over a batch of hands.

Method (exact): a set uses 3 or 4 cards of one rank and a rank holds at most one
set, so every arrangement is fixed by (a) which cards of each rank holding 3+
cards go into a set (none, one of the triples, or the quad) and (b) runs in the
cards left. Once the set cards are removed, the suits are independent, and in
one suit every maximal stretch of 3+ consecutive ranks is melded whole (it is one
run). So the best run value of a suit is a lookup in an 8192-entry table indexed
by the suit's 13-bit rank mask, and the minimum deadwood of a hand is a minimum
over the few *set scenarios* the hand allows (1, 6, 36, ... for 0, 1, 2, ...
ranks holding 3+ cards). Hands are grouped by their number of such ranks so that
each group enumerates only the scenarios it needs.

Deadwood after discarding card ``c`` reuses the scenarios: it changes only the
run value of ``c``'s suit, one more table lookup (``DISCARD_LOSS``).

Which cards would meld with a hand (``meld_with``) needs no search: a card melds when
two other cards of its rank, or two suit neighbours, are held.

Size limit: a hand with k ranks of 3+ cards has up to ``6**k`` scenarios, so the
functions that search them accept hands with at most ``MAX_SET_RANKS`` (6) such ranks
(46,656 scenarios) and raise ``ValueError`` beyond. Every hand of up to 20 cards fits
(a game hand holds 10 or 11); a bigger one fits when its cards spread. Large batches
are searched in chunks of about ``SCENARIO_BUDGET`` scenarios, so memory stays bounded
whatever the batch size. Hands are ``bool[..., 52]`` arrays (integer or
float arrays of 0s and 1s are accepted too; anything else, strings included, is refused).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from hgin_env.engine.cards import N_CARDS, N_RANKS, N_SUITS, RANK_VALUE, suit_masks
from hgin_env.engine.jit import inline_kernel, kernel

_N_MASKS = 1 << N_RANKS
#: value above any deadwood, used for "not possible" entries
NO_DEADWOOD = 1000


def _build_run_cover() -> np.ndarray:
    """int64[8192]: the cards of a suit mask that lie in stretches of 3+ consecutive ranks."""
    m = np.arange(_N_MASKS, dtype=np.int64)
    starts = m & (m >> 1) & (m >> 2)
    return (starts | (starts << 1) | (starts << 2)) & (_N_MASKS - 1)


def _build_mask_value() -> np.ndarray:
    """int64[8192]: total deadwood value of the ranks in a 13-bit suit mask."""
    m = np.arange(_N_MASKS, dtype=np.int64)
    bits = (m[:, None] >> np.arange(N_RANKS)) & 1
    return bits @ RANK_VALUE


def _build_discard_loss(run_value: np.ndarray) -> np.ndarray:
    """int64[8192, 13]: run value lost from a suit mask when rank r is removed from it."""
    m = np.arange(_N_MASKS, dtype=np.int64)
    without = m[:, None] & ~(np.int64(1) << np.arange(N_RANKS))
    return run_value[m][:, None] - run_value[without]


def _build_set_options() -> tuple[np.ndarray, np.ndarray]:
    """Set choices of one rank by its 4-bit suit mask: int64[16, 6] suits used, bool[16, 6] valid.

    Option 0 is always "no set". A rank with 3 cards adds its triple; a rank with 4
    cards adds its four triples and the quad.
    """
    options = np.zeros((16, 6), dtype=np.int64)
    valid = np.zeros((16, 6), dtype=bool)
    valid[:, 0] = True
    for suits in range(16):
        count = bin(suits).count("1")
        if count == 3:
            options[suits, 1] = suits
            valid[suits, 1] = True
        elif count == 4:
            options[suits, 1:] = [0b1110, 0b1101, 0b1011, 0b0111, 0b1111]
            valid[suits, 1:] = True
    return options, valid


RUN_COVER = _build_run_cover()
MASK_VALUE = _build_mask_value()
RUN_VALUE = MASK_VALUE[RUN_COVER]
DISCARD_LOSS = _build_discard_loss(RUN_VALUE)
#: int32[8192, 13]: deadwood added by discarding rank r from a suit mask's run cards
#: (run value lost minus the card's own value), or ``NO_DEADWOOD`` where r is not in the
#: mask
_DISCARD_DEAD = np.where(
    (np.arange(_N_MASKS)[:, None] >> np.arange(N_RANKS)) & 1,
    DISCARD_LOSS - RANK_VALUE,
    NO_DEADWOOD,
).astype(np.int32)
SET_OPTIONS, SET_OPTION_VALID = _build_set_options()
_COMBOS: dict[int, np.ndarray] = {}
#: most ranks holding 3+ cards a hand may have (6**6 set scenarios); 20 cards always fit
MAX_SET_RANKS = 6


def _combos(k: int) -> np.ndarray:
    """int64[6**k, k]: every choice of one set option for each of k ranks."""
    if k not in _COMBOS:
        combos = list(itertools.product(range(6), repeat=k))
        _COMBOS[k] = np.array(combos, dtype=np.int64).reshape(len(combos), k)
    return _COMBOS[k]


@dataclass
class SetScenarios:
    """The set scenarios of a group of G hands that all hold k ranks with 3+ cards.

    Attributes:
        rows: int64[G], the hands' indices in the batch.
        removed: int64[G, S, 4], per suit, the 13-bit mask of cards put into sets.
        set_value: int64[G, S], total value of the set cards.
        valid: bool[G, S], whether the scenario is possible for the hand.
        remaining: int64[G, S, 4], suit masks left for runs.
    """

    rows: np.ndarray
    removed: np.ndarray
    set_value: np.ndarray
    valid: np.ndarray
    remaining: np.ndarray


def _hand_array(hands: np.ndarray) -> np.ndarray:
    """``hands`` as a bool array; refuses arrays that are not 0/1 card masks.

    Raises:
        ValueError: for a dtype other than bool, integer or float, or entries not 0 or 1.
    """
    arr = np.asarray(hands)
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind not in "iuf":
        raise ValueError(
            f"hands must be bool[..., 52] card masks (or 0/1 numbers), got dtype {arr.dtype}"
        )
    if not ((arr == 0) | (arr == 1)).all():
        raise ValueError("hands must be bool[..., 52] card masks: entries must be 0 or 1")
    return arr.astype(bool)


def set_scenarios(hands: np.ndarray, one_group_below: int = 0) -> list[SetScenarios]:
    """Enumerate the set scenarios of each hand, grouped by its number of 3+ ranks.

    Args:
        hands: bool[N, 52], at most ``MAX_SET_RANKS`` ranks of 3+ cards each.
        one_group_below: when N times the scenario count of the hand with the most
            3+ ranks is below this, put every hand into one group (a small batch then
            costs one pass, not one per group); the hands with fewer such ranks get
            extra invalid scenarios, and their valid ones keep their order.

    Returns:
        One ``SetScenarios`` per distinct count k of ranks holding 3 or more cards (or
        a single one, see ``one_group_below``).

    Raises:
        ValueError: a hand with more than ``MAX_SET_RANKS`` ranks of 3+ cards, or an
            array that is not a card mask.
    """
    return list(_scenario_groups(hands, one_group_below))


def _scenario_groups(
    hands: np.ndarray, one_group_below: int = 0, budget: int | None = None
) -> Iterator[SetScenarios]:
    """``set_scenarios`` one group at a time.

    With ``budget``, a group's rows are split into chunks of at most ``budget``
    scenarios (one hand at least), so that memory stays bounded for any batch.
    """
    hands = _hand_array(hands)
    n = hands.shape[0]
    by_suit = hands.reshape(n, N_SUITS, N_RANKS).view(np.uint8)
    rank_count = by_suit[:, 0] + by_suit[:, 1] + by_suit[:, 2] + by_suit[:, 3]  # [N, 13]
    candidates = rank_count >= 3
    k_of = np.count_nonzero(candidates, axis=1)
    k_max = int(k_of.max()) if n else 0
    if k_max > MAX_SET_RANKS:
        worst = int(k_of.argmax())
        raise ValueError(
            f"hand {worst} ({int(rank_count[worst].sum())} cards) has {k_max} ranks with 3 "
            f"or more cards; the exact meld search takes at most {MAX_SET_RANKS} (any hand "
            "of up to 20 cards)"
        )
    smask = suit_masks(hands)  # int64[N, 4]
    one_group = 0 < n * 6**k_max < one_group_below and k_of.min() != k_max
    for k in [k_max] if one_group else np.flatnonzero(np.bincount(k_of)):
        rows = np.arange(n) if one_group or k_of.min() == k_of.max() else np.flatnonzero(k_of == k)
        chunk = rows.size if budget is None else max(1, budget // 6 ** int(k))
        for start in range(0, rows.size, chunk):
            part = rows if chunk >= rows.size else rows[start : start + chunk]
            yield _group(part, int(k), one_group, by_suit, candidates, smask)


def _group(
    rows: np.ndarray,
    k: int,
    one_group: bool,
    by_suit: np.ndarray,
    candidates: np.ndarray,
    smask: np.ndarray,
) -> SetScenarios:
    """The ``SetScenarios`` of the hands ``rows``: k ranks of 3+ cards (or fewer: one_group)."""
    g = rows.size
    combos = _combos(int(k))  # [S, k]
    if k == 0:
        removed = np.zeros((g, 1, N_SUITS), dtype=np.int64)
        set_value = np.zeros((g, 1), dtype=np.int64)
        valid = np.ones((g, 1), dtype=bool)
        remaining = smask[rows][:, None, :]
    else:
        if one_group:  # candidate ranks first, then padding ranks with no set option
            ranks = np.argsort(~candidates[rows], axis=1, kind="stable")[:, :k]
        else:
            ranks = np.nonzero(candidates[rows])[1].reshape(g, k)  # [G, k]
        # 4-bit mask of the suits holding each candidate rank
        suits = (by_suit[rows[:, None], :, ranks] << np.arange(N_SUITS)).sum(axis=2)
        if one_group:
            suits[~candidates[rows[:, None], ranks]] = 0
        option = SET_OPTIONS[suits[:, None, :], combos[None, :, :]]  # [G, S, k]
        valid = SET_OPTION_VALID[suits[:, None, :], combos[None, :, :]].all(axis=2)
        used = (option[..., None] >> np.arange(N_SUITS)) & 1  # [G, S, k, 4]
        removed = (used << ranks[:, None, :, None]).sum(axis=2)  # [G, S, 4]
        set_value = (used.sum(axis=3) * RANK_VALUE[ranks][:, None, :]).sum(axis=2)
        remaining = smask[rows][:, None, :] & ~removed
    return SetScenarios(rows, removed, set_value, valid, remaining)


def _melded_value(sc: SetScenarios) -> np.ndarray:
    """int64[G, S]: melded value of each scenario (-1 where the scenario is invalid)."""
    melded = sc.set_value + RUN_VALUE[sc.remaining].sum(axis=2)
    return melded if sc.valid.all() else np.where(sc.valid, melded, -1)


def _as_batch(hands: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """``hands`` as a C-contiguous bool[M, 52] batch, and the leading shape to give back."""
    hands = _hand_array(hands)
    if hands.shape[-1] != N_CARDS:
        raise ValueError(f"hands must be bool[..., 52], got shape {hands.shape}")
    return np.ascontiguousarray(hands.reshape(-1, N_CARDS)), hands.shape[:-1]


# ---------------------------------------------------------------- compiled kernels
# One hand at a time, in compiled loops over the batch: the set scenarios of a hand are
# walked in the order ``set_scenarios`` lists them (``itertools.product`` over the ranks
# holding 3+ cards, lowest rank slowest, each rank's options in ``SET_OPTIONS`` order),
# so that the first best scenario is the same one.


@inline_kernel
def hand_suit_masks(hand: np.ndarray, smask: np.ndarray) -> int:
    """Fill ``smask`` (int64[4]) with the 13-bit suit masks of ``hand`` (bool[52]); its value."""
    total = 0
    for s in range(N_SUITS):
        m = 0
        for r in range(N_RANKS):
            held = int(hand[s * N_RANKS + r])  # branch-free: 0 or 1
            m |= held << r
            total += held * RANK_VALUE[r]
        smask[s] = m
    return total


@inline_kernel
def set_ranks(smask: np.ndarray, ranks: np.ndarray, suits: np.ndarray, n_opt: np.ndarray) -> int:
    """The ranks holding 3+ cards (ascending) with their 4-bit suit masks and option counts.

    Returns:
        k, how many there are (``ranks[:k]``, ``suits[:k]``, ``n_opt[:k]`` filled).
    """
    k = 0
    for r in range(N_RANKS):
        held = 0
        count = 0
        for s in range(N_SUITS):
            if (smask[s] >> r) & 1:
                held |= 1 << s
                count += 1
        if count >= 3:
            ranks[k] = r
            suits[k] = held
            n_opt[k] = 2 if count == 3 else 6
            k += 1
    return k


@inline_kernel
def scenario_at(
    smask: np.ndarray,
    k: int,
    ranks: np.ndarray,
    suits: np.ndarray,
    idx: np.ndarray,
    removed: np.ndarray,
    remaining: np.ndarray,
) -> int:
    """The set scenario ``idx[:k]`` (one option per rank): fill its set cards and the rest.

    Returns:
        The value of its set cards.
    """
    for s in range(N_SUITS):
        removed[s] = 0
    value = 0
    for j in range(k):
        option = SET_OPTIONS[suits[j], idx[j]]
        for s in range(N_SUITS):
            if (option >> s) & 1:
                removed[s] |= 1 << ranks[j]
                value += RANK_VALUE[ranks[j]]
    for s in range(N_SUITS):
        remaining[s] = smask[s] & ~removed[s]
    return value


@inline_kernel
def next_scenario(idx: np.ndarray, n_opt: np.ndarray, k: int) -> bool:
    """Advance ``idx[:k]`` to the next scenario (last rank fastest); false after the last."""
    j = k - 1
    while j >= 0:
        idx[j] += 1
        if idx[j] < n_opt[j]:
            return True
        idx[j] = 0
        j -= 1
    return False


@kernel
def hand_min_deadwood(
    smask: np.ndarray,
    total: int,
    ranks: np.ndarray,
    suits: np.ndarray,
    n_opt: np.ndarray,
    idx: np.ndarray,
    removed: np.ndarray,
    remaining: np.ndarray,
) -> int:
    """Minimum deadwood of one hand given its suit masks and value; -1 over the size limit."""
    k = set_ranks(smask, ranks, suits, n_opt)
    if k == 0:
        return total - (
            RUN_VALUE[smask[0]] + RUN_VALUE[smask[1]] + RUN_VALUE[smask[2]] + RUN_VALUE[smask[3]]
        )
    if k > MAX_SET_RANKS:
        return -1
    idx[:k] = 0
    best = -1
    while True:
        value = scenario_at(smask, k, ranks, suits, idx, removed, remaining)
        for s in range(N_SUITS):
            value += RUN_VALUE[remaining[s]]
        best = max(best, value)
        if not next_scenario(idx, n_opt, k):
            break
    return total - best


@kernel
def hand_discard_deadwood(
    smask: np.ndarray,
    total: int,
    ranks: np.ndarray,
    suits: np.ndarray,
    n_opt: np.ndarray,
    idx: np.ndarray,
    removed: np.ndarray,
    remaining: np.ndarray,
    out: np.ndarray,
) -> bool:
    """Fill ``out`` (int64[52]) with the deadwood left by each discard; false over the limit.

    Entry c is the least, over the scenarios that keep c out of sets, of the scenario's
    deadwood plus what discarding c adds (``_DISCARD_DEAD``); ``NO_DEADWOOD`` for a card
    not held.
    """
    k = set_ranks(smask, ranks, suits, n_opt)
    if k > MAX_SET_RANKS:
        return False
    for c in range(N_CARDS):
        out[c] = NO_DEADWOOD
    idx[:k] = 0
    while True:
        value = scenario_at(smask, k, ranks, suits, idx, removed, remaining)
        for s in range(N_SUITS):
            value += RUN_VALUE[remaining[s]]
        base = total - value
        for s in range(N_SUITS):
            rest, r = remaining[s], 0  # its ranks, lowest first, up to the highest held
            while rest:
                if rest & 1:
                    dead = base + _DISCARD_DEAD[remaining[s], r]
                    if dead < out[s * N_RANKS + r]:
                        out[s * N_RANKS + r] = dead
                rest >>= 1
                r += 1
        if not next_scenario(idx, n_opt, k):
            break
    return True


@kernel
def scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The per-hand work arrays of the meld kernels: smask, ranks, suits, n_opt, idx, removed."""
    return (
        np.zeros(N_SUITS, np.int64),
        np.zeros(N_RANKS, np.int64),
        np.zeros(N_RANKS, np.int64),
        np.zeros(N_RANKS, np.int64),
        np.zeros(N_RANKS, np.int64),
        np.zeros(N_SUITS, np.int64),
    )


@kernel
def _min_deadwood_rows(hands: np.ndarray, out: np.ndarray) -> int:
    """``min_deadwood`` of each row of bool[N, 52]; returns a row over the limit, or -1."""
    smask, ranks, suits, n_opt, idx, removed = scratch()
    remaining = np.zeros(N_SUITS, np.int64)
    for i in range(hands.shape[0]):
        total = hand_suit_masks(hands[i], smask)
        dead = hand_min_deadwood(smask, total, ranks, suits, n_opt, idx, removed, remaining)
        if dead < 0:
            return i
        out[i] = dead
    return -1


@kernel
def _discard_deadwood_rows(hands: np.ndarray, out: np.ndarray) -> int:
    """``deadwood_after_discard`` of each row; returns a row over the limit, or -1."""
    smask, ranks, suits, n_opt, idx, removed = scratch()
    remaining = np.zeros(N_SUITS, np.int64)
    for i in range(hands.shape[0]):
        total = hand_suit_masks(hands[i], smask)
        if not hand_discard_deadwood(
            smask, total, ranks, suits, n_opt, idx, removed, remaining, out[i]
        ):
            return i
    return -1


def _too_many_sets(flat: np.ndarray) -> ValueError:
    """The error for a batch holding a hand with more than ``MAX_SET_RANKS`` set ranks."""
    by_suit = flat.reshape(-1, N_SUITS, N_RANKS).view(np.uint8)
    rank_count = by_suit.sum(axis=1)
    k_of = np.count_nonzero(rank_count >= 3, axis=1)
    worst = int(k_of.argmax())
    return ValueError(
        f"hand {worst} ({int(rank_count[worst].sum())} cards) has {int(k_of[worst])} ranks "
        f"with 3 or more cards; the exact meld search takes at most {MAX_SET_RANKS} (any hand "
        "of up to 20 cards)"
    )


def min_deadwood(hands: np.ndarray) -> np.ndarray:
    """Minimum deadwood of each hand over all ways to pick disjoint melds.

    Args:
        hands: bool[..., 52], up to 20 cards per hand (more when they spread:
            ``MAX_SET_RANKS``).

    Returns:
        int64[...], the minimum deadwood.

    Raises:
        ValueError: a hand with more than ``MAX_SET_RANKS`` ranks of 3+ cards, a shape
            other than [..., 52], or an array that is not a card mask (module docstring).

    >>> from hgin_env.engine.cards import parse_cards
    >>> int(min_deadwood(parse_cards("AC 2C 3C 4D 5D 6D 7H 8H 9H KS")))
    10
    """
    flat, shape = _as_batch(hands)
    out = np.zeros(flat.shape[0], dtype=np.int64)
    if _min_deadwood_rows(flat, out) >= 0:
        raise _too_many_sets(flat)
    return out.reshape(shape)


def deadwood_after_discard(hands: np.ndarray) -> np.ndarray:
    """Minimum deadwood left after discarding each card.

    Args:
        hands: bool[..., 52] (typically 11 cards; see ``min_deadwood``).

    Returns:
        int64[..., 52]: entry c is the minimum deadwood of ``hand - {c}`` for a held
        card c, and ``NO_DEADWOOD`` for a card not held.
    """
    flat, shape = _as_batch(hands)
    out = np.empty((flat.shape[0], N_CARDS), dtype=np.int64)
    if _discard_deadwood_rows(flat, out) >= 0:
        raise _too_many_sets(flat)
    return out.reshape(shape + (N_CARDS,))


def knock_discards(hands11: np.ndarray, knock_limit: int | np.ndarray = 10) -> np.ndarray:
    """Which discards leave deadwood <= ``knock_limit``.

    Args:
        hands11: bool[..., 52] hands of 11 cards (after taking a card).
        knock_limit: the knock limit, or int[N] one per hand of a batch ``[N, 52]`` (a mix
            of rule sets).

    Returns:
        bool[..., 52], true for a held card whose discard allows a knock.
    """
    dead = deadwood_after_discard(hands11)
    if np.ndim(knock_limit) > 0:
        limits = np.asarray(knock_limit, dtype=np.int64)
        return np.asarray(dead <= limits.reshape(limits.shape + (1,)))
    return np.asarray(dead <= int(knock_limit))


def meld_with(hand: np.ndarray) -> np.ndarray:
    """``bool[N, 52]``: card c would form a meld with cards of ``hand`` (c itself aside).

    A set: two other cards of c's rank in the hand. A run: two cards of c's suit in the
    hand at ranks ``(c-2, c-1)``, ``(c-1, c+1)`` or ``(c+1, c+2)`` (ace low, no wrap).
    One compiled loop over the hands (``meld_with_row``).
    """
    held = np.ascontiguousarray(hand, dtype=bool).reshape(-1, N_CARDS)
    out = np.empty_like(held)
    _meld_with_rows(held, out)
    return out


@kernel
def meld_with_row(hand: np.ndarray, out: np.ndarray) -> None:
    """``meld_with`` of one hand (bool[52]) into ``out`` (bool[52])."""
    for r in range(N_RANKS):
        count = 0
        for s in range(N_SUITS):
            count += hand[s * N_RANKS + r]
        for s in range(N_SUITS):
            c = s * N_RANKS + r
            if count - hand[c] >= 2:  # two other cards of its rank
                out[c] = True
                continue
            b1 = r >= 1 and hand[c - 1]
            b2 = r >= 2 and hand[c - 2]
            a1 = r + 1 < N_RANKS and hand[c + 1]
            a2 = r + 2 < N_RANKS and hand[c + 2]
            out[c] = (b1 and b2) or (b1 and a1) or (a1 and a2)


@kernel
def _meld_with_rows(hands: np.ndarray, out: np.ndarray) -> None:
    """``meld_with`` of each row of bool[N, 52] into ``out``."""
    for i in range(hands.shape[0]):
        meld_with_row(hands[i], out[i])


def best_melds(hand: np.ndarray) -> tuple[list[list[int]], list[int]]:
    """One arrangement of a single hand with minimum deadwood.

    Args:
        hand: bool[52], one hand (for a batch, call it once per hand).

    Returns:
        ``(melds, deadwood_cards)``: melds as lists of card ids (sets first, then runs,
        each sorted), and the unmelded cards.

    Raises:
        ValueError: for anything but one hand of shape (52,), or a hand over
            the size limit (see ``min_deadwood``).

    >>> from hgin_env.engine.cards import format_cards, parse_cards
    >>> melds, rest = best_melds(parse_cards("7C 7D 7H AS 2S 3S 4S 9D KH QH"))
    >>> [format_cards(np.isin(np.arange(52), m)) for m in melds]
    ['7C 7D 7H', 'AS 2S 3S 4S']
    >>> format_cards(np.isin(np.arange(52), rest))
    '9D QH KH'
    """
    hand = _hand_array(hand)
    if hand.shape != (N_CARDS,):
        raise ValueError(
            f"best_melds takes one hand, bool[{N_CARDS}], got shape {hand.shape}; "
            "call it once per hand of a batch"
        )
    (sc,) = set_scenarios(hand[None])
    best = int(np.argmax(_melded_value(sc)[0]))
    return arrangement_melds(hand, sc.removed[0, best], sc.remaining[0, best])


def arrangement_melds(
    hand: np.ndarray, set_cards: np.ndarray, run_cards: np.ndarray
) -> tuple[list[list[int]], list[int]]:
    """Split one hand into melds given its set cards and run cards per suit.

    Args:
        hand: bool[52].
        set_cards: int[4] suit masks of cards in sets.
        run_cards: int[4] suit masks from which every stretch of 3+ ranks is a run.

    Returns:
        ``(melds, deadwood_cards)`` as in ``best_melds``.
    """
    melds: list[list[int]] = []
    for rank in range(N_RANKS):
        cards = [s * N_RANKS + rank for s in range(N_SUITS) if (int(set_cards[s]) >> rank) & 1]
        if cards:
            melds.append(cards)
    melded = {c for m in melds for c in m}
    for s in range(N_SUITS):
        cover = int(RUN_COVER[int(run_cards[s])])
        run: list[int] = []
        for rank in range(N_RANKS + 1):
            if rank < N_RANKS and (cover >> rank) & 1:
                run.append(s * N_RANKS + rank)
            elif run:
                melds.append(run)
                melded.update(run)
                run = []
    deadwood = [int(c) for c in np.flatnonzero(hand) if c not in melded]
    return melds, deadwood

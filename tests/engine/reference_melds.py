"""Brute-force reference for melds and deadwood, in plain Python (docs/rules.md §1-2).

Deliberately independent of ``hgin_env.engine.melds``: no numpy, no lookup tables,
no set scenarios. It lists every meld a hand contains, then every family of
pairwise-disjoint melds, and takes the family that leaves the least deadwood.
Slow but obviously right; the property tests compare the vectorized engine to it.

Cards are ids ``suit * 13 + rank`` (rank 0 = ace ... 12 = king).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations

RANKS = 13


def rank_of(card: int) -> int:
    """Return the rank of a card id (0 = ace ... 12 = king)."""
    return card % RANKS


def suit_of(card: int) -> int:
    """Return the suit of a card id (0 clubs, 1 diamonds, 2 hearts, 3 spades)."""
    return card // RANKS


def value_of(card: int) -> int:
    """Return the deadwood value of a card: ace 1, 2-10 face value, J/Q/K 10."""
    return min(rank_of(card) + 1, 10)


def is_meld(cards: Iterable[int]) -> bool:
    """Return whether the cards form one meld: a set of 3-4 of a rank or a run of 3+."""
    cards = sorted(set(cards))
    if len(cards) < 3:
        return False
    if len({rank_of(c) for c in cards}) == 1:
        return len(cards) <= 4
    if len({suit_of(c) for c in cards}) != 1:
        return False
    ranks = [rank_of(c) for c in cards]
    # ace low, no wrap: ranks must be consecutive integers in 0..12
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def all_melds(hand: Iterable[int]) -> list[frozenset[int]]:
    """Every meld contained in the hand (all sets of 3 and 4, all runs of 3+), no repeats."""
    held = set(hand)
    melds: set[frozenset[int]] = set()
    for rank in range(RANKS):
        same_rank = [c for c in held if rank_of(c) == rank]
        for size in (3, 4):
            for combo in combinations(same_rank, size):
                melds.add(frozenset(combo))
    for suit in range(4):
        for low in range(RANKS):
            for high in range(low + 2, RANKS):
                run = {suit * RANKS + r for r in range(low, high + 1)}
                if run <= held:
                    melds.add(frozenset(run))
    return sorted(melds, key=sorted)


def disjoint_families(melds: list[frozenset[int]]) -> Iterator[list[frozenset[int]]]:
    """Yield every family (including the empty one) of pairwise-disjoint melds."""

    def extend(start: int, used: frozenset[int], family: list[frozenset[int]]):
        yield family
        for i in range(start, len(melds)):
            if not melds[i] & used:
                yield from extend(i + 1, used | melds[i], [*family, melds[i]])

    yield from extend(0, frozenset(), [])


def best_arrangement(hand: Iterable[int]) -> tuple[int, list[frozenset[int]]]:
    """Return ``(min deadwood, one family of melds reaching it)`` for a hand of card ids."""
    hand = list(hand)
    if len(set(hand)) != len(hand):
        raise ValueError(f"duplicate cards in {hand}")
    total = sum(value_of(c) for c in hand)
    best: tuple[int, list[frozenset[int]]] = (total, [])
    for family in disjoint_families(all_melds(hand)):
        deadwood = total - sum(value_of(c) for meld in family for c in meld)
        if deadwood < best[0]:
            best = (deadwood, family)
    return best


def min_deadwood(hand: Iterable[int]) -> int:
    """Minimum deadwood of a hand of card ids over all families of disjoint melds."""
    return best_arrangement(hand)[0]


def deadwood_after_discard(hand: Iterable[int]) -> dict[int, int]:
    """Map each held card to the minimum deadwood of the hand without it."""
    hand = list(hand)
    return {c: min_deadwood([d for d in hand if d != c]) for c in hand}


def knock_discards(hand: Iterable[int], knock_limit: int = 10) -> set[int]:
    """Held cards whose discard leaves deadwood <= ``knock_limit``."""
    return {c for c, d in deadwood_after_discard(hand).items() if d <= knock_limit}

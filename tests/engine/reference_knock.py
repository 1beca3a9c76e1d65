"""Brute-force reference for knock resolution, in plain Python (docs/rules.md §3 "Knocking").

Deliberately independent of ``hgin_env.engine.knock`` and ``melds``: no numpy, no
tables, no flood fills, no reasoning about which knocker arrangements can matter. It
lists every family of disjoint melds in the knocker's hand (so long runs are cut in
every possible way, and any card may be left as deadwood); for each family within the
knock limit it plays out every sequence of defender layoffs onto those melds (the
fourth card of a three-card set, one card at either end of a run, one after another),
and for each reachable set of laid-off cards the defender's best own melds. The
knocker then gets the family that is best for its score, ties broken by lower deadwood.

Cards are ids ``suit * 13 + rank`` (rank 0 = ace ... 12 = king).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations

RANKS = 13


def rank_of(card: int) -> int:
    """Return the rank of a card id (0 = ace ... 12 = king)."""
    return card % RANKS


def suit_of(card: int) -> int:
    """Return the suit of a card id (0 clubs ... 3 spades)."""
    return card // RANKS


def value_of(card: int) -> int:
    """Return the deadwood value of a card: ace 1, 2-10 face value, J/Q/K 10."""
    return min(rank_of(card) + 1, 10)


def all_melds(hand: Iterable[int]) -> list[frozenset[int]]:
    """Every meld inside the hand: all sets of 3 and 4, all runs of 3 or more."""
    held = set(hand)
    melds: list[frozenset[int]] = []
    for rank in range(RANKS):
        same = sorted(c for c in held if rank_of(c) == rank)
        for size in (3, 4):
            melds.extend(frozenset(combo) for combo in combinations(same, size))
    for suit in range(4):
        for low in range(RANKS):
            for high in range(low + 2, RANKS):
                run = frozenset(suit * RANKS + r for r in range(low, high + 1))
                if run <= held:
                    melds.append(run)
    return melds


def meld_families(hand: Iterable[int]) -> Iterator[list[frozenset[int]]]:
    """Yield every family of pairwise-disjoint melds of the hand (the empty one too)."""
    melds = all_melds(hand)

    def extend(start: int, used: frozenset[int], family: list[frozenset[int]]):
        yield family
        for i in range(start, len(melds)):
            if not melds[i] & used:
                yield from extend(i + 1, used | melds[i], [*family, melds[i]])

    yield from extend(0, frozenset(), [])


@cache
def min_deadwood(hand: frozenset[int]) -> int:
    """Minimum deadwood of a set of card ids over all families of disjoint melds."""
    total = sum(value_of(c) for c in hand)
    return min(total - sum(value_of(c) for m in fam for c in m) for fam in meld_families(hand))


def _is_set(meld: frozenset[int]) -> bool:
    return len({rank_of(c) for c in meld}) == 1


def reachable_layoffs(
    knocker_melds: list[frozenset[int]], defender: frozenset[int]
) -> set[frozenset[int]]:
    """Every set of defender cards that some sequence of layoffs can place.

    A layoff adds one defender card to one knocker meld: the missing card of a
    three-card set, or the card just below or just above a run (same suit).
    """
    start = tuple(sorted(knocker_melds, key=sorted))
    seen: set[tuple[tuple[frozenset[int], ...], frozenset[int]]] = set()
    found: set[frozenset[int]] = set()
    stack: list[tuple[tuple[frozenset[int], ...], frozenset[int]]] = [(start, frozenset())]
    while stack:
        melds, laid = stack.pop()
        if (melds, laid) in seen:
            continue
        seen.add((melds, laid))
        found.add(laid)
        for card in defender - laid:
            for i, meld in enumerate(melds):
                if _is_set(meld):
                    fits = len(meld) == 3 and rank_of(card) == rank_of(next(iter(meld)))
                else:
                    suit = suit_of(next(iter(meld)))
                    ranks = [rank_of(c) for c in meld]
                    fits = suit_of(card) == suit and rank_of(card) in (
                        min(ranks) - 1,
                        max(ranks) + 1,
                    )
                if fits:
                    grown = (*melds[:i], meld | {card}, *melds[i + 1 :])
                    stack.append((grown, laid | {card}))
    return found


def defender_deadwood(knocker_melds: list[frozenset[int]], defender: frozenset[int]) -> int:
    """The defender's least deadwood, choosing layoffs and its own melds together."""
    return min(min_deadwood(defender - laid) for laid in reachable_layoffs(knocker_melds, defender))


@dataclass(frozen=True)
class RefOutcome:
    """What the reference decides for one knock."""

    knocker_deadwood: int
    defender_deadwood: int
    points: int
    winner: str
    gin: bool
    undercut: bool
    big_gin: bool


def resolve(
    knocker: Iterable[int],
    defender: Iterable[int],
    knock_limit: int = 10,
    gin_bonus: int = 25,
    undercut_bonus: int = 10,
    big_gin_bonus: int | None = None,
) -> RefOutcome:
    """Resolve one knock by brute force.

    Args:
        knocker: the knocker's card ids after its discard (10), or 11 for big gin.
        defender: the defender's 10 card ids.
        knock_limit: the knock limit.
        gin_bonus: the gin bonus.
        undercut_bonus: the undercut bonus.
        big_gin_bonus: the big gin bonus; an 11-card knocker hand is big gin.

    Returns:
        The outcome for the knocker family best for its score, then lowest deadwood.
    """
    knocker = frozenset(knocker)
    defender = frozenset(defender)
    big = len(knocker) == 11
    if big and big_gin_bonus is None:
        raise ValueError("an 11-card knock needs big_gin_bonus")
    big_bonus = big_gin_bonus or 0
    limit = 0 if big else knock_limit
    total = sum(value_of(c) for c in knocker)
    best: tuple[tuple[int, int], RefOutcome] | None = None
    for family in meld_families(knocker):
        k = total - sum(value_of(c) for m in family for c in m)
        if k > limit:
            continue
        if big:
            d = min_deadwood(defender)
            score = d + big_bonus
        elif k == 0:
            d = min_deadwood(defender)
            score = d + gin_bonus
        else:
            d = defender_deadwood(family, defender)
            score = d - k if k < d else -(undercut_bonus + k - d)
        outcome = RefOutcome(
            knocker_deadwood=k,
            defender_deadwood=d,
            points=abs(score),
            winner="knocker" if score > 0 or big or k == 0 else "defender",
            gin=k == 0 and not big,
            undercut=k > 0 and not big and k >= d,
            big_gin=big,
        )
        key = (score, -k)
        if best is None or key > best[0]:
            best = (key, outcome)
    if best is None:
        raise ValueError("the knocker cannot knock")
    return best[1]

"""Knock resolution: the knocker's arrangement, the defender's layoffs, and the score.

docs/rules.md §3 ("Knocking", "Scoring one hand") asks for the knocker arrangement that is best
for the knocker's score given the defender's best answer, ties broken by lower knocker
deadwood. This module solves that exactly, vectorized over a batch of knocks, with no
Python loop over the batch.

Method:

1. **Knocker arrangements.** An arrangement is a set scenario (``melds.set_scenarios``:
   which cards of each rank holding 3+ cards form a set) times, per suit, a *run mask*
   ``M_s`` of the cards melded in runs. For layoffs only ``M_s`` matters, not how a long
   stretch is cut into runs, and inside one maximal stretch of the suit's remaining cards
   only the hull of ``M_s`` matters (the cards inside the hull are the knocker's, so
   nobody can lay them off). So per stretch the choices are "no run" or one
   sub-interval of 3+ ranks: a shorter interval keeps a card as deadwood to block a
   layoff chain. ``_build_run_options`` lists, per 13-bit suit mask, every product of these
   choices sorted by the value they drop. The arrangements of a batch are enumerated as
   one flat table with a row id per candidate: set scenarios, then each suit's options
   (``np.repeat``), keeping only the options whose dropped value still fits under the
   knock limit, so the table stays small.
2. **Defender's answer** to one arrangement (not gin): the defender picks one of its own
   set scenarios (independent of the knocker: where the knocker holds a set the
   defender holds at most one card of that rank). The fourth card of a knocker's
   three-card set, when the defender holds it, is always melded (laid off on the set,
   or used in a run, whichever). Per suit, with ``d`` the defender's cards left after its
   sets and ``A`` the knocker's run mask, the defender melds exactly its cards in
   stretches of 3+ of ``d`` (own runs) plus its cards connected to ``A`` through
   consecutive ranks of ``d | A`` (layoffs, one after another): ``_flood``. All of
   these can be melded at once, and no other card of ``d`` can be. The defender's
   deadwood is the minimum over its set scenarios.
3. **Score.** Against gin (knocker deadwood 0) and big gin the defender may not lay
   off: its deadwood is its plain minimum deadwood (step 2 with no anchors and no
   fourth cards). Each candidate gets the knocker's signed score (gin
   ``D + gin_bonus``, knock ``D - K``, undercut ``-(undercut_bonus + K - D)``) and each
   hand keeps its best candidate, then the lowest ``K`` (a lexsort over the row ids).

``tests/engine/reference_knock.py`` checks all of this against a plain-Python brute force that
enumerates every family of disjoint knocker melds and every sequence of layoffs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

import numpy as np

from hgin_env.engine.cards import (
    CARD_VALUE,
    N_CARDS,
    N_RANKS,
    N_SUITS,
    card_text,
    parse_cards,
    suit_masks,
)
from hgin_env.engine.config import HandRules, RulesConfig
from hgin_env.engine.melds import (
    MASK_VALUE,
    RUN_COVER,
    RUN_VALUE,
    arrangement_melds,
    min_deadwood,
    set_scenarios,
)

_N_MASKS = 1 << N_RANKS
_RANK_BITS = np.arange(N_RANKS, dtype=np.int64)
#: drop values are below this (the largest is the run value of a full suit, 85)
_DROP_SPAN = 128


def _stretches(mask: int) -> list[tuple[int, int]]:
    """Maximal stretches ``(lo, hi)`` of 3+ consecutive ranks of a 13-bit mask."""
    out = []
    rank = 0
    while rank < N_RANKS:
        if (mask >> rank) & 1:
            hi = rank
            while hi + 1 < N_RANKS and (mask >> (hi + 1)) & 1:
                hi += 1
            if hi - rank >= 2:
                out.append((rank, hi))
            rank = hi + 1
        else:
            rank += 1
    return out


def _build_run_options() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The knocker's run-mask choices for every 13-bit suit mask.

    For each maximal stretch of 3+ ranks the choice is "no run" or a sub-interval of
    3+ ranks; a suit's options are the products over its stretches. Options are sorted
    by the value they leave out of runs ("drop", 0 for the full cover).

    Returns:
        ``(start, key, run_mask, drop)``: int64[8192] index of a mask's first option;
        int64[T] sort key ``mask * 128 + drop``; int64[T] run mask ``M``; int64[T]
        ``RUN_VALUE[mask] - MASK_VALUE[M]``.
    """
    interval_cache: dict[tuple[int, int], list[int]] = {}
    owners, run_masks = [], []
    for mask in range(_N_MASKS):
        per_stretch = []
        for lo, hi in _stretches(mask):
            if (lo, hi) not in interval_cache:
                intervals = [0]
                for a in range(lo, hi - 1):
                    for b in range(a + 2, hi + 1):
                        intervals.append(((1 << (b - a + 1)) - 1) << a)
                interval_cache[lo, hi] = intervals
            per_stretch.append(interval_cache[lo, hi])
        for combo in itertools.product(*per_stretch):
            owners.append(mask)
            run_masks.append(sum(combo))
    owner = np.array(owners, dtype=np.int64)
    run_mask = np.array(run_masks, dtype=np.int64)
    drop = RUN_VALUE[owner] - MASK_VALUE[run_mask]
    key = owner * _DROP_SPAN + drop
    order = np.argsort(key, kind="stable")
    start = np.searchsorted(key[order], np.arange(_N_MASKS) * _DROP_SPAN)
    return start, key[order], run_mask[order], drop[order]


_OPT_START, _OPT_KEY, _OPT_RUN, _OPT_DROP = _build_run_options()


@dataclass
class KnockOutcome:
    """Resolution of M knocks; every field has a leading axis M.

    Attributes:
        knocker_deadwood: int64[M], K, the knocker's deadwood in the chosen arrangement.
        defender_deadwood: int64[M], D, the defender's deadwood after its layoffs (none
            against gin or big gin).
        knocker_wins: bool[M], whether the knocker scores (gin, big gin or K < D).
        points: int64[M] >= 0, the points scored by the winner.
        gin: bool[M], a knock with deadwood 0 after the discard (not big gin).
        big_gin: bool[M], a knock with all 11 cards melded and no discard.
        undercut: bool[M], K >= D without gin: the defender scores.
        layoffs: bool[M, 52], the defender's cards laid off on the knocker's melds.
        knocker_set_cards: int64[M, 4], per suit, 13-bit masks of the knocker's set cards.
        knocker_run_cards: int64[M, 4], per suit, the knocker's run cards (every stretch
            of 3+ ranks in it is melded as runs; see ``melds.arrangement_melds``).
        defender_set_cards: int64[M, 4], the defender's own set cards.
        defender_run_cards: int64[M, 4], the defender's own run cards.
    """

    knocker_deadwood: np.ndarray
    defender_deadwood: np.ndarray
    knocker_wins: np.ndarray
    points: np.ndarray
    gin: np.ndarray
    big_gin: np.ndarray
    undercut: np.ndarray
    layoffs: np.ndarray
    knocker_set_cards: np.ndarray
    knocker_run_cards: np.ndarray
    defender_set_cards: np.ndarray
    defender_run_cards: np.ndarray


@dataclass(frozen=True)
class KnockResult:
    """Resolution of one knock, with card ids for display and tests.

    Attributes:
        knocker_deadwood: K, the knocker's deadwood.
        defender_deadwood: D, the defender's deadwood after layoffs.
        winner: who scores.
        points: the points scored by the winner.
        gin: knocker deadwood 0 after the discard (not big gin).
        undercut: K >= D without gin.
        big_gin: all 11 knocker cards melded, no discard.
        layoffs: defender card ids laid off on the knocker's melds.
        knocker_melds: the knocker's melds as lists of card ids.
        knocker_deadwood_cards: the knocker's unmelded cards.
        defender_melds: the defender's own melds.
        defender_deadwood_cards: the defender's cards neither melded nor laid off.
    """

    knocker_deadwood: int
    defender_deadwood: int
    winner: Literal["knocker", "defender"]
    points: int
    gin: bool
    undercut: bool
    big_gin: bool
    layoffs: list[int]
    knocker_melds: list[list[int]]
    knocker_deadwood_cards: list[int]
    defender_melds: list[list[int]]
    defender_deadwood_cards: list[int]


def _ragged_expand(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expand per-parent counts into (parent index, offset within parent) columns.

    Args:
        counts: int64[P] >= 0.

    Returns:
        ``(parent, offset)``, int64[sum(counts)] each.
    """
    parent = np.repeat(np.arange(counts.size), counts)
    first = np.cumsum(counts) - counts
    offset = np.arange(parent.size) - first[parent]
    return parent, offset


def _flood(seeds: np.ndarray, within: np.ndarray) -> np.ndarray:
    """Cards of ``within`` connected to ``seeds`` through consecutive ranks.

    An occluded fill in log steps (Kogge-Stone), upwards then downwards; it gives the
    same result as repeating ``reach = (reach | reach << 1 | reach >> 1) & within``
    until stable.

    Args:
        seeds: int64[...] 13-bit masks, a subset of ``within``.
        within: int64[...] 13-bit masks.

    Returns:
        int64[...], the cards of ``within`` in a stretch that holds a seed.
    """
    up, down = seeds, seeds
    p_up, p_down = within, within
    for shift in (1, 2, 4, 8):
        up = up | (p_up & (up << shift))
        p_up = p_up & (p_up << shift)
        down = down | (p_down & (down >> shift))
        p_down = p_down & (p_down >> shift)
    return up | down


@dataclass
class _Candidates:
    """Flat table of C knocker arrangements within the knock limit.

    Attributes:
        row: int64[C], the knock (hand index) of each candidate.
        set_cards: int64[C, 4], suit masks of the knocker's set cards.
        run_cards: int64[C, 4], the knocker's run masks M_s.
        deadwood: int64[C], the knocker's deadwood K.
    """

    row: np.ndarray
    set_cards: np.ndarray
    run_cards: np.ndarray
    deadwood: np.ndarray


def _knocker_candidates(knocker: np.ndarray, limit: np.ndarray) -> _Candidates:
    """Enumerate every knocker arrangement with deadwood <= its row's limit.

    Args:
        knocker: bool[M, 52].
        limit: int64[M], the deadwood allowed per row (0 for big gin).

    Returns:
        The candidates, one block per set scenario and run-mask choice.
    """
    total = knocker.astype(np.int64) @ CARD_VALUE
    rows, set_cards, set_value, remaining = [], [], [], []
    for sc in set_scenarios(knocker):
        g, pick = np.nonzero(sc.valid)
        rows.append(sc.rows[g])
        set_cards.append(sc.removed[g, pick])
        set_value.append(sc.set_value[g, pick])
        remaining.append(sc.remaining[g, pick])
    row = np.concatenate(rows)
    sets = np.concatenate(set_cards)
    rest = np.concatenate(remaining)
    # lowest deadwood of each scenario, all remaining stretches melded whole
    base = total[row] - np.concatenate(set_value) - RUN_VALUE[rest].sum(axis=1)
    keep = base <= limit[row]
    row, sets, rest = row[keep], sets[keep], rest[keep]
    budget = limit[row] - base[keep]
    runs = np.zeros_like(rest)
    for s in range(N_SUITS):
        suit = rest[:, s]
        counts = np.searchsorted(_OPT_KEY, suit * _DROP_SPAN + budget, side="right")
        counts -= _OPT_START[suit]
        parent, offset = _ragged_expand(counts)
        option = _OPT_START[suit[parent]] + offset
        row, sets, rest, runs = row[parent], sets[parent], rest[parent], runs[parent]
        runs[:, s] = _OPT_RUN[option]
        budget = budget[parent] - _OPT_DROP[option]
    return _Candidates(row, sets, runs, limit[row] - budget)


@dataclass
class _DefenderScenarios:
    """The defender's own set scenarios, flat and grouped by hand.

    Attributes:
        first: int64[M], index of each hand's first scenario.
        count: int64[M], number of valid scenarios of each hand (>= 1).
        set_cards: int64[Q, 4], suit masks of the defender's set cards.
        set_value: int64[Q], their value.
        remaining: int64[Q, 4], the defender's suit masks left for runs and layoffs.
    """

    first: np.ndarray
    count: np.ndarray
    set_cards: np.ndarray
    set_value: np.ndarray
    remaining: np.ndarray


def _defender_scenarios(defender: np.ndarray) -> _DefenderScenarios:
    """Flatten the valid set scenarios of each defender hand, grouped by hand."""
    rows, set_cards, set_value, remaining = [], [], [], []
    for sc in set_scenarios(defender):
        g, pick = np.nonzero(sc.valid)
        rows.append(sc.rows[g])
        set_cards.append(sc.removed[g, pick])
        set_value.append(sc.set_value[g, pick])
        remaining.append(sc.remaining[g, pick])
    row = np.concatenate(rows)
    order = np.argsort(row, kind="stable")
    count = np.bincount(row, minlength=defender.shape[0])
    return _DefenderScenarios(
        first=np.cumsum(count) - count,
        count=count,
        set_cards=np.concatenate(set_cards)[order],
        set_value=np.concatenate(set_value)[order],
        remaining=np.concatenate(remaining)[order],
    )


def _knocker_score(
    k: np.ndarray, d: np.ndarray, is_gin: np.ndarray, is_big_gin: np.ndarray, rules: HandRules
) -> np.ndarray:
    """The knocker's signed score: positive when it wins, minus the defender's points.

    ``rules`` holds one row per candidate (the rules of its game).
    """
    return np.select(
        [is_big_gin, is_gin, k < d],
        [d + rules.big_gin_bonus, d + rules.gin_bonus, d - k],
        -(rules.undercut_bonus + k - d),
    )


def _unpack(masks: np.ndarray) -> np.ndarray:
    """int64[M, 4] suit masks -> bool[M, 52]."""
    bits = (masks[:, :, None] >> _RANK_BITS) & 1
    return bits.reshape(masks.shape[0], N_CARDS).astype(bool)


def _check_batch(
    knocker: np.ndarray,
    defender: np.ndarray,
    rules: RulesConfig | HandRules,
    big_gin: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, HandRules]:
    """Validate a batch of knocks; return ``(knocker, defender, big_gin, rules)`` as arrays."""
    knocker = np.asarray(knocker, dtype=bool)
    defender = np.asarray(defender, dtype=bool)
    if knocker.ndim != 2 or knocker.shape[1] != N_CARDS or defender.shape != knocker.shape:
        raise ValueError(
            f"knocker and defender must both be bool[M, 52], got {knocker.shape} and "
            f"{defender.shape}"
        )
    m = knocker.shape[0]
    big = np.zeros(m, dtype=bool) if big_gin is None else np.asarray(big_gin, dtype=bool)
    if big.shape != (m,):
        raise ValueError(f"big_gin must be bool[{m}], got shape {big.shape}")
    if isinstance(rules, RulesConfig):
        rules = HandRules.of(rules, np.zeros(m, np.int64))
    elif rules.knock_limit.shape != (m,):
        raise ValueError(f"per-game rules must have {m} rows, got {rules.knock_limit.shape}")
    if (big & ~rules.big_gin).any():
        raise ValueError("big_gin knocks need the big_gin_bonus option (it is off)")
    overlap = np.flatnonzero((knocker & defender).any(axis=1))
    if overlap.size:
        raise ValueError(f"knocker and defender share cards in rows {overlap[:10].tolist()}")
    bad = np.flatnonzero(knocker.sum(axis=1) != np.where(big, 11, 10))
    if bad.size:
        raise ValueError(
            f"knocker hands must hold 10 cards (11 for big gin); rows {bad[:10].tolist()} do not"
        )
    bad = np.flatnonzero(defender.sum(axis=1) != 10)
    if bad.size:
        raise ValueError(f"defender hands must hold 10 cards; rows {bad[:10].tolist()} do not")
    return knocker, defender, big, rules


@dataclass
class _Answers:
    """The defender's best answer to each of C knocker candidates.

    Attributes:
        deadwood: int64[C], the defender's least deadwood D against the candidate.
        set_cards: int64[C, 4], the defender's own set cards in that answer.
        run_cards: int64[C, 4], the defender's own run cards (stretches of 3+) in it.
        layoffs: int64[C, 4], the defender's cards laid off on the knocker's melds.
    """

    deadwood: np.ndarray
    set_cards: np.ndarray
    run_cards: np.ndarray
    layoffs: np.ndarray


def _defender_answers(cand: _Candidates, defender: np.ndarray, no_layoff: np.ndarray) -> _Answers:
    """The defender's best answer (own melds and layoffs) to every knocker candidate.

    Args:
        cand: C knocker candidates.
        defender: bool[M, 52].
        no_layoff: bool[C], candidates the defender may not lay off on (gin, big gin).

    Returns:
        Per candidate, the least defender deadwood over the defender's set scenarios and
        the first scenario reaching it.
    """
    dsc = _defender_scenarios(defender)
    # every (candidate, defender set scenario) pair; the pairs of a candidate are contiguous
    n_pairs = dsc.count[cand.row]
    pair_cand, offset = _ragged_expand(n_pairs)
    pair_row = cand.row[pair_cand]
    scen = dsc.first[pair_row] + offset
    blocked = no_layoff[pair_cand, None]
    anchors = np.where(blocked, 0, cand.run_cards[pair_cand])  # int64[P, 4]
    knocker_sets = cand.set_cards[pair_cand]
    set_ranks = np.bitwise_or.reduce(knocker_sets, axis=1, keepdims=True)
    # the fourth card of a knocker three-card set, when the defender holds it
    fourth = np.where(blocked, 0, set_ranks & ~knocker_sets & suit_masks(defender)[pair_row])
    rest = dsc.remaining[scen]
    own_runs = RUN_COVER[rest]
    melded = ((own_runs | _flood(anchors, rest | anchors)) & rest) | fourth
    total = defender.astype(np.int64) @ CARD_VALUE
    pair_deadwood = total[pair_row] - dsc.set_value[scen] - MASK_VALUE[melded].sum(axis=1)
    # first pair of each candidate reaching the candidate's minimum
    deadwood = np.minimum.reduceat(pair_deadwood, np.cumsum(n_pairs) - n_pairs)
    best = np.flatnonzero(pair_deadwood == deadwood[pair_cand])
    best = best[_first_of_groups(pair_cand[best])]
    return _Answers(
        deadwood=deadwood,
        set_cards=dsc.set_cards[scen[best]],
        run_cards=own_runs[best],
        layoffs=melded[best] & ~own_runs[best],
    )


def _first_of_groups(keys: np.ndarray) -> np.ndarray:
    """bool[N]: true at the first element of each run of equal consecutive keys."""
    first = np.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return first


def _best_candidates(row: np.ndarray, score: np.ndarray, deadwood: np.ndarray) -> np.ndarray:
    """int64[M]: per row, the candidate with the highest score, then the lowest deadwood."""
    order = np.lexsort((deadwood, -score, row))
    return order[_first_of_groups(row[order])]


def resolve_knocks(
    knocker: np.ndarray,
    defender: np.ndarray,
    rules: RulesConfig | HandRules,
    big_gin: np.ndarray | None = None,
) -> KnockOutcome:
    """Resolve M knocks at once: arrangements, layoffs, scores (docs/rules.md §3 "Knocking").

    Args:
        knocker: bool[M, 52], the knocker's 10 cards after its knock discard, or its 11
            cards where ``big_gin`` is true.
        defender: bool[M, 52], the defender's 10 cards.
        rules: the rules options (knock_limit, gin_bonus, undercut_bonus, big_gin_bonus):
            one ``RulesConfig`` for every knock, or ``HandRules`` with one row per knock.
        big_gin: bool[M] or None; true for a big-gin knock (all 11 cards meld, no
            discard), which needs the big-gin option in that row's rules.

    Returns:
        The outcome of each knock.

    Raises:
        ValueError: on wrong shapes or card counts, overlapping hands, or a hand that
            cannot knock (no arrangement within the knock limit; for big gin, 11 cards
            that do not all meld).
    """
    knocker, defender, big, per_game = _check_batch(knocker, defender, rules, big_gin)
    m = knocker.shape[0]
    if m == 0:
        return _empty_outcome()
    limit = np.where(big, 0, per_game.knock_limit).astype(np.int64)
    cand = _knocker_candidates(knocker, limit)
    cannot_knock = np.bincount(cand.row, minlength=m) == 0
    if cannot_knock.any():
        rows = np.flatnonzero(cannot_knock)[:10]
        raise ValueError(
            f"rows {rows.tolist()} cannot knock: min deadwood "
            f"{min_deadwood(knocker[rows]).tolist()} > limit {limit[rows].tolist()}"
        )

    no_layoff = cand.deadwood == 0  # gin or big gin
    answers = _defender_answers(cand, defender, no_layoff)
    cand_big = big[cand.row]
    score = _knocker_score(
        cand.deadwood, answers.deadwood, no_layoff & ~cand_big, cand_big, per_game.rows(cand.row)
    )
    best = _best_candidates(cand.row, score, cand.deadwood)  # one per row, in row order

    k = cand.deadwood[best]
    d = answers.deadwood[best]
    is_gin = (k == 0) & ~big
    knocker_wins = big | is_gin | (k < d)
    return KnockOutcome(
        knocker_deadwood=k,
        defender_deadwood=d,
        knocker_wins=knocker_wins,
        points=np.abs(score[best]),
        gin=is_gin,
        big_gin=big.copy(),
        undercut=~knocker_wins,
        layoffs=_unpack(answers.layoffs[best]),
        knocker_set_cards=cand.set_cards[best],
        knocker_run_cards=cand.run_cards[best],
        defender_set_cards=answers.set_cards[best],
        defender_run_cards=answers.run_cards[best],
    )


def _empty_outcome() -> KnockOutcome:
    """The outcome of a batch of zero knocks (every field with a leading axis of 0)."""
    ints, flags, masks = np.zeros(0, np.int64), np.zeros(0, bool), np.zeros((0, N_SUITS), np.int64)
    return KnockOutcome(
        knocker_deadwood=ints,
        defender_deadwood=ints.copy(),
        knocker_wins=flags,
        points=ints.copy(),
        gin=flags.copy(),
        big_gin=flags.copy(),
        undercut=flags.copy(),
        layoffs=np.zeros((0, N_CARDS), bool),
        knocker_set_cards=masks,
        knocker_run_cards=masks.copy(),
        defender_set_cards=masks.copy(),
        defender_run_cards=masks.copy(),
    )


def _as_hand(hand: np.ndarray | str, who: str) -> np.ndarray:
    """A card string or bool[52] mask -> bool[52]."""
    if isinstance(hand, str):
        return parse_cards(hand)
    mask = np.asarray(hand, dtype=bool)
    if mask.shape != (N_CARDS,):
        raise ValueError(f"the {who} hand must be a bool[52] mask or a card string")
    return mask


def score_knock(
    knocker_hand_after_discard: np.ndarray | str,
    defender_hand: np.ndarray | str,
    rules: RulesConfig | None = None,
) -> KnockResult:
    """Resolve one knock (a batch of one for ``resolve_knocks``).

    Args:
        knocker_hand_after_discard: the knocker's 10 cards after its discard, as a
            bool[52] mask or a card string (``"AC 2C 3C ..."``); 11 cards for big gin
            when ``rules.big_gin_bonus`` is set.
        defender_hand: the defender's 10 cards.
        rules: the rules options; defaults to ``RulesConfig()``.

    Returns:
        The result, with melds, deadwood cards and layoffs as card ids.

    Raises:
        ValueError: if the hands overlap, have the wrong number of cards, or the
            knocker cannot knock.
    """
    rules = RulesConfig() if rules is None else rules
    knocker = _as_hand(knocker_hand_after_discard, "knocker")
    defender = _as_hand(defender_hand, "defender")
    shared = np.flatnonzero(knocker & defender)
    if shared.size:
        names = " ".join(card_text(c) for c in shared)
        raise ValueError(f"the knocker and the defender both hold {names}")
    n_knocker, n_defender = int(knocker.sum()), int(defender.sum())
    big = n_knocker == 11 and rules.big_gin_bonus is not None
    if n_knocker != 10 and not big:
        extra = " (11 only for big gin, with the big_gin_bonus option)" if n_knocker == 11 else ""
        raise ValueError(f"the knocker must hold 10 cards after discarding{extra}, got {n_knocker}")
    if n_defender != 10:
        raise ValueError(f"the defender must hold 10 cards, got {n_defender}")
    dead = int(min_deadwood(knocker))
    if big and dead > 0:
        raise ValueError(
            f"the knocker cannot go big gin: its 11 cards leave min deadwood {dead} "
            "(all 11 must meld)"
        )
    if dead > rules.knock_limit:
        raise ValueError(
            f"the knocker cannot knock: min deadwood {dead} exceeds the knock limit "
            f"{rules.knock_limit}"
        )

    out = resolve_knocks(knocker[None], defender[None], rules, np.array([big]))
    laid_off = out.layoffs[0]
    knocker_melds, knocker_dead = arrangement_melds(
        knocker, out.knocker_set_cards[0], out.knocker_run_cards[0]
    )
    defender_melds, defender_dead = arrangement_melds(
        defender, out.defender_set_cards[0], out.defender_run_cards[0]
    )
    return KnockResult(
        knocker_deadwood=int(out.knocker_deadwood[0]),
        defender_deadwood=int(out.defender_deadwood[0]),
        winner="knocker" if out.knocker_wins[0] else "defender",
        points=int(out.points[0]),
        gin=bool(out.gin[0]),
        undercut=bool(out.undercut[0]),
        big_gin=bool(out.big_gin[0]),
        layoffs=[int(c) for c in np.flatnonzero(laid_off)],
        knocker_melds=knocker_melds,
        knocker_deadwood_cards=knocker_dead,
        defender_melds=defender_melds,
        defender_deadwood_cards=[c for c in defender_dead if not laid_off[c]],
    )

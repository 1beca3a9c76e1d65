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
    N_CARDS,
    N_RANKS,
    N_SUITS,
    card_text,
    parse_cards,
)
from hgin_env.engine.config import HandRules, RulesConfig
from hgin_env.engine.jit import kernel
from hgin_env.engine.melds import (
    MASK_VALUE,
    RUN_COVER,
    RUN_VALUE,
    arrangement_melds,
    hand_suit_masks,
    min_deadwood,
    next_scenario,
    scenario_at,
    scratch,
    set_ranks,
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
        ``(start, key, run_mask, drop)``: int64[8193] index of a mask's first option
        (mask m's options are ``start[m]:start[m + 1]``);
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
    start = np.searchsorted(key[order], np.arange(_N_MASKS + 1) * _DROP_SPAN)
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


@kernel
def _flood(seeds: int, within: int) -> int:
    """Cards of ``within`` connected to ``seeds`` through consecutive ranks.

    An occluded fill in log steps (Kogge-Stone), upwards then downwards; it gives the
    same result as repeating ``reach = (reach | reach << 1 | reach >> 1) & within``
    until stable.

    Args:
        seeds: a 13-bit mask, a subset of ``within``.
        within: a 13-bit mask.

    Returns:
        The cards of ``within`` in a stretch that holds a seed.
    """
    up, down = seeds, seeds
    p_up, p_down = within, within
    for shift in (1, 2, 4, 8):
        up = up | (p_up & (up << shift))
        p_up = p_up & (p_up << shift)
        down = down | (p_down & (down >> shift))
        p_down = p_down & (p_down >> shift)
    return up | down


@kernel
def _defender_scenarios(
    dmask: np.ndarray,
    sets: np.ndarray,
    values: np.ndarray,
    rests: np.ndarray,
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> int:
    """Fill ``sets``/``values``/``rests`` with the defender's set scenarios, in order; count."""
    _, ranks, suits, n_opt, idx, removed = work
    k = set_ranks(dmask, ranks, suits, n_opt)
    idx[:k] = 0
    q = 0
    while True:
        values[q] = scenario_at(dmask, k, ranks, suits, idx, sets[q], rests[q])
        q += 1
        if not next_scenario(idx, n_opt, k):
            break
    return q


@kernel
def _defender_deadwood(
    q_count: int,
    dtotal: int,
    dvalues: np.ndarray,
    drests: np.ndarray,
    dmask: np.ndarray,
    blocked: bool,
    ksets: np.ndarray,
    kruns: np.ndarray,
) -> tuple[int, int]:
    """The defender's least deadwood against one knocker arrangement, and its scenario.

    Per scenario the defender melds its own runs, the cards joined to the knocker's run
    masks through consecutive ranks, and the fourth card of a knocker three-card set
    (none of these against gin: ``blocked``). The first scenario reaching the least wins.
    """
    set_rank_mask = ksets[0] | ksets[1] | ksets[2] | ksets[3]
    best, best_q = 1 << 30, -1
    for q in range(q_count):
        dead = dtotal - dvalues[q]
        for s in range(N_SUITS):
            rest = drests[q, s]
            own = RUN_COVER[rest]
            if blocked:
                melded = own
            else:
                anchors = kruns[s]
                fourth = set_rank_mask & ~ksets[s] & dmask[s]
                melded = ((own | _flood(anchors, rest | anchors)) & rest) | fourth
            dead -= MASK_VALUE[melded]
        if dead < best:
            best, best_q = dead, q
    return best, best_q


@kernel
def knock_row(
    knocker: np.ndarray,
    defender: np.ndarray,
    limit: int,
    big: bool,
    gin_bonus: int,
    undercut_bonus: int,
    big_gin_bonus: int,
    out: np.ndarray,
    out_masks: np.ndarray,
    layoffs: np.ndarray,
) -> bool:
    """Resolve one knock (module docstring); false when the knocker cannot knock.

    Args:
        knocker: bool[52], 10 cards (11 for big gin).
        defender: bool[52], 10 cards.
        limit: the deadwood allowed (0 for big gin).
        big: a big-gin knock.
        gin_bonus: the hand's gin bonus.
        undercut_bonus: the hand's undercut bonus.
        big_gin_bonus: the hand's big-gin bonus.
        out: int64[4] written: knocker deadwood, defender deadwood, signed knocker score,
            knocker wins (0/1).
        out_masks: int64[4, 4] written: knocker sets, knocker runs, defender sets,
            defender runs (suit masks).
        layoffs: bool[52] written: the defender's cards laid off.
    """
    work = scratch()
    kmask = np.zeros(N_SUITS, np.int64)
    ktotal = hand_suit_masks(knocker, kmask)
    dmask = np.zeros(N_SUITS, np.int64)
    dtotal = hand_suit_masks(defender, dmask)
    # the defender's set scenarios (at most 6**3 for 10 cards)
    n_d = 1
    _, ranks, suits, n_opt, idx, removed = work
    for j in range(set_ranks(dmask, ranks, suits, n_opt)):
        n_d *= n_opt[j]
    dsets = np.zeros((n_d, N_SUITS), np.int64)
    dvalues = np.zeros(n_d, np.int64)
    drests = np.zeros((n_d, N_SUITS), np.int64)
    q_count = _defender_scenarios(dmask, dsets, dvalues, drests, work)
    gin_dead, gin_q = -1, -1  # the defender's answer to gin, computed once

    # the knocker's arrangements: set scenarios, then per suit a run-mask option
    k = set_ranks(kmask, ranks, suits, n_opt)
    idx[:k] = 0
    rest = np.zeros(N_SUITS, np.int64)
    runs = np.zeros(N_SUITS, np.int64)
    found = False
    best_score, best_k, best_q = 0, 0, -1
    best_sets = np.zeros(N_SUITS, np.int64)
    best_runs = np.zeros(N_SUITS, np.int64)
    while True:
        set_value = scenario_at(kmask, k, ranks, suits, idx, removed, rest)
        base = ktotal - set_value
        for s in range(N_SUITS):
            base -= RUN_VALUE[rest[s]]
        if base <= limit:
            b0 = limit - base
            for o0 in range(_OPT_START[rest[0]], _OPT_START[rest[0] + 1]):
                if _OPT_DROP[o0] > b0:
                    break
                b1 = b0 - _OPT_DROP[o0]
                for o1 in range(_OPT_START[rest[1]], _OPT_START[rest[1] + 1]):
                    if _OPT_DROP[o1] > b1:
                        break
                    b2 = b1 - _OPT_DROP[o1]
                    for o2 in range(_OPT_START[rest[2]], _OPT_START[rest[2] + 1]):
                        if _OPT_DROP[o2] > b2:
                            break
                        b3 = b2 - _OPT_DROP[o2]
                        for o3 in range(_OPT_START[rest[3]], _OPT_START[rest[3] + 1]):
                            if _OPT_DROP[o3] > b3:
                                break
                            kd = limit - (b3 - _OPT_DROP[o3])
                            runs[0], runs[1] = _OPT_RUN[o0], _OPT_RUN[o1]
                            runs[2], runs[3] = _OPT_RUN[o2], _OPT_RUN[o3]
                            blocked = kd == 0
                            if blocked and gin_q >= 0:
                                dd, q = gin_dead, gin_q
                            else:
                                dd, q = _defender_deadwood(
                                    q_count, dtotal, dvalues, drests, dmask, blocked, removed, runs
                                )
                                if blocked:
                                    gin_dead, gin_q = dd, q
                            if big:
                                score = dd + big_gin_bonus
                            elif blocked:
                                score = dd + gin_bonus
                            elif kd < dd:
                                score = dd - kd
                            else:
                                score = -(undercut_bonus + kd - dd)
                            if (
                                not found
                                or score > best_score
                                or (score == best_score and kd < best_k)
                            ):
                                found = True
                                best_score, best_k, best_q = score, kd, q
                                best_sets[:] = removed
                                best_runs[:] = runs
        if not next_scenario(idx, n_opt, k):
            break
    if not found:
        return False
    # the chosen answer again, for its melds and layoffs
    blocked = best_k == 0
    set_rank_mask = best_sets[0] | best_sets[1] | best_sets[2] | best_sets[3]
    dd = dtotal - dvalues[best_q]
    for s in range(N_SUITS):
        drest = drests[best_q, s]
        own = RUN_COVER[drest]
        if blocked:
            melded = own
        else:
            fourth = set_rank_mask & ~best_sets[s] & dmask[s]
            melded = ((own | _flood(best_runs[s], drest | best_runs[s])) & drest) | fourth
        dd -= MASK_VALUE[melded]
        laid = melded & ~own
        for r in range(N_RANKS):
            layoffs[s * N_RANKS + r] = (laid >> r) & 1
        out_masks[0, s] = best_sets[s]
        out_masks[1, s] = best_runs[s]
        out_masks[2, s] = dsets[best_q, s]
        out_masks[3, s] = own
    out[0] = best_k
    out[1] = dd
    out[2] = best_score
    out[3] = 1 if (big or blocked or best_k < dd) else 0
    return True


@kernel
def _knock_rows(
    knocker: np.ndarray,
    defender: np.ndarray,
    limit: np.ndarray,
    big: np.ndarray,
    gin_bonus: np.ndarray,
    undercut_bonus: np.ndarray,
    big_gin_bonus: np.ndarray,
    out: np.ndarray,
    out_masks: np.ndarray,
    layoffs: np.ndarray,
    ok: np.ndarray,
) -> None:
    """``knock_row`` over a batch of M knocks."""
    for i in range(knocker.shape[0]):
        ok[i] = knock_row(
            knocker[i], defender[i], limit[i], big[i], gin_bonus[i], undercut_bonus[i],
            big_gin_bonus[i], out[i], out_masks[i], layoffs[i],
        )  # fmt: skip


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
    out = np.zeros((m, 4), np.int64)
    masks = np.zeros((m, 4, N_SUITS), np.int64)
    layoffs = np.zeros((m, N_CARDS), bool)
    ok = np.zeros(m, bool)
    _knock_rows(
        np.ascontiguousarray(knocker), np.ascontiguousarray(defender), limit, big,
        per_game.gin_bonus.astype(np.int64), per_game.undercut_bonus.astype(np.int64),
        per_game.big_gin_bonus.astype(np.int64), out, masks, layoffs, ok,
    )  # fmt: skip
    if not ok.all():
        rows = np.flatnonzero(~ok)[:10]
        raise ValueError(
            f"rows {rows.tolist()} cannot knock: min deadwood "
            f"{min_deadwood(knocker[rows]).tolist()} > limit {limit[rows].tolist()}"
        )
    k, d, score = out[:, 0], out[:, 1], out[:, 2]
    knocker_wins = out[:, 3].astype(bool)
    return KnockOutcome(
        knocker_deadwood=k.copy(),
        defender_deadwood=d.copy(),
        knocker_wins=knocker_wins,
        points=np.abs(score),
        gin=(k == 0) & ~big,
        big_gin=big.copy(),
        undercut=~knocker_wins,
        layoffs=layoffs,
        knocker_set_cards=masks[:, 0].copy(),
        knocker_run_cards=masks[:, 1].copy(),
        defender_set_cards=masks[:, 2].copy(),
        defender_run_cards=masks[:, 3].copy(),
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

"""Knock resolution (docs/rules.md §3 "Knocking", "Scoring one hand"): scenarios, properties."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import reference_knock as ref
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hgin_env.engine.cards import (
    CARD_VALUE,
    N_CARDS,
    N_RANKS,
    format_cards,
    parse_card_list,
    parse_cards,
)
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.knock import (
    _OPT_RUN,
    _OPT_START,
    KnockResult,
    _flood,
    _stretches,
    resolve_knocks,
    score_knock,
)
from hgin_env.engine.melds import RUN_COVER, min_deadwood

DEFAULT = RulesConfig()


def cards(text: str) -> set[int]:
    """Card ids of a card string, as a set."""
    return set(parse_card_list(text))


def assert_matches_reference(result: KnockResult, knocker: str, defender: str, rules: RulesConfig):
    """Assert that ``score_knock``'s numbers agree with the brute-force reference."""
    expected = ref.resolve(
        parse_card_list(knocker),
        parse_card_list(defender),
        rules.knock_limit,
        rules.gin_bonus,
        rules.undercut_bonus,
        rules.big_gin_bonus,
    )
    got = (
        result.knocker_deadwood,
        result.defender_deadwood,
        result.points,
        result.winner,
        result.gin,
        result.undercut,
        result.big_gin,
    )
    assert got == (
        expected.knocker_deadwood,
        expected.defender_deadwood,
        expected.points,
        expected.winner,
        expected.gin,
        expected.undercut,
        expected.big_gin,
    )


def assert_consistent(result: KnockResult, knocker: set[int], defender: set[int]):
    """Assert the melds, deadwood cards and legal layoffs partition both hands and add up."""
    k_melded = [c for m in result.knocker_melds for c in m]
    assert sorted(k_melded + result.knocker_deadwood_cards) == sorted(knocker)
    assert sum(int(CARD_VALUE[c]) for c in result.knocker_deadwood_cards) == (
        result.knocker_deadwood
    )
    d_melded = [c for m in result.defender_melds for c in m]
    parts = d_melded + result.defender_deadwood_cards + result.layoffs
    assert sorted(parts) == sorted(defender)
    assert sum(int(CARD_VALUE[c]) for c in result.defender_deadwood_cards) == (
        result.defender_deadwood
    )
    for meld in result.knocker_melds + result.defender_melds:
        assert frozenset(meld) in ref.all_melds(meld)
    knocker_melds = [frozenset(m) for m in result.knocker_melds]
    assert frozenset(result.layoffs) in ref.reachable_layoffs(knocker_melds, frozenset(defender))


# --- scenario tables ----------------------------------------------------------------------

GIN_CASES = [
    pytest.param(
        # 4C 5C extend AC-2C-3C, 4C is the set's fourth card, 6D and JD touch the diamond run:
        # against gin none of them may be laid off, so D = 4+5+10+6+2+3+9+9+10+10 = 68.
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TD",
        "4C 5C JD 6D 2H 3H 9S 9H KS QH",
        DEFAULT,
        68,
        68 + 25,
        id="gin-default-bonus-no-layoffs",
    ),
]


@pytest.mark.parametrize(("knocker", "defender", "rules", "d", "points"), GIN_CASES)
def test_gin_scores_deadwood_plus_bonus_without_layoffs(knocker, defender, rules, d, points):
    """Gin scores D + gin_bonus, and the defender may not lay off against gin."""
    result = score_knock(knocker, defender, rules)
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == (0, d, points)
    assert result.gin and not result.undercut and result.winner == "knocker"
    assert result.layoffs == []
    assert cards("4C 5C 6D JD") <= set(result.defender_deadwood_cards)
    assert_matches_reference(result, knocker, defender, rules)
    assert_consistent(result, cards(knocker), cards(defender))


@pytest.mark.parametrize(
    ("gin_bonus", "points"), [pytest.param(20, 88, id="bonus-20"), pytest.param(0, 68, id="0")]
)
def test_gin_bonus_option(gin_bonus, points):
    """The gin_bonus option sets the bonus added to the defender's deadwood."""
    rules = RulesConfig(gin_bonus=gin_bonus)
    result = score_knock("AC 2C 3C 4D 4H 4S 7D 8D 9D TD", "4C 5C JD 6D 2H 3H 9S 9H KS QH", rules)
    assert result.gin and result.points == points and result.winner == "knocker"


def test_gin_against_zero_deadwood_still_scores_for_knocker():
    """Gin against a defender with deadwood 0 is not an undercut: the knocker scores the bonus."""
    result = score_knock("AC 2C 3C 4D 4H 4S 7D 8D 9D TD", "5C 6C 7C JD QD KD 9S 9H 9C 5H")
    assert result.defender_deadwood == 5
    result = score_knock("AC 2C 3C 4D 4H 4S 7D 8D 9D TD", "5C 6C 7C JD QD KD 9S 9H 9C 8C")
    assert (result.defender_deadwood, result.points, result.winner) == (0, 25, "knocker")
    assert result.gin and not result.undercut


KNOCK_WIN_CASES = [
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D 5S",
        "KS KH QD QH JS JC 9C 8H 2H TS",
        DEFAULT,
        (5, 89, 84),
        id="k5-d89-no-layoffs",
    ),
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D 5S",
        "KS KH QD QH JS JC 9C 8H 2H TS",
        RulesConfig(undercut_bonus=30, gin_bonus=5),
        (5, 89, 84),
        id="bonuses-do-not-change-a-knock",
    ),
]


@pytest.mark.parametrize(("knocker", "defender", "rules", "expected"), KNOCK_WIN_CASES)
def test_knock_win_scores_difference(knocker, defender, rules, expected):
    """A knock with K < D (not gin) scores D - K for the knocker."""
    result = score_knock(knocker, defender, rules)
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == expected
    assert result.winner == "knocker" and not result.gin and not result.undercut
    assert_matches_reference(result, knocker, defender, rules)
    assert_consistent(result, cards(knocker), cards(defender))


UNDERCUT_CASES = [
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TS",
        "5S 6S 7S 8S KH KD KC 2H 3H 3D",
        DEFAULT,
        (10, 8, 12),
        id="k10-d8-bonus10",
    ),
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TS",
        "5S 6S 7S 8S KH KD KC 2H 3H 5D",
        DEFAULT,
        (10, 10, 10),
        id="k-equals-d-is-undercut",
    ),
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TS",
        "5S 6S 7S 8S KH KD KC 2H 3H 3D",
        RulesConfig(undercut_bonus=25),
        (10, 8, 27),
        id="undercut-bonus-option-25",
    ),
    pytest.param(
        # the defender lays off 6D and TD (16) to get under the knocker: D = 2+3+3 = 8
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TS",
        "5S 6S 7S 8S 9S 6D TD 2H 3H 3D",
        DEFAULT,
        (10, 8, 12),
        id="undercut-after-layoffs",
    ),
]


@pytest.mark.parametrize(("knocker", "defender", "rules", "expected"), UNDERCUT_CASES)
def test_undercut_scores_bonus_plus_difference(knocker, defender, rules, expected):
    """K >= D (not gin) is an undercut: the defender scores undercut_bonus + K - D."""
    result = score_knock(knocker, defender, rules)
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == expected
    assert result.winner == "defender" and result.undercut and not result.gin
    assert_matches_reference(result, knocker, defender, rules)
    assert_consistent(result, cards(knocker), cards(defender))


LAYOFF_CASES = [
    pytest.param(
        "8D 8H 8S AC 2C 3C JH QH KH 4S",
        "8C KS KD QC QD 5H 6D 2S 7S 3H",
        (4, 71 - 8),
        "8C",
        id="fourth-card-of-set",
    ),
    pytest.param(
        "5H 6H 7H KC KD KS AC 2D 3S 4C",
        "8H 9H 4H QC QD JS 7C 6D 2S TD",
        (10, 76 - 21),
        "8H 9H 4H",
        id="chain-8H-9H-high-and-4H-low",
    ),
    pytest.param(
        "5H 6H 7H KC KD KS AC 2D 3S 4C",
        "8H 9H 4H 3H QC QD JS 7C 6D 2S",
        (10, 69 - 24),
        "8H 9H 4H 3H",
        id="two-card-chains-at-both-ends",
    ),
    pytest.param(
        # 8H is both the fourth 8 and the next card of the heart run: on the run it lets 9H
        # follow
        "5H 6H 7H 8C 8D 8S AC 2D 3S 4C",
        "8H 9H KC KD QS JS 9C TD 2H 6S",
        (10, 84 - 17),
        "8H 9H",
        id="fourth-card-bridges-a-chain",
    ),
]


@pytest.mark.parametrize(("knocker", "defender", "kd", "laid"), LAYOFF_CASES)
def test_layoffs_on_sets_and_chained_along_runs(knocker, defender, kd, laid):
    """The defender lays off a set's fourth card and chains cards along runs at both ends."""
    result = score_knock(knocker, defender)
    assert (result.knocker_deadwood, result.defender_deadwood) == kd
    assert set(result.layoffs) == cards(laid)
    assert_matches_reference(result, knocker, defender, DEFAULT)
    assert_consistent(result, cards(knocker), cards(defender))


def test_layoff_of_fourth_card_of_three_card_set():
    """The fourth card of a knocker's three-card set is laid off."""
    result = score_knock("8D 8H 8S AC 2C 3C JH QH KH 4S", "8C KS KD QC QD 5H 6D 2S 7S 3H")
    assert result.layoffs == parse_card_list("8C")
    assert (result.defender_deadwood, result.points) == (63, 59)


def test_layoffs_chained_along_run_at_both_ends():
    """8H then 9H go onto 5H-6H-7H at the high end and 4H at the low end."""
    result = score_knock("5H 6H 7H KC KD KS AC 2D 3S 4C", "8H 9H 4H QC QD JS 7C 6D 2S TD")
    assert set(result.layoffs) == cards("4H 8H 9H")
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == (10, 55, 45)


@pytest.mark.parametrize(
    ("knocker", "defender", "expected"),
    [
        pytest.param(
            # 8H belongs to the knocker's set 8C-8D-8H, so 9H and TH cannot follow 7H
            "5H 6H 7H 8C 8D 8H AS 2S 3S 4D",
            "9H TH JS KC KD QS QD 6C 7C 2D",
            (4, 84, 80),
            id="run-end-held-in-knocker-set",
        ),
        pytest.param(
            # the ace is low: nothing goes below AC-2C-3C, and QH-KH cannot wrap to AH
            "AC 2C 3C JH QH KH 5D 5S 5C 4D",
            "AH 2H KC KD KS TC 9C 8S 7S 2D",
            (4, 69 - 30, 35),
            id="ace-low-no-wrap",
        ),
    ],
)
def test_no_layoff_on_blocked_run_end(knocker, defender, expected):
    """No layoff beyond a run end whose next card the knocker holds (or past ace/king)."""
    result = score_knock(knocker, defender)
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == expected
    assert result.layoffs == []
    assert_matches_reference(result, knocker, defender, DEFAULT)


@pytest.mark.parametrize(
    ("knocker", "defender", "d", "kept"),
    [
        pytest.param(
            # 8H is the fourth 8 but also the middle of the defender's 7H-8H-9H
            "8C 8D 8S AC 2C 3C JS QS KS 4D",
            "7H 8H 9H KC KD QD QH 2D 5S 6S",
            53,
            "7H 8H 9H",
            id="middle-of-own-run",
        ),
        pytest.param(
            # 8H would extend 5H-6H-7H but completes the defender's set of 8s
            "5H 6H 7H KC KD KS AC 2D 3S 4C",
            "8C 8D 8H QC QD JS 7C 6D 2S TD",
            10 + 10 + 10 + 7 + 6 + 2 + 10,
            "8C 8D 8H",
            id="completes-own-set",
        ),
    ],
)
def test_defender_keeps_card_for_own_meld(knocker, defender, d, kept):
    """The defender keeps a layable card in its own meld when that leaves less deadwood."""
    result = score_knock(knocker, defender)
    assert result.defender_deadwood == d
    assert sorted(parse_card_list(kept)) in [sorted(m) for m in result.defender_melds]
    assert not set(result.layoffs) & cards(kept)
    assert_matches_reference(result, knocker, defender, DEFAULT)
    assert_consistent(result, cards(knocker), cards(defender))


def test_knocker_never_lays_off_on_defender():
    """The knocker's 5S stays deadwood although it would extend the defender's 6S-7S-8S."""
    result = score_knock("AC 2C 3C 4D 4H 4S 7D 8D 9D 5S", "6S 7S 8S KC KD QD QH JC 2H 3H")
    assert result.knocker_deadwood_cards == parse_card_list("5S")
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == (5, 55, 50)


ARRANGEMENT_CASES = [
    pytest.param(
        # min deadwood melds 3H-6H (K=4) and lets 7H, 8H go on (D=69): score 65;
        # keeping 6H as deadwood blocks the chain: K=10, D=84, score 74
        "3H 4H 5H 6H KC KD KS AC AD 2S",
        "7H 8H QC QD JS JC 9S 9C 5D 6C",
        DEFAULT,
        (10, 84, 74),
        "6H AC AD 2S",
        id="block-two-card-chain-with-run-end",
    ),
    pytest.param(
        # melding AH-2H-3H (K=2) lets 4H, 5H go on (D=62): 60; not melding it: 71-8 = 63
        "AH 2H 3H KC KD KS QC QD QS 2C",
        "4H 5H JC JD TS 9S 7C 6D 8D 2S",
        DEFAULT,
        (8, 71, 63),
        "AH 2H 3H 2C",
        id="leave-three-card-run-unmelded",
    ),
    pytest.param(
        # 7C-7D-7H + 7S-8S-9S (K=1) lets 5S, 6S, TS, JS go on (D=45): 44; the quad takes no
        # layoff (K=18, D=76): 58. Needs knock_limit 20.
        "7C 7D 7H 7S 8S 9S AD 2D 3D AC",
        "TS JS 6S 5S KC KD QH QC 2H 3H",
        RulesConfig(knock_limit=20),
        (18, 76, 58),
        "8S 9S AC",
        id="quad-instead-of-set-and-run",
    ),
]


@pytest.mark.parametrize(("knocker", "defender", "rules", "expected", "dead"), ARRANGEMENT_CASES)
def test_knocker_arrangement_chosen_for_best_score(knocker, defender, rules, expected, dead):
    """Decision (knocker's arrangement): the best for its score, not its least deadwood."""
    result = score_knock(knocker, defender, rules)
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == expected
    assert set(result.knocker_deadwood_cards) == cards(dead)
    assert result.knocker_deadwood > int(min_deadwood(parse_cards(knocker)))
    assert result.layoffs == []
    assert_matches_reference(result, knocker, defender, rules)
    assert_consistent(result, cards(knocker), cards(defender))


def test_tie_broken_by_lower_knocker_deadwood():
    """Decision (knocker's arrangement): equal scores (block 3H, or not) keep the lower K."""
    knocker = "3H 4H 5H 6H KC KD KS 2C 2S AD"
    defender = "2H AH QC QD JS JC 9S 9C 5D 8D"
    result = score_knock(knocker, defender)
    # full run: K = 5, D = 74 - 3 = 71, score 66; blocking with 3H: K = 8, D = 74, score 66
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == (5, 71, 66)
    assert set(result.layoffs) == cards("2H AH")


BIG_GIN = RulesConfig(big_gin_bonus=31)


def test_big_gin_with_resolve_knocks():
    """Big gin (option set): 11 melded cards score D + big_gin_bonus, with no layoffs."""
    knocker = parse_cards("AC 2C 3C 4D 4H 4S 7D 8D 9D TD JD")
    defender = parse_cards("4C 5C QD 6D 2H 3H 9S 9H KS QH")
    plain_knocker = parse_cards("AC 2C 3C 4D 4H 4S 7D 8D 9D TD")
    plain_defender = parse_cards("4C 5C QD 6D 2H 3H 9S 9H KS 5S")
    out = resolve_knocks(
        np.stack([knocker, plain_knocker]),
        np.stack([defender, plain_defender]),
        BIG_GIN,
        big_gin=np.array([True, False]),
    )
    d = 4 + 5 + 10 + 6 + 2 + 3 + 9 + 9 + 10 + 10
    assert out.big_gin.tolist() == [True, False]
    assert out.gin.tolist() == [False, True]
    assert out.points.tolist() == [d + 31, d - 10 + 5 + 25]
    assert out.knocker_wins.all() and not out.undercut.any() and not out.layoffs.any()
    expected = ref.resolve(np.flatnonzero(knocker), np.flatnonzero(defender), big_gin_bonus=31)
    assert (expected.points, expected.big_gin) == (d + 31, True)


def test_big_gin_with_score_knock():
    """score_knock treats an 11-card knocker hand as big gin when the option is set."""
    result = score_knock(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TD JD", "4C 5C QD 6D 2H 3H 9S 9H KS QH", BIG_GIN
    )
    assert result.big_gin and not result.gin and result.winner == "knocker"
    assert (result.knocker_deadwood, result.defender_deadwood, result.points) == (0, 68, 99)
    assert result.layoffs == []


ERROR_CASES = [
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D KS QS",
        "5C 6C 7C JD QD KD 9S 9H 9C 5H",
        DEFAULT,
        r"cannot knock: min deadwood 35 exceeds the knock limit 10",
        id="cannot-knock",
    ),
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TD",
        "AC 5C 7C JD QD KD 9S 9H 9C 4D",
        DEFAULT,
        r"both hold AC 4D",
        id="overlap",
    ),
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D",
        "5C 6C 7C JD QD KD 9S 9H 9C 5H",
        DEFAULT,
        r"knocker must hold 10 cards.*got 9",
        id="knocker-9-cards",
    ),
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TD JD",
        "5C 6C 7C QH QD KD 9S 9H 9C 5H",
        DEFAULT,
        r"knocker must hold 10 cards.*big_gin_bonus.*got 11",
        id="knocker-11-cards-without-big-gin",
    ),
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TD 2S",
        "5C 6C 7C JD QD KD 9S 9H 9C 5H",
        BIG_GIN,
        r"cannot go big gin: .* min deadwood 2",
        id="big-gin-not-all-melded",
    ),
    pytest.param(
        "AC 2C 3C 4D 4H 4S 7D 8D 9D TD",
        "5C 6C 7C JD QD KD 9S 9H 9C",
        DEFAULT,
        r"defender must hold 10 cards, got 9",
        id="defender-9-cards",
    ),
]


@pytest.mark.parametrize(("knocker", "defender", "rules", "message"), ERROR_CASES)
def test_score_knock_rejects_bad_knocks(knocker, defender, rules, message):
    """A hand that cannot knock, overlapping hands, and wrong sizes raise clear errors."""
    with pytest.raises(ValueError, match=message):
        score_knock(knocker, defender, rules)


def test_resolve_knocks_rejects_bad_batches():
    """resolve_knocks names the rows that cannot knock or break the card counts."""
    good_k = parse_cards("AC 2C 3C 4D 4H 4S 7D 8D 9D TD")
    good_d = parse_cards("5C 6C 7C JD QD KD 9S 9H 9C 5H")
    bad_k = parse_cards("AC 2C 3C 4D 4H 4S 7D 8D KS QS")
    with pytest.raises(ValueError, match=r"rows \[1\] cannot knock: min deadwood \[35\]"):
        resolve_knocks(np.stack([good_k, bad_k]), np.stack([good_d, good_d]), DEFAULT)
    with pytest.raises(ValueError, match=r"share cards in rows \[0\]"):
        resolve_knocks(good_k[None], good_k[None], DEFAULT)
    with pytest.raises(ValueError, match="big_gin_bonus"):
        resolve_knocks(good_k[None], good_d[None], DEFAULT, big_gin=np.array([True]))
    with pytest.raises(ValueError, match=r"defender hands must hold 10 cards; rows \[0\]"):
        resolve_knocks(good_k[None], (good_d & ~parse_cards("5H"))[None], DEFAULT)


# --- tables and helpers ---------------------------------------------------------------------


def test_run_option_table_sizes():
    """Each suit mask has one run option per product of (none or 3+ sub-interval) per stretch."""
    assert _OPT_START.shape == ((1 << N_RANKS) + 1,)
    assert _OPT_START[-1] == _OPT_RUN.size
    for mask in range(1 << N_RANKS):
        expected = 1
        for lo, hi in _stretches(mask):
            length = hi - lo + 1
            expected *= 1 + (length - 1) * (length - 2) // 2
        assert _OPT_START[mask + 1] - _OPT_START[mask] == expected
    assert _OPT_START[(1 << N_RANKS) - 1] == _OPT_RUN.size - 67
    assert np.all(RUN_COVER[_OPT_RUN] == _OPT_RUN)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, (1 << N_RANKS) - 1), st.integers(0, (1 << N_RANKS) - 1))
def test_flood_matches_iterative_fill(within, seeds):
    """The log-step flood equals repeating reach = (reach | reach<<1 | reach>>1) & within."""
    seeds &= within
    reach = seeds
    for _ in range(N_RANKS):
        reach = (reach | (reach << 1) | (reach >> 1)) & within
    assert int(_flood(np.int64(seeds), np.int64(within))) == reach


# --- properties against the brute-force reference ----------------------------------------------


@cache
def _melds_in(deck: tuple[int, ...]) -> list[frozenset[int]]:
    return [m for m in ref.all_melds(deck) if len(m) <= 5]


@st.composite
def knock_pairs(draw, limit: int = 10):
    """A knock-capable knocker hand and a defender hand (dense decks make layoffs frequent)."""
    dense = draw(st.booleans())
    if dense:
        few_suits = draw(st.booleans())
        width = 8 if few_suits else draw(st.integers(6, 7))
        low = draw(st.integers(0, N_RANKS - width))
        suits = (
            draw(st.sets(st.integers(0, 3), min_size=3, max_size=3)) if few_suits else {0, 1, 2, 3}
        )
        deck = tuple(s * N_RANKS + r for s in sorted(suits) for r in range(low, low + width))
    else:
        deck = tuple(range(N_CARDS))
    melds = _melds_in(deck)
    hand: set[int] = set()
    for meld in draw(st.lists(st.sampled_from(melds), min_size=1, max_size=3)):
        if not meld & hand and len(hand | meld) <= 10:
            hand |= meld
    pool = sorted(c for c in deck if c not in hand)
    low_pool = [c for c in pool if CARD_VALUE[c] <= 4] if not dense else pool
    need = 10 - len(hand)
    assume(len(low_pool) >= need)
    fill = draw(st.lists(st.sampled_from(low_pool), min_size=need, max_size=need, unique=True))
    hand |= set(fill)
    mask = np.zeros(N_CARDS, dtype=bool)
    mask[sorted(hand)] = True
    assume(int(min_deadwood(mask)) <= limit)
    rest = draw(st.permutations([c for c in deck if c not in hand]))
    defender = list(rest[:10])
    if len(defender) < 10:
        others = [c for c in range(N_CARDS) if c not in hand and c not in defender]
        defender += draw(st.permutations(others))[: 10 - len(defender)]
    return sorted(hand), sorted(int(c) for c in defender)


def _masks(pairs: list[tuple[list[int], list[int]]]) -> tuple[np.ndarray, np.ndarray]:
    knocker = np.zeros((len(pairs), N_CARDS), dtype=bool)
    defender = np.zeros((len(pairs), N_CARDS), dtype=bool)
    for i, (k, d) in enumerate(pairs):
        knocker[i, k] = True
        defender[i, d] = True
    return knocker, defender


def random_knock_pair(rng: np.random.Generator, limit: int) -> tuple[list[int], list[int]]:
    """A random knock-capable pair built from 1-4 melds plus low cards; half on dense decks."""
    while True:
        deck = _random_deck(rng)
        melds = _melds_in(deck)
        hand: set[int] = set()
        for _ in range(rng.integers(1, 5)):
            meld = melds[rng.integers(len(melds))]
            if not meld & hand and len(hand | meld) <= 10:
                hand |= meld
        pool = [c for c in deck if c not in hand]
        low_pool = [c for c in pool if CARD_VALUE[c] <= 4]
        if len(deck) == N_CARDS and len(low_pool) >= 10 - len(hand) and rng.random() < 0.7:
            pool = low_pool
        if len(pool) < 10 - len(hand):
            continue
        hand |= {int(c) for c in rng.choice(pool, 10 - len(hand), replace=False)}
        mask = np.zeros(N_CARDS, dtype=bool)
        mask[sorted(hand)] = True
        if int(min_deadwood(mask)) <= limit:
            break
    rest = [c for c in deck if c not in hand]
    others = [c for c in range(N_CARDS) if c not in hand and c not in deck]
    defender = list(rng.permutation(rest))[:10]
    defender += list(rng.permutation(others))[: 10 - len(defender)]
    return sorted(hand), sorted(int(c) for c in defender)


def _random_deck(rng: np.random.Generator) -> tuple[int, ...]:
    """The full deck, or a dense one: 6-7 ranks of 4 suits, or 8 ranks of 3 suits."""
    if rng.random() < 0.5:
        return tuple(range(N_CARDS))
    if rng.random() < 0.5:
        width, suits = int(rng.integers(6, 8)), list(range(4))
    else:
        width, suits = 8, sorted(int(s) for s in rng.choice(4, 3, replace=False))
    low = int(rng.integers(0, N_RANKS - width + 1))
    return tuple(int(s) * N_RANKS + r for s in suits for r in range(low, low + width))


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([10, 0, 5, 25]),
    st.sampled_from([0, 20, 25]),
    st.sampled_from([0, 10, 25]),
)
def test_resolve_knocks_matches_brute_force(seed, limit, gin_bonus, undercut_bonus):
    """Batched resolve_knocks agrees with the brute force on random knock-capable pairs."""
    rules = RulesConfig(knock_limit=limit, gin_bonus=gin_bonus, undercut_bonus=undercut_bonus)
    rng = np.random.default_rng(seed)
    pairs = [random_knock_pair(rng, limit) for _ in range(12)]
    knocker, defender = _masks(pairs)
    out = resolve_knocks(knocker, defender, rules)
    for i, (k, d) in enumerate(pairs):
        exp = ref.resolve(k, d, limit, gin_bonus, undercut_bonus)
        got = (
            int(out.knocker_deadwood[i]),
            int(out.defender_deadwood[i]),
            int(out.points[i]),
            "knocker" if out.knocker_wins[i] else "defender",
            bool(out.gin[i]),
            bool(out.undercut[i]),
        )
        want = (
            exp.knocker_deadwood,
            exp.defender_deadwood,
            exp.points,
            exp.winner,
            exp.gin,
            exp.undercut,
        )
        assert got == want, (k, d)
        assert not (out.layoffs[i] & ~defender[i]).any()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knock_pairs())
def test_score_knock_matches_brute_force(pair):
    """score_knock agrees with the brute force, and its melds and layoffs add up."""
    k, d = pair
    knocker_mask, defender_mask = _masks([pair])
    knocker, defender = format_cards(knocker_mask[0]), format_cards(defender_mask[0])
    result = score_knock(knocker, defender)
    assert_matches_reference(result, knocker, defender, DEFAULT)
    assert_consistent(result, set(k), set(d))


@st.composite
def big_gin_pairs(draw):
    """An 11-card knocker hand made of disjoint melds, and a defender hand."""
    sizes = draw(st.sampled_from([(3, 4, 4), (3, 3, 5), (5, 6), (3, 8), (4, 7)]))
    by_size = _melds_by_size()
    hand: set[int] = set()
    for size in sizes:
        meld = draw(st.sampled_from(by_size[size]))
        assume(not meld & hand)
        hand |= meld
    rest = draw(st.permutations([c for c in range(N_CARDS) if c not in hand]))
    return sorted(hand), sorted(rest[:10])


@cache
def _melds_by_size() -> dict[int, list[frozenset[int]]]:
    melds = ref.all_melds(range(N_CARDS))
    return {n: [m for m in melds if len(m) == n] for n in range(3, 9)}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(big_gin_pairs(), min_size=1, max_size=4))
def test_big_gin_matches_brute_force(pairs):
    """Big-gin knocks score the defender's plain deadwood plus the big gin bonus."""
    knocker, defender = _masks(pairs)
    out = resolve_knocks(knocker, defender, BIG_GIN, big_gin=np.ones(len(pairs), dtype=bool))
    for i, (k, d) in enumerate(pairs):
        exp = ref.resolve(k, d, big_gin_bonus=BIG_GIN.big_gin_bonus)
        assert int(out.points[i]) == exp.points
        assert int(out.defender_deadwood[i]) == exp.defender_deadwood
    assert out.big_gin.all() and out.knocker_wins.all() and not out.layoffs.any()


def test_batch_equals_single_knocks():
    """resolve_knocks on a batch gives the same numbers as score_knock one by one."""
    cases = [p.values[:2] for p in UNDERCUT_CASES + LAYOFF_CASES + ARRANGEMENT_CASES[:2]]
    knocker = np.stack([parse_cards(k) for k, _ in cases])
    defender = np.stack([parse_cards(d) for _, d in cases])
    out = resolve_knocks(knocker, defender, DEFAULT)
    for i, (k, d) in enumerate(cases):
        single = score_knock(k, d)
        assert int(out.knocker_deadwood[i]) == single.knocker_deadwood
        assert int(out.defender_deadwood[i]) == single.defender_deadwood
        assert int(out.points[i]) == single.points
        assert sorted(np.flatnonzero(out.layoffs[i]).tolist()) == single.layoffs


def test_empty_batch():
    """A batch of zero knocks resolves to empty arrays."""
    empty = np.zeros((0, N_CARDS), dtype=bool)
    out = resolve_knocks(empty, empty, DEFAULT)
    assert out.points.shape == (0,) and out.layoffs.shape == (0, N_CARDS)
    assert out.knocker_set_cards.shape == (0, 4)

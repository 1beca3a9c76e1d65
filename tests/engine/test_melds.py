"""Melds, deadwood and the knock mask (docs/rules.md §1, §2 and the §5 checklist).

Scenario tables use card strings; property tests compare the vectorized engine with
the brute-force reference in ``tests/engine/reference_melds.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import reference_melds as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from hgin_env.engine import melds
from hgin_env.engine.cards import (
    CARD_VALUE,
    N_CARDS,
    card_id,
    format_cards,
    parse_card_list,
    parse_cards,
)
from hgin_env.engine.melds import (
    DISCARD_LOSS,
    MASK_VALUE,
    NO_DEADWOOD,
    RUN_COVER,
    RUN_VALUE,
    SET_OPTION_VALID,
    SET_OPTIONS,
    best_melds,
    deadwood_after_discard,
    knock_discards,
    meld_with,
    min_deadwood,
)


def bits(*ranks: int) -> int:
    """Return the 13-bit suit mask holding the given ranks (0 = ace ... 12 = king)."""
    return sum(1 << r for r in ranks)


def case(case_id: str, *values):
    """Return a ``pytest.param`` with the given id."""
    return pytest.param(*values, id=case_id)


# --- scenario tables: (hand, minimum deadwood) ----------------------------------------------

ACE_LOW_CASES = [
    case("A23_is_a_run", "AC 2C 3C 4D 4H 4S 7D 8D 9D KS", 10),
    case("A234_run_11_cards", "AH 2H 3H 4H 9C 9D 9S JC QC KC 5S", 5),
    case("JQK_is_a_run", "JS QS KS 2C 2D 2H 4H 5H 6H 9C", 9),
    case("QKA_is_not_a_run", "QH KH AH 2S 3S 4S 5D 6D 7D 8D", 21),
    case("KA2_does_not_wrap", "KC AC 2C 5D 6D 7D 9H 9S 9D 3H", 16),
    case("QKA2_does_not_wrap_11", "QD KD AD 2D 3C 4C 5C 6C 7S 8S 9S", 23),
    case("two_A23_runs_beat_ace_set", "AC AD AH AS 2C 3C 2D 3D 5S 6S", 13),
]

FOUR_OF_A_KIND_CASES = [
    case("set_777_plus_run_567S", "7C 7D 7H 7S 5S 6S AC 2C 3C 9D", 9),
    case("set_777_plus_run_567S_11", "7C 7D 7H 7S 5S 6S AC 2C 3C 9D KD", 19),
    case("pick_the_triple_without_7C", "7C 7D 7H 7S 5S 6S 8C 9C AD AH", 13),
    case("quad_split_into_three_runs", "7C 7D 7H 7S 5S 6S 8C 9C 5D 6D", 7),
    case("quad_whole_when_no_run", "7C 7D 7H 7S 2S 4S 9C JC KD AH", 36),
]

OVERLAP_CASES = [
    case("longest_run_first_is_wrong", "5C 5D 5H 6H 7H 8H 9H TH TC TD", 0),
    case("quad_first_is_wrong", "3C 4C 5C 5D 5H 5S 6D 7D KH KS", 27),
    case("run_3456_gives_6H_to_set", "3H 4H 5H 6H 6C 6D 9S 9C 9D KC", 10),
    case("two_sets_beat_one_run", "8C 9C TC 8D 8H 9D 9H 2S 3S 4S", 10),
]

THREE_RANKS_CASES = [
    case("three_triples_as_runs", "AC AD AH 2C 2D 2H 3C 3D 3H 4C", 0),
    case("three_triples_as_runs_11", "9C 9D 9H TC TD TH JC JD JH QC KC", 0),
    case("runs_beat_sets_11", "5C 5D 5H 6C 6D 6H 7C 7D 7S 8S 9S", 11),
    case("sets_tie_runs_11", "4C 4D 4H 6C 6D 6S 8C 8D 8S 5S 7S", 12),
    case("quad_and_two_triples", "4C 4D 4H 4S 8C 8D 8S 5S 6S 7S", 0),
]

GIN_CASES = [
    case("runs_and_set", "AC 2C 3C 4C 5D 5H 5S 9H TH JH", 0),
    case("eleven_cards", "AC 2C 3C 4C 5C 6D 6H 6S 9H TH JH", 0),
    case("ten_card_run", "AS 2S 3S 4S 5S 6S 7S 8S 9S TS", 0),
    case("sets_only", "KC KD KH KS QC QD QH JC JD JH", 0),
]

ALL_DEADWOOD_CASES = [
    case("pairs_of_tens_max_98", "KC KD QH QS JC JD TH TS 9C 9D", 98),
    case("no_two_alike", "AC 3C 5C 7D 9D JH KH 2S 4S 6S", 57),
    case("two_card_runs_only", "AC 2C 4C 5C 7D 8D TD JD KH KS", 67),
    case("gapped_suit_11", "AH 2H 4H 5H 7H 8H TH JH KS QC 9D", 76),
    case("pairs_11", "KC KD QH QS JC JD TH TS 9C 9D 8H", 106),
]

ALL_CASES = (
    ACE_LOW_CASES
    + FOUR_OF_A_KIND_CASES
    + OVERLAP_CASES
    + THREE_RANKS_CASES
    + GIN_CASES
    + ALL_DEADWOOD_CASES
)


def check_min_deadwood(hand: str, expected: int) -> None:
    """Assert the engine's minimum deadwood of ``hand`` (10 or 11 cards) is ``expected``."""
    assert len(parse_card_list(hand)) in (10, 11)
    got = min_deadwood(parse_cards(hand))
    assert got.shape == ()
    assert int(got) == expected


@pytest.mark.parametrize(("hand", "expected"), ACE_LOW_CASES)
def test_min_deadwood_ace_low_runs(hand, expected):
    """Ace is low: A-2-3 is a run, Q-K-A is not, and K-A-2 does not wrap around."""
    check_min_deadwood(hand, expected)


@pytest.mark.parametrize(("hand", "expected"), FOUR_OF_A_KIND_CASES)
def test_min_deadwood_four_of_a_kind_split(hand, expected):
    """A four of a kind may be split between a set and runs when that lowers deadwood."""
    check_min_deadwood(hand, expected)


@pytest.mark.parametrize(("hand", "expected"), OVERLAP_CASES)
def test_min_deadwood_overlapping_melds_greedy_wrong(hand, expected):
    """Overlapping candidate melds are resolved optimally where a greedy choice fails."""
    check_min_deadwood(hand, expected)


@pytest.mark.parametrize(("hand", "expected"), THREE_RANKS_CASES)
def test_min_deadwood_three_ranks_of_three_or_more(hand, expected):
    """Hands with three ranks holding 3+ cards (216 set scenarios) get the minimum."""
    check_min_deadwood(hand, expected)


@pytest.mark.parametrize(("hand", "expected"), GIN_CASES)
def test_min_deadwood_gin_hands(hand, expected):
    """Fully melded 10- and 11-card hands have deadwood 0."""
    check_min_deadwood(hand, expected)


@pytest.mark.parametrize(("hand", "expected"), ALL_DEADWOOD_CASES)
def test_min_deadwood_all_deadwood_hands(hand, expected):
    """Hands without any meld have deadwood equal to the sum of their card values."""
    check_min_deadwood(hand, expected)
    assert expected == CARD_VALUE[parse_card_list(hand)].sum()


def test_min_deadwood_table_in_one_batch():
    """All table hands evaluated in one batched call (mixed set-scenario groups) match."""
    hands = np.stack([parse_cards(p.values[0]) for p in ALL_CASES])
    expected = [p.values[1] for p in ALL_CASES]
    assert min_deadwood(hands).tolist() == expected


@pytest.mark.parametrize(("hand", "expected"), ALL_CASES)
def test_reference_agrees_with_tables(hand, expected):
    """The brute-force reference gives the hand-computed table values too."""
    assert ref.min_deadwood(parse_card_list(hand)) == expected


@pytest.mark.parametrize(
    ("cards", "is_meld"),
    [
        case("A23", "AS 2S 3S", True),
        case("JQK", "JS QS KS", True),
        case("QKA", "QS KS AS", False),
        case("KA2", "KS AS 2S", False),
        case("mixed_suits", "AS 2S 3C", False),
        case("gap", "AS 2S 4S", False),
        case("triple", "7C 7D 7S", True),
        case("quad", "7C 7D 7H 7S", True),
        case("pair", "7C 7D", False),
    ],
)
def test_reference_is_meld(cards, is_meld):
    """The reference's meld predicate follows docs/rules.md §2 (ace low, no wrap)."""
    assert ref.is_meld(parse_card_list(cards)) is is_meld


# --- deadwood after discard and the knock mask -----------------------------------------------

KNOCK_CASES = [
    case("two_safe_discards", "AC 2C 3C 4D 4H 4S 7D 8D 9D KS QS", 10, "QS KS"),
    case("limit_9_none", "AC 2C 3C 4D 4H 4S 7D 8D 9D KS QS", 9, ""),
    case("limit_0_needs_gin_none", "AC 2C 3C 4D 4H 4S 7D 8D 9D KS QS", 0, ""),
    case("limit_10_three_discards", "AC 2C 3C 4C 5D 5H 5S 9H TH JH KS", 10, "AC 4C KS"),
    case("limit_0_gin_only", "AC 2C 3C 4C 5D 5H 5S 9H TH JH KS", 0, "KS"),
    case("eleven_melded_limit_0", "AC 2C 3C 4C 5C 6D 6H 6S 9H TH JH", 0, "AC 5C"),
    case("eleven_melded_limit_1", "AC 2C 3C 4C 5C 6D 6H 6S 9H TH JH", 1, "AC 2C 5C"),
    case("eleven_melded_limit_10", "AC 2C 3C 4C 5C 6D 6H 6S 9H TH JH", 10, "AC 2C 4C 5C"),
    case("quad_split_knock", "7C 7D 7H 7S 5S 6S AC 2C 3C 9D KD", 10, "9D KD"),
    case("nothing_knockable", "KC KD QH QS JC JD TH TS 9C 9D 8H", 10, ""),
    case(
        "limit_100_every_held_card",
        "KC KD QH QS JC JD TH TS 9C 9D 8H",
        100,
        "9C JC KC 9D JD KD 8H TH QH TS QS",
    ),
]


@pytest.mark.parametrize(("hand", "limit", "expected"), KNOCK_CASES)
def test_knock_mask_hand_picked(hand, limit, expected):
    """knock_discards marks exactly the held cards whose discard leaves deadwood <= limit."""
    mask = knock_discards(parse_cards(hand), knock_limit=limit)
    assert mask.shape == (52,)
    assert mask.dtype == bool
    assert format_cards(mask) == format_cards(parse_cards(expected))


@pytest.mark.parametrize(("hand", "limit", "expected"), KNOCK_CASES)
def test_knock_mask_reference_agrees(hand, limit, expected):
    """The brute-force reference gives the same hand-picked knock discards."""
    assert ref.knock_discards(parse_card_list(hand), limit) == set(parse_card_list(expected))


def test_knock_mask_default_limit_is_10():
    """knock_discards without a limit uses the default knock_limit of 10 (docs/rules.md §3)."""
    hand = parse_cards("AC 2C 3C 4C 5D 5H 5S 9H TH JH KS")
    assert np.array_equal(knock_discards(hand), knock_discards(hand, knock_limit=10))
    assert format_cards(knock_discards(hand)) == "AC 4C KS"


def test_deadwood_after_discard_spot_values():
    """deadwood_after_discard gives each held card's leftover deadwood, by hand computation."""
    hand = "AC 2C 3C 4C 5D 5H 5S 9H TH JH KS"
    expected = {
        "AC": 10,  # 2C 3C 4C still a run, KS left
        "2C": 18,  # AC 3C 4C KS
        "3C": 17,  # AC 2C 4C KS
        "4C": 10,
        "5D": 20,  # 5H 5S KS
        "5H": 20,
        "5S": 20,
        "9H": 30,  # TH JH KS
        "TH": 29,
        "JH": 29,
        "KS": 0,  # gin
    }
    out = deadwood_after_discard(parse_cards(hand))
    assert out.shape == (52,)
    assert {text: int(out[card_id(text)]) for text in expected} == expected


def test_deadwood_after_discard_no_deadwood_for_cards_not_held():
    """Cards not in the hand get NO_DEADWOOD (above any real deadwood) and never a knock."""
    hand = parse_cards("KC KD QH QS JC JD TH TS 9C 9D 8H")
    out = deadwood_after_discard(hand)
    assert (out[~hand] == NO_DEADWOOD).all()
    assert (out[hand] < NO_DEADWOOD).all()
    assert NO_DEADWOOD > 13 * 4 * 10
    assert not knock_discards(hand, knock_limit=100)[~hand].any()


# --- best_melds ------------------------------------------------------------------------


def check_arrangement(hand_ids: list[int], melds: list[list[int]], deadwood: list[int]) -> None:
    """Assert ``(melds, deadwood)`` is a valid disjoint arrangement of the hand at min deadwood."""
    melded = [c for m in melds for c in m]
    assert len(melded) == len(set(melded)), "melds overlap"
    assert all(ref.is_meld(m) for m in melds), f"not a meld in {melds}"
    assert all(m == sorted(m) for m in melds)
    assert sorted(melded + deadwood) == sorted(hand_ids)
    assert sum(CARD_VALUE[c] for c in deadwood) == ref.min_deadwood(hand_ids)


def ids_to_mask(ids: list[int]) -> np.ndarray:
    """Return the bool[52] mask of a list of card ids."""
    mask = np.zeros(52, dtype=bool)
    mask[ids] = True
    return mask


@pytest.mark.parametrize(("hand", "expected"), ALL_CASES)
def test_best_melds_valid_on_tables(hand, expected):
    """best_melds returns disjoint valid melds whose leftover deadwood is min_deadwood."""
    hand_ids = parse_card_list(hand)
    melds, deadwood = best_melds(parse_cards(hand))
    check_arrangement(hand_ids, melds, deadwood)
    assert sum(CARD_VALUE[c] for c in deadwood) == expected == int(min_deadwood(parse_cards(hand)))


def test_best_melds_quad_split_exact():
    """best_melds splits 7C 7D 7H 7S with 5S 6S into set 7C7D7H and run 5S6S7S, sets first."""
    melds, deadwood = best_melds(parse_cards("7C 7D 7H 7S 5S 6S AC 2C 3C 9D"))
    assert [format_cards(ids_to_mask(m)) for m in melds] == ["7C 7D 7H", "AC 2C 3C", "5S 6S 7S"]
    assert format_cards(ids_to_mask(deadwood)) == "9D"


# --- lookup tables ---------------------------------------------------------------------


def test_lookup_table_sizes():
    """Tables built at import have the documented shapes and dtypes."""
    for table in (RUN_COVER, MASK_VALUE, RUN_VALUE):
        assert table.shape == (8192,)
        assert table.dtype == np.int64
    assert DISCARD_LOSS.shape == (8192, 13)
    assert SET_OPTIONS.shape == (16, 6)
    assert SET_OPTION_VALID.shape == (16, 6)
    assert SET_OPTION_VALID.dtype == bool


@pytest.mark.parametrize(
    ("mask", "cover", "value"),
    [
        case("empty", 0, 0, 0),
        case("A23", bits(0, 1, 2), bits(0, 1, 2), 6),
        case("A2_4_gap", bits(0, 1, 3), 0, 0),
        case("A234", bits(0, 1, 2, 3), bits(0, 1, 2, 3), 10),
        case("JQK", bits(10, 11, 12), bits(10, 11, 12), 30),
        case("QKA_no_wrap", bits(0, 11, 12), 0, 0),
        case("KA2_no_wrap", bits(0, 1, 12), 0, 0),
        case("two_runs", bits(0, 1, 2, 4, 5, 6), bits(0, 1, 2, 4, 5, 6), 6 + 18),
        case("run_plus_stray", bits(2, 3, 4, 8), bits(2, 3, 4), 12),
        case("full_suit", 8191, 8191, 85),
    ],
)
def test_run_cover_and_value_spot(mask, cover, value):
    """RUN_COVER keeps cards in stretches of 3+ ranks (ace low, no wrap); RUN_VALUE sums them."""
    assert RUN_COVER[mask] == cover
    assert RUN_VALUE[mask] == value


def test_mask_value_spot():
    """MASK_VALUE sums rank values: ace 1, king 10, full suit 85."""
    assert MASK_VALUE[0] == 0
    assert MASK_VALUE[bits(0)] == 1
    assert MASK_VALUE[bits(9)] == 10
    assert MASK_VALUE[bits(12)] == 10
    assert MASK_VALUE[bits(0, 4, 12)] == 16
    assert MASK_VALUE[8191] == 85


@pytest.mark.parametrize(
    ("mask", "rank", "loss"),
    [
        case("A234_minus_A", bits(0, 1, 2, 3), 0, 1),  # 2-3-4 remains
        case("A234_minus_2", bits(0, 1, 2, 3), 1, 10),  # nothing remains
        case("A2345_minus_3", bits(0, 1, 2, 3, 4), 2, 15),
        case("A23_rank_not_held", bits(0, 1, 2), 5, 0),
        case("stray_card", bits(2, 3, 4, 8), 8, 0),
        case("full_minus_7", 8191, 6, 7),  # A-6 and 8-K stay runs
    ],
)
def test_discard_loss_spot(mask, rank, loss):
    """DISCARD_LOSS[m, r] is the run value lost from suit mask m when rank r leaves it."""
    assert DISCARD_LOSS[mask, rank] == loss


def test_set_options_spot():
    """SET_OPTIONS: option 0 is no set; a triple has one option; a quad four triples + quad."""
    assert SET_OPTION_VALID[:, 0].all()
    assert (SET_OPTIONS[:, 0] == 0).all()
    for suits in range(16):
        count = bin(suits).count("1")
        n_options = {3: 2, 4: 6}.get(count, 1)
        assert SET_OPTION_VALID[suits].sum() == n_options
    assert SET_OPTIONS[0b0111, 1] == 0b0111
    assert sorted(SET_OPTIONS[0b1111, 1:].tolist()) == [0b0111, 0b1011, 0b1101, 0b1110, 0b1111]


# --- batch shapes ----------------------------------------------------------------------


def test_batch_shape_2x3():
    """A bool[2, 3, 52] batch gives [2, 3] / [2, 3, 52] results equal to per-hand calls."""
    rng = np.random.default_rng(7)
    hands = np.zeros((2, 3, 52), dtype=bool)
    for i in range(2):
        for j in range(3):
            hands[i, j, rng.choice(52, size=10 + (i + j) % 2, replace=False)] = True
    md = min_deadwood(hands)
    dad = deadwood_after_discard(hands)
    kd = knock_discards(hands, knock_limit=30)
    assert md.shape == (2, 3)
    assert dad.shape == (2, 3, 52)
    assert kd.shape == (2, 3, 52)
    for i in range(2):
        for j in range(3):
            assert md[i, j] == min_deadwood(hands[i, j])
            assert np.array_equal(dad[i, j], deadwood_after_discard(hands[i, j]))
            assert np.array_equal(kd[i, j], knock_discards(hands[i, j], knock_limit=30))


def test_empty_batch_and_empty_hand():
    """An empty batch gives empty results and an empty hand has deadwood 0."""
    assert min_deadwood(np.zeros((0, 52), dtype=bool)).shape == (0,)
    assert deadwood_after_discard(np.zeros((0, 52), dtype=bool)).shape == (0, 52)
    assert int(min_deadwood(np.zeros(52, dtype=bool))) == 0


def test_wrong_last_axis_rejected():
    """Hands whose last axis is not 52 raise ValueError."""
    with pytest.raises(ValueError, match="52"):
        min_deadwood(np.zeros((3, 51), dtype=bool))
    with pytest.raises(ValueError, match="52"):
        deadwood_after_discard(np.zeros(13, dtype=bool))


# --- property tests against the brute-force reference ------------------------------------


@st.composite
def uniform_hand(draw, sizes=(10, 11)):
    """A hand of 10 or 11 distinct cards drawn from the whole deck."""
    size = draw(st.sampled_from(sizes))
    return sorted(draw(st.lists(st.integers(0, 51), min_size=size, max_size=size, unique=True)))


@st.composite
def dense_hand(draw, sizes=(10, 11)):
    """A hand drawn mostly from a few consecutive ranks in a few suits, so melds overlap."""
    size = draw(st.sampled_from(sizes))
    width = draw(st.integers(3, 6))
    low = draw(st.integers(0, 13 - width))
    suits = draw(st.sets(st.integers(0, 3), min_size=2, max_size=4))
    pool = [s * 13 + r for s in sorted(suits) for r in range(low, low + width)]
    if len(pool) >= size:
        return sorted(
            draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True))
        )
    rest = [c for c in range(52) if c not in pool]
    n = size - len(pool)
    return sorted(pool + draw(st.lists(st.sampled_from(rest), min_size=n, max_size=n, unique=True)))


any_hand = st.one_of(uniform_hand(), dense_hand())


def to_masks(hands: list[list[int]]) -> np.ndarray:
    """Stack card-id lists into a bool[N, 52] batch."""
    out = np.zeros((len(hands), 52), dtype=bool)
    for i, h in enumerate(hands):
        out[i, h] = True
    return out


@settings(deadline=None, max_examples=200)
@given(st.lists(uniform_hand(), min_size=1, max_size=20))
def test_min_deadwood_matches_brute_force_uniform(hands):
    """Batched min_deadwood equals the brute force on uniformly drawn 10/11-card hands."""
    got = min_deadwood(to_masks(hands))
    assert got.tolist() == [ref.min_deadwood(h) for h in hands]


@settings(deadline=None, max_examples=300)
@given(st.lists(dense_hand(), min_size=1, max_size=20))
def test_min_deadwood_matches_brute_force_dense(hands):
    """Batched min_deadwood equals the brute force on dense hands (overlapping sets and runs)."""
    got = min_deadwood(to_masks(hands))
    assert got.tolist() == [ref.min_deadwood(h) for h in hands]


def check_after_discard(hands: list[list[int]], limit: int) -> None:
    """Assert batched deadwood_after_discard and knock_discards equal the brute force."""
    masks = to_masks(hands)
    after = deadwood_after_discard(masks)
    knock = knock_discards(masks, knock_limit=limit)
    for i, hand in enumerate(hands):
        expected = np.full(52, NO_DEADWOOD)
        for c, d in ref.deadwood_after_discard(hand).items():
            expected[c] = d
        assert after[i].tolist() == expected.tolist(), format_cards(masks[i])
        assert set(np.flatnonzero(knock[i]).tolist()) == {c for c in hand if expected[c] <= limit}


@settings(deadline=None, max_examples=150)
@given(st.lists(uniform_hand(), min_size=1, max_size=4), st.integers(0, 40))
def test_after_discard_and_knock_match_brute_force_uniform(hands, limit):
    """deadwood_after_discard and knock_discards equal the brute force on uniform hands."""
    check_after_discard(hands, limit)


@settings(deadline=None, max_examples=250)
@given(st.lists(dense_hand(), min_size=1, max_size=4), st.sampled_from([0, 1, 5, 10, 20]))
def test_after_discard_and_knock_match_brute_force_dense(hands, limit):
    """deadwood_after_discard and knock_discards equal the brute force on dense hands."""
    check_after_discard(hands, limit)


@settings(deadline=None, max_examples=200)
@given(any_hand)
def test_best_melds_valid_property(hand):
    """best_melds gives a valid disjoint arrangement at minimum deadwood on random hands."""
    melds, deadwood = best_melds(to_masks([hand])[0])
    check_arrangement(hand, melds, deadwood)


def test_min_deadwood_refuses_a_string_array() -> None:
    """An array of card strings is refused by dtype, not read as 52 held cards."""
    hand = np.array(["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "TS"] * 5 + ["JS", "QS"])
    with pytest.raises(ValueError, match="dtype <U2"):
        melds.min_deadwood(hand)
    with pytest.raises(ValueError, match="dtype"):
        melds.deadwood_after_discard(hand)


def test_min_deadwood_accepts_zero_one_numbers_but_not_other_values() -> None:
    """An int8 0/1 mask gives the bool answer; an entry of 2 is refused."""
    hand = parse_cards("AC 2C 3C 4D 5D 6D 7H 8H 9H TS")
    assert melds.min_deadwood(hand.astype(np.int8)) == melds.min_deadwood(hand) == 10
    with pytest.raises(ValueError, match="0 or 1"):
        melds.min_deadwood(hand.astype(np.int8) * 2)


@pytest.mark.parametrize(
    "cards",
    [
        " ".join(f"{r}{s}" for r in "A23456789TJQK" for s in "CDHS"),  # all 52 cards
        # 36 cards, 9 ranks of 3 or more: 6**9 scenarios (asked for 2.7 GiB before)
        "AC AD AH 2C 2D 2H 3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D 6H 7C 7D 7H 8C 8D 8H "
        "9C 9D 9H TC TD JC JD QC QD KC KD KH",
    ],
)
def test_min_deadwood_refuses_hands_beyond_its_documented_limit(cards: str) -> None:
    """Hands with more than MAX_SET_RANKS ranks of 3+ cards raise a ValueError naming it."""
    hand = parse_cards(cards)
    with pytest.raises(ValueError, match=f"at most {melds.MAX_SET_RANKS}"):
        melds.min_deadwood(hand)
    with pytest.raises(ValueError, match=f"at most {melds.MAX_SET_RANKS}"):
        melds.deadwood_after_discard(hand[None])


def test_the_worst_hand_within_the_limit_is_searched() -> None:
    """20 cards with 6 ranks of three (6**6 scenarios) get their exact minimum deadwood."""
    hand = parse_cards("AC AD AH 2C 2D 2H 3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D 6H QS KS")
    assert melds.min_deadwood(hand) == 20
    assert melds.deadwood_after_discard(hand)[parse_card_list("KS")[0]] == 10


def test_big_hands_agree_with_the_brute_force_reference() -> None:
    """Dense 16- to 18-card hands (up to 5 ranks of 3+) match the plain-Python reference."""
    rng = np.random.default_rng(17)
    hands = np.zeros((12, 52), dtype=bool)
    for i, row in enumerate(hands):
        ranks = rng.choice(13, 5, replace=False)
        pool = {s * 13 + r for s in range(4) for r in ranks} | {13 + r for r in range(13)}
        row[rng.choice(sorted(pool), 16 + i % 3, replace=False)] = True
    got = melds.min_deadwood(hands)
    want = [ref.min_deadwood(np.flatnonzero(h).tolist()) for h in hands]
    assert got.tolist() == want


def test_best_melds_refuses_a_batch() -> None:
    """best_melds takes one hand; a batch gets a ValueError saying so (not a reshape error)."""
    hands = np.stack([parse_cards("AC 2C 3C 4D 5D 6D 7H 8H 9H TS")] * 3)
    with pytest.raises(ValueError, match="one hand"):
        melds.best_melds(hands)
    found, loose = melds.best_melds(hands[0])
    assert len(found) == 3 and loose == parse_card_list("TS")


def test_meld_with_matches_enumerated_melds() -> None:
    """``meld_with`` is true exactly when some 3-card meld joins the card to two held cards."""
    rng = np.random.default_rng(0)
    hands = np.zeros((300, N_CARDS), bool)
    for h in hands:
        h[rng.choice(N_CARDS, rng.integers(3, 16), replace=False)] = True
    got = meld_with(hands)
    for h, row in zip(hands, got, strict=True):
        for c in range(N_CARDS):
            suit, rank = divmod(c, 13)
            others = [s * 13 + rank for s in range(4) if s != suit]
            sets = [pair for pair in itertools.combinations(others, 2)]
            runs = [
                (suit * 13 + rank + i, suit * 13 + rank + j)
                for i, j in ((-2, -1), (-1, 1), (1, 2))
                if 0 <= rank + i < 13 and 0 <= rank + j < 13
            ]
            want = any(h[x] and h[y] for x, y in sets + runs)
            assert row[c] == want, (np.flatnonzero(h), c)

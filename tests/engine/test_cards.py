"""Cards: ids, values and the text form (docs/rules.md §1 "Cards")."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hgin_env.engine.cards import (
    CARD_RANK,
    CARD_SUIT,
    CARD_VALUE,
    N_CARDS,
    RANK_VALUE,
    card_id,
    card_text,
    cards_to_mask,
    format_cards,
    parse_card_list,
    parse_cards,
    suit_masks,
)

RANKS = "A23456789TJQK"
SUITS = "CDHS"  # clubs, diamonds, hearts, spades = suits 0..3


# --- encoding -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AC", 0),
        ("KC", 12),
        ("AD", 13),
        ("2D", 14),
        ("7D", 19),
        ("AH", 26),
        ("TH", 35),
        ("AS", 39),
        ("KS", 51),
    ],
    ids=lambda v: str(v),
)
def test_card_id_spot_values(text, expected):
    """Decision (encoding): spot cards get id suit*13+rank, suits ordered C, D, H, S."""
    assert card_id(text) == expected
    assert card_text(expected) == text


@pytest.mark.parametrize("suit", range(4), ids=list(SUITS))
@pytest.mark.parametrize("rank", range(13), ids=list(RANKS))
def test_every_card_id_is_suit_times_13_plus_rank(rank, suit):
    """Decision (encoding): all 52 cards parse to suit*13+rank and format back to text."""
    text = RANKS[rank] + SUITS[suit]
    assert card_id(text) == suit * 13 + rank
    assert card_text(suit * 13 + rank) == text
    assert CARD_RANK[suit * 13 + rank] == rank
    assert CARD_SUIT[suit * 13 + rank] == suit


def test_card_text_round_trip_all_ids():
    """card_id(card_text(c)) == c for all 52 ids, and the 52 texts are distinct."""
    texts = [card_text(c) for c in range(N_CARDS)]
    assert [card_id(t) for t in texts] == list(range(N_CARDS))
    assert len(set(texts)) == N_CARDS


@pytest.mark.parametrize("bad_id", [-1, 52, 100])
def test_card_text_rejects_out_of_range_ids(bad_id):
    """card_text raises ValueError naming an id outside 0..51."""
    with pytest.raises(ValueError, match=str(bad_id)):
        card_text(bad_id)


# --- values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("AC", 1), ("2D", 2), ("5H", 5), ("9S", 9), ("TC", 10), ("JD", 10), ("QH", 10), ("KS", 10)],
    ids=lambda v: str(v),
)
def test_card_values(text, value):
    """Deadwood value: ace 1, 2-10 face value, J/Q/K 10."""
    assert CARD_VALUE[card_id(text)] == value


def test_rank_value_table():
    """RANK_VALUE is 1..10 then 10, 10, 10, and CARD_VALUE repeats it in each suit."""
    assert RANK_VALUE.tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert CARD_VALUE.tolist() == RANK_VALUE.tolist() * 4
    assert CARD_VALUE.sum() == 4 * 85


# --- parsing --------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["th", "tH", "Th", "TH", " TH ", "th\n"], ids=repr)
def test_lower_and_mixed_case_accepted(text):
    """Decision (encoding): lower-case and mixed-case tokens parse like upper case."""
    assert card_id(text) == card_id("TH")


def test_parse_card_list_commas_and_whitespace():
    """Commas, spaces, tabs and newlines all separate cards; input order is kept."""
    assert parse_card_list("AC,7D, th ,KS") == [0, 19, 35, 51]
    assert parse_card_list("KS\tac\n7d") == [51, 0, 19]
    assert parse_card_list("") == []


def test_parse_cards_gives_mask():
    """parse_cards returns a bool[52] mask with exactly the named cards set."""
    mask = parse_cards("KS 7D AC TH")
    assert mask.shape == (52,)
    assert mask.dtype == bool
    assert np.flatnonzero(mask).tolist() == [0, 19, 35, 51]


def test_format_cards_sorted_by_suit_then_rank():
    """format_cards writes cards sorted by suit (C D H S) then rank (A..K)."""
    assert format_cards(parse_cards("KS 7D ac TH 2C")) == "AC 2C 7D TH KS"
    assert format_cards(np.zeros(52, dtype=bool)) == ""


def test_format_cards_batch_gives_nested_lists():
    """A bool[2, 2, 52] batch formats to a 2x2 nested list of strings."""
    hands = np.stack(
        [
            np.stack([parse_cards("AC"), parse_cards("KS QS")]),
            np.stack([parse_cards(""), parse_cards("TD 2H")]),
        ]
    )
    assert format_cards(hands) == [["AC", "QS KS"], ["", "TD 2H"]]


def test_format_cards_rejects_wrong_shape():
    """format_cards raises ValueError when the last axis is not 52."""
    with pytest.raises(ValueError, match="52"):
        format_cards(np.zeros(13, dtype=bool))


@given(st.sets(st.integers(0, 51)))
@settings(deadline=None, max_examples=100)
def test_round_trip_mask_text_mask(cards):
    """parse_cards(format_cards(mask)) == mask for any set of cards."""
    mask = np.zeros(52, dtype=bool)
    mask[list(cards)] = True
    text = format_cards(mask)
    assert np.array_equal(parse_cards(text), mask)
    assert parse_card_list(text) == sorted(cards)
    assert format_cards(parse_cards(text.lower())) == text


@pytest.mark.parametrize(
    "token",
    ["1C", "10C", "AX", "A", "ACE", "C7", "7", "ZZ", "7C7", "", "**"],
    ids=repr,
)
def test_malformed_token_raises_naming_it(token):
    """card_id raises ValueError on a malformed token and the message names the token."""
    with pytest.raises(ValueError) as excinfo:
        card_id(token)
    assert repr(token) in str(excinfo.value)


@pytest.mark.parametrize("token", ["1C", "10C", "AX", "XS", "7C7"], ids=repr)
def test_malformed_token_in_list_named(token):
    """parse_card_list and parse_cards name the malformed token among good ones."""
    text = f"AC 2C {token} 3C"
    for parse in (parse_card_list, parse_cards):
        with pytest.raises(ValueError) as excinfo:
            parse(text)
        assert repr(token) in str(excinfo.value)


@pytest.mark.parametrize("text", ["AC 2C AC", "AC 2C ac", "th,TH", "KS QS JS KS"], ids=repr)
def test_duplicate_cards_rejected(text):
    """A card given twice (in any case) raises ValueError naming the card."""
    dup = {"AC 2C AC": "AC", "AC 2C ac": "AC", "th,TH": "TH", "KS QS JS KS": "KS"}[text]
    for parse in (parse_card_list, parse_cards):
        with pytest.raises(ValueError, match=dup):
            parse(text)


# --- masks ----------------------------------------------------------------------------


def test_cards_to_mask_batch_with_padding():
    """cards_to_mask turns int[N, k] ids (-1 = none) into bool[N, 52] masks."""
    ids = np.array([[0, 19, -1], [51, -1, -1], [-1, -1, -1]])
    masks = cards_to_mask(ids)
    assert masks.shape == (3, 52)
    assert masks.dtype == bool
    assert format_cards(masks) == ["AC 7D", "KS", ""]


def test_cards_to_mask_single_and_nested():
    """cards_to_mask handles a 1-D id list and a [2, 3, k] batch."""
    assert format_cards(cards_to_mask(np.array([13, 0, 26]))) == "AC AD AH"
    ids = np.arange(2 * 3 * 4).reshape(2, 3, 4) * 2  # distinct ids 0, 2, ..., 46
    masks = cards_to_mask(ids)
    assert masks.shape == (2, 3, 52)
    for i in range(2):
        for j in range(3):
            assert np.flatnonzero(masks[i, j]).tolist() == ids[i, j].tolist()


def test_suit_masks_spot_values():
    """suit_masks packs each suit into a 13-bit rank mask, bit r = rank r (ace = bit 0)."""
    masks = suit_masks(parse_cards("AC 3C KD 2H 2S TS"))
    assert masks.dtype == np.int64
    assert masks.tolist() == [0b101, 1 << 12, 0b10, 0b10 | (1 << 9)]
    assert suit_masks(np.ones(52, dtype=bool)).tolist() == [8191] * 4


def test_suit_masks_batch_shape():
    """suit_masks of a bool[2, 3, 52] batch is int64[2, 3, 4], equal to per-hand calls."""
    rng = np.random.default_rng(0)
    hands = rng.random((2, 3, 52)) < 0.3
    masks = suit_masks(hands)
    assert masks.shape == (2, 3, 4)
    for i in range(2):
        for j in range(3):
            assert masks[i, j].tolist() == suit_masks(hands[i, j]).tolist()

"""Cards: ids, values, and the text form used everywhere (``"AC 7D TH KS"``).

Card id = ``suit * 13 + rank`` with rank 0 = ace ... 12 = king and suits in the
order clubs, diamonds, hearts, spades (docs/rules.md §1 "Cards"). A set of cards is a
``bool[..., 52]`` mask indexed by card id.
"""

from __future__ import annotations

from typing import Any

import numpy as np

N_CARDS = 52
N_RANKS = 13
N_SUITS = 4
RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"

#: rank of each card id, int64[52]
CARD_RANK = np.arange(N_CARDS) % N_RANKS
#: suit of each card id, int64[52]
CARD_SUIT = np.arange(N_CARDS) // N_RANKS
#: deadwood value of each rank: ace 1, 2-10 face value, J/Q/K 10; int64[13]
RANK_VALUE = np.minimum(np.arange(1, N_RANKS + 1), 10)
#: deadwood value of each card id, int64[52]
CARD_VALUE = RANK_VALUE[CARD_RANK]


def card_id(text: str) -> int:
    """Return the id of one card written as rank then suit (``"7D"``, ``"th"``).

    >>> card_id("2D"), card_id("ks")
    (14, 51)

    Raises:
        ValueError: if the token is not a card; the message names the token.
    """
    token = text.strip()
    if len(token) != 2:
        raise ValueError(f"malformed card {text!r}: expected rank then suit, like '7D' or 'TH'")
    rank = RANK_CHARS.find(token[0].upper())
    suit = SUIT_CHARS.find(token[1].upper())
    if rank < 0:
        raise ValueError(f"malformed card {text!r}: unknown rank {token[0]!r} (use {RANK_CHARS})")
    if suit < 0:
        raise ValueError(f"malformed card {text!r}: unknown suit {token[1]!r} (use {SUIT_CHARS})")
    return suit * N_RANKS + rank


def card_text(card: int | np.integer) -> str:
    """Return the text form of a card id (``14 -> "2D"``)."""
    card = int(card)
    if not 0 <= card < N_CARDS:
        raise ValueError(f"card id {card} is out of range 0..51")
    return RANK_CHARS[card % N_RANKS] + SUIT_CHARS[card // N_RANKS]


def parse_card_list(text: str) -> list[int]:
    """Parse whitespace- or comma-separated cards into ids, keeping their order.

    Raises:
        ValueError: on a malformed token or a card given twice.
    """
    ids = [card_id(tok) for tok in text.replace(",", " ").split()]
    seen: set[int] = set()
    for c in ids:
        if c in seen:
            raise ValueError(f"card {card_text(c)} appears twice in {text!r}")
        seen.add(c)
    return ids


def parse_cards(text: str) -> np.ndarray:
    """Parse a card string into a ``bool[52]`` mask (``"AC 2C 3C" -> mask``).

    >>> format_cards(parse_cards("3C AC 2C"))
    'AC 2C 3C'

    Raises:
        ValueError: on a malformed token (named in the message) or a duplicate card.
    """
    mask = np.zeros(N_CARDS, dtype=bool)
    mask[parse_card_list(text)] = True
    return mask


def format_cards(mask: np.ndarray) -> str | list[Any]:
    """Format a ``bool[..., 52]`` mask as card text, sorted by suit then rank.

    A single mask gives one string; a batch gives a (nested) list of strings.
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.shape[-1] != N_CARDS:
        raise ValueError(f"expected a mask whose last axis has 52 entries, got shape {mask.shape}")
    if mask.ndim == 1:
        return hand_text(mask)
    return [format_cards(m) for m in mask]


def hand_text(mask: np.ndarray) -> str:
    """The cards of one ``bool[52]`` mask as text, sorted by suit then rank.

    >>> hand_text(parse_cards("KS AC 2C"))
    'AC 2C KS'
    """
    return " ".join(card_text(c) for c in np.flatnonzero(np.asarray(mask, dtype=bool)))


def cards_to_mask(cards: np.ndarray) -> np.ndarray:
    """Turn an int array of card ids ``[..., k]`` (-1 = none) into ``bool[..., 52]``."""
    cards = np.asarray(cards)
    out = np.zeros(cards.shape[:-1] + (N_CARDS + 1,), dtype=bool)
    np.put_along_axis(out, np.where(cards < 0, N_CARDS, cards), True, axis=-1)
    return out[..., :N_CARDS]


def suit_masks(hands: np.ndarray) -> np.ndarray:
    """Pack ``bool[..., 52]`` hands into 13-bit rank masks per suit, ``int64[..., 4]``."""
    hands = np.asarray(hands, dtype=bool)
    lead = hands.shape[:-1]
    packed = np.packbits(hands.reshape(-1, N_CARDS), axis=1, bitorder="little")  # [M, 7]
    buf = np.zeros((packed.shape[0], 8), dtype=np.uint8)
    buf[:, :7] = packed
    bits = buf.view("<u8")[:, 0].astype(np.int64)  # card c is bit c
    masks = (bits[:, None] >> (N_RANKS * np.arange(N_SUITS))) & ((1 << N_RANKS) - 1)
    return masks.reshape(lead + (N_SUITS,))

"""Deck orders from card strings, and drivers that play actions written as text.

Deck order contract of ``GinEngine.reset(decks=...)``: ``deck[0:10]`` is the non-dealer's
hand, ``deck[10:20]`` the dealer's, ``deck[20]`` the upcard, ``deck[21]`` the top of the
stock, then ``deck[22]`` and so on.
"""

from __future__ import annotations

import numpy as np

from hgin_env.engine.actions import action_text, parse_action
from hgin_env.engine.cards import N_CARDS, card_text, parse_card_list
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import HAND_SIZE, STOCK_START, GinEngine
from hgin_env.engine.series import SeriesEngine, SeriesStep

#: the seats used by ``deal`` unless told otherwise: seat 0 deals, seat 1 plays first
DEALER, NON_DEALER = 0, 1


#: non-dealer's hand: runs AC-3C, 4D-6D, 7H-9H and KS; deadwood 10
RUNS_AND_KS = "AC 2C 3C 4D 5D 6D 7H 8H 9H KS"


#: a dealer hand with one run (5S-7S) and 47 deadwood that touches nothing above
LOOSE = "JH 4C 5S 6S 7S 9C 9D 2H 3H KD"


#: the dealer's hand for swapping: JD is the card it passes on
SWAP_DEALER = "JD 4C 5S 6S 7S 9C 9D 2H 3H KD"


def swap_actions(turns: int) -> list[str]:
    """Actions for ``turns`` turns that pass QH (the upcard), KS and JD back and forth.

    Each turn takes the top discard and discards the card taken the turn before, so no
    turn rediscards its own take and the stock is never touched.
    """
    return (["take", "KS", "take", "JD", "take", "QH"] * turns)[: 2 * turns]


def draw_discard(stock: list[str], count: int, start: int = 0) -> list[str]:
    """Actions for ``count`` turns that each draw the stock's top card and discard it."""
    actions = []
    for card in stock[start : start + count]:
        actions += ["draw", f"discard {card}"]
    return actions


def make_deck(non_dealer: str, dealer: str, upcard: str, stock: str = "") -> np.ndarray:
    """Build a deck order (``int8[52]``) from card strings.

    Args:
        non_dealer: the non-dealer's 10 cards (``deck[0:10]``).
        dealer: the dealer's 10 cards (``deck[10:20]``).
        upcard: the upcard (``deck[20]``).
        stock: the top of the stock, first card drawn first (``deck[21]``, ``deck[22]``...).
            The cards not named anywhere follow in ascending card id, so the deck is
            deterministic.

    Raises:
        ValueError: if a hand does not hold 10 cards, the upcard is not one card, or a
            card is named twice.
    """
    parts = {
        "non_dealer": parse_card_list(non_dealer),
        "dealer": parse_card_list(dealer),
        "upcard": parse_card_list(upcard),
        "stock": parse_card_list(stock),
    }
    for who in ("non_dealer", "dealer"):
        if len(parts[who]) != HAND_SIZE:
            raise ValueError(f"{who} must hold {HAND_SIZE} cards, got {len(parts[who])}")
    if len(parts["upcard"]) != 1:
        raise ValueError(f"upcard must be one card, got {upcard!r}")
    named = [c for cards in parts.values() for c in cards]
    seen: set[int] = set()
    for c in named:
        if c in seen:
            raise ValueError(f"card {card_text(c)} is named twice")
        seen.add(c)
    rest = [c for c in range(N_CARDS) if c not in seen]
    return np.array(named + rest, dtype=np.int8)


def stock_cards(deck: np.ndarray) -> list[str]:
    """The stock of a deck order as card texts, top first."""
    return [card_text(c) for c in deck[STOCK_START:]]


def deal(
    non_dealer: str,
    dealer: str,
    upcard: str,
    stock: str = "",
    rules: RulesConfig | None = None,
    dealer_seat: int = DEALER,
) -> GinEngine:
    """A one-game engine dealt from card strings (``make_deck``); seat ``dealer_seat`` deals."""
    eng = GinEngine(1, rules, seed=0)
    eng.reset(decks=make_deck(non_dealer, dealer, upcard, stock)[None], dealers=dealer_seat)
    return eng


def step_one(engine: GinEngine, action: str | int, game: int = 0) -> bool:
    """Apply one action in ``game``: text (``"take"``, ``"discard 7H"``, ``"knock KS"``) or an id.

    The other live games of the batch take their lowest legal action id.

    Returns:
        Whether the hand of ``game`` ended with this step.
    """
    mask = engine.legal_action_mask()
    actions = np.where(mask.any(axis=1), mask.argmax(axis=1), 0).astype(np.int64)
    actions[game] = parse_action(action) if isinstance(action, str) else int(action)
    return bool(engine.step(actions)[game])


def play(engine: GinEngine, *actions: str | int, game: int = 0) -> list[bool]:
    """Apply actions one after another in ``game`` (``step_one``); return each step's ended flag."""
    return [step_one(engine, a, game) for a in actions]


def legal(engine: GinEngine, game: int = 0) -> set[str]:
    """The legal actions of ``game`` as texts (``{"take", "pass"}``, ``{"discard 7H", ...}``)."""
    return {action_text(a) for a in np.flatnonzero(engine.legal_action_mask()[game])}


def knocks(engine: GinEngine, game: int = 0) -> set[str]:
    """The cards ``game``'s player may knock with, as card texts."""
    return {t.split()[1] for t in legal(engine, game) if t.startswith("knock")}


def hand(engine: GinEngine, seat: int, game: int = 0) -> set[str]:
    """The cards a seat holds, as card texts."""
    return {card_text(c) for c in np.flatnonzero(engine.state.hands[game, seat])}


def top(engine: GinEngine, game: int = 0) -> str | None:
    """The top of the discard pile as card text, None when the pile is empty."""
    card = int(engine.top_discard[game])
    return card_text(card) if card >= 0 else None


def cards(text: str) -> set[str]:
    """A card string as a set of normalised card texts (``"ac 7d" -> {"AC", "7D"}``)."""
    return {card_text(c) for c in parse_card_list(text)}


def play_series(series: SeriesEngine, *actions: str | int, game: int = 0) -> list[SeriesStep]:
    """Apply actions one after another in ``game`` of a ``SeriesEngine`` (others: lowest legal)."""
    steps = []
    for action in actions:
        mask = series.engine.legal_action_mask()
        ids = np.where(mask.any(axis=1), mask.argmax(axis=1), 0).astype(np.int64)
        ids[game] = parse_action(action) if isinstance(action, str) else int(action)
        steps.append(series.step(ids))
    return steps

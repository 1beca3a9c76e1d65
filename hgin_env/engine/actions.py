"""The action ids shared by the engine, the environments, the bots and the tools.

=========  =========================================================
id         meaning
=========  =========================================================
0..51      discard card ``id`` (card id = suit * 13 + rank)
52..103    knock, discarding card ``id - 52``
104        draw the top card of the stock
105        take the top of the discard pile (the upcard on the first turn)
106        pass (first-turn upcard offer only)
=========  =========================================================
"""

from __future__ import annotations

from hgin_env.engine.cards import N_CARDS, card_id, card_text

#: number of action ids
N_ACTIONS = 107
#: first discard id; discard card c is ``DISCARD + c``
DISCARD = 0
#: first knock id; knock discarding card c is ``KNOCK + c``
KNOCK = N_CARDS
#: draw from the stock
DRAW = 104
#: take the top of the discard pile (or the upcard)
TAKE = 105
#: pass on the first-turn upcard offer
PASS = 106


def action_text(action: int) -> str:
    """Describe an action id in words: ``"discard 7H"``, ``"knock 7H"``, ``"draw"``..."""
    action = int(action)
    if 0 <= action < KNOCK:
        return f"discard {card_text(action)}"
    if KNOCK <= action < DRAW:
        return f"knock {card_text(action - KNOCK)}"
    names = {DRAW: "draw", TAKE: "take", PASS: "pass"}
    if action in names:
        return names[action]
    return f"invalid action id {action} (valid ids are 0..{N_ACTIONS - 1})"


def parse_action(text: str) -> int:
    """Parse ``"draw"``, ``"take"``, ``"pass"``, ``"7H"`` (discard) or ``"knock 7H"``.

    Raises:
        ValueError: when the text is not an action; the message says what was expected.
    """
    words = text.strip().lower().split()
    simple = {"draw": DRAW, "stock": DRAW, "take": TAKE, "pass": PASS}
    if len(words) == 1 and words[0] in simple:
        return simple[words[0]]
    if len(words) == 1:
        return DISCARD + card_id(words[0])
    if len(words) == 2 and words[0] in ("discard", "knock"):
        card = card_id(words[1])
        return (KNOCK if words[0] == "knock" else DISCARD) + card
    raise ValueError(
        f"cannot read action {text!r}: use draw, take, pass, a card like 7H, or knock 7H"
    )

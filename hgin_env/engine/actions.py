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

from collections.abc import Sequence

import numpy as np

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


def knock_legal(masks: np.ndarray) -> np.ndarray:
    """bool[N]: the rows of ``bool[N, 107]`` action masks in which some knock is legal."""
    return np.asarray(np.asarray(masks)[:, KNOCK : KNOCK + N_CARDS].any(axis=1))


def is_knock(actions: np.ndarray) -> np.ndarray:
    """bool[N]: which action ids of ``int[N]`` are knocks (not discards, draws or passes)."""
    actions = np.asarray(actions)
    return (actions >= KNOCK) & (actions < KNOCK + N_CARDS)


def action_text(action: int | np.integer) -> str:
    """Describe an action id in words: ``"discard 7H"``, ``"knock 7H"``, ``"draw"``...

    >>> action_text(6), action_text(KNOCK + 6), action_text(DRAW)
    ('discard 7C', 'knock 7C', 'draw')
    """
    action = int(action)
    if 0 <= action < KNOCK:
        return f"discard {card_text(action)}"
    if KNOCK <= action < DRAW:
        return f"knock {card_text(action - KNOCK)}"
    names = {DRAW: "draw", TAKE: "take", PASS: "pass"}
    if action in names:
        return names[action]
    return f"invalid action id {action} (valid ids are 0..{N_ACTIONS - 1})"


def illegal_action_message(
    action: object,
    legal_mask: Sequence[bool] | np.ndarray,
    phase: str,
    who: str = "",
    seat: int | None = None,
) -> str:
    """The one wording of an illegal-action error, used by the engine and every env.

    Args:
        action: what was played: an action id, or any other value (shown with ``repr``).
        legal_mask: bool[107], the legal actions at that point.
        phase: the phase's name (``"DRAW"``, ...).
        who: a prefix naming the game or player (``"game 2: "``, ``"player_0: "``).
        seat: the seat to act, when the message should name it.

    Returns:
        ``"<who>illegal action <id> (<text>) in phase <phase>[ for seat <seat>]; legal
        actions: ..."``.

    >>> mask = np.zeros(N_ACTIONS, bool); mask[[DRAW, TAKE]] = True
    >>> illegal_action_message(PASS, mask, "DRAW")
    'illegal action 106 (pass) in phase DRAW; legal actions: 104 (draw), 105 (take)'
    """
    legal = ", ".join(f"{x} ({action_text(x)})" for x in np.flatnonzero(legal_mask))
    if isinstance(action, int | np.integer) and not isinstance(action, bool):
        shown = f"{int(action)} ({action_text(action)})"
    else:
        shown = f"{action!r} (one action id expected)"
    for_seat = "" if seat is None else f" for seat {seat}"
    return f"{who}illegal action {shown} in phase {phase}{for_seat}; legal actions: {legal}"


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

"""Text rendering of one seat's view of one game: what that player may see, as a table.

``render_view(engine, sheets, game, seat)`` is used by the environments' ``render`` and
by interactive tools. It shows the seat's hand grouped into its best melds (sets, then
runs) with the deadwood cards apart, the top of the discard pile, the stock size, the
cards the opponent is known to hold and the discards, whose turn it is, the score sheet
in series mode, and the result once the hand is over (the opponent's hand is shown only
after a knock, when it is laid face up).
"""

from __future__ import annotations

import numpy as np

from hgin_env.engine.cards import CARD_VALUE, card_text, hand_text
from hgin_env.engine.game import GinEngine, Outcome, Phase
from hgin_env.engine.hollywood import ScoreSheet, ScoreSheets
from hgin_env.engine.melds import NO_DEADWOOD, best_melds

_PHASE_TEXT = {
    Phase.OFFER: "upcard offer: take it or pass",
    Phase.DRAW: "draw from the stock or take the top discard",
    Phase.DISCARD: "discard a card, or knock with a discard",
}
_OUTCOME_TEXT = {
    Outcome.KNOCK: "knock",
    Outcome.GIN: "gin",
    Outcome.UNDERCUT: "undercut",
    Outcome.BIG_GIN: "big gin",
    Outcome.DRAW: "drawn hand (stock down to two cards)",
    Outcome.TRUNCATED: "drawn hand (turn limit reached)",
}


def melds_text(hand: np.ndarray) -> tuple[str, int]:
    """Format a bool[52] hand as its best melds then its deadwood: ``"[3C 4C 5C] | KD 2S"``.

    Returns:
        ``(text, deadwood)``: the text and the deadwood value of that arrangement.
    """
    melds, loose = best_melds(np.asarray(hand, bool))
    parts = ["[" + " ".join(card_text(c) for c in meld) + "]" for meld in melds]
    loose_text = " ".join(card_text(c) for c in sorted(loose, key=lambda c: (c % 13, c // 13)))
    text = " ".join(parts)
    if loose_text:
        text = f"{text} | {loose_text}" if text else loose_text
    return text or "-", int(CARD_VALUE[loose].sum()) if loose else 0


def sheet_text(sheets: ScoreSheets, game: int, seat: int, names: tuple[str, str]) -> str:
    """Format row ``game`` of a batch of score sheets, ``seat``'s line first.

    Args:
        sheets: the batch of score sheets.
        game: the row to format.
        seat: the seat listed first, as ``names[0]``; the other seat is ``names[1]``.
        names: the two players' names.
    """
    one = ScoreSheet(sheets.rules)
    order = [seat, 1 - seat]
    for name in ("scores", "entered", "boxes"):
        getattr(one.sheets, name)[0] = getattr(sheets, name)[game][order]
    # seat numbers on the copy: the viewer is 0, its opponent 1
    relabel = np.array([0, 1] if seat == 0 else [1, 0])
    winners = sheets.game_winners[game]
    one.sheets.game_winners[0] = np.where(winners >= 0, relabel[winners], -1)
    champion = int(sheets.series_winner[game])
    one.sheets.series_winner[0] = relabel[champion] if champion >= 0 else -1
    one.sheets.finished[0] = sheets.finished[game]
    return one.format(list(names))


def render_view(
    engine: GinEngine,
    sheets: ScoreSheets | None,
    game: int,
    seat: int,
    names: tuple[str, str] = ("You", "Opponent"),
) -> str:
    """Render what ``seat`` may see of game ``game`` as a readable text table.

    Args:
        engine: the batched engine.
        sheets: the score sheets (series mode), or None.
        game: the game index in the batch.
        seat: the seat whose view is shown (0 or 1).
        names: how to call the viewing seat and its opponent.

    Returns:
        The text, one row per line.
    """
    s = engine.state
    i, me, opp = int(game), int(seat), 1 - int(seat)
    who = {me: names[0], opp: names[1]}
    phase = Phase(int(s.phase[i]))
    rows: list[tuple[str, str]] = []
    dealer = who[int(s.dealer[i])]
    status = f"seat {me}, dealer: {dealer}, turn {int(s.turns[i]) + 1}"
    if phase != Phase.OVER:
        status += f", {who[int(s.current[i])]} to act"
    rows.append((names[0], status))
    grouped, deadwood = melds_text(s.hands[i, me])
    rows.append(("Hand", grouped))
    dw = f"{deadwood}"
    if phase == Phase.DISCARD and int(s.current[i]) == me:
        best = int(engine.discard_deadwood()[i].min())
        if best < NO_DEADWOOD:
            dw += f" (after the best discard: {best})"
    rows.append(("Deadwood", dw))
    top = int(engine.top_discard[i])
    pile = int(s.pile_size[i])
    rows.append(("Top discard", f"{card_text(top) if top >= 0 else '-'} (pile: {pile} cards)"))
    rows.append(("Stock", f"{int(engine.stock_size[i])} cards"))
    known = hand_text(s.known[i, opp]) or "-"
    rows.append((f"{names[1]} holds", f"{int(s.hands[i, opp].sum())} cards; known: {known}"))
    rows.append((f"{names[0]} discarded", hand_text(s.discards[i, me]) or "-"))
    rows.append((f"{names[1]} discarded", hand_text(s.discards[i, opp]) or "-"))
    if phase == Phase.OVER:
        rows += _result_rows(s, i, who, opp, names)
    elif int(s.current[i]) == me:
        forced = phase == Phase.DRAW and bool(s.must_draw_stock[i])
        rows.append(("To do", "draw from the stock" if forced else _PHASE_TEXT[phase]))
    width = max(len(label) for label, _ in rows)
    lines = [f"{label.ljust(width)}  {value}" for label, value in rows]
    if sheets is not None:
        lines += ["", sheet_text(sheets, i, me, names)]
    return "\n".join(lines)


def _result_rows(
    s, i: int, who: dict[int, str], opp: int, names: tuple[str, str]
) -> list[tuple[str, str]]:
    outcome = Outcome(int(s.outcome[i]))
    if outcome in (Outcome.DRAW, Outcome.TRUNCATED, Outcome.NONE):
        return [("Hand over", _OUTCOME_TEXT.get(outcome, "not dealt"))]
    knocker, winner = int(s.knocker[i]), int(s.winner[i])
    rows = [
        ("Hand over", f"{_OUTCOME_TEXT[outcome]} by {who[knocker]}"),
        (
            "Deadwood",
            f"knocker {int(s.knocker_deadwood[i])}, "
            f"defender {int(s.defender_deadwood[i])} after layoffs",
        ),
        ("Points", f"{int(s.points[i])} to {who[winner]}"),
    ]
    rows.append((f"{names[1]} hand", melds_text(s.hands[i, opp])[0]))
    return rows


# ---------------------------------------------------------------- pictures (rgb_array)
#: the size of a frame drawn by ``render_rgb`` (height, width)
FRAME_SHAPE = (360, 640)
_CARD_W, _CARD_H, _GAP = 34, 50, 4
_FELT, _INK, _LIGHT = (22, 92, 54), (20, 20, 20), (235, 235, 225)
_RED, _BACK, _GOLD = (196, 30, 40), (40, 60, 150), (238, 200, 80)


def _font(size: int):  # noqa: ANN202 - a PIL font, typed loosely (Pillow is optional)
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: the fixed bitmap font
        return ImageFont.load_default()


def _card(draw, x: int, y: int, card: int | None, font, highlight: bool = False) -> None:  # noqa: ANN001
    """Draw one card at (x, y): face up (``card`` id) or face down (None)."""
    box = (x, y, x + _CARD_W, y + _CARD_H)
    if card is None:
        draw.rounded_rectangle(box, 4, fill=_BACK, outline=_LIGHT, width=2)
        return
    draw.rounded_rectangle(box, 4, fill=_LIGHT, outline=_GOLD if highlight else _INK, width=2)
    text = card_text(card)
    colour = _RED if text[-1] in "DH" else _INK
    draw.text((x + 4, y + 3), text[:-1], fill=colour, font=font)
    draw.text((x + 4, y + 24), text[-1], fill=colour, font=font)


def render_rgb(
    engine: GinEngine,
    sheets: ScoreSheets | None,
    game: int,
    seat: int,
    names: tuple[str, str] = ("You", "Opponent"),
) -> np.ndarray:
    """Draw what ``seat`` may see of game ``game`` as a picture (Pillow).

    The seat's hand in its best melds (each meld a group, the deadwood apart), the
    opponent's cards face down (those it is known to hold face up), the stock with its
    count, the discard pile's top card, whose turn it is, the score sheet in series mode
    and the result once the hand is over.

    Args:
        engine: the batched engine.
        sheets: the score sheets (series mode), or None.
        game: the game index in the batch.
        seat: the seat whose view is drawn (0 or 1).
        names: how to call the viewing seat and its opponent.

    Returns:
        ``uint8[H, W, 3]`` with ``(H, W) == FRAME_SHAPE``.

    Example:
        >>> from hgin_env.engine.game import GinEngine
        >>> engine = GinEngine(1, seed=0)
        >>> frame = render_rgb(engine, None, 0, 0)
        >>> frame.shape, frame.dtype.name
        ((360, 640, 3), 'uint8')
    """
    from PIL import Image, ImageDraw

    s = engine.state
    i, me, opp = int(game), int(seat), 1 - int(seat)
    who = {me: names[0], opp: names[1]}
    phase = Phase(int(s.phase[i]))
    height, width = FRAME_SHAPE
    image = Image.new("RGB", (width, height), _FELT)
    draw = ImageDraw.Draw(image)
    small, big = _font(12), _font(16)
    pitch = _CARD_W + _GAP

    # the opponent: face-down cards, the known ones face up
    held = np.flatnonzero(s.hands[i, opp]) if phase == Phase.OVER else None
    face_up = held if held is not None else np.flatnonzero(s.known[i, opp])
    count = int(s.hands[i, opp].sum())
    draw.text((12, 8), f"{names[1]}: {count} cards", fill=_LIGHT, font=small)
    shown: list[int | None] = [int(c) for c in face_up]
    shown += [None] * (count - len(shown))
    for k, card in enumerate(shown[:14]):
        _card(draw, 12 + k * pitch, 26, card, big)

    # the middle: stock and discard pile
    y_mid = 26 + _CARD_H + 30
    stock = int(engine.stock_size[i])
    _card(draw, 12, y_mid, None, big)
    draw.text((12, y_mid + _CARD_H + 4), f"stock {stock}", fill=_LIGHT, font=small)
    top = int(engine.top_discard[i])
    pile = int(s.pile_size[i])
    if top >= 0:
        _card(draw, 12 + 2 * pitch, y_mid, top, big)
    else:
        draw.rounded_rectangle(
            (12 + 2 * pitch, y_mid, 12 + 2 * pitch + _CARD_W, y_mid + _CARD_H), 4, outline=_LIGHT
        )
    draw.text((12 + 2 * pitch, y_mid + _CARD_H + 4), f"pile {pile}", fill=_LIGHT, font=small)
    status = f"dealer: {who[int(s.dealer[i])]}   turn {int(s.turns[i]) + 1}"
    if phase == Phase.OVER:
        outcome = Outcome(int(s.outcome[i]))
        text = _OUTCOME_TEXT.get(outcome, "not dealt")
        if outcome not in (Outcome.DRAW, Outcome.TRUNCATED, Outcome.NONE):
            winner = who[int(s.winner[i])]
            text = f"{text} by {who[int(s.knocker[i])]}: {int(s.points[i])} points to {winner}"
        action = f"hand over: {text}"
    else:
        action = f"{who[int(s.current[i])]} to act: {_PHASE_TEXT[phase]}"
    draw.text((12 + 4 * pitch, y_mid + 6), status, fill=_LIGHT, font=small)
    draw.text((12 + 4 * pitch, y_mid + 26), action, fill=_GOLD, font=small)

    # the seat's hand: each meld a group, then the deadwood
    melds, loose = best_melds(np.asarray(s.hands[i, me], bool))
    y_hand = height - _CARD_H - 60
    deadwood = int(CARD_VALUE[loose].sum()) if loose else 0
    draw.text((12, y_hand - 18), f"{names[0]}: deadwood {deadwood}", fill=_LIGHT, font=small)
    x = 12
    for meld in melds:
        for card in meld:
            _card(draw, x, y_hand, int(card), big, highlight=True)
            x += pitch
        x += 12
    for card in sorted(loose, key=lambda c: (c % 13, c // 13)):
        _card(draw, x, y_hand, int(card), big)
        x += pitch

    # the score sheet (series mode)
    if sheets is not None:
        y = height - 36
        cells = []
        for g in range(sheets.scores.shape[2]):
            mine, theirs = int(sheets.scores[i, me, g]), int(sheets.scores[i, opp, g])
            cells.append(f"game {g + 1}: {mine}-{theirs}")
        draw.text(
            (12, y), f"{names[0]} vs {names[1]}   " + "   ".join(cells), fill=_LIGHT, font=small
        )
    return np.asarray(image, dtype=np.uint8)

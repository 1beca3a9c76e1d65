"""What the page is sent: JSON-ready views of a table, built from the engine's state.

Every message of the web table is built by one of the ``*_view`` functions here, and
cards always travel as their text (``"7H"``), never as ids, so a message can be checked
for a card by its text alone.

- ``play_view(game)`` is the one filter for a person's game: during a hand it holds the
  person's hand, the public table (top discard, the pile, the stock count, both players'
  discards, the cards the opponent is known to hold from the pile), the person's legal
  moves and the log of the hand with the opponent's stock draws unnamed; between two
  hands it holds the finished hand's result and nothing of the next deal. It never
  holds the opponent's unseen cards, the stock order, the deck or the seed.
- ``watch_view(game)`` shows a bot-against-bot table with both hands face up (still
  not the stock).
- ``replay_view(records)`` turns verified transcript records into frames, one per
  action, for stepping forward and back in the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from hgin_env.engine.actions import DRAW, KNOCK, PASS, TAKE
from hgin_env.engine.cards import (
    CARD_RANK,
    CARD_SUIT,
    CARD_VALUE,
    N_CARDS,
    card_id,
    card_text,
    parse_cards,
)
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, Phase
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.melds import best_melds
from hgin_env.envs.render import sheet_text
from hgin_env.replay import ReplayError, replay_hand, result_lines

from .catalog import short_name
from .parsing import MAX_TEXT, rules_text
from .words import action_line, deal_line, rules_words, you_words

if TYPE_CHECKING:
    from .games import PlayGame, WatchGame

PHASE_NAMES = {
    Phase.OFFER: "offer", Phase.DRAW: "draw", Phase.DISCARD: "discard", Phase.OVER: "over",
}  # fmt: skip
_KNOCKS = ("KNOCK", "GIN", "UNDERCUT", "BIG_GIN")


def card_list(mask: np.ndarray) -> list[str]:
    """The cards of a ``bool[52]`` mask as text, by suit then rank."""
    return [card_text(c) for c in np.flatnonzero(mask)]


def arrangement(hand: np.ndarray) -> dict[str, Any]:
    """A ``bool[52]`` hand as its best melds and its deadwood cards (by rank) and value."""
    melds, loose = best_melds(np.asarray(hand, bool))
    loose = sorted(loose, key=lambda c: (CARD_RANK[c], CARD_SUIT[c]))
    return {
        "melds": [[card_text(c) for c in meld] for meld in melds],
        "deadwood_cards": [card_text(c) for c in loose],
        "deadwood": int(CARD_VALUE[loose].sum()) if loose else 0,
    }


def by_rank(cards: Sequence[str]) -> list[str]:
    """Card texts sorted by rank then suit, as a hand's deadwood is shown."""
    ids = sorted(card_id(c) for c in cards)
    return [card_text(c) for c in sorted(ids, key=lambda c: (CARD_RANK[c], CARD_SUIT[c]))]


def played_discards(
    mask: np.ndarray, seat: int, actions: Sequence[Sequence[int]] | None
) -> list[str]:
    """A seat's discards (a ``bool[52]`` mask) in the order played, from the hand's actions.

    Without the actions (or for a card they do not name) the cards come by suit then rank.
    """
    order: list[int] = []
    for who, action in actions or ():
        card = int(action) if int(action) < N_CARDS else int(action) - KNOCK
        if int(who) == seat and 0 <= card < N_CARDS and mask[card] and card not in order:
            order.append(card)
    rest = [int(c) for c in np.flatnonzero(mask) if int(c) not in order]
    return [card_text(c) for c in order + rest]


def table_view(
    engine: GinEngine,
    names: Sequence[str],
    face_up: Sequence[int],
    actions: Sequence[Sequence[int]] | None = None,
) -> dict[str, Any]:
    """The table of game 0 of ``engine``; only the seats in ``face_up`` show their hands.

    Args:
        engine: the engine (game 0 is shown).
        names: the players' names, seat 0 first.
        face_up: the seats whose hands are shown; the others show only their card
            count and the cards they are known to hold (taken from the pile).
        actions: the hand's ``(seat, action)`` so far: each seat's discards are listed
            in the order played (without them, by suit then rank).
    """
    s = engine.state
    phase = Phase(int(s.phase[0]))
    seats = []
    for seat in (0, 1):
        seats.append(
            {
                "name": names[seat],
                "count": int(s.hands[0, seat].sum()),
                "hand": arrangement(s.hands[0, seat]) if seat in face_up else None,
                "known": card_list(s.known[0, seat]),
                "discards": played_discards(s.discards[0, seat], seat, actions),
            }
        )
    top = int(engine.top_discard[0])
    return {
        "phase": PHASE_NAMES[phase],
        "to_act": None if phase == Phase.OVER else int(s.current[0]),
        "dealer": int(s.dealer[0]),
        "turn": int(s.turns[0]) + 1,
        "top": card_text(top) if top >= 0 else None,
        "pile": [card_text(c) for c in s.pile[0, : int(s.pile_size[0])]],
        "stock": int(engine.stock_size[0]),
        "must_draw_stock": bool(s.must_draw_stock[0]),
        "seats": seats,
    }


def moves_view(engine: GinEngine, legal: np.ndarray, hint: str) -> dict[str, Any]:
    """The legal moves of the seat to act in game 0, with the deadwood each discard leaves.

    Args:
        engine: the engine (game 0).
        legal: bool[107], the legal actions now.
        hint: the legal moves in words (``GameSession.legal_hint``).
    """
    s = engine.state
    discards = []
    if int(s.phase[0]) == Phase.DISCARD:
        deadwood = engine.discard_deadwood()[0]
        for c in np.flatnonzero(s.hands[0, int(s.current[0])]):
            discards.append(
                {
                    "card": card_text(c),
                    "deadwood": int(deadwood[c]),
                    "discard": bool(legal[c]),
                    "knock": bool(legal[KNOCK + c]),
                }
            )
    return {
        "draw": bool(legal[DRAW]),
        "take": bool(legal[TAKE]),
        "pass": bool(legal[PASS]),
        "discards": discards,
        "hint": hint,
    }


def sheet_view(sheets: ScoreSheets, names: Sequence[str], first: int = 0) -> dict[str, Any]:
    """The Hollywood score sheet of game 0, seat ``first`` listed first.

    Each row has the raw ``scores`` (None where the player has no entry in a game), the
    ``totals`` with the classic bonuses, which games the player ``won``, and how many.
    """
    totals = sheets.final_totals()[0]
    rows = []
    for seat in (first, 1 - first):
        entered = sheets.entered[0, seat]
        rows.append(
            {
                "seat": seat,
                "name": names[seat],
                "scores": [
                    int(v) if e else None
                    for v, e in zip(sheets.scores[0, seat], entered, strict=True)
                ],
                "totals": [int(v) for v in totals[seat]],
                "won": [bool(w == seat) for w in sheets.game_winners[0]],
                "games_won": int((sheets.game_winners[0] == seat).sum()),
            }
        )
    rules = sheets.rules
    winner = int(sheets.series_winner[0])
    finished = bool(sheets.finished[0])
    won = sheets.game_winners[0]
    decided = [names[seat] for seat in (first, 1 - first) if int((won == seat).sum()) >= 2]
    return {
        "rows": rows,
        "bonuses": bool(rules.game_bonus or rules.box_bonus or rules.shutout_multiplier > 1),
        "finished": finished,
        "winner": names[winner] if winner >= 0 else None,
        # who has won two games: the series is theirs, though the last game plays on
        "decided": decided[0] if decided else None,
        "text": sheet_text(sheets, 0, first, (names[first], names[1 - first])),
    }


def laid_on(melds: Sequence[Sequence[str]], layoffs: Sequence[str]) -> list[list[str]]:
    """The layoffs each meld takes, meld by meld: ``[[], ["8H", "9H"], ...]``.

    A card goes on a set of its rank, or on the end of a run of its suit (a run grows
    as cards are laid on it, so ``8H`` then ``9H`` both go on ``5H 6H 7H``). A card that
    fits no meld (never, for a record the engine wrote) is left out.
    """
    ids = [[card_id(c) for c in meld] for meld in melds]
    laid: list[list[str]] = [[] for _ in melds]
    left = [card_id(c) for c in layoffs]
    while left:
        placed = False
        for card in list(left):
            for k, meld in enumerate(ids):
                ranks = {int(CARD_RANK[c]) for c in meld}
                suits = {int(CARD_SUIT[c]) for c in meld}
                rank, suit = int(CARD_RANK[card]), int(CARD_SUIT[card])
                is_set = len(ranks) == 1
                fits = (
                    rank in ranks
                    if is_set
                    else suit in suits and (rank == min(ranks) - 1 or rank == max(ranks) + 1)
                )
                if fits:
                    meld.append(card)
                    laid[k].append(card_text(card))
                    left.remove(card)
                    placed = True
                    break
        if not placed:
            break
    return laid


def breakdown(result: dict[str, Any], rules: RulesConfig, names: Sequence[str]) -> list[str]:
    """How a hand's points add up, item by item (empty for a drawn hand).

    ``["deadwood 23 (after laying off 5C) - 7 = 16"]`` for a knock (the defender's
    deadwood after its layoffs), ``["Bob's deadwood 15", "gin bonus 25"]`` for a gin,
    ``["undercut bonus 10", "deadwood 9 - 6 = 3"]`` for an undercut.
    """
    outcome = result["outcome"]
    k, d = result.get("knocker_deadwood"), result.get("defender_deadwood")
    if outcome not in _KNOCKS or not isinstance(k, int) or not isinstance(d, int):
        return []
    defender = names[1 - int(result["knocker"])]
    whose = "your" if defender == "You" else f"{defender}'s"
    if outcome == "GIN":
        return [f"{whose} deadwood {d}", f"gin bonus {rules.gin_bonus}"]
    if outcome == "BIG_GIN":
        return [f"{whose} deadwood {d}", f"big gin bonus {rules.big_gin_bonus}"]
    laid = " ".join(by_rank((result.get("layoffs") or "").split()))
    after = f" (after laying off {laid})" if laid else ""
    if outcome == "UNDERCUT":
        return [f"undercut bonus {rules.undercut_bonus}", f"deadwood {k} - {d}{after} = {k - d}"]
    return [f"deadwood {d}{after} - {k} = {d - k}"]


def result_view(record: dict[str, Any], games: Sequence[int] | None = None) -> dict[str, Any]:
    """A finished hand's record laid out: per seat its melds, layoffs, deadwood and role.

    Also how its points add up (``breakdown``, summed in ``points``), the layoffs on
    the knocker's melds they extend (``laid_on``), and ``games``: the numbers of the
    Hollywood games the points went into (from 1), when known.
    """
    result, names = record["result"], list(record["names"])
    given = record.get("rules")
    rules = RulesConfig.from_dict(given) if isinstance(given, dict) else RulesConfig()
    layout = []
    knock = result["outcome"] in _KNOCKS
    for seat in (0, 1):
        if knock and seat == result["knocker"]:
            row = {
                "role": "knocker",
                "melds": result["knocker_melds"],
                "deadwood_cards": by_rank(result["knocker_deadwood_cards"]),
                "deadwood": result["knocker_deadwood"],
                "layoffs": [],
                "laid_on": laid_on(result["knocker_melds"], (result["layoffs"] or "").split()),
            }
        elif knock:
            row = {
                "role": "defender",
                "melds": result["defender_melds"],
                "deadwood_cards": by_rank(result["defender_deadwood_cards"]),
                "deadwood": result["defender_deadwood"],
                "layoffs": by_rank(result["layoffs"].split()),
            }
        else:
            row = {"role": None, **arrangement(parse_cards(result["hands"][seat])), "layoffs": []}
        layout.append({"name": names[seat], **row})
    # the text lists the cards in the order the page draws them (by rank)
    drawn = dict(
        result,
        knocker_deadwood_cards=by_rank(result.get("knocker_deadwood_cards") or []),
        defender_deadwood_cards=by_rank(result.get("defender_deadwood_cards") or []),
        layoffs=" ".join(by_rank((result.get("layoffs") or "").split())),
    )
    lines = [you_words(line) for line in result_lines(drawn, names)]
    info = record.get("info")
    hand = info.get("hand") if isinstance(info, dict) else None
    return {
        "hand": hand if isinstance(hand, int) and not isinstance(hand, bool) else None,
        "outcome": result["outcome"],
        "winner": result["winner"],
        "points": result["points"],
        "headline": lines[-1],
        "lines": lines,
        "seats": layout,
        "breakdown": breakdown(result, rules, names),
        "games": list(games) if games is not None else None,
    }


def sheet_history(
    records: Sequence[dict[str, Any]], rules: RulesConfig, names: Sequence[str]
) -> list[dict[str, Any]]:
    """The score sheet hand by hand: each finished hand's winner, points and games.

    The records (one series, in order) are scored again on a fresh sheet: ``games`` are
    the Hollywood games (from 1) each hand's points went into, ``totals`` each seat's
    three scores after it (seat 0 first).
    """
    sheets = ScoreSheets(1, rules)
    rows = []
    for k, record in enumerate(records, start=1):
        result = record["result"]
        winner, points = int(result["winner"]), int(result["points"])
        before = sheets.scores[0].copy()
        entered = sheets.entered[0].copy()
        sheets.record(np.array([winner]), np.array([points]))
        games: list[int] = []
        if winner >= 0:
            changed = (sheets.scores[0, winner] != before[winner]) | (
                sheets.entered[0, winner] & ~entered[winner]
            )
            games = [int(g) + 1 for g in np.flatnonzero(changed)]
        rows.append(
            {
                "hand": k,
                "winner": names[winner] if winner >= 0 else None,
                "outcome": result["outcome"],
                "points": points if winner >= 0 else 0,
                "games": games,
                "totals": [[int(v) for v in sheets.scores[0, seat]] for seat in (0, 1)],
            }
        )
    return rows


def play_view(game: PlayGame) -> dict[str, Any]:
    """Everything the page of a person's game is sent, at any moment (the one filter).

    During a hand: the person's hand face up, the opponent's face down (its count and
    known cards only), the person's legal moves when it is their turn, the log of the
    hand. Between hands (``game.pending``): the finished hand's result and log, nothing
    of the next deal. Never the deck, the stock order or the seed.
    """
    session, me = game.session, game.session.seat
    view: dict[str, Any] = {
        "mode": "play",
        "game": game.id,
        "you": me,
        "names": list(game.names),
        "opponent": game.opponent_spec,
        "latency": latency_view(game.think_seconds),
        "opponent_short": short_name(game.opponent_spec),
        "rules": rules_text(session.engine.rules),
        "rules_in_force": rules_words(session.engine.rules),
        "hand_no": game.hand_no,
        "log": list(game.log),
        "log_seats": list(game.log_seats),
        "sheet": sheet_view(session.series.sheets, game.names, me),
        "history": sheet_history(game.records, session.series.rules, game.names),
        "saved_hands": len(game.records),
        "finished": session.finished,
        "ended": game.ended,
        "table": None,
        "moves": None,
        "result": None,
    }
    if game.ended:
        view["status"] = "This game was ended."
        return view
    if game.pending is not None:
        view["result"] = result_view(game.pending, _last_games(view["history"]))
        view["status"] = "The series is over." if session.finished else "The hand is over."
        return view
    view["table"] = table_view(session.engine, game.names, (me,), session.actions)
    if session.human_to_act:
        view["moves"] = moves_view(session.engine, session.legal(), session.legal_hint())
        view["status"] = _todo(view["table"])
    else:
        view["status"] = f"{game.names[1 - me]} to act."
    return view


def latency_view(seconds: Sequence[float]) -> dict[str, Any] | None:
    """The opponent's thinking time: its last decision's and its mean, in milliseconds.

    None before its first decision. A search takes longer where it searches (a knock-legal
    discard, for ``searcher``), as any opponent across a real table would.
    """
    if not seconds:
        return None
    return {
        "last_ms": round(1000 * seconds[-1], 1),
        "mean_ms": round(1000 * sum(seconds) / len(seconds), 1),
        "max_ms": round(1000 * max(seconds), 1),
        "decisions": len(seconds),
    }


def _todo(table: dict[str, Any]) -> str:
    if table["phase"] == "offer":
        return "Your turn: take the upcard or pass."
    if table["phase"] == "draw":
        if table["must_draw_stock"]:
            return "Your turn: draw from the stock."
        return "Your turn: draw from the stock or take the top discard."
    return "Your turn: choose a card to discard, or knock with it."


def watch_view(game: WatchGame) -> dict[str, Any]:
    """The page of a bot-against-bot game: both hands face up, the log, the score sheet."""
    session = game.session
    view: dict[str, Any] = {
        "mode": "watch",
        "game": game.id,
        "names": list(game.names),
        "players": list(game.specs),
        "rules": rules_text(session.engine.rules),
        "rules_in_force": rules_words(session.engine.rules),
        "hand_no": game.hand_no,
        "log": list(game.log),
        "log_seats": list(game.log_seats),
        "sheet": sheet_view(session.series.sheets, game.names, 0),
        "history": sheet_history(game.records, session.series.rules, game.names),
        "saved_hands": len(game.records),
        "finished": session.finished,
        "ended": game.ended,
        "table": None,
        "result": None,
    }
    if game.ended:
        pass
    elif game.pending is not None:
        view["result"] = result_view(game.pending, _last_games(view["history"]))
    else:
        view["table"] = table_view(session.engine, game.names, (0, 1), session.actions)
    return view


def _last_games(history: Sequence[dict[str, Any]]) -> list[int] | None:
    """The games the last finished hand's points went into (None before any hand)."""
    return list(history[-1]["games"]) if history else None


def info_text(info: object) -> str:
    """A record's ``info`` as the replay's title says it: ``series 3 · versions a, b``.

    Only text, numbers and lists of them are shown, each cut short, at most six items.
    """
    if not isinstance(info, dict):
        return ""
    parts = []
    for key, value in list(info.items())[:6]:
        if key == "series" and isinstance(value, int) and not isinstance(value, bool):
            value += 1  # evaluate.py counts series from 0; the page counts from 1, as hands
        if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
            value = ", ".join(str(v) for v in value)
        elif not isinstance(value, str | int | float):
            continue
        text = f"{key} {value}"
        parts.append(text if len(text) <= 60 else text[:57] + "...")
    return "".join(f" · {part}" for part in parts)


def _two_texts(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)


def record_names(record: dict[str, Any], where: str) -> list[str]:
    """The record's two player names, after checking the fields the page reads as text.

    Raises:
        ReplayError: ``names`` (or ``dealt``) is not a list of two texts, or ``result``
            is not an object.
    """
    names = record.get("names")
    if not _two_texts(names):
        raise ReplayError(f"{where}: names must be a list of two texts")
    if "dealt" in record and not _two_texts(record["dealt"]):
        raise ReplayError(f"{where}: dealt must be a list of two texts")
    if not isinstance(record.get("result"), dict):
        raise ReplayError(f"{where}: result must be an object")
    return names  # type: ignore[return-value]


def replay_view(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Verify transcript records and turn each hand into frames (the deal, then one per action).

    A name is shown short (``short_name``) and kept whole up to 200 characters in
    ``full_names``, so the frames grow with the hands, not with the names.

    Raises:
        ReplayError: ``hand K of N: ...`` with the replay module's reason, for the first
            record that does not replay to its stored result (or has no two names).
    """
    if not records:
        raise ReplayError("the transcript holds no hand")
    hands = []
    sheets: ScoreSheets | None = None
    for k, record in enumerate(records, start=1):
        where = f"hand {k} of {len(records)}"
        full = record_names(record, where)
        try:
            replay_hand(record)
        except ReplayError as exc:
            raise ReplayError(f"{where}: {exc}") from exc
        names = [short_name(n) for n in full]
        shown = dict(record, names=names)
        engine = GinEngine(1, RulesConfig.from_dict(record["rules"]), seed=0)
        dealer = int(record["dealer"])
        engine.reset(decks=np.asarray(record["deck"], np.int64)[None], dealers=dealer)
        frames = [
            {
                "line": deal_line(names[dealer], card_text(engine.top_discard[0])),
                "table": table_view(engine, names, (0, 1)),
            }
        ]
        played: list[tuple[int, int]] = []
        for seat, action in record["actions"]:
            line = action_line(engine, action, names[int(seat)])
            engine.step(np.array([int(action)]))
            played.append((int(seat), int(action)))
            frames.append({"line": line, "table": table_view(engine, names, (0, 1), played)})
        rules = engine.rules
        if sheets is None or bool(sheets.finished[0]) or sheets.rules != rules:
            sheets = ScoreSheets(1, rules)  # a new series
        before = sheet_view(sheets, names, 0)
        result = record["result"]
        scores = sheets.scores[0].copy()
        sheets.record(np.array([int(result["winner"])]), np.array([int(result["points"])]))
        winner = int(result["winner"])
        games = (
            [int(g) + 1 for g in np.flatnonzero(sheets.scores[0, winner] != scores[winner])]
            if winner >= 0
            else []
        )
        hands.append(
            {
                "title": f"Hand {k} of {len(records)}{info_text(record.get('info'))}",
                "names": names,
                "full_names": [n[:MAX_TEXT] for n in full],
                "rules": rules_text(rules),
                "rules_in_force": rules_words(rules),
                "frames": frames,
                "result": result_view(shown, games),
                "sheet_before": before,
                "sheet": sheet_view(sheets, names, 0),
            }
        )
    return {"mode": "replay", "hands": hands}

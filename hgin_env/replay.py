"""Hand transcripts: a JSON record of one hand, its text rendering, and a verifying replay.

A record (one JSON object, one line of a ``.jsonl`` transcript) holds what is needed to
play the hand again through ``GinEngine(1, rules)`` and what the engine said at its end:

==============  ============================================================================
key             meaning
==============  ============================================================================
version         record format version (1)
names           the two players' names, seat 0 first
rules           the ``RulesConfig`` options as a dict
dealer          the seat that dealt
deck            the 52 card ids in deal order (``deck[0:10]`` the non-dealer's hand,
                ``deck[10:20]`` the dealer's, ``deck[20]`` the upcard, then the stock)
dealt           the two hands as dealt, card text, seat 0 first
actions         ``[seat, action id]`` pairs in the order they were played
result          the engine's end of the hand: ``outcome`` (an ``Outcome`` name), ``winner``,
                ``points``, ``turns``, ``hands`` (final card text per seat); on a knock
                also ``knocker``, ``knocker_deadwood``, ``defender_deadwood``, ``layoffs``,
                ``knocker_melds``, ``knocker_deadwood_cards``, ``defender_melds``,
                ``defender_deadwood_cards``
info            free-form context (series index, hand number, seed)
==============  ============================================================================

``replay_hand`` re-runs a record step by step, checks every action's seat and legality
and the final result against the record, and returns the text of the hand; a mismatch
raises ``ReplayError``, and a record that is not a well-formed hand record of this
version (missing keys, a deck that is not the 52 card ids, an action id outside 0..106)
raises its subclass ``RecordError``. Run ``python -m hgin_env.replay PATH [--hand K]`` to
print (and verify) the hands of a transcript: exit status 0 when every hand replays,
1 when a hand does not match the engine, 2 for an unreadable or malformed transcript.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hgin_env.engine.actions import DRAW, KNOCK, N_ACTIONS, PASS, TAKE, action_text
from hgin_env.engine.cards import N_CARDS, card_text, format_cards
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import UPCARD, GinEngine, HandState, Outcome
from hgin_env.engine.melds import arrangement_melds
from hgin_env.envs.render import melds_text

RECORD_VERSION = 1
_KNOCKS = (Outcome.KNOCK, Outcome.GIN, Outcome.UNDERCUT, Outcome.BIG_GIN)


class ReplayError(ValueError):
    """A transcript that does not match what the engine does with it."""


class RecordError(ReplayError):
    """A transcript or record that is not readable as hand records of this version."""


def _cards(cards: Sequence[int]) -> list[str]:
    return [card_text(c) for c in cards]


def _meld_lists(melds: list[list[int]]) -> list[list[str]]:
    return [_cards(m) for m in melds]


def hand_result(final: HandState, j: int = 0) -> dict[str, Any]:
    """The end of hand ``j`` of ``final`` (a finished ``HandState``) as a JSON-ready dict."""
    outcome = Outcome(int(final.outcome[j]))
    result: dict[str, Any] = {
        "outcome": outcome.name,
        "winner": int(final.winner[j]),
        "points": int(final.points[j]),
        "turns": int(final.turns[j]),
        "hands": [format_cards(final.hands[j, seat]) for seat in (0, 1)],
    }
    if outcome in _KNOCKS:
        knocker = int(final.knocker[j])
        k_melds, k_dead = arrangement_melds(
            final.hands[j, knocker], final.knocker_sets[j], final.knocker_runs[j]
        )
        d_melds, d_dead = arrangement_melds(
            final.hands[j, 1 - knocker], final.defender_sets[j], final.defender_runs[j]
        )
        laid_off = final.layoffs[j]
        result.update(
            knocker=knocker,
            knocker_deadwood=int(final.knocker_deadwood[j]),
            defender_deadwood=int(final.defender_deadwood[j]),
            layoffs=format_cards(laid_off),
            knocker_melds=_meld_lists(k_melds),
            knocker_deadwood_cards=_cards(k_dead),
            defender_melds=_meld_lists(d_melds),
            defender_deadwood_cards=_cards([c for c in d_dead if not laid_off[c]]),
        )
    return result


def hand_record(
    deck: np.ndarray,
    dealer: int,
    actions: Sequence[tuple[int, int]],
    final: HandState,
    j: int = 0,
    rules: RulesConfig | None = None,
    names: Sequence[str] = ("P0", "P1"),
    info: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build the record of one finished hand (see the module docstring).

    Args:
        deck: int[52], the hand's deck order.
        dealer: the seat that dealt.
        actions: ``(seat, action id)`` pairs in play order.
        final: the finished hands (a ``HandState``), e.g. ``SeriesStep.hands``.
        j: the row of ``final`` holding this hand.
        rules: the rules options it was played under.
        names: the players' names, seat 0 first.
        info: extra context stored under ``info``.
    """
    order = [int(c) for c in np.asarray(deck).reshape(-1)]
    dealer = int(dealer)
    first, second = sorted(order[:10]), sorted(order[10:UPCARD])
    dealt = [second, first] if dealer == 0 else [first, second]  # seat 0 first
    return {
        "version": RECORD_VERSION,
        "names": list(names),
        "rules": (rules or RulesConfig()).to_dict(),
        "dealer": dealer,
        "deck": order,
        "dealt": [" ".join(_cards(h)) for h in dealt],
        "actions": [[int(seat), int(a)] for seat, a in actions],
        "result": hand_result(final, j),
        "info": dict(info or {}),
    }


# ---------------------------------------------------------------------- text
def describe_action(engine: GinEngine, action: int, name: str, hidden_draw: bool = False) -> str:
    """Say what ``name`` does with ``action`` in game 0 of ``engine`` (call before the step).

    Args:
        engine: the engine, before the action is applied.
        action: the action id.
        name: the acting player's name.
        hidden_draw: do not name the card drawn from the stock (an opponent's draw).
    """
    action = int(action)
    if action == PASS:
        return f"{name} passes on the upcard {card_text(engine.top_discard[0])}"
    if action == TAKE:
        return f"{name} takes {card_text(engine.top_discard[0])}"
    if action == DRAW:
        if hidden_draw:
            return f"{name} draws from the stock"
        s = engine.state
        return f"{name} draws {card_text(s.deck[0, s.stock_pos[0]])} from the stock"
    if action >= KNOCK:
        return f"{name} knocks, discarding {card_text(action - KNOCK)}"
    return f"{name} discards {card_text(action)}"


def _group(melds: list[list[str]], loose: list[str]) -> str:
    text = " ".join("[" + " ".join(m) + "]" for m in melds)
    if loose:
        text = f"{text} | {' '.join(loose)}" if text else " ".join(loose)
    return text or "-"


def result_lines(result: dict[str, Any], names: Sequence[str]) -> list[str]:
    """The end of a hand as text: both hands with melds and layoffs, deadwood and points."""
    outcome = Outcome[result["outcome"]]
    winner = result["winner"]
    if outcome not in _KNOCKS:
        why = "stock down to two cards" if outcome == Outcome.DRAW else "turn limit reached"
        return [f"Hand drawn ({why}): no score."]
    knocker = result["knocker"]
    kname, dname = names[knocker], names[1 - knocker]
    width = max(len(kname), len(dname)) + 12
    lines = [
        f"{(kname + ' (knocker)').ljust(width)}"
        f"{_group(result['knocker_melds'], result['knocker_deadwood_cards'])}"
        f"  deadwood {result['knocker_deadwood']}",
        f"{(dname + ' (defender)').ljust(width)}"
        f"{_group(result['defender_melds'], result['defender_deadwood_cards'])}"
        f"  deadwood {result['defender_deadwood']} after layoffs",
        f"{'Laid off'.ljust(width)}{result['layoffs'] or '-'}",
    ]
    what = {
        Outcome.KNOCK: f"{kname} knocks",
        Outcome.GIN: f"{kname} goes gin",
        Outcome.BIG_GIN: f"{kname} goes big gin",
        Outcome.UNDERCUT: f"{dname} undercuts {kname}",
    }[outcome]
    lines.append(f"{what}: {result['points']} points to {names[winner]}.")
    return lines


# ---------------------------------------------------------------------- replay
def replay_hand(record: dict[str, Any]) -> tuple[GinEngine, list[str]]:
    """Play a record again through ``GinEngine(1, rules)`` and check it step by step.

    Returns:
        ``(engine, lines)``: the engine at the end of the hand and the hand as text.

    Raises:
        RecordError: a malformed record (see the module docstring).
        ReplayError: an action by the wrong seat or an illegal one, a hand still live
            after the last action, or a result other than the record's.
    """
    version = record.get("version")
    if version != RECORD_VERSION:
        raise RecordError(
            f"hand record version {version!r} is not supported (this replay reads "
            f"version {RECORD_VERSION})"
        )
    try:
        rules = RulesConfig.from_dict(record["rules"])
        names = list(record["names"])
        dealer = int(record["dealer"])
        deck = np.asarray(record["deck"], dtype=np.int64)
        actions = [(int(seat), int(a)) for seat, a in record["actions"]]
        want = record["result"]
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise RecordError(f"malformed hand record: {exc}") from exc
    if deck.shape != (N_CARDS,) or sorted(deck.tolist()) != list(range(N_CARDS)):
        found = f"{deck.size} entries" if deck.size != N_CARDS else "repeated or unknown ids"
        raise RecordError(
            f"malformed hand record: the deck must list the card ids 0..{N_CARDS - 1} once "
            f"each, got {found}"
        )
    for k, (seat, action) in enumerate(actions, start=1):
        if not 0 <= action < N_ACTIONS or seat not in (0, 1):
            raise RecordError(
                f"malformed hand record: step {k} has seat {seat}, action id {action} "
                f"(seats are 0 and 1, action ids 0..{N_ACTIONS - 1})"
            )
    if len(names) != 2 or not all(isinstance(name, str) for name in names):
        raise RecordError(f"malformed hand record: names must hold 2 names, got {names!r}")
    if not isinstance(want, dict):
        raise RecordError(f"malformed hand record: result must be an object, got {want!r}")
    if "dealt" in record and not (
        isinstance(record["dealt"], list) and all(isinstance(d, str) for d in record["dealt"])
    ):
        raise RecordError(
            f"malformed hand record: dealt must be a list of two hands, got {record['dealt']!r}"
        )
    try:
        engine = GinEngine(1, rules, seed=0)
        engine.reset(decks=deck[None], dealers=dealer)
    except ValueError as exc:
        raise RecordError(f"malformed hand record: {exc}") from exc
    s = engine.state
    dealt = [format_cards(s.hands[0, seat]) for seat in (0, 1)]
    if "dealt" in record and list(record["dealt"]) != dealt:
        raise ReplayError(f"the deck deals {dealt}, the record says {record['dealt']}")
    lines = [
        f"{names[0]} (seat 0) vs {names[1]} (seat 1); {names[dealer]} deals",
        *(f"  {names[seat]} dealt: {melds_text(s.hands[0, seat])[0]}" for seat in (0, 1)),
        f"  upcard: {card_text(engine.top_discard[0])}",
    ]
    for k, (seat, action) in enumerate(actions, start=1):
        if engine.all_over:
            raise ReplayError(f"step {k}: the hand is already over, yet the record goes on")
        if int(engine.current_player[0]) != seat:
            raise ReplayError(
                f"step {k}: the record has seat {seat} acting, the engine has seat "
                f"{int(engine.current_player[0])} to act"
            )
        if not engine.legal_action_mask()[0, action]:
            legal = ", ".join(action_text(a) for a in np.flatnonzero(engine.legal_action_mask()[0]))
            raise ReplayError(
                f"step {k}: action {action} ({action_text(action)}) is illegal here; legal: {legal}"
            )
        text = describe_action(engine, action, names[seat])
        try:
            engine.step(np.array([action]))
        except ValueError as exc:
            raise ReplayError(f"step {k}: {exc}") from exc
        lines.append(f"  {k:3d}. {text}")
    if not engine.all_over:
        raise ReplayError(f"the hand is still live after the record's {len(actions)} actions")
    got = hand_result(engine.state, 0)
    diff = sorted(key for key in set(got) | set(want) if got.get(key) != want.get(key))
    if diff:
        detail = "; ".join(
            f"{key}: engine {got.get(key)!r}, record {want.get(key)!r}" for key in diff
        )
        raise ReplayError(f"the replayed result differs from the record: {detail}")
    lines += ["  " + line for line in result_lines(got, names)]
    return engine, lines


def record_info(record: dict[str, Any]) -> dict[str, Any]:
    """The record's optional ``info`` object: free-form, ``{}`` when absent or not an object."""
    info = record.get("info") or {}
    return info if isinstance(info, dict) else {}


def format_record(record: dict[str, Any], title: str | None = None) -> str:
    """The hand of a record as readable text (replayed and verified)."""
    _, lines = replay_hand(record)
    info = record_info(record)
    head = title or "Hand" + "".join(f", {k} {v}" for k, v in info.items())
    return "\n".join([head, *lines])


def _valid_text(record: dict[str, Any]) -> bool:
    """Whether every text of ``record`` is valid Unicode (no lone UTF-16 surrogate)."""
    try:
        json.dumps(record, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _mended(value: Any) -> Any:
    """``value`` with each lone surrogate of its texts (keys too) replaced by ``?``."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_mended(k): _mended(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mended(v) for v in value]
    return value


def record_line(record: dict[str, Any]) -> str:
    """One transcript line for ``record`` (with its newline), always readable back.

    A text that is not valid Unicode (a name of undecodable bytes reaches Python as lone
    surrogates) is written with ``?`` in their place, so ``read_transcript`` and the web
    table's replay accept every line a writer wrote.
    """
    return json.dumps(record if _valid_text(record) else _mended(record)) + "\n"


def read_transcript(path: str | Path) -> list[dict[str, Any]]:
    """Read the records of a JSON Lines transcript (blank lines skipped).

    Raises:
        RecordError: a file that is not UTF-8 text, a line that is not a JSON object, or
            a file without any record.
        OSError: a file that cannot be read.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not a text transcript (not UTF-8: {exc.reason})") from exc
    return parse_transcript(text, path)


def parse_transcript(text: str, path: str | Path = "transcript") -> list[dict[str, Any]]:
    """The records of a JSON Lines transcript's text; ``path`` names it in errors.

    Raises:
        RecordError: a line that is not a JSON object (or is nested too deep, or holds a
            text that is not valid Unicode), or a text without any record.
    """
    records = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}:{n}: not JSON ({exc})") from exc
        except ValueError as exc:  # Python reads integers of at most 4,300 digits
            raise RecordError(f"{path}: a line holds a number too long") from exc
        except RecursionError:
            raise RecordError(f"{path}:{n}: a line is nested too deep") from None
        if not isinstance(rec, dict):
            raise RecordError(f"{path}:{n}: expected a JSON object per line")
        if not _valid_text(rec):
            raise RecordError(
                f"{path}:{n}: a text holds an invalid Unicode escape (a lone surrogate)"
            )
        records.append(rec)
    if not records:
        raise RecordError(f"{path}: no hand records (the file is empty)")
    return records


def main(argv: list[str] | None = None) -> int:
    """Print and verify the hands of a transcript; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m hgin_env.replay",
        description="Replay the hands of a JSON Lines transcript through the engine.",
        epilog="exit status: 0 every hand verified, 1 a hand differs from the engine, "
        "2 an unreadable or malformed transcript",
    )
    from hgin_env import __version__

    parser.add_argument(
        "--version", action="version", version=f"%(prog)s (hollywood-gin) {__version__}"
    )
    parser.add_argument("path", type=Path, help="a .jsonl transcript")
    parser.add_argument("--hand", type=int, metavar="K", help="only hand K (1-based)")
    args = parser.parse_args(argv)
    try:
        records = read_transcript(args.path)
        if args.hand is not None and not 1 <= args.hand <= len(records):
            raise RecordError(f"--hand must be in 1..{len(records)}, got {args.hand}")
        chosen = range(len(records)) if args.hand is None else [args.hand - 1]
        for k in chosen:
            info = record_info(records[k])
            extra = "".join(f", {key} {value}" for key, value in info.items())
            print(format_record(records[k], f"Hand {k + 1} of {len(records)}{extra}"))
            print()
    except (OSError, RecordError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ReplayError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"verified {len(chosen)} hand(s) against the engine")
    return 0


if __name__ == "__main__":
    sys.exit(main())

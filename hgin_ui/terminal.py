"""A terminal game of Hollywood Gin: a person against a bot or a trained model.

``GameSession`` holds one Hollywood series (a ``SeriesEngine`` of one game): the human's
seat, the opponent policy (which acts on ``encode_observations`` for its seat), and the
actions of the current hand for a transcript. ``play`` runs the text loop over it:

- the human's view before each of their moves (``render_view``: the hand grouped into
  its best melds with the deadwood apart, the top discard, the stock, the opponent's
  known cards), then a prompt with the legal moves;
- the opponent's moves as they happen (its draws from the stock stay hidden);
- at the end of a hand both hands with melds, layoffs and the score, then the sheet.

Prompt grammar: ``draw``, ``take``, ``pass``, a card (``7H``: discard it),
``knock 7H``; ``help`` or ``?`` lists the legal moves, ``show`` redraws the table,
``quit`` ends. Anything illegal gets a message saying why, and the prompt again. End
of input (a pipe running dry) ends the game cleanly.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from hgin_env.engine.actions import DRAW, KNOCK, PASS, TAKE, action_text, parse_action
from hgin_env.engine.cards import N_CARDS, card_text
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, Phase
from hgin_env.engine.series import SeriesEngine, SeriesStep
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.policy import Policy
from hgin_env.envs.render import render_view, sheet_text
from hgin_env.replay import describe_action, hand_record, result_lines

COMMANDS = "draw, take, pass, a card to discard (7H), knock 7H; help, show, quit"


class MoveError(ValueError):
    """A move that is not read or not legal; the message is what the player is told."""


def input_text(action: int) -> str:
    """What a person types for an action: ``"7H"``, ``"knock 7H"``, ``"draw"``..."""
    action = int(action)
    if action < KNOCK:
        return card_text(action)
    return action_text(action)


def read_line(prompt: str) -> str:
    """Read one line after ``prompt``; with piped input, echo the line so the log reads well.

    Raises:
        EOFError: at the end of the input.
    """
    if sys.stdin.isatty():
        return input(prompt)
    line = sys.stdin.readline()
    if not line:
        print(prompt)
        raise EOFError
    print(prompt + line.rstrip("\n"))
    return line


class GameSession:
    """One Hollywood series between a person (``seat``) and an opponent policy.

    Args:
        opponent: the opponent's policy.
        seed: the seed of the deals (and of the first dealer).
        seat: the human's seat, 0 or 1.
        rules: the rules options.
    """

    def __init__(
        self,
        opponent: Policy,
        seed: int | None = 0,
        seat: int = 0,
        rules: RulesConfig | None = None,
    ) -> None:
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat}")
        self.opponent = opponent
        self.seat = seat
        self.series = SeriesEngine(1, rules, seed=seed)
        self.series.reset()
        self.hands_done = 0
        self.actions: list[tuple[int, int]] = []  # (seat, action) of the current hand
        self._deal()

    @property
    def engine(self) -> GinEngine:
        """The ``GinEngine`` of the series."""
        return self.series.engine

    @property
    def finished(self) -> bool:
        """Whether the series is over."""
        return bool(self.series.finished[0])

    @property
    def human_to_act(self) -> bool:
        """Whether the human is to act."""
        return int(self.engine.current_player[0]) == self.seat

    def legal(self) -> np.ndarray:
        """bool[107]: the legal actions of the seat to act."""
        return self.engine.legal_action_mask()[0]

    def observation(self, seat: int) -> np.ndarray:
        """float32[1, OBS_DIM]: what ``seat`` observes now."""
        return encode_observations(self.engine, np.array([seat]), self.series.sheets, np.array([0]))

    def opponent_action(self) -> int:
        """The opponent policy's action now."""
        obs = self.observation(1 - self.seat)
        return int(self.opponent.act(obs, self.legal()[None])[0])

    def _deal(self) -> None:
        s = self.engine.state
        self._deck, self._dealer = s.deck[0].copy(), int(s.dealer[0])
        self.actions = []

    def step(self, action: int) -> SeriesStep:
        """Apply the action of the seat to act; a finished hand deals the next one."""
        self.actions.append((int(self.engine.current_player[0]), int(action)))
        step = self.series.step(np.array([action]))
        if step.rows.size:
            self.hands_done += 1
            self.last_record = hand_record(
                self._deck, self._dealer, self.actions, step.hands, 0, self.series.rules,
                info={"hand": self.hands_done},
            )  # fmt: skip
            self._deal()
        return step

    def why_illegal(self, action: int) -> str:
        """A sentence saying why the human's ``action`` is not legal now."""
        s, rules = self.engine.state, self.series.rules
        phase = Phase(int(s.phase[0]))
        hand = s.hands[0, self.seat]
        if phase == Phase.OFFER:
            return "It is the upcard offer: take the upcard or pass."
        if phase == Phase.DRAW:
            if action == TAKE and s.must_draw_stock[0]:
                return "Both players passed the upcard: you must draw from the stock."
            return "Draw first: draw from the stock or take the top discard."
        if action in (DRAW, TAKE, PASS):
            return "You have drawn already: discard a card (like 7H) or knock (knock 7H)."
        card = action % N_CARDS
        if not hand[card]:
            return f"You do not hold {card_text(card)}."
        if card == int(s.taken[0]) and not rules.allow_rediscard:
            return f"You cannot discard {card_text(card)}, the card you just took from the pile."
        deadwood = int(self.engine.discard_deadwood()[0, card])
        return (
            f"You cannot knock discarding {card_text(card)}: your deadwood would be "
            f"{deadwood} (the knock limit is {rules.knock_limit})."
        )

    def legal_hint(self) -> str:
        """The legal moves in prompt form: ``Legal: draw, take`` or discards and knocks."""
        legal = np.flatnonzero(self.legal())
        discards = [card_text(a) for a in legal if a < KNOCK]
        knocks = [card_text(a - KNOCK) for a in legal if KNOCK <= a < DRAW]
        words = [action_text(a) for a in legal if a >= DRAW]
        if discards:
            words.append("discard one of " + " ".join(discards))
        if knocks:
            words.append("knock with one of " + " ".join(knocks))
        return "Legal: " + "; ".join(words)

    def read_move(self, text: str) -> int:
        """The action id of a typed move (``7H``, ``knock 7H``, ``draw``...) if it is legal now.

        Raises:
            MoveError: ``Not a move: ...`` or ``Illegal move: ...``, then the legal moves.
        """
        try:
            action = parse_action(text)
        except ValueError as exc:
            raise MoveError(f"Not a move: {exc}. {self.legal_hint()}") from exc
        if not self.legal()[action]:
            raise MoveError(f"Illegal move: {self.why_illegal(action)} {self.legal_hint()}")
        return action


def play(
    session: GameSession,
    names: tuple[str, str] = ("You", "Opponent"),
    hands: int | None = None,
    read: Callable[[str], str] = read_line,
    write: Callable[[str], None] = print,
    transcript: Path | None = None,
) -> int:
    """Run the text game until the series ends, ``hands`` hands are played, or the input ends.

    Args:
        session: the game.
        names: the human's and the opponent's names.
        hands: stop after this many hands (None: play the whole series).
        read: reads one line after showing a prompt; raises ``EOFError`` at the end.
        write: prints one block of text.
        transcript: append each finished hand's record to this JSON Lines file.

    Returns:
        The exit status: 0 (the game or the input ended, or the player quit).
    """
    me, you = names
    who = {session.seat: me, 1 - session.seat: you}
    write(f"Hollywood Gin: {me} (seat {session.seat}) against {you}. Type help for the moves.")
    write(_hand_banner(session, who))
    show = True
    while not session.finished and (hands is None or session.hands_done < hands):
        if not session.human_to_act:
            action = session.opponent_action()
            write(describe_action(session.engine, action, you, hidden_draw=True))
            _after(session, session.step(action), who, names, write, transcript, hands)
            show = True
            continue
        if show:
            write("\n" + render_view(session.engine, None, 0, session.seat, names))
            write(session.legal_hint())
            show = False
        try:
            line = read(f"{me}> ").strip()
        except (EOFError, KeyboardInterrupt):
            write("\nEnd of input: leaving the game.")
            return 0
        command = line.lower()
        if not command:
            continue
        if command in ("help", "?"):
            write(f"{session.legal_hint()}\nCommands: {COMMANDS}")
            continue
        if command in ("show", "hand"):
            show = True
            continue
        if command in ("quit", "exit", "q"):
            write("You left the game.")
            return 0
        try:
            action = session.read_move(line)
        except MoveError as exc:
            write(str(exc))
            continue
        if action == DRAW:
            s = session.engine.state
            write(f"{me}: drew {card_text(s.deck[0, s.stock_pos[0]])} from the stock")
        elif KNOCK <= action < DRAW:
            write(f"{me}: knock, discarding {card_text(action - KNOCK)}")
        _after(session, session.step(action), who, names, write, transcript, hands)
        show = True
    if session.finished:
        write("The series is over.")
    else:
        write(f"Stopped after {session.hands_done} hand(s).")
    return 0


def _hand_banner(session: GameSession, who: dict[int, str]) -> str:
    s = session.engine.state
    return (
        f"\n=== Hand {session.hands_done + 1}: {who[int(s.dealer[0])]} deals; "
        f"upcard {card_text(session.engine.top_discard[0])} ==="
    )


def _after(
    session: GameSession,
    step: SeriesStep,
    who: dict[int, str],
    names: tuple[str, str],
    write: Callable[[str], None],
    transcript: Path | None,
    hands: int | None,
) -> None:
    """Report a finished hand: both hands, melds, layoffs, points, then the score sheet."""
    if step.rows.size == 0:
        return
    record = session.last_record
    seat_names = [who[0], who[1]]
    result = record["result"]
    lines = ["", "--- Hand over ---"]
    lines += [f"{seat_names[p]} holds {result['hands'][p]}" for p in (0, 1)]
    lines += result_lines(result, seat_names)
    lines += ["", sheet_text(session.series.sheets, 0, session.seat, names)]
    write("\n".join(lines))
    if transcript is not None:
        record["names"] = seat_names
        transcript.parent.mkdir(parents=True, exist_ok=True)
        with transcript.open("a") as f:
            f.write(json.dumps(record) + "\n")
    if not session.finished and (hands is None or session.hands_done < hands):
        write(_hand_banner(session, who))


__all__ = ["GameSession", "MoveError", "input_text", "play"]

"""The games the web table holds: a person against a policy, two policies, and the store.

The server keeps every game; the page only ever gets the views of ``hgin_ui.web.views``.

- ``PlayGame`` wraps ``hgin_ui.terminal.GameSession`` (the terminal game's session): the
  person's moves are read by ``GameSession.read_move``, so a refused move gets the very
  message ``play.py`` prints; the opponent moves at once after each of the person's.
  When a hand ends, the game holds its record (``pending``) until the person asks for
  the next deal, so the end of a hand and the next deal never share a message.
- ``WatchGame`` plays two policies one action per ``step``.
- ``GameStore`` maps game ids (random, one per new game: a tab is a game) to games. It
  forgets a game idle for an hour, and holds at most ``limit`` games: when full, a game
  that is over (its series finished, or ended by its player: ``Table.end``) makes room
  first; else the least recently used game goes only if it has been idle for
  ``protect_s`` (10 minutes), else the new game is refused (``StoreFullError``, saying
  when to try again), so a flood of new games never ends a series someone is playing.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hgin_env.engine.cards import card_text
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.policy import Policy
from hgin_env.replay import record_line
from hgin_ui.terminal import GameSession, MoveError

from .catalog import short_name
from .words import action_line, deal_line


class Table:
    """What a played game and a watched one share: the session, the log, the records.

    Args:
        game_id: the game's id.
        session: the series being played.
        names: the players' names, seat 0 first.
        transcript: append each finished hand's record to this JSON Lines file.
    """

    def __init__(
        self,
        game_id: str,
        session: GameSession,
        names: tuple[str, str],
        transcript: Path | None = None,
    ) -> None:
        self.id = game_id
        self.session = session
        self.names = names
        self.transcript = transcript
        self.log: list[str] = []
        self.log_seats: list[int | None] = []  # the seat each log line is about (None: deal)
        self.records: list[dict[str, Any]] = []
        self.pending: dict[str, Any] | None = None  # the record of a hand just finished
        self.ended = False  # ended by its player before the series finished
        self.lock = threading.Lock()
        self._banner()

    @property
    def over(self) -> bool:
        """Whether the game plays no more: its series finished, or its player ended it."""
        return self.ended or self.session.finished

    def end(self) -> None:
        """End the game: it plays no more and gives up its place (its hands stay saved)."""
        self.ended = True

    def _check_live(self) -> None:
        """Refuse a move of a game that is over.

        Raises:
            MoveError: the series is over, or the game was ended.
        """
        if self.ended:
            raise MoveError("This game was ended: start a new one.")
        if self.session.finished:
            raise MoveError("The series is over: start a new one.")

    @property
    def hand_no(self) -> int:
        """The number of the hand on the table (or just finished), from 1."""
        return self.session.hands_done + (0 if self.pending is not None else 1)

    def _banner(self) -> None:
        engine = self.session.engine
        dealer = self.names[int(engine.state.dealer[0])]
        line = deal_line(dealer, card_text(engine.top_discard[0]))
        self.log.append(f"Hand {self.session.hands_done + 1}: {line}")
        self.log_seats.append(None)

    def _apply(self, action: int, hidden_draw: bool) -> None:
        """Log and play the action of the seat to act; keep the record of a finished hand."""
        engine = self.session.engine
        seat = int(engine.current_player[0])
        self.log.append(action_line(engine, action, self.names[seat], hidden_draw))
        self.log_seats.append(seat)
        step = self.session.step(action)
        if step.rows.size:
            record = self.session.last_record
            record["names"] = list(self.names)
            self.records.append(record)
            self.pending = record
            if self.transcript is not None:
                self.transcript.parent.mkdir(parents=True, exist_ok=True)
                with self.transcript.open("a", encoding="utf-8") as f:
                    f.write(record_line(record))

    def _next_deal(self) -> None:
        """Leave the finished hand and show the next deal."""
        self.pending = None
        self.log, self.log_seats = [], []
        self._banner()

    def transcript_text(self) -> str:
        """The finished hands as JSON Lines (``python -m hgin_env.replay`` reads it)."""
        return "".join(record_line(r) for r in self.records)


class PlayGame(Table):
    """A person against a policy over one Hollywood series.

    Args:
        game_id: the game's id.
        opponent_spec: the opponent's full spec (a hover or a click away on the page).
        opponent: the opponent's policy.
        seed: the seed of the deals (None: random).
        seat: the person's seat.
        rules: the rules options.
        names: the person's and the opponent's names.
        transcript: append each finished hand to this JSON Lines file.
    """

    def __init__(
        self,
        game_id: str,
        opponent_spec: str,
        opponent: Policy,
        seed: int | None = None,
        seat: int = 0,
        rules: RulesConfig | None = None,
        names: tuple[str, str] = ("You", "Opponent"),
        transcript: Path | None = None,
    ) -> None:
        session = GameSession(opponent, seed=seed, seat=seat, rules=rules)
        by_seat = (names[0], names[1]) if seat == 0 else (names[1], names[0])
        super().__init__(game_id, session, by_seat, transcript)
        self.opponent_spec = opponent_spec
        #: seconds the opponent took for each of its decisions so far (its latency)
        self.think_seconds: list[float] = []
        self._opponent_moves()

    def _opponent_moves(self) -> None:
        session = self.session
        while self.pending is None and not session.finished and not session.human_to_act:
            start = time.perf_counter()
            action = session.opponent_action()
            self.think_seconds.append(time.perf_counter() - start)
            self._apply(action, hidden_draw=True)

    def move(self, text: str) -> None:
        """Play the person's move, typed as at ``play.py``'s prompt, then the opponent's.

        Raises:
            MoveError: the move is not read or not legal (``play.py``'s message), or the
                hand or the series is over; the game is unchanged.
        """
        self._check_live()
        if self.pending is not None:
            raise MoveError("The hand is over: deal the next hand first.")
        action = self.session.read_move(text)
        self._apply(action, hidden_draw=False)
        self._opponent_moves()

    def next_hand(self) -> None:
        """Deal the next hand after a finished one (the opponent moves if it plays first).

        Raises:
            MoveError: no hand has just finished, or the series is over.
        """
        self._check_live()
        if self.pending is None:
            raise MoveError("The hand is still on: play it out first.")
        self._next_deal()
        self._opponent_moves()


class WatchGame(Table):
    """Two policies over one Hollywood series, one action per ``step``.

    Args:
        game_id: the game's id.
        specs: the players' full specs, seat 0 first (the page shows ``short_name``).
        players: their policies, seat 0 first.
        seed: the seed of the deals (None: random).
        rules: the rules options.
        transcript: append each finished hand to this JSON Lines file.
    """

    def __init__(
        self,
        game_id: str,
        specs: tuple[str, str],
        players: tuple[Policy, Policy],
        seed: int | None = None,
        rules: RulesConfig | None = None,
        transcript: Path | None = None,
    ) -> None:
        session = GameSession(players[1], seed=seed, seat=0, rules=rules)
        short = (short_name(specs[0]), short_name(specs[1]))
        names = short if short[0] != short[1] else (f"{short[0]} (1)", f"{short[1]} (2)")
        super().__init__(game_id, session, names, transcript)
        self.specs = specs
        self.players = players

    def step(self) -> None:
        """Play one action; after a finished hand, deal the next one instead.

        Raises:
            MoveError: the series is over, or the game was ended.
        """
        session = self.session
        self._check_live()
        if self.pending is not None:
            self._next_deal()
            return
        if session.human_to_act:  # seat 0's policy
            obs, legal = session.observation(0), session.legal()[None]
            action = int(self.players[0].act(obs, legal)[0])
        else:
            action = session.opponent_action()
        self._apply(action, hidden_draw=False)


class StoreFullError(RuntimeError):
    """The store is full of games in play: a new game is refused (the message says so)."""


class GameStore:
    """Games by id, forgotten when idle; a new game never pushes out one in play.

    Args:
        limit: the most games held at once.
        idle_s: a game not used for this long (seconds) is forgotten.
        protect_s: a game used within this many seconds is never forgotten to make room.
        clock: the time in seconds (``time.monotonic``; a test passes its own).
    """

    def __init__(
        self,
        limit: int = 200,
        idle_s: float = 3600.0,
        protect_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.idle_s = idle_s
        self.protect_s = protect_s
        self.clock = clock
        self._games: OrderedDict[str, tuple[Table, float]] = OrderedDict()  # oldest use first
        self._lock = threading.Lock()

    @staticmethod
    def new_id() -> str:
        """A fresh random game id: 128 bits, so the page's URL may hold it unguessed."""
        return secrets.token_hex(16)

    def _forget_idle(self, now: float) -> None:
        while self._games:
            game_id, (_, used) = next(iter(self._games.items()))
            if now - used < self.idle_s:
                break
            del self._games[game_id]

    def add(self, game: Table) -> None:
        """Keep a game; when full, make room first (see below).

        Room is made by forgetting a game that is over, else the least recently used
        game if it has been idle for ``protect_s``.

        Raises:
            StoreFullError: every game held is in play and was used in the last
                ``protect_s`` seconds (the message says when one will give way).
        """
        with self._lock:
            now = self.clock()
            self._forget_idle(now)
            if len(self._games) >= self.limit:
                over = next((k for k, (g, _) in self._games.items() if g.over), None)
                oldest_id, (_, used) = next(iter(self._games.items()))
                if over is not None:
                    del self._games[over]
                elif now - used >= self.protect_s:
                    del self._games[oldest_id]
                else:
                    wait = math.ceil((self.protect_s - (now - used)) / 60)
                    raise StoreFullError(
                        f"no new game now: the table holds {self.limit} games, all in play. "
                        "End a game you no longer play (its End game button), or try again "
                        f"in {wait} minute{'s' if wait != 1 else ''}."
                    )
            self._games[game.id] = (game, now)

    def get(self, game_id: str, kind: type[Table] = Table) -> Table:
        """The game with this id (this counts as a use of it).

        Raises:
            KeyError: no such game of that kind (the message says what to do).
        """
        with self._lock:
            now = self.clock()
            self._forget_idle(now)
            held = self._games.get(game_id)
            if held is None or not isinstance(held[0], kind):
                shown = game_id if len(game_id) <= 20 else game_id[:17] + "..."
                raise KeyError(f"no such game {shown!r}: start a new one")
            self._games[game_id] = (held[0], now)
            self._games.move_to_end(game_id)
            return held[0]

    def clear(self) -> None:
        """Forget every game."""
        with self._lock:
            self._games.clear()

    def __len__(self) -> int:
        return len(self._games)

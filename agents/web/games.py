"""The games the web table holds: a person against a policy, two policies, and the store.

The server keeps every game; the page only ever gets the views of ``agents.web.views``.

- ``PlayGame`` wraps ``agents.play.GameSession`` (the terminal game's session): the
  person's moves are read by ``GameSession.read_move``, so a refused move gets the very
  message ``play.py`` prints; the opponent moves at once after each of the person's.
  When a hand ends, the game holds its record (``pending``) until the person asks for
  the next deal, so the end of a hand and the next deal never share a message.
- ``WatchGame`` plays two policies one action per ``step``.
- ``GameStore`` maps game ids (random, one per new game: a tab is a game) to games, and
  forgets the least recently used beyond a bound.
- ``PolicyLoader`` loads policies as the CLIs do (``load_policy``) and keeps loaded
  models, which are deterministic, for the next game.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agents.play import GameSession, MoveError
from agents.policies.model import ModelPolicy, load_policy, model_file
from hgin_env.engine.cards import card_text
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.policy import Policy

from .views import action_line


class PolicyLoader:
    """Loads policies by name or path; a model file is loaded once and shared.

    Raises (from ``load``):
        PolicyLoadError: as ``load_policy`` does, for an unknown name or a bad model.
    """

    def __init__(self) -> None:
        self._models: dict[Path, ModelPolicy] = {}
        self._lock = threading.Lock()

    def load(self, spec: str, seed: int | None = None) -> Policy:
        """The policy ``spec`` names (a bot, a shipped model, a ``.zip`` path)."""
        path = model_file(spec)
        if path is None or not path.is_file():
            return load_policy(spec, seed)
        key = path.resolve()
        with self._lock:
            if key not in self._models:
                self._models[key] = ModelPolicy(key)
            return self._models[key]


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
        self.records: list[dict[str, Any]] = []
        self.pending: dict[str, Any] | None = None  # the record of a hand just finished
        self.lock = threading.Lock()
        self._banner()

    @property
    def hand_no(self) -> int:
        """The number of the hand on the table (or just finished), from 1."""
        return self.session.hands_done + (0 if self.pending is not None else 1)

    def _banner(self) -> None:
        s = self.session.engine.state
        self.log.append(
            f"Hand {self.session.hands_done + 1}: {self.names[int(s.dealer[0])]} deals; "
            f"upcard {card_text(self.session.engine.top_discard[0])}"
        )

    def _apply(self, action: int, hidden_draw: bool) -> None:
        """Log and play the action of the seat to act; keep the record of a finished hand."""
        engine = self.session.engine
        name = self.names[int(engine.current_player[0])]
        self.log.append(action_line(engine, action, name, hidden_draw))
        step = self.session.step(action)
        if step.rows.size:
            record = self.session.last_record
            record["names"] = list(self.names)
            self.records.append(record)
            self.pending = record
            if self.transcript is not None:
                self.transcript.parent.mkdir(parents=True, exist_ok=True)
                with self.transcript.open("a") as f:
                    f.write(json.dumps(record) + "\n")

    def _next_deal(self) -> None:
        """Leave the finished hand and show the next deal."""
        self.pending = None
        self.log = []
        self._banner()

    def transcript_text(self) -> str:
        """The finished hands as JSON Lines (``python -m hgin_env.replay`` reads it)."""
        return "".join(json.dumps(r) + "\n" for r in self.records)


class PlayGame(Table):
    """A person against a policy over one Hollywood series.

    Args:
        game_id: the game's id.
        opponent_spec: how the opponent was named (shown on the page).
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
        self._opponent_moves()

    def _opponent_moves(self) -> None:
        session = self.session
        while self.pending is None and not session.finished and not session.human_to_act:
            self._apply(session.opponent_action(), hidden_draw=True)

    def move(self, text: str) -> None:
        """Play the person's move, typed as at ``play.py``'s prompt, then the opponent's.

        Raises:
            MoveError: the move is not read or not legal (``play.py``'s message), or the
                hand or the series is over; the game is unchanged.
        """
        if self.session.finished:
            raise MoveError("The series is over: start a new one.")
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
        if self.session.finished:
            raise MoveError("The series is over: start a new one.")
        if self.pending is None:
            raise MoveError("The hand is still on: play it out first.")
        self._next_deal()
        self._opponent_moves()


class WatchGame(Table):
    """Two policies over one Hollywood series, one action per ``step``.

    Args:
        game_id: the game's id.
        specs: how the players were named, seat 0 first.
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
        names = specs if specs[0] != specs[1] else (f"{specs[0]} (1)", f"{specs[1]} (2)")
        super().__init__(game_id, session, names, transcript)
        self.specs = specs
        self.players = players

    def step(self) -> None:
        """Play one action; after a finished hand, deal the next one instead.

        Raises:
            MoveError: the series is over.
        """
        session = self.session
        if session.finished:
            raise MoveError("The series is over: start a new one.")
        if self.pending is not None:
            self._next_deal()
            return
        if session.human_to_act:  # seat 0's policy
            obs, legal = session.observation(0), session.legal()[None]
            action = int(self.players[0].act(obs, legal)[0])
        else:
            action = session.opponent_action()
        self._apply(action, hidden_draw=False)


class GameStore:
    """Games by id; beyond ``limit`` games the least recently used one is forgotten.

    Args:
        limit: how many games to keep.
    """

    def __init__(self, limit: int = 200) -> None:
        self.limit = limit
        self._games: OrderedDict[str, Table] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def new_id() -> str:
        """A fresh random game id."""
        return secrets.token_hex(8)

    def add(self, game: Table) -> None:
        """Keep a game."""
        with self._lock:
            self._games[game.id] = game
            while len(self._games) > self.limit:
                self._games.popitem(last=False)

    def get(self, game_id: str, kind: type[Table] = Table) -> Table:
        """The game with this id.

        Raises:
            KeyError: no such game of that kind (the message says what to do).
        """
        with self._lock:
            game = self._games.get(game_id)
            if game is None or not isinstance(game, kind):
                raise KeyError(f"no such game {game_id!r}: start a new one")
            self._games.move_to_end(game_id)
            return game

    def __len__(self) -> int:
        return len(self._games)

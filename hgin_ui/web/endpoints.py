"""The web table's JSON endpoints: options, play, watch, transcripts and replay.

Each handler reads its request with ``parsing``, works on the games of ``games`` in a
worker thread (a model's move may take a while), and answers with a view of ``views``.
What they share (the command line's defaults, the policy catalogue, the games, the
transcript file) is the app's ``state.web`` (a ``WebState``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agents.policies.model import PolicyLoadError
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import SeedStream, sub_seed
from hgin_env.envs.policy import Policy
from hgin_env.replay import ReplayError, parse_transcript
from hgin_ui.terminal import MoveError

from .catalog import PolicyCatalog, UnknownPolicyError, short_name
from .games import GameStore, PlayGame, StoreFullError, Table, WatchGame
from .parsing import (
    ApiError,
    Defaults,
    name_field,
    read_body,
    rules_field,
    rules_text,
    seat_field,
    seed_field,
    shown,
    text_field,
)
from .views import play_view, replay_view, watch_view

#: the most hands one replay shows
MAX_REPLAY_HANDS = 200
#: the most actions one replay shows (a frame, about 1 KB, per action): a long hand of
#: discards taken back and forth must not make the answer a hundred times the request
MAX_REPLAY_ACTIONS = 20_000


@dataclass
class WebState:
    """What every endpoint shares.

    Attributes:
        defaults: what the page's forms start with.
        catalog: the policies the server offers, by name.
        store: the games.
        transcript: append every finished hand of every game to this JSON Lines file.
    """

    defaults: Defaults
    catalog: PolicyCatalog
    store: GameStore
    transcript: Path | None = None

    def policy(self, name: str, seed: int | None, role: str = "opponent") -> Policy:
        """The listed policy ``name``; an unknown name or a model that fails is a 400."""
        try:
            return self.catalog.load(name, seed, role)
        except (UnknownPolicyError, PolicyLoadError) as exc:
            if exc.__cause__ is not None:  # the full reason, for the person at the console
                print(f"web table: {name!r}: {exc.__cause__}", file=sys.stderr)
            raise ApiError(400, str(exc)) from exc

    def keep(self, game: Table) -> None:
        """Store a new game; a store full of games in play is a 503."""
        try:
            self.store.add(game)
        except StoreFullError as exc:
            raise ApiError(503, str(exc)) from exc

    def answer(self, game: Table, view: Callable[[Any], dict[str, Any]]) -> JSONResponse:
        """The reply of a new game, built (and encoded) before the game is stored.

        A game is stored only once its reply exists, so a reply that fails never
        leaves a game that no one holds the id of (and that would fill the store).
        """
        response = JSONResponse(view(game))
        self.keep(game)
        return response


def web(request: Request) -> WebState:
    """The ``WebState`` of the request's app."""
    state: WebState = request.app.state.web
    return state


def stored(request: Request, kind: type[Table]) -> Any:
    """The game the URL names; an unknown one is a 404."""
    try:
        return web(request).store.get(request.path_params["game"], kind)
    except KeyError as exc:
        raise ApiError(404, exc.args[0]) from exc


async def locked_view(game: Table, view: Callable[[Any], dict[str, Any]]) -> JSONResponse:
    """``view(game)`` under the game's lock in a worker thread (a busy game waits there)."""

    def run() -> dict[str, Any]:
        with game.lock:
            return view(game)

    return JSONResponse(await run_in_threadpool(run))


async def changed(
    game: Table, change: Callable[[], object], view: Callable[[Any], dict[str, Any]]
) -> JSONResponse:
    """Apply ``change`` under the game's lock in a worker thread; answer with ``view``.

    A refused change (``MoveError``) answers 400 with its reason and the unchanged view.
    """

    def run() -> dict[str, Any]:
        with game.lock:
            try:
                change()
            except MoveError as exc:
                raise ApiError(400, str(exc), view(game)) from exc
            return view(game)

    return JSONResponse(await run_in_threadpool(run))


# ------------------------------------------------------------------ options
async def options(request: Request) -> JSONResponse:
    """The policies the server offers (each with its short name) and the forms' defaults."""
    state = web(request)
    d = state.defaults
    return JSONResponse(
        {
            "bots": state.catalog.bots,
            "models": list(state.catalog.models),
            "short": {n: short_name(n) for n in [*state.catalog.names(), d.opponent]},
            "defaults": {
                "opponent": d.opponent,
                "seat": d.seat,
                "name": d.names[0],
                "opponent_name": d.names[1],
                "rules": rules_text(d.rules),
                "seed": d.seed,
            },
            "rules": RulesConfig().to_dict(),
        }
    )


# ------------------------------------------------------------------ play
async def new_play(request: Request) -> JSONResponse:
    """A new series against a listed policy: ``opponent``, ``seat``, ``seed``, ``name``..."""
    state = web(request)
    d = state.defaults
    data = await read_body(request)
    spec = text_field(data, "opponent", d.opponent)
    seat = seat_field(data, d.seat)
    seed, rules = seed_field(data, d.seed), rules_field(data, d.rules)
    name = name_field(data, "name", d.names[0])
    opp_name = name_field(data, "opponent_name", "")

    def start() -> JSONResponse:
        opponent = state.policy(spec, seed)
        full = str(getattr(opponent, "name", "") or spec)
        shown_name = opp_name or d.names[1]
        if shown_name == "Opponent":  # the default: say which policy it is, briefly
            shown_name = short_name(full)
        if shown_name == name:
            shown_name += " (2)"
        game = PlayGame(
            state.store.new_id(), full, opponent, seed, seat, rules, (name, shown_name),
            state.transcript,
        )  # fmt: skip
        return state.answer(game, play_view)

    return await run_in_threadpool(start)


async def get_play(request: Request) -> JSONResponse:
    """The played game's view."""
    return await locked_view(stored(request, PlayGame), play_view)


async def play_move(request: Request) -> JSONResponse:
    """``{"move": "knock 7H"}``: the person's move in ``play.py``'s prompt grammar."""
    game = stored(request, PlayGame)
    data = await read_body(request)
    move = data.get("move")
    if not isinstance(move, str) or len(move) > 40:
        raise ApiError(
            400, 'malformed request: expected {"move": "7H"} (or draw, take, pass, '
            f"knock 7H), got {shown(move)}",
        )  # fmt: skip
    return await changed(game, lambda: game.move(move), play_view)


async def play_next(request: Request) -> JSONResponse:
    """Deal the next hand after a finished one."""
    game = stored(request, PlayGame)
    await read_body(request)  # none is needed, but a malformed one is refused
    return await changed(game, game.next_hand, play_view)


# ------------------------------------------------------------------ watch
async def new_watch(request: Request) -> JSONResponse:
    """Two listed policies play a series: ``players``, ``seed``, ``rules``."""
    state = web(request)
    d = state.defaults
    data = await read_body(request)
    players = data.get("players", [d.opponent, d.opponent])
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise ApiError(400, f"players must be two policy names, got {shown(players)}")
    specs = (players[0].strip(), players[1].strip())
    seed, rules = seed_field(data, d.seed), rules_field(data, d.rules)

    def start() -> JSONResponse:
        second = None if seed is None else sub_seed(seed, SeedStream.WATCH_SECOND)
        bots = (state.policy(specs[0], seed, "player"), state.policy(specs[1], second, "player"))
        full = (
            str(getattr(bots[0], "name", "") or specs[0]),
            str(getattr(bots[1], "name", "") or specs[1]),
        )
        game = WatchGame(state.store.new_id(), full, bots, seed, rules, state.transcript)
        return state.answer(game, watch_view)

    return await run_in_threadpool(start)


async def get_watch(request: Request) -> JSONResponse:
    """The watched game's view."""
    return await locked_view(stored(request, WatchGame), watch_view)


async def watch_step(request: Request) -> JSONResponse:
    """One action of the watched game (or the next deal)."""
    game = stored(request, WatchGame)
    await read_body(request)
    return await changed(game, game.step, watch_view)


# ------------------------------------------------------------------ ending, transcripts, replay
async def end_game(request: Request) -> JSONResponse:
    """End a game (played or watched): it plays no more and frees its place at once."""
    game = stored(request, Table)
    await read_body(request)
    view = play_view if isinstance(game, PlayGame) else watch_view
    return await changed(game, game.end, view)


async def get_transcript(request: Request) -> Response:
    """The game's finished hands as a JSON Lines transcript (a download)."""
    game = stored(request, Table)

    def text() -> str:
        with game.lock:
            return game.transcript_text()

    body = await run_in_threadpool(text)
    if not body:
        raise ApiError(400, "no hand has finished yet: nothing to save")
    name = f"hollywood-gin-{game.id}.jsonl"
    return Response(
        body,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def replay(request: Request) -> JSONResponse:
    """``{"text": ..., "name": ...}``: a transcript, verified by ``hgin_env.replay``, as frames."""
    data = await read_body(request)
    text = data.get("text")
    if not isinstance(text, str):
        raise ApiError(400, 'malformed request: expected {"text": <the transcript>}')
    source = text_field(data, "name", "transcript")

    def build() -> dict[str, Any]:
        try:
            records = parse_transcript(text, source)
        except ReplayError as exc:
            raise ApiError(400, f"error: {exc}") from exc
        except RecursionError as exc:
            raise ApiError(400, f"error: {source}: a line is nested too deep") from exc
        except ValueError as exc:  # Python reads integers of at most 4,300 digits
            raise ApiError(400, f"error: {source}: a line holds a number too long") from exc
        if len(records) > MAX_REPLAY_HANDS:
            raise ApiError(
                400, f"error: {source} holds {len(records)} hands; the page replays at most "
                f"{MAX_REPLAY_HANDS} (split the file)",
            )  # fmt: skip
        actions = sum(len(r["actions"]) for r in records if isinstance(r.get("actions"), list))
        if actions > MAX_REPLAY_ACTIONS:
            raise ApiError(
                400, f"error: {source} holds {actions:,} actions; the page replays at most "
                f"{MAX_REPLAY_ACTIONS:,} (split the file)",
            )  # fmt: skip
        try:
            return replay_view(records)
        except ReplayError as exc:
            raise ApiError(400, f"error: {exc}") from exc

    return JSONResponse(await run_in_threadpool(build))


ROUTES = [
    Route("/api/options", options),
    Route("/api/play", new_play, methods=["POST"]),
    Route("/api/play/{game}", get_play),
    Route("/api/play/{game}/move", play_move, methods=["POST"]),
    Route("/api/play/{game}/next", play_next, methods=["POST"]),
    Route("/api/watch", new_watch, methods=["POST"]),
    Route("/api/watch/{game}", get_watch),
    Route("/api/watch/{game}/step", watch_step, methods=["POST"]),
    Route("/api/games/{game}/transcript", get_transcript),
    Route("/api/games/{game}/end", end_game, methods=["POST"]),
    Route("/api/replay", replay, methods=["POST"]),
]

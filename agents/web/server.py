"""The web table's server: a Starlette app of JSON endpoints and the static page, on 127.0.0.1.

Endpoints (every game lives on the server; the page gets only ``agents.web.views``):

====================================  ===============================================
``GET  /``                            the page (``static/index.html``, no build step)
``GET  /api/options``                 the bots, the shipped models, the defaults
``POST /api/play``                    a new series against a policy: ``opponent``,
                                      ``seat``, ``seed``, ``name``, ``rules``
``GET  /api/play/{id}``               the game's view
``POST /api/play/{id}/move``          ``{"move": "knock 7H"}``: the prompt grammar of
                                      ``play.py`` (draw, take, pass, 7H, knock 7H)
``POST /api/play/{id}/next``          deal the next hand after a finished one
``POST /api/watch``                   two policies: ``players``, ``seed``, ``rules``
``GET  /api/watch/{id}``              the watched game's view
``POST /api/watch/{id}/step``         one action (or the next deal)
``GET  /api/games/{id}/transcript``   the finished hands as a JSON Lines transcript
``POST /api/replay``                  ``{"text": ..., "name": ...}``: a transcript,
                                      verified by ``hgin_env.replay``, as frames
====================================  ===============================================

A refused request answers with a status 400 (404 for an unknown game) and
``{"error": message}``; a refused move also carries the unchanged game's view as
``state``. ``serve`` listens on 127.0.0.1 only (port 0: a free port), prints the URL,
and stops cleanly on Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.play import MoveError, parse_rules
from agents.policies.model import PolicyLoadError, shipped_models
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.policy import registered_policies
from hgin_env.replay import ReplayError, parse_transcript

from .games import GameStore, PlayGame, PolicyLoader, Table, WatchGame
from .views import play_view, replay_view, watch_view

#: the only address the server listens on
HOST = "127.0.0.1"
STATIC = Path(__file__).resolve().parent / "static"
#: the largest transcript the replay endpoint reads (characters)
MAX_TRANSCRIPT = 20_000_000


@dataclass(frozen=True)
class Defaults:
    """What the page's forms start with (from the command line).

    Attributes:
        opponent: the opponent policy's name or path.
        seat: the person's seat.
        names: the person's and the opponent's names (``Opponent`` shows the policy).
        rules: the rules options.
        seed: the seed of the deals, or None for a random one per game.
    """

    opponent: str = "expert"
    seat: int = 0
    names: tuple[str, str] = ("You", "Opponent")
    rules: RulesConfig = dataclasses.field(default_factory=RulesConfig)
    seed: int | None = None


class ApiError(Exception):
    """A refused request: its HTTP status, the message, and the game's view if any."""

    def __init__(self, status: int, message: str, state: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.state = state


def rules_text(rules: RulesConfig) -> str:
    """The options that differ from the defaults, as ``play.py --rules`` takes them."""
    default = RulesConfig().to_dict()
    words = []
    for key, value in rules.to_dict().items():
        if value != default[key]:
            shown = "none" if value is None else str(value).lower()
            words.append(f"{key}={shown}")
    return " ".join(words)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"malformed request: the body is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ApiError(400, "malformed request: the body must be a JSON object")
    return data


def _text(data: dict[str, Any], key: str, default: str) -> str:
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ApiError(400, f"malformed request: {key} must be a string, got {value!r}")
    return value.strip() or default


def _seed(data: dict[str, Any], default: int | None) -> int | None:
    value = data.get("seed", default)
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ApiError(400, f"the seed must be an integer >= 0, got {value!r}")
    return value


def _rules(data: dict[str, Any], default: RulesConfig) -> RulesConfig:
    if "rules" not in data:
        return default
    text = _text(data, "rules", "")
    try:
        return parse_rules(text.replace(",", " ").split())
    except ValueError as exc:
        raise ApiError(400, f"rules: {exc}") from exc


def create_app(
    defaults: Defaults | None = None,
    transcript: Path | None = None,
    loader: PolicyLoader | None = None,
    store: GameStore | None = None,
) -> Starlette:
    """Build the web table's app.

    Args:
        defaults: what the page's forms start with.
        transcript: append every finished hand of every game to this JSON Lines file.
        loader: loads the policies (a shared one keeps loaded models).
        store: holds the games.
    """
    defaults = defaults or Defaults()
    loader = loader or PolicyLoader()
    store = store or GameStore()

    def policy(spec: str, seed: int | None):
        try:
            return loader.load(spec, seed)
        except PolicyLoadError as exc:
            raise ApiError(400, str(exc)) from exc

    async def options(request: Request) -> JSONResponse:
        models = list(shipped_models())
        bots = [name for name in registered_policies() if name not in models]
        return JSONResponse(
            {
                "bots": bots,
                "models": models,
                "defaults": {
                    "opponent": defaults.opponent,
                    "seat": defaults.seat,
                    "name": defaults.names[0],
                    "opponent_name": defaults.names[1],
                    "rules": rules_text(defaults.rules),
                    "seed": defaults.seed,
                },
                "rules": RulesConfig().to_dict(),
            }
        )

    async def new_play(request: Request) -> JSONResponse:
        data = await _body(request)
        spec = _text(data, "opponent", defaults.opponent)
        seat = data.get("seat", defaults.seat)
        if isinstance(seat, str) and seat.strip() in ("0", "1"):
            seat = int(seat)
        if seat not in (0, 1) or isinstance(seat, bool):
            raise ApiError(400, f"the seat must be 0 or 1, got {seat!r}")
        seed, rules = _seed(data, defaults.seed), _rules(data, defaults.rules)
        name = _text(data, "name", defaults.names[0])
        opp_name = _text(data, "opponent_name", "")

        def start() -> dict[str, Any]:
            opponent = policy(spec, seed)
            shown = opp_name or defaults.names[1]
            if shown == "Opponent":  # the default: say which policy it is
                shown = str(getattr(opponent, "name", "") or spec)
            if shown == name:
                shown += " (2)"
            game = PlayGame(
                store.new_id(), spec, opponent, seed, seat, rules, (name, shown), transcript
            )
            store.add(game)
            return play_view(game)

        return JSONResponse(await run_in_threadpool(start))

    def _game(request: Request, kind: type[Table]) -> Any:
        try:
            return store.get(request.path_params["game"], kind)
        except KeyError as exc:
            raise ApiError(404, exc.args[0]) from exc

    def _locked(game: Table, view: Callable[[Any], Any]) -> Any:
        with game.lock:  # in a worker thread: a game busy with a model's move waits there
            return view(game)

    async def _change(
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

    async def get_play(request: Request) -> JSONResponse:
        game = _game(request, PlayGame)
        return JSONResponse(await run_in_threadpool(_locked, game, play_view))

    async def play_move(request: Request) -> JSONResponse:
        game = _game(request, PlayGame)
        data = await _body(request)
        move = data.get("move")
        if not isinstance(move, str):
            raise ApiError(
                400, f'malformed request: expected {{"move": "7H"}} (or draw, take, pass, '
                f"knock 7H), got {json.dumps(data)[:200]}",
            )  # fmt: skip
        return await _change(game, lambda: game.move(move), play_view)

    async def play_next(request: Request) -> JSONResponse:
        game = _game(request, PlayGame)
        return await _change(game, game.next_hand, play_view)

    async def new_watch(request: Request) -> JSONResponse:
        data = await _body(request)
        players = data.get("players", [defaults.opponent, defaults.opponent])
        if (
            not isinstance(players, list)
            or len(players) != 2
            or not all(isinstance(p, str) and p.strip() for p in players)
        ):
            raise ApiError(400, f"players must be two policy names, got {players!r}")
        specs = (players[0].strip(), players[1].strip())
        seed, rules = _seed(data, defaults.seed), _rules(data, defaults.rules)

        def start() -> dict[str, Any]:
            bots = (policy(specs[0], seed), policy(specs[1], None if seed is None else seed + 1))
            game = WatchGame(store.new_id(), specs, bots, seed, rules, transcript)
            store.add(game)
            return watch_view(game)

        return JSONResponse(await run_in_threadpool(start))

    async def get_watch(request: Request) -> JSONResponse:
        game = _game(request, WatchGame)
        return JSONResponse(await run_in_threadpool(_locked, game, watch_view))

    async def watch_step(request: Request) -> JSONResponse:
        game = _game(request, WatchGame)
        return await _change(game, game.step, watch_view)

    async def get_transcript(request: Request) -> Response:
        game = _game(request, Table)
        text = await run_in_threadpool(_locked, game, Table.transcript_text)
        if not text:
            raise ApiError(400, "no hand has finished yet: nothing to save")
        name = f"hollywood-gin-{game.id}.jsonl"
        return Response(
            text,
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def replay(request: Request) -> JSONResponse:
        data = await _body(request)
        text = data.get("text")
        if not isinstance(text, str):
            raise ApiError(400, 'malformed request: expected {"text": <the transcript>}')
        if len(text) > MAX_TRANSCRIPT:
            raise ApiError(400, f"the transcript is over {MAX_TRANSCRIPT} characters")
        source = _text(data, "name", "transcript")

        def build() -> dict[str, Any]:
            try:
                return replay_view(parse_transcript(text, source))
            except ReplayError as exc:
                raise ApiError(400, f"error: {exc}") from exc

        return JSONResponse(await run_in_threadpool(build))

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        body: dict[str, Any] = {"error": exc.message}
        if exc.state is not None:
            body["state"] = exc.state
        return JSONResponse(body, status_code=exc.status)

    routes = [
        Route("/", index),
        Route("/api/options", options),
        Route("/api/play", new_play, methods=["POST"]),
        Route("/api/play/{game}", get_play),
        Route("/api/play/{game}/move", play_move, methods=["POST"]),
        Route("/api/play/{game}/next", play_next, methods=["POST"]),
        Route("/api/watch", new_watch, methods=["POST"]),
        Route("/api/watch/{game}", get_watch),
        Route("/api/watch/{game}/step", watch_step, methods=["POST"]),
        Route("/api/games/{game}/transcript", get_transcript),
        Route("/api/replay", replay, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={ApiError: api_error})
    app.state.store = store
    return app


def bind_socket(port: int) -> socket.socket:
    """A TCP socket bound to 127.0.0.1 and ``port`` (0: a free one), already listening.

    Listening at once lets the URL be printed before the server loop starts: a browser
    that connects early waits in the backlog instead of being refused.

    Raises:
        OSError: the port is taken or not allowed.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve(app: Starlette, port: int = 8000, write: Callable[[str], None] = print) -> int:
    """Serve ``app`` on 127.0.0.1 until Ctrl-C; print the URL first. Return the exit status.

    Args:
        app: the app (``create_app``).
        port: the port; 0 picks a free one.
        write: prints one line.
    """
    import uvicorn

    try:
        sock = bind_socket(port)
    except OSError as exc:
        print(f"error: cannot listen on {HOST}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    url = f"http://{HOST}:{sock.getsockname()[1]}/"
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    write(f"Hollywood Gin web table: {url}  (Ctrl-C stops it)")
    sys.stdout.flush()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled
        pass
    finally:
        sock.close()
    write("Web table stopped.")
    return 0


def run_table(
    opponent: str,
    port: int = 8000,
    seed: int | None = None,
    seat: int = 0,
    names: tuple[str, str] = ("You", "Opponent"),
    rules: RulesConfig | None = None,
    transcript: Path | None = None,
) -> int:
    """Check the opponent loads, then serve the web table; return the exit status (2: error)."""
    loader = PolicyLoader()
    try:
        loader.load(opponent, seed)
    except PolicyLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    defaults = Defaults(opponent, seat, (names[0], names[1]), rules or RulesConfig(), seed)
    return serve(create_app(defaults, transcript, loader), port)


def main(argv: list[str] | None = None) -> int:
    """The ``hgin-web`` command: ``play.py --web`` under its own name."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # as play.py: one thread for a model's small batches
    parser = argparse.ArgumentParser(
        prog="hgin-web", description="Play, watch and replay Hollywood Gin in the browser."
    )
    parser.add_argument(
        "opponent", nargs="?", default=None, metavar="OPPONENT",
        help="the default opponent: bot name, model .zip path or shipped model",
    )  # fmt: skip
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (0: free)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deals")
    parser.add_argument("--seat", type=int, choices=(0, 1), default=0, help="your seat")
    parser.add_argument("--names", nargs=2, default=("You", "Opponent"), metavar=("YOU", "OPP"))
    parser.add_argument("--rules", nargs="+", default=[], metavar="KEY=VALUE", help="rules options")
    parser.add_argument(
        "--transcript", type=Path, metavar="PATH",
        help="append every finished hand to a JSON Lines file",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    try:
        rules = parse_rules(args.rules)
    except ValueError as exc:
        parser.error(str(exc))
    opponent = args.opponent or default_opponent()
    return run_table(
        opponent, args.port, args.seed, args.seat, tuple(args.names), rules, args.transcript
    )


def default_opponent() -> str:
    """The first shipped model's name, else ``expert`` (as ``play.py``)."""
    models = shipped_models()
    return next(iter(models)) if models else "expert"


if __name__ == "__main__":
    sys.exit(main())

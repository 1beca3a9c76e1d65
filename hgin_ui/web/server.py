"""The web table's server: a Starlette app of JSON endpoints and the static page, on 127.0.0.1.

Endpoints (every game lives on the server; the page gets only ``hgin_ui.web.views``):

====================================  ===============================================
``GET  /``                            the page (``static/index.html``, no build step)
``GET  /api/options``                 the policies the server offers, the defaults
``POST /api/play``                    a new series against a listed policy:
                                      ``opponent``, ``seat``, ``seed``, ``name``, ``rules``
``GET  /api/play/{id}``               the game's view
``POST /api/play/{id}/move``          ``{"move": "knock 7H"}``: the prompt grammar of
                                      ``play.py`` (draw, take, pass, 7H, knock 7H)
``POST /api/play/{id}/next``          deal the next hand after a finished one
``POST /api/watch``                   two listed policies: ``players``, ``seed``, ``rules``
``GET  /api/watch/{id}``              the watched game's view
``POST /api/watch/{id}/step``         one action (or the next deal)
``GET  /api/games/{id}/transcript``   the finished hands as a JSON Lines transcript
``POST /api/games/{id}/end``          end a game (played or watched): its place is free
``POST /api/replay``                  ``{"text": ..., "name": ...}``: a transcript,
                                      verified by ``hgin_env.replay``, as frames
====================================  ===============================================

Every ``/api/`` request carries the server's token and every POST is same-origin JSON
(``guards``). Every refused request, however malformed, answers a 4xx with
``{"error": message}`` (400 bad input or another host, 403 no token or another site,
404 an unknown game or address, 405 a wrong method, 413 too large, 415 not JSON; 503
when the games held are all in play), a message of at most ``MAX_MESSAGE`` characters;
a refused move also carries the unchanged game's view as ``state``. ``serve`` listens
on 127.0.0.1 only (port 0: a free port), prints the URL with the token, and stops
cleanly on Ctrl-C.
"""

from __future__ import annotations

import socket
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .catalog import PolicyCatalog
from .endpoints import ROUTES, WebState
from .games import GameStore
from .guards import RequestGuard, new_token
from .parsing import ApiError, Defaults, shown

#: the only address the server listens on
HOST = "127.0.0.1"
STATIC = Path(__file__).resolve().parent / "static"
#: the longest error message sent (a message quotes little of the input)
MAX_MESSAGE = 400


async def index(request: Request) -> FileResponse:
    """The page."""
    return FileResponse(STATIC / "index.html")


def error_response(
    status: int,
    message: str,
    state: dict[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """``{"error": message, "state": ...}`` with its status; the message cut short."""
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    body: dict[str, Any] = {"error": message}
    if state is not None:
        body["state"] = state
    return JSONResponse(body, status_code=status, headers=headers)


async def api_error(request: Request, exc: Exception) -> JSONResponse:
    """A refused request's answer: ``{"error": ..., "state": ...}`` with its status."""
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.message, exc.state)


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """An unknown address (404) or a wrong method (405), in JSON as every refusal."""
    assert isinstance(exc, HTTPException)
    path = shown(request.url.path)
    if exc.status_code == 404:
        message = f"there is nothing at {path}: the page is at / (with its token)"
    elif exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "another method")
        message = f"{path} takes {allowed}, not {request.method}"
    else:
        message = str(exc.detail)
    return error_response(exc.status_code, message, headers=exc.headers)


async def server_error(request: Request, exc: Exception) -> JSONResponse:
    """A fault of the server itself: a short JSON 500; the traceback goes to the console."""
    traceback.print_exception(exc, file=sys.stderr)
    return error_response(500, "the server failed on this request (its console says why)")


def create_app(
    defaults: Defaults | None = None,
    transcript: Path | None = None,
    catalog: PolicyCatalog | None = None,
    store: GameStore | None = None,
    token: str | None = None,
) -> Starlette:
    """Build the web table's app.

    Args:
        defaults: what the page's forms start with.
        transcript: append every finished hand of every game to this JSON Lines file.
        catalog: the policies offered (default: the bots and the shipped models).
        store: holds the games.
        token: the token every API request carries (default: a fresh random one); the
            app keeps it as ``app.state.token``.
    """
    token = token or new_token()
    routes = [
        Route("/", index),
        *ROUTES,
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(RequestGuard, token=token)]
    handlers = {ApiError: api_error, HTTPException: http_error, Exception: server_error}
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers)
    app.state.web = WebState(
        defaults if defaults is not None else Defaults(),
        catalog if catalog is not None else PolicyCatalog(),
        store if store is not None else GameStore(),  # an empty store is falsy
        transcript,
    )
    app.state.store = app.state.web.store
    app.state.token = token
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


def page_url(app: Starlette, port: int) -> str:
    """The page's URL with the app's token."""
    return f"http://{HOST}:{port}/?token={app.state.token}"


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
    url = page_url(app, sock.getsockname()[1])
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

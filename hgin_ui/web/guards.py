"""What the web table's server lets in: its own address, its token, same-origin JSON, small.

A server on 127.0.0.1 is still reachable from every page the person opens: a page on
another site can send it requests (a cross-site POST needs no permission when its body
looks like a form or plain text), and a name that resolves to 127.0.0.1 after a while
(DNS rebinding) lets another site read the answers. So, as Jupyter's server does:

- the Host header must name this server: ``127.0.0.1``, ``localhost`` or ``[::1]``, with
  the port it serves;
- every ``/api/`` request carries the server's token (printed in its URL, ``?token=``),
  in the ``X-Hgin-Token`` header or the ``token`` query parameter;
- every ``/api/`` request and every POST comes from the page itself: an ``Origin`` (or
  ``Sec-Fetch-Site``) of another site is refused (a game's state by its id included),
  and a POST's body must be ``application/json`` (which a foreign page cannot send
  without the server's consent, which it never gives);
- a body is at most ``BODY_LIMIT`` bytes (``REPLAY_LIMIT`` for a transcript to replay).

A refusal answers a 4xx with ``{"error": message}`` and runs nothing (``RequestGuard``).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .parsing import ApiError, shown

#: the names the Host header may give (the server listens on 127.0.0.1 only)
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
#: the header that carries the token
TOKEN_HEADER = "x-hgin-token"
#: the largest request body (bytes)
BODY_LIMIT = 1_000_000
#: the largest body of a transcript to replay (bytes)
REPLAY_LIMIT = 4_000_000
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::([0-9]{1,5}))?")


def new_token() -> str:
    """A fresh random token for one server."""
    return secrets.token_urlsafe(18)


def host_address(host: str) -> tuple[str, int] | None:
    """The name (lower case) and port of a Host header (port 80 if none); None if malformed."""
    match = _HOST.fullmatch(host)
    if match is None:
        return None
    return match[1].lower(), int(match[2]) if match[2] else 80


class RequestGuard:
    """Pure ASGI middleware: the port, the token, the origin, the type and size of a request.

    Args:
        app: the app it guards.
        token: the server's token.
        limits: the largest body by path; others get ``BODY_LIMIT``.
    """

    def __init__(self, app: ASGIApp, token: str, limits: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.token = token
        self.limits = dict(limits or {"/api/replay": REPLAY_LIMIT})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a refused request at once; pass the others on with a bounded body."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        try:
            self.check(scope, headers)
        except ApiError as exc:
            await JSONResponse({"error": exc.message}, status_code=exc.status)(scope, receive, send)
            return
        limit = self.limits.get(scope["path"], BODY_LIMIT)
        await self.app(scope, _bounded(receive, limit), send)

    def check(self, scope: Scope, headers: Headers) -> None:
        """Refuse a request that is not for this server, lacks the token, or is foreign.

        Raises:
            ApiError: 400 (another host or port), 403 (no token, another origin), 413 (a
                body declared too large), 415 (a POST that is not JSON).
        """
        host = headers.get("host", "")
        server = scope.get("server")
        address = host_address(host)
        if (
            address is None
            or address[0] not in LOCAL_HOSTS
            or (server is not None and address[1] != int(server[1]))
        ):
            raise ApiError(
                400,
                f"the Host header {shown(host)} is not this server's address: open the URL "
                "it printed (http://127.0.0.1:PORT/?token=...)",
            )
        if scope["path"].startswith("/api/") and not self._has_token(scope, headers):
            raise ApiError(
                403,
                "this server needs its token: open the URL it printed when it started "
                "(http://127.0.0.1:PORT/?token=...)",
            )
        # every API request (a game's state by its id too) comes from the page itself
        api = scope["path"].startswith("/api/")
        if not api and scope["method"] != "POST":
            pass
        elif headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            raise ApiError(403, "a request from another site is refused")
        elif "origin" in headers and headers["origin"] != f"http://{host}":
            raise ApiError(
                403, f"a request from another site ({shown(headers['origin'])}) is refused"
            )
        elif scope["method"] != "POST":
            pass
        elif headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            kind = headers.get("content-type", "none")
            raise ApiError(
                415, f"the body must be JSON (Content-Type: application/json), got {shown(kind)}"
            )
        length = headers.get("content-length", "0")
        limit = self.limits.get(scope["path"], BODY_LIMIT)
        if not length.isdigit() or len(length) > 12 or int(length) > limit:
            raise ApiError(413, f"the request body is over {limit:,} bytes")

    def _has_token(self, scope: Scope, headers: Headers) -> bool:
        given = headers.get(TOKEN_HEADER)
        if given is None:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (query.get("token") or [""])[0]
        return secrets.compare_digest(given.encode(), self.token.encode())


def _bounded(receive: Receive, limit: int) -> Receive:
    """``receive`` that raises a 413 ``ApiError`` once the body passes ``limit`` bytes.

    The app reads the body before it answers, so the error becomes its 413 answer (a
    chunked body declares no length up front).
    """
    total = 0

    async def bounded() -> Message:
        nonlocal total
        message = await receive()
        if message["type"] == "http.request":
            total += len(message.get("body", b""))
            if total > limit:
                raise ApiError(413, f"the request body is over {limit:,} bytes")
        return message

    return bounded

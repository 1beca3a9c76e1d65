"""Fuzz the web table's JSON bodies: never a 500, and a refusal changes nothing.

Seeded (``derandomize``) and small: a few hundred bodies of up to a few fields, with
texts that may hold lone surrogates and values nested a little, plus fixed deep ones.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from hgin_ui.web.parsing import Defaults
from hgin_ui.web.server import create_app

BASE = "http://127.0.0.1:8000"
FIELDS = ["opponent", "seat", "seed", "name", "opponent_name", "rules", "players", "move", "text"]
#: any code point, lone surrogates included (what a "\\udXXX" escape decodes to)
#: texts of any code point, lone surrogates included (``st.text`` never makes those)
TEXT = st.lists(
    st.characters() | st.sampled_from(["\ud800", "\udfff", "\x00", "é"]), max_size=10
).map("".join)
SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | TEXT
VALUES = st.recursive(
    SCALARS | st.sampled_from(["simple", "random", "0", "1", "draw", "knock_limit=5"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
#: bodies near valid ones (so that a value reaches the game and its reply), or anything
NEAR = st.fixed_dictionaries(
    {"opponent": st.sampled_from(["simple", "random"])},
    optional={key: TEXT | VALUES for key in FIELDS if key != "opponent"},
)
BODIES = NEAR | st.dictionaries(st.sampled_from(FIELDS) | TEXT, VALUES, max_size=4)
DEEP = ["[" * 5000 + "]" * 5000, '{"a":' * 5000 + "1" + "}" * 5000, '"\\ud800"', "[1]", "nul"]

APP = create_app(Defaults(opponent="simple"))
CLIENT = TestClient(APP, base_url=BASE, raise_server_exceptions=False)
CLIENT.headers["X-Hgin-Token"] = APP.state.token
GAME = CLIENT.post("/api/play", json={"seed": 3}).json()["game"]
PATHS = ["/api/play", "/api/watch", "/api/replay", f"/api/play/{GAME}/move"]


def post(path: str, raw: bytes) -> None:
    """Post ``raw``; a refusal (4xx, JSON with an error) leaves the store as it was."""
    games = len(APP.state.store)
    before = CLIENT.get(f"/api/play/{GAME}").json()
    response = CLIENT.post(path, content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code < 500, (path, raw[:200], response.text[:200])
    if response.status_code >= 400:
        assert "error" in response.json() and "Traceback" not in response.text
        assert len(APP.state.store) == games
        assert CLIENT.get(f"/api/play/{GAME}").json() == before


@settings(
    max_examples=100, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
@given(st.sampled_from(PATHS), BODIES)
def test_fuzzed_bodies_are_answered_or_refused(path: str, body: dict) -> None:
    """Any small JSON object at any endpoint: a 200 or a JSON 4xx, never a 500."""
    post(path, json.dumps(body).encode())


def test_deep_and_odd_bodies_are_refused() -> None:
    """Deep nesting, a bare string with a surrogate, a list, not JSON: each a 4xx."""
    for path in PATHS:
        for raw in DEEP:
            post(path, raw.encode())


@settings(
    max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
@given(st.sampled_from(["name", "opponent_name", "rules", "move", "text"]), TEXT)
def test_fuzzed_texts_in_valid_bodies(key: str, text: str) -> None:
    """One random text in an otherwise valid body, at every endpoint."""
    for path in PATHS:
        post(path, json.dumps({"opponent": "simple", "seed": 1, key: text}).encode())

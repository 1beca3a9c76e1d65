"""The web table refuses what a foreign page or a hostile request sends, and keeps games in play.

Each test drives the app as a browser would (Starlette's TestClient at 127.0.0.1:8000 with
the token) and then sends what another site, a DNS-rebinding page or a careless script
could send: a path for the opponent, another Host or Origin, a text/plain body, no token,
a huge or deeply nested body, out-of-range numbers, a flood of new games.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agents.policies.model import shipped_models
from hgin_cli.play import parse_args
from hgin_ui.web.catalog import PolicyCatalog
from hgin_ui.web.games import GameStore
from hgin_ui.web.guards import BODY_LIMIT, REPLAY_LIMIT
from hgin_ui.web.parsing import Defaults
from hgin_ui.web.server import create_app

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "models" / "ppo-cards"
BASE = "http://127.0.0.1:8000"
SEED_RANGE = "the seed must be a whole number from 0 to 18446744073709551615"


def table_client(app, **headers: str) -> TestClient:
    """A test client of ``app`` at 127.0.0.1:8000 carrying the token (and ``headers``)."""
    return TestClient(app, base_url=BASE, headers={"X-Hgin-Token": app.state.token, **headers})


@pytest.fixture
def client() -> Iterator[TestClient]:
    """A test client of a fresh app whose default opponent is the simple bot."""
    with table_client(create_app(Defaults(opponent="simple"))) as c:
        yield c


def stored(client: TestClient) -> int:
    """How many games the server holds."""
    return len(client.app.state.store)  # type: ignore[attr-defined]


# ------------------------------------------------------------------ 1. names, not paths
def test_a_path_for_the_opponent_is_refused_and_nothing_is_loaded(client, tmp_path, monkeypatch):
    """A path (missing, not a zip, a real model) is an unknown name: one message, no load."""
    loads: list[object] = []
    monkeypatch.setattr("agents.policies.model.load_network", lambda *args: loads.append(args))
    not_zip = tmp_path / "evil.zip"
    not_zip.write_text("not a zip")
    paths = [str(tmp_path / "missing.zip"), str(not_zip), str(tmp_path), str(SHIPPED), "~/x.zip"]
    answers = []
    for path in paths:
        response = client.post("/api/play", json={"opponent": path, "seed": 1})
        assert response.status_code == 400
        message = response.json()["error"]
        assert str(tmp_path) not in message and str(ROOT) not in message
        answers.append(message)
    assert len(set(answers)) == 1
    assert answers[0].startswith("unknown opponent (a path or a long text): choose one the")
    response = client.post("/api/watch", json={"players": [str(SHIPPED), "simple"]})
    assert response.status_code == 400
    assert loads == [] and stored(client) == 0


def test_models_under_the_command_line_folders_are_offered_by_name(tmp_path, monkeypatch) -> None:
    """``--models runs/`` lists its model folders and zips by name; those play.

    A run's ``final_model/`` (data) plays untrusted and hides the ``final_model.zip``
    beside it. A model zip holds pickled objects: without ``--trust-model``
    (``HGIN_TRUST_MODEL``) a listed one is refused with a 400, with it the names play.
    """
    monkeypatch.delenv("HGIN_TRUST_MODEL", raising=False)
    runs = tmp_path / "runs"
    (runs / "a").mkdir(parents=True)
    (runs / "b").mkdir()
    from agents.training.sb3.model import policy_to_zip

    policy_to_zip(SHIPPED, runs / "a" / "final_model.zip")
    shutil.copy(runs / "a" / "final_model.zip", runs / "b" / "model.zip")
    # a run as training leaves it: final_model/ (data) beside final_model.zip: one name
    shutil.copytree(SHIPPED, runs / "c" / "final_model")
    shutil.copy(runs / "a" / "final_model.zip", runs / "c" / "final_model.zip")
    app = create_app(Defaults(opponent="simple"), catalog=PolicyCatalog([runs]))
    with table_client(app) as c:
        models = c.get("/api/options").json()["models"]
        assert models == [*shipped_models(), "runs/c/final_model", "runs/a/final_model", "runs/b"]
        untrusted = c.post("/api/play", json={"opponent": "runs/b", "seed": 2})
        assert untrusted.status_code == 400 and stored(c) == 0
        folder = c.post("/api/play", json={"opponent": "runs/c/final_model", "seed": 2})
        assert folder.status_code == 200, folder.text  # a model folder needs no trust
        monkeypatch.setenv("HGIN_TRUST_MODEL", "1")
        for name in ("runs/a/final_model", "runs/b"):
            view = c.post("/api/play", json={"opponent": name, "seed": 2}).json()
            assert view["names"][1] == name
        refused = c.post("/api/play", json={"opponent": str(runs / "b" / "model.zip")})
        assert refused.status_code == 400


def test_a_listed_model_that_fails_to_load_names_no_path(tmp_path, capsys) -> None:
    """A broken zip under --models is refused by its name; the console gets the full reason."""
    runs = tmp_path / "runs"
    runs.mkdir()
    with zipfile.ZipFile(runs / "broken.zip", "w") as archive:
        archive.writestr("readme.txt", "no model here")
    app = create_app(Defaults(opponent="simple"), catalog=PolicyCatalog([runs]))
    with table_client(app) as c:
        response = c.post("/api/play", json={"opponent": "runs/broken"})
    assert response.status_code == 400
    assert response.json()["error"] == (
        "the model 'runs/broken' cannot be loaded (the server's console says why)"
    )
    assert str(tmp_path) not in response.text and "no 'data' entry" in capsys.readouterr().err


# ------------------------------------------------------------------ 2. host, origin, token, type
@pytest.mark.parametrize("host", ["evil.example:8000", "127.0.0.1:9999", "localhost", "10.0.0.1"])
def test_a_foreign_host_is_refused(client, host) -> None:
    """A Host other than 127.0.0.1/localhost/[::1] with the served port is refused (rebinding)."""
    for method, url in (("GET", "/"), ("GET", "/api/options"), ("POST", "/api/play")):
        response = client.request(method, url, headers={"Host": host}, json={})
        assert response.status_code == 400, (method, url)
        assert "is not this server's address" in response.json()["error"]
    assert stored(client) == 0


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"])
def test_the_local_names_with_the_served_port_are_accepted(client, host) -> None:
    """The server's own address, by any of its local names, is served."""
    response = client.post("/api/play", json={"seed": 1}, headers={"Host": host})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://127.0.0.1:9999"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_a_post_from_another_site_is_refused(client, headers) -> None:
    """A POST whose Origin or Sec-Fetch-Site says another site runs nothing (403)."""
    response = client.post("/api/play", json={"seed": 1}, headers=headers)
    assert response.status_code == 403
    assert "another site" in response.json()["error"]
    assert stored(client) == 0


def test_a_same_origin_post_is_accepted(client) -> None:
    """The page's own POST (Origin http://127.0.0.1:8000, same-origin) is served."""
    headers = {"Origin": BASE, "Sec-Fetch-Site": "same-origin"}
    assert client.post("/api/play", json={"seed": 1}, headers=headers).status_code == 200


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_body_that_is_not_declared_json_is_refused(client, kind) -> None:
    """The issue's attack (a no-cors text/plain POST) and a form or untyped body get 415."""
    headers = {"Content-Type": kind} if kind else {}
    body = json.dumps({"opponent": "simple", "seed": 1})
    response = client.post("/api/play", content=body, headers=headers)
    assert response.status_code == 415
    assert response.json()["error"].startswith("the body must be JSON")
    assert stored(client) == 0


def test_the_api_needs_the_token(client) -> None:
    """No token or a wrong one is a 403; the page and its files need none; ?token= works."""
    token = client.app.state.token
    wrong = token[:-1] + ("x" if token[-1] != "x" else "y")  # one character off
    for headers in ({"X-Hgin-Token": ""}, {"X-Hgin-Token": wrong}):
        assert client.get("/api/options", headers=headers).status_code == 403
        response = client.post("/api/play", json={}, headers=headers)
        assert response.status_code == 403 and "token" in response.json()["error"]
    assert stored(client) == 0
    bare = TestClient(client.app, base_url=BASE)
    assert bare.get("/").status_code == 200 and bare.get("/static/app.js").status_code == 200
    assert bare.get("/api/options").status_code == 403
    assert bare.get(f"/api/options?token={token}").status_code == 200


# ------------------------------------------------------------------ 3. eviction
class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        """The time now (seconds)."""
        return self.now


def test_a_flood_of_new_games_is_refused_and_the_game_in_play_lives_on() -> None:
    """A full store refuses new games (503) while all are recent; idle ones make room."""
    clock = Clock()
    store = GameStore(limit=4, idle_s=3600, protect_s=600, clock=clock)
    with table_client(create_app(Defaults(opponent="simple"), store=store)) as c:
        mine = c.post("/api/play", json={"seed": 3}).json()["game"]
        clock.now += 300
        for _ in range(3):
            assert c.post("/api/play", json={}).status_code == 200
        for _ in range(20):  # the flood
            response = c.post("/api/play", json={})
            assert response.status_code == 503
            assert "no new game now" in response.json()["error"]
        assert len(store) == 4
        clock.now += 400  # mine is 700 s idle, the flood's games 400 s
        assert c.get(f"/api/play/{mine}").status_code == 200  # a use protects it again
        assert c.post("/api/play", json={}).status_code == 503
        clock.now += 250  # the flood's first games are 650 s idle: the oldest goes
        assert c.post("/api/play", json={}).status_code == 200
        assert c.get(f"/api/play/{mine}").status_code == 200
        clock.now += 3600  # an hour idle: every game is forgotten
        assert c.get(f"/api/play/{mine}").status_code == 404
        assert len(store) == 0


# ------------------------------------------------------------------ 4. sizes and echoes
def test_an_oversize_body_is_refused_without_echo(client) -> None:
    """A body over the limit (declared or streamed) gets a short 413; replay allows more."""
    view = client.post("/api/play", json={"seed": 1}).json()
    move = {"move": "x" * (BODY_LIMIT + 10)}
    response = client.post(f"/api/play/{view['game']}/move", json=move)
    assert response.status_code == 413 and len(response.content) < 200

    def chunks():
        for _ in range(30):
            yield b" " * 100_000

    streamed = client.post(
        "/api/play", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert streamed.status_code == 413 and stored(client) == 1
    big = {"text": "x" * (BODY_LIMIT * 2)}  # over the play limit, under the replay one
    response = client.post("/api/replay", json=big)
    assert response.status_code == 400 and len(response.content) < 300
    response = client.post("/api/replay", json={"text": "x" * REPLAY_LIMIT})
    assert response.status_code == 413


@pytest.mark.parametrize(
    "body",
    [
        {"opponent": "x" * 100_000},
        {"opponent": "x" * 150},
        {"name": "y" * 100_000},
        {"players": ["z" * 100_000]},
        {"seed": "9" * 100_000},
        {"seat": "s" * 100_000},
        {"rules": "knock_limit=" + "1" * 100_000},
    ],
)
def test_errors_quote_little_of_the_input(client, body) -> None:
    """A refused field is quoted in a few dozen characters at most, not sent back whole."""
    url = "/api/watch" if "players" in body else "/api/play"
    response = client.post(url, json=body)
    assert response.status_code == 400
    assert len(response.content) < 600, response.json()["error"][:100]
    assert stored(client) == 0


def test_a_long_move_is_not_echoed(client) -> None:
    """A move of a thousand characters is refused in a short message with the game unchanged."""
    view = client.post("/api/play", json={"seed": 1}).json()
    response = client.post(f"/api/play/{view['game']}/move", json={"move": "k" * 1000})
    assert response.status_code == 400 and len(response.json()["error"]) < 200
    assert client.get(f"/api/play/{view['game']}").json() == view


# ------------------------------------------------------------------ 5. no 500s
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"seed": 2**64}, f"{SEED_RANGE}, got 1844674407"),
        ({"seed": str(2**64)}, SEED_RANGE),
        ({"seed": 1.5}, f"{SEED_RANGE}, got 1.5"),
        ({"seed": "²"}, SEED_RANGE),
        ({"seat": 1.0}, "the seat must be 0 or 1, got 1.0"),
        ({"seat": True}, "the seat must be 0 or 1, got True"),
    ],
)
def test_out_of_range_numbers_are_a_400_and_store_nothing(client, body, message) -> None:
    """A seed past 64 bits or a seat that is not the integer 0 or 1 is a clear 400."""
    response = client.post("/api/play", json=body)
    assert response.status_code == 400
    assert response.json()["error"].startswith(message)
    assert stored(client) == 0
    if "seed" in body:
        watch = client.post("/api/watch", json={"players": ["simple", "simple"], **body})
        assert watch.status_code == 400 and stored(client) == 0


def test_the_largest_seed_plays(client) -> None:
    """Seed 2**64-1 is a seed like any other, in play and in watch (whose second seat adds 1)."""
    assert client.post("/api/play", json={"seed": 2**64 - 1}).status_code == 200
    watch = client.post("/api/watch", json={"players": ["simple", "random"], "seed": 2**64 - 1})
    assert watch.status_code == 200


def test_json_nested_100k_deep_is_a_400(client) -> None:
    """A body or a transcript line nested 100k deep is refused as such, not a 500."""
    deep = "[" * 100_000 + "]" * 100_000
    headers = {"Content-Type": "application/json"}
    for url in ("/api/play", "/api/watch", "/api/replay"):
        response = client.post(url, content=deep, headers=headers)
        assert response.status_code == 400
        assert response.json()["error"] == "malformed request: the JSON is nested too deep"
    response = client.post("/api/replay", json={"text": deep, "name": "t.jsonl"})
    assert response.status_code == 400
    assert response.json()["error"] == "error: t.jsonl:1: a line is nested too deep"
    assert stored(client) == 0


def test_a_seed_past_64_bits_on_the_command_line_exits_2(capsys) -> None:
    """``play.py --seed 2**64`` (and ``--web``) is a usage error, exit 2."""
    for argv in (["--seed", str(2**64)], ["--web", "--seed", str(2**64)]):
        with pytest.raises(SystemExit) as exit_:
            parse_args(argv)
        assert exit_.value.code == 2
        assert "--seed must be in 0..2**64-1" in capsys.readouterr().err


# ------------------------------------------------------------------ 6. JSON 4xx for anything
#: a number Python refuses to read (over 4,300 digits), where a seed goes and deep in a list
HUGE = "9" * 4301
HUGE_BODIES = [f'{{"seed": {HUGE}}}', f'{{"move": "draw", "x": [1, [{HUGE}]]}}', f"[{HUGE}]"]


def post_endpoints(client: TestClient) -> list[str]:
    """Every POST endpoint, with a played game and a watched game for those that need one."""
    play = client.post("/api/play", json={"seed": 1}).json()["game"]
    watch = client.post("/api/watch", json={"players": ["simple", "simple"], "seed": 1})
    watched = watch.json()["game"]
    return [
        "/api/play", f"/api/play/{play}/move", f"/api/play/{play}/next", "/api/watch",
        f"/api/watch/{watched}/step", "/api/replay", f"/api/games/{play}/end",
        f"/api/games/{watched}/end",
    ]  # fmt: skip


@pytest.mark.parametrize("body", HUGE_BODIES)
def test_a_number_of_4300_digits_is_a_json_400_at_every_endpoint(client, body) -> None:
    """An integer Python cannot read, anywhere in the body of any POST, is a 400 that says so."""
    for url in post_endpoints(client):
        response = client.post(url, content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400, url
        assert "number has over 40 digits" in response.json()["error"], url
    text = '{"version": 1, "deck": [' + HUGE + "]}"
    response = client.post("/api/replay", json={"text": text, "name": "t.jsonl"})
    assert response.status_code == 400
    assert response.json()["error"] == "error: t.jsonl: a line holds a number too long"


def a_record(client: TestClient, seed: int = 12) -> dict:
    """The record of one hand played through the API (random legal moves)."""
    view = client.post("/api/play", json={"seed": seed}).json()
    rng = __import__("numpy").random.default_rng(seed)
    while view["result"] is None:
        moves = view["moves"]
        words = [w for w in ("draw", "take", "pass") if moves[w]]
        words += [d["card"] for d in moves["discards"] if d["discard"]]
        move = {"move": str(rng.choice(words))}
        view = client.post(f"/api/play/{view['game']}/move", json=move).json()
    return json.loads(client.get(f"/api/games/{view['game']}/transcript").text)


WRONG = [1, "x", [1], {}, None, 10**30, [None, None]]


def test_wrong_types_in_a_replay_record_are_a_json_400(client) -> None:
    """Each field of a record, and a few of its result, of a wrong type is a 400."""
    record = a_record(client)
    spoiled = [dict(record, names=[1, 2]), dict(record, info=[1])]
    for key in record:
        spoiled += [dict(record, **{key: value}) for value in WRONG]
    for key in ("winner", "points", "hands"):
        spoiled += [dict(record, result=dict(record["result"], **{key: v})) for v in WRONG]
    for bad in spoiled:
        response = client.post("/api/replay", json={"text": json.dumps(bad)})
        if response.status_code == 200:  # a field the replay may ignore or read as the same
            continue
        assert response.status_code == 400, bad
        assert response.json()["error"].startswith("error: "), response.text[:200]
    response = client.post("/api/replay", json={"text": json.dumps(dict(record, names=[1, 2]))})
    assert response.json()["error"] == "error: hand 1 of 1: names must be a list of two texts"
    response = client.post("/api/replay", json={"text": json.dumps(dict(record, info=[1]))})
    assert response.status_code == 200  # info is free-form: shown only when it is readable


def test_a_replay_of_long_names_answers_no_more_than_with_short_ones(client) -> None:
    """Two 1.9 MB names in a 3.8 MB body give an answer the size of 30-character names' one."""
    record = a_record(client)
    plain = {"text": json.dumps(dict(record, names=["x" * 30, "x" * 31]))}
    short = client.post("/api/replay", json=plain)
    long_name = "x" * 1_900_000
    body = {"text": json.dumps(dict(record, names=[long_name, long_name + "y"]))}
    response = client.post("/api/replay", json=body)
    assert response.status_code == 200
    assert len(response.content) <= len(short.content) + 1_000
    assert len(short.content) < 50 * len(json.dumps(plain))
    (hand,) = response.json()["hands"]
    assert hand["names"] == ["xxxxxxxxxxxxxxxxxxxxx...", "xxxxxxxxxxxxxxxxxxxxx..."]
    assert [len(n) for n in hand["full_names"]] == [200, 200]


def test_a_long_name_is_refused_and_a_long_spec_is_shown_short(tmp_path) -> None:
    """A player's name of 25 characters is a 400; a search's spec is shown as its short name."""
    spec = "pimc:worlds=4,top=0"
    app = create_app(Defaults(opponent=spec), catalog=PolicyCatalog(extra={spec: spec}))
    with table_client(app) as c:
        response = c.post("/api/play", json={"name": "n" * 25})
        assert response.status_code == 400
        assert response.json()["error"] == "a name is at most 24 characters, got 25"
        view = c.post("/api/play", json={"name": "n" * 24, "seed": 1}).json()
        assert view["names"] == ["n" * 24, "pimc (4 worlds)"]
        assert view["opponent"].startswith("pimc:worlds=4,top=0") and view["rules"] == ""
        assert c.get("/api/options").json()["short"][spec] == "pimc (4 worlds)"


@pytest.mark.parametrize(
    ("method", "url", "status", "message"),
    [
        ("GET", "/nosuch", 404, "there is nothing at '/nosuch'"),
        ("GET", "/api/nosuch", 404, "there is nothing at '/api/nosuch'"),
        ("GET", "/static/nosuch.js", 404, "there is nothing at '/static/nosuch.js'"),
        ("DELETE", "/api/play", 405, "'/api/play' takes POST, not DELETE"),
        ("GET", "/api/replay", 405, "'/api/replay' takes POST, not GET"),
    ],
)
def test_unknown_addresses_and_methods_answer_json(client, method, url, status, message) -> None:
    """An unknown address or a wrong method answers ``{"error": ...}`` like every refusal."""
    response = client.request(method, url)
    assert response.status_code == status
    assert response.json()["error"].startswith(message)


def test_a_full_table_frees_a_place_when_a_game_ends_or_its_series_finishes() -> None:
    """A full table's 503 says what to do; ending a game, or finishing a series, makes room."""
    clock = Clock()
    store = GameStore(limit=3, protect_s=600, clock=clock)
    short = "game_target=1 stop_when_decided=true"
    with table_client(create_app(Defaults(opponent="simple"), store=store)) as c:
        games = [c.post("/api/play", json={"seed": k, "rules": short}).json() for k in range(3)]
        clock.now += 60
        full = c.post("/api/play", json={})
        assert full.status_code == 503
        assert full.json()["error"] == (
            "no new game now: the table holds 3 games, all in play. End a game you no "
            "longer play (its End game button), or try again in 9 minutes."
        )
        ended = c.post(f"/api/games/{games[0]['game']}/end", json={})
        assert ended.status_code == 200 and ended.json()["ended"]
        refused = c.post(f"/api/play/{games[0]['game']}/move", json={"move": "draw"})
        assert refused.json()["error"] == "This game was ended: start a new one."
        assert c.post("/api/play", json={}).status_code == 200  # the ended game made room
        assert c.get(f"/api/play/{games[0]['game']}").status_code == 404
        # a series played to its end (a point wins a game, two games the series)
        rng = __import__("numpy").random.default_rng(0)
        view = games[1]
        while not view["finished"]:
            if view["result"] is not None:
                view = c.post(f"/api/play/{view['game']}/next", json={}).json()
                continue
            moves = view["moves"]
            words = [w for w in ("draw", "take", "pass") if moves[w]]
            words += [f"knock {d['card']}" for d in moves["discards"] if d["knock"]][:1]
            words = words[-1:] or [d["card"] for d in moves["discards"] if d["discard"]]
            move = {"move": str(rng.choice(words))}
            view = c.post(f"/api/play/{view['game']}/move", json=move).json()
        assert c.post("/api/play", json={}).status_code == 200
        assert c.get(f"/api/play/{view['game']}").status_code == 404
        assert c.get(f"/api/play/{games[2]['game']}").status_code == 200


SURROGATE_BODIES = [
    '{"opponent": "simple", "name": "\\ud800"}',
    '{"opponent": "simple", "opponent_name": "\\udfff"}',
    '{"opponent": "simple\\ud83d"}',
    '{"rules": "knock_limit=10 \\udc00"}',
    '{"\\ud800": 1}',
]


@pytest.mark.parametrize("body", SURROGATE_BODIES)
def test_a_lone_surrogate_is_a_json_400_and_stores_no_game(client, body) -> None:
    """A lone surrogate escape (no valid Unicode) in any text is a 400; no game is stored."""
    for path in ("/api/play", "/api/watch"):
        response = client.post(
            path, content=body.encode(), headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 400, response.text[:200]
        assert "invalid Unicode" in response.json()["error"]
    assert stored(client) == 0


def test_a_game_whose_reply_fails_is_not_stored(client, monkeypatch) -> None:
    """A new game is stored only once its reply is built: a failing reply leaves none."""
    import hgin_ui.web.endpoints as endpoints

    def broken(game):
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(endpoints, "play_view", broken)
    failing = TestClient(client.app, base_url=BASE, raise_server_exceptions=False)
    failing.headers["X-Hgin-Token"] = client.app.state.token
    assert failing.post("/api/play", json={"seed": 1}).status_code == 500
    assert stored(client) == 0


def test_a_transcript_line_with_a_lone_surrogate_is_refused(client, tmp_path) -> None:
    """/api/replay and ``python -m hgin_env.replay`` refuse it with one line, never a 500."""
    from hgin_env.replay import main as replay_main

    record = a_record(client)
    line = json.dumps(dict(record, names=["You", "\udfff"]))  # as the old table wrote it
    response = client.post("/api/replay", json={"text": line})
    assert response.status_code == 400
    assert "invalid Unicode" in response.json()["error"]
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(record) + "\n" + line + "\n")
    assert replay_main([str(path)]) == 2


def test_what_the_table_writes_reads_back(tmp_path) -> None:
    """A transcript line of a name of undecodable bytes (surrogates) is still readable."""
    from hgin_env.replay import parse_transcript, record_line

    line = record_line({"names": ["\udcff\udcfe", "b"], "info": {"\ud800": "x"}})
    (record,) = parse_transcript(line)
    assert record["names"] == ["??", "b"] and record["info"] == {"?": "x"}

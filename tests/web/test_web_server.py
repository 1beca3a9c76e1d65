"""The web table's server through its JSON API: whole hands, hidden cards, bad moves, replays."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
from starlette.testclient import TestClient

from hgin_cli.play import web_main
from hgin_env.engine.cards import card_id, card_text
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.replay import ReplayError, replay_hand
from hgin_ui.web.games import PlayGame
from hgin_ui.web.parsing import Defaults
from hgin_ui.web.server import create_app
from hgin_ui.web.views import laid_on, sheet_view, table_view
from hgin_ui.web.words import you_words

ROOT = Path(__file__).resolve().parents[2]
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][CDHS]\b")


#: where the test client says the server is (the Host check wants its name and port)
BASE = "http://127.0.0.1:8000"


def table_client(app) -> TestClient:
    """A test client of ``app`` as the page is: its address, and the token on every request."""
    return TestClient(app, base_url=BASE, headers={"X-Hgin-Token": app.state.token})


@pytest.fixture
def client() -> Iterator[TestClient]:
    """A test client of a fresh app whose default opponent is the simple bot."""
    with table_client(create_app(Defaults(opponent="simple"))) as c:
        yield c


def game_of(client: TestClient, view: dict) -> PlayGame:
    """The server's game behind a view (to know what the page must not see)."""
    return cast(Any, client.app).state.store.get(view["game"])  # the app, typed as any ASGI app


def cards_in(message: dict) -> set[str]:
    """Every card text that appears anywhere in a message."""
    return set(CARD_TOKEN.findall(json.dumps(message)))


def hidden_now(game: PlayGame) -> set[str]:
    """The cards the person may not know now: the opponent's unseen cards and the stock."""
    s = game.session.engine.state
    opp = 1 - game.session.seat
    unseen = s.hands[0, opp] & ~s.known[0, opp]
    stock = s.deck[0, int(s.stock_pos[0]) :]
    return {card_text(c) for c in np.flatnonzero(unseen)} | {card_text(c) for c in stock}


def stock_left(record: dict) -> set[str]:
    """The cards still in the stock at the end of a finished hand (never seen by anyone)."""
    engine, _ = replay_hand(record)
    s = engine.state
    return {card_text(c) for c in s.deck[0, int(s.stock_pos[0]) :]}


def check_message(game: PlayGame, message: dict) -> None:
    """Assert a play message shows nothing hidden: the live hand's, or a finished hand's stock."""
    text = json.dumps(message)
    assert '"deck"' not in text and '"seed"' not in text
    if message["result"] is None:
        leaked = cards_in(message) & hidden_now(game)
        assert not leaked, f"the page was sent hidden cards {sorted(leaked)}"
    else:  # between hands: the finished hand only, nothing of the next deal
        assert message["table"] is None and message["moves"] is None
        assert game.pending is not None
        assert not cards_in(message) & stock_left(game.pending)


def choose(view: dict, rng: np.random.Generator) -> str:
    """A legal move read off the view, at random (a knock whenever one is offered)."""
    moves = view["moves"]
    words = [w for w in ("draw", "take", "pass") if moves[w]]
    knocks = [f"knock {d['card']}" for d in moves["discards"] if d["knock"]]
    if knocks:
        return knocks[0]
    words += [d["card"] for d in moves["discards"] if d["discard"]]
    return str(rng.choice(words))


def play_hand(client: TestClient, view: dict, rng: np.random.Generator, check=None) -> dict:
    """Play the person's moves until the hand ends; ``check(game, message)`` sees every message."""
    game = game_of(client, view)
    while view["result"] is None:
        if check:
            check(game, view)
        response = client.post(f"/api/play/{view['game']}/move", json={"move": choose(view, rng)})
        assert response.status_code == 200, response.json()
        view = response.json()
    if check:
        check(game, view)
    return view


@pytest.mark.parametrize(
    ("opponent", "seat", "seed"), [("simple", 0, 1), ("expert", 1, 2), ("ppo-cards", 0, 3)]
)
def test_no_message_shows_hidden_cards_over_whole_hands(client, opponent, seat, seed) -> None:
    """Over three whole hands every message hides the opponent's unseen cards and the stock."""
    rng = np.random.default_rng(seed)
    lines: list[str] = []

    def check(game: PlayGame, message: dict) -> None:
        check_message(game, message)
        lines.extend(message["log"])

    view = client.post("/api/play", json={"opponent": opponent, "seat": seat, "seed": seed}).json()
    game = game_of(client, view)
    for hand in range(3):
        view = play_hand(client, view, rng, check)
        assert view["result"]["hand"] == hand + 1
        check(game, client.get(f"/api/play/{view['game']}").json())
        view = client.post(f"/api/play/{view['game']}/next", json={}).json()
        check(game, view)
    # the opponent's moves are announced, its stock draws without the card
    opp = game.names[1 - seat]
    theirs = {line for line in lines if line.startswith(opp + " ")}
    assert theirs and f"{opp} draws from the stock" in theirs
    assert not any(re.match(rf"{opp} draws \S+ from", line) for line in theirs)
    assert len(game.records) == 3


def test_the_checker_flags_a_face_up_opponent(client) -> None:
    """The hidden-card check fails on a view that shows the opponent's hand (it can fail)."""
    view = client.post("/api/play", json={"seed": 4}).json()
    game = game_of(client, view)
    leaky = dict(view, table=table_view(game.session.engine, game.names, face_up=(0, 1)))
    with pytest.raises(AssertionError, match="hidden cards"):
        check_message(game, leaky)


def test_a_series_plays_to_its_end_under_page_rules(client) -> None:
    """A short series (game_target=10 from the page's rules) ends with a winner on the sheet."""
    rng = np.random.default_rng(7)
    view = client.post("/api/play", json={"seed": 7, "rules": "game_target=10 gin_bonus=20"}).json()
    game = game_of(client, view)
    assert game.session.series.rules.game_target == 10
    assert game.session.series.rules.gin_bonus == 20
    for _ in range(60):
        view = play_hand(client, view, rng)
        if view["finished"]:
            break
        view = client.post(f"/api/play/{view['game']}/next", json={}).json()
    assert view["finished"] and view["sheet"]["finished"]
    winner = view["sheet"]["winner"]
    assert winner in game.names
    row = next(r for r in view["sheet"]["rows"] if r["name"] == winner)
    assert row["games_won"] >= 2 and sum(row["won"]) == row["games_won"]
    assert f"series won by {winner}" in view["sheet"]["text"]
    refused = client.post(f"/api/play/{view['game']}/next", json={})
    assert refused.status_code == 400
    assert refused.json()["error"] == "The series is over: start a new one."


def terminal_replies(seed: int, lines: list[str]) -> list[str]:
    """What play.py prints for each of ``lines`` typed at its first prompt (seat 0, simple)."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "play.py"), "simple", "--seed", str(seed), "--hands", "1"],
        input="\n".join([*lines, "quit"]) + "\n", capture_output=True, text=True, cwd=ROOT,
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if line.startswith(("Not a move", "Illegal"))]


def test_refused_moves_get_play_py_messages_and_change_nothing(client) -> None:
    """Bad moves get the very lines play.py prints for them, and the game stays as it was."""
    seed = 5
    view = client.post("/api/play", json={"seed": seed}).json()
    game = game_of(client, view)
    held = {card_text(c) for c in np.flatnonzero(game.session.engine.state.hands[0, 0])}
    missing = next(card_text(c) for c in range(52) if card_text(c) not in held)
    bad = ["gibberish words", "ZZ", f"knock {missing}", missing, "draw" if view["moves"]["pass"]
           else "pass"]  # fmt: skip
    expected = terminal_replies(seed, bad)
    assert len(expected) == len(bad)
    before = client.get(f"/api/play/{view['game']}").json()
    deck = game.session.engine.state.deck.copy()
    for move, message in zip(bad, expected, strict=True):
        response = client.post(f"/api/play/{view['game']}/move", json={"move": move})
        assert response.status_code == 400
        assert response.json()["error"] == message
        assert response.json()["state"] == before
    assert client.get(f"/api/play/{view['game']}").json() == before
    assert (game.session.engine.state.deck == deck).all() and game.log == before["log"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"{not json", 400, "malformed request: the body is not JSON"),
        (b"[1, 2]", 400, "malformed request: the body must be a JSON object"),
        (b'{"move": 7}', 400, 'malformed request: expected {"move": "7H"}'),
        (b'{"mov": "7H"}', 400, 'malformed request: expected {"move": "7H"}'),
    ],
)
def test_malformed_move_requests_are_refused(client, body, status, message) -> None:
    """A move request that is not a JSON object with a move text is refused with the reason."""
    view = client.post("/api/play", json={"seed": 1}).json()
    headers = {"Content-Type": "application/json"}
    response = client.post(f"/api/play/{view['game']}/move", content=body, headers=headers)
    assert response.status_code == status
    assert response.json()["error"].startswith(message)
    assert client.get(f"/api/play/{view['game']}").json() == view


def test_unknown_games_and_bad_options_are_refused(client) -> None:
    """Unknown games give 404; bad policies, rules, seats or seeds a 400 in the page's words."""
    for url in ("/api/play/nosuch", "/api/watch/nosuch", "/api/games/nosuch/transcript"):
        response = client.get(url)
        assert response.status_code == 404
        assert response.json()["error"] == "no such game 'nosuch': start a new one"
    assert client.post("/api/play/nosuch/move", json={"move": "draw"}).status_code == 404
    cases = [
        ({"opponent": "nosuchbot"}, "unknown opponent 'nosuchbot': choose one the server lists"),
        ({"rules": "knock_limit=x"}, "rules: knock_limit must be an integer, got 'x'"),
        ({"rules": "allow_rediscard=yes"}, "rules: allow_rediscard must be true or false"),
        ({"rules": "prior=/x"}, "rules: unknown rules field 'prior'; the fields are knock_limit"),
        ({"rules": "knock_limit=200"}, "rules: knock_limit must be in 0..100, got 200"),
        (
            {"rules": "knock_limit=99"},
            "rules: knock_limit=99 is outside 0..30: above 30 almost every hand may knock",
        ),
        ({"rules": "gin_bonus=5000"}, "rules: gin_bonus=5000 is outside 0..200: a bonus"),
        ({"rules": "knock_limit"}, "rules: bad item 'knock_limit': write key=value"),
        ({"rules": "colour=3"}, "rules: unknown rules field 'colour'"),
        ({"seat": 2}, "the seat must be 0 or 1, got 2"),
        ({"seed": -1}, "the seed must be a whole number from 0 to 18446744073709551615, got -1"),
    ]
    for body, message in cases:
        response = client.post("/api/play", json=body)
        assert response.status_code == 400, body
        error = response.json()["error"]
        assert error.startswith(message)
        assert not any(term in error for term in ("--rules", "RulesConfig", "2**64")), error
    response = client.post("/api/watch", json={"players": ["simple"]})
    assert response.status_code == 400
    assert response.json()["error"].startswith("players must be two policy names")
    response = client.post("/api/watch", json={"players": ["simple", "nosuchbot"]})
    assert response.json()["error"].startswith("unknown player 'nosuchbot': choose one")
    assert len(client.app.state.store) == 0


def test_two_games_are_independent(client) -> None:
    """Two games (two tabs) with the same seed have their own ids and their own moves."""
    a = client.post("/api/play", json={"seed": 9}).json()
    b = client.post("/api/play", json={"seed": 9}).json()
    assert a["game"] != b["game"]
    assert a["table"] == b["table"]  # the same deal
    move = choose(a, np.random.default_rng(0))
    after = client.post(f"/api/play/{a['game']}/move", json={"move": move}).json()
    assert after["log"] != a["log"]
    assert client.get(f"/api/play/{b['game']}").json() == b
    again = client.post(f"/api/play/{b['game']}/move", json={"move": move}).json()
    assert again["log"] == after["log"] and again["table"] == after["table"]


def test_saved_transcript_replays_and_holds_only_finished_hands(client, tmp_path) -> None:
    """The saved transcript holds each finished hand, replayable, under the page's names."""
    rng = np.random.default_rng(11)
    view = client.post("/api/play", json={"seed": 11, "name": "Ann", "seat": 1}).json()
    url = f"/api/games/{view['game']}/transcript"
    refused = client.get(url)
    assert refused.status_code == 400 and "no hand has finished yet" in refused.json()["error"]
    for _ in range(2):
        view = play_hand(client, view, rng)
        view = client.post(f"/api/play/{view['game']}/next", json={}).json()
    response = client.get(url)
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    records = [json.loads(line) for line in response.text.splitlines()]
    assert len(records) == 2 == view["saved_hands"]
    game = game_of(client, view)
    for k, record in enumerate(records, start=1):
        assert record["names"] == ["simple", "Ann"] and record["info"]["hand"] == k
        replay_hand(record)
    assert list(game.session.engine.state.deck[0]) not in [r["deck"] for r in records]
    path = tmp_path / "page.jsonl"
    path.write_text(response.text)
    proc = subprocess.run(
        [sys.executable, "-m", "hgin_env.replay", str(path)], capture_output=True, text=True,
        cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0 and "verified 2 hand(s)" in proc.stdout


def page_transcript(client: TestClient, seed: int) -> str:
    """The transcript of one hand played through the API."""
    view = client.post("/api/play", json={"seed": seed}).json()
    view = play_hand(client, view, np.random.default_rng(seed))
    return client.get(f"/api/games/{view['game']}/transcript").text


def test_replay_gives_one_frame_per_action(client) -> None:
    """A transcript replays as the deal then one frame per action, both hands face up."""
    text = page_transcript(client, 12)
    (record,) = [json.loads(line) for line in text.splitlines()]
    response = client.post("/api/replay", json={"text": text, "name": "t.jsonl"})
    assert response.status_code == 200
    (hand,) = response.json()["hands"]
    assert len(hand["frames"]) == len(record["actions"]) + 1
    assert [f["table"]["phase"] for f in hand["frames"]][-1] == "over"
    assert all(seat["hand"] is not None for f in hand["frames"] for seat in f["table"]["seats"])
    dealt = hand["frames"][0]["table"]["seats"]
    for seat in (0, 1):
        shown = {c for group in dealt[seat]["hand"]["melds"] for c in group}
        shown |= set(dealt[seat]["hand"]["deadwood_cards"])
        assert shown == set(record["dealt"][seat].split())
    assert hand["result"]["points"] == record["result"]["points"]


def tampered(record: dict, how: str) -> dict:
    """A copy of a record spoiled one way."""
    bad = json.loads(json.dumps(record))
    if how == "points":
        bad["result"]["points"] += 1
    elif how == "seat":
        bad["actions"][0][0] = 1 - bad["actions"][0][0]
    elif how == "short":
        bad["actions"] = bad["actions"][:-1]
    elif how == "deck":
        del bad["deck"]
    return bad


@pytest.mark.parametrize("how", ["points", "seat", "short", "deck"])
def test_replay_shows_the_replay_modules_error(client, how) -> None:
    """A transcript that fails verification is refused with hgin_env.replay's reason."""
    text = page_transcript(client, 13)
    good = json.loads(text.splitlines()[0])
    bad = tampered(good, how)
    with pytest.raises(ReplayError) as reason:
        replay_hand(bad)
    lines = [json.dumps(good), json.dumps(bad)]
    response = client.post("/api/replay", json={"text": "\n".join(lines)})
    assert response.status_code == 400
    assert response.json()["error"] == f"error: hand 2 of 2: {reason.value}"


def test_replay_refuses_text_that_is_no_transcript(client) -> None:
    """Lines that are not JSON objects, an empty text or a missing text are refused."""
    cases = [
        ({"text": "{}\nnot json", "name": "x.jsonl"}, "error: x.jsonl:2: not JSON"),
        ({"text": "[1]"}, "error: transcript:1: expected a JSON object per line"),
        ({"text": "\n"}, "error: transcript: no hand records"),
        ({"name": "x"}, 'malformed request: expected {"text": <the transcript>}'),
    ]
    for body, message in cases:
        response = client.post("/api/replay", json=body)
        assert response.status_code == 400
        assert response.json()["error"].startswith(message)


def test_watch_plays_both_seats_face_up_and_saves_hands(client) -> None:
    """A watched game steps one action at a time with both hands shown, and saves its hands."""
    view = client.post("/api/watch", json={"players": ["simple", "random"], "seed": 3}).json()
    assert view["names"] == ["simple", "random"]
    steps = 0
    while view["result"] is None:
        assert all(seat["hand"] is not None for seat in view["table"]["seats"])
        before = len(view["log"])
        view = client.post(f"/api/watch/{view['game']}/step", json={}).json()
        assert len(view["log"]) == before + 1
        steps += 1
    view = client.post(f"/api/watch/{view['game']}/step", json={}).json()  # the next deal
    assert view["result"] is None and view["hand_no"] == 2 and len(view["log"]) == 1
    (record,) = [
        json.loads(line)
        for line in client.get(f"/api/games/{view['game']}/transcript").text.splitlines()
    ]
    assert len(record["actions"]) == steps
    replay_hand(record)
    same = client.post("/api/watch", json={"players": ["expert", "expert"]}).json()
    assert same["names"] == ["expert (1)", "expert (2)"]


def test_options_list_the_policies_and_the_command_line_defaults() -> None:
    """The page's forms start from the command line: opponent, seat, names, rules, seed."""
    from hgin_env.envs.spec import parse_rules

    rules = parse_rules(["knock_limit=7", "big_gin_bonus=31"])
    app = create_app(Defaults("expert", 1, ("Ann", "Bob"), rules, 5))
    with table_client(app) as c:
        options = c.get("/api/options").json()
        d = options["defaults"]
        assert (d["opponent"], d["seat"], d["name"], d["seed"]) == ("expert", 1, "Ann", 5)
        assert d["rules"] == "knock_limit=7 big_gin_bonus=31"
        assert {"random", "simple", "expert"} <= set(options["bots"])
        assert "ppo-cards" in options["models"]
        view = c.post("/api/play", json={}).json()
        assert view["you"] == 1 and view["names"] == ["Bob", "Ann"]
        assert game_of(c, view).session.series.rules == rules
        page = c.get("/")
        assert page.status_code == 200 and "/static/app.js" in page.text
        for name in ("app.js", "style.css"):
            assert c.get(f"/static/{name}").status_code == 200
        # nothing is loaded from the network: no external URL in the page or its files
        for text in (page.text, c.get("/static/app.js").text, c.get("/static/style.css").text):
            assert not re.search(r"(src|href)=\"?https?://|url\(https?:|@import", text)


def read_line(stream, timeout: float = 60.0) -> str:
    """One line from a stream, or '' when none comes in time (a reader thread)."""
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return out[0] if out else ""


@pytest.mark.skipif(sys.platform != "linux", reason="127.0.0.2 is a loopback address on Linux")
def test_play_py_web_listens_on_loopback_only_and_stops_on_ctrl_c() -> None:
    """play.py --web --port 0 prints its URL, serves on 127.0.0.1 only, and exits 0 on Ctrl-C."""
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "play.py"), "--web", "--port", "0", "simple"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        line = read_line(proc.stdout)
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([\w-]+)", line)
        assert match, f"no URL printed: {line!r}"
        port, token = int(match.group(1)), match.group(2)
        url = f"http://127.0.0.1:{port}/api/options"
        with pytest.raises(urllib.error.HTTPError) as refused:  # no token: refused
            urllib.request.urlopen(url, timeout=30)
        assert refused.value.code == 403
        request = urllib.request.Request(url, headers={"X-Hgin-Token": token})
        with urllib.request.urlopen(request, timeout=30) as r:
            assert json.loads(r.read())["defaults"]["opponent"] == "simple"
        # bound to 127.0.0.1, not to every address: another loopback address is refused
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.2", port), timeout=10).close()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "Web table stopped." in out and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_command_line_errors_exit_2_in_one_line(capsys) -> None:
    """An unknown opponent or a taken port exits 2 with one line; bad options are usage errors."""
    assert web_main(["nosuchbot", "--port", "0"]) == 2
    assert capsys.readouterr().err.strip().startswith("error: unknown policy 'nosuchbot'")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert web_main(["simple", "--port", str(port)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"error: cannot listen on 127.0.0.1:{port}") and "\n" not in err
    bad = (["--port", "70000"], ["--seed", "-1"], ["--seed", str(2**64)], ["--rules", "x=1"])
    for argv in bad:
        with pytest.raises(SystemExit) as exit_:
            web_main(argv)
        assert exit_.value.code == 2


def test_card_tokens_are_read_as_cards() -> None:
    """The hidden-card check reads every card text (52 of them) and no other word."""
    texts = [card_text(c) for c in range(52)]
    assert set(CARD_TOKEN.findall(" ".join(texts))) == set(texts)
    assert all(card_id(t) == c for c, t in enumerate(texts))
    assert not CARD_TOKEN.findall("You draw from the stock; Legal: take; pass")


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("You draws 7H from the stock", "You draw 7H from the stock"),
        ("You passes on the upcard 5H", "You pass on the upcard 5H"),
        ("You knocks, discarding 7H", "You knock, discarding 7H"),
        ("You goes gin: 31 points to You.", "You go gin: 31 points to you."),
        ("You undercuts Bob: 12 points to You.", "You undercut Bob: 12 points to you."),
        ("Bob undercuts You: 12 points to Bob.", "Bob undercuts you: 12 points to Bob."),
        ("Bob knocks; You lay off 7H", "Bob knocks; You lay off 7H"),
        ("Youssef draws from the stock", "Youssef draws from the stock"),
        ("You deals; upcard 7H", "You deal; upcard 7H"),
        ("Bob knocks: 1 points to Bob.", "Bob knocks: 1 point to Bob."),
        ("Bob knocks: 11 points to Bob.", "Bob knocks: 11 points to Bob."),
    ],
)
def test_lines_about_you_are_said_to_you(line: str, said: str) -> None:
    """The log and the headline speak to a player named You in the second person."""
    assert you_words(line) == said


def test_the_log_says_whose_line_each_is_for_a_player_named_like_the_bot(client) -> None:
    """``log_seats`` gives each log line's seat (None: the deal), names alike or not."""
    rng = np.random.default_rng(5)
    view = client.post("/api/play", json={"seed": 5, "name": "simple"}).json()
    assert view["names"] == ["simple", "simple (2)"]
    for _ in range(4):
        assert len(view["log_seats"]) == len(view["log"])
        assert view["log_seats"][0] is None and view["log"][0].startswith("Hand 1: ")
        for line, seat in zip(view["log"][1:], view["log_seats"][1:], strict=True):
            assert line.startswith(view["names"][seat] + " ")
            assert seat == 0 or line.startswith("simple (2) ")
        move = {"move": choose(view, rng)}
        view = client.post(f"/api/play/{view['game']}/move", json=move).json()
        if view["result"] is not None:
            break


def knocked_transcript(client: TestClient) -> str:
    """The transcript of two hands played through the API, the first one ended by a knock."""
    for seed in range(30, 60):
        view = client.post("/api/play", json={"seed": seed}).json()
        view = play_hand(client, view, np.random.default_rng(seed))
        if view["result"]["outcome"] in ("KNOCK", "UNDERCUT") and view["result"]["points"]:
            view = client.post(f"/api/play/{view['game']}/next", json={}).json()
            view = play_hand(client, view, np.random.default_rng(seed))
            return client.get(f"/api/games/{view['game']}/transcript").text
    raise AssertionError("no seed from 30 to 59 gives a knock")


def test_replay_keeps_a_running_score_sheet_and_lists_deadwood_as_drawn(client) -> None:
    """Each replayed hand carries the sheet before and after it; the text orders cards as drawn."""
    text = knocked_transcript(client)
    records = [json.loads(line) for line in text.splitlines()]
    hands = client.post("/api/replay", json={"text": text}).json()["hands"]
    first, second = hands
    assert all(v is None for row in first["sheet_before"]["rows"] for v in row["scores"])
    assert second["sheet_before"] == first["sheet"]
    winner, points = records[0]["result"]["winner"], records[0]["result"]["points"]
    row = next(r for r in first["sheet"]["rows"] if r["seat"] == winner)
    assert row["scores"][0] == points
    result = first["result"]
    for seat in result["seats"]:  # the text's deadwood and layoffs in the cards' order
        if seat["role"] and seat["deadwood_cards"]:
            line = next(x for x in result["lines"] if f"({seat['role']})" in x)
            loose = line.split("deadwood")[0].split("|")[-1]
            assert CARD_TOKEN.findall(loose) == seat["deadwood_cards"]
        if seat["layoffs"]:
            line = next(x for x in result["lines"] if x.startswith("Laid off"))
            assert line.split()[2:] == seat["layoffs"]


def test_the_replay_title_reads_its_info_and_the_rules_are_shown(client) -> None:
    """A record's info reads as words in the title (no Python list); each hand has its rules.

    evaluate.py counts series from 0 (``"series": 3`` is the fourth): the title counts
    series and hands from 1.
    """
    text = page_transcript(client, 12)
    record = json.loads(text)
    record["info"] = {"series": 3, "versions": ["simple@2", "expert@1"], "x": {"a": 1}}
    record["rules"]["gin_bonus"] = 25  # the default: the rules say so
    (hand,) = client.post("/api/replay", json={"text": json.dumps(record)}).json()["hands"]
    assert hand["title"] == "Hand 1 of 1 · series 4 · versions simple@2, expert@1"
    assert hand["rules"] == ""
    assert hand["rules_in_force"].startswith("knock at 10 or less · gin bonus 25 ·")
    view = client.post("/api/play", json={"rules": "knock_limit=7"}).json()
    assert view["rules"] == "knock_limit=7"
    assert view["rules_in_force"] == (
        "knock at 7 or less · gin bonus 25 · undercut bonus 10 · big gin off · games to 100"
    )
    body = {"players": ["simple", "simple"], "rules": "gin_bonus=30"}
    watch = client.post("/api/watch", json=body)
    assert watch.json()["rules"] == "gin_bonus=30"


def test_the_sheet_says_who_won_two_games_while_the_last_plays_on() -> None:
    """After two games won the sheet names the series' winner though it is not finished."""
    sheets = ScoreSheets(1, RulesConfig(game_target=1))
    for _ in range(2):
        sheets.record(np.array([0]), np.array([5]))
    view = sheet_view(sheets, ["Ann", "Bob"], 0)
    assert not view["finished"] and view["decided"] == "Ann"


def test_the_searcher_is_offered_and_its_thinking_time_is_shown(client) -> None:
    """``searcher`` is listed and playable; each view gives its latency, nothing hidden."""
    assert "searcher" in client.get("/api/options").json()["bots"]
    view = client.post("/api/play", json={"opponent": "searcher", "seat": 1, "seed": 4}).json()
    game = game_of(client, view)
    assert view["latency"] is not None and view["latency"]["decisions"] >= 1
    view = play_hand(client, view, np.random.default_rng(4), check_message)
    latency = view["latency"]
    assert latency["decisions"] == len(game.think_seconds) >= 2
    assert 0 < latency["last_ms"] <= latency["max_ms"] and latency["mean_ms"] <= latency["max_ms"]


def page_move(view: dict) -> str:
    """The move a test's clicks make: pass, draw, the first knock offered, else the best discard.

    The cards come in the order the page draws them (the melds, then the deadwood).
    """
    table, moves = view["table"], view["moves"]
    if table["phase"] == "offer":
        return "pass"
    if table["phase"] == "draw":
        return "draw"
    hand = table["seats"][view["you"]]["hand"]
    order = [c for meld in hand["melds"] for c in meld] + hand["deadwood_cards"]
    offered = {d["card"]: d for d in moves["discards"]}
    knocks = [c for c in order if offered[c]["knock"]]
    if knocks:
        return f"knock {knocks[0]}"
    playable = [c for c in order if offered[c]["discard"]]
    return min(playable, key=lambda c: offered[c]["deadwood"])


def page_hand(client: TestClient, seed: int) -> dict:
    """A hand against simple played by ``page_move``: the view at its end."""
    view = client.post("/api/play", json={"seed": seed}).json()
    while view["result"] is None:
        view = client.post(f"/api/play/{view['game']}/move", json={"move": page_move(view)}).json()
    return view


def test_a_gin_is_said_as_gin_and_every_result_adds_up(client) -> None:
    """The log says gin where the hand is a gin; each result's breakdown sums to its points."""
    view = page_hand(client, 38)  # simple goes gin
    result = view["result"]
    assert result["outcome"] == "GIN"
    (line,) = [x for x in view["log"] if x.startswith("simple ") and " gin" in x]
    assert re.fullmatch(r"simple goes gin, discarding [A2-9TJQK][CDHS]", line)
    assert not any("knocks" in x for x in view["log"])
    d = result["seats"][0]["deadwood"]
    assert result["breakdown"] == [f"your deadwood {d}", "gin bonus 25"]
    assert result["points"] == d + 25 and result["games"] == [1]
    # a knock with a layoff: the defender's deadwood after it, and the meld it went on
    result = page_hand(client, 18)["result"]
    assert result["breakdown"] == ["deadwood 20 (after laying off 5C) - 9 = 11"]
    assert result["seats"][0]["laid_on"] == [[], ["5C"]]
    # every kind of result adds up: knocks, undercuts, gins, over many deals
    seen = set()
    for seed in range(12):
        result = page_hand(client, seed)["result"]
        seen.add(result["outcome"])
        items = result["breakdown"]
        numbers = [int(re.findall(r"-?\d+", item.split("=")[-1])[-1]) for item in items]
        if result["outcome"] in ("KNOCK", "GIN", "UNDERCUT"):
            assert sum(numbers) == result["points"], result
            assert result["games"] == [1], result  # the first hand of a series: game 1
        else:
            assert result["breakdown"] == [] and result["games"] == [], result
    assert {"KNOCK", "UNDERCUT"} <= seen, seen


def test_the_sheet_hand_by_hand_follows_hollywood_scoring(client) -> None:
    """Each hand's points go into game 1, then games 1 and 2, then all three (while open)."""
    view = client.post("/api/play", json={"seed": 5, "rules": "game_target=150"}).json()
    for _ in range(60):
        while view["result"] is None:
            move = page_move(view)
            view = client.post(f"/api/play/{view['game']}/move", json={"move": move}).json()
        if view["finished"]:
            break
        view = client.post(f"/api/play/{view['game']}/next", json={}).json()
    history = view["history"]
    assert history and view["result"]["games"] == history[-1]["games"]
    sheets = ScoreSheets(1, RulesConfig(game_target=150))
    names = view["names"]
    for row in history:
        winner = names.index(row["winner"]) if row["winner"] else -1
        entry = sheets.next_entry_games(np.array([max(winner, 0)]))[0]
        expect = [] if winner < 0 else [g + 1 for g in np.flatnonzero(entry)]
        if winner >= 0:
            sheets.record(np.array([winner]), np.array([row["points"]]))
        assert row["games"] == expect, (row, expect)
        assert row["totals"] == sheets.scores[0].tolist()
    assert max(len(row["games"]) for row in history) == 3, history


def test_layoffs_go_on_the_melds_they_extend() -> None:
    """A layoff goes on a set of its rank or an end of a run, which then grows."""
    melds = [["7C", "7D", "7H"], ["4H", "5H", "6H"]]
    assert laid_on(melds, ["7S", "2H", "3H"]) == [["7S"], ["3H", "2H"]]
    assert laid_on(melds, ["KD"]) == [[], []]  # fits no meld: left out
    assert laid_on([["9S", "TS", "JS"]], ["KS", "QS"]) == [["QS", "KS"]]


def test_discards_are_listed_in_the_order_played(client) -> None:
    """Each seat's discards come in the order played, not sorted."""
    view = client.post("/api/play", json={"seed": 4}).json()
    game = game_of(client, view)
    mine: list[str] = []
    for _ in range(12):
        if view["result"] is not None:
            break
        move = page_move(view)
        if view["table"]["phase"] == "discard" and not move.startswith("knock"):
            mine.append(move)
        view = client.post(f"/api/play/{view['game']}/move", json={"move": move}).json()
    if view["table"] is not None:
        assert view["table"]["seats"][0]["discards"] == mine
        theirs = [
            card_text(a if a < 52 else a - 52)
            for seat, a in game.session.actions
            if seat == 1 and a < 104
        ]
        assert view["table"]["seats"][1]["discards"] == theirs
        assert len(mine) >= 3 and mine != sorted(mine, key=card_id)


def test_a_game_reopens_by_its_id_only_with_the_token_and_from_the_page(client) -> None:
    """``GET /api/play/{id}`` reopens a game; no token or another site is refused.

    The id is 128 random bits; an ended game says so; a forgotten one is a 404.
    """
    view = client.post("/api/play", json={"seed": 1}).json()
    assert re.fullmatch(r"[0-9a-f]{32}", view["game"])
    again = client.get(f"/api/play/{view['game']}")
    assert again.status_code == 200 and again.json() == view
    url = f"/api/play/{view['game']}"
    assert client.get(url, headers={"X-Hgin-Token": "wrong"}).status_code == 403
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        response = client.get(url, headers=headers)
        assert response.status_code == 403, headers
        assert response.json()["error"].startswith("a request from another site")
    same = client.get(url, headers={"Origin": BASE, "Sec-Fetch-Site": "same-origin"})
    assert same.status_code == 200
    client.post(f"/api/games/{view['game']}/end", json={})
    assert client.get(url).json()["ended"] is True
    cast(Any, client.app).state.store.clear()
    assert client.get(url).status_code == 404

"""The web table in a real browser: Playwright drives Debian's chromium through whole hands.

The server runs in a thread of the test process (uvicorn on 127.0.0.1, a free port); the
browser is the system's ``chromium`` (Playwright's own browser download is not used).
Screenshots go to ``$HGIN_SCREENSHOTS`` when set (``docs/img`` regenerates the docs'
pictures), else to the test's temporary folder. Without chromium the tests are skipped,
except under CI (``CI`` set), where that is a failure: ``.ci/run`` installs it.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from agents import SimpleBot, load_policy
from hgin_env.replay import ReplayError, replay_hand, result_lines
from hgin_ui.terminal import GameSession
from hgin_ui.web.catalog import PolicyCatalog
from hgin_ui.web.parsing import Defaults
from hgin_ui.web.server import bind_socket, create_app, page_url
from hgin_ui.web.words import you_words

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is not installed")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("chromium is missing under CI (.ci/run installs it with apt-get)")
    pytest.skip(
        "no chromium on PATH (apt-get install -y chromium) for the browser tests",
        allow_module_level=True,
    )

#: the page's default seed in these tests
SEED = 22
#: a deal where clicking a knock when offered, else the least-deadwood discard, ends in
#: the person's knock with a layoff on one of its melds
LAYOFF_SEED = 18
#: a search opponent small enough for a test (its full spec is long)
SEARCH = "pimc:worlds=4"
#: the rules line under default rules: the values in force
DEFAULT_RULES = (
    "Rules: knock at 10 or less · gin bonus 25 · undercut bonus 10 · big gin off · "
    "games to 100 (the defaults)"
)
#: wait for the page to show a new view (a move answered) and no request in flight
NEW_VIEW = (
    "([sel, v]) => document.querySelector(sel).dataset.version !== v"
    " && document.body.dataset.busy === '0'"
)


@pytest.fixture(scope="module")
def app():
    """The web table's app: the simple bot and a fixed seed by default; a small search listed."""
    catalog = PolicyCatalog(extra={SEARCH: SEARCH})
    return create_app(Defaults(opponent="simple", seed=SEED), catalog=catalog)


@pytest.fixture(scope="module")
def server(app):
    """The web table on a free port of 127.0.0.1 in a thread; stopped even if a test fails."""
    sock = bind_socket(0)
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(600):  # the loop starts in well under a second; give up after 60 s
            if srv.started or not thread.is_alive():
                break
            time.sleep(0.1)
        assert srv.started, "the web table did not start"
        yield page_url(app, sock.getsockname()[1])
    finally:
        srv.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture(scope="module")
def browser():
    """Headless chromium (the system's); closed even if a test fails."""
    with sync_api.sync_playwright() as p:
        args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def context(browser):
    """A fresh browser context (its own tabs and downloads), closed after the test."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where screenshots go: ``$HGIN_SCREENSHOTS`` or the test's temporary folder."""
    folder = Path(os.environ.get("HGIN_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(context, url: str):
    """A new tab on the table, its start-up done; page errors are collected on ``page.errors``."""
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def act(page, board: str, do, timeout: float = 30_000) -> None:
    """Run ``do()`` (a click) and wait until the board shows the server's answer."""
    version = page.get_attribute(board, "data-version")
    do()
    page.wait_for_function(NEW_VIEW, arg=[board, version], timeout=timeout)


def state(page, board: str = "#play-board") -> str:
    """The board's state: offer, draw, discard, wait, hand-over, series-over..."""
    return page.get_attribute(board, "data-state")


def next_target(page):
    """The control of the move to play: pass, draw, a knock when offered, else the best discard."""
    phase = state(page)
    if phase == "offer":
        return page.locator("#move-pass")
    if phase == "draw":
        return page.locator("#move-draw")
    if phase == "discard":
        knocks = page.locator("#play-table button.knock")
        if knocks.count():
            return knocks.first
        slots = page.locator("#play-table .slot[data-discard='1']")
        values = [int(slots.nth(k).get_attribute("data-deadwood")) for k in range(slots.count())]
        return slots.nth(values.index(min(values))).locator(".card")
    raise AssertionError(f"no move to play in state {phase!r}")


def click_a_move(page, tap: bool = False) -> None:
    """Click (or tap) a legal move: pass, draw, a knock when offered, else the best discard."""
    target = next_target(page)
    act(page, "#play-board", target.tap if tap else target.click)


def fits_the_width(page) -> bool:
    """Whether the page is no wider than the window (no horizontal scroll)."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def play_out_the_hand(page, move) -> None:
    """Call ``move(page)`` until the hand is over (300 moves at most)."""
    for _ in range(300):
        if state(page) in ("hand-over", "series-over"):
            return
        move(page)
    raise AssertionError("the hand did not end")


def test_a_whole_hand_by_clicking_then_the_score_sheet(server, context, shots) -> None:
    """Clicks play a whole hand; the headline and the sheet match the engine's record of it."""
    page = open_page(context, server)
    page.fill("#play-form input[name=seed]", str(LAYOFF_SEED))
    act(page, "#play-board", lambda: page.click("#play-new"))
    # a move typed at the prompt gets play.py's refusal, and the table stays as it was
    if state(page) in ("offer", "draw"):
        before = page.inner_text("#play-table")
        page.fill("#play-type input[name=move]", "knock 7Z")
        act(page, "#play-board", lambda: page.click("#play-type button"))
        assert page.inner_text("#play-error").startswith("Not a move: malformed card '7z'")
        assert page.inner_text("#play-table") == before
    knock_shown = False
    for _ in range(300):
        if state(page) in ("hand-over", "series-over"):
            break
        if state(page) == "discard" and not knock_shown:  # the table, knock buttons if any
            knock_shown = page.locator("#play-table button.knock").count() > 0
            turn = int(page.inner_text("#play-table .turn").split()[1])
            if knock_shown or turn == 5:
                page.screenshot(path=str(shots / "web-play.png"))
        click_a_move(page)
    assert state(page) == "hand-over"
    assert page.inner_text("#play-error") == "" and fits_the_width(page)
    page.screenshot(path=str(shots / "web-hand-over.png"))

    with page.expect_download() as info:
        page.click("#play-save")
    (record,) = [json.loads(line) for line in Path(info.value.path()).read_text().splitlines()]
    replay_hand(record)
    result, names = record["result"], record["names"]
    assert page.inner_text("#play-result-headline") == you_words(result_lines(result, names)[-1])
    assert len(page.locator("#play-result .result-seat").all()) == 2
    # the layoffs are drawn on the knocker's melds they extend, each a card of that meld
    assert result["layoffs"], "the deal no longer ends with layoffs"
    laid = page.eval_on_selector_all(
        "#play-result .group.meld[data-laid]",
        "els => els.map(e => [e.dataset.laid,"
        " [...e.querySelectorAll('.card')].map(c => c.dataset.card)])",
    )
    assert sorted(c for text, _ in laid for c in text.split()) == sorted(result["layoffs"].split())
    for text, cards in laid:
        assert cards[-len(text.split()) :] == text.split(), (text, cards)
        assert any(cards[:3] == m[:3] for m in result["knocker_melds"]), (cards, result)
    # the sheet: the hand's points in game 1 of the winner's row, no entry elsewhere
    for seat in (0, 1):
        cells = page.locator(f"#play-sheet tr[data-seat='{seat}'] td")
        texts = [cells.nth(g).inner_text().strip() for g in range(3)]
        wins = result["winner"] == seat
        assert texts == ([str(result["points"]), "–", "–"] if wins else ["–", "–", "–"])
    assert "Series in progress" in page.inner_text("#play-sheet-status")
    # the opponent's moves were announced in the log
    log = page.inner_text("#play-log")
    assert f"{names[1]} " in log and "draws from the stock" in log

    act(page, "#play-board", lambda: page.click("#play-next"))
    assert page.inner_text("#play-title").startswith("Hand 2")
    assert state(page) in ("offer", "draw", "wait")
    # the finished hand opens in the Replay tab
    act(page, "#replay-board", lambda: page.click("#play-to-replay"))
    assert page.is_visible("#replay-board") and page.is_hidden("#play")
    assert page.inner_text("#replay-status") == f"step 0 of {len(record['actions'])}"
    assert page.errors == []


def test_two_tabs_are_two_games(server, context) -> None:
    """A move in one tab leaves the other tab's game, dealt the same, where it was."""
    one, two = open_page(context, server), open_page(context, server)
    for page in (one, two):
        act(page, "#play-board", lambda page=page: page.click("#play-new"))
    hand = two.inner_text("#play-table .seat.bottom .hand")
    assert one.inner_text("#play-table .seat.bottom .hand") == hand  # same seed, same deal
    click_a_move(one)
    click_a_move(one)
    assert two.inner_text("#play-table .seat.bottom .hand") == hand
    click_a_move(two)  # the same first move is still legal in the second game
    assert two.inner_text("#play-error") == ""
    assert one.errors == [] and two.errors == []


def test_watch_plays_pauses_and_steps(server, context, shots) -> None:
    """Watch runs two bots live with both hands face up; Pause stops it, Step plays one move."""
    page = open_page(context, server)
    page.click(".tab[data-mode=watch]")
    page.select_option("#watch-form select[name=a]", "simple")
    page.select_option("#watch-form select[name=b]", "expert")
    page.eval_on_selector(  # the fastest speed
        "#watch-speed", "el => { el.value = 50; el.dispatchEvent(new Event('input')); }"
    )
    act(page, "#watch-board", lambda: page.click("#watch-new"))
    assert page.inner_text("#watch-rules") == DEFAULT_RULES
    page.wait_for_function("document.querySelectorAll('#watch-log li').length >= 8")
    page.click("#watch-toggle")  # pause
    page.wait_for_function(
        "document.querySelector('#watch-toggle').textContent === 'Play'"
        " && document.body.dataset.busy === '0'"
    )
    if state(page, "#watch-board") == "live":
        faces = page.locator("#watch-table .hand .card:not(.back)").count()
        assert faces >= 20 and page.locator("#watch-table .card.back").count() <= 1
        page.screenshot(path=str(shots / "web-watch.png"))
    lines = page.locator("#watch-log li").count()
    act(page, "#watch-board", lambda: page.click("#watch-step"))
    after = page.locator("#watch-log li").count()
    assert after == lines + 1 or (after == 1 and "Hand 2" in page.inner_text("#watch-title"))
    time.sleep(0.3)  # paused: nothing more happens on its own
    assert page.locator("#watch-log li").count() == after
    assert page.errors == []


def one_hand_record(seed: int) -> dict:
    """The record of one hand of the simple bot against itself, played in-process."""
    session = GameSession(load_policy("simple", seed), seed=seed, seat=0)
    me = SimpleBot(seed + 1)
    while session.hands_done < 1:
        if session.human_to_act:
            legal = session.legal()[None]
            session.step(int(me.act(session.observation(0), legal)[0]))
        else:
            session.step(session.opponent_action())
    record = session.last_record
    record["names"] = ["Ann", "Bob"]
    return record


def test_replay_steps_forward_and_back_and_shows_errors(server, context, tmp_path, shots) -> None:
    """A transcript replays step by step both ways; a spoiled one shows the replay error."""
    record = one_hand_record(21)
    good = tmp_path / "hand.jsonl"
    good.write_text(json.dumps(record) + "\n")
    page = open_page(context, server)
    page.click(".tab[data-mode=replay]")
    act(page, "#replay-board", lambda: page.set_input_files("#replay-file", str(good)))
    last = len(record["actions"])
    assert page.inner_text("#replay-status") == f"step 0 of {last}"
    assert page.inner_text("#replay-rules") == DEFAULT_RULES
    assert page.inner_text("#replay-title").startswith("Hand 1 of 1 · hand 1: Ann (seat 0)")
    for _ in range(3):
        page.click("#replay-forward")
    assert page.inner_text("#replay-status") == f"step 3 of {last}"
    page.click("#replay-back")
    assert page.inner_text("#replay-status") == f"step 2 of {last}"
    page.screenshot(path=str(shots / "web-replay.png"))
    assert page.locator("#replay-log li").count() == 3
    page.click("#replay-last")
    headline = result_lines(record["result"], record["names"])[-1]
    assert page.inner_text("#replay-result-headline") == headline
    assert page.locator("#replay-table .card.back").count() <= 1  # both hands face up

    spoiled = json.loads(json.dumps(record))
    spoiled["result"]["points"] += 3
    with pytest.raises(ReplayError) as reason:
        replay_hand(spoiled)
    bad = tmp_path / "spoiled.jsonl"
    bad.write_text(json.dumps(spoiled) + "\n")
    act(page, "#replay-board", lambda: page.set_input_files("#replay-file", str(bad)))
    assert page.inner_text("#replay-error") == f"error: hand 1 of 1: {reason.value}"
    assert page.is_hidden("#replay-board")
    assert page.errors == []


#: the parts of the board that must be in the window during play (selector, required)
BOARD_PARTS = [
    ("#play-score", True),
    ("#play-table .seat.top .seat-head", True),
    ("#play-table .seat.top .hand", True),
    ("#play-table .centre .pile-box", True),
    ("#play-table .seat.bottom .hand", True),
    ("#play-table .actions button", False),
    ("#play-table button.knock", False),
]
#: each part out of the window (or missing), as [selector, box]
OUT_OF_VIEW = """(parts) => parts.flatMap(([sel, required]) => {
  const all = [...document.querySelectorAll(sel)];
  if (!all.length) return required ? [[sel, "missing"]] : [];
  return all.map((e) => e.getBoundingClientRect()).filter((b) =>
    b.left < 0 || b.top < 0 || b.right > innerWidth + 0.5 || b.bottom > innerHeight + 0.5
  ).map((b) => [sel, [b.left, b.top, b.right, b.bottom]]);
})"""
#: the score sheet's columns cut (narrower than their text) or out of the sheet or window
SHEET_CUT = """() => {
  const sheet = document.querySelector("#play-sheet");
  const box = sheet.getBoundingClientRect();
  const cut = [...sheet.querySelectorAll("thead th")].filter((th) => {
    const b = th.getBoundingClientRect();
    return th.scrollWidth > th.clientWidth || b.left < box.left || b.right > box.right + 0.5
      || b.right > innerWidth;
  }).map((th) => th.textContent);
  return sheet.scrollWidth > sheet.clientWidth ? [...cut, "the sheet scrolls"] : cut;
}"""
RANKS = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def card_name(text: str) -> str:
    """A card's accessible name as the page gives it: ``7 of hearts``, ``queen of spades``."""
    return f"{RANKS.get(text[0], text[0])} of {SUITS[text[1]]}"


def check_the_board(page, width: int) -> None:
    """The board fits the window, the sheet shows three games, focus and names are right."""
    where = state(page)
    assert fits_the_width(page), where
    assert page.evaluate(OUT_OF_VIEW, BOARD_PARTS) == [], where
    assert page.evaluate(SHEET_CUT) == [], where
    focused = "(el) => el.matches('.card[role=button], button') && el.closest('#play-board')"
    assert page.evaluate(f"({focused})(document.activeElement)"), (
        where,
        page.evaluate("document.activeElement.outerHTML.slice(0, 80)"),
    )
    # every card on the table is named by rank and suit; the opponent's cards as hidden
    tree = page.locator("#play-table").aria_snapshot()
    cards = page.eval_on_selector_all(
        "#play-table .card[data-card]", "els => els.map(e => e.dataset.card)"
    )
    for card in cards:
        assert card_name(card) in tree, (card, tree)
    assert "hidden cards" in tree, tree
    # the areas have headings (landmarks): the opponent, the table, your hand; the sheet too
    headings = page.eval_on_selector_all("#play-board h2", "els => els.map(e => e.textContent)")
    assert "Your hand" in headings and "Score sheet" in headings, headings
    assert any(h.startswith("Opponent: ") for h in headings), headings
    assert any(h.startswith("Table") for h in headings), headings
    # the melds are groups named for a screen reader ("run 5 to 7 of hearts")
    melds = page.eval_on_selector_all(
        "#play-table .seat.bottom .group.meld", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert all(m and (m.startswith("run ") or m.startswith("set of ")) for m in melds), melds
    # no hint is read twice: the "-> N" under a card is hidden from the reader
    assert page.evaluate(HINTS_READ), "a '-> N' hint is read besides the card's name"
    assert page.evaluate(CORNERS_CLEAR) == [], where


#: whether every "-> N" hint is hidden from a screen reader (the card's name says it)
HINTS_READ = """() => [...document.querySelectorAll('#play-table .dw')]
  .every((e) => e.getAttribute('aria-hidden') === 'true')"""
#: the court cards (J, Q, K) of the person's hand whose corner index the court overlaps
CORNERS_CLEAR = """() => [...document.querySelectorAll('#play-table .seat.bottom .card[data-card]')]
  .filter((card) => {
    const shown = (e) => e && getComputedStyle(e).display !== 'none';
    const corner = card.querySelector('.corner.top');
    const centre = card.querySelector('.court');
    if (!shown(corner) || !shown(centre)) return false;
    const a = corner.getBoundingClientRect(), b = centre.getBoundingClientRect();
    const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    return x > 0.5 && y > 0.5;
  }).map((card) => card.dataset.card)"""


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844), (360, 740)])
def test_a_hand_against_a_search_keeps_the_board_in_view(browser, server, shots, width, height):
    """Against pimc at each window: board in view, 3 games shown, focus kept, cards named."""
    phone = width < 600
    ctx = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone
    )
    try:
        page = open_page(ctx, server)
        assert fits_the_width(page)
        assert page.evaluate("document.querySelector('#help').open")  # a first visit
        if phone:  # every tab reachable on screen
            for tab in ("watch", "replay", "play"):
                box = page.locator(f".tab[data-mode={tab}]").bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= width, tab
                page.locator(f".tab[data-mode={tab}]").tap()
                assert fits_the_width(page), tab
        page.select_option("#play-form select[name=opponent]", SEARCH)
        act(page, "#play-board", lambda: page.locator("#play-new").click())
        assert not page.evaluate("document.querySelector('#help').open")
        # the opponent is named short; its full spec is a click away
        who = page.locator("#play-title .who")
        assert who.inner_text() == "pimc (4 worlds)"
        assert page.is_hidden("#play-spec")
        who.click()
        assert page.inner_text("#play-spec").startswith("pimc (4 worlds) is pimc:worlds=4,")
        assert who.get_attribute("aria-expanded") == "true"
        who.click()  # and away again
        assert page.is_hidden("#play-spec") and who.get_attribute("aria-expanded") == "false"
        assert page.get_attribute("#play-announce", "role") == "status"
        announced, checked = [], set()
        for move in range(300):
            now = state(page)
            if now in ("hand-over", "series-over"):
                break
            # the whole check the first time the board is in each state, and every 6th
            # move (the sizes change as the pile grows); the width on every move
            if now not in checked or move % 6 == 0:
                check_the_board(page, width)
                checked.add(now)
            assert fits_the_width(page), now
            announced.append(page.inner_text("#play-announce"))
            if phone and state(page) == "discard" and width == 390:
                page.screenshot(path=str(shots / "web-phone.png"))
            click_a_move(page, tap=phone)
        assert state(page) == "hand-over" and fits_the_width(page)
        assert page.evaluate("document.activeElement.id") == "play-next"
        assert any(text.startswith("pimc (4 worlds) ") for text in announced), announced
        assert page.inner_text("#play-error") == "" and page.errors == []
        page.reload()  # "How to play" stays closed after the first series
        page.wait_for_selector("body[data-ready='1']")
        assert not page.evaluate("document.querySelector('#help').open")
    finally:
        ctx.close()


def test_end_game_frees_the_game_and_says_so(server, context) -> None:
    """End game ends the series on the server; a move is refused; New series plays again."""
    page = open_page(context, server)
    act(page, "#play-board", lambda: page.click("#play-new"))
    game = page.evaluate("play.view.game")
    act(page, "#play-board", lambda: page.click("#play-end"))
    assert state(page) == "ended" and page.inner_text("#play-status") == "This game was ended."
    assert page.is_disabled("#play-end") and page.is_hidden("#play-table")
    act(page, "#play-board", lambda: page.click("#play-new"))
    assert page.evaluate("play.view.game") != game and page.is_enabled("#play-end")
    assert page.errors == []


#: the playable cards of the person's hand, in the order the arrow keys visit them
HAND_CARDS = "#play-table .seat.bottom .hand .card[role=button]"


def press_on(page, target) -> int:
    """Reach ``target`` by keys, check its focus shows, press Enter or Space; return the presses.

    Tab goes to the next control (the hand is one Tab stop); a card of the hand is then
    reached with the arrow keys (ArrowRight, or ArrowLeft when it is nearer that way).
    """
    handle = target.element_handle()
    presses = 0
    in_hand = page.evaluate(f"(el) => el.matches('{HAND_CARDS}')", handle)
    at_target = "(el) => document.activeElement === el"
    in_the_hand = f"() => document.activeElement.matches('{HAND_CARDS}')"
    while not page.evaluate(at_target, handle) and not (in_hand and page.evaluate(in_the_hand)):
        assert presses < 80, "Tab never reached the move's control"
        page.keyboard.press("Tab")
        presses += 1
    if in_hand:
        cards = page.locator(HAND_CARDS)
        order = [cards.nth(k).get_attribute("data-card") for k in range(cards.count())]
        now = order.index(page.evaluate("document.activeElement.dataset.card"))
        want = order.index(target.get_attribute("data-card"))
        right = (want - now) % len(order)
        left = len(order) - right
        key, count = ("ArrowRight", right) if right <= left else ("ArrowLeft", left)
        for _ in range(count):
            page.keyboard.press(key)
            presses += 1
        assert page.evaluate(at_target, handle), "the arrow keys did not reach the card"
    outline = page.evaluate("(el) => getComputedStyle(el).outlineStyle", handle)
    assert outline != "none", "the focused control shows no focus"
    key = "Space" if presses % 2 else "Enter"  # both keys play a move
    act(page, "#play-board", lambda: page.keyboard.press(key))
    return presses


def test_a_hand_by_keyboard_under_the_bots_name(app, server, context) -> None:
    """Tab and Enter/Space play a hand; a bot's namesake is told apart; a lost game is said."""
    page = open_page(context, server)
    page.fill("#play-form input[name=name]", "simple")  # the opponent is the simple bot
    act(page, "#play-board", lambda: page.click("#play-new"))
    names = page.inner_text("#play-title")
    assert "simple against simple (2)" in names
    cards = page.locator(HAND_CARDS)
    seen_cards = 0
    announced: list[str] = []
    turns: list[str] = []
    presses: list[int] = []

    def key_a_move(page) -> None:
        nonlocal seen_cards
        if state(page) == "discard":
            seen_cards = max(seen_cards, cards.count())
            # one Tab stop for the whole hand: a single card takes the focus by Tab
            stops = page.locator(f"{HAND_CARDS}[tabindex='0']").count()
            assert stops == 1, stops
        text = page.inner_text("#play-announce").strip()
        parts = [part for part in text.split(" · ") if part]
        turns.extend(part for part in parts if part.startswith("Your turn"))
        announced.extend(part for part in parts if not part.startswith("Your turn"))
        discard = state(page) == "discard"
        count = press_on(page, next_target(page))
        if discard:
            presses.append(count)

    play_out_the_hand(page, key_a_move)
    assert state(page) == "hand-over" and seen_cards >= 10
    # a discard takes a few key presses (Tab to the hand, arrows), never 9 or 10 Tabs
    assert presses and max(presses) <= 8, presses
    # the bot's moves were announced, and only the bot's; "Your turn" each time
    assert announced and all(line.startswith("simple (2) ") for line in announced), announced
    assert turns, "Your turn was never announced"
    # the hand's result is announced too
    assert page.inner_text("#play-result-headline") in page.inner_text("#play-announce")
    assert page.inner_text("#play-error") == ""
    press_on(page, page.locator("#play-next"))
    assert page.inner_text("#play-title").startswith("Hand 2")
    # the server forgot the game (idle, or restarted): Replay these hands says so
    app.state.store.clear()
    page.click("#play-to-replay")
    page.wait_for_function("document.querySelector('#play-error').textContent !== ''")
    assert page.inner_text("#play-error").startswith("no such game")
    assert page.is_visible("#play") and page.is_hidden("#replay")
    assert page.errors == []


#: the three windows every browser check runs at
SIZES = [(1280, 800), (390, 844), (360, 740)]
#: the page at the moment the opponent starts to think (``data-thinking`` set), recorded
#: by a MutationObserver so that even a quick reply cannot hide it
THINKING_RECORDER = """() => {
  window.thinkingSeen = null;
  const board = document.querySelector('#play-board');
  const observer = new MutationObserver(() => {
    if (board.dataset.thinking !== '1' || window.thinkingSeen) return;
    const top = document.querySelector('#play-table .pile > .card:last-child');
    const theirs = document.querySelector('#play-table .seat.top');
    const mark = document.querySelector('#play-thinking');
    window.thinkingSeen = {
      top: top ? top.dataset.card : null,
      hand: [...document.querySelectorAll('#play-table .seat.bottom .hand .card[data-card]')]
        .map((e) => e.dataset.card),
      mark: mark ? mark.textContent : null,
      busy: theirs.getAttribute('aria-busy'),
      cursor: getComputedStyle(theirs).cursor,
      status: document.querySelector('#play-status').textContent,
      enabled: [...document.querySelectorAll('#play-table button, #play-type button')]
        .filter((b) => !b.disabled).length,
      tabbable: document.querySelectorAll('#play-table .card[tabindex="0"]').length,
    };
    observer.disconnect();
  });
  observer.observe(board, { attributes: true, attributeFilter: ['data-thinking'] });
}"""


def phone_context(browser, width: int, height: int):
    """A browser context of that window (a touch phone under 600 px)."""
    phone = width < 600
    return browser.new_context(
        viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone
    )


def best_discard(page):
    """The card whose discard leaves the least deadwood (never a knock)."""
    slots = page.locator("#play-table .slot[data-discard='1']")
    values = [int(slots.nth(k).get_attribute("data-deadwood")) for k in range(slots.count())]
    return slots.nth(values.index(min(values))).locator(".card")


def seen_thinking(page, card: str) -> None:
    """Check what ``THINKING_RECORDER`` saw as the opponent began to think after ``card``."""
    seen = page.evaluate("window.thinkingSeen")
    assert seen is not None, "no thinking state was shown"
    assert seen["top"] == card and card not in seen["hand"], seen  # already on the pile
    assert seen["mark"] == "thinking…" and seen["busy"] == "true", seen
    assert seen["cursor"] == "progress" and seen["status"].endswith("is thinking…"), seen
    assert seen["enabled"] == 0 and seen["tabbable"] == 0, seen  # every control disabled


@pytest.fixture(scope="module")
def searcher() -> str:
    """``searcher``, loaded once in the server's process first.

    Its first load compiles its kernels (half a minute on a busy machine), which a click
    should not wait for.
    """
    load_policy("searcher", 0)
    return "searcher"


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_reload_keeps_the_game_the_bot_is_seen_thinking_and_arrows_play(
    browser, server, searcher, width, height
) -> None:
    """Against searcher: arrow keys play a discard, the thinking shows, a reload resumes."""
    phone = width < 600
    ctx = phone_context(browser, width, height)
    try:
        page = open_page(ctx, server)
        dialogs: list[str] = []

        def answer(dialog) -> None:  # "leave the page?": yes
            dialogs.append(dialog.type)
            dialog.accept()

        page.on("dialog", answer)
        page.select_option("#play-form select[name=opponent]", searcher)
        act(page, "#play-board", lambda: page.locator("#play-new").click(), timeout=120_000)
        played: list[str] = []
        for _ in range(40):
            assert fits_the_width(page), state(page)
            now = state(page)
            assert now not in ("hand-over", "series-over"), "the hand ended too soon"
            if len(played) == 3:
                break
            if now != "discard":
                click_a_move(page, tap=phone)
                continue
            page.evaluate(THINKING_RECORDER)
            if not played:  # by the arrow keys: two cards to the right of the focus
                cards = page.locator(HAND_CARDS)
                order = [cards.nth(k).get_attribute("data-card") for k in range(cards.count())]
                focused = page.evaluate("document.activeElement.dataset.card")
                assert focused in order, "the focus is not on the hand after the draw"
                card = order[(order.index(focused) + 2) % len(order)]
                page.keyboard.press("ArrowRight")
                page.keyboard.press("ArrowRight")
                assert page.evaluate("document.activeElement.dataset.card") == card
                act(page, "#play-board", lambda: page.keyboard.press("Enter"))
            else:
                target = best_discard(page)
                card = target.get_attribute("data-card")
                act(page, "#play-board", target.tap if phone else target.click)
            seen_thinking(page, card)
            played.append(card)
            # the discards show in the order played
            shown = page.eval_on_selector_all(
                "#play-table .seat.bottom .discards .card", "els => els.map(e => e.dataset.card)"
            )
            assert shown == played, (shown, played)
        assert len(played) == 3 and state(page) in ("offer", "draw", "discard")
        # a reload mid-hand asks first, then opens the same game where it was
        game = page.evaluate("play.view.game")
        assert f"game={game}" in page.url
        before = {
            "title": page.inner_text("#play-title"),
            "hand": page.inner_text("#play-table .seat.bottom .hand"),
            "log": page.inner_text("#play-log"),
            "state": state(page),
        }
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        assert dialogs == ["beforeunload"], dialogs
        after = {
            "title": page.inner_text("#play-title"),
            "hand": page.inner_text("#play-table .seat.bottom .hand"),
            "log": page.inner_text("#play-log"),
            "state": state(page),
        }
        assert after == before
        assert page.inner_text("#play-error") == "" and fits_the_width(page)
        # a new tab on the same address opens the same game
        other = open_page(ctx, page.url)
        assert other.inner_text("#play-table .seat.bottom .hand") == before["hand"]
        # a game the server no longer holds says so and offers a new one
        act(page, "#play-board", lambda: page.click("#play-end"))
        gone = page.url.replace(game, "0" * 32)
        third = open_page(ctx, gone)
        assert third.inner_text("#play-error").startswith("The game in this address is no longer")
        assert third.is_hidden("#play-board") and "game=" not in third.url
        assert page.errors == [] and other.errors == [] and third.errors == []
    finally:
        ctx.close()


#: a deal (against simple, playing the least-deadwood discard) that simple wins by gin
GIN_SEED = 38


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_gin_is_said_as_gin_with_its_breakdown(browser, server, shots, width, height) -> None:
    """A gin is gin in the log, the live region and the headline, with its points added up."""
    phone = width < 600
    ctx = phone_context(browser, width, height)
    try:
        page = open_page(ctx, server)
        page.fill("#play-form input[name=seed]", str(GIN_SEED))
        act(page, "#play-board", lambda: page.locator("#play-new").click())

        def move(page) -> None:
            assert fits_the_width(page)
            click_a_move(page, tap=phone)

        play_out_the_hand(page, move)
        result = page.evaluate("play.view.result")
        assert result["outcome"] == "GIN", result["headline"]
        knocker = next(s for s in result["seats"] if s["role"] == "knocker")
        defender = next(s for s in result["seats"] if s["role"] == "defender")
        assert knocker["name"] == "simple" and defender["name"] == "You"
        gin_line = next(line for line in page.evaluate("play.view.log") if " gin" in line)
        assert gin_line.startswith("simple goes gin, discarding ")
        assert "simple knocks" not in page.inner_text("#play-log")
        headline = f"simple goes gin: {result['points']} points to simple."
        assert page.inner_text("#play-result-headline") == headline
        d = defender["deadwood"]
        assert result["points"] == d + 25
        breakdown = f"Your deadwood {d} + gin bonus 25 = {d + 25} points to simple, into game 1."
        assert page.inner_text("#play-result-breakdown") == breakdown
        announced = page.inner_text("#play-announce")
        assert gin_line in announced and headline in announced and breakdown in announced
        # the sheet hand by hand: the gin's points in game 1
        page.locator("#play-sheet-hands summary").click()
        row = page.locator("#play-sheet-hands tr[data-hand='1']")
        cells = [row.locator("td").nth(k).inner_text() for k in range(4)]
        assert cells == ["simple (gin)", f"+{d + 25}", "", ""], cells
        # the end-of-hand text wraps: nothing cut on the right
        cut = "(e) => e.scrollWidth > e.clientWidth + 1"
        assert not page.eval_on_selector("#play-result .result-text", cut)
        assert fits_the_width(page) and page.errors == []
        assert page.inner_text("#play-rules") == DEFAULT_RULES  # the values in force
        if width == 390:
            page.locator("#play-result").scroll_into_view_if_needed()
            page.screenshot(path=str(shots / "web-phone-gin.png"))
    finally:
        ctx.close()

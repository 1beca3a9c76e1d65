// Hollywood Gin web table: plain JavaScript, no build step, nothing loaded from the network.
// The server holds every game; this page only draws the views it is sent and posts moves
// in play.py's prompt grammar ("draw", "take", "pass", "7H", "knock 7H").
"use strict";

// ------------------------------------------------------------------ helpers
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

let busyCount = 0;
function setBusy(delta) {
  busyCount += delta;
  document.body.dataset.busy = busyCount > 0 ? "1" : "0";
}

// The server's token, from the URL it printed (http://127.0.0.1:PORT/?token=...): every API
// request carries it, so that no other page the browser holds can use the server.
const TOKEN = new URLSearchParams(location.search).get("token") || "";
const AUTH = { "X-Hgin-Token": TOKEN };

// The message of a refused answer: the server's {"error": ...}, else its status.
async function errorOf(response) {
  try {
    return (await response.json()).error || `HTTP ${response.status}`;
  } catch (err) {
    return `The server answered ${response.status} ${response.statusText}.`;
  }
}

// A JSON request (a POST always sends a JSON body); a refused one throws an Error carrying
// the server's message and state.
async function api(method, url, body) {
  const options = { method, headers: { ...AUTH } };
  if (method === "POST") {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body === undefined ? {} : body);
  }
  setBusy(1);
  try {
    let response;
    try {
      response = await fetch(url, options);
    } catch (err) {
      throw new Error("The server cannot be reached: is play.py --web still running?");
    }
    let data;
    try {
      data = await response.json();
    } catch (err) {
      data = { error: `The server answered ${response.status} ${response.statusText}.` };
    }
    if (!response.ok) {
      const error = new Error(data.error || `HTTP ${response.status}`);
      error.state = data.state;
      throw error;
    }
    return data;
  } finally {
    setBusy(-1);
  }
}

function showError(id, message) {
  const box = $(id);
  box.textContent = message || "";
  box.classList.toggle("shown", Boolean(message));
}

// Make a card (or the stock) a button: a click, Enter or Space plays ``action``; it takes
// the keyboard focus in turn (Tab) and shows it.
function pressable(node, action, label) {
  node.setAttribute("role", "button");
  node.setAttribute("tabindex", "0");
  if (label) node.setAttribute("aria-label", label);
  node.addEventListener("click", action);
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      action();
    }
  });
  return node;
}

function bump(board, state) {
  board.dataset.state = state;
  board.dataset.version = String(Number(board.dataset.version) + 1);
}

// ------------------------------------------------------------------ cards
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const RANK_WORDS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

// A card as a screen reader says it: "7 of hearts", "queen of spades".
function cardName(text) {
  return `${RANK_WORDS[text[0]] || text[0]} of ${SUIT_NAMES[text[1]]}`;
}
const RANK_ORDER = "A23456789TJQK";
const RANK_PLURALS = { A: "aces", T: "10s", J: "jacks", Q: "queens", K: "kings" };

// A meld as a screen reader says it: "run 5 to 7 of hearts", "set of three 7s".
function meldName(cards) {
  const ranks = new Set(cards.map((c) => c[0]));
  if (ranks.size === 1) {
    const rank = cards[0][0];
    const count = cards.length === 4 ? "four" : "three";
    return `set of ${count} ${RANK_PLURALS[rank] || rank + "s"}`;
  }
  const sorted = [...cards].sort((a, b) => RANK_ORDER.indexOf(a[0]) - RANK_ORDER.indexOf(b[0]));
  const word = (c) => RANK_WORDS[c[0]] || c[0];
  return `run ${word(sorted[0])} to ${word(sorted[sorted.length - 1])} of ${SUIT_NAMES[cards[0][1]]}`;
}

const SVG_NS = "http://www.w3.org/2000/svg";
// suit symbols drawn in a 100 x 100 box
const SUIT_SHAPES = {
  S: [["path", { d: "M50 4C62 26 95 40 92 64C90 80 70 85 56 72C57 84 61 91 70 96H30C39 91 43 84 44 72C30 85 10 80 8 64C5 40 38 26 50 4Z" }]],
  H: [["path", { d: "M50 93C41 80 6 60 6 33C6 17 18 7 30 7C40 7 47 13 50 22C53 13 60 7 70 7C82 7 94 17 94 33C94 60 59 80 50 93Z" }]],
  D: [["path", { d: "M50 3L87 50L50 97L13 50Z" }]],
  C: [
    ["circle", { cx: 50, cy: 28, r: 20 }],
    ["circle", { cx: 27, cy: 58, r: 20 }],
    ["circle", { cx: 73, cy: 58, r: 20 }],
    ["path", { d: "M45 50H55L62 96H38Z" }],
  ],
};

function suitSvg(suit, cls) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  for (const [tag, attrs] of SUIT_SHAPES[suit]) {
    const shape = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) shape.setAttribute(k, v);
    svg.append(shape);
  }
  return svg;
}

// A card face drawn from its text ("7H"): rank in the corners, the suit in SVG. It is an
// image named by its rank and suit ("7 of hearts"); a playable one becomes a button.
function cardFace(text, extra = "") {
  const rank = text[0];
  const suit = text[1];
  const shown = RANK_NAMES[rank] || rank;
  const red = suit === "H" || suit === "D";
  const face = "JQK".includes(rank);
  const centre = face
    ? el("span", { class: "court", "aria-hidden": "true" }, shown, suitSvg(suit, "court-pip"))
    : suitSvg(suit, "pip");
  return el(
    "div",
    {
      class: `card ${red ? "red" : "black"} ${extra}`.trim(),
      "data-card": text,
      role: "img",
      "aria-label": cardName(text),
      title: cardName(text),
    },
    el("span", { class: "corner top", "aria-hidden": "true" }, shown, suitSvg(suit, "corner-pip")),
    centre,
    el("span", { class: "corner bottom", "aria-hidden": "true" }, shown, suitSvg(suit, "corner-pip")),
  );
}

// A card face down: an image named "hidden card" (the opponent's row names its count).
function cardBack(extra = "") {
  return el("div", { class: `card back ${extra}`.trim(), role: "img", "aria-label": "hidden card", title: "a card face down" });
}

function cardRow(cards, extra = "") {
  return el("div", { class: "row" }, cards.map((c) => cardFace(c, extra)));
}

// ------------------------------------------------------------------ the table
// opts: bottom (the seat drawn at the bottom), moves (the person's legal moves, or null),
// onMove(text) (posts a move), labels (per seat, e.g. "you").
function box_prefix(opts) {
  return opts.prefix || "table";
}

function renderTable(box, table, opts) {
  opts = { ...opts, prefix: box.id };
  box.replaceChildren();
  const top = 1 - opts.bottom;
  box.append(seatArea(table, top, opts, false), centre(table, opts), seatArea(table, opts.bottom, opts, true));
}

function seatArea(table, seat, opts, isBottom) {
  const info = table.seats[seat];
  const acting = table.to_act === seat;
  const chips = [];
  if (table.dealer === seat) chips.push(el("span", { class: "chip" }, "dealer"));
  if (acting) chips.push(el("span", { class: "chip act" }, "to act"));
  const head = el(
    "div",
    { class: "seat-head" },
    el("strong", { class: "name", title: opts.full ? opts.full[seat] : info.name }, info.name),
    opts.labels && opts.labels[seat] ? el("span", { class: "muted name" }, ` (${opts.labels[seat]})`) : null,
    ...chips,
    info.hand ? el("span", { class: "deadwood", "data-seat": seat }, `deadwood ${info.hand.deadwood}`) : null,
  );
  let hand;
  const moves = isBottom ? opts.moves : null;
  if (info.hand) {
    hand = handGroups(info.hand, moves, opts.onMove);
  } else {
    // face down: the cards known from the pile face up, the rest as backs
    const hidden = info.count - info.known.length;
    const backs = el("div", { class: "row", role: "img", "aria-label": `${info.name}: ${hidden} hidden card${hidden === 1 ? "" : "s"}` },
      Array.from({ length: hidden }, () => cardBack()));
    for (const back of backs.children) back.setAttribute("aria-hidden", "true");
    hand = el(
      "div",
      { class: "hand hidden-hand", "data-seat": seat },
      backs,
      info.known.length
        ? el("div", { class: "group known" }, el("div", { class: "group-label" }, "known"), cardRow(info.known))
        : null,
    );
  }
  const discards = el(
    "div",
    { class: "discards" },
    el("span", { class: "muted" }, "discards: "),
    info.discards.length ? cardRow(info.discards, "mini") : el("span", { class: "muted" }, "none"),
  );
  // a landmark with a heading: "Your hand", "Opponent: simple" (one per seat)
  const title = opts.mine === undefined ? `Seat ${seat}: ${info.name}` : seat === opts.mine ? "Your hand" : `Opponent: ${info.name}`;
  const headingId = `${box_prefix(opts)}-seat-${seat}-heading`;
  const area = el("section", { class: `seat ${isBottom ? "bottom" : "top"} ${acting ? "acting" : ""}`, "data-seat": seat, "aria-labelledby": headingId });
  const heading = el("h2", { class: "sr-only", id: headingId }, title);
  if (isBottom) area.append(heading, discards, hand, head);
  else area.append(heading, head, hand, discards);
  return area;
}

// The hand as its best melds, then the deadwood; in the discard phase every card is a
// button (discard it) with the deadwood it would leave, and a Knock button where legal.
function handGroups(hand, moves, onMove) {
  const options = {};
  if (moves && moves.discards) for (const d of moves.discards) options[d.card] = d;
  const slot = (card) => {
    const d = options[card];
    if (!d) return el("div", { class: "slot" }, cardFace(card));
    const face = cardFace(card, d.discard ? "playable" : "blocked");
    // the name says it all (the card, the deadwood left): no title or hint repeats it
    face.removeAttribute("title");
    if (d.discard) {
      pressable(face, () => onMove(card), `discard ${cardName(card)}: deadwood ${d.deadwood} left`);
    } else {
      face.setAttribute("aria-label", `${cardName(card)}, just taken: it cannot be discarded now`);
    }
    return el(
      "div",
      { class: "slot", "data-card": card, "data-deadwood": d.deadwood, "data-discard": d.discard ? "1" : "0" },
      face,
      el("div", { class: "dw", "aria-hidden": "true", title: d.discard ? "deadwood left after discarding this card" : "just taken from the pile: it cannot be discarded now" }, d.discard ? `→ ${d.deadwood}` : "taken"),
      d.knock
        ? el("button", { type: "button", class: "knock", "data-card": card, "aria-label": `knock with ${cardName(card)}`, onclick: () => onMove(`knock ${card}`) }, "Knock")
        : null,
    );
  };
  const groups = hand.melds.map((meld) =>
    el("div", { class: "group meld", role: "group", "aria-label": meldName(meld) }, el("div", { class: "row" }, meld.map(slot))),
  );
  if (hand.deadwood_cards.length) {
    groups.push(
      el(
        "div",
        { class: "group loose", role: "group", "aria-label": `deadwood, ${hand.deadwood} points` },
        el("div", { class: "group-label", "aria-hidden": "true" }, "deadwood"),
        el("div", { class: "row" }, hand.deadwood_cards.map(slot)),
      ),
    );
  }
  const box = el("div", { class: "hand" }, groups);
  if (moves && moves.discards && moves.discards.length) roving(box);
  return box;
}

// The playable cards of a hand take one Tab stop: the arrow keys (and Home, End) move
// between them, Enter or Space plays the one focused.
function roving(box) {
  const cards = () => [...box.querySelectorAll(".card[role=button]")];
  const all = cards();
  all.forEach((card, i) => card.setAttribute("tabindex", i === 0 ? "0" : "-1"));
  box.addEventListener("keydown", (event) => {
    const list = cards();
    const at = list.indexOf(document.activeElement);
    if (at < 0) return;
    const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[event.key];
    let to = null;
    if (step) to = (at + step + list.length) % list.length;
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = list.length - 1;
    if (to === null) return;
    event.preventDefault();
    list[at].setAttribute("tabindex", "-1");
    list[to].setAttribute("tabindex", "0");
    list[to].focus();
  });
}

function centre(table, opts) {
  const moves = opts.moves;
  const stock = el(
    "div",
    { class: "pile-box" },
    table.stock > 0 ? cardBack(moves && moves.draw ? "playable" : "") : el("div", { class: "card empty" }),
    el("div", { class: "label", id: "stock-count" }, `stock: ${table.stock}`),
  );
  stock.firstChild.setAttribute("aria-label", `the stock: ${table.stock} hidden cards`);
  if (moves && moves.draw) pressable(stock.firstChild, () => opts.onMove("draw"), `draw from the stock (${table.stock} hidden cards)`);
  const topCard = table.top ? cardFace(table.top, moves && moves.take ? "playable" : "") : el("div", { class: "card empty", role: "img", "aria-label": "no discard" });
  if (moves && moves.take) pressable(topCard, () => opts.onMove("take"), `take ${cardName(table.top)}`);
  const older = table.pile.slice(0, -1).slice(-14);
  const pile = el(
    "div",
    { class: "pile-box" },
    el("div", { class: "pile" }, older.map((c) => cardFace(c, "mini under")), topCard),
    el("div", { class: "label" }, `top discard${table.top ? " " + table.top : ""}, pile: ${table.pile.length}`),
  );
  const buttons = el("div", { class: "actions" });
  if (moves) {
    const button = (id, label, move, enabled) =>
      el("button", { type: "button", id, disabled: !enabled, onclick: () => opts.onMove(move) }, label);
    if (table.phase === "offer") {
      buttons.append(button("move-take", `Take ${table.top}`, "take", moves.take), button("move-pass", "Pass", "pass", moves.pass));
    } else if (table.phase === "draw") {
      buttons.append(
        button("move-draw", "Draw from the stock", "draw", moves.draw),
        button("move-take", `Take ${table.top}`, "take", moves.take),
      );
    } else {
      buttons.append(
        el("div", { class: "muted" }, "Choose a card to discard it, or Knock under it to knock with it;"),
        el("div", { class: "muted" }, "→ N under a card: the deadwood that discard leaves."),
      );
    }
  }
  const headingId = `${box_prefix(opts)}-centre-heading`;
  return el(
    "section",
    { class: "centre", "aria-labelledby": headingId },
    el("h2", { class: "sr-only", id: headingId }, "Table: the stock and the discard pile"),
    stock,
    pile,
    el("div", { class: "turn" }, `turn ${table.turn}`, buttons),
  );
}

// ------------------------------------------------------------------ results, sheet, log
function renderResult(box, result, extra) {
  box.replaceChildren();
  box.hidden = !result;
  if (!result) return;
  box.append(el("h3", { id: box.id + "-headline" }, result.headline));
  const how = breakdownText(result);
  if (how) box.append(el("p", { class: "breakdown", id: box.id + "-breakdown" }, how));
  const knocker = result.seats.find((seat) => seat.role === "knocker");
  const defender = result.seats.find((seat) => seat.role === "defender");
  for (const seat of result.seats) {
    // the defender's layoffs are drawn on the knocker's melds they extend
    const groups = seat.melds.map((m, k) => {
      const laid = seat.laid_on ? seat.laid_on[k] : [];
      const label = meldName(m) + (laid.length ? `, with ${laid.map(cardName).join(", ")} laid off by ${defender ? defender.name : "the defender"}` : "");
      return el(
        "div",
        { class: "group meld", role: "group", "aria-label": label, "data-laid": laid.join(" ") || null },
        el("div", { class: "row" }, m.map((c) => cardFace(c)), laid.map((c) => cardFace(c, "laid"))),
      );
    });
    if (seat.layoffs.length) {
      const on = knocker ? ` on ${knocker.name === "You" ? "your" : knocker.name + "'s"} melds` : "";
      groups.push(el("div", { class: "group layoff" }, el("div", { class: "group-label" }, `laid off${on}`), cardRow(seat.layoffs)));
    }
    if (seat.deadwood_cards.length) {
      groups.push(el("div", { class: "group loose" }, el("div", { class: "group-label" }, "deadwood"), cardRow(seat.deadwood_cards)));
    }
    box.append(
      el(
        "div",
        { class: "result-seat" },
        el("div", { class: "seat-head" }, el("strong", {}, seat.name), seat.role ? el("span", { class: "chip" }, seat.role) : null,
          el("span", { class: "deadwood" }, `deadwood ${seat.deadwood}`)),
        el("div", { class: "hand" }, groups),
      ),
    );
  }
  if (result.lines.length > 1) box.append(el("pre", { class: "result-text" }, result.lines.join("\n")));
  if (extra) box.append(extra);
}

// How a hand's points add up, and where they go: "simple's deadwood 15 + gin bonus 25 =
// 40 points to simple, into game 1".
function breakdownText(result) {
  if (!result.breakdown || !result.breakdown.length) return "";
  const sum = result.breakdown.length > 1 ? `${result.breakdown.join(" + ")} = ${result.points}` : result.breakdown[0];
  const name = result.seats[result.winner] ? result.seats[result.winner].name : "";
  const winner = name === "You" ? "you" : name;
  let games = "";
  if (result.games && result.games.length) {
    const list = result.games.length === 1 ? `game ${result.games[0]}` : `games ${result.games.slice(0, -1).join(", ")} and ${result.games[result.games.length - 1]}`;
    games = `, into ${list}`;
  } else if (result.games) {
    games = ", into no game (all are over)";
  }
  const text = `${sum} points to ${winner}${games}.`.replace(/\b1 points\b/, "1 point");
  return text[0].toUpperCase() + text.slice(1);
}

function renderSheet(box, sheet, history) {
  box.replaceChildren();
  const header = el("tr", {}, el("th", {}, "Player"), [1, 2, 3].map((g) => el("th", {}, `Game ${g}`)));
  const rows = sheet.rows.map((row) =>
    el(
      "tr",
      { "data-seat": row.seat },
      el("th", { class: "name", title: row.name, scope: "row" }, row.name),
      row.scores.map((score, g) =>
        el("td", { class: row.won[g] ? "won" : "", "data-game": g + 1 }, score === null ? "–" : String(score), row.won[g] ? " ★" : ""),
      ),
    ),
  );
  const table = el("table", {}, el("thead", {}, header), el("tbody", {}, rows));
  if (sheet.bonuses) {
    table.append(
      el("tfoot", {}, sheet.rows.map((row) => el("tr", {}, el("th", { class: "name", title: `${row.name} with bonuses` }, `${row.name} with bonuses`), row.totals.map((t) => el("td", {}, String(t)))))),
    );
  }
  const status = sheet.finished
    ? sheet.winner
      ? `Series won by ${sheet.winner}.`
      : "Series over, no winner."
    : sheet.decided
      ? `Series won by ${sheet.decided} (two games); the last game plays on.`
      : `Series in progress (games won: ${sheet.rows.map((r) => `${r.name} ${r.games_won}`).join(", ")}).`;
  box.append(table, el("div", { class: `series ${sheet.finished ? "over" : ""}`, id: box.id + "-status" }, status));
  if (history && history.length) box.append(handByHand(box, sheet, history));
}

// A seat's name on the sheet (its rows are listed the person first, each with its seat).
function seatName(sheet, seat) {
  const row = sheet.rows.find((r) => r.seat === seat);
  return row ? row.name : `seat ${seat}`;
}

// The sheet hand by hand: each hand's winner and points, and the points it put in each
// of the three games. Open or closed, it stays so while the game goes on.
const handsOpen = {};
function handByHand(box, sheet, history) {
  const id = box.id + "-hands";
  const names = sheet.rows.map((row) => row.name);
  const header = el("tr", {}, el("th", { scope: "col" }, "Hand"), el("th", { scope: "col" }, "Won by"), [1, 2, 3].map((g) => el("th", { scope: "col" }, `G${g}`)));
  const rows = history.map((h) =>
    el(
      "tr",
      { "data-hand": h.hand },
      el("th", { scope: "row" }, String(h.hand)),
      el("td", { class: "name", title: h.winner || "no one" }, h.winner ? `${h.winner}${h.outcome === "GIN" ? " (gin)" : h.outcome === "BIG_GIN" ? " (big gin)" : h.outcome === "UNDERCUT" ? " (undercut)" : ""}` : "draw"),
      // each cell's hover: the game's scores after the hand (seat 0 first, as the history)
      [1, 2, 3].map((g) =>
        el(
          "td",
          { "data-game": g, title: `game ${g} after hand ${h.hand}: ${h.totals.map((t, seat) => `${seatName(sheet, seat)} ${t[g - 1]}`).join(", ")}` },
          h.games.includes(g) ? `+${h.points}` : "",
        ),
      ),
    ),
  );
  const details = el(
    "details",
    { class: "hands", id, open: handsOpen[id] || false, ontoggle: (event) => { handsOpen[id] = event.currentTarget.open; } },
    el("summary", {}, `Hand by hand (${history.length})`),
    el("table", { "aria-label": `the score sheet hand by hand: ${names.join(" and ")}` }, el("thead", {}, header), el("tbody", {}, rows)),
  );
  return details;
}

function renderLog(box, lines, fresh) {
  box.replaceChildren(...lines.map((line, i) => el("li", { class: fresh && fresh.has(i) ? "new" : "" }, line)));
  box.scrollTop = box.scrollHeight;
}

function setSave(link, gameId, count) {
  if (count > 0) {
    link.href = `/api/games/${gameId}/transcript?token=${encodeURIComponent(TOKEN)}`;
    link.classList.remove("disabled");
  } else {
    link.removeAttribute("href");
    link.classList.add("disabled");
  }
  link.textContent = `Save transcript (${count} hand${count === 1 ? "" : "s"})`;
}

// ------------------------------------------------------------------ play
const play = { view: null, lastHand: 0, lastLog: 0, focusBoard: false, scroll: false };

async function playRequest(method, url, body) {
  if (document.body.dataset.busy === "1") return; // one request at a time (a double click)
  try {
    renderPlay(await api(method, url, body));
    showError("play-error", "");
  } catch (err) {
    showError("play-error", err.message);
    if (err.state) renderPlay(err.state);
    else {
      stopThinking();
      bump($("play-board"), $("play-board").dataset.state);
    }
  }
}

function playMove(text) {
  if (!play.view || document.body.dataset.busy === "1") return;
  if (opponentMovesNext(text)) startThinking(text);
  playRequest("POST", `/api/play/${play.view.game}/move`, { move: text });
}

// Whether the move hands the turn to the opponent: a discard, a knock, or a pass on the upcard.
function opponentMovesNext(text) {
  const table = play.view && play.view.table;
  if (!table || !play.view.moves) return false;
  const move = text.trim().toLowerCase();
  if (table.phase === "offer") return move === "pass";
  return table.phase === "discard";
}

// At once, before the server answers: the card discarded lies on the pile, the opponent
// is marked thinking (a busy cursor on its side), and every control is disabled.
function startThinking(text) {
  const board = $("play-board");
  const tableBox = $("play-table");
  const card = text.trim().replace(/^knock\s+/i, "").toUpperCase();
  const slot = tableBox.querySelector(`.seat.bottom .slot[data-card="${card}"]`);
  if (slot) {
    const pile = tableBox.querySelector(".pile");
    const top = pile && pile.lastElementChild;
    if (top && top.classList.contains("card") && !top.classList.contains("empty")) {
      top.classList.add("mini", "under");
    } else if (top) top.remove();
    if (pile) pile.append(cardFace(card, "arrived"));
    const label = tableBox.querySelector(".pile-box .pile + .label");
    if (label) label.textContent = `top discard ${card}`;
    slot.remove();
  }
  for (const node of tableBox.querySelectorAll("button, #play-type button")) node.disabled = true;
  for (const node of $("play-type").querySelectorAll("input, button")) node.disabled = true;
  for (const node of tableBox.querySelectorAll(".card[role=button]")) {
    node.setAttribute("tabindex", "-1");
    node.setAttribute("aria-disabled", "true");
    node.classList.remove("playable");
  }
  const theirs = tableBox.querySelector(".seat.top");
  const name = play.view.names[1 - play.view.you];
  if (theirs) {
    theirs.setAttribute("aria-busy", "true");
    theirs.classList.add("thinking");
    const head = theirs.querySelector(".seat-head");
    if (head) head.append(el("span", { class: "chip thinking-mark", id: "play-thinking" }, "thinking…"));
  }
  $("play-status").textContent = `${name} is thinking…`;
  $("play-announce").textContent = `${name} is thinking…`;
  board.dataset.thinking = "1";
}

function stopThinking() {
  $("play-board").dataset.thinking = "0";
  for (const node of $("play-type").querySelectorAll("input, button")) node.disabled = false;
}

// The game's id rides in the page's address (with the token), so a reload, Back or
// Forward, or a new tab on the same address, opens the game again.
function keepGameInUrl(id) {
  const url = new URL(location.href);
  if (id) url.searchParams.set("game", id);
  else url.searchParams.delete("game");
  if (url.href !== location.href) history.replaceState(null, "", url.href);
}

// Reopen the game the address names; one that is over or forgotten says so.
async function resumeGame(id) {
  play.focusBoard = play.scroll = true;
  try {
    const view = await api("GET", `/api/play/${encodeURIComponent(id)}`);
    $("help").open = false;
    renderPlay(view);
    showError("play-error", view.ended || view.finished ? "This game is over: New series starts another." : "");
  } catch (err) {
    play.focusBoard = play.scroll = false;
    keepGameInUrl(null);
    showError(
      "play-error",
      "The game in this address is no longer on the server: it ended, was idle for an hour, " +
        "or the server restarted. New series starts another.",
    );
    $("play-new").focus();
  }
}

// Leaving a hand in play (closing the tab, another address) asks first; the game stays
// on the server, and this address reopens it.
window.addEventListener("beforeunload", (event) => {
  const view = play.view;
  if (view && view.table && !view.ended && !view.finished) {
    event.preventDefault();
    event.returnValue = "";
  }
});

// The control the player most likely wants next: a playable card, the first move button,
// Next hand or New series.
function nextControl() {
  const box = $("play-board");
  return (
    box.querySelector("#play-table .hand .card[tabindex='0']") ||
    box.querySelector("#play-table .actions button:not([disabled])") ||
    box.querySelector("#play-table .card[tabindex='0']") ||
    box.querySelector("#play-next, #play-again") ||
    (play.view && play.view.ended ? $("play-new") : null)
  );
}

// Show the opponent, the table and the player's hand: the felt's top at the window's top
// when any of it is out of view.
function keepInView(felt) {
  const box = felt.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) felt.scrollIntoView({ block: "start" });
}

// A full spec one click away: the name becomes a button that shows it under the title.
function whoButton(shortName, full, specBox) {
  if (!full || full === shortName) return document.createTextNode(shortName);
  return el(
    "button",
    {
      type: "button", class: "who", title: full, "aria-expanded": String(!specBox.hidden),
      "aria-controls": specBox.id,
      onclick: (event) => {
        specBox.hidden = !specBox.hidden;
        event.currentTarget.setAttribute("aria-expanded", String(!specBox.hidden));
      },
    },
    shortName,
  );
}

// The rules in force in words; "(the defaults)" or the options that differ.
function rulesLine(rules, inForce) {
  if (!inForce) return `Rules: ${rules || "the defaults"}`;
  return `Rules: ${inForce} (${rules ? "set: " + rules : "the defaults"})`;
}

function renderPlay(view) {
  const board = $("play-board");
  const active = document.activeElement;
  // the focus was on the board (a move, now redrawn) or nowhere: it goes to the next move
  const refocus = play.focusBoard || !active || active === document.body || (board.contains(active) && !$("play-type").contains(active));
  board.hidden = false;
  const me = view.you;
  const myName = view.names[me];
  // the opponent's moves since the last view are announced
  const sameHand = view.hand_no === play.lastHand && play.view && play.view.game === view.game;
  const from = sameHand ? play.lastLog : 0;
  const fresh = new Set();
  const theirs = [];
  // the server says whose line each is: a player named like the bot is not confused
  view.log.forEach((line, i) => {
    if (i >= from && view.log_seats[i] === 1 - me) {
      fresh.add(i);
      theirs.push(line);
    }
  });
  play.view = view;
  play.lastHand = view.hand_no;
  play.lastLog = view.log.length;
  const spec = $("play-spec");
  spec.textContent = `${view.names[1 - me]} is ${view.opponent}`;
  $("play-title").replaceChildren(`Hand ${view.hand_no}: ${myName} against `, whoButton(view.names[1 - me], view.opponent, spec));
  $("play-status").textContent = view.status;
  $("play-rules").textContent = rulesLine(view.rules, view.rules_in_force);
  keepGameInUrl(view.game);
  const lat = view.latency;
  $("play-latency").textContent = lat
    ? `${view.opponent_short || view.opponent} thinks ${lat.mean_ms} ms a move on average (last ${lat.last_ms} ms, longest ${lat.max_ms} ms, ${lat.decisions} moves)`
    : "";
  // announced: the opponent's latest moves, then "Your turn: ..." or the hand's result
  // (with its breakdown); they stay until the opponent moves again or the hand ends
  const told = [...theirs];
  if (view.result) told.push(view.result.headline, breakdownText(view.result));
  else if (view.moves) told.push(view.status);
  if (told.length || !sameHand) $("play-announce").textContent = told.filter(Boolean).join(" · ");
  $("play-score").replaceChildren(...scoreLine(view.sheet));
  const tableBox = $("play-table");
  stopThinking();
  if (view.table) {
    tableBox.hidden = false;
    const labels = myName.toLowerCase() === "you" ? {} : { [me]: "you" };
    if (view.opponent_short !== view.names[1 - me]) labels[1 - me] = view.opponent_short;
    const full = { [me]: myName, [1 - me]: view.opponent };
    renderTable(tableBox, view.table, { bottom: me, mine: me, moves: view.moves, onMove: playMove, labels, full });
    if (theirs.length) showTheirMoves(tableBox, view, me, fresh);
  } else {
    tableBox.hidden = true;
    tableBox.replaceChildren();
  }
  let extra = null;
  if (view.result) {
    extra = view.finished
      ? el("div", { class: "series-over" }, el("strong", {}, view.sheet.winner ? `${view.sheet.winner} won the series.` : "The series is over."),
          el("button", { type: "button", id: "play-again", onclick: () => $("play-form").requestSubmit() }, "New series"))
      : el("button", { type: "button", id: "play-next", onclick: () => playRequest("POST", `/api/play/${view.game}/next`) }, "Next hand");
  }
  renderResult($("play-result"), view.result, extra);
  $("play-type").hidden = !view.moves;
  renderSheet($("play-sheet"), view.sheet, view.history);
  renderLog($("play-log"), view.log, fresh);
  setSave($("play-save"), view.game, view.saved_hands);
  $("play-to-replay").disabled = view.saved_hands === 0;
  $("play-end").disabled = view.ended || view.finished;
  if (play.scroll) board.scrollIntoView({ block: "start" });
  else if (view.table && refocus) keepInView(board.querySelector(".felt"));
  if (refocus) {
    const next = nextControl();
    if (next) next.focus({ preventScroll: true });
  }
  play.focusBoard = play.scroll = false;
  bump(board, view.ended ? "ended" : view.result ? (view.finished ? "series-over" : "hand-over") : view.moves ? view.table.phase : "wait");
}

// The series score in one line above the table, always in view: each player's three games.
function scoreLine(sheet) {
  return sheet.rows.map((row, i) =>
    el(
      "span",
      { class: "score-row", "data-seat": row.seat },
      i ? " · " : "",
      el("span", { class: "name", title: row.name }, row.name),
      " ",
      row.scores.map((v, g) => el("span", { class: row.won[g] ? "won" : "", title: `game ${g + 1}` }, `${g ? "/" : ""}${v === null ? "–" : v}`)),
    ),
  );
}

// The opponent's moves since the person's, shown as moves: a card it took or drew slides
// into its hand, its discard onto the pile (no motion where the system asks for less).
function showTheirMoves(tableBox, view, me, fresh) {
  const lines = view.log.filter((line, i) => fresh.has(i));
  const drew = lines.some((line) => / (draws|takes) /.test(line));
  const discarded = lines.some((line) => / discards /.test(line));
  const theirs = tableBox.querySelector(".seat.top .hand");
  if (drew && theirs) theirs.classList.add("drew");
  const top = tableBox.querySelector(".pile > .card:last-child");
  if (discarded && top) top.classList.add("arrived");
}

// "How to play" opens on a first visit; once a series has started it stays closed
// (remembered in the browser) unless the player opens it again.
const HELP_KEY = "hgin.help";
function remembered(key) {
  try {
    return localStorage.getItem(key);
  } catch (err) {
    return null; // storage refused (a private window): the help just opens each visit
  }
}
function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch (err) {
    // nothing to do: the choice lasts this visit only
  }
}
$("help").open = remembered(HELP_KEY) !== "closed";
$("help").addEventListener("toggle", () => remember(HELP_KEY, $("help").open ? "open" : "closed"));

$("play-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = {
    opponent: form.get("opponent"),
    seat: Number(form.get("seat")),
    name: form.get("name"),
    seed: form.get("seed").trim() === "" ? null : form.get("seed").trim(),
    rules: form.get("rules"),
  };
  $("help").open = false;
  remember(HELP_KEY, "closed");
  play.view = null;
  play.focusBoard = play.scroll = true;
  playRequest("POST", "/api/play", body);
});

$("play-type").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = event.target.elements.move;
  const text = input.value.trim();
  if (text) playMove(text);
  input.value = "";
});

$("play-end").addEventListener("click", () => {
  if (!play.view) return;
  play.focusBoard = true;
  playRequest("POST", `/api/games/${play.view.game}/end`);
});

$("play-to-replay").addEventListener("click", async () => {
  if (!play.view) return;
  setBusy(1);
  try {
    let response;
    try {
      response = await fetch(`/api/games/${play.view.game}/transcript`, { headers: AUTH });
    } catch (err) {
      throw new Error("The server cannot be reached: is play.py --web still running?");
    }
    if (!response.ok) throw new Error(await errorOf(response));
    const text = await response.text();
    selectMode("replay");
    loadReplay(text, "this game");
  } catch (err) {
    showError("play-error", err.message);
  } finally {
    setBusy(-1);
  }
});

// ------------------------------------------------------------------ watch
const watch = { view: null, running: false, timer: null };

function speed() {
  return Number($("watch-speed").value);
}

function showSpeed() {
  $("watch-speed-text").textContent = `${(speed() / 1000).toFixed(2)} s per move`;
}

function renderWatch(view) {
  watch.view = view;
  const board = $("watch-board");
  board.hidden = false;
  $("watch-title").textContent = `Hand ${view.hand_no}: ${view.names[0]} against ${view.names[1]}`;
  $("watch-status").textContent = view.ended ? "This game was ended." : view.finished ? "The series is over." : watch.running ? "playing" : "paused";
  $("watch-rules").textContent = rulesLine(view.rules, view.rules_in_force);
  $("watch-spec").textContent = specsLine(view.names, view.players);
  const tableBox = $("watch-table");
  tableBox.hidden = !view.table;
  if (view.table) renderTable(tableBox, view.table, { bottom: 0, moves: null, labels: null, full: view.players });
  renderResult($("watch-result"), view.result, null);
  renderSheet($("watch-sheet"), view.sheet, view.history);
  renderLog($("watch-log"), view.log, new Set([view.log.length - 1]));
  setSave($("watch-save"), view.game, view.saved_hands);
  $("watch-toggle").textContent = watch.running ? "Pause" : "Play";
  $("watch-toggle").disabled = view.finished || view.ended;
  $("watch-step").disabled = view.finished || view.ended || watch.running;
  $("watch-end").disabled = view.finished || view.ended;
  bump(board, view.finished ? "series-over" : view.result ? "hand-over" : "live");
}

// Each seat's full spec where its short name leaves some out: "pimc (64 worlds) is pimc:...".
function specsLine(names, full) {
  return names
    .map((name, seat) => (full[seat] && full[seat] !== name.replace(/ \([12]\)$/, "") ? `${name} is ${full[seat]}` : ""))
    .filter(Boolean)
    .join("; ");
}

async function watchStep() {
  if (!watch.view || watch.view.finished || watch.view.ended) return false;
  try {
    renderWatch(await api("POST", `/api/watch/${watch.view.game}/step`));
    showError("watch-error", "");
    return true;
  } catch (err) {
    showError("watch-error", err.message);
    if (err.state) renderWatch(err.state);
    return false;
  }
}

function stopWatch() {
  watch.running = false;
  clearTimeout(watch.timer);
  if (watch.view) renderWatch(watch.view);
}

async function watchTick() {
  if (!watch.running) return;
  const ok = await watchStep();
  if (!ok || !watch.running || watch.view.finished) {
    stopWatch();
    return;
  }
  // linger on the end of a hand
  const delay = watch.view.result ? Math.max(1500, 3 * speed()) : speed();
  watch.timer = setTimeout(watchTick, delay);
}

$("watch-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  stopWatch();
  const form = new FormData(event.target);
  const seed = form.get("seed").trim();
  try {
    const view = await api("POST", "/api/watch", {
      players: [form.get("a"), form.get("b")],
      seed: seed === "" ? null : seed,
      rules: form.get("rules"),
    });
    showError("watch-error", "");
    watch.running = true;
    renderWatch(view);
    watch.timer = setTimeout(watchTick, speed());
  } catch (err) {
    showError("watch-error", err.message);
  }
});

$("watch-toggle").addEventListener("click", () => {
  if (watch.running) {
    stopWatch();
  } else {
    watch.running = true;
    renderWatch(watch.view);
    watchTick();
  }
});
$("watch-step").addEventListener("click", () => {
  if (!watch.running && document.body.dataset.busy !== "1") watchStep();
});
$("watch-speed").addEventListener("input", showSpeed);
$("watch-end").addEventListener("click", async () => {
  if (!watch.view) return;
  stopWatch();
  try {
    renderWatch(await api("POST", `/api/games/${watch.view.game}/end`));
    showError("watch-error", "");
  } catch (err) {
    showError("watch-error", err.message);
  }
});

// ------------------------------------------------------------------ replay
const replay = { data: null, hand: 0, step: 0 };

async function loadReplay(text, name) {
  try {
    replay.data = await api("POST", "/api/replay", { text, name });
    replay.hand = 0;
    replay.step = 0;
    showError("replay-error", "");
    renderReplay();
  } catch (err) {
    replay.data = null;
    $("replay-board").hidden = true;
    showError("replay-error", err.message);
    bump($("replay-board"), "error");
  }
}

function renderReplay() {
  const board = $("replay-board");
  const hand = replay.data.hands[replay.hand];
  const last = hand.frames.length - 1;
  replay.step = Math.max(0, Math.min(replay.step, last));
  const frame = hand.frames[replay.step];
  board.hidden = false;
  $("replay-title").textContent = `${hand.title}: ${hand.names[0]} (seat 0) against ${hand.names[1]} (seat 1)`;
  $("replay-rules").textContent = rulesLine(hand.rules, hand.rules_in_force);
  $("replay-spec").textContent = specsLine(hand.names, hand.full_names);
  $("replay-status").textContent = `step ${replay.step} of ${last}`;
  $("replay-line").textContent = frame.line;
  renderTable($("replay-table"), frame.table, { bottom: 0, moves: null, labels: null, full: hand.full_names });
  renderResult($("replay-result"), replay.step === last ? hand.result : null, null);
  renderSheet($("replay-sheet"), replay.step === last ? hand.sheet : hand.sheet_before);
  const slider = $("replay-slider");
  slider.max = String(last);
  slider.value = String(replay.step);
  const lines = hand.frames.slice(0, replay.step + 1).map((f) => f.line);
  renderLog($("replay-log"), lines, new Set([lines.length - 1]));
  $("replay-prev-hand").disabled = replay.hand === 0;
  $("replay-next-hand").disabled = replay.hand === replay.data.hands.length - 1;
  $("replay-first").disabled = $("replay-back").disabled = replay.step === 0;
  $("replay-last").disabled = $("replay-forward").disabled = replay.step === last;
  bump(board, replay.step === last ? "end" : "step");
}

function replayGo(hand, step) {
  if (!replay.data) return;
  replay.hand = Math.max(0, Math.min(hand, replay.data.hands.length - 1));
  replay.step = step;
  renderReplay();
}

$("replay-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  loadReplay(await file.text(), file.name);
});
$("replay-first").addEventListener("click", () => replayGo(replay.hand, 0));
$("replay-back").addEventListener("click", () => replayGo(replay.hand, replay.step - 1));
$("replay-forward").addEventListener("click", () => replayGo(replay.hand, replay.step + 1));
$("replay-last").addEventListener("click", () => replayGo(replay.hand, Infinity));
$("replay-prev-hand").addEventListener("click", () => replayGo(replay.hand - 1, 0));
$("replay-next-hand").addEventListener("click", () => replayGo(replay.hand + 1, 0));
$("replay-slider").addEventListener("input", (event) => replayGo(replay.hand, Number(event.target.value)));
document.addEventListener("keydown", (event) => {
  if ($("replay").hidden || !replay.data || event.target.tagName === "INPUT") return;
  if (event.key === "ArrowLeft") replayGo(replay.hand, replay.step - 1);
  if (event.key === "ArrowRight") replayGo(replay.hand, replay.step + 1);
});

// ------------------------------------------------------------------ modes, start-up
function selectMode(mode) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.mode === mode);
  for (const section of document.querySelectorAll(".mode")) section.hidden = section.id !== mode;
  if (mode !== "watch" && watch.running) stopWatch();
}

for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => selectMode(tab.dataset.mode));

async function start() {
  showSpeed();
  if (!TOKEN) {
    showError("play-error", "This page needs the server's token: open the URL that play.py --web printed (http://127.0.0.1:PORT/?token=...).");
    return;
  }
  try {
    const options = await api("GET", "/api/options");
    const d = options.defaults;
    const names = [...options.models, ...options.bots];
    if (!names.includes(d.opponent)) names.unshift(d.opponent);
    // the lists show each policy's short name, the full one on hover
    for (const select of document.querySelectorAll("select.policy")) {
      select.replaceChildren(...names.map((name) => el("option", { value: name, title: name }, options.short[name] || name)));
    }
    const form = $("play-form").elements;
    form.opponent.value = d.opponent;
    form.seat.value = String(d.seat);
    form.name.value = d.name;
    form.seed.value = d.seed === null ? "" : String(d.seed);
    form.rules.value = d.rules;
    const wform = $("watch-form").elements;
    wform.a.value = d.opponent;
    wform.b.value = options.bots.includes("expert") ? "expert" : options.bots[0];
    wform.seed.value = form.seed.value;
    wform.rules.value = d.rules;
    const saved = new URLSearchParams(location.search).get("game");
    if (saved) await resumeGame(saved);
    document.body.dataset.ready = "1";
  } catch (err) {
    showError("play-error", err.message);
  }
}

start();

"""The observation a seat receives: a flat float32 vector of what it may legally know.

Layout (``OBS_LAYOUT``; ``docs/gen_tables.py`` turns this table into the one with index
ranges in ``docs/environments.md``). Card blocks are 52 entries indexed by card id
(``suit * 13 + rank``).

========================  =====  ==========================================================
block                     size   meaning
========================  =====  ==========================================================
hand                      52     1 for each card this seat holds
top_discard               52     one-hot: the top of the discard pile (the upcard at first)
pile_below                52     the other cards in the discard pile
opponent_known            52     cards the opponent took from the pile and still holds
opponent_discards         52     cards the opponent discarded this hand
own_discards              52     cards this seat discarded this hand
discard_deadwood          52     in the discard phase: deadwood left by discarding each
                                 held card / 100 (1.0 for cards not held); else 0
deadwood                  1      min deadwood of this seat's hand / 100 (11 cards: best legal
                                 discard)
phase                     4      one-hot: offer, draw, forced stock draw, discard (all 0
                                 once the hand is over)
to_act                    1      1 when this seat is to act
stock                     1      stock size / 31
dealer                    1      1 when this seat dealt this hand
turn                      1      turns completed this hand / max_turns_per_hand
my_scores                 3      this seat's totals in games 1-3 / game_target (capped at 2)
opp_scores                3      the opponent's totals / game_target (capped at 2)
my_entered                3      this seat has a score entered in game j
opp_entered               3      the opponent has a score entered in game j
open_games                3      game j is still open
my_next_entry             3      a win by this seat now would be entered in game j
opp_next_entry            3      a win by the opponent now would be entered in game j
rules_knock_limit         1      the knock limit of this game's rules / 100
rules_gin_bonus           1      the gin bonus / 100 (capped at 2)
rules_undercut_bonus      1      the undercut bonus / 100 (capped at 2)
rules_big_gin             1      1 when big gin is on (``big_gin_bonus`` set)
rules_big_gin_bonus       1      the big-gin bonus / 100 (capped at 2; 0 when off)
rules_game_target         1      series mode: the game target / 100 (capped at 2); hand
                                 mode: 0
========================  =====  ==========================================================

The Hollywood blocks (``my_scores`` to ``opp_next_entry``) are zero when no score sheet is
given (hand mode). The rules blocks (the last six) carry the options of the rule set the
game plays under (in a mix of rule sets, each game's own; ``engine.hand_rules``).
Nothing hidden from the seat (the opponent's other cards, the stock order) enters it.

**Layout versions.** Layout 1, the first ``OBS_DIMS[1]`` = 394 entries (everything before
the rules blocks), is what models trained before the rules entered the observation read;
layout 2 (``OBS_LAYOUT_VERSION``) is the whole table. A model's layout is read from the
width of its observation space (``layout_version``); an old model is fed the first 394
entries of each observation (``plain_observations(obs, OBS_DIMS[1])``).

**Privileged block** (``EnvConfig.privileged``, for an asymmetric critic only): the
single-agent environments can append ``PRIVILEGED_DIM`` entries of hidden information
after the observation (``PRIVILEGED_LAYOUT``, offsets counted from ``OBS_DIM``):

========================  =====  ==========================================================
block                     size   meaning
========================  =====  ==========================================================
opponent_hand             52     every card the opponent holds
stock_order               52     for each stock card, 1 - depth / 31 (the top card is 1.0)
opponent_deadwood         1      the opponent's min deadwood / 100
========================  =====  ==========================================================

A policy must not act on it: the ``cards`` network feeds it to the value head alone,
and the bots, evaluation and play never see it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import STOCK_AT_DEAL, GinEngine, Phase
from hgin_env.engine.hollywood import N_GAMES, ScoreSheets
from hgin_env.engine.jit import kernel
from hgin_env.engine.melds import NO_DEADWOOD

DEADWOOD_SCALE = 100.0

_BLOCKS = [
    ("hand", N_CARDS),
    ("top_discard", N_CARDS),
    ("pile_below", N_CARDS),
    ("opponent_known", N_CARDS),
    ("opponent_discards", N_CARDS),
    ("own_discards", N_CARDS),
    ("discard_deadwood", N_CARDS),
    ("deadwood", 1),
    ("phase", 4),
    ("to_act", 1),
    ("stock", 1),
    ("dealer", 1),
    ("turn", 1),
    ("my_scores", 3),
    ("opp_scores", 3),
    ("my_entered", 3),
    ("opp_entered", 3),
    ("open_games", 3),
    ("my_next_entry", 3),
    ("opp_next_entry", 3),
    ("rules_knock_limit", 1),
    ("rules_gin_bonus", 1),
    ("rules_undercut_bonus", 1),
    ("rules_big_gin", 1),
    ("rules_big_gin_bonus", 1),
    ("rules_game_target", 1),
]


_PRIVILEGED_BLOCKS = [
    ("opponent_hand", N_CARDS),
    ("stock_order", N_CARDS),
    ("opponent_deadwood", 1),
]


def _build_layout(blocks: list[tuple[str, int]]) -> dict[str, slice]:
    """Name -> slice of each block, in order."""
    layout, start = {}, 0
    for name, size in blocks:
        layout[name] = slice(start, start + size)
        start += size
    return layout


#: name -> slice of each block of the observation vector
OBS_LAYOUT = _build_layout(_BLOCKS)
#: length of the observation vector
OBS_DIM = sum(size for _, size in _BLOCKS)
#: name -> slice of each block of the privileged block (offsets from ``OBS_DIM``)
PRIVILEGED_LAYOUT = _build_layout(_PRIVILEGED_BLOCKS)
#: length of the privileged block
PRIVILEGED_DIM = sum(size for _, size in _PRIVILEGED_BLOCKS)
#: the current observation layout (see "Layout versions" in the module docstring)
OBS_LAYOUT_VERSION = 2
#: layout version -> observation length: 1 before the rules blocks, 2 with them
OBS_DIMS = {1: OBS_LAYOUT["rules_knock_limit"].start, 2: OBS_DIM}
#: points (bonuses, targets) are scaled by this in the rules blocks, and capped at 2
POINTS_SCALE = 100.0
#: phase block entries
PHASE_OFFER, PHASE_DRAW, PHASE_FORCED_DRAW, PHASE_DISCARD = range(4)
#: int64[4]: the phase block entry of each engine ``Phase`` (a forced draw adds 1 to
#: ``PHASE_DRAW``; the entry for ``OVER`` is unused: a finished hand has no phase)
_DRAW, _DISCARD, _OVER = int(Phase.DRAW), int(Phase.DISCARD), int(Phase.OVER)
_PHASE_ENTRY = np.array([PHASE_OFFER, PHASE_DRAW, PHASE_DISCARD, 0], dtype=np.int64)


@dataclass
class DecodedObservation:
    """The observation blocks of a batch as arrays (for bots and tools); see ``OBS_LAYOUT``."""

    hand: np.ndarray  # bool[N, 52]
    top_discard: np.ndarray  # int[N], -1 when the pile is empty
    pile_below: np.ndarray  # bool[N, 52]
    opponent_known: np.ndarray  # bool[N, 52]
    opponent_discards: np.ndarray  # bool[N, 52]
    own_discards: np.ndarray  # bool[N, 52]
    discard_deadwood: np.ndarray  # int[N, 52], NO_DEADWOOD where not held or not discarding
    deadwood: np.ndarray  # int[N]
    phase: np.ndarray  # int[N], one of PHASE_*
    stock: np.ndarray  # int[N]
    dealer: np.ndarray  # bool[N]
    knock_limit: np.ndarray  # int[N]: the rules each game plays under (values over 200 read 200)
    gin_bonus: np.ndarray  # int[N]
    undercut_bonus: np.ndarray  # int[N]
    big_gin: np.ndarray  # bool[N]: big gin is on
    big_gin_bonus: np.ndarray  # int[N], 0 when big gin is off
    game_target: np.ndarray  # int[N], 0 in hand mode


def encode_observations(
    engine: GinEngine,
    seats: np.ndarray,
    sheets: ScoreSheets | None = None,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """Build the observations of the given seats.

    The engine answers the deadwood (its cached meld search); one compiled loop over the
    selected games (``_encode_rows``) writes every block.

    Args:
        engine: the batched engine.
        seats: int[M], the seat observing in each selected game.
        sheets: the score sheets in series mode (None in hand mode).
        rows: int[M] games to encode (default: all N, then M = N).

    Returns:
        float32[M, OBS_DIM].
    """
    s = engine.state
    rows = np.arange(engine.n) if rows is None else np.asarray(rows, dtype=np.int64).reshape(-1)
    seats = np.asarray(seats, dtype=np.int64).reshape(-1)
    m = rows.size
    # the seat to act in the discard phase reads the deadwood each discard leaves; any
    # other seat its hand's least deadwood
    if m == 1:  # one game: scalar tests, no index arrays
        g = rows[0]
        if s.phase[g] == _DISCARD and s.current[g] == seats[0]:
            disc, after_discard = _ONE_ROW, engine.discard_deadwood(rows)
            deadwood = np.empty(1, dtype=np.int64)
        else:
            disc, after_discard = _NO_ROWS, _NO_DEADWOOD_ROWS
            deadwood = np.asarray(engine.hand_deadwood(rows, seats), dtype=np.int64)
    else:
        discarding = (s.phase[rows] == _DISCARD) & (s.current[rows] == seats)
        disc, waiting = discarding.nonzero()[0], (~discarding).nonzero()[0]
        after_discard = engine.discard_deadwood(rows[disc]) if disc.size else _NO_DEADWOOD_ROWS
        deadwood = np.empty(m, dtype=np.int64)
        if waiting.size:
            deadwood[waiting] = engine.hand_deadwood(rows[waiting], seats[waiting])
    hr = engine.hand_rules
    if sheets is None:
        scores, entered, won, finished = _NO_SHEET
        next_entry = _NO_ENTRY
        target = 1.0
    else:
        scores, entered = sheets.scores, sheets.entered
        won, finished = sheets.game_winners, sheets.finished
        next_entry = np.stack([sheets.next_entry_games(seat) for seat in _BOTH_SEATS], axis=1)
        target = float(engine.rules.game_target)
    obs = np.zeros((m, OBS_DIM), dtype=np.float32)
    _encode_rows(
        obs, rows, seats, disc, after_discard, deadwood,
        s.hands, s.known, s.discards, s.in_pile, s.pile, s.pile_size, s.phase, s.current,
        s.must_draw_stock, s.taken, s.stock_pos, s.dealer, s.turns,
        float(engine.rules.max_turns_per_hand), bool(engine.rules.allow_rediscard),
        hr.knock_limit, hr.gin_bonus, hr.undercut_bonus, hr.big_gin, hr.big_gin_bonus,
        sheets is not None, target, scores, entered, won, finished, next_entry,
    )  # fmt: skip
    return obs


#: empty inputs of ``_encode_rows`` (no rows of a kind, no score sheet)
_NO_ROWS = np.zeros(0, np.int64)
_BOTH_SEATS = (np.array(0), np.array(1))
_ONE_ROW = np.zeros(1, np.int64)
_NO_DEADWOOD_ROWS = np.zeros((0, N_CARDS), np.int64)
_NO_SHEET = (
    np.zeros((1, 2, 3), np.int64),
    np.zeros((1, 2, 3), bool),
    np.zeros((1, 3), np.int64),
    np.zeros(1, bool),
)
_NO_ENTRY = np.zeros((1, 2, 3), bool)
# block offsets as plain ints for the compiled loop
_HAND, _TOP, _BELOW = (OBS_LAYOUT[k].start for k in ("hand", "top_discard", "pile_below"))
_OPP_KNOWN, _OPP_DISC, _OWN_DISC = (
    OBS_LAYOUT[k].start for k in ("opponent_known", "opponent_discards", "own_discards")
)
_DISC_DW, _DW, _PHASE = (OBS_LAYOUT[k].start for k in ("discard_deadwood", "deadwood", "phase"))
_TO_ACT, _STOCK, _DEALER, _TURN = (
    OBS_LAYOUT[k].start for k in ("to_act", "stock", "dealer", "turn")
)
_SHEET = tuple(
    OBS_LAYOUT[k].start
    for k in (
        "my_scores", "opp_scores", "my_entered", "opp_entered", "open_games",
        "my_next_entry", "opp_next_entry",
    )
)  # fmt: skip
_RULES = tuple(
    OBS_LAYOUT[k].start
    for k in (
        "rules_knock_limit", "rules_gin_bonus", "rules_undercut_bonus", "rules_big_gin",
        "rules_big_gin_bonus", "rules_game_target",
    )
)  # fmt: skip


@kernel
def _encode_rows(  # noqa: PLR0913 - the engine's arrays, passed one by one to the kernel
    obs, rows, seats, disc, after_discard, deadwood,
    hands, known, discards, in_pile, pile, pile_size, phase, current,
    must_draw_stock, taken, stock_pos, dealer, turns,
    max_turns, allow_rediscard,
    knock_limit, gin_bonus, undercut_bonus, big_gin, big_gin_bonus,
    has_sheets, target, scores, entered, won, finished, next_entry,
):  # fmt: skip
    """Fill ``obs`` (float32[M, OBS_DIM], zeroed) with the observations of ``rows``.

    ``disc`` (int[D]) are the positions in ``rows`` of the seats discarding, with
    ``after_discard`` (int64[D, 52]) the engine's deadwood after each discard;
    ``deadwood`` (int64[M]) holds the other positions' hand deadwood (filled here for
    ``disc``). The rest are the engine's state and per-game rules and the score sheet's
    arrays (placeholders when ``has_sheets`` is false).
    """
    for j in range(disc.size):
        i = disc[j]
        g = rows[i]
        best = NO_DEADWOOD
        barred = taken[g] if not allow_rediscard else -1
        for c in range(N_CARDS):
            d = after_discard[j, c]
            obs[i, _DISC_DW + c] = min(d, DEADWOOD_SCALE) / DEADWOOD_SCALE
            if c != barred and d < best:
                best = d
        deadwood[i] = best
    for i in range(rows.size):
        g, me = rows[i], seats[i]
        opp = 1 - me
        for c in range(N_CARDS):
            obs[i, _HAND + c] = hands[g, me, c]
            obs[i, _OPP_KNOWN + c] = known[g, opp, c]
            obs[i, _OPP_DISC + c] = discards[g, opp, c]
            obs[i, _OWN_DISC + c] = discards[g, me, c]
            obs[i, _BELOW + c] = in_pile[g, c]
        if pile_size[g] > 0:
            top = pile[g, pile_size[g] - 1]
            obs[i, _BELOW + top] = 0.0
            obs[i, _TOP + top] = 1.0
        ph = phase[g]
        obs[i, _DW] = deadwood[i] / DEADWOOD_SCALE
        if ph != _OVER:
            entry = _PHASE_ENTRY[ph]
            if ph == _DRAW and must_draw_stock[g]:
                entry += 1
            obs[i, _PHASE + entry] = 1.0
            if current[g] == me:
                obs[i, _TO_ACT] = 1.0
        obs[i, _STOCK] = (N_CARDS - np.int64(stock_pos[g])) / STOCK_AT_DEAL
        if dealer[g] == me:
            obs[i, _DEALER] = 1.0
        obs[i, _TURN] = turns[g] / max_turns
        if has_sheets:
            for k in range(3):
                obs[i, _SHEET[0] + k] = min(scores[g, me, k] / target, 2.0)
                obs[i, _SHEET[1] + k] = min(scores[g, opp, k] / target, 2.0)
                obs[i, _SHEET[2] + k] = entered[g, me, k]
                obs[i, _SHEET[3] + k] = entered[g, opp, k]
                obs[i, _SHEET[4] + k] = 1.0 if won[g, k] < 0 and not finished[g] else 0.0
                obs[i, _SHEET[5] + k] = next_entry[g, me, k]
                obs[i, _SHEET[6] + k] = next_entry[g, opp, k]
            obs[i, _RULES[5]] = min(target / POINTS_SCALE, 2.0)
        obs[i, _RULES[0]] = knock_limit[g] / DEADWOOD_SCALE
        obs[i, _RULES[1]] = min(gin_bonus[g] / POINTS_SCALE, 2.0)
        obs[i, _RULES[2]] = min(undercut_bonus[g] / POINTS_SCALE, 2.0)
        obs[i, _RULES[3]] = big_gin[g]
        obs[i, _RULES[4]] = min(big_gin_bonus[g] / POINTS_SCALE, 2.0)


def encode_privileged(
    engine: GinEngine, seats: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """The hidden information a seat does not see, for an asymmetric critic.

    Args:
        engine: the batched engine.
        seats: int[M], the seat whose critic it is in each selected game.
        rows: int[M] games to encode (default: all N, then M = N).

    Returns:
        float32[M, PRIVILEGED_DIM], laid out as ``PRIVILEGED_LAYOUT``.
    """
    s = engine.state
    rows = np.arange(engine.n) if rows is None else np.asarray(rows, dtype=np.int64)
    opp = 1 - np.asarray(seats, dtype=np.int64).reshape(-1)
    out = np.zeros((rows.size, PRIVILEGED_DIM), dtype=np.float32)
    L = PRIVILEGED_LAYOUT
    out[:, L["opponent_hand"]] = s.hands[rows, opp]
    # deck index i holds a stock card when i >= stock_pos; its depth is i - stock_pos
    depth = np.arange(N_CARDS) - s.stock_pos[rows].astype(np.int64)[:, None]
    order = np.where(depth >= 0, 1.0 - depth / STOCK_AT_DEAL, 0.0)
    stock = np.zeros((rows.size, N_CARDS), dtype=np.float32)
    np.put_along_axis(stock, s.deck[rows].astype(np.int64), order, axis=1)
    out[:, L["stock_order"]] = stock
    out[:, L["opponent_deadwood"].start] = engine.hand_deadwood(rows, opp) / DEADWOOD_SCALE
    return out


def plain_observations(observations: np.ndarray, dim: int = OBS_DIM) -> np.ndarray:
    """float32[N, dim]: the first ``dim`` entries of each row (no privileged block).

    Args:
        observations: float32[N, D] with D >= dim.
        dim: ``OBS_DIM``, or ``OBS_DIMS[1]`` for a model of layout 1.
    """
    obs = np.asarray(observations, dtype=np.float32)
    obs = obs.reshape(-1, obs.shape[-1])
    if obs.shape[1] < dim:
        raise ValueError(f"observations of {obs.shape[1]} entries, {dim} expected")
    return obs[:, :dim]


def layout_version(width: int) -> int:
    """The observation layout of a network whose observation space has ``width`` entries.

    Each layout's width counts with or without the privileged block.

    Raises:
        ValueError: a width of no layout.
    """
    for version, dim in OBS_DIMS.items():
        if width in (dim, dim + PRIVILEGED_DIM):
            return version
    known = sorted(w for d in OBS_DIMS.values() for w in (d, d + PRIVILEGED_DIM))
    raise ValueError(f"an observation of {width} entries matches no layout (widths {known})")


def discard_deadwood(obs: np.ndarray) -> np.ndarray:
    """int64[N, 52]: the deadwood each discard would leave.

    NO_DEADWOOD where the card is not held or the seat is not discarding: the
    ``DecodedObservation.discard_deadwood`` field, without decoding the rest.
    """
    obs = np.asarray(obs, dtype=np.float32).reshape(-1, OBS_DIM)
    L = OBS_LAYOUT
    dd = np.rint(obs[:, L["discard_deadwood"]] * DEADWOOD_SCALE).astype(np.int64)
    held = obs[:, L["hand"]] > 0.5
    discarding = obs[:, L["phase"]][:, PHASE_DISCARD] > 0.5
    return np.where(discarding[:, None] & held, dd, NO_DEADWOOD)


def decode_observations(obs: np.ndarray) -> DecodedObservation:
    """Turn float32[N, OBS_DIM] observations back into arrays (the inverse of the encoder)."""
    obs = np.asarray(obs, dtype=np.float32).reshape(-1, OBS_DIM)
    L = OBS_LAYOUT
    top_block = obs[:, L["top_discard"]]
    top = np.where(top_block.any(axis=1), top_block.argmax(axis=1), -1)
    phase_block = obs[:, L["phase"]]
    hand = obs[:, L["hand"]] > 0.5
    dd = discard_deadwood(obs)

    def points(name: str) -> np.ndarray:
        return np.rint(obs[:, L[name].start] * POINTS_SCALE).astype(np.int64)

    return DecodedObservation(
        hand=hand,
        top_discard=top,
        pile_below=obs[:, L["pile_below"]] > 0.5,
        opponent_known=obs[:, L["opponent_known"]] > 0.5,
        opponent_discards=obs[:, L["opponent_discards"]] > 0.5,
        own_discards=obs[:, L["own_discards"]] > 0.5,
        discard_deadwood=dd,
        deadwood=np.rint(obs[:, L["deadwood"].start] * DEADWOOD_SCALE).astype(np.int64),
        phase=np.where(phase_block.any(axis=1), phase_block.argmax(axis=1), -1),
        stock=np.rint(obs[:, L["stock"].start] * STOCK_AT_DEAL).astype(np.int64),
        dealer=obs[:, L["dealer"].start] > 0.5,
        knock_limit=np.rint(obs[:, L["rules_knock_limit"].start] * DEADWOOD_SCALE).astype(np.int64),
        gin_bonus=points("rules_gin_bonus"),
        undercut_bonus=points("rules_undercut_bonus"),
        big_gin=obs[:, L["rules_big_gin"].start] > 0.5,
        big_gin_bonus=points("rules_big_gin_bonus"),
        game_target=points("rules_game_target"),
    )


def decode_sheets(observations: np.ndarray, rules: RulesConfig) -> ScoreSheets | None:
    """The score sheets the observations show (seat 0 = the observer), None in hand mode.

    The inverse of the encoder's Hollywood blocks: totals, entries, ended games and the
    series winner; box counts are not observed (one box per game entered). Hand-mode
    observations have no open game; then there is no sheet.
    """
    obs = plain_observations(observations)
    L = OBS_LAYOUT
    open_games = obs[:, L["open_games"]] > 0.5
    if not open_games.any():
        return None
    target = float(rules.game_target)
    sheets = ScoreSheets(obs.shape[0], rules)
    mine = np.rint(obs[:, L["my_scores"]] * target).astype(np.int64)
    theirs = np.rint(obs[:, L["opp_scores"]] * target).astype(np.int64)
    sheets.scores = np.stack([mine, theirs], axis=1)
    sheets.entered = np.stack([obs[:, L["my_entered"]], obs[:, L["opp_entered"]]], axis=1) > 0.5
    sheets.boxes = sheets.entered.astype(np.int64)  # box counts are not observed
    winner = np.where(mine >= rules.game_target, 0, np.where(theirs >= rules.game_target, 1, -1))
    sheets.game_winners = np.where(open_games, -1, winner)
    sheets.finished = np.asarray(~open_games.any(axis=1))
    won = (sheets.game_winners[:, :, None] == np.arange(2)).sum(axis=1)  # [N, 2]
    sheets.series_winner = np.where(sheets.finished & (won.max(axis=1) >= 2), won.argmax(1), -1)
    assert sheets.scores.shape == (obs.shape[0], 2, N_GAMES)
    return sheets

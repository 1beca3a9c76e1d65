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
from hgin_env.engine.game import STOCK_AT_DEAL, GinEngine, Phase
from hgin_env.engine.hollywood import ScoreSheets
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

    Args:
        engine: the batched engine.
        seats: int[M], the seat observing in each selected game.
        sheets: the score sheets in series mode (None in hand mode).
        rows: int[M] games to encode (default: all N, then M = N).

    Returns:
        float32[M, OBS_DIM].
    """
    s = engine.state
    rows = np.arange(engine.n) if rows is None else np.asarray(rows, dtype=np.int64)
    seats = np.asarray(seats, dtype=np.int64).reshape(-1)
    opp = 1 - seats
    m = rows.size
    obs = np.zeros((m, OBS_DIM), dtype=np.float32)
    L = OBS_LAYOUT
    r = np.arange(m)
    # per-seat card blocks, gathered as rows of the [N * 2, 52] views of the state
    mine, theirs = 2 * rows + seats, 2 * rows + opp
    obs[:, L["hand"]] = s.hands.reshape(-1, N_CARDS)[mine]
    obs[:, L["opponent_known"]] = s.known.reshape(-1, N_CARDS)[theirs]
    discards = s.discards.reshape(-1, N_CARDS)
    obs[:, L["opponent_discards"]] = discards[theirs]
    obs[:, L["own_discards"]] = discards[mine]
    tops = engine.top_discards(rows)
    has_top = (tops >= 0).nonzero()[0]
    top = tops[has_top]
    obs[:, L["pile_below"]] = s.in_pile[rows]
    obs[has_top, L["pile_below"].start + top] = 0.0
    obs[has_top, L["top_discard"].start + top] = 1.0
    phase = s.phase[rows]
    live = phase != _OVER
    acting = (s.current[rows] == seats) & live
    discarding = acting & (phase == _DISCARD)
    deadwood = np.empty(m, dtype=np.int64)
    disc = discarding.nonzero()[0]
    if disc.size:
        dd = engine.discard_deadwood(rows[disc])
        obs[disc, L["discard_deadwood"]] = np.minimum(dd, DEADWOOD_SCALE) / DEADWOOD_SCALE
        # the seat's deadwood is the best over the discards it may make
        taken = s.taken[rows[disc]].astype(np.int64)
        barred = (taken >= 0).nonzero()[0] if not engine.rules.allow_rediscard else disc[:0]
        if barred.size:
            dd[barred, taken[barred]] = NO_DEADWOOD
        deadwood[disc] = dd.min(axis=1)
    waiting = (~discarding).nonzero()[0]
    deadwood[waiting] = engine.hand_deadwood(rows[waiting], seats[waiting])
    obs[:, L["deadwood"].start] = deadwood / DEADWOOD_SCALE
    phase_idx = _PHASE_ENTRY[phase] + ((phase == _DRAW) & s.must_draw_stock[rows])
    obs[r[live], L["phase"].start + phase_idx[live]] = 1.0
    obs[:, L["to_act"].start] = acting
    obs[:, L["stock"].start] = engine.stock_sizes(rows) / STOCK_AT_DEAL
    obs[:, L["dealer"].start] = s.dealer[rows] == seats
    obs[:, L["turn"].start] = s.turns[rows] / engine.rules.max_turns_per_hand
    if sheets is not None:
        target = float(engine.rules.game_target)
        obs[:, L["my_scores"]] = np.minimum(sheets.scores[rows, seats] / target, 2.0)
        obs[:, L["opp_scores"]] = np.minimum(sheets.scores[rows, opp] / target, 2.0)
        obs[:, L["my_entered"]] = sheets.entered[rows, seats]
        obs[:, L["opp_entered"]] = sheets.entered[rows, opp]
        obs[:, L["open_games"]] = sheets.open_games[rows]
        full_seats = np.zeros(engine.n, dtype=np.int64)
        full_seats[rows] = seats
        obs[:, L["my_next_entry"]] = sheets.next_entry_games(full_seats)[rows]
        full_seats[rows] = opp
        obs[:, L["opp_next_entry"]] = sheets.next_entry_games(full_seats)[rows]
        obs[:, L["rules_game_target"].start] = min(target / POINTS_SCALE, 2.0)
    rules = engine.hand_rules.rows(rows)
    obs[:, L["rules_knock_limit"].start] = rules.knock_limit / DEADWOOD_SCALE
    obs[:, L["rules_gin_bonus"].start] = np.minimum(rules.gin_bonus / POINTS_SCALE, 2.0)
    obs[:, L["rules_undercut_bonus"].start] = np.minimum(rules.undercut_bonus / POINTS_SCALE, 2.0)
    obs[:, L["rules_big_gin"].start] = rules.big_gin
    obs[:, L["rules_big_gin_bonus"].start] = np.minimum(rules.big_gin_bonus / POINTS_SCALE, 2.0)
    return obs


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

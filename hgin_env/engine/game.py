"""The batched round engine: N independent hands of gin played in lock step.

One call of ``step`` applies one action in every live hand. The state is a dataclass
of numpy arrays with the batch as leading axis (``HandState``); the rules run in
compiled kernels (``hgin_env.engine.jit``) that loop over the rows of the batch, so
that one step of any batch size is one call into compiled code.

A hand goes through these phases (``Phase``), docs/rules.md §3 "A hand (round)":

- ``OFFER``: the first-turn upcard offer, to the non-dealer then the dealer:
  take (105) or pass (106). After two passes the non-dealer must draw from the
  stock (``must_draw_stock``).
- ``DRAW``: take the top of the stock (104) or of the discard pile (105).
- ``DISCARD``: discard a card (0..51) or knock with a discard (52..103); not the
  card just taken from the pile unless ``allow_rediscard``.
- ``OVER``: the hand has ended; ``outcome`` says how.

Deck order (``reset(decks=...)``): ``deck[0:10]`` is the non-dealer's hand,
``deck[10:20]`` the dealer's, ``deck[20]`` the upcard, ``deck[21]`` the top of
the stock, then ``deck[22]`` and so on. Without decks, each game shuffles from
its own seed and hand counter with a counter-based hash, so a game's deals do
not depend on the batch it runs in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import IntEnum
from typing import Any, cast

import numpy as np

from hgin_env.engine.actions import (
    DRAW,
    KNOCK,
    N_ACTIONS,
    PASS,
    TAKE,
    illegal_action_message,
)
from hgin_env.engine.cards import N_CARDS, N_RANKS, RANK_VALUE
from hgin_env.engine.config import HandRules, RulesConfig, RulesMix, check_mix
from hgin_env.engine.jit import entry_point, inline_kernel, kernel
from hgin_env.engine.keys import Salt, SeedLike, game_seeds, hash_one, hash_stream, shuffle_one
from hgin_env.engine.knock import knock_row
from hgin_env.engine.melds import (
    MASK_VALUE,
    NO_DEADWOOD,
    RUN_COVER,
    hand_discard_deadwood,
    hand_min_deadwood,
    hand_suit_masks,
    scratch,
)

HAND_SIZE = 10
UPCARD = 2 * HAND_SIZE
#: cards in the stock right after the deal: the deck less two hands and the upcard
STOCK_AT_DEAL = N_CARDS - UPCARD - 1
STOCK_START = UPCARD + 1
#: the hand ends as a draw when a discard leaves this many stock cards
STOCK_LEFT_AT_DRAW = 2


class Phase(IntEnum):
    """What the player to act must do."""

    OFFER = 0
    DRAW = 1
    DISCARD = 2
    OVER = 3


# plain ints for the hot path (IntEnum attribute access is slow) and the kernels
_OFFER, _DRAW, _DISCARD, _OVER = (int(p) for p in Phase)


class Outcome(IntEnum):
    """How a hand ended (``NONE`` while it is live)."""

    NONE = 0
    KNOCK = 1
    GIN = 2
    UNDERCUT = 3
    BIG_GIN = 4
    DRAW = 5
    TRUNCATED = 6


_DRAWN, _TRUNCATED = int(Outcome.DRAW), int(Outcome.TRUNCATED)
_KNOCKED, _GIN, _UNDERCUT, _BIG_GIN = (
    int(Outcome.KNOCK), int(Outcome.GIN), int(Outcome.UNDERCUT), int(Outcome.BIG_GIN)
)  # fmt: skip


# ---------------------------------------------------------------- the state's storage
# A HandState's 26 arrays are views into four flat buffers, one per dtype (bool, int8,
# int16, int64), each field one contiguous block of its buffer: a kernel takes the four
# buffers (four arguments, not 26, which is what a batch-1 step pays for) and rebuilds
# the views with ``_state_views``, the one place the layout is written down. Elements
# per game in each buffer:
_STATE_ROW = (417, 112, 6, 16)
#: the engine's per-game caches: bool (mask, stale flags) and int64 (deadwoods, rules)
_CACHE_ROW = (N_ACTIONS + 4, N_CARDS + 2 + 5)
_INT64 = np.dtype(np.int64)
_DEALER_SALT = int(Salt.DEALER)
#: ``reset`` without decks or dealers: the kernel draws them from the seeds
_NO_DECKS = np.zeros((0, N_CARDS), np.int8)
_NO_DEALERS = np.zeros(0, np.int8)
# rows of the per-game rules block of the int64 cache
_R_LIMIT, _R_GIN, _R_UNDERCUT, _R_BIG, _R_BIG_BONUS = range(5)


@kernel
def _state_views(
    b: np.ndarray, i8: np.ndarray, i16: np.ndarray, i64: np.ndarray, n: int
) -> tuple[np.ndarray, ...]:
    """The 26 fields of a ``HandState`` of n games, as views into its four buffers."""
    c = N_CARDS
    return (
        i8[0 : c * n].reshape((n, c)),  # deck
        i16[0:n],  # stock_pos
        b[0 : 2 * c * n].reshape((n, 2, c)),  # hands
        i8[c * n : 2 * c * n].reshape((n, c)),  # pile
        i16[n : 2 * n],  # pile_size
        b[6 * c * n : 7 * c * n].reshape((n, c)),  # in_pile
        b[2 * c * n : 4 * c * n].reshape((n, 2, c)),  # known
        b[4 * c * n : 6 * c * n].reshape((n, 2, c)),  # discards
        i8[2 * c * n : (2 * c + 1) * n],  # dealer
        i8[(2 * c + 1) * n : (2 * c + 2) * n],  # current
        i8[(2 * c + 2) * n : (2 * c + 3) * n],  # phase
        i8[(2 * c + 3) * n : (2 * c + 4) * n],  # passes
        b[8 * c * n : (8 * c + 1) * n],  # must_draw_stock
        i8[(2 * c + 4) * n : (2 * c + 5) * n],  # taken
        i16[2 * n : 3 * n],  # turns
        i8[(2 * c + 5) * n : (2 * c + 6) * n],  # outcome
        i8[(2 * c + 6) * n : (2 * c + 7) * n],  # winner
        i16[3 * n : 4 * n],  # points
        i8[(2 * c + 7) * n : (2 * c + 8) * n],  # knocker
        i16[4 * n : 5 * n],  # knocker_deadwood
        i16[5 * n : 6 * n],  # defender_deadwood
        b[7 * c * n : 8 * c * n].reshape((n, c)),  # layoffs
        i64[0 : 4 * n].reshape((n, 4)),  # knocker_sets
        i64[4 * n : 8 * n].reshape((n, 4)),  # knocker_runs
        i64[8 * n : 12 * n].reshape((n, 4)),  # defender_sets
        i64[12 * n : 16 * n].reshape((n, 4)),  # defender_runs
    )


@kernel
def _cache_views(cb: np.ndarray, ci: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    """The engine's caches as views: mask, its stale flags, deadwoods, per-game rules."""
    a, c = N_ACTIONS, N_CARDS
    return (
        cb[0 : a * n].reshape((n, a)),  # legal actions
        cb[a * n : (a + 1) * n],  # mask stale
        cb[(a + 1) * n : (a + 2) * n],  # discard deadwood stale
        cb[(a + 2) * n : (a + 4) * n].reshape((n, 2)),  # hand deadwood stale
        ci[0 : c * n].reshape((n, c)),  # discard deadwood
        ci[c * n : (c + 2) * n].reshape((n, 2)),  # hand deadwood
        ci[(c + 2) * n : (c + 7) * n].reshape((5, n)),  # rules
    )


def _new_buffers(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed state buffers for n games."""
    return (
        np.zeros(_STATE_ROW[0] * n, bool),
        np.zeros(_STATE_ROW[1] * n, np.int8),
        np.zeros(_STATE_ROW[2] * n, np.int16),
        np.zeros(_STATE_ROW[3] * n, np.int64),
    )


@dataclass
class HandState:
    """State of N hands; every field has the batch as its leading axis. Seats are 0 and 1.

    The fields are views into four flat buffers (see ``packed``). Assigning a field
    (``state.phase = x``) writes ``x`` into the field's array rather than rebinding it,
    so the engine keeps seeing the state; ``copy`` and ``copy_into`` copy the whole
    state at once (a search saves and restores its worlds with them).
    """

    deck: np.ndarray  # int8[N, 52]: this hand's deck order (see module docstring)
    stock_pos: np.ndarray  # int16[N]: index in deck of the stock's top card; stock = 52 - pos
    hands: np.ndarray  # bool[N, 2, 52]: cards held by each seat
    pile: np.ndarray  # int8[N, 52]: discard pile, bottom first; entries >= pile_size unused
    pile_size: np.ndarray  # int16[N]: cards in the discard pile
    in_pile: np.ndarray  # bool[N, 52]: the cards in the discard pile
    known: np.ndarray  # bool[N, 2, 52]: cards a seat took from the pile and still holds
    discards: np.ndarray  # bool[N, 2, 52]: cards a seat discarded this hand
    dealer: np.ndarray  # int8[N]: seat that dealt this hand
    current: np.ndarray  # int8[N]: seat to act
    phase: np.ndarray  # int8[N]: a Phase
    passes: np.ndarray  # int8[N]: passes made on the first-turn offer (0..2)
    must_draw_stock: np.ndarray  # bool[N]: both passed; the non-dealer must draw the stock
    taken: np.ndarray  # int8[N]: card just taken from the pile this turn, -1 if none
    turns: np.ndarray  # int16[N]: turns completed (discards and knocks) this hand
    outcome: np.ndarray  # int8[N]: an Outcome
    winner: np.ndarray  # int8[N]: seat that scored the hand, -1 if none (or live)
    points: np.ndarray  # int16[N]: points to the winner
    knocker: np.ndarray  # int8[N]: seat that knocked, -1 if none
    knocker_deadwood: np.ndarray  # int16[N]: knocker's deadwood in the chosen arrangement
    defender_deadwood: np.ndarray  # int16[N]: defender's deadwood after layoffs
    layoffs: np.ndarray  # bool[N, 52]: defender cards laid off on the knocker's melds
    knocker_sets: np.ndarray  # int64[N, 4]: per suit, knocker cards in sets (13-bit masks)
    knocker_runs: np.ndarray  # int64[N, 4]: per suit, knocker cards in runs
    defender_sets: np.ndarray  # int64[N, 4]: per suit, defender cards in its own sets
    defender_runs: np.ndarray  # int64[N, 4]: per suit, defender cards in its own runs

    #: the four buffers the fields view, None until ``packed`` (a state built from loose
    #: arrays is packed when an engine takes it)
    _buffers = cast("tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None", None)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._buffers is not None and name in _FIELD_NAMES:
            target = getattr(self, name)
            target[...] = value
        else:
            object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled field by field: the copies numpy makes of the views are unpacked again
        return (HandState, tuple(getattr(self, name) for name in _FIELD_NAMES))

    @property
    def size(self) -> int:
        """The number of hands N."""
        return int(self.phase.shape[0])

    @classmethod
    def _of_buffers(
        cls, buffers: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], n: int
    ) -> HandState:
        state = cls(*_state_views(*buffers, n))
        object.__setattr__(state, "_buffers", buffers)
        return state

    @classmethod
    def empty(cls, n: int) -> HandState:
        """Allocate the arrays for n hands (all ``OVER`` until reset)."""
        state = cls._of_buffers(_new_buffers(n), n)
        state.phase[:] = _OVER
        state.taken[:] = -1
        state.winner[:] = -1
        state.knocker[:] = -1
        return state

    def packed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The state's four buffers; a state of loose arrays is moved into new ones first.

        Raises:
            ValueError: a field whose shape does not fit N games (N from ``phase``).
        """
        if self._buffers is None:
            n = self.size
            buffers = _new_buffers(n)
            views = _state_views(*buffers, n)
            for name, view in zip(_FIELD_NAMES, views, strict=True):
                value = np.asarray(getattr(self, name))
                if value.shape != view.shape:
                    raise ValueError(
                        f"HandState.{name} has shape {value.shape}; {n} games need {view.shape}"
                    )
                view[...] = value
            for name, view in zip(_FIELD_NAMES, views, strict=True):
                object.__setattr__(self, name, view)
            object.__setattr__(self, "_buffers", buffers)
        assert self._buffers is not None
        return self._buffers

    def rows(self, index: np.ndarray) -> HandState:
        """A copy of the selected hands (index: int or bool array over the batch)."""
        rows = np.ascontiguousarray(np.arange(self.size)[index], dtype=np.int64).reshape(-1)
        # a state of loose arrays is copied into buffers first, leaving its arrays as they are
        source = self if self._buffers is not None else HandState(*self._fields())
        out = _new_buffers(rows.size)
        _gather_rows(*source.packed(), *out, *_ROW_WIDTHS, self.size, rows)
        return HandState._of_buffers(out, rows.size)

    def _fields(self) -> list[np.ndarray]:
        return [getattr(self, name) for name in _FIELD_NAMES]

    def copy(self) -> HandState:
        """A copy of the whole state (four buffer copies)."""
        return HandState._of_buffers(tuple(b.copy() for b in self.packed()), self.size)  # type: ignore[arg-type]

    def copy_into(self, other: HandState) -> None:
        """Overwrite ``other`` (a state of as many hands) with this state, in place.

        Raises:
            ValueError: when ``other`` holds a different number of hands.
        """
        if other.size != self.size:
            raise ValueError(f"copy_into needs a state of {self.size} hands, got {other.size}")
        for mine, theirs in zip(self.packed(), other.packed(), strict=True):
            np.copyto(theirs, mine)


_FIELD_NAMES = tuple(f.name for f in fields(HandState))


def _build_row_widths() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per state buffer, int64[k]: the elements per game of each field it holds, in order.

    Field j of a buffer of n games is the block ``[start_j * n, (start_j + w_j) * n)``
    holding its games one after another, ``w_j`` elements each (see ``_state_views``).
    """
    buffers = _new_buffers(1)
    # the kernel's Python function: importing the engine compiles and loads no kernel
    views = _state_views.py_func(*buffers, 1)  # type: ignore[attr-defined]
    widths = []
    for buf in buffers:
        base = buf.ctypes.data
        spans = sorted(
            ((v.ctypes.data - base) // buf.itemsize, v.size)
            for v in views
            if v.dtype == buf.dtype and np.shares_memory(v, buf)
        )
        starts = np.cumsum([0] + [w for _, w in spans])
        assert [o for o, _ in spans] == starts[:-1].tolist() and starts[-1] == buf.size
        widths.append(np.array([w for _, w in spans], dtype=np.int64))
    return widths[0], widths[1], widths[2], widths[3]


@kernel
def _gather_rows(
    b: np.ndarray,
    i8: np.ndarray,
    i16: np.ndarray,
    i64: np.ndarray,
    ob: np.ndarray,
    oi8: np.ndarray,
    oi16: np.ndarray,
    oi64: np.ndarray,
    wb: np.ndarray,
    wi8: np.ndarray,
    wi16: np.ndarray,
    wi64: np.ndarray,
    n: int,
    rows: np.ndarray,
) -> None:
    """Copy the games ``rows`` of a state of n games into the buffers of a state of M games."""
    _gather_buffer(b, ob, wb, n, rows)
    _gather_buffer(i8, oi8, wi8, n, rows)
    _gather_buffer(i16, oi16, wi16, n, rows)
    _gather_buffer(i64, oi64, wi64, n, rows)


@inline_kernel
def _gather_buffer(
    src: np.ndarray, dst: np.ndarray, widths: np.ndarray, n: int, rows: np.ndarray
) -> None:
    """``_gather_rows`` for one buffer, field by field (``_build_row_widths``)."""
    m = rows.shape[0]
    start = 0
    for w in widths:
        for j in range(m):
            dst[start * m + j * w : start * m + (j + 1) * w] = src[
                start * n + rows[j] * w : start * n + (rows[j] + 1) * w
            ]
        start += w


_ROW_WIDTHS = _build_row_widths()


def mix_cdf(size: int, weights: tuple[float, ...] | None = None) -> np.ndarray:
    """float64[size - 1]: the cumulative weights of a mix's rule sets, for ``searchsorted``.

    Raises:
        ValueError: a weight count other than ``size``, a negative or non-finite weight, or
            weights summing to zero.
    """
    w = np.ones(size) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (size,):
        raise ValueError(f"a rules mix of {size} rule sets needs {size} weights, got {w.size}")
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"rules mix weights must be finite, >= 0 and not all 0, got {w.tolist()}")
    return np.cumsum(w / w.sum())[:-1]


# ---------------------------------------------------------------- kernels
@inline_kernel
def _ensure_deadwood(
    i: int,
    hands: np.ndarray,
    current: np.ndarray,
    phase: np.ndarray,
    dw: np.ndarray,
    dw_stale: np.ndarray,
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    remaining: np.ndarray,
) -> None:
    """Fill game i's discard deadwoods if stale (``NO_DEADWOOD`` outside ``DISCARD``)."""
    if not dw_stale[i]:
        return
    if phase[i] == _DISCARD:
        smask, ranks, suits, n_opt, idx, removed = work
        total = hand_suit_masks(hands[i, current[i]], smask)
        hand_discard_deadwood(smask, total, ranks, suits, n_opt, idx, removed, remaining, dw[i])
    else:
        dw[i, :] = NO_DEADWOOD
    dw_stale[i] = False


@inline_kernel
def _may_knock(hand: np.ndarray, limit: int, smask: np.ndarray) -> bool:
    """A cheap necessary condition for a knock with some discard of an 11-card hand.

    A card in no possible meld (no 3 of its rank, no 3 consecutive ranks of its suit
    around it) is deadwood in every arrangement, with or without any discard; the best
    a discard can do is throw the most valuable of them. If the rest exceed the limit,
    no discard allows a knock.
    """
    hand_suit_masks(hand, smask)
    a, b, c, d = smask[0], smask[1], smask[2], smask[3]
    set_rank_mask = (a & b & (c | d)) | (c & d & (a | b))  # ranks held in 3+ suits
    loose_all = 0
    loose_value = 0
    for s in range(4):
        loose = smask[s] & ~RUN_COVER[smask[s]] & ~set_rank_mask
        loose_value += MASK_VALUE[loose]
        loose_all |= loose
    # card values never fall with rank: the top loose card is of the highest loose rank
    top = 0
    if loose_all:
        high = N_RANKS - 1
        while not (loose_all >> high) & 1:
            high -= 1
        top = RANK_VALUE[high]
    return loose_value - top <= limit


@inline_kernel
def _fill_masks(
    hands: np.ndarray,
    pile_size: np.ndarray,
    current: np.ndarray,
    phase: np.ndarray,
    must_draw: np.ndarray,
    taken: np.ndarray,
    mask: np.ndarray,
    mask_stale: np.ndarray,
    dw_stale: np.ndarray,
    dw: np.ndarray,
    rules: np.ndarray,
    allow_rediscard: bool,
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    remaining: np.ndarray,
) -> None:
    """Compute the legal actions of every game whose mask is stale.

    In ``DISCARD`` it also fills the discard deadwoods where a knock is possible. One
    loop over the batch, inlined into the engine's kernels, with the arrays bound once
    outside the loop: a per-game helper taking them (or the state's tuple of views) would
    pay a reference count per array and game, several times the cost of a drawing game's
    mask.
    ``work`` and ``remaining`` are the meld kernels' scratch arrays, allocated once by
    the caller.
    """
    for i in range(phase.shape[0]):
        if not mask_stale[i]:
            continue
        mask[i, :] = False
        p = phase[i]
        if p == _OFFER:
            mask[i, TAKE] = True
            mask[i, PASS] = True
        elif p == _DRAW:
            mask[i, DRAW] = True
            if not must_draw[i] and pile_size[i] > 0:
                mask[i, TAKE] = True
        elif p == _DISCARD:
            hand = hands[i, current[i]]
            limit = rules[_R_LIMIT, i]
            # the discard deadwoods only where a knock is possible at all (``_may_knock``);
            # otherwise they stay stale until ``discard_deadwood`` asks for them
            knockable = not dw_stale[i] or _may_knock(hand, limit, work[0])
            if knockable:
                _ensure_deadwood(i, hands, current, phase, dw, dw_stale, work, remaining)
            for c in range(N_CARDS):
                mask[i, c] = hand[c]
            if not allow_rediscard and taken[i] >= 0:
                mask[i, taken[i]] = False
            if knockable:
                for c in range(N_CARDS):
                    mask[i, KNOCK + c] = mask[i, c] and dw[i, c] <= limit
            if rules[_R_BIG, i]:
                smask, ranks, suits, n_opt, idx, removed = work
                total = hand_suit_masks(hand, smask)
                dead = hand_min_deadwood(smask, total, ranks, suits, n_opt, idx, removed, remaining)
                if dead == 0:
                    for c in range(N_CARDS):
                        mask[i, KNOCK + c] = hand[c]
        mask_stale[i] = False


@inline_kernel
def _masks_of(
    sv: tuple[np.ndarray, ...],
    cv: tuple[np.ndarray, ...],
    allow_rediscard: bool,
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    remaining: np.ndarray,
) -> None:
    """``_fill_masks`` over a state's and a cache's views."""
    _fill_masks(
        sv[2], sv[4], sv[9], sv[10], sv[12], sv[13], cv[0], cv[1], cv[2], cv[4], cv[6],
        allow_rediscard, work, remaining,
    )  # fmt: skip


@kernel
def _refresh_masks(
    b: np.ndarray,
    i8: np.ndarray,
    i16: np.ndarray,
    i64: np.ndarray,
    cb: np.ndarray,
    ci: np.ndarray,
    n: int,
    allow_rediscard: bool,
) -> None:
    """Recompute the legal actions of every game whose mask is stale."""
    sv, cv = _state_views(b, i8, i16, i64, n), _cache_views(cb, ci, n)
    _masks_of(sv, cv, allow_rediscard, scratch(), np.zeros(4, np.int64))


@kernel
def _deadwood_rows(
    b: np.ndarray,
    i8: np.ndarray,
    i16: np.ndarray,
    i64: np.ndarray,
    cb: np.ndarray,
    ci: np.ndarray,
    n: int,
    rows: np.ndarray,
) -> None:
    """Fill the stale discard deadwoods of the games ``rows``."""
    sv = _state_views(b, i8, i16, i64, n)
    cv = _cache_views(cb, ci, n)
    work = scratch()
    remaining = np.zeros(4, np.int64)
    for i in rows:
        _ensure_deadwood(i, sv[2], sv[9], sv[10], cv[4], cv[2], work, remaining)


@kernel
def _hand_deadwood_rows(
    b: np.ndarray,
    i8: np.ndarray,
    i16: np.ndarray,
    i64: np.ndarray,
    cb: np.ndarray,
    ci: np.ndarray,
    n: int,
    rows: np.ndarray,
    seats: np.ndarray,
    out: np.ndarray,
) -> None:
    """The minimum deadwood of seat ``seats[j]`` in game ``rows[j]`` (cached per hand)."""
    sv = _state_views(b, i8, i16, i64, n)
    cv = _cache_views(cb, ci, n)
    hands, hd_stale, hd = sv[2], cv[3], cv[5]
    smask, ranks, suits, n_opt, idx, removed = scratch()
    remaining = np.zeros(4, np.int64)
    for j in range(rows.shape[0]):
        i, p = rows[j], seats[j]
        if hd_stale[i, p]:
            total = hand_suit_masks(hands[i, p], smask)
            hd[i, p] = hand_min_deadwood(smask, total, ranks, suits, n_opt, idx, removed, remaining)
            hd_stale[i, p] = False
        out[j] = hd[i, p]


@kernel
def _step_rows(
    b: np.ndarray,
    i8: np.ndarray,
    i16: np.ndarray,
    i64: np.ndarray,
    cb: np.ndarray,
    ci: np.ndarray,
    n: int,
    actions: np.ndarray,
    active: np.ndarray,
    allow_rediscard: bool,
    max_turns: int,
    ended: np.ndarray,
) -> tuple[int, int]:
    """Check then apply one action per live game; ``ended`` marks the hands that end.

    Returns:
        ``(first illegal game, illegal count)``; ``(-1, 0)`` when every action was legal
        (nothing is applied otherwise).
    """
    sv = _state_views(b, i8, i16, i64, n)
    cv = _cache_views(cb, ci, n)
    (deck, stock_pos, hands, pile, pile_size, in_pile, known, discards, dealer, current,
     phase, passes, must_draw, taken, turns, outcome, winner, points, knocker, k_dead,
     d_dead, layoffs, k_sets, k_runs, d_sets, d_runs) = sv  # fmt: skip
    mask, mask_stale, dw_stale, hd_stale, dw, hd, rules = cv
    work = scratch()
    remaining = np.zeros(4, np.int64)
    _masks_of(sv, cv, allow_rediscard, work, remaining)
    first_bad, bad = -1, 0
    for i in range(n):
        if phase[i] == _OVER or not active[i]:
            continue
        a = actions[i]
        if a < 0 or a >= N_ACTIONS or not mask[i, a]:
            if first_bad < 0:
                first_bad = i
            bad += 1
    if bad:
        return first_bad, bad
    out = np.zeros(4, np.int64)
    out_masks = np.zeros((4, 4), np.int64)
    with_discard = np.zeros(N_CARDS, np.bool_)
    for i in range(n):
        ended[i] = False
        if phase[i] == _OVER or not active[i]:
            continue
        a = actions[i]
        seat = current[i]
        if a == PASS:
            passes[i] += 1
            if passes[i] >= 2:
                current[i] = 1 - dealer[i]
                phase[i] = _DRAW
                must_draw[i] = True
            else:
                current[i] = dealer[i]
        elif a == TAKE:
            pile_size[i] -= 1
            card = pile[i, pile_size[i]]
            in_pile[i, card] = False
            hands[i, seat, card] = True
            known[i, seat, card] = True
            taken[i] = card
            phase[i] = _DISCARD
        elif a == DRAW:
            card = deck[i, stock_pos[i]]
            stock_pos[i] += 1
            hands[i, seat, card] = True
            taken[i] = -1
            must_draw[i] = False
            phase[i] = _DISCARD
        else:
            card = a % N_CARDS
            # the hand left by a discard has the deadwood its discard entry says
            if not dw_stale[i]:
                hd[i, seat] = dw[i, card]
                hd_stale[i, seat] = False
            else:
                hd_stale[i, seat] = True
            hands[i, seat, card] = False
            known[i, seat, card] = False
            discards[i, seat, card] = True
            pile[i, pile_size[i]] = card
            pile_size[i] += 1
            in_pile[i, card] = True
            taken[i] = -1
            turns[i] += 1
            if a < KNOCK:
                if stock_pos[i] >= N_CARDS - STOCK_LEFT_AT_DRAW:
                    outcome[i] = _DRAWN
                    phase[i] = _OVER
                elif turns[i] >= max_turns:
                    outcome[i] = _TRUNCATED
                    phase[i] = _OVER
                else:
                    current[i] = 1 - seat
                    phase[i] = _DRAW
            else:
                big = False
                if rules[_R_BIG, i]:
                    with_discard[:] = hands[i, seat]
                    with_discard[card] = True
                    smask, ranks, suits, n_opt, idx, removed = work
                    total = hand_suit_masks(with_discard, smask)
                    big = (
                        hand_min_deadwood(
                            smask, total, ranks, suits, n_opt, idx, removed, remaining
                        )
                        == 0
                    )
                    if big:  # a big gin keeps all 11 cards: take the discard back
                        pile_size[i] -= 1
                        in_pile[i, card] = False
                        hands[i, seat, card] = True
                        discards[i, seat, card] = False
                        hd_stale[i, seat] = True
                limit = 0 if big else rules[_R_LIMIT, i]
                knock_row(
                    hands[i, seat], hands[i, 1 - seat], limit, big, rules[_R_GIN, i],
                    rules[_R_UNDERCUT, i], rules[_R_BIG_BONUS, i], out, out_masks, layoffs[i],
                )  # fmt: skip
                phase[i] = _OVER
                knocker[i] = seat
                wins = out[3] == 1
                winner[i] = seat if wins else 1 - seat
                points[i] = abs(out[2])
                if big:
                    outcome[i] = _BIG_GIN
                elif out[0] == 0:
                    outcome[i] = _GIN
                elif not wins:
                    outcome[i] = _UNDERCUT
                else:
                    outcome[i] = _KNOCKED
                k_dead[i] = out[0]
                d_dead[i] = out[1]
                k_sets[i, :] = out_masks[0]
                k_runs[i, :] = out_masks[1]
                d_sets[i, :] = out_masks[2]
                d_runs[i, :] = out_masks[3]
        if a in (DRAW, TAKE):
            hd_stale[i, seat] = True
        dw_stale[i] = True
        mask_stale[i] = True
        ended[i] = phase[i] == _OVER
    # the next step needs the masks of the games that moved: compute them now, in this call
    _masks_of(sv, cv, allow_rediscard, work, remaining)
    return -1, 0


@kernel
def _deal_rows(
    b: np.ndarray,
    i8: np.ndarray,
    i16: np.ndarray,
    i64: np.ndarray,
    cb: np.ndarray,
    ci: np.ndarray,
    n: int,
    rows: np.ndarray,
    seeds: np.ndarray,
    counter: np.ndarray,
    decks: np.ndarray,
    dealers: np.ndarray,
    allow_rediscard: bool,
) -> None:
    """Deal a hand in each game ``rows[j]`` and advance its hand counter.

    The deck is ``decks[j]`` when ``decks`` has rows, else the game's seeded shuffle of
    (seed, hand counter) (``keys.shuffled_decks``); the dealer is ``dealers[j]`` when
    ``dealers`` has entries, else the low bit of the game's ``DEALER`` hash stream.
    """
    sv = _state_views(b, i8, i16, i64, n)
    cv = _cache_views(cb, ci, n)
    (deck, stock_pos, hands, pile, pile_size, in_pile, known, discards, dealer, current,
     phase, passes, must_draw, taken, turns, outcome, winner, points, knocker, k_dead,
     d_dead, layoffs, k_sets, k_runs, d_sets, d_runs) = sv  # fmt: skip
    mask_stale, dw_stale, hd_stale = cv[1], cv[2], cv[3]
    keys = np.zeros(N_CARDS, np.uint64)
    work = scratch()
    remaining = np.zeros(4, np.int64)
    for j in range(rows.shape[0]):
        i = rows[j]
        hand_no = np.uint64(counter[i])
        if decks.shape[0]:
            deck[i, :] = decks[j]
        else:
            shuffle_one(seeds[i], hand_no, keys, deck[i])
        if dealers.shape[0]:
            d = dealers[j]
        else:
            d = np.int8(hash_one(seeds[i], hand_no, np.uint64(_DEALER_SALT)) & np.uint64(1))
        counter[i] += 1
        hands[i, :, :] = False
        known[i, :, :] = False
        discards[i, :, :] = False
        in_pile[i, :] = False
        layoffs[i, :] = False
        pile[i, :] = 0
        for c in range(HAND_SIZE):
            hands[i, 1 - d, deck[i, c]] = True
            hands[i, d, deck[i, HAND_SIZE + c]] = True
        pile[i, 0] = deck[i, UPCARD]
        pile_size[i] = 1
        in_pile[i, deck[i, UPCARD]] = True
        stock_pos[i] = STOCK_START
        dealer[i] = d
        current[i] = 1 - d
        phase[i] = _OFFER
        passes[i] = 0
        must_draw[i] = False
        taken[i] = -1
        turns[i] = 0
        outcome[i] = 0
        winner[i] = -1
        points[i] = 0
        knocker[i] = -1
        k_dead[i] = 0
        d_dead[i] = 0
        k_sets[i, :] = 0
        k_runs[i, :] = 0
        d_sets[i, :] = 0
        d_runs[i, :] = 0
        dw_stale[i] = True
        hd_stale[i, :] = True
        mask_stale[i] = True
    _masks_of(sv, cv, allow_rediscard, work, remaining)


class GinEngine:
    """N hands of gin rummy played in lock step (docs/rules.md §3 "A hand (round)").

    Args:
        n: number of games in the batch.
        rules: the rules options: one ``RulesConfig`` for every game, or a mix (a
            sequence of them differing only in ``config.PER_GAME_FIELDS``), each game
            playing one of them (``rule_ids``).
        seed: an int (game i uses ``seed + i``), a uint64[N] array of per-game seeds,
            or None for fresh entropy.
        weights: with a mix, the relative frequency of each rule set (default: equal).

    Attributes:
        rules: the options every game shares (the mix's first rule set; with one rule
            set, that one). Read the per-game options from ``hand_rules``.
        mix: the rule sets of the batch (a tuple of one without a mix).
        rule_ids: int64[N], the index in ``mix`` of each game's rule set: drawn from the
            game's seed at first, then by ``choose_rules`` (the tables call it at the
            start of each episode) or set by ``set_rule_ids``.
        hand_rules: the per-game options of ``rule_ids`` as arrays (``HandRules``).

    Typical use::

        eng = GinEngine(1024, seed=0)
        eng.reset()
        while not eng.all_over:
            eng.step(policy(eng.legal_action_mask()))
    """

    def __init__(
        self,
        n: int,
        rules: RulesConfig | RulesMix | None = None,
        seed: SeedLike = None,
        weights: tuple[float, ...] | None = None,
    ) -> None:
        if n < 1:
            raise ValueError(f"the batch needs at least one game, got n={n}")
        self.n = n
        self.mix = check_mix(RulesConfig() if rules is None else rules)
        self.rules = self.mix[0]
        self._allow_rediscard = bool(self.rules.allow_rediscard)
        self._max_turns = int(self.rules.max_turns_per_hand)
        self._mix_cdf = mix_cdf(len(self.mix), weights)
        self._seeds = np.ascontiguousarray(game_seeds(seed, n), dtype=np.uint64)
        self.rule_ids = np.zeros(n, dtype=np.int64)
        self.hand_rules = HandRules.of(self.mix, self.rule_ids)
        self._hand_counter = np.zeros(n, dtype=np.int64)
        self._state = HandState.empty(n)
        self._buffers = self._state.packed()
        # Per-game caches, recomputed only for games whose state changed since: the
        # legal actions, the discard deadwoods (``discard_deadwood``), the minimum
        # deadwood per seat (``hand_deadwood``), each with its stale flags; and the
        # per-game rules as one int64 block for the kernels.
        self._caches = (
            np.zeros(_CACHE_ROW[0] * n, dtype=bool),
            np.zeros(_CACHE_ROW[1] * n, dtype=np.int64),
        )
        (
            self._mask, self._mask_stale, self._deadwood_stale, self._hand_deadwood_stale,
            self._deadwood, self._hand_deadwood, self._rules,
        ) = _cache_views(*self._caches, n)  # fmt: skip
        self._active_all = np.ones(n, dtype=bool)
        self._stale = True  # some game's mask may be stale (``invalidate``)
        self._all_rows = np.arange(n)
        self._step_kernel: Callable[..., tuple[int, int]] | None = None
        self._deal_kernel: Callable[..., None] | None = None
        self._deadwood[:] = NO_DEADWOOD
        self.invalidate()
        self.set_rule_ids(np.arange(n), self.rule_ids)
        self.choose_rules(np.arange(n), np.zeros(n, dtype=np.int64))

    @classmethod
    def from_state(
        cls, state: HandState, rules: RulesConfig | None = None, seed: SeedLike = 0
    ) -> GinEngine:
        """An engine whose N games start from ``state`` (N = its rows), e.g. mid-hand.

        The state is used as is (not copied; a state of loose arrays is packed first,
        see ``HandState.packed``); build one with
        ``hgin_env.engine.position.position_state``, which checks it. ``seed`` only
        matters for later ``reset`` calls.
        """
        engine = cls(state.size, rules, seed)
        engine.state = state
        return engine

    @property
    def seeds(self) -> np.ndarray:
        """uint64[N]: each game's seed (assigning writes into the engine's array)."""
        return self._seeds

    @seeds.setter
    def seeds(self, value: np.ndarray) -> None:
        self._seeds[...] = value

    @property
    def hand_counter(self) -> np.ndarray:
        """int64[N]: hands dealt so far per game (assigning writes into the engine's array)."""
        return self._hand_counter

    @hand_counter.setter
    def hand_counter(self, value: np.ndarray) -> None:
        self._hand_counter[...] = value

    @property
    def state(self) -> HandState:
        """The ``HandState`` of the N games (edit it in place, then call ``invalidate``)."""
        return self._state

    @state.setter
    def state(self, state: HandState) -> None:
        if state.size != self.n:
            raise ValueError(f"the engine plays {self.n} games; the state holds {state.size}")
        self._buffers = state.packed()
        self._state = state
        self.invalidate()

    @property
    def storage(
        self,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The state's four buffers and the two cache buffers, as the kernels take them.

        For kernels outside this module that step or read the games (``n`` follows them
        in each kernel's arguments); they are the engine's own arrays, not copies.
        """
        return (*self._buffers, *self._caches)

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> np.ndarray:
        """int8[N]: the seat to act."""
        return self.state.current

    @property
    def dealer(self) -> np.ndarray:
        """int8[N]: the seat that dealt the current hand."""
        return self.state.dealer

    @property
    def phase(self) -> np.ndarray:
        """int8[N]: each game's ``Phase``."""
        return self.state.phase

    @property
    def over(self) -> np.ndarray:
        """bool[N]: hands that have ended."""
        return self._state.phase == _OVER

    @property
    def all_over(self) -> bool:
        """Whether every hand in the batch has ended."""
        return bool(self.over.all())

    @property
    def stock_size(self) -> np.ndarray:
        """int[N]: cards left in the stock."""
        return self.stock_sizes()

    def stock_sizes(self, rows: np.ndarray | None = None) -> np.ndarray:
        """int[M]: cards left in the stock of the games ``rows`` (default: all N)."""
        pos = self.state.stock_pos if rows is None else self.state.stock_pos[rows]
        return N_CARDS - pos.astype(np.int64)

    @property
    def top_discard(self) -> np.ndarray:
        """int[N]: the card on top of the discard pile, -1 if the pile is empty."""
        return self.top_discards()

    def top_discards(self, rows: np.ndarray | None = None) -> np.ndarray:
        """int[M]: the top of the discard pile of the games ``rows`` (default: all; -1: empty)."""
        s = self.state
        rows = np.arange(self.n) if rows is None else np.asarray(rows, dtype=np.int64)
        size = s.pile_size[rows].astype(np.int64)
        top = s.pile[rows, np.maximum(size - 1, 0)].astype(np.int64)
        return np.where(size > 0, top, -1)

    def game_rules(self, i: int) -> RulesConfig:
        """The rule set game ``i`` plays under."""
        return self.mix[int(self.rule_ids[i])]

    def set_rule_ids(self, rows: np.ndarray, ids: np.ndarray) -> None:
        """Let the games ``rows`` play under ``mix[ids[j]]`` (best done before a deal).

        Raises:
            ValueError: an id outside the mix.
        """
        rows = np.asarray(rows, dtype=np.int64)
        ids = np.broadcast_to(np.asarray(ids, dtype=np.int64), rows.shape)
        chosen = HandRules.of(self.mix, ids)
        self.hand_rules.assign(rows, chosen)
        table = self._rules
        table[_R_LIMIT, rows] = chosen.knock_limit
        table[_R_GIN, rows] = chosen.gin_bonus
        table[_R_UNDERCUT, rows] = chosen.undercut_bonus
        table[_R_BIG, rows] = chosen.big_gin
        table[_R_BIG_BONUS, rows] = chosen.big_gin_bonus
        self.rule_ids[rows] = ids
        self.invalidate(rows)

    def choose_rules(self, rows: np.ndarray, counter: np.ndarray) -> None:
        """Draw the rule sets of the games ``rows`` from their seeds and ``counter`` (int[M]).

        The draw depends on (seed, counter) alone, so a game gets the same rule set
        alone, in any batch, or in a worker process. Without a mix it does nothing.
        """
        if len(self.mix) == 1:
            return
        rows = np.asarray(rows, dtype=np.int64)
        bits = hash_stream(self.seeds[rows], np.asarray(counter), salt=Salt.RULES_MIX)
        uniform = (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
        self.set_rule_ids(rows, np.searchsorted(self._mix_cdf, uniform, side="right"))

    def discard_deadwood(self, rows: np.ndarray | None = None) -> np.ndarray:
        """For games in ``DISCARD``, the deadwood left by discarding each card.

        Args:
            rows: int[M] games to report (default: all N).

        Returns:
            int64[M, 52]; ``NO_DEADWOOD`` for cards not held and for games in another
            phase. Computed once per game state (a per-game cache; this is a copy).
        """
        want = np.arange(self.n) if rows is None else np.asarray(rows, dtype=np.int64)
        _deadwood_rows(*self._buffers, *self._caches, self.n, want)
        return self._deadwood.copy() if rows is None else self._deadwood[want]

    def hand_deadwood(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """int64[M]: the minimum deadwood of seat ``seats[j]``'s hand in game ``rows[j]``.

        Cached per (game, seat) until that hand changes.
        """
        rows, seats = np.broadcast_arrays(
            np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        )
        out = np.zeros(rows.shape, dtype=np.int64)
        _hand_deadwood_rows(
            *self._buffers, *self._caches, self.n, rows.ravel(), seats.ravel(), out.reshape(-1)
        )
        return out

    def legal_action_mask(self, copy: bool = True) -> np.ndarray:
        """bool[N, 107]: the legal actions of the seat to act (all false once a hand is over).

        Args:
            copy: return a copy (default). ``False`` returns the engine's per-game cache
                itself, recomputed in place only where a game changed: faster, but it must
                not be modified or kept across steps.
        """
        if self._stale:
            _refresh_masks(*self._buffers, *self._caches, self.n, self._allow_rediscard)
            self._stale = False
        return self._mask.copy() if copy else self._mask

    def invalidate(self, rows: np.ndarray | None = None) -> None:
        """Drop the cached masks of the given games (all by default) after editing state."""
        sel = slice(None) if rows is None else rows
        self._mask_stale[sel] = True
        self._deadwood_stale[sel] = True
        self._hand_deadwood_stale[sel] = True
        self._stale = True

    # ------------------------------------------------------------------ reset
    def reset(
        self,
        mask: np.ndarray | None = None,
        decks: np.ndarray | None = None,
        dealers: np.ndarray | int | None = None,
    ) -> None:
        """Deal a new hand in the selected games.

        Args:
            mask: bool[N], games to deal (default: all).
            decks: int[N, 52] or int[52] deck orders (see module docstring); default:
                each game's seeded shuffle.
            dealers: int seat or int[N] seats dealing; default: drawn from each game's seed.

        Raises:
            ValueError: if a deck is not a permutation of 0..51 or a dealer not 0/1.
        """
        rows = self._all_rows if mask is None else np.flatnonzero(np.asarray(mask, bool))
        if rows.size == 0:
            return
        deck = _NO_DECKS
        if decks is not None:
            deck = np.broadcast_to(np.asarray(decks), (self.n, N_CARDS))[rows]
            if not (np.sort(deck, axis=1) == np.arange(N_CARDS)).all():
                raise ValueError("each deck must be a permutation of the card ids 0..51")
            deck = np.ascontiguousarray(deck, dtype=np.int8)
        dealer = _NO_DEALERS
        if dealers is not None:
            dealer = np.broadcast_to(np.asarray(dealers), (self.n,))[rows]
            if not np.isin(dealer, (0, 1)).all():
                raise ValueError(f"dealers must be seat 0 or 1, got {np.unique(dealer)}")
            dealer = np.ascontiguousarray(dealer, dtype=np.int8)
        # the hand counters advance in the kernel, once the arguments are known to be valid
        if self._deal_kernel is None:
            self._deal_kernel = entry_point(
                _deal_rows, *self._buffers, *self._caches, self.n, rows, self.seeds,
                self.hand_counter, deck, dealer, self._allow_rediscard,
            )  # fmt: skip
        self._deal_kernel(
            *self._buffers, *self._caches, self.n, rows, self.seeds, self.hand_counter, deck,
            dealer, self._allow_rediscard,
        )  # fmt: skip

    # ------------------------------------------------------------------ step
    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """Apply one action per game; games whose hand is over (or not active) ignore theirs.

        Args:
            actions: int[N] action ids (see ``hgin_env.engine.actions``).
            active: bool[N], the games that move (default: all); the others wait.

        Returns:
            bool[N]: the hands that ended with this step.

        Raises:
            ValueError: naming the game index and the action when an action is illegal.
        """
        actions = np.asarray(actions).reshape(-1)
        if actions.shape != (self.n,):
            raise ValueError(f"expected {self.n} actions (one per game), got shape {actions.shape}")
        if actions.dtype is not _INT64 or not actions.flags.c_contiguous:
            kind = actions.dtype.kind
            if kind not in "iu":  # signed or unsigned integers
                raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
            if kind == "u":  # ids past int64 stay out of range
                actions = np.minimum(actions, N_ACTIONS)
            actions = np.ascontiguousarray(actions, dtype=np.int64)
        if active is None:
            moving = self._active_all
        else:
            moving = np.ascontiguousarray(active, dtype=bool).reshape(-1)
            if moving.shape != (self.n,):
                raise ValueError(f"expected {self.n} active flags, got shape {moving.shape}")
        ended = np.zeros(self.n, dtype=bool)
        if self._step_kernel is None:
            self._step_kernel = entry_point(
                _step_rows, *self._buffers, *self._caches, self.n, actions, moving,
                self._allow_rediscard, self._max_turns, ended,
            )  # fmt: skip
        first_bad, bad = self._step_kernel(
            *self._buffers, *self._caches, self.n, actions, moving, self._allow_rediscard,
            self._max_turns, ended,
        )  # fmt: skip
        if bad:
            mask = self._mask[first_bad]
            phase = Phase(int(self.state.phase[first_bad])).name
            seat = int(self.state.current[first_bad])
            raise ValueError(
                illegal_action_message(actions[first_bad], mask, phase, f"game {first_bad}: ", seat)
                + (f" ({bad} games had illegal actions)" if bad > 1 else "")
            )
        return ended

    # ------------------------------------------------------------------ checks
    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if any game's state is inconsistent (for tests and debugging).

        Checks: every card is in exactly one place (stock, a hand, the pile), hand sizes
        fit the phase, and a live hand has at least one legal action.
        """
        s = self.state
        n = self.n
        dealt = np.flatnonzero(s.pile_size > 0)
        where = s.hands[dealt].sum(axis=1).astype(np.int64)  # [D, 52]: copies in the hands
        r = np.arange(dealt.size)
        in_pile = np.arange(N_CARDS)[None, :] < s.pile_size[dealt, None]
        np.add.at(
            where, (np.broadcast_to(r[:, None], in_pile.shape)[in_pile], s.pile[dealt][in_pile]), 1
        )
        in_stock = np.arange(N_CARDS)[None, :] >= s.stock_pos[dealt, None]
        np.add.at(
            where,
            (np.broadcast_to(r[:, None], in_stock.shape)[in_stock], s.deck[dealt][in_stock]),
            1,
        )
        pile_mask = np.zeros((dealt.size, N_CARDS), dtype=bool)
        pile_mask[np.broadcast_to(r[:, None], in_pile.shape)[in_pile], s.pile[dealt][in_pile]] = (
            True
        )
        assert (pile_mask == s.in_pile[dealt]).all(), "in_pile disagrees with the pile"
        bad = dealt[(where != 1).any(axis=1)]
        assert bad.size == 0, f"game {int(bad[0])}: a card is missing or in two places"
        sizes = s.hands.sum(axis=2)
        live = s.phase != Phase.OVER
        acting = s.current.astype(np.int64)
        in_discard = s.phase == Phase.DISCARD
        want = np.where(in_discard, 11, 10)
        got = sizes[np.arange(n), acting]
        assert (got[live] == want[live]).all(), "the acting seat holds the wrong number of cards"
        assert (sizes[np.arange(n), 1 - acting][live] == 10).all(), "the waiting seat != 10 cards"
        mask = self.legal_action_mask()
        assert (mask[live].any(axis=1)).all(), "a live hand has no legal action"
        assert not mask[~live].any(), "a finished hand has legal actions"

"""The batched round engine: N independent hands of gin played in lock step.

One call of ``step`` applies one action in every live hand; every rule step is a
function over boolean row masks (``is_pass``, ``is_take``, ``stock_exhausted``),
never a Python loop over the batch.

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

from dataclasses import dataclass, fields
from enum import IntEnum

import numpy as np

from hgin_env.engine.actions import (
    DRAW,
    KNOCK,
    N_ACTIONS,
    PASS,
    TAKE,
    illegal_action_message,
)
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import HandRules, RulesConfig, RulesMix, check_mix
from hgin_env.engine.keys import Salt, SeedLike, game_seeds, hash_stream, shuffled_decks
from hgin_env.engine.knock import resolve_knocks
from hgin_env.engine.melds import (
    NO_DEADWOOD,
    deadwood_after_discard,
    knock_discards,
    min_deadwood,
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


# plain ints for the hot path (IntEnum attribute access is slow)
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


@dataclass
class HandState:
    """State of N hands; every field has the batch as its leading axis. Seats are 0 and 1."""

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

    @classmethod
    def empty(cls, n: int) -> HandState:
        """Allocate the arrays for n hands (all ``OVER`` until reset)."""
        z = np.zeros
        return cls(
            deck=z((n, N_CARDS), np.int8),
            stock_pos=z(n, np.int16),
            hands=z((n, 2, N_CARDS), bool),
            pile=z((n, N_CARDS), np.int8),
            pile_size=z(n, np.int16),
            in_pile=z((n, N_CARDS), bool),
            known=z((n, 2, N_CARDS), bool),
            discards=z((n, 2, N_CARDS), bool),
            dealer=z(n, np.int8),
            current=z(n, np.int8),
            phase=np.full(n, Phase.OVER, np.int8),
            passes=z(n, np.int8),
            must_draw_stock=z(n, bool),
            taken=np.full(n, -1, np.int8),
            turns=z(n, np.int16),
            outcome=z(n, np.int8),
            winner=np.full(n, -1, np.int8),
            points=z(n, np.int16),
            knocker=np.full(n, -1, np.int8),
            knocker_deadwood=z(n, np.int16),
            defender_deadwood=z(n, np.int16),
            layoffs=z((n, N_CARDS), bool),
            knocker_sets=z((n, 4), np.int64),
            knocker_runs=z((n, 4), np.int64),
            defender_sets=z((n, 4), np.int64),
            defender_runs=z((n, 4), np.int64),
        )

    def rows(self, index: np.ndarray) -> HandState:
        """A copy of the selected hands (index: int or bool array over the batch)."""
        return HandState(**{f.name: getattr(self, f.name)[index].copy() for f in fields(self)})


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
        self._mix_cdf = mix_cdf(len(self.mix), weights)
        self.seeds = game_seeds(seed, n)
        self.rule_ids = np.zeros(n, dtype=np.int64)
        self.hand_rules = HandRules.of(self.mix, self.rule_ids)
        self.hand_counter = np.zeros(n, dtype=np.int64)  # hands dealt so far per game
        self.state = HandState.empty(n)
        # Per-row caches, recomputed only for rows whose state changed since.
        self._mask = np.zeros((n, N_ACTIONS), dtype=bool)  # legal actions
        self._mask_stale = np.ones(n, dtype=bool)
        self._deadwood = np.full((n, N_CARDS), NO_DEADWOOD, dtype=np.int64)  # discard_deadwood
        self._deadwood_stale = np.ones(n, dtype=bool)
        self._hand_deadwood = np.zeros((n, 2), dtype=np.int64)  # min deadwood per seat
        self._hand_deadwood_stale = np.ones((n, 2), dtype=bool)
        self.choose_rules(np.arange(n), np.zeros(n, dtype=np.int64))

    @classmethod
    def from_state(
        cls, state: HandState, rules: RulesConfig | None = None, seed: SeedLike = 0
    ) -> GinEngine:
        """An engine whose N games start from ``state`` (N = its rows), e.g. mid-hand.

        The state is used as is (not copied); build one with
        ``hgin_env.engine.position.position_state``, which checks it. ``seed`` only
        matters for later ``reset`` calls.
        """
        engine = cls(int(state.phase.shape[0]), rules, seed)
        engine.state = state
        engine.invalidate()
        return engine

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
        return self.state.phase == _OVER

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
        self.hand_rules.assign(rows, HandRules.of(self.mix, ids))
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
        want = self._deadwood_stale if rows is None else np.zeros(self.n, bool)
        if rows is not None:
            want[rows] = self._deadwood_stale[rows]
        todo = want.nonzero()[0]
        if todo.size:
            s = self.state
            self._deadwood[todo] = NO_DEADWOOD
            discarding = todo[s.phase[todo] == _DISCARD]
            if discarding.size:
                hands = s.hands[discarding, s.current[discarding]]
                self._deadwood[discarding] = deadwood_after_discard(hands)
            self._deadwood_stale[todo] = False
        return self._deadwood.copy() if rows is None else self._deadwood[rows]

    def hand_deadwood(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """int64[M]: the minimum deadwood of seat ``seats[j]``'s hand in game ``rows[j]``.

        Cached per (game, seat) until that hand changes.
        """
        rows = np.asarray(rows, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        stale = self._hand_deadwood_stale[rows, seats]
        if stale.any():
            r, p = rows[stale], seats[stale]
            self._hand_deadwood[r, p] = min_deadwood(self.state.hands[r, p])
            self._hand_deadwood_stale[r, p] = False
        return self._hand_deadwood[rows, seats]

    def legal_action_mask(self, copy: bool = True) -> np.ndarray:
        """bool[N, 107]: the legal actions of the seat to act (all false once a hand is over).

        Args:
            copy: return a copy (default). ``False`` returns the engine's per-game cache
                itself, recomputed in place only where a game changed: faster, but it must
                not be modified or kept across steps.
        """
        todo = self._mask_stale.nonzero()[0]
        if todo.size:
            self._mask[todo] = self._compute_mask(todo)
            self._mask_stale[todo] = False
        return self._mask.copy() if copy else self._mask

    def invalidate(self, rows: np.ndarray | None = None) -> None:
        """Drop the cached masks of the given games (all by default) after editing state."""
        sel = slice(None) if rows is None else rows
        self._mask_stale[sel] = True
        self._deadwood_stale[sel] = True
        self._hand_deadwood_stale[sel] = True

    def _compute_mask(self, rows: np.ndarray) -> np.ndarray:
        """bool[M, 107]: the legal actions in the games ``rows``."""
        s = self.state
        phase = s.phase[rows]
        mask = np.zeros((rows.size, N_ACTIONS), dtype=bool)
        is_offer = phase == _OFFER
        is_draw = phase == _DRAW
        mask[is_offer, TAKE] = True
        mask[is_offer, PASS] = True
        mask[is_draw, DRAW] = True
        mask[is_draw & ~s.must_draw_stock[rows] & (s.pile_size[rows] > 0), TAKE] = True
        sub = (phase == _DISCARD).nonzero()[0]
        if sub.size:
            g = rows[sub]
            hand = s.hands[g, s.current[g]]
            may_discard = hand.copy()
            if not self.rules.allow_rediscard:
                has_taken = s.taken[g] >= 0
                may_discard[has_taken, s.taken[g][has_taken]] = False
            mask[sub, :N_CARDS] = may_discard
            known = ~self._deadwood_stale[g]
            limit = self.hand_rules.knock_limit[g]
            knockable = np.empty_like(hand)
            knockable[known] = self._deadwood[g[known]] <= limit[known, None]
            knockable[~known] = knock_discards(hand[~known], limit[~known])
            may_knock = may_discard & knockable
            on = self.hand_rules.big_gin[g].nonzero()[0]
            if on.size:
                big = on[min_deadwood(hand[on]) == 0]
                may_knock[big] = hand[big]
            mask[sub, KNOCK : KNOCK + N_CARDS] = may_knock
        return mask

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
        rows = np.arange(self.n) if mask is None else np.flatnonzero(np.asarray(mask, bool))
        if rows.size == 0:
            return
        counter = self.hand_counter[rows]
        if decks is None:
            deck = shuffled_decks(self.seeds[rows], counter)
        else:
            deck = np.broadcast_to(np.asarray(decks), (self.n, N_CARDS))[rows]
            if not (np.sort(deck, axis=1) == np.arange(N_CARDS)).all():
                raise ValueError("each deck must be a permutation of the card ids 0..51")
            deck = deck.astype(np.int8)
        if dealers is None:
            dealer = (hash_stream(self.seeds[rows], counter, Salt.DEALER) & np.uint64(1)).astype(
                np.int8
            )
        else:
            dealer = np.broadcast_to(np.asarray(dealers), (self.n,))[rows]
            if not np.isin(dealer, (0, 1)).all():
                raise ValueError(f"dealers must be seat 0 or 1, got {np.unique(dealer)}")
            dealer = dealer.astype(np.int8)
        self.hand_counter[rows] += 1  # only once the arguments are known to be valid
        fresh = HandState.empty(rows.size)
        fresh.deck = deck
        r = np.arange(rows.size)
        non_dealer = 1 - dealer
        fresh.hands[r[:, None], non_dealer[:, None], deck[:, :HAND_SIZE]] = True
        fresh.hands[r[:, None], dealer[:, None], deck[:, HAND_SIZE:UPCARD]] = True
        fresh.pile[:, 0] = deck[:, UPCARD]
        fresh.pile_size[:] = 1
        fresh.in_pile[r, deck[:, UPCARD]] = True
        fresh.stock_pos[:] = STOCK_START
        fresh.dealer = dealer
        fresh.current = non_dealer.astype(np.int8)
        fresh.phase[:] = Phase.OFFER
        for f in fields(HandState):
            getattr(self.state, f.name)[rows] = getattr(fresh, f.name)
        self.invalidate(rows)

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
        if actions.dtype.kind not in "iu":  # signed or unsigned integers
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        s = self.state
        live = s.phase != _OVER
        if active is not None:
            live &= np.asarray(active, dtype=bool)
        self._check_legal(actions, live)
        a = actions.astype(np.int64)
        mover = s.current.astype(np.int64)
        self._apply_pass(live & (a == PASS))
        self._apply_take(live & (a == TAKE))
        self._apply_draw(live & (a == DRAW))
        is_discard = live & (a < KNOCK)
        is_knock = live & (a >= KNOCK) & (a < DRAW)
        cards = a % N_CARDS
        # a discard from a hand whose discard deadwoods are cached leaves a known deadwood
        known_after = ((is_discard | is_knock) & ~self._deadwood_stale).nonzero()[0]
        self._apply_discard(is_discard | is_knock, cards)
        self._end_turn(is_discard)
        self._resolve_knock(is_knock, cards)
        self._mask_stale |= live
        self._deadwood_stale |= live
        changed = live & (a != PASS)  # a pass leaves both hands as they were
        self._hand_deadwood_stale[changed, mover[changed]] = True
        if known_after.size:
            self._keep_hand_deadwood(known_after, mover[known_after], cards[known_after])
        return live & (s.phase == _OVER)

    def _keep_hand_deadwood(self, rows: np.ndarray, seats: np.ndarray, cards: np.ndarray) -> None:
        """Cache the hand deadwood of seats that discarded ``cards`` from a cached hand.

        When a hand's ``discard_deadwood`` was cached, the deadwood of the hand left by a
        discard is that discard's entry. A big gin keeps its discard, so it is skipped.
        """
        gone = ~self.state.hands[rows, seats, cards]
        rows, seats = rows[gone], seats[gone]
        self._hand_deadwood[rows, seats] = self._deadwood[rows, cards[gone]]
        self._hand_deadwood_stale[rows, seats] = False

    def _check_legal(self, actions: np.ndarray, live: np.ndarray) -> None:
        in_range = (actions >= 0) & (actions < N_ACTIONS)
        mask = self.legal_action_mask(copy=False)
        ok = in_range & mask[np.arange(self.n), np.where(in_range, actions, 0)]
        bad = (live & ~ok).nonzero()[0]
        if bad.size:
            i = int(bad[0])
            phase = Phase(int(self.state.phase[i])).name
            seat = int(self.state.current[i])
            raise ValueError(
                illegal_action_message(actions[i], mask[i], phase, f"game {i}: ", seat)
                + (f" ({bad.size} games had illegal actions)" if bad.size > 1 else "")
            )

    def _apply_pass(self, is_pass: np.ndarray) -> None:
        """First-turn offer: the non-dealer passes to the dealer; two passes start play."""
        s = self.state
        s.passes[is_pass] += 1
        both = is_pass & (s.passes >= 2)
        s.current[is_pass] = np.where(both, 1 - s.dealer, s.dealer)[is_pass]
        s.phase[both] = _DRAW
        s.must_draw_stock[both] = True

    def _apply_take(self, is_take: np.ndarray) -> None:
        """Take the top of the discard pile (the upcard on the first turn)."""
        s = self.state
        rows = is_take.nonzero()[0]
        if rows.size == 0:
            return
        s.pile_size[rows] -= 1
        card = s.pile[rows, s.pile_size[rows]]
        s.in_pile[rows, card] = False
        seat = s.current[rows]
        s.hands[rows, seat, card] = True
        s.known[rows, seat, card] = True
        s.taken[rows] = card
        s.phase[rows] = _DISCARD

    def _apply_draw(self, is_draw: np.ndarray) -> None:
        """Draw the top card of the stock."""
        s = self.state
        rows = is_draw.nonzero()[0]
        if rows.size == 0:
            return
        card = s.deck[rows, s.stock_pos[rows]]
        s.stock_pos[rows] += 1
        s.hands[rows, s.current[rows], card] = True
        s.taken[rows] = -1
        s.must_draw_stock[rows] = False
        s.phase[rows] = _DISCARD

    def _apply_discard(self, is_discard: np.ndarray, cards: np.ndarray) -> None:
        """Move the chosen card from the hand to the top of the discard pile."""
        s = self.state
        rows = is_discard.nonzero()[0]
        if rows.size == 0:
            return
        card = cards[rows]
        seat = s.current[rows]
        s.hands[rows, seat, card] = False
        s.known[rows, seat, card] = False
        s.discards[rows, seat, card] = True
        s.pile[rows, s.pile_size[rows]] = card
        s.pile_size[rows] += 1
        s.in_pile[rows, card] = True
        s.taken[rows] = -1
        s.turns[rows] += 1

    def _end_turn(self, is_discard: np.ndarray) -> None:
        """After a plain discard: a drawn hand, a truncated hand, or the other seat's turn."""
        s = self.state
        stock_exhausted = is_discard & (s.stock_pos >= N_CARDS - STOCK_LEFT_AT_DRAW)
        too_long = is_discard & ~stock_exhausted & (s.turns >= self.rules.max_turns_per_hand)
        goes_on = is_discard & ~stock_exhausted & ~too_long
        s.outcome[stock_exhausted] = _DRAWN
        s.outcome[too_long] = _TRUNCATED
        s.phase[stock_exhausted | too_long] = _OVER
        s.current[goes_on] = 1 - s.current[goes_on]
        s.phase[goes_on] = _DRAW

    def _resolve_knock(self, is_knock: np.ndarray, cards: np.ndarray) -> None:
        """Score the knocks of this step (docs/rules.md §3 "Knocking", "Scoring one hand")."""
        s = self.state
        rows = is_knock.nonzero()[0]
        if rows.size == 0:
            return
        seat = s.current[rows]
        knocker = s.hands[rows, seat]
        rules = self.hand_rules.rows(rows)
        big_gin = None
        if rules.big_gin.any():
            with_discard = knocker.copy()
            with_discard[np.arange(rows.size), cards[rows]] = True
            big_gin = rules.big_gin & (min_deadwood(with_discard) == 0)
            knocker = np.where(big_gin[:, None], with_discard, knocker)
            # a big gin keeps all 11 cards: take the discard back from the pile
            back = rows[big_gin]
            s.pile_size[back] -= 1
            s.in_pile[back, cards[back]] = False
            s.hands[back, seat[big_gin], cards[back]] = True
            s.discards[back, seat[big_gin], cards[back]] = False
        res = resolve_knocks(knocker, s.hands[rows, 1 - seat], rules, big_gin=big_gin)
        s.phase[rows] = _OVER
        s.knocker[rows] = seat
        s.winner[rows] = np.where(res.knocker_wins, seat, 1 - seat)
        s.points[rows] = res.points
        s.outcome[rows] = np.select(
            [res.big_gin, res.gin, res.undercut],
            [Outcome.BIG_GIN, Outcome.GIN, Outcome.UNDERCUT],
            Outcome.KNOCK,
        )
        s.knocker_deadwood[rows] = res.knocker_deadwood
        s.defender_deadwood[rows] = res.defender_deadwood
        s.layoffs[rows] = res.layoffs
        s.knocker_sets[rows] = res.knocker_set_cards
        s.knocker_runs[rows] = res.knocker_run_cards
        s.defender_sets[rows] = res.defender_set_cards
        s.defender_runs[rows] = res.defender_run_cards

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

"""An engine checker over seeded play: every state and transition checked against the rules.

``EngineChecker`` steps a ``GinEngine`` and, after every step, checks the state against
docs/rules.md §3 with code written apart from the engine: every card in exactly one
place, hand sizes, the legal-action mask rebuilt from the state, each transition (what a
pass, take, draw, discard or knock must change, and nothing else), how hands end and how
they are scored, optionally with a sample of knocks re-scored by an independent scorer.
Like pgx's ``api_test``, it ships with the library so that a user who changes the rules
or drives the engine in a new way can run it; failures are ``AssertionError``s naming
what broke (do not run it under ``python -O``).

Usage::

    checker = EngineChecker(GinEngine(256, RulesConfig(), seed=0))
    for _ in range(500):
        checker.step(checker.engine.legal_action_mask().argmax(axis=1))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from hgin_env.engine.actions import DRAW, KNOCK, N_ACTIONS, PASS, TAKE
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, HandState, Outcome, Phase
from hgin_env.engine.melds import min_deadwood

#: an independent knock scorer: (knocker's cards, defender's cards, rules) ->
#: (knocker deadwood, defender deadwood, points)
Rescore = Callable[[list[int], list[int], RulesConfig], Sequence[int]]

FIELDS = [f.name for f in dataclasses.fields(HandState)]
KNOCKED = (Outcome.KNOCK, Outcome.GIN, Outcome.UNDERCUT, Outcome.BIG_GIN)


def rows_equal(a: HandState, b: HandState) -> np.ndarray:
    """bool[N]: the games whose state is equal in every field of two hand states."""
    same = np.ones(a.deck.shape[0], dtype=bool)
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        same &= (x == y).reshape(x.shape[0], -1).all(axis=1)
    return same


class EngineChecker:
    """Steps a ``GinEngine`` and checks its state and every transition against the rules.

    Args:
        engine: the engine to drive; it is reset here.
        reference_knocks: how many knocks to re-score with ``rescore``.
        rescore: an independent scorer of knocks, ``rescore(knocker, defender, rules)``
            with the two hands as lists of card ids, returning ``(knocker_deadwood,
            defender_deadwood, points)`` (the test suite passes its brute-force
            reference); None re-scores nothing.

    Attributes:
        actions: player actions applied so far (live games only).
        outcomes: int[7] count of finished hands per ``Outcome``.
    """

    def __init__(
        self,
        engine: GinEngine,
        reference_knocks: int = 20,
        rescore: Rescore | None = None,
    ) -> None:
        self.engine = engine
        self.rescore = rescore
        self.rules = engine.rules
        self.actions = 0
        self.outcomes = np.zeros(len(Outcome), dtype=np.int64)
        self.reference_left = reference_knocks
        engine.reset()
        self.check_fresh(np.ones(engine.n, dtype=bool))
        self.check_state()

    # ------------------------------------------------------------------ driving
    def step(self, actions: np.ndarray) -> np.ndarray:
        """Apply one action per game, check everything, and re-deal the finished hands."""
        eng = self.engine
        before = eng.state.rows(np.arange(eng.n))
        self.check_mask(before, eng.legal_action_mask(), eng.discard_deadwood())
        live = before.phase != Phase.OVER
        ended = eng.step(actions)
        assert np.array_equal(ended, live & eng.over), "step() must return the hands it ended"
        self.actions += int(live.sum())
        self.check_transition(before, np.asarray(actions, dtype=np.int64), live)
        self.check_state()
        np.add.at(self.outcomes, eng.state.outcome[ended], 1)
        if eng.over.any():
            over = eng.over.copy()
            eng.reset(mask=over)
            self.check_fresh(over)
            self.check_state()
        return ended

    # ------------------------------------------------------------------ state checks
    def check_state(self) -> None:
        """Invariants of the current state of every game."""
        eng, s, n = self.engine, self.engine.state, self.engine.n
        eng.check_invariants()
        # every card in exactly one place: a hand, the pile, the stock
        count = s.hands.sum(axis=1).astype(np.int64)
        batch = np.broadcast_to(np.arange(n)[:, None], (n, N_CARDS))
        slot = np.arange(N_CARDS)[None, :]
        in_pile = slot < s.pile_size[:, None]
        np.add.at(count, (batch[in_pile], s.pile[in_pile]), 1)
        in_stock = slot >= s.stock_pos[:, None]
        np.add.at(count, (batch[in_stock], s.deck[in_stock]), 1)
        bad = np.flatnonzero((count != 1).any(axis=1))
        assert bad.size == 0, f"game {bad[:1]}: a card is missing or in two places"
        # the stock never runs below two; nothing counts past the turn limit
        assert (eng.stock_size >= 2).all()
        assert (s.turns <= self.rules.max_turns_per_hand).all()
        # the pile top reported is the pile's last card
        top = np.where(s.pile_size > 0, s.pile[np.arange(n), np.maximum(s.pile_size - 1, 0)], -1)
        assert np.array_equal(eng.top_discard, top)
        # hand sizes: the acting seat holds 11 while it must discard, everyone else 10
        sizes = s.hands.sum(axis=2)
        acting = s.current.astype(np.int64)
        live = ~eng.over
        want = np.where(s.phase == Phase.DISCARD, 11, 10)
        assert (sizes[np.arange(n), acting][live] == want[live]).all()
        assert (sizes[np.arange(n), 1 - acting][live] == 10).all()
        big = eng.over & (s.outcome == Outcome.BIG_GIN)
        knocker_size = sizes[np.arange(n), np.maximum(s.knocker, 0)]
        assert (knocker_size[big] == 11).all()
        assert (sizes[~big & eng.over] == 10).all()
        # live games: a legal action; finished games: none and a final outcome
        mask = eng.legal_action_mask()
        assert mask[live].any(axis=1).all(), "a live hand has no legal action"
        assert not mask[~live].any(), "a finished hand has legal actions"
        assert (s.outcome[live] == Outcome.NONE).all()
        assert (s.outcome[~live] != Outcome.NONE).all()
        # cards a seat took from the pile and still holds are in its hand
        assert not (s.known & ~s.hands).any()

    def check_fresh(self, rows: np.ndarray) -> None:
        """A freshly dealt hand follows the deck order contract."""
        s = self.engine.state
        for i in np.flatnonzero(rows):
            deck, dealer = s.deck[i].astype(np.int64), int(s.dealer[i])
            assert sorted(deck.tolist()) == list(range(N_CARDS))
            assert set(np.flatnonzero(s.hands[i, 1 - dealer])) == set(deck[:10].tolist())
            assert set(np.flatnonzero(s.hands[i, dealer])) == set(deck[10:20].tolist())
            assert int(s.pile_size[i]) == 1 and int(s.pile[i, 0]) == deck[20]
            assert int(s.stock_pos[i]) == 21
            assert int(s.current[i]) == 1 - dealer
            assert int(s.phase[i]) == Phase.OFFER
            assert int(s.passes[i]) == 0 and int(s.turns[i]) == 0
            assert int(s.taken[i]) == -1 and int(s.winner[i]) == -1

    def check_mask(self, s: HandState, mask: np.ndarray, dead: np.ndarray) -> None:
        """The legal-action mask, rebuilt from the rules for each phase."""
        n = s.deck.shape[0]
        want = np.zeros((n, N_ACTIONS), dtype=bool)
        offer = s.phase == Phase.OFFER
        draw = s.phase == Phase.DRAW
        want[offer, TAKE] = want[offer, PASS] = True
        want[draw, DRAW] = True
        want[draw & ~s.must_draw_stock, TAKE] = True
        assert (s.pile_size[draw] > 0).all()
        assert not (s.must_draw_stock & ~draw).any()
        rows = np.flatnonzero(s.phase == Phase.DISCARD)
        hand = s.hands[rows, s.current[rows]]
        may = hand.copy()
        if not self.rules.allow_rediscard:
            taken = s.taken[rows]
            may[np.flatnonzero(taken >= 0), taken[taken >= 0]] = False
        per_game = self.engine.hand_rules.rows(rows)
        knock = may & (dead[rows] <= per_game.knock_limit[:, None])
        all_melded = per_game.big_gin & (min_deadwood(hand) == 0)
        knock[all_melded] = hand[all_melded]
        want[rows, :N_CARDS] = may
        want[rows, KNOCK:DRAW] = knock
        bad = np.flatnonzero((want != mask).any(axis=1))
        assert bad.size == 0, f"game {bad[0]}: mask differs from the rules"
        # the deadwood behind the knock mask, for one held card per game, recomputed
        if rows.size:
            rng = np.random.default_rng(int(s.turns.sum()))
            pick = (hand * rng.random(hand.shape)).argmax(axis=1)
            rest = hand.copy()
            rest[np.arange(rows.size), pick] = False
            assert np.array_equal(dead[rows, pick], min_deadwood(rest))

    def check_transition(self, b: HandState, a: np.ndarray, live: np.ndarray) -> None:
        """What each action must change, and that finished games change nothing."""
        eng, s, rules = self.engine, self.engine.state, self.rules
        n = eng.n
        r = np.arange(n)
        assert rows_equal(b, s)[~live].all(), "a finished hand changed"
        assert np.array_equal(s.deck, b.deck) and np.array_equal(s.dealer, b.dealer)
        seat = b.current.astype(np.int64)
        is_pass, is_take, is_draw = live & (a == PASS), live & (a == TAKE), live & (a == DRAW)
        is_discard = live & (a >= 0) & (a < KNOCK)
        is_knock = live & (a >= KNOCK) & (a < DRAW)
        card = np.where(is_discard | is_knock, a % N_CARDS, 0)
        # the stock shrinks by one card exactly on a draw
        assert np.array_equal(s.stock_pos - b.stock_pos, is_draw.astype(np.int64))

        # pass: to the dealer; the second pass makes the non-dealer draw from the stock
        second = is_pass & (b.passes == 1)
        assert (s.passes[is_pass] == b.passes[is_pass] + 1).all()
        assert (s.phase[is_pass & ~second] == Phase.OFFER).all()
        assert (s.current[is_pass & ~second] == b.dealer[is_pass & ~second]).all()
        assert (s.phase[second] == Phase.DRAW).all() and s.must_draw_stock[second].all()
        assert (s.current[second] == 1 - b.dealer[second]).all()

        # take: the pile's top card into the hand, remembered as taken
        top = b.pile[r, np.maximum(b.pile_size - 1, 0)].astype(np.int64)
        assert (s.pile_size[is_take] == b.pile_size[is_take] - 1).all()
        assert s.hands[r, seat, top][is_take].all()
        assert (s.taken[is_take] == top[is_take]).all()
        # draw: the stock's top card into the hand
        drawn = b.deck[r, np.minimum(b.stock_pos, N_CARDS - 1)].astype(np.int64)
        assert s.hands[r, seat, drawn][is_draw].all()
        assert (s.taken[is_draw] == -1).all() and not s.must_draw_stock[is_draw].any()
        moved = is_take | is_draw
        assert (s.phase[moved] == Phase.DISCARD).all()
        assert (s.current[moved] == b.current[moved]).all()
        assert (s.turns[moved | is_pass] == b.turns[moved | is_pass]).all()

        # discard and knock: the card leaves the hand for the top of the pile, one turn more
        placed = is_discard | (is_knock & (s.outcome != Outcome.BIG_GIN))
        assert not s.hands[r, seat, card][placed].any()
        assert (s.pile_size[placed] == b.pile_size[placed] + 1).all()
        assert (eng.top_discard[placed] == card[placed]).all()
        width = np.arange(N_CARDS)[None, :] < b.pile_size[:, None]
        assert ((s.pile == b.pile) | ~width)[placed | is_draw | is_pass].all()
        assert (s.turns[is_discard | is_knock] == b.turns[is_discard | is_knock] + 1).all()

        # the end of a turn: the other seat draws, or a drawn or truncated hand
        stock_out = is_discard & (eng.stock_size == 2)
        too_long = is_discard & ~stock_out & (s.turns >= rules.max_turns_per_hand)
        goes_on = is_discard & ~stock_out & ~too_long
        assert (s.outcome[stock_out] == Outcome.DRAW).all()
        assert (s.outcome[too_long] == Outcome.TRUNCATED).all()
        assert (s.phase[goes_on] == Phase.DRAW).all()
        assert (s.current[goes_on] == 1 - b.current[goes_on]).all()
        nobody = stock_out | too_long
        assert (s.winner[nobody] == -1).all() and (s.points[nobody] == 0).all()
        assert (s.knocker[nobody] == -1).all()
        self.check_knocks(b, is_knock, card)

    def check_knocks(self, b: HandState, is_knock: np.ndarray, card: np.ndarray) -> None:
        """A knock ends the hand and is scored as docs/rules.md §3 "Scoring one hand" says."""
        s = self.engine.state
        for i in np.flatnonzero(is_knock):
            rules = self.engine.game_rules(int(i))
            seat = int(b.current[i])
            outcome = Outcome(int(s.outcome[i]))
            k, d, points = int(s.knocker_deadwood[i]), int(s.defender_deadwood[i]), int(s.points[i])
            knocker = s.hands[i, seat]
            defender = s.hands[i, 1 - seat]
            assert int(s.phase[i]) == Phase.OVER and int(s.knocker[i]) == seat
            assert outcome in KNOCKED
            assert np.array_equal(defender, b.hands[i, 1 - seat])
            if outcome == Outcome.BIG_GIN:
                assert rules.big_gin_bonus is not None
                assert np.array_equal(knocker, b.hands[i, seat])
                assert int(s.pile_size[i]) == int(b.pile_size[i])
            assert int(min_deadwood(knocker)) <= k <= rules.knock_limit
            assert (k == 0) == (outcome in (Outcome.GIN, Outcome.BIG_GIN))
            assert 0 <= d <= int(min_deadwood(defender))
            layoffs = s.layoffs[i]
            assert not (layoffs & ~defender).any()
            if outcome in (Outcome.GIN, Outcome.BIG_GIN):
                assert not layoffs.any() and d == int(min_deadwood(defender))
            winner = seat if outcome != Outcome.UNDERCUT else 1 - seat
            assert int(s.winner[i]) == winner
            expected = {
                Outcome.GIN: d + rules.gin_bonus,
                Outcome.BIG_GIN: d + (rules.big_gin_bonus or 0),
                Outcome.KNOCK: d - k,
                Outcome.UNDERCUT: rules.undercut_bonus + k - d,
            }[outcome]
            assert points == expected
            if outcome == Outcome.KNOCK:
                assert k < d
            if outcome == Outcome.UNDERCUT:
                assert k >= d
            if self.rescore is not None and self.reference_left > 0:
                self.reference_left -= 1
                got = self.rescore(
                    np.flatnonzero(knocker).tolist(), np.flatnonzero(defender).tolist(), rules
                )
                assert tuple(got) == (k, d, points), f"game {i}: {got} != {(k, d, points)}"

"""Hollywood series on the engine (docs/rules.md §3-4): dealer rotation and series ends.

Hands are written as card strings, as in ``test_game.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.actions import mixed_policy
from helpers.deck import (
    LOOSE,
    RUNS_AND_KS,
    SWAP_DEALER,
    draw_discard,
    make_deck,
    play_series,
    stock_cards,
    swap_actions,
)

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import Outcome, Phase
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.series import SeriesEngine

# --------------------------------------------------------------- dealer rotation

#: (id, first dealer, non-dealer, dealer, upcard, actions, winner role or None)
ROTATION = [
    ("knock_winner_non_dealer", 0, RUNS_AND_KS, LOOSE, "2S", ["take", "knock KS"], "nd"),
    ("gin_winner_dealer", 1, LOOSE, RUNS_AND_KS, "TH", ["pass", "take", "knock KS"], "d"),
    ("undercut_winner_defender", 0, "5S 5C 5H JD QD KD 2S 3S 4S 2D", RUNS_AND_KS, "9S",
     ["pass", "take", "knock KS"], "nd"),
    ("truncated", 1, RUNS_AND_KS, SWAP_DEALER, "QH", swap_actions(200), None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("first", "nd", "dealer", "upcard", "actions", "winner"),
    [r[1:] for r in ROTATION],
    ids=[r[0] for r in ROTATION],
)
def test_winner_deals_next_and_a_drawn_hand_keeps_the_dealer(
    first, nd, dealer, upcard, actions, winner
):
    """SeriesEngine: the hand's winner deals the next hand; after a no-score hand, same dealer."""
    series = SeriesEngine(1, seed=0)
    series.reset(first_dealers=first)
    series.engine.reset(decks=make_deck(nd, dealer, upcard)[None], dealers=first)
    steps = play_series(series, *actions)
    ended = [bool(s.hand_over[0]) for s in steps]
    assert ended == [False] * (len(actions) - 1) + [True]
    last = steps[-1].hands
    expected = first if winner is None else {"nd": 1 - first, "d": first}[winner]
    assert int(last.winner[0]) == (-1 if winner is None else expected)
    assert int(series.engine.dealer[0]) == expected
    # the next hand is dealt at once: the offer goes to the new non-dealer
    assert int(series.engine.phase[0]) == Phase.OFFER
    assert int(series.engine.current_player[0]) == 1 - expected


@pytest.mark.parametrize("first", [0, 1])
def test_stock_drawn_hand_keeps_the_dealer(first):
    """SeriesEngine: after a hand drawn at two stock cards, the same dealer deals again."""
    series = SeriesEngine(1, seed=0)
    series.reset(first_dealers=first)
    deck = make_deck(RUNS_AND_KS, LOOSE, "QS")
    series.engine.reset(decks=deck[None], dealers=first)
    steps = play_series(series, "pass", "pass", *draw_discard(stock_cards(deck), 29))
    assert bool(steps[-1].hand_over[0])
    assert int(steps[-1].hands.outcome[0]) == Outcome.DRAW
    assert int(series.engine.dealer[0]) == first
    assert series.sheets.scores.sum() == 0


def test_first_dealer_random_but_deterministic_per_seed():
    """The first dealer of a series is drawn from the seed: same seed same dealers, both occur."""
    a, b, c = SeriesEngine(64, seed=3), SeriesEngine(64, seed=3), SeriesEngine(64, seed=1000)
    for s in (a, b, c):
        s.reset()
    assert np.array_equal(a.engine.dealer, b.engine.dealer)
    assert set(a.engine.dealer.tolist()) == {0, 1}
    assert not np.array_equal(a.engine.dealer, c.engine.dealer)
    # series after the first keep drawing from the seed, still deterministic
    a.reset()
    b.reset()
    assert np.array_equal(a.engine.dealer, b.engine.dealer)


@pytest.mark.parametrize("stop_when_decided", [False, True])
def test_series_ends_when_the_score_sheet_says_so(stop_when_decided):
    """A series ends exactly when its sheet finishes; the sheet matches the hands played."""
    rules = RulesConfig(game_target=40, stop_when_decided=stop_when_decided)
    n = 16
    series = SeriesEngine(n, rules, seed=11)
    series.reset()
    shadow = ScoreSheets(n, rules)
    rng = np.random.default_rng(0)
    for _ in range(20_000):
        if series.finished.all():
            break
        was_finished = series.finished.copy()
        out = series.step(mixed_policy(series.engine, rng, greedy_prob=0.8))
        assert not (out.hand_over & was_finished).any()  # finished series play no more hands
        winners = np.full(n, -1)
        points = np.zeros(n, dtype=np.int64)
        winners[out.rows] = out.hands.winner
        points[out.rows] = out.hands.points
        assert np.array_equal(shadow.record(winners, points, mask=out.hand_over), out.series_over)
        assert np.array_equal(series.finished, shadow.finished)
        assert np.array_equal(series.sheets.scores, shadow.scores)
        # a finished series is left with its last hand over; a live one always has a live hand
        assert np.array_equal(series.engine.over, series.finished)
    assert series.finished.all()
    won = series.sheets.games_won.max(axis=1)
    if stop_when_decided:
        assert (won >= 2).all()
    else:
        assert (series.sheets.game_winners >= 0).all()


def test_restarting_finished_series_with_the_finished_mask_deals_a_new_hand():
    """series.reset(mask=series.finished) clears those sheets and deals each a fresh hand."""
    series = SeriesEngine(8, RulesConfig(game_target=20), seed=21)
    series.reset()
    rng = np.random.default_rng(1)
    while not series.finished.any():
        series.step(mixed_policy(series.engine, rng, greedy_prob=0.8))
    done = series.finished.copy()
    series.reset(mask=series.finished)
    assert not series.finished.any()
    assert (series.sheets.scores[done] == 0).all()
    assert (series.engine.phase[done] == Phase.OFFER).all()
    assert not series.engine.over.any()

"""``research.experiments.search_oracle``: worlds told the truth are the real position."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.search import search_decision

from agents.bots import SimpleBot
from agents.search.pimc import PimcPolicy, parse_params
from agents.search.worlds import believed_worlds, seen_position
from hgin_env.engine.game import GinEngine
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.policy import PolicyCall
from research.experiments.search_oracle import Oracle, Truth, tell_truth

G, W = 12, 6


def _series(seed: int) -> SeriesEngine:
    """Series after 9 decisions of ``simple`` on both sides (mid-hand positions)."""
    series = SeriesEngine(G, seed=seed)
    series.reset()
    bot = SimpleBot(seed)
    for _ in range(9):
        eng = series.engine
        series.step(bot.act(encode_observations(eng, eng.current_player, series.sheets),
                            eng.legal_action_mask()))  # fmt: skip
    return series


def test_told_worlds_hold_the_true_hand_and_keep_the_rest_of_each_world():
    """Each world: the opponent's real hand, the seat's own cards and pile, a stock of the rest."""
    series = _series(5)
    obs, masks, keys = search_decision(series)
    seen = seen_position(obs, masks, parse_params("worlds=6").rules)
    worlds, _ = believed_worlds(seen, keys, W)
    before = worlds.rows(np.arange(G * W))
    eng = series.engine
    me = eng.current_player.astype(np.int64)
    truth = eng.state.hands[np.arange(G), 1 - me]
    assert (worlds.hands[:, 1] != np.repeat(truth, W, axis=0)).any()  # not already true
    tell_truth(worlds, seen, truth)
    GinEngine.from_state(worlds).check_invariants()
    game = np.repeat(np.arange(G), W)
    assert np.array_equal(worlds.hands[:, 1], truth[game])
    assert np.array_equal(worlds.hands[:, 0], before.hands[:, 0])
    assert np.array_equal(worlds.in_pile, before.in_pile)
    assert np.array_equal(worlds.stock_pos, before.stock_pos)
    for row in range(G * W):  # the stock: the world's own order of the cards left in it
        pos = int(worlds.stock_pos[row])
        stock = worlds.deck[row, pos:].astype(np.int64)
        assert not truth[game[row]][stock].any()
        old = list(before.deck[row, pos:]) + list(
            np.flatnonzero(before.hands[row, 1] & ~seen.opponent_known[game[row]])
        )
        assert list(stock) == [c for c in old if not truth[game[row]][c]]


def test_a_searched_game_is_matched_to_its_table_game_or_refused():
    """``Truth`` finds each searched game's table game by what the seat sees, in any order."""
    series = _series(6)
    obs, masks, _ = search_decision(series)
    seen = seen_position(obs, masks, parse_params("worlds=6").rules)
    eng = series.engine
    me = eng.current_player.astype(np.int64)
    truth = Truth()
    truth.set(obs, eng, me)
    assert np.array_equal(truth.lookup(seen), eng.state.hands[np.arange(G), 1 - me])
    order = np.arange(G)[::-1]  # the searched games in another order than the table's
    shuffled = seen_position(obs[order], masks[order], parse_params("worlds=6").rules)
    assert np.array_equal(truth.lookup(shuffled), eng.state.hands[order, 1 - me[order]])
    seen.hand[0] = ~seen.hand[0]  # a position no table game is in
    with pytest.raises(RuntimeError, match="matches no acting game"):
        truth.lookup(seen)


def test_the_oracle_plays_legal_moves_and_searches_the_true_hands(monkeypatch):
    """Through a table's acting seats: legal actions, every searched world told the truth."""
    from agents.search import pimc

    monkeypatch.setattr(pimc, "believed_worlds", pimc.believed_worlds)
    monkeypatch.setattr(pimc, "sample_worlds", pimc.sample_worlds)
    series = _series(7)
    eng = series.engine
    a_seat = eng.current_player.astype(np.int64)  # A is the seat to act in every game
    search = PimcPolicy(parse_params("worlds=4,top=3,belief=deadwood"), seed=1)
    oracle = Oracle(search, lambda: series.engine, a_seat)
    told: list[np.ndarray] = []
    real = pimc.believed_worlds

    def spy(seen, *args, **kwargs):
        out = real(seen, *args, **kwargs)
        told.append(out[0].hands[:, 1].copy())
        return out

    monkeypatch.setattr(pimc, "believed_worlds", spy)
    obs, masks, keys = search_decision(series)
    actions = PolicyCall.of(oracle)(obs, masks, keys=keys)
    assert masks[np.arange(G), actions].all()
    assert told, "the search sampled no worlds"
    opponents = {h.tobytes() for h in eng.state.hands[np.arange(G), 1 - a_seat]}
    assert all(row.tobytes() in opponents for batch in told for row in batch)

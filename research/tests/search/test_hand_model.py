"""The learned belief: the shipped hand model, its worlds, and the experiment that builds it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers.search import search_decision, simple_positions

from agents.search.worlds import sample_worlds, seen_position, world_keys
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import HAND_SIZE
from research.experiments import hand_model as experiment
from research.search import hand_model
from research.search.hand_model import (
    N_FEATURES,
    HandModel,
    read_hand_model,
    shipped_hand_model,
)


def _midhand(n: int, plies: int, seed: int):
    """Series after ``plies`` decisions of ``simple``; the seats to act, as ``SeenPosition``."""
    series = simple_positions(n, plies, seed)
    obs, masks, keys = search_decision(series)
    eng = series.engine
    live = np.flatnonzero(~eng.over & (masks.sum(axis=1) > 1))
    seen = seen_position(obs[live], masks[live], RulesConfig())
    truth = eng.state.hands[live, 1 - eng.current_player[live].astype(np.int64)]
    return seen, keys[live], truth


def _log_loss(p: np.ndarray, truth: np.ndarray, unseen: np.ndarray) -> float:
    """Mean log-loss of the chances ``p`` over the unseen cards."""
    q = np.clip(p, 1e-6, 1 - 1e-6)
    loss = -(truth * np.log(q) + (~truth) * np.log(1 - q))
    return float(loss[unseen].mean())


def test_the_shipped_model_knows_more_than_a_uniform_deal():
    """On positions it never saw, its chances beat hidden/unseen; they add up to the hand."""
    seen, _, truth = _midhand(64, 30, seed=71)
    model = shipped_hand_model()
    p = model.marginals(seen)
    hidden = HAND_SIZE - seen.opponent_known.sum(axis=1)
    assert np.allclose(p.sum(axis=1), hidden) and (p[~seen.unseen] == 0).all()
    uniform = np.where(seen.unseen, (hidden / seen.unseen.sum(axis=1))[:, None], 0.0)
    truth = truth & seen.unseen
    assert _log_loss(p, truth, seen.unseen) < _log_loss(uniform, truth, seen.unseen) - 0.01
    assert (model.logits(seen)[~seen.unseen] == hand_model.NOT_UNSEEN).all()


def test_scores_deal_the_cards_they_favour_and_keep_the_seat_blind():
    """A card scored far above the rest is in every world's opponent hand, one far below in none."""
    seen, keys, _ = _midhand(8, 12, seed=5)
    scores = np.zeros((keys.size, N_CARDS))
    first, last = seen.unseen.argmax(axis=1), N_CARDS - 1 - seen.unseen[:, ::-1].argmax(axis=1)
    rows = np.arange(keys.size)
    scores[rows, first], scores[rows, last] = 60.0, -60.0
    worlds = sample_worlds(seen, world_keys(keys, 16), scores=scores)
    held = worlds.hands[:, 1].reshape(keys.size, 16, N_CARDS)
    assert held[rows, :, first].all() and not held[rows, :, last].any()
    # the stock holds the other unseen cards, each world its own order
    stock = worlds.deck.reshape(keys.size, 16, N_CARDS)
    assert len({stock[0, w].tobytes() for w in range(16)}) > 1
    assert np.array_equal(held.sum(axis=2), np.full((keys.size, 16), HAND_SIZE))


def test_a_file_that_is_not_a_model_is_refused_by_name(tmp_path):
    """A corrupt file, a wrong shape: one error naming the file or the layer."""
    bad = tmp_path / "broken.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="broken.npz is not a hand model"):
        read_hand_model(bad)
    w = np.zeros((N_FEATURES, 8), np.float32)
    with pytest.raises(ValueError, match="layer 1"):
        HandModel(((w, np.zeros(8, np.float32)), (w, np.zeros(8, np.float32))))
    with pytest.raises(ValueError, match="52 logits"):
        HandModel(((w, np.zeros(8, np.float32)),))


def test_a_tiny_run_writes_a_model_the_search_reads_and_repeats_itself(monkeypatch, tmp_path):
    """Two bots, 2 hands a pair, one epoch: a model file, its held-out table, the same twice."""
    monkeypatch.setattr(experiment, "STYLES", ("simple", "expert"))
    runs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.npz"
        argv = ["--hands", "4", "--held-out", "2", "--epochs", "1", "--rows", "20"]
        experiment.main([*argv, "--worlds", "4", "--seed", "3", "--out", str(out)])
        runs.append(read_hand_model(out))
    a, b = runs
    pairs = zip(a.weights, b.weights, strict=True)
    assert all(np.array_equal(x, y) for la, lb in pairs for x, y in zip(la, lb, strict=True))
    about = json.loads(a.about)
    assert about["styles"] == ["simple", "expert"]
    table = about["held_out"]
    assert set(table) == {"simple", "expert"}
    assert set(experiment.BELIEFS) <= set(table["simple"])
    seen, _, _ = _midhand(4, 6, seed=2)
    assert a.logits(seen).shape == (seen.hand.shape[0], N_CARDS)

"""The bots' compiled features against the numpy code they replaced (``helpers.bot_reference``)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import bot_reference as ref

from agents.bots.features import expected_after_draw, random_best_deadwood, sample_melds
from hgin_env.engine.cards import CARD_VALUE, N_CARDS, card_text, parse_card_list


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``bool[n, 52]``: n random hands of ``size`` cards."""
    order = np.argsort(rng.random((n, N_CARDS)), axis=1)
    hands = np.zeros((n, N_CARDS), bool)
    np.put_along_axis(hands, order[:, :size], True, axis=1)
    return hands


def test_sample_melds_matches_the_argsort_reference():
    """Same meld cards and contradiction counts as sorting numpy's Gumbel priorities."""
    rng = np.random.default_rng(11)
    g, s = 40, 16
    log_w = np.log1p((10 - CARD_VALUE) / 9.0)
    for _ in range(5):
        seen = rng.random((g, N_CARDS)) < 0.45
        known = seen & (rng.random((g, N_CARDS)) < 0.15)
        unseen = ~seen
        hidden = np.maximum(10 - known.sum(axis=1), 0).astype(np.int64)
        hidden[0] = 60  # more to draw than unseen cards: every unseen card is drawn
        hidden[1] = 0
        keys = rng.integers(0, 2**64, size=g, dtype=np.uint64)
        passed = seen & ~known & (rng.random((g, N_CARDS)) < 0.3)
        thrown = seen & ~known & ~passed & (rng.random((g, N_CARDS)) < 0.3)
        limit = rng.integers(1, 11, size=g).astype(np.int64)
        got = sample_melds(
            keys, 104, s, log_w, unseen, hidden, known, passed, thrown, limit, 0.5, 1.0
        )
        priority = ref.sample_priorities(keys, 104, s, unseen, log_w)
        want = ref.sample_melds(priority, hidden, known, passed, thrown, limit, 0.5, 1.0)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("size", [10, 11, 14])
def test_random_best_deadwood_matches_the_scenario_reference(size):
    """The same unmelded cards as the numpy scenarios for every hand and uniform number."""
    rng = np.random.default_rng(size)
    hands = random_hands(rng, 3000, size)
    by_rank = np.zeros((40, N_CARDS), bool)  # many sets and runs: several best arrangements
    for i, text in enumerate(["8C 8D 8H 7C 9C KS", "4C 4D 4H 4S 5S 6S 3S 3C 2C AC 5C"] * 20):
        by_rank[i, parse_card_list(text)] = True
    hands = np.concatenate([hands, by_rank])
    uniforms = rng.random(hands.shape[0])
    uniforms[:10] = [0.0, 0.999999, 0.5, 0.25, 0.75, 0.1, 0.9, 0.33, 0.66, 0.01]
    got = random_best_deadwood(hands, uniforms)
    np.testing.assert_array_equal(got, ref.random_best_deadwood(hands, uniforms))


def test_expected_after_draw_matches_the_numpy_code():
    """The same float64 numbers, bit for bit, as the numpy closed form."""
    rng = np.random.default_rng(3)
    kept = random_hands(rng, 2000, 10)
    unseen = ~kept & (rng.random((2000, N_CARDS)) < 0.6)
    unseen[0] = False  # nothing unseen: the hand's deadwood
    got = expected_after_draw(kept, unseen)
    want = ref.expected_after_draw(kept, unseen)
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


def test_expected_after_draw_matches_brute_force():
    """The closed form for loose cards gives the plain mean of the one-card lookahead."""
    rng = np.random.default_rng(1)
    order = np.argsort(rng.random((40, N_CARDS)), axis=1)
    kept = np.zeros((40, N_CARDS), bool)
    np.put_along_axis(kept, order[:, :10], True, axis=1)
    unseen = np.zeros_like(kept)
    np.put_along_axis(unseen, order[:, 10:35], True, axis=1)
    fast = expected_after_draw(kept, unseen)
    for i in range(40):
        draws = np.flatnonzero(unseen[i])
        slow = ref.best_after_draws(np.repeat(kept[i : i + 1], draws.size, axis=0), draws).mean()
        assert fast[i] == pytest.approx(slow)


def test_best_deadwood_sets_lists_every_least_deadwood_arrangement():
    """8C 8D 8H 7C 9C: a set or a run, same deadwood; the two unmelded sets are found."""
    hand = np.zeros((1, N_CARDS), bool)
    hand[0, parse_card_list("8C 8D 8H 7C 9C KS")] = True
    deadwood, best = ref.best_deadwood_sets(hand)
    found = {
        frozenset(card_text(c) for c in range(N_CARDS) if (int(d) >> c) & 1)
        for d, b in zip(deadwood[0], best[0], strict=True)
        if b
    }
    assert found == {frozenset({"7C", "9C", "KS"}), frozenset({"8D", "8H", "KS"})}

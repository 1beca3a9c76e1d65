"""The expert's compiled opponent-hand sampling against a numpy reference."""

from __future__ import annotations

import numpy as np

from agents.bots.features import sample_melds
from hgin_env.engine.cards import CARD_VALUE, N_CARDS
from hgin_env.engine.melds import meld_with


def reference_sample_melds(priority, hidden, known, passed, thrown, limit, de, hde):
    """The samples by a full argsort of the priorities, then numpy counts (the oracle)."""
    g, s, _ = priority.shape
    unseen = np.isfinite(priority[:, 0, :])
    order = np.argsort(-priority, axis=2)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(N_CARDS)[None, None, :], axis=2)
    samples = (rank < hidden[:, None, None]) & unseen[:, None, :]
    samples |= known[:, None, :]
    melds = meld_with(samples.reshape(g * s, N_CARDS)).reshape(g, s, N_CARDS)
    contradictions = (
        (melds & passed[:, None, :]).sum(axis=2)
        + (melds & thrown[:, None, :]).sum(axis=2) * de
        + (~melds & known[:, None, :]).sum(axis=2)
    )
    loose = samples & ~melds & ~known[:, None, :]
    above = (loose & (CARD_VALUE[None, None, :] > limit[:, None, None])).sum(axis=2)
    return melds, contradictions + hde * above


def test_sample_melds_matches_the_argsort_reference():
    """Same meld cards and contradiction counts as sorting every sample's priorities."""
    rng = np.random.default_rng(11)
    g, s = 40, 16
    for _ in range(5):
        seen = rng.random((g, N_CARDS)) < 0.45
        known = seen & (rng.random((g, N_CARDS)) < 0.15)
        unseen = ~seen
        hidden = np.maximum(10 - known.sum(axis=1), 0).astype(np.int64)
        hidden[0] = 60  # more to draw than unseen cards: every unseen card is drawn
        hidden[1] = 0
        priority = np.where(unseen[:, None, :], rng.gumbel(size=(g, s, N_CARDS)), -np.inf)
        passed = seen & ~known & (rng.random((g, N_CARDS)) < 0.3)
        thrown = seen & ~known & ~passed & (rng.random((g, N_CARDS)) < 0.3)
        limit = rng.integers(1, 11, size=g).astype(np.int64)
        got = sample_melds(priority, hidden, known, passed, thrown, limit, 0.5, 1.0)
        want = reference_sample_melds(priority, hidden, known, passed, thrown, limit, 0.5, 1.0)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])

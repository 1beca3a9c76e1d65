"""The random policies' compiled pick against its definition, row by row."""

from __future__ import annotations

import numpy as np

from hgin_env.engine.keys import to_uniform
from hgin_env.envs.policy import RandomPolicy, keyed_random_legal_actions, random_legal_actions


def test_each_row_takes_the_floor_u_count_th_legal_action():
    """Row i: legal action number floor(u_i * count_i), u_i the key's top 53 bits."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 20))
        masks = rng.random((n, 107)) < rng.random((n, 1)) * 0.3
        keys = rng.integers(0, 2**64, size=n, dtype=np.uint64)
        keys[0] = rng.choice(np.array([0, 2**64 - 1, 2**63], dtype=np.uint64))
        got = keyed_random_legal_actions(masks, keys)
        for i in range(n):
            legal = np.flatnonzero(masks[i])
            u = float(to_uniform(keys[i : i + 1])[0])
            want = legal[int(u * legal.size)] if legal.size else -1
            assert got[i] == want


def test_the_generator_pick_takes_one_uniform_per_row_from_the_generator():
    """``random_legal_actions``: row i takes legal action floor(u_i * count_i), u from rng."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 20))
        masks = rng.random((n, 107)) < rng.random((n, 1)) * 0.3
        seed = int(rng.integers(2**32))
        got = random_legal_actions(masks, np.random.default_rng(seed))
        uniforms = np.random.default_rng(seed).random(n)
        for i in range(n):
            legal = np.flatnonzero(masks[i])
            want = legal[int(uniforms[i] * legal.size)] if legal.size else -1
            assert got[i] == want


def test_a_row_plays_the_same_alone_and_in_a_batch():
    """A row's action depends on its own mask and key alone."""
    rng = np.random.default_rng(6)
    masks = rng.random((64, 107)) < 0.1
    keys = rng.integers(0, 2**64, size=64, dtype=np.uint64)
    batch = RandomPolicy().act(None, masks, keys=keys)
    alone = [RandomPolicy().act(None, masks[i : i + 1], keys=keys[i : i + 1])[0] for i in range(64)]
    np.testing.assert_array_equal(batch, alone)

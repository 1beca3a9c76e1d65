"""The single-game core path (N = 1, Python scalars) against the batched path.

``GinCore.step`` and ``reset`` take a scalar path when the core holds one game; a batch
of several games takes the batched one. Game i of a batch seeded s must equal a single
game seeded s + i in every field of every step's result and in its observations, with
a keyed opponent and a bot, in hand and series mode, and with illegal actions penalized.
"""

from __future__ import annotations

import numpy as np
import pytest

from hgin_env.envs.core import GinCore, StepResult


def per_game(result: StepResult, i: int) -> dict:
    """The per-game fields of game ``i`` of a step's result."""
    return {name: getattr(result, name)[i] for name in StepResult.per_game_dtypes()}


@pytest.mark.parametrize(
    ("mode", "opponent", "autoreset"),
    [
        ("hand", "random", False),
        ("series", "random", False),
        ("hand", "simple", False),
        ("hand", "random", True),
        ("series", "simple", True),
    ],
)
def test_single_games_equal_the_games_of_a_batch(mode, opponent, autoreset):
    """Each step's result, observation, mask and counters match game i of the batch."""
    n = 4
    options = {"mode": mode, "illegal_action": "penalize", "agent_seat": "random"}
    batch = GinCore(n, opponent=opponent, seed=40, **options)
    singles = [GinCore(1, opponent=opponent, seed=40 + i, **options) for i in range(n)]
    batch.reset()
    for one in singles:
        one.reset()
    rng = np.random.default_rng(2)
    ended = 0
    for step in range(150):
        masks = batch.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        if step % 37 == 5:  # an illegal action now and then
            actions[step % n] = 106 if not masks[step % n, 106] else 0
        result = batch.step(actions, autoreset=autoreset)
        for i, one in enumerate(singles):
            r = one.step(actions[i : i + 1], autoreset=autoreset)
            assert per_game(r, 0) == per_game(result, i), (step, i)
            ended += int(r.terminated[0] or r.truncated[0])
            if autoreset:
                assert r.final_rows is not None and result.final_rows is not None
                at = np.flatnonzero(result.final_rows == i)
                np.testing.assert_array_equal(r.final_rows, np.zeros(at.size, np.int64))
                assert r.final_obs is not None and result.final_obs is not None
                np.testing.assert_array_equal(r.final_obs, result.final_obs[at])
        batch.reset(~batch.awaiting)
        for i, one in enumerate(singles):
            one.reset(~one.awaiting)
            np.testing.assert_array_equal(one.observe()[0], batch.observe()[i])
            np.testing.assert_array_equal(one.action_masks()[0], batch.action_masks()[i])
            assert one.redeals[0] == batch.redeals[i]
            assert one.agent_seat[0] == batch.agent_seat[i]
    assert ended >= n

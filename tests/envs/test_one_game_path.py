"""The single-game core path (N = 1, Python scalars) against the batched path.

``GinCore.step`` and ``reset`` take a scalar path when the core holds one game; a batch
of several games takes the batched one. Game i of a batch seeded s must equal a single
game seeded s + i in every field of every step's result and in its observations, with
a keyed opponent and a bot, in hand and series mode, and with illegal actions penalized.
The Gymnasium env (its compiled one-game steps, ``hgin_env.envs.one_game``) equals
game 0 of a batch in observations, rewards, episode ends and infos over thousands of
steps, in both modes and under several rules options.
"""

from __future__ import annotations

import numpy as np
import pytest

from hgin_env.envs.core import GinCore, StepResult
from hgin_env.envs.gym_env import HollywoodGinEnv, info_mask, result_info


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


@pytest.mark.parametrize(
    ("options", "steps"),
    [
        ({"mode": "hand"}, 3000),
        ({"mode": "series", "rules": {"game_target": 25}, "illegal_action": "penalize"}, 3000),
        (
            {
                "mode": "hand",
                "rules": {"knock_limit": 25, "big_gin_bonus": 50, "allow_rediscard": True},
                "agent_seat": "alternate",
                "illegal_action": "penalize",
            },
            3000,
        ),
        ({"mode": "hand", "rules": {"max_turns_per_hand": 12}}, 2000),
        (
            {
                "mode": "series",
                "rules": {"game_target": 30, "stop_when_decided": False},
                "rules_mix": [{"gin_bonus": 10}, {"knock_limit": 20, "weight": 2}],
            },
            3000,
        ),
        ({"mode": "series", "opponent": "simple", "rules": {"game_target": 40}}, 600),
    ],
)
def test_gym_env_plays_game_0_of_a_batched_core(options, steps):
    """The Gymnasium env's compiled steps equal game 0 of a batched core, field by field."""
    env = HollywoodGinEnv(**options)
    batch = GinCore(3, seed=21, **options)
    obs, info = env.reset(seed=21)
    batch.reset()
    rng = np.random.default_rng(4)
    penalize = options.get("illegal_action") == "penalize"
    episodes = 0
    for step in range(steps):
        np.testing.assert_array_equal(obs, batch.observe()[0])
        np.testing.assert_array_equal(info["action_mask"], info_mask(batch.action_masks()[0]))
        assert info["agent_seat"] == batch.agent_seat[0]
        assert info["dealer"] == batch.engine.dealer[0]
        legal = info["action_mask"].nonzero()[0]
        a = int(legal[rng.integers(len(legal))])
        if penalize and step % 97 == 5:
            a = 106 if not info["action_mask"][106] else 0
        actions = np.array([a, *(random_legal(m, rng) for m in batch.action_masks()[1:])])
        result = batch.step(actions)
        obs, reward, terminated, truncated, info = env.step(a)
        assert (type(reward), reward) == (float, float(result.reward[0]))
        assert (terminated, truncated) == (result.terminated[0], result.truncated[0])
        want = result_info(result, 0)
        assert {k: (type(v), v) for k, v in want.items()} == {
            k: (type(info[k]), info[k]) for k in want
        }, step
        if terminated or truncated:
            episodes += 1
            obs, info = env.reset()
            batch.reset(~batch.awaiting)
    assert episodes >= 3
    assert env.core.redeals[0] == batch.redeals[0]


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A random legal action of one bool mask (0 when none is legal)."""
    legal = mask.nonzero()[0]
    return int(legal[rng.integers(len(legal))]) if legal.size else 0

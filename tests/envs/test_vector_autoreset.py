"""Gymnasium's autoreset modes: the VectorEnv equals SyncVectorEnv over N single envs."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorWrapper
from gymnasium.wrappers.vector import RecordEpisodeStatistics, TransformObservation
from helpers.actions import knock_or_legal

import hgin_env.envs  # noqa: F401 - registers HollywoodGin-v1
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.gym_env import HollywoodGinEnv
from hgin_env.envs.vector_env import HollywoodGinVectorEnv, parse_autoreset_mode

N = 5
SEED = 70
#: hand mode with frequent max-turn draws; series mode with easy knocks and short games
CASES: dict[str, dict[str, Any]] = {
    "hand": {"mode": "hand", "rules": RulesConfig(max_turns_per_hand=6)},
    "series": {"mode": "series", "rules": RulesConfig(game_target=25, knock_limit=30)},
}
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


def pair(case: str, mode: AutoresetMode) -> tuple[HollywoodGinVectorEnv, SyncVectorEnv]:
    """Our VectorEnv and Gymnasium's SyncVectorEnv over N single envs, same options."""
    ours = HollywoodGinVectorEnv(N, autoreset_mode=mode, **CASES[case])
    theirs = SyncVectorEnv(
        [lambda: HollywoodGinEnv(**CASES[case]) for _ in range(N)], autoreset_mode=mode
    )
    return ours, theirs


def assert_same(a: tuple, b: tuple) -> None:
    """Two step (or reset) returns agree: values of every array, every info entry exactly."""
    *arrays_a, info_a = a
    *arrays_b, info_b = b
    for x, y in zip(arrays_a, arrays_b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert info_a.keys() == info_b.keys()
    for key in info_a:
        assert data_equivalence(info_a[key], info_b[key]), key


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_each_mode_equals_gymnasium_sync_vector_env(case, mode):
    """Observations, rewards, flags and infos equal SyncVectorEnv's, step for step."""
    ours, theirs = pair(case, mode)
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == mode
    first = ours.reset(seed=SEED)
    assert_same(first, theirs.reset(seed=SEED))
    masks, rng, ends = first[1]["action_mask"], np.random.default_rng(1), 0
    for _ in range(150):
        actions = knock_or_legal(masks, rng)
        mine = ours.step(actions)
        assert_same(mine, theirs.step(actions))
        masks = mine[4]["action_mask"]
        np.testing.assert_array_equal(masks, ours.action_masks())
        done = mine[2] | mine[3]
        ends += int(done.sum())
        if mode == AutoresetMode.DISABLED and done.any():
            again = ours.reset(options={"reset_mask": done})
            assert_same(again, theirs.reset(options={"reset_mask": done.copy()}))
            masks = ours.action_masks()  # the reset infos cover the masked games only
    assert ends > 3


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_masked_reset_with_seeds_equals_gymnasium(mode):
    """reset(seed=..., options={"reset_mask": m}) restarts and reseeds the masked games only."""
    ours, theirs = pair("hand", mode)
    assert_same(ours.reset(seed=3), theirs.reset(seed=3))
    rng = np.random.default_rng(2)
    masks = ours.action_masks()
    for _ in range(4):
        actions = knock_or_legal(masks, rng)
        masks = ours.step(actions)[4]["action_mask"]
        theirs.step(actions)
    mask = np.array([True, False, True, False, False])
    if mode == AutoresetMode.DISABLED:  # only games with a finished or live episode alike
        mask = mask | ~ours.core.awaiting
    for seed in (40, [7, None, 8, None, 9]):
        assert_same(
            ours.reset(seed=seed, options={"reset_mask": mask}),
            theirs.reset(seed=seed, options={"reset_mask": mask.copy()}),
        )
        actions = knock_or_legal(ours.action_masks(), rng)
        assert_same(ours.step(actions), theirs.step(actions))


def test_disabled_mode_refuses_to_step_a_finished_game():
    """DISABLED: a game whose episode ended must be reset with a mask before it steps again."""
    env = HollywoodGinVectorEnv(N, autoreset_mode="DISABLED", **CASES["hand"])
    _, info = env.reset(seed=SEED)
    rng = np.random.default_rng(0)
    for _ in range(100):
        _, _, terminated, truncated, info = env.step(knock_or_legal(info["action_mask"], rng))
        done = terminated | truncated
        if done.any():
            break
    assert done.any() and not info["action_mask"][done].any()
    with pytest.raises(ValueError, match="reset_mask"):
        env.step(knock_or_legal(info["action_mask"], rng))
    _, info = env.reset(options={"reset_mask": done})
    np.testing.assert_array_equal(info["_action_mask"], done)
    env.step(knock_or_legal(env.action_masks(), rng))


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        ([True] * N, TypeError),
        (np.ones(N + 1, bool), ValueError),
        (np.ones(N, int), TypeError),
        (np.zeros(N, bool), ValueError),
    ],
)
def test_bad_reset_masks_are_refused_like_gymnasium(bad, error):
    """A reset mask that is not a bool[N] array with a true entry raises Gymnasium's error."""
    env = HollywoodGinVectorEnv(N)
    env.reset(seed=0)
    with pytest.raises(error, match="reset_mask"):
        env.reset(options={"reset_mask": bad})


def test_mode_is_accepted_by_enum_value_or_name_and_bad_names_fail():
    """AutoresetMode members, their values and their names are accepted; others are not."""
    for mode in AutoresetMode:
        assert parse_autoreset_mode(mode) is mode
        assert parse_autoreset_mode(mode.value) is mode
        assert parse_autoreset_mode(mode.name) is mode
    with pytest.raises(ValueError, match="NEXT_STEP"):
        HollywoodGinVectorEnv(2, autoreset_mode="later")
    assert HollywoodGinVectorEnv(2).metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert HollywoodGinVectorEnv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP


def test_make_vec_passes_the_mode():
    """gymnasium.make_vec builds the env with the asked mode, NEXT_STEP by default."""
    assert gym.make_vec("HollywoodGin-v1", num_envs=2).metadata["autoreset_mode"] == (
        AutoresetMode.NEXT_STEP
    )
    envs = gym.make_vec("HollywoodGin-v1", num_envs=2, autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP


class KeepOptions(VectorWrapper):
    """Pass a copy of ``options`` down to the wrapped env.

    SyncVectorEnv pops ``reset_mask`` from the caller's dict, so a
    ``RecordEpisodeStatistics`` above it would miss the mask (Gymnasium 1.x).
    """

    def reset(self, *, seed=None, options=None):
        """Reset with a copy of the options."""
        return self.env.reset(seed=seed, options=dict(options) if options else None)


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_gymnasium_episode_statistics_match(mode):
    """Gymnasium's RecordEpisodeStatistics (which reads the mode) counts the same episodes."""
    ours, theirs = pair("hand", mode)
    ours, theirs = RecordEpisodeStatistics(ours), RecordEpisodeStatistics(KeepOptions(theirs))
    ours.reset(seed=SEED)
    theirs.reset(seed=SEED)
    rng = np.random.default_rng(4)
    episodes = 0
    for _ in range(120):
        actions = knock_or_legal(ours.env.action_masks(), rng)
        *_, terminated, truncated, info = ours.step(actions)
        *_, their_info = theirs.step(actions)
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            np.testing.assert_array_equal(info["_episode"], their_info["_episode"])
            for key in ("r", "l"):
                np.testing.assert_array_equal(info["episode"][key], their_info["episode"][key])
        done = terminated | truncated
        if mode == AutoresetMode.DISABLED and done.any():
            ours.reset(options={"reset_mask": done})
            theirs.reset(options={"reset_mask": done.copy()})
    assert episodes > 5 and list(ours.return_queue) == list(theirs.return_queue)


def test_observation_wrappers_accept_next_step_and_refuse_same_step():
    """Gymnasium's observation wrappers read metadata["autoreset_mode"] (NEXT_STEP only).

    Gymnasium 1.2 refuses SAME_STEP with a bare assertion, later versions with a ValueError
    naming the mode.
    """
    TransformObservation(HollywoodGinVectorEnv(2), lambda obs: obs)
    with pytest.raises((ValueError, AssertionError)):
        TransformObservation(HollywoodGinVectorEnv(2, autoreset_mode="SAME_STEP"), lambda o: o)

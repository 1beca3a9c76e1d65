"""The single-agent Gymnasium env HollywoodGin-v1: checkers, API, rendering, illegal actions."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import hgin_env.envs  # noqa: F401  (registers HollywoodGin-v1)
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.cards import card_text
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import Outcome
from hgin_env.envs.gym_env import HollywoodGinEnv
from hgin_env.envs.observation import OBS_DIM
from hgin_env.envs.pettingzoo_env import env as pettingzoo_env


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A random legal action id."""
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_gymnasium_check_env_passes(mode):
    """Gymnasium's check_env (made through gym.make, render modes included) passes."""
    env = gym.make("HollywoodGin-v1", mode=mode, illegal_action="penalize", render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_sb3_check_env_passes(mode):
    """Stable-Baselines3's check_env passes without warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(HollywoodGinEnv(mode=mode, illegal_action="penalize"), warn=True)


def test_spaces_and_first_observation():
    """Discrete(107) actions, float32[OBS_DIM] observations in the space, a non-empty mask."""
    env = gym.make("HollywoodGin-v1")
    obs, info = env.reset(seed=3)
    assert env.action_space == gym.spaces.Discrete(N_ACTIONS)
    assert env.observation_space.shape == (OBS_DIM,) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"])


def test_make_vec_builds_the_batched_vector_env():
    """gym.make_vec uses the registered vector entry point (one engine, N games)."""
    from hgin_env.envs.vector_env import HollywoodGinVectorEnv

    envs = gym.make_vec("HollywoodGin-v1", num_envs=3, mode="series")
    assert isinstance(envs, HollywoodGinVectorEnv) and envs.num_envs == 3
    obs, info = envs.reset(seed=0)
    assert obs.shape == (3, OBS_DIM) and info["action_mask"].shape == (3, N_ACTIONS)


def test_seeded_episodes_replay_exactly():
    """Two envs reset with the same seed give the same observations, rewards and infos."""
    a, b = HollywoodGinEnv(mode="series"), HollywoodGinEnv(mode="series")
    (obs_a, info_a), (obs_b, _) = a.reset(seed=8), b.reset(seed=8)
    rng = np.random.default_rng(0)
    for _ in range(300):
        np.testing.assert_array_equal(obs_a, obs_b)
        action = pick(info_a["action_mask"], rng)
        obs_a, r_a, te_a, tr_a, info_a = a.step(action)
        obs_b, r_b, te_b, tr_b, info_b = b.step(action)
        assert (r_a, te_a, tr_a) == (r_b, te_b, tr_b)
        assert info_a.keys() == info_b.keys()


def test_hand_episode_ends_with_the_hand_and_info_reports_it():
    """Hand mode: the episode ends when the hand does; the info names outcome and score."""
    env = HollywoodGinEnv(reward_scale=100)
    rng = np.random.default_rng(1)
    outcomes = set()
    for episode in range(30):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(pick(info["action_mask"], rng))
            done = terminated or truncated
            assert info["hands_ended"] == int(done)
        assert reward == pytest.approx(info["hand_score"] / 100)
        outcomes.add(Outcome(info["outcome"]).name)
        assert not info["action_mask"].any()
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)
    assert outcomes & {"KNOCK", "GIN", "UNDERCUT"}  # some hands were won, not drawn


def test_truncated_on_max_turn_draw():
    """Decision (max-turn draw): the env truncates (not terminates) it, with reward 0."""
    env = HollywoodGinEnv(rules=RulesConfig(max_turns_per_hand=2))
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(20):
        _, info = env.reset(seed=seed)
        terminated = truncated = False
        while not (terminated or truncated):
            _, reward, terminated, truncated, info = env.step(pick(info["action_mask"], rng))
        if truncated:
            seen += 1
            assert not terminated and reward == 0.0
            assert info["outcome"] == Outcome.TRUNCATED
    assert seen > 0


def test_illegal_action_raises_value_error():
    """An illegal action raises ValueError naming it and the legal actions."""
    env = HollywoodGinEnv()
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal} \(.*\).*legal actions: "):
        env.step(illegal)


def test_illegal_action_penalize_option():
    """illegal_action='penalize' ends the episode with -illegal_penalty."""
    env = HollywoodGinEnv(illegal_action="penalize", illegal_penalty=2.5)
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs2, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-2.5, True, False, True)
    np.testing.assert_array_equal(obs2, obs)


def test_render_ansi_shows_the_agents_view():
    """render() returns a table with the hand grouped in melds, deadwood, upcard and stock."""
    env = HollywoodGinEnv(render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    engine, seat = env.core.engine, int(env.core.agent_seat[0])
    for card in np.flatnonzero(engine.state.hands[0, seat]):
        assert card_text(card) in text
    for card in np.flatnonzero(engine.state.hands[0, 1 - seat] & ~engine.state.known[0, 1 - seat]):
        assert card_text(card) not in text.split("Top discard")[0].split("Hand", 1)[1]
    for label in ("Hand", "Deadwood", "Top discard", "Stock", "31 cards"):
        assert label in text


def test_render_series_shows_the_score_sheet_and_human_prints(capsys):
    """Series mode adds the score sheet; render_mode='human' prints the table."""
    env = HollywoodGinEnv(mode="series", render_mode="human")
    env.reset(seed=2)
    out = capsys.readouterr().out
    assert "Game 1" in out and "Game 3" in out and "series in progress" in out
    assert env.render() is None


def test_unknown_render_mode_warns_and_unknown_option_is_rejected():
    """An unsupported render_mode only warns; a bad option raises."""
    with pytest.warns(UserWarning, match="render_mode 'depth_array' is not supported"):
        env = HollywoodGinEnv(render_mode="depth_array")
    env.reset(seed=0)
    with pytest.warns(UserWarning):
        assert env.render() is None
    with pytest.raises(ValueError, match="unknown env option"):
        HollywoodGinEnv(reward_scael=3)


def test_sb3_make_vec_env_masks_on_registered_env():
    """SB3's make_vec_env builds HollywoodGin-v1 copies whose masks MaskablePPO can read."""
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("HollywoodGin-v1", n_envs=2, seed=0, env_kwargs={"mode": "series"})
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (2, N_ACTIONS) and masks.any(axis=1).all()


def test_score_sheet_lists_the_viewer_first():
    """The rendered score sheet puts the viewing seat's line first, with its own totals."""
    from hgin_env.engine.hollywood import ScoreSheets
    from hgin_env.envs.render import sheet_text

    sheets = ScoreSheets(1)
    sheets.record(np.array([1]), np.array([30]))
    sheets.record(np.array([1]), np.array([80]))
    lines = sheet_text(sheets, 0, 1, ("You", "Opponent")).splitlines()
    assert lines[1].split() == ["You", "110*", "80", "-"]
    assert lines[2].split() == ["Opponent", "-", "-", "-"]


def test_a_huge_action_id_is_named_exactly() -> None:
    """step(2**63) names 9223372036854775808 (no wrap to a negative id)."""
    env = HollywoodGinEnv(seed=0)
    env.reset()
    with pytest.raises(ValueError, match="illegal action 9223372036854775808 ") as info:
        env.step(2**63)
    assert "-9223372036854775808" not in str(info.value)


def test_seeds_outside_the_uint64_range_are_refused() -> None:
    """reset(seed=2**64) and seed -1 raise a ValueError naming the range; 2**64-1 works."""
    env = HollywoodGinEnv(seed=0)
    for bad in (2**64, -1):
        with pytest.raises(ValueError, match=r"0\.\.2\*\*64-1"):
            env.reset(seed=bad)
    obs, _ = env.reset(seed=2**64 - 1)
    assert obs.shape == env.observation_space.shape
    with pytest.raises(ValueError, match=r"0\.\.2\*\*64-1"):
        pettingzoo_env().reset(seed=2**64)

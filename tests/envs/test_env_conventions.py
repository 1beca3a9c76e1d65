"""Gymnasium and PettingZoo users' habits: int8 masks, sampling, ids, frames and videos.

MaskablePPO through gym.make, the versioned ids and PettingZoo module, rgb_array frames
and RecordVideo.
"""

import gymnasium as gym
import numpy as np
import pytest

import hgin_env.envs  # noqa: F401  (registers HollywoodGin-v1)
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.render import FRAME_SHAPE


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_action_space_sample_with_the_info_mask(mode):
    """env.action_space.sample(mask=info["action_mask"]) draws only legal actions."""
    env = gym.make("HollywoodGin-v1", mode=mode, opponent="simple")
    env.action_space.seed(0)
    obs, info = env.reset(seed=4)
    for _ in range(200):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,)
        action = env.action_space.sample(mask=mask)
        assert mask[action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()


def test_vector_env_info_masks_are_int8_and_sample():
    """gym.make_vec's infos carry int8[N, 107] masks; the batched space samples with them."""
    envs = gym.make_vec("HollywoodGin-v1", num_envs=3)
    envs.action_space.seed(1)
    _, infos = envs.reset(seed=2)
    for _ in range(20):
        masks = infos["action_mask"]
        assert masks.dtype == np.int8 and masks.shape == (3, N_ACTIONS)
        actions = envs.action_space.sample(mask=tuple(masks))
        assert all(masks[i, a] == 1 for i, a in enumerate(actions))
        _, _, _, _, infos = envs.step(actions)
    envs.close()


def test_v0_is_refused_with_an_error_naming_v1():
    """The 394-entry id is gone: gym.make names the current version."""
    with pytest.raises(gym.error.DeprecatedEnv, match="HollywoodGin-v1"):
        gym.make("HollywoodGin-v0")
    env = gym.make("HollywoodGin-v1")
    assert env.spec is not None and env.spec.version == 1
    assert "v1" in type(env.unwrapped).__doc__.split("## Version History")[1]


def test_maskable_ppo_trains_on_gym_make_through_action_masker():
    """The documented route: sb3-contrib's ActionMasker over a gym.make env."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = gym.make("HollywoodGin-v1", opponent="random")
    with pytest.raises(AttributeError):
        env.action_masks()  # Gymnasium 1.x wrappers do not forward it ...
    assert env.get_wrapper_attr("action_masks")().shape == (N_ACTIONS,)  # ... this does
    env = ActionMasker(env, lambda e: e.get_wrapper_attr("action_masks")())
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    vec = DummyVecEnv([lambda: env])
    assert is_masking_supported(vec)
    obs = vec.reset()
    masks = get_action_masks(vec)
    action, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[0, int(action[0])]


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_rgb_array_frames(mode):
    """render_mode="rgb_array": uint8[H, W, 3] pictures that change as the hand goes on."""
    env = gym.make("HollywoodGin-v1", mode=mode, render_mode="rgb_array")
    _, info = env.reset(seed=0)
    first = env.render()
    assert isinstance(first, np.ndarray)
    assert first.shape == (*FRAME_SHAPE, 3) and first.dtype == np.uint8
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 3  # more than a blank felt
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert not np.array_equal(env.render(), first)


def test_record_video_records_a_hand(tmp_path):
    """gymnasium.wrappers.RecordVideo writes an mp4 of one hand."""
    pytest.importorskip("moviepy", reason="the video extra (make setup installs it)")
    from gymnasium.wrappers import RecordVideo

    env = gym.make("HollywoodGin-v1", render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path), episode_trigger=lambda k: k == 0, disable_logger=True)
    _, info = env.reset(seed=0)
    done, steps = False, 0
    while not done and steps < 12:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done, steps = terminated or truncated, steps + 1
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


def test_pettingzoo_versioned_module_passes_api_test():
    """hgin_env.envs.hollywood_gin_v0: env() and raw_env, PettingZoo's api_test passes."""
    from pettingzoo.test import api_test

    from hgin_env.envs import hollywood_gin_v0

    for mode in ("hand", "series"):
        api_test(hollywood_gin_v0.env(mode=mode), num_cycles=300)
    raw = hollywood_gin_v0.raw_env(render_mode="rgb_array")
    raw.reset(seed=0)
    assert raw.metadata["name"] == "hollywood_gin_v0"
    frame = raw.render()
    assert isinstance(frame, np.ndarray) and frame.shape == (*FRAME_SHAPE, 3)
    assert raw.observe(raw.agent_selection)["action_mask"].dtype == np.int8

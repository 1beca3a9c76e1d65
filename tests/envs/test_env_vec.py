"""The batched envs: SB3 VecEnv and Gymnasium VectorEnv equal N single envs; MaskablePPO runs."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers.actions import knock_or_legal
from helpers.envs import CASES, SEED, N, singles_for
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from hgin_env.envs.observation import OBS_DIM
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
from hgin_env.envs.vector_env import HollywoodGinVectorEnv


def steps_for(name: str) -> int:
    """Steps of a comparison: hands (at most 6 turns) end every few steps, series later."""
    return 80 if name.startswith("hand") else 250


@pytest.mark.parametrize("name", sorted(CASES))
def test_sb3_vec_env_equals_single_envs(name):
    """The SB3 VecEnv seeded s gives game i the trajectory of a single env seeded s + i."""
    vec = HollywoodGinVecEnv(N, seed=SEED, **CASES[name])
    envs, obs, infos = singles_for(CASES[name])
    vec_obs = vec.reset()
    np.testing.assert_array_equal(vec_obs, np.stack(obs))
    rngs = [np.random.default_rng(i) for i in range(N)]
    dones = truncations = 0
    for _ in range(steps_for(name)):
        masks = vec.action_masks()
        np.testing.assert_array_equal(masks, np.stack([info["action_mask"] for info in infos]))
        actions = knock_or_legal(masks, rngs)
        vec_obs, rewards, vec_dones, vec_infos = vec.step(actions)
        for i, env in enumerate(envs):
            o, r, terminated, truncated, infos[i] = env.step(int(actions[i]))
            assert rewards[i] == np.float32(r)
            assert vec_dones[i] == (terminated or truncated)
            if terminated or truncated:
                np.testing.assert_array_equal(vec_infos[i]["terminal_observation"], o)
                assert vec_infos[i]["TimeLimit.truncated"] == (truncated and not terminated)
                dones += 1
                truncations += int(truncated)
                o, infos[i] = env.reset()
            np.testing.assert_array_equal(vec_obs[i], o)
    assert dones > 0
    assert truncations > 0 or name.startswith("series")


@pytest.mark.parametrize("name", sorted(CASES))
def test_gymnasium_vector_env_equals_single_envs(name):
    """The Gymnasium VectorEnv (same-step autoreset) matches N single envs too."""
    vec = HollywoodGinVectorEnv(N, autoreset_mode=AutoresetMode.SAME_STEP, **CASES[name])
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    envs, obs, infos = singles_for(CASES[name])
    vec_obs, vec_info = vec.reset(seed=SEED)
    np.testing.assert_array_equal(vec_obs, np.stack(obs))
    rngs = [np.random.default_rng(i) for i in range(N)]
    dones = 0
    for _ in range(steps_for(name)):
        np.testing.assert_array_equal(vec_info["action_mask"], vec.action_masks())
        actions = knock_or_legal(vec_info["action_mask"], rngs)
        vec_obs, rewards, terminated, truncated, vec_info = vec.step(actions)
        for i, env in enumerate(envs):
            o, r, te, tr, info = env.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (np.float32(r), te, tr)
            if te or tr:
                assert vec_info["_final_obs"][i]
                np.testing.assert_array_equal(vec_info["final_obs"][i], o)
                assert vec_info["final_info"]["hand_score"][i] == info["hand_score"]
                dones += 1
                o, info = env.reset()
            else:
                assert not vec_info.get("_final_obs", np.zeros(N, bool))[i]
            np.testing.assert_array_equal(vec_obs[i], o)
            np.testing.assert_array_equal(vec_info["action_mask"][i], info["action_mask"])
    assert dones > 0
    assert vec.observation_space.shape == (N, OBS_DIM)


def test_vector_env_reset_accepts_a_seed_list():
    """reset(seed=[...]) seeds each game separately, like an int seed s gives s + i."""
    a, b = HollywoodGinVectorEnv(3), HollywoodGinVectorEnv(3)
    np.testing.assert_array_equal(a.reset(seed=5)[0], b.reset(seed=[5, 6, 7])[0])


def test_sb3_seed_then_reset_reseeds_every_game():
    """VecEnv.seed(s) then reset() equals a VecEnv built with seed s."""
    a = HollywoodGinVecEnv(3, seed=1)
    a.reset()
    assert a.seed(9) == [9, 10, 11]
    np.testing.assert_array_equal(a.reset(), HollywoodGinVecEnv(3, seed=9).reset())


def test_sb3_masking_hooks():
    """has_attr/env_method('action_masks') work, as sb3-contrib's helpers expect."""
    vec = HollywoodGinVecEnv(5, seed=0)
    vec.reset()
    assert vec.has_attr("action_masks") and is_masking_supported(vec)
    masks = get_action_masks(vec)
    assert masks.shape == (5, 107) and masks.any(axis=1).all()
    np.testing.assert_array_equal(
        np.stack(vec.env_method("action_masks", indices=[1, 3])), masks[[1, 3]]
    )
    assert vec.get_attr("render_mode") == [None] * 5
    assert vec.env_is_wrapped(object) == [False] * 5
    assert not vec.has_attr("no_such_attribute")


def test_sb3_vec_env_penalize_resets_the_offending_game():
    """With illegal_action='penalize', an illegal move ends and resets only its game."""
    vec = HollywoodGinVecEnv(3, seed=0, illegal_action="penalize", illegal_penalty=1.0)
    vec.reset()
    masks = vec.action_masks()
    actions = knock_or_legal(masks, [np.random.default_rng(i) for i in range(3)])
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    _, rewards, dones, infos = vec.step(actions)
    assert dones.tolist() == [False, False, True] and rewards[2] == -1.0
    assert infos[2]["illegal_action"] and "terminal_observation" in infos[2]
    assert vec.action_masks()[2].any()


def test_sb3_render_ansi_gives_game_views():
    """render() returns game 0's view; env_method('render') returns each game's view."""
    vec = HollywoodGinVecEnv(2, seed=0, render_mode="ansi", mode="series")
    vec.reset()
    texts = vec.env_method("render")
    assert vec.render() == texts[0] and len(texts) == 2 and "Game 1" in texts[1]


def test_maskable_ppo_trains_on_the_vec_env():
    """MaskablePPO learns for a few thousand steps on the batched VecEnv and acts legally."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: extra threads only contend
    try:
        _train_and_play()
    finally:
        torch.set_num_threads(threads)


def _train_and_play() -> None:
    from sb3_contrib import MaskablePPO

    vec = HollywoodGinVecEnv(64, seed=0)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=512, n_epochs=2, seed=0)
    model.learn(total_timesteps=4096)
    assert model.num_timesteps >= 4096
    obs = vec.reset()
    for _ in range(30):
        masks = vec.action_masks()
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(64), actions].all()
        obs, *_ = vec.step(actions)  # type: ignore[assignment]  # SB3: a union of obs types


def test_vec_env_refuses_a_negative_seed_at_construction() -> None:
    """HollywoodGinVecEnv(4, seed=-1) fails at once with the seed range, as does seed(-1)."""
    with pytest.raises(ValueError, match=r"got -1"):
        HollywoodGinVecEnv(4, seed=-1)
    env = HollywoodGinVecEnv(4, seed=0)
    with pytest.raises(ValueError, match=r"0\.\.2\*\*64-1"):
        env.seed(-1)
    env.seed(2**64 - 2)  # seeds 2**64-2 .. wrap modulo 2**64
    assert env.reset().shape[0] == 4

"""Per-game randomness of the opponents: a batch of N games plays like N single games.

Every opponent (``random``, the bots, the shipped ``ppo-cards``) decides a
game from that game's observation and its per-game key alone, so a VecEnv seeded s gives
game i exactly the trajectory of a single env seeded s + i, in hand and in series mode.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers.actions import knock_or_legal
from helpers.envs import CASES, SEED, N, singles_for

from agents import ExpertBot, PatientBot, SimpleBot, TempoBot, load_policy
from agents.bots import SimpleBotV1
from hgin_env.engine import GinEngine
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.policy import accepts_keys
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
from hgin_env.envs.vector_env import HollywoodGinVectorEnv

OPPONENTS = ["random", "simple", "expert", "patient", "tempo", "simple@1", "ppo-cards"]
#: whole hands under the default rules, and short series (see test_env_vec.CASES)
KEY_CASES: dict[str, dict[str, Any]] = {"hand": {"mode": "hand"}, "series": CASES["series"]}
#: agent steps per comparison: hands end within 60 (4 or more ended hands against every
#: opponent), the short series of ``random`` need about 100
STEPS = {"hand": 60, "series": 100}


@pytest.fixture(scope="module")
def shipped_model():
    """The shipped model, loaded once for the module (it is deterministic and stateless)."""
    return load_policy("ppo-cards")


def case_for(name: str, mode: str, shipped_model) -> dict:
    """The env options of one comparison: the mode's case with the opponent."""
    opponent = shipped_model if name == "ppo-cards" else name
    return {**KEY_CASES[mode], "opponent": opponent}


@pytest.mark.parametrize("mode", sorted(KEY_CASES))
@pytest.mark.parametrize("name", OPPONENTS)
def test_sb3_vec_env_plays_like_single_envs_against_every_opponent(name, mode, shipped_model):
    """Against each opponent the SB3 VecEnv seeded s replays the single envs seeded s + i."""
    case = case_for(name, mode, shipped_model)
    vec = HollywoodGinVecEnv(N, seed=SEED, **case)
    envs, obs, infos = singles_for(case)
    np.testing.assert_array_equal(vec.reset(), np.stack(obs))
    rngs = [np.random.default_rng(i) for i in range(N)]
    dones = 0
    for _ in range(STEPS[mode]):
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
                dones += 1
                o, infos[i] = env.reset()
            np.testing.assert_array_equal(vec_obs[i], o)
    assert dones > 0  # whole episodes were played to their end


@pytest.mark.parametrize("mode", sorted(KEY_CASES))
@pytest.mark.parametrize("name", ["simple", "expert", "patient", "tempo"])
def test_gymnasium_vector_env_plays_like_single_envs_against_every_opponent(
    name, mode, shipped_model
):
    """Against each opponent the Gymnasium VectorEnv seeded s replays the single envs too."""
    case = case_for(name, mode, shipped_model)
    vec = HollywoodGinVectorEnv(N, autoreset_mode="same_step", **case)
    envs, obs, infos = singles_for(case)
    vec_obs, vec_info = vec.reset(seed=SEED)
    np.testing.assert_array_equal(vec_obs, np.stack(obs))
    rngs = [np.random.default_rng(i) for i in range(N)]
    dones = 0
    for _ in range(STEPS[mode]):
        actions = knock_or_legal(vec_info["action_mask"], rngs)
        vec_obs, rewards, terminated, truncated, vec_info = vec.step(actions)
        for i, env in enumerate(envs):
            o, r, te, tr, info = env.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (np.float32(r), te, tr)
            if te or tr:
                np.testing.assert_array_equal(vec_info["final_obs"][i], o)
                dones += 1
                o, info = env.reset()
            np.testing.assert_array_equal(vec_obs[i], o)
            np.testing.assert_array_equal(vec_info["action_mask"][i], info["action_mask"])
    assert dones > 0


@pytest.mark.parametrize("bot", [SimpleBot, ExpertBot, PatientBot, TempoBot, SimpleBotV1])
def test_a_bot_decides_each_row_from_its_own_key(bot):
    """With keys, a row's action does not depend on the other rows of the batch."""
    eng = GinEngine(32, seed=7)
    eng.reset()
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**64, size=32, dtype=np.uint64, endpoint=False)
    for _ in range(40):  # play on with random legal moves; check the bot at every state
        obs, masks = encode_observations(eng, eng.current_player), eng.legal_action_mask()
        together = bot(1).act(obs, masks, keys=keys)
        alone = [int(bot(2).act(obs[i : i + 1], masks[i : i + 1], keys=keys[i : i + 1])[0])
                 for i in range(0, 32, 5)]  # fmt: skip
        assert together[::5].tolist() == alone
        assert masks[np.arange(32), together].all()
        legal = [rng.choice(np.flatnonzero(m)) for m in masks]
        eng.step(np.array(legal))
        if eng.over.any():
            eng.reset(mask=eng.over)
        keys = keys * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)


def test_the_bots_take_per_game_keys():
    """Every bot declares ``keys``, so the environments pass them keys."""
    for bot in (SimpleBot, ExpertBot, PatientBot, TempoBot, SimpleBotV1):
        assert accepts_keys(bot())

"""The rules blocks of the observation: every env fills them from each game's own rule set."""

from __future__ import annotations

import numpy as np
import pytest

from hgin_env.engine.config import RulesConfig
from hgin_env.envs import pettingzoo_env
from hgin_env.envs.config import EnvConfig
from hgin_env.envs.gym_env import HollywoodGinEnv
from hgin_env.envs.observation import OBS_DIMS, OBS_LAYOUT, decode_observations
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
from hgin_env.envs.vector_env import HollywoodGinVectorEnv

MIX = [{"undercut_bonus": 25}, {"knock_limit": 7, "gin_bonus": 30, "big_gin_bonus": 31}]


def rules_of(decoded, i: int) -> tuple:
    """Game i's decoded rules: (knock_limit, gin, undercut, big gin on, big-gin bonus)."""
    d = decoded
    return (int(d.knock_limit[i]), int(d.gin_bonus[i]), int(d.undercut_bonus[i]),
            bool(d.big_gin[i]), int(d.big_gin_bonus[i]))  # fmt: skip


def expected(rules: RulesConfig) -> tuple:
    """The same tuple from a rule set."""
    big = rules.big_gin_bonus
    return (rules.knock_limit, rules.gin_bonus, rules.undercut_bonus, big is not None, big or 0)


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_a_mixed_vec_env_shows_each_game_its_own_rules(mode):
    """In a mixed VecEnv each row's rules blocks decode to the rule set its game plays."""
    env = HollywoodGinVecEnv(64, opponent="simple", mode=mode, seed=3, rules_mix=MIX)
    obs = env.reset()
    for _ in range(20):
        engine = env.core.engine
        decoded = decode_observations(obs)
        for i in range(env.num_envs):
            assert rules_of(decoded, i) == expected(engine.game_rules(i))
        target = 100 if mode == "series" else 0
        assert (decoded.game_target == target).all()
        obs, *_ = env.step(env.core.engine.legal_action_mask().argmax(axis=1))
    assert len(set(engine.rule_ids.tolist())) == 2


def test_the_single_and_vector_envs_and_pettingzoo_fill_the_rules_blocks():
    """Gymnasium, VectorEnv and PettingZoo observations carry the rules they were given."""
    rules = RulesConfig(knock_limit=5, undercut_bonus=25, big_gin_bonus=40)
    want = (5, 25, 25, True, 40)
    obs, _ = HollywoodGinEnv(rules=rules).reset(seed=1)
    assert rules_of(decode_observations(obs), 0) == want
    vobs, _ = HollywoodGinVectorEnv(3, rules=rules).reset(seed=1)
    assert all(rules_of(decode_observations(vobs), i) == want for i in range(3))
    aec = pettingzoo_env.env(rules=rules)
    aec.reset(seed=1)
    seen = aec.observe(aec.agent_selection)["observation"]
    assert rules_of(decode_observations(seen), 0) == want
    block = seen[OBS_DIMS[1] :]
    assert block[OBS_LAYOUT["rules_undercut_bonus"].start - OBS_DIMS[1]] == np.float32(0.25)


def test_default_rules_fill_the_blocks_with_their_values():
    """Default rules: knock limit 10, gin 25, undercut 10, big gin off (0, 0)."""
    obs, _ = HollywoodGinEnv().reset(seed=0)
    block = obs[OBS_DIMS[1] :]
    np.testing.assert_allclose(block, [0.10, 0.25, 0.10, 0.0, 0.0, 0.0], rtol=1e-6)


def test_bad_mixes_are_refused_by_name():
    """An unknown field, an empty list, a negative weight or a shared option differing."""
    for mix, message in [
        ([{"undercutbonus": 25}], "unknown rules field"),
        ([], "env.rules_mix is empty"),
        ([{"weight": -1}], "weight must be a number >= 0"),
        ([{"undercut_bonus": -2}], "undercut_bonus must be in"),
        ([{}, {"max_turns_per_hand": 9}], "max_turns_per_hand differs"),
    ]:
        with pytest.raises(ValueError, match=message):
            HollywoodGinVecEnv(2, rules_mix=mix)
    with pytest.raises(ValueError, match="game_target differs"):
        HollywoodGinVecEnv(2, rules_mix=[{"game_target": 50}, {}])
    assert EnvConfig(rules_mix=MIX).to_dict()["rules_mix"] == MIX

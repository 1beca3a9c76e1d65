"""The league-trained agents (``models/ppo-league*``): load, read the rules, play legally."""

from __future__ import annotations

import json

import pytest
from helpers.policies import assert_plays_legally

from agents.policies.model import MODELS_DIR, ModelPolicy, load_policy, shipped_models
from agents.training.config import load_config
from hgin_env.envs.observation import OBS_DIM
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

#: each league-trained agent and the model its run started from
AGENTS = {"ppo-league": "ppo-cards", "ppo-league2": "ppo-league"}


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_the_folder_holds_model_config_and_both_evaluations(name: str) -> None:
    """The model, the league config that trained it, and its results under both rule sets."""
    folder = MODELS_DIR / name
    assert shipped_models()[name] == folder
    config = load_config(name)
    assert config.opponents.league.enabled and config.pretrain.init_from == AGENTS[name]
    assert [dict(r) for r in config.env.rules_mix or ()] == [
        {"undercut_bonus": 10}, {"undercut_bonus": 25},
    ]  # fmt: skip
    for file, undercut in (("eval.json", 10), ("eval_undercut25.json", 25)):
        data = json.loads((folder / file).read_text())
        assert {"patient", "expert", "simple", "ppo-cards"} <= set(data["results"])
        assert all(r["rules"]["undercut_bonus"] == undercut for r in data["results"].values())


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_it_reads_the_rules_observation_layout(name: str) -> None:
    """Trained after the rules joined the observation, it reads all of it."""
    model = ModelPolicy(MODELS_DIR / name)
    assert model.obs_dim == OBS_DIM and model.spec["observation"]["width"] == OBS_DIM


@pytest.mark.parametrize("name", sorted(AGENTS))
@pytest.mark.parametrize("undercut", [10, 25])
def test_it_plays_only_legal_actions_under_both_rule_sets(name: str, undercut: int) -> None:
    """A few hundred batched decisions in series mode against patient are all legal."""
    from hgin_env.engine.config import RulesConfig

    env = HollywoodGinVecEnv(
        16, opponent="patient", mode="series", seed=31, rules=RulesConfig(undercut_bonus=undercut)
    )
    assert_plays_legally(load_policy(name), env, 150)

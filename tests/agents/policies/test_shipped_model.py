"""The shipped agent (``models/ppo-cards``): it loads by name, plays legally, beats random."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers.policies import assert_plays_legally

from agents.evaluation import evaluate
from agents.policies.model import MODELS_DIR, load_policy, shipped_models
from agents.training.config import load_config
from hgin_env.envs.observation import OBS_DIM, OBS_DIMS
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

NAME = "ppo-cards"
FOLDER = MODELS_DIR / NAME


def test_the_folder_holds_model_config_and_evaluation() -> None:
    """``models/ppo-cards`` has the model, the exact config that trained it, and its results."""
    assert shipped_models()[NAME] == FOLDER
    config = load_config(NAME)  # a shipped model's name works as --config
    assert config == load_config(FOLDER / "config.yaml")
    assert config.ppo.policy == "cards"
    results = json.loads((FOLDER / "eval.json").read_text())["results"]
    assert {"random", "simple", "expert"} <= set(results)
    assert all(r["n_series"] >= 2000 for r in results.values())


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_shipped_model_plays_only_legal_actions(mode: str) -> None:
    """Over a few hundred batched decisions against simple, every action is legal."""
    policy = load_policy(NAME)
    env = HollywoodGinVecEnv(16, opponent="simple", mode=mode, seed=21)
    assert_plays_legally(policy, env, 150)


def test_shipped_model_beats_random() -> None:
    """A small seeded sample of full series against random: the agent wins them all."""
    result = evaluate(NAME, "random", n_series=12, seed=404, progress=False)
    assert result.series_won == 12
    assert result.hand_win_rate > 0.9
    assert result.points_per_hand > 30


def test_shipped_model_plays_as_before_the_rules_entered_the_observation() -> None:
    """ppo-cards (observation layout 1, 394 entries) picks the actions it picked before.

    ``data/ppo_cards_actions.json`` holds its actions on a seeded VecEnv (series mode,
    against simple), recorded with the code before the rules blocks joined the observation.
    """
    ref = json.loads((Path(__file__).parent / "data" / "ppo_cards_actions.json").read_text())
    policy = load_policy(NAME)
    env = HollywoodGinVecEnv(ref["n_envs"], opponent="simple", mode="series", seed=ref["seed"])
    obs = env.reset()
    assert obs.shape[1] == OBS_DIM > OBS_DIMS[1] == 394
    for want in ref["actions"]:
        got = policy.act(obs, env.action_masks())
        np.testing.assert_array_equal(got, want)
        obs, *_ = env.step(got)  # type: ignore[assignment]  # SB3 types obs as a union

"""A policy plays legally; shipped models' knocks; MaskablePPO zips with chosen spaces."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np

from hgin_env.engine.actions import KNOCK, is_knock
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig


def assert_plays_legally(policy, env, steps: int) -> None:
    """Drive a batched VecEnv with ``policy`` for ``steps`` steps; every action must be legal."""
    obs = env.reset()
    rows = np.arange(env.num_envs)
    for _ in range(steps):
        masks = env.action_masks()
        actions = policy.act(obs, masks)
        assert masks[rows, actions].all()
        obs, _, _, _ = env.step(actions)


def knock_decisions(name: str, undercut: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the decisions with a legal knock met by shipped model ``name``.

    The model plays the agent's seat of 64 series against ``patient`` (seed 77) for 300
    steps under undercut bonus ``undercut``.
    """
    from agents.policies.model import load_policy
    from hgin_env.engine.actions import knock_legal
    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    env = HollywoodGinVecEnv(
        64, opponent="patient", mode="series", seed=77, rules=RulesConfig(undercut_bonus=undercut)
    )
    policy = load_policy(name)
    obs = np.asarray(env.reset())
    rows, masks_kept = [], []
    for _ in range(300):
        masks = np.array(env.action_masks(), dtype=bool)
        knock = knock_legal(masks)
        rows.append(obs[knock])
        masks_kept.append(masks[knock])
        obs = np.asarray(env.step(policy.act(obs, masks))[0])
    return np.concatenate(rows), np.concatenate(masks_kept)


def gin_and_knocks(
    names: list[str], obs: np.ndarray, masks: np.ndarray
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """bool[rows]: a gin is legal; and, per policy name, bool[rows]: it knocks there."""
    from agents.policies.model import load_policy
    from hgin_env.envs.observation import decode_observations

    deadwood = decode_observations(obs).discard_deadwood
    least = np.where(masks[:, KNOCK : KNOCK + N_CARDS], deadwood, 999).min(axis=1)
    knocks = {}
    for name in names:
        actions = load_policy(name).act(obs, masks)
        knocks[name] = is_knock(actions)
    return least == 0, knocks


def assert_model_plays_legally(name: str, undercut: int) -> None:
    """A few hundred batched decisions of model ``name`` against patient (series) are legal."""
    from agents.policies.model import load_policy
    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    env = HollywoodGinVecEnv(
        16, opponent="patient", mode="series", seed=31, rules=RulesConfig(undercut_bonus=undercut)
    )
    assert_plays_legally(load_policy(name), env, 150)


class SpaceEnv(gym.Env):
    """A dummy env with chosen spaces, only to build and save a MaskablePPO model."""

    def __init__(self, obs_dim: int, n_actions: int) -> None:
        self.observation_space = gym.spaces.Box(0.0, 1.0, (obs_dim,), np.float32)
        self.action_space = gym.spaces.Discrete(n_actions)
        self.n_actions = n_actions

    def reset(self, *, seed=None, options=None):
        """Return a zero observation."""
        return np.zeros(self.observation_space.shape, np.float32), {}

    def step(self, action):
        """End at once."""
        return np.zeros(self.observation_space.shape, np.float32), 0.0, True, False, {}

    def action_masks(self) -> np.ndarray:
        """Every action is allowed."""
        return np.ones(self.n_actions, dtype=bool)


def save_model(path: Path, obs_dim: int, n_actions: int) -> Path:
    """Save an untrained MaskablePPO with the given spaces (its folder trusted: our own)."""
    from sb3_contrib import MaskablePPO

    from agents.policies.model_zip import trust_folder

    model = MaskablePPO("MlpPolicy", SpaceEnv(obs_dim, n_actions), n_steps=8, batch_size=8)
    model.save(path)
    trust_folder(Path(path).parent)
    return path

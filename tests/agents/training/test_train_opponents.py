"""Training opponents: the per-game mixture, the self-play pool and its sampling."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sb3_contrib import MaskablePPO

from agents.policies.mixture import MixturePolicy
from agents.policies.torch_policy import TorchPolicy
from agents.training.config import SelfPlayConfig, build_config
from agents.training.opponents import TrainingOpponents
from agents.training.sb3.runner import make_env
from agents.training.selfplay import SnapshotPool
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM


class Constant:
    """Plays a fixed action id in every row and records the size of each batch."""

    def __init__(self, tag: int) -> None:
        self.tag = tag
        self.calls: list[int] = []

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Return ``tag`` for every row (the masks are ignored) and record the batch size."""
        self.calls.append(len(action_masks))
        return np.full(len(action_masks), self.tag)


def _batch(m: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((m, OBS_DIM), np.float32), np.ones((m, N_ACTIONS), bool)


def test_mixture_routes_each_row_to_its_games_policy() -> None:
    """Rows go to the policy assigned to their game, one batched call per policy."""
    a, b = Constant(1), Constant(2)
    mix = MixturePolicy([a, b], ["a", "b"], [1, 1], n_games=6, seed=0)
    mix.assignment[:] = [0, 1, 0, 1, 1, 0]
    rows = np.array([1, 2, 5])
    actions = mix.act(*_batch(3), rows=rows)
    np.testing.assert_array_equal(actions, [2, 1, 1])
    assert a.calls == [2] and b.calls == [1]


def test_mixture_uses_rows_set_by_the_caller() -> None:
    """Without a rows argument the mixture reads ``mixture.rows``."""
    mix = MixturePolicy([Constant(1), Constant(2)], ["a", "b"], [1, 1], n_games=4, seed=0)
    mix.assignment[:] = [1, 1, 0, 0]
    mix.rows = np.array([3, 0])
    np.testing.assert_array_equal(mix.act(*_batch(2)), [1, 2])


def test_mixture_redraws_once_per_episode_and_remembers_who_played() -> None:
    """A game keeps its opponent within an episode and redraws when its episode changes."""
    episodes = np.ones(200, np.int64)
    mix = MixturePolicy([Constant(1), Constant(2)], ["a", "b"], [1, 1], n_games=200, seed=3)
    mix.follow_episodes(lambda: episodes)
    rows = np.arange(200)
    first = mix.act(*_batch(200), rows=rows)
    np.testing.assert_array_equal(mix.act(*_batch(200), rows=rows), first)
    episodes[:100] += 1
    second = mix.act(*_batch(200), rows=rows)
    np.testing.assert_array_equal(second[100:], first[100:])
    assert (second[:100] != first[:100]).any()
    np.testing.assert_array_equal(mix.opponent_of(rows[:100], np.ones(100)), first[:100] - 1)
    np.testing.assert_array_equal(mix.opponent_of(rows[:100], np.full(100, 2)), second[:100] - 1)
    assert (mix.opponent_of([0], [7]) == -1).all()


def test_mixture_passes_keys_to_keyed_policies() -> None:
    """Per-game random keys reach the policies that take them, row for row."""
    from hgin_env.envs.policy import RandomPolicy

    mix = MixturePolicy([RandomPolicy(0), Constant(5)], ["r", "c"], [1, 1], n_games=3, seed=0)
    mix.assignment[:] = [0, 1, 0]
    masks = np.zeros((3, N_ACTIONS), bool)
    masks[:, [7, 9]] = True
    keys = np.array([1, 2, 3], np.uint64) << np.uint64(62)
    first = mix.act(None, masks, rows=np.arange(3), keys=keys)
    again = mix.act(None, masks, rows=np.arange(3), keys=keys)
    np.testing.assert_array_equal(first, again)
    assert first[1] == 5 and set(first[[0, 2]]) <= {7, 9}


def test_mixture_follows_the_weights() -> None:
    """Assignments are drawn with the configured weights."""
    mix = MixturePolicy([Constant(1), Constant(2)], ["a", "b"], [3, 1], n_games=4000, seed=0)
    assert mix.counts()[0] / 4000 == pytest.approx(0.75, abs=0.03)


def test_mixture_rejects_weights_without_a_positive_one() -> None:
    """All-zero or negative weights are refused."""
    with pytest.raises(ValueError, match="weights"):
        MixturePolicy([Constant(1)], ["a"], [0], n_games=2)


@pytest.fixture(scope="module")
def tiny_model():
    """A tiny MaskablePPO on a 2-game VecEnv (never trained)."""
    config = build_config({}, ["ppo.n_envs=2", "ppo.n_steps=8", "ppo.batch_size=16"])
    opponents = TrainingOpponents(config.opponents, 2, Path("unused"), 0)
    env = make_env(config, opponents)
    return MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [8]})


def test_pool_keeps_the_newest_snapshots(tmp_path: Path, tiny_model) -> None:
    """A full pool replaces its oldest snapshot and deletes that file."""
    pool = SnapshotPool(SelfPlayConfig(enabled=True, pool_size=2), tmp_path, seed=0)
    for steps in (100, 200, 300):
        tiny_model.num_timesteps = steps
        pool.add(tiny_model)
    assert [s.steps for s in pool.snapshots] == [200, 300]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "snapshot_000000000200.zip",
        "snapshot_000000000300.zip",
    ]
    assert pool.files(tmp_path) == ["snapshot_000000000200.zip", "snapshot_000000000300.zip"]


def test_pool_restores_from_files(tmp_path: Path, tiny_model) -> None:
    """A pool rebuilt from a checkpoint's file list plays like the saved snapshots."""
    config = SelfPlayConfig(enabled=True, pool_size=3, deterministic=True)
    pool = SnapshotPool(config, tmp_path / "pool", seed=0)
    tiny_model.num_timesteps = 50
    pool.add(tiny_model)
    again = SnapshotPool(config, tmp_path / "pool", seed=0)
    again.restore(tmp_path, pool.files(tmp_path))
    assert [s.steps for s in again.snapshots] == [50]
    obs = np.random.default_rng(0).random((5, OBS_DIM), dtype=np.float32)
    masks = np.random.default_rng(1).random((5, N_ACTIONS)) < 0.3
    np.testing.assert_array_equal(
        pool.snapshots[0].policy.act(obs, masks), again.snapshots[0].policy.act(obs, masks)
    )


@pytest.mark.parametrize(
    ("sampling", "expected"),
    [
        ("uniform", [1 / 3, 1 / 3, 1 / 3]),
        ("latest", [0.0, 0.0, 1.0]),
        ("recent", np.array([0.25, 0.5, 1.0]) / 1.75),
    ],
)
def test_pool_sampling_weights(tmp_path: Path, tiny_model, sampling, expected) -> None:
    """uniform, latest and recent (decay**age) sampling over the snapshots."""
    config = SelfPlayConfig(enabled=True, pool_size=3, sampling=sampling, decay=0.5)
    pool = SnapshotPool(config, tmp_path, seed=0)
    for steps in (10, 20, 30):
        tiny_model.num_timesteps = steps
        pool.add(tiny_model)
    np.testing.assert_allclose(pool.slot_weights(), expected)


def test_selfplay_share_applies_once_the_pool_has_a_snapshot(tmp_path: Path, tiny_model) -> None:
    """Before the first snapshot only the mix plays; after, the pool gets its weight."""
    config = build_config(
        {},
        ["opponents.mix={random: 1, simple: 3}", "opponents.selfplay.enabled=true",
         "opponents.selfplay.weight=0.4", "opponents.selfplay.pool_size=2"],
    )  # fmt: skip
    opponents = TrainingOpponents(config.opponents, 8, tmp_path, seed=0)
    np.testing.assert_allclose(opponents.mixture.probabilities, [0.25, 0.75, 0, 0])
    tiny_model.num_timesteps = 1000
    name = opponents.add_snapshot(tiny_model)
    assert name == "self@1000"
    np.testing.assert_allclose(opponents.mixture.probabilities, [0.15, 0.45, 0.4, 0])
    assert isinstance(opponents.mixture.policies[2], TorchPolicy)


def test_torch_policy_plays_only_legal_actions(tiny_model) -> None:
    """Greedy and sampled play both pick legal actions."""
    rng = np.random.default_rng(0)
    obs = rng.random((50, OBS_DIM), dtype=np.float32)
    masks = rng.random((50, N_ACTIONS)) < 0.1
    masks[:, 0] = True
    for deterministic in (True, False):
        actions = TorchPolicy(tiny_model.policy, deterministic, seed=0).act(obs, masks)
        assert masks[np.arange(50), actions].all()


def test_single_opponent_is_held_by_the_env_directly(tmp_path: Path) -> None:
    """One mix entry and no self-play: the env holds that bot itself, not the mixture."""
    config = build_config({}, ["ppo.n_envs=4", "ppo.batch_size=32", "opponents.mix={simple: 1}"])
    opponents = TrainingOpponents(config.opponents, 4, tmp_path, seed=0)
    env = make_env(config, opponents)
    assert env.venv.core.opponent is opponents.policy  # type: ignore[attr-defined]
    assert type(opponents.policy).__name__ == "SimpleBot"
    assert opponents.opponent_group(0, ended=True) == "simple"

"""Self-play on the rllib backend: the PettingZoo-based multi-agent env, the config, a run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray")

import agents  # noqa: E402, F401  - registers the bots
from agents.policies.model import load_policy  # noqa: E402
from agents.training.config import ConfigError, build_config  # noqa: E402
from agents.training.rllib.env import SHARED_MODULE, split_observation  # noqa: E402
from agents.training.rllib.selfplay import RLlibSelfPlayEnv, shared_policy  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SELFPLAY = {
    "experiment": "selfplay-tiny",
    "total_timesteps": 800,
    "progress_bar": False,
    "opponents": {"selfplay": {"enabled": True, "weight": 1.0}},
    "ppo": {"n_envs": 4, "n_steps": 40, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
    # simple knocks early, so its hands and series are short: a quick evaluation
    "eval": {"every_steps": 0, "n_series": 1, "n_hands": 10, "opponents": ["simple"]},
    "checkpoint": {"every_steps": 0, "keep": 2},
}


def make_env(seed: int, overrides: list[str] | tuple[str, ...] = ()) -> RLlibSelfPlayEnv:
    """A self-play env of the tiny config whose next game deals from ``seed``."""
    env = RLlibSelfPlayEnv({"config": build_config(SELFPLAY, list(overrides)).to_dict()})
    env.seed_games(seed)
    return env


def play_out(env: RLlibSelfPlayEnv, limit: int = 5000) -> tuple[list, dict, dict, dict]:
    """Play one game, both seats moved by the ``simple`` bot (it knocks early).

    Returns:
        (the acting agent's observation at every step, the last observations, the rewards
        summed per agent, the last terminateds).
    """
    obs, _ = env.reset()
    bot = load_policy("simple", 0)
    seen, totals = [], dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(limit):
        (agent,) = obs
        view, mask = split_observation(obs[agent])
        seen.append((agent, view.copy()))
        action = bot.act(view[None], mask[None] > 0)[0]
        obs, rewards, terminateds, truncateds, _ = env.step({agent: action})
        for name, reward in rewards.items():
            totals[name] += reward
        if terminateds["__all__"] or truncateds["__all__"]:
            return seen, obs, totals, terminateds
    raise AssertionError(f"no game ended in {limit} steps")


def test_only_the_agent_to_act_observes_until_the_game_ends():
    """Each step returns the next actor's view; the end gives both seats theirs, zero-sum."""
    scored = 0
    for seed in range(6):
        seen, last, totals, terminateds = play_out(make_env(seed))
        assert {agent for agent, _ in seen} == {"player_0", "player_1"}
        assert set(last) == {"player_0", "player_1"} and terminateds["__all__"]
        assert all(not split_observation(o)[1].any() for o in last.values())
        assert totals["player_0"] == -totals["player_1"]
        scored += totals["player_0"] != 0.0
        assert seen[0][1].dtype == last["player_0"].dtype == np.float32
    assert scored > 0, "no hand of six scored any points"


def test_the_same_seed_deals_the_same_game():
    """Two envs seeded alike play the same game; another seed deals another one."""
    first, again, other = (play_out(make_env(s))[0] for s in (5, 5, 6))
    assert len(first) == len(again)
    assert all(a == b and np.array_equal(x, y) for (a, x), (b, y) in zip(first, again, strict=True))
    assert not np.array_equal(first[0][1], other[0][1])


def test_an_illegal_or_misaddressed_action_raises():
    """An illegal id raises the engine's message; an action for the wrong agent is refused."""
    env = make_env(1)
    obs, _ = env.reset()
    (agent,) = obs
    illegal = int(np.flatnonzero(split_observation(obs[agent])[1] == 0)[0])
    with pytest.raises(ValueError, match=rf"{agent}: illegal action {illegal} "):
        env.step({agent: illegal})
    env = make_env(1)
    obs, _ = env.reset()
    (agent,) = obs
    other = "player_1" if agent == "player_0" else "player_0"
    with pytest.raises(ValueError, match=rf"{agent} is to act, but the actions are for"):
        env.step({other: 0})


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("opponents.selfplay.weight=0.5", "opponents.selfplay.weight"),
        ("opponents.selfplay.pool_size=3", "opponents.selfplay.pool_size"),
        ("opponents.selfplay.snapshot_every=1000", "opponents.selfplay.snapshot_every"),
        ("opponents.selfplay.sampling=latest", "opponents.selfplay.sampling"),
        ("opponents.selfplay.deterministic=true", "opponents.selfplay.deterministic"),
        ("env.agent_seat=0", "env.agent_seat"),
    ],
)
def test_snapshot_pool_fields_are_refused_by_name(override, field):
    """The SB3 pool's fields have no meaning in shared-policy self-play: refused, named."""
    from agents.training.rllib.backend import check_config

    check_config(build_config(SELFPLAY))  # the tiny config itself is accepted
    with pytest.raises(ConfigError, match=rf"^{field} is not supported by the rllib backend"):
        check_config(build_config(SELFPLAY, [override]))


def test_selfplay_maps_both_seats_onto_one_module():
    """The PPO config is multi-agent: the PettingZoo env, RLlib's sync vector, one module."""
    from agents.training.rllib.backend import algorithm_config

    algo = algorithm_config(build_config(SELFPLAY), env_runners=1)
    assert algo.env is RLlibSelfPlayEnv and algo.is_multi_agent
    assert set(algo.policies) == {SHARED_MODULE}
    assert {algo.policy_mapping_fn(a, None) for a in ("player_0", "player_1")} == {SHARED_MODULE}
    assert shared_policy("player_1") == SHARED_MODULE
    assert algo.gym_env_vectorize_mode == "sync" and algo.num_envs_per_env_runner == 4


@pytest.fixture(scope="module")
def selfplay_run(ray_local, tmp_path_factory):
    """A short self-play run (1 env runner) on the shared local cluster."""
    from agents.training.rllib.backend import train

    config = build_config(SELFPLAY, [f"runs_dir={tmp_path_factory.mktemp('runs')}"])
    return train(config, run_name="selfplay", address=ray_local.address, env_runners=1)


def test_a_selfplay_run_trains_one_policy_that_plays_without_ray(selfplay_run):
    """The run ends with a final model and an evaluation; the checkpoint plays via load_policy."""
    run = selfplay_run.run_dir
    assert selfplay_run.steps >= SELFPLAY["total_timesteps"]
    (ckpt,) = sorted((run / "checkpoints").glob("ckpt_*/"))
    spec = json.loads((ckpt / "hgin_policy.json").read_text())
    assert (ckpt / spec["weights"]).is_file()  # the shared module's weights, as data
    assert (ckpt / f"learner_group/learner/rl_module/{SHARED_MODULE}").is_dir()
    assert load_policy(str(ckpt)).name == ckpt.name
    history = json.loads((run / "eval.json").read_text())["history"]
    assert [h["steps"] for h in history] == [selfplay_run.steps]
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (events,) = (run / "tb").iterdir()
    tags = set(EventAccumulator(str(events)).Reload().Tags()["scalars"])
    assert {"eval/hand_win_rate/simple", "rollout/ep_len_mean"} <= tags
    assert "rollout/ep_rew_mean" not in tags  # zero-sum: both seats' returns cancel
    proc = subprocess.run(
        [sys.executable, "evaluate.py", str(ckpt), "simple", "--series", "1", "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "vs simple" in proc.stdout

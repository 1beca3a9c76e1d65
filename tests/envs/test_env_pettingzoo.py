"""The PettingZoo AEC env: PettingZoo's own tests, rewards per agent, and private observations."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.envs import pettingzoo_env
from hgin_env.envs.observation import encode_observations


@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("mode", ["hand", "series"])
def test_pettingzoo_api_test(mode):
    """PettingZoo's api_test passes in hand and series mode."""
    api_test(pettingzoo_env.env(mode=mode), num_cycles=300)


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_pettingzoo_seed_test(mode):
    """PettingZoo's seed_test passes: the same seed replays the same game."""
    seed_test(lambda: pettingzoo_env.env(mode=mode), num_cycles=200)


def play(env, rng: np.random.Generator, max_steps: int = 5000) -> dict[str, float]:
    """Play random legal moves to the end; return each agent's summed rewards."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for step, agent in enumerate(env.agent_iter()):
        obs, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()
        other = next(a for a in env.agents if a != agent)
        assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert step < max_steps
    return totals


def test_hand_rewards_are_zero_sum_and_scaled():
    """Hand mode: the winner gets +points/scale, the loser the opposite, and the game ends."""
    env = pettingzoo_env.env(reward_scale=10.0, rules=RulesConfig(knock_limit=40))
    rng = np.random.default_rng(0)
    nonzero = 0
    for seed in range(15):
        env.reset(seed=seed)
        totals = play(env, rng)
        assert totals["player_0"] == pytest.approx(-totals["player_1"])
        nonzero += totals["player_0"] != 0
        assert not env.agents
    assert nonzero > 0


def test_series_rewards_include_the_series_result():
    """Series mode: the last step pays the hand's points and +/- series_win_reward."""
    rules = RulesConfig(knock_limit=60, game_target=20)
    env = pettingzoo_env.env(mode="series", rules=rules, series_win_reward=5.0)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    hands = 0
    while not any(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        hands += bool(env.infos["player_0"].get("hand_over"))
    winner = int(env.unwrapped.sheets.series_winner[0])
    w, loser = f"player_{winner}", f"player_{1 - winner}"
    assert hands >= 3 and env.terminations[loser]
    assert env.rewards[w] == pytest.approx(env.infos[w]["hand_score"] / 100 + 5.0)
    assert env.rewards[loser] == pytest.approx(-env.rewards[w])


def test_truncation_on_max_turn_draw():
    """Hand mode: the max-turn draw truncates both agents."""
    env = pettingzoo_env.env(rules=RulesConfig(max_turns_per_hand=2))
    truncated = 0
    for seed in range(10):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                truncated += truncation
                env.step(None)
            else:
                env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert truncated > 0


def test_illegal_action_raises_or_penalizes():
    """An illegal action raises ValueError; with 'penalize' the offender loses and it ends."""
    env = pettingzoo_env.env()
    env.reset(seed=0)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=rf"{agent}: illegal action {illegal}"):
        env.step(illegal)
    env = pettingzoo_env.env(illegal_action="penalize", illegal_penalty=2.0)
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(illegal)
    assert env.terminations[agent] and env._cumulative_rewards[agent] == -2.0
    other = next(a for a in env.agents if a != agent)
    assert env._cumulative_rewards[other] == 0.0


def test_each_agent_sees_only_its_own_hand():
    """An agent's observation is its own seat's view and ignores the other's hidden cards."""
    env = pettingzoo_env.raw_env()
    env.reset(seed=3)
    rng = np.random.default_rng(2)
    for _ in range(40):
        agent = env.agent_selection
        engine = env.engine
        for seat, name in enumerate(env.possible_agents):
            obs = env.observe(name)["observation"]
            np.testing.assert_array_equal(obs, encode_observations(engine, np.array([seat]))[0])
            # swap the other seat's unknown cards with the stock: this view must not move
            twin = GinEngine(1, engine.rules, seed=0)
            twin.state = engine.state.rows(np.array([0]))
            s, other = twin.state, 1 - seat
            hidden = np.flatnonzero(s.hands[0, other] & ~s.known[0, other])
            pos = int(s.stock_pos[0])
            pool = rng.permutation(np.concatenate([hidden, s.deck[0, pos:].astype(np.int64)]))
            s.hands[0, other, hidden] = False
            s.hands[0, other, pool[: hidden.size]] = True
            s.deck[0, pos:] = pool[hidden.size :]
            env.engine = twin
            np.testing.assert_array_equal(env.observe(name)["observation"], obs)
            env.engine = engine
        mask = env.observe(agent)["action_mask"]
        assert mask.shape == (N_ACTIONS,)
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.reset(seed=int(rng.integers(1000)))


def test_render_ansi_shows_the_acting_agents_view():
    """render() returns the acting agent's view, named after the agents."""
    env = pettingzoo_env.env(render_mode="ansi", mode="series")
    env.reset(seed=0)
    text = env.render()
    assert env.agent_selection in text and "Game 1" in text and "Stock" in text


def test_pettingzoo_refuses_an_array_of_actions_clearly() -> None:
    """step(np.array([104, 105])) raises a ValueError asking for one action id."""
    env = pettingzoo_env.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="one action id expected"):
        env.step(np.array([104, 105]))

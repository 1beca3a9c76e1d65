"""The ``pimc`` search: legal, deterministic, blind to hidden cards, strict about its spec."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.search import search_decision, simple_positions

from agents.bots import SimpleBot
from agents.policies.model import PolicyLoadError, load_policy
from agents.search.pimc import PimcPolicy, parse_params
from agents.search.worlds import (
    believed_worlds,
    drop_loose,
    sample_worlds,
    seen_position,
    world_keys,
)
from hgin_env.engine.cards import N_CARDS, parse_cards
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.engine.melds import min_deadwood
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.policy import registered_policies

ROOT = Path(__file__).resolve().parents[3]


def test_pimc_is_registered_with_its_parameters_in_the_name():
    """``load_policy("pimc:...")`` builds the search with those parameters; the name is listed."""
    policy = load_policy("pimc:worlds=4,rollout=expert,objective=points,undercut_bonus=25")
    assert isinstance(policy, PimcPolicy)
    assert policy.params.worlds == 4 and policy.params.rollout == "expert"
    assert policy.params.rules.undercut_bonus == 25
    assert policy.name == (
        "pimc:worlds=4,top=0,z=1,rollout=expert,objective=points,undercut_bonus=25"
    )
    assert isinstance(load_policy("pimc"), PimcPolicy)
    assert "pimc" in registered_policies()
    # a model path as a parameter: still the search (not a model file named by the spec)
    with_prior = load_policy(f"pimc:worlds=4,prior={ROOT / 'models/ppo-cards'}")
    assert isinstance(with_prior, PimcPolicy) and with_prior.prior is not with_prior.rollout
    believing = load_policy("pimc:belief=deadwood,worlds=16")
    assert believing.name == (
        "pimc:worlds=16,top=0,z=1,belief=deadwood,rollout=simple,objective=series"
    )


@pytest.mark.parametrize(
    "spec, named",
    [
        ("pimc:worlds=0", "worlds"),
        ("pimc:worlds=ten", "worlds"),
        ("pimc:rollout=no-such-bot", "rollout"),
        ("pimc:rollout=pimc", "rollout"),
        ("pimc:objective=glory", "objective"),
        ("pimc:depth=3", "depth"),
        ("pimc:worlds=4,worlds=8", "worlds"),
        ("pimc:undercut_bonus=-1", "undercut_bonus"),
        ("pimc:worlds", "worlds"),
        ("pimc:z=-1", "z"),
        ("pimc:top=53", "top"),
        ("pimc:belief=psychic", "belief"),
        # the research options are not the product's
        ("pimc:split=true", "split"),
        ("pimc:evidence=0.5", "evidence"),
        ("pimc:belief=learned", "belief"),
        ("pimc:plans=0", "plans"),
        ("pimc:infer=1", "infer"),
        ("pimc:own=no-such-bot", "own"),
        ("pimc:own=pimc", "own"),
    ],
)
def test_a_bad_parameter_is_refused_naming_it(spec, named):
    """An out-of-range, unknown, repeated or malformed parameter raises naming the parameter."""
    with pytest.raises(PolicyLoadError, match=named):
        load_policy(spec)


def test_evaluate_cli_refuses_a_bad_parameter_with_exit_2():
    """``evaluate.py pimc:worlds=0 simple`` exits 2 with a one-line message naming ``worlds``."""
    proc = subprocess.run(
        [sys.executable, "evaluate.py", "pimc:worlds=0", "simple", "--series", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "worlds" in lines[0], proc.stderr


@pytest.mark.parametrize("belief", ["uniform", "deadwood"])
def test_worlds_keep_what_the_seat_sees_and_deal_the_rest(belief):
    """Every sampled world is a valid position with the seat's cards, pile and known pickups."""
    series = simple_positions(16, 7, seed=3)
    obs, masks, keys = search_decision(series)
    policy = PimcPolicy(parse_params("worlds=8"))
    seen = seen_position(obs, masks, policy.params.rules)
    if belief == "uniform":
        worlds = sample_worlds(seen, world_keys(keys, 8))
    else:
        worlds, _ = believed_worlds(seen, keys, 8)
    GinEngine.from_state(worlds).check_invariants()
    game = np.repeat(np.arange(16), 8)
    eng = series.engine
    me = eng.current_player.astype(np.int64)
    assert np.array_equal(worlds.hands[:, 0], eng.state.hands[np.arange(16), me][game])
    assert np.array_equal(worlds.in_pile, eng.state.in_pile[game])
    assert (worlds.hands[:, 1] >= eng.state.known[np.arange(16), 1 - me][game]).all()
    assert np.array_equal(52 - worlds.stock_pos, eng.stock_size[game])
    # the worlds differ from one another (the hidden cards are really redealt)
    assert len({worlds.hands[i, 1].tobytes() for i in range(8)}) > 1


def test_search_plays_legal_moves_through_whole_hands():
    """Seeded series of pimc (few worlds) against simple: every action is legal, hands end."""
    series = SeriesEngine(6, seed=11)
    series.reset()
    search, bot = PimcPolicy(parse_params("worlds=2"), seed=0), SimpleBot(0)
    hands = 0
    for _ in range(400):
        eng = series.engine
        obs = encode_observations(eng, eng.current_player, series.sheets)
        masks = eng.legal_action_mask()
        mine = eng.current_player == 0
        actions = bot.act(obs, masks)
        actions[mine] = search.act(obs[mine], masks[mine])
        assert masks[np.arange(eng.n), actions].all()
        hands += series.step(actions).rows.size
        if hands >= 12:
            break
    assert hands >= 12


@pytest.mark.parametrize("belief", ["uniform", "deadwood"])
def test_a_game_decides_the_same_alone_and_in_a_batch(belief):
    """With per-game keys, each row's decision does not depend on the other rows of the call."""
    series = simple_positions(12, 9, seed=5)
    obs, masks, keys = search_decision(series)
    policy = PimcPolicy(parse_params(f"worlds=6,belief={belief}"))
    together = policy.act(obs, masks, keys=keys)
    alone = [
        policy.act(obs[i : i + 1], masks[i : i + 1], keys=keys[i : i + 1])[0] for i in range(12)
    ]
    assert np.array_equal(together, alone)
    assert np.array_equal(together[::-1], policy.act(obs[::-1], masks[::-1], keys=keys[::-1]))


@pytest.mark.parametrize("belief", ["uniform", "deadwood"])
def test_the_decision_ignores_the_hidden_cards_and_the_stock_order(belief):
    """Redealing the opponent's hidden cards and the stock leaves the decision as it was."""
    series = simple_positions(10, 11, seed=8)
    obs, masks, keys = search_decision(series)
    policy = PimcPolicy(parse_params(f"worlds=8,objective=points,belief={belief}"))
    before = policy.act(obs, masks, keys=keys)
    from helpers.search import redeal_hidden

    assert redeal_hidden(series, np.random.default_rng(0)) > 5
    obs2, masks2, _ = search_decision(series)
    assert np.array_equal(obs, obs2) and np.array_equal(masks, masks2)
    assert np.array_equal(before, policy.act(obs2, masks2, keys=keys))


def test_search_finds_a_gin_knock():
    """Holding gin after the draw, the search knocks (gin beats every other candidate)."""
    from helpers.deck import deal, play

    eng = deal("AC 2C 3C 4D 5D 6D 7H 8H 9H KS", "JH 4C 5S 6S 7S 9C 9D 2H 3H KD", "QS", stock="TH")
    play(eng, "pass", "pass", "draw")  # the non-dealer draws TH: AC-3C 4D-6D 7H-TH KS
    obs = encode_observations(eng, eng.current_player)
    action = PimcPolicy(parse_params("worlds=4,objective=points")).act(
        obs, eng.legal_action_mask(), keys=np.array([1], np.uint64)
    )
    assert int(action[0]) == N_CARDS + 51  # knock, discarding KS (card 51)


def test_the_candidates_are_the_best_knock_the_top_discards_and_the_prior():
    """``top=2``: the 2 least-deadwood discards, the best knock and the prior; ``top=0``: all."""
    from helpers.deck import deal, play

    from agents.search.pimc import candidates

    eng = deal("AC 2C 3C 4D 5D 6D 7H 8H 9H KS", "JH 4C 5S 6S 7S 9C 9D 2H 3H KD", "QS", stock="TH")
    play(eng, "pass", "pass", "draw")  # AC-3C 4D-6D 7H-TH KS: KS is the only loose card
    obs, masks = encode_observations(eng, eng.current_player), eng.legal_action_mask()
    prior = np.array([13 + 3])  # discard 4D (card 16), breaking a run
    kept = candidates(obs, masks, prior, top=2)
    knocks = np.flatnonzero(kept[0, N_CARDS : 2 * N_CARDS])
    assert knocks.tolist() == [51]  # knock with KS (gin), the least deadwood
    # KS leaves 0; TH and 7H leave 10 (the run 7H-9H or 8H-TH stays), the higher id first
    assert np.flatnonzero(kept[0, :N_CARDS]).tolist() == [16, 35, 51]
    assert candidates(obs, masks, prior, top=0)[0, :N_CARDS].sum() == 11


def test_own_plays_the_searching_seat_of_the_rollouts_and_rollout_the_opponent():
    """``own=expert``: seat 0 (the searcher's) of every rollout plays expert, seat 1 simple."""
    from hgin_env.envs.policy import PolicyCall

    series = simple_positions(12, 9, seed=6)
    obs, masks, keys = search_decision(series)
    mixed = load_policy("pimc:worlds=8,own=expert,objective=points")
    assert mixed.name == "pimc:worlds=8,top=0,z=1,rollout=simple,own=expert,objective=points"
    seats = np.arange(12) % 2
    expert = PolicyCall.of(load_policy("expert"))(obs, masks, keys=keys)
    simple = SimpleBot(0).act(obs, masks)
    assert not np.array_equal(expert, simple)  # the two players differ on these rows
    played = mixed.rollouts._actions(seats, obs, masks, keys)
    assert np.array_equal(played, np.where(seats == 0, expert, simple))
    # and the rollouts use it: the candidates' values differ from simple's for both seats
    plain = load_policy("pimc:worlds=8,objective=points")
    seen = seen_position(obs, masks, RulesConfig())
    prior = simple.astype(np.int64)
    a = mixed.candidate_values(seen, masks, keys, prior)[0]
    b = plain.candidate_values(seen, masks, keys, prior)[0]
    assert np.isfinite(a).sum() == np.isfinite(b).sum() > 12
    assert not np.array_equal(a, b)


def test_a_training_config_accepts_a_search_and_refuses_a_bad_one(tmp_path):
    """``pretrain.teacher: pimc:...`` and a pimc training opponent pass; ``worlds=0`` is named."""
    from helpers.training import tiny_config

    from agents.training.schema import ConfigError

    tiny_config(tmp_path, "pretrain.teacher=pimc:worlds=2", "opponents.mix={pimc:worlds=2: 1}")
    with pytest.raises(ConfigError, match="pretrain.teacher.*worlds"):
        tiny_config(tmp_path, "pretrain.teacher=pimc:worlds=0")


def test_an_evaluation_split_across_workers_gives_the_one_process_result():
    """The search split over 2 processes equals the one-process evaluation (keyed worlds)."""
    from agents.evaluation import evaluate, processes

    kwargs = {"seed": 3, "progress": False, "max_hands_per_series": 3}
    one = evaluate("pimc:worlds=2,top=3", "simple", 4, **kwargs).to_dict()
    split = evaluate("pimc:worlds=2,top=3", "simple", 4, runner=processes(2), **kwargs).to_dict()
    for data in (one, split):
        data.pop("seconds")
        data.pop("series_per_second")
    assert one == split and one["hands"] >= 8


def test_the_search_is_a_training_opponent_by_name():
    """A ``HollywoodGinVecEnv`` with ``opponent="pimc:worlds=2"`` plays legal series steps."""
    from helpers.policies import assert_plays_legally

    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    env = HollywoodGinVecEnv(4, opponent="pimc:worlds=2,top=2", mode="series", seed=3)
    assert_plays_legally(SimpleBot(0), env, 30)
    env.close()


def test_the_search_records_demonstrations_as_a_pretrain_teacher():
    """``pretrain.record`` with ``pimc`` as the teacher keeps legal decisions (distillation)."""
    from agents.training.sb3.pretrain import record
    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    # hand mode: record keeps the decisions of ended episodes, and hands end soon
    env = HollywoodGinVecEnv(4, opponent="simple", mode="hand", seed=4)
    demos = record(env, load_policy("pimc:worlds=2,top=2", seed=1), 80, gamma=0.99)
    env.close()
    assert demos.actions.size == 80
    assert demos.masks[np.arange(80), demos.actions].all()


def test_the_search_plays_each_games_rules_from_its_observation():
    """Games under undercut bonus 10 and 25 in one call are searched under their own rules."""
    from agents.search.pimc import rule_groups
    from hgin_env.engine.config import RulesConfig

    obs = []
    for bonus in (10, 25, 10):
        eng = GinEngine(1, RulesConfig(undercut_bonus=bonus), seed=bonus)
        eng.reset()
        obs.append(encode_observations(eng, eng.current_player))
    groups = rule_groups(np.concatenate(obs), np.arange(3), RulesConfig(undercut_bonus=40))
    found = {rules.undercut_bonus: rows.tolist() for rows, rules in groups}
    assert found == {10: [0, 2], 25: [1]}


def test_drop_loose_drops_the_highest_loose_cards_and_keeps_the_fixed_ones():
    """From a table of cards: loose cards go highest first; melds and fixed cards stay."""
    hand = parse_cards("3S 4S 5S 7H 7D 7C KH QD 2C 9S JC AD")
    fixed = parse_cards("KH")  # a known pickup is never dropped
    out = drop_loose(hand[None], fixed[None], np.array([2]))[0]
    # loose: KH (fixed), QD, JC, 9S, 2C, AD -> QD and JC (both worth 10, higher id first)
    assert np.array_equal(out, parse_cards("3S 4S 5S 7H 7D 7C KH 2C 9S AD"))
    assert drop_loose(hand[None], fixed[None], np.array([0]))[0].tolist() == hand.tolist()


def test_the_deadwood_belief_deals_the_opponent_hands_as_good_as_real_ones():
    """Late in a hand a uniform deal gives the opponent a poor hand; the belief does not."""
    series = simple_positions(24, 24, seed=4)
    obs, masks, keys = search_decision(series)
    eng = series.engine
    live = np.flatnonzero(~eng.over & (masks.sum(axis=1) > 1))
    seen = seen_position(obs[live], masks[live], PimcPolicy().params.rules)
    uniform = sample_worlds(seen, world_keys(keys[live], 32))
    believed, wkeys = believed_worlds(seen, keys[live], 32)
    assert wkeys.shape == (live.size, 32)
    me = eng.current_player[live].astype(np.int64)
    true = eng.hand_deadwood(live, 1 - me).mean()
    u, b = min_deadwood(uniform.hands[:, 1]).mean(), min_deadwood(believed.hands[:, 1]).mean()
    assert b < u - 10 and abs(b - true) < abs(u - true)
    # a game's worlds come from its key alone
    one = seen_position(obs[live[:1]], masks[live[:1]], PimcPolicy().params.rules)
    again, _ = believed_worlds(one, keys[live[:1]], 32)
    assert np.array_equal(again.hands, believed.hands[:32])


def test_the_prior_decides_unless_a_candidate_beats_it_clearly():
    """With ``prior=expert`` and a test no candidate passes, the search plays expert's moves."""
    series = simple_positions(12, 9, seed=6)
    obs, masks, keys = search_decision(series)
    search = load_policy("pimc:worlds=4,z=10,prior=expert,belief=deadwood")
    expert = load_policy("expert")
    assert np.array_equal(search.act(obs, masks, keys=keys), expert.act(obs, masks, keys=keys))
    # without the prior the same search keeps its rollout policy's (simple's) moves
    plain = load_policy("pimc:worlds=4,z=10")
    assert np.array_equal(plain.act(obs, masks, keys=keys), SimpleBot(0).act(obs, masks))
    assert not np.array_equal(search.act(obs, masks, keys=keys), plain.act(obs, masks, keys=keys))

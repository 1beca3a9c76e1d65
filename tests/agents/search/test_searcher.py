"""The named search ``searcher`` and what it adds to ``pimc``: knock-only search, halving."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.search import search_decision, simple_positions

from agents.bots import SimpleBot
from agents.evaluation.match import policy_version
from agents.policies.model import PolicyLoadError, load_policy, policy_problem
from agents.registry import exact_name
from agents.search.params import parse_params
from agents.search.pimc import PimcPolicy, _better_half
from agents.search.searchers import SEARCHER_1, SEARCHER_4
from hgin_env.engine.actions import KNOCK, knock_legal
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.policy import registered_policies

#: a small searcher for the tests (the shipped one plays 128 worlds)
SMALL = "searcher@1:worlds=8"


@pytest.fixture(scope="module")
def small() -> PimcPolicy:
    """``searcher@1:worlds=8`` (loads ppo-league2 once for the module)."""
    policy = load_policy(SMALL, seed=0)
    assert isinstance(policy, PimcPolicy)
    return policy


def test_the_searcher_name_resolves_to_its_versioned_spec(small):
    """``searcher`` is the newest version (``searcher@4``); each version keeps its fixed spec."""
    assert "searcher" in registered_policies()
    assert policy_problem("searcher") is None and policy_problem("searcher@1:worlds=8") is None
    assert exact_name("searcher") == "searcher@4"
    assert SEARCHER_4.parameters() == parse_params(SEARCHER_4.params)
    assert small.name == "searcher@1:worlds=8"
    assert small.params == parse_params(SEARCHER_1.params.replace("worlds=128", "worlds=8"))
    assert small.params.spec() == (
        "pimc:worlds=8,top=0,z=1,belief=deadwood,rollout=ppo-league2,objective=points,"
        "decisions=knock,rounds=2"
    )
    # version 2 is version 1 with ppo-taught as the prior
    assert _params("searcher@2") == _params("searcher@1:prior=ppo-taught")
    # version 3 is version 2 with ppo-taught playing the searcher's seat of the rollouts
    assert _params("searcher@3") == _params("searcher@2:own=ppo-taught")
    # version 4 is version 3 also searching the moves ppo-taught is unsure of
    assert _params("searcher@4") == _params("searcher@3:close=1")
    for version in (1, 2, 3, 4):
        assert exact_name(f"searcher@{version}") == f"searcher@{version}"
    assert policy_version(small) == small.spec == "searcher@1:worlds=8"


def _params(spec: str):
    """The parameters a searcher name stands for (nothing is loaded)."""
    from agents.registry import maker
    from agents.search.searchers import Searcher

    found, options = maker(spec)
    assert isinstance(found, Searcher)
    return found.parameters(options)


def test_searcher_2_plays_ppo_taught_where_it_searches_nothing():
    """Off the knock decisions ``searcher@2`` plays ``ppo-taught``'s moves, not ppo-league2's."""
    series = SeriesEngine(16, seed=11)
    series.reset()
    eng = series.engine
    obs = encode_observations(eng, eng.current_player, series.sheets)
    masks = eng.legal_action_mask()
    assert not knock_legal(masks).any()
    two = load_policy("searcher@2:worlds=2", seed=0)
    taught = load_policy("ppo-taught", seed=0)
    assert np.array_equal(two.act(obs, masks), taught.act(obs, masks))


@pytest.mark.parametrize(
    "spec, named",
    [
        ("searcher@9", "searcher@1, searcher@2, searcher@3, searcher@4"),
        ("searcher@x", "searcher@1, searcher@2, searcher@3, searcher@4"),
        ("searcher:worlds=0", "worlds"),
        ("searcher:rounds=0", "rounds"),
        ("searcher:", "sets no option"),
        ("pimc:decisions=some", "decisions"),
        ("pimc:decisions=draw+knock", "decisions"),
        ("pimc:rounds=9", "rounds"),
        ("searcher:plans=0", "plans"),
        ("searcher:close=-1", "close"),
        ("searcher:close=near", "close"),
        ("pimc:close=1", "close needs a network"),
    ],
)
def test_a_bad_searcher_version_or_option_is_refused_naming_it(spec, named):
    """An unknown version, option or value of the searcher raises naming it, before any load."""
    with pytest.raises(PolicyLoadError, match=named):
        load_policy(spec)
    assert named.split("@")[0] in (policy_problem(spec) or "")


def test_the_knock_search_plays_the_prior_where_no_knock_is_legal(small):
    """Rows without a legal knock get ppo-league2's move; knock rows weigh knock vs go on."""
    series = simple_positions(16, 31, seed=7, knocks=False)
    obs, masks, keys = search_decision(series)
    knock_rows = knock_legal(masks)
    assert 3 <= knock_rows.sum() < 16
    prior = small.prior.act(obs, masks)
    cands = small._knock_candidates(obs, masks, keys, prior)
    assert (cands.sum(axis=1)[~knock_rows] == 1).all()
    assert cands[np.arange(16), prior].all()
    for row in np.flatnonzero(knock_rows):
        assert cands[row, KNOCK : KNOCK + N_CARDS].sum() >= 1  # a knock
        assert cands[row, :N_CARDS].sum() >= 1  # and going on
    actions = small.act(obs, masks, keys=keys)
    assert np.array_equal(actions[~knock_rows], prior[~knock_rows])
    assert masks[np.arange(16), actions].all()


@pytest.mark.parametrize("decisions", ["draw", "knock+draw"])
def test_the_draw_search_weighs_the_upcard_against_the_stock(small, decisions):
    """``decisions=draw``: every draw row has both its choices; ``knock+draw`` adds the knocks."""
    from hgin_env.engine.actions import DRAW, PASS, TAKE

    search = load_policy(f"{SMALL},decisions={decisions}", seed=0)
    assert search.name == f"{SMALL},decisions={decisions}"
    # half the games at a draw, half at a discard (where some may knock)
    parts = [
        search_decision(simple_positions(12, plies, seed=7, knocks=False)) for plies in (30, 31)
    ]
    obs, masks, keys = (np.concatenate(p) for p in zip(*parts, strict=True))
    draw_rows = masks[:, DRAW:].any(axis=1)
    knock_rows = knock_legal(masks)
    assert draw_rows.sum() >= 4 and knock_rows.sum() >= 3
    prior = search.prior.act(obs, masks)
    cands = search.searched_candidates(obs, masks, keys, prior)
    assert np.array_equal(cands[draw_rows], masks[draw_rows])
    assert set(np.flatnonzero(cands[draw_rows].any(axis=0))) <= {DRAW, TAKE, PASS}
    knocks = small._knock_candidates(obs, masks, keys, prior)
    other = ~draw_rows
    if decisions == "draw":
        assert (cands[other].sum(axis=1) == 1).all()
    else:
        assert np.array_equal(cands[other], knocks[other])
    actions = search.act(obs, masks, keys=keys)
    assert masks[np.arange(24), actions].all()
    assert np.array_equal(actions[other & ~knock_rows], prior[other & ~knock_rows])


def test_the_searcher_decides_the_same_alone_and_in_a_batch(small):
    """With per-game keys a knock decision does not depend on the other rows of the call."""
    series = simple_positions(12, 35, seed=9, knocks=False)
    obs, masks, keys = search_decision(series)
    together = small.act(obs, masks, keys=keys)
    alone = [
        small.act(obs[i : i + 1], masks[i : i + 1], keys=keys[i : i + 1])[0] for i in range(12)
    ]
    assert np.array_equal(together, alone)
    assert np.array_equal(together[::-1], small.act(obs[::-1], masks[::-1], keys=keys[::-1]))


def test_the_searcher_ignores_the_hidden_cards_and_the_stock_order(small):
    """Redealing the opponent's hidden cards and the stock leaves every decision as it was."""
    series = simple_positions(12, 31, seed=8, knocks=False)
    obs, masks, keys = search_decision(series)
    assert knock_legal(masks).sum() >= 3
    before = small.act(obs, masks, keys=keys)
    from helpers.search import redeal_hidden

    assert redeal_hidden(series, np.random.default_rng(0)) > 5
    obs2, masks2, _ = search_decision(series)
    assert np.array_equal(obs, obs2) and np.array_equal(masks, masks2)
    assert np.array_equal(before, small.act(obs2, masks2, keys=keys))


def test_better_half_keeps_each_games_better_half_of_its_live_candidates():
    """Per game, the ceil(k/2) best means of the live entries survive; dead ones stay dead."""
    game = np.array([0, 0, 0, 1, 1, 1, 1, 2])
    per_world = np.array([[1.0], [3.0], [2.0], [0.0], [5.0], [4.0], [9.0], [7.0]])
    alive = np.array([True, True, True, True, True, True, False, True])
    kept = _better_half(per_world, np.ones_like(per_world), game, alive)
    # game 0: 3 live -> the best 2 (3.0, 2.0); game 1: 3 live (9.0 is dead) -> 5.0, 4.0
    assert kept.tolist() == [False, True, True, False, True, True, False, True]


def test_halving_plays_fewer_rollouts_and_one_round_is_the_plain_search():
    """``rounds=2`` drops candidates after half the worlds; ``rounds=1`` is pimc's old play."""
    series = simple_positions(8, 25, seed=3, knocks=False)
    obs, masks, keys = search_decision(series)
    plain = PimcPolicy(parse_params("worlds=8,top=6,objective=points"))
    one = PimcPolicy(parse_params("worlds=8,top=6,objective=points,rounds=1"))
    two = PimcPolicy(parse_params("worlds=8,top=6,objective=points,rounds=2"))
    assert one.name == plain.name  # the default round count is not in the name
    acts = [p.act(obs, masks, keys=keys) for p in (plain, one, two)]
    assert np.array_equal(acts[0], acts[1])
    assert one.rollout_actions == plain.rollout_actions
    assert 0 < two.rollout_actions < 0.8 * one.rollout_actions
    assert masks[np.arange(8), acts[2]].all()


def test_the_searcher_is_a_training_opponent_by_name(tmp_path):
    """``opponents.mix`` takes a searcher; a VecEnv against it plays legal series steps."""
    from helpers.policies import assert_plays_legally
    from helpers.training import tiny_config

    from agents.training.schema import ConfigError
    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    tiny_config(tmp_path, "opponents.mix={searcher:worlds=2: 1}")
    with pytest.raises(ConfigError, match="searcher@1"):
        tiny_config(tmp_path, "opponents.mix={searcher@7: 1}")
    env = HollywoodGinVecEnv(4, opponent="searcher:worlds=2", mode="series", seed=3)
    assert_plays_legally(SimpleBot(0), env, 40)
    env.close()


def test_close_calls_are_searched_between_the_priors_two_best_actions():
    """``close=1``: unsearched rows whose two best legal logits are < 1 apart get both."""
    search = load_policy("searcher@3:worlds=8,close=1", seed=0)
    assert search.params.spec().endswith(",close=1")
    parts = [
        search_decision(simple_positions(16, plies, seed=7, knocks=False)) for plies in (30, 31)
    ]
    obs, masks, keys = (np.concatenate(p) for p in zip(*parts, strict=True))
    prior = search.prior.act(obs, masks).astype(np.int64)
    cands = search.searched_candidates(obs, masks, keys, prior)
    knocks = knock_legal(masks)
    bare = load_policy("searcher@3:worlds=8", seed=0).searched_candidates(obs, masks, keys, prior)
    assert np.array_equal(cands[knocks], bare[knocks])  # the knock rows as before
    logits = np.where(masks, search.prior.logits(obs), -np.inf)
    ordered = np.sort(logits, axis=1)
    near = (ordered[:, -1] - ordered[:, -2] < 1) & ~knocks
    assert 3 <= near.sum() < (~knocks).sum()
    assert (cands[near].sum(axis=1) == 2).all() and cands[np.arange(32), prior].all()
    second = np.argsort(-logits, axis=1, kind="stable")[:, 1]
    assert cands[np.flatnonzero(near), second[near]].all()
    assert (cands[~near & ~knocks].sum(axis=1) == 1).all()
    actions = search.act(obs, masks, keys=keys)
    assert masks[np.arange(32), actions].all()
    changed = actions != prior
    assert (near | knocks)[changed].all()  # only a searched row may leave the prior

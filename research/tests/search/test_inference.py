"""The belief from the opponent's last discard (``research.search.inference``)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.search import search_decision

from agents.bots import SimpleBot
from agents.policies.model import load_policy
from agents.search.worlds import believed_worlds, seen_position
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import Phase
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import OBS_LAYOUT, PHASE_DISCARD, encode_observations
from research.search.inference import discard_log_likelihoods, last_discard, past_observations

RULES = RulesConfig()
#: blocks rebuilt exactly (the others: see ``test_the_rebuilt_observation_...``)
EXACT = [
    name
    for name in OBS_LAYOUT
    if name not in ("top_discard", "pile_below", "opponent_known", "own_discards", "deadwood")
]


def _discards_then_replies(games: int, seed: int):
    """Simple bots play series; yield each opponent discard and the replies to it.

    Yields ``(obs_then, mask_then, obs_now, mask_now, opponent_hand_now)``: the
    opponent's own observation and legal mask when it threw the card, and the next seat's
    observation and mask on each of its decisions before the opponent acts again (its
    draw, then its discard), with the opponent's hand then. The score sheets are in play.
    """
    series = SeriesEngine(games, RULES, seed=seed)
    series.reset()
    bot = SimpleBot(seed, rules=RULES)
    thrown_by: dict[int, tuple] = {}
    for _ in range(400):
        engine = series.engine
        seats = engine.current_player.astype(np.int64)
        obs = encode_observations(engine, seats, series.sheets)
        masks = engine.legal_action_mask()
        for g in range(games):
            then = thrown_by.get(g)
            hand = (int(series.series_counter[g]), int(series.hands_played[g]))
            if then is None or then[0] == seats[g] or then[1] != hand:
                thrown_by.pop(g, None)  # the opponent acts, or a new hand began
                continue
            yield then[2], then[3], obs[g], masks[g], engine.state.hands[g, 1 - seats[g]]
        actions = bot.act(obs, masks)
        for g in range(games):
            if engine.state.phase[g] == Phase.DISCARD and actions[g] < N_CARDS:
                hand = (int(series.series_counter[g]), int(series.hands_played[g]))
                thrown_by[g] = (seats[g], hand, obs[g].copy(), masks[g].copy())
        series.step(actions)


def test_the_rebuilt_observation_is_the_one_the_opponent_had():
    """From the next seat's view and the opponent's hand, the discard's observation is rebuilt.

    Every block but the pile's order, the seat's pickups and a card thrown twice is exact;
    those differ only as documented.
    """
    checked = exact_rows = took = drew = sheets = 0
    L = OBS_LAYOUT
    for then, mask_then, now, mask_now, hand in _discards_then_replies(64, seed=3):
        seen = seen_position(now[None], mask_now[None], RULES)
        thrown = last_discard(seen)
        assert thrown[0] >= 0  # the opponent's last action was this discard
        assert hand[thrown[0]] == 0 and then[L["hand"].start + thrown[0]] == 1
        past, mask = past_observations(
            now[None], seen.taken, thrown, hand[None], RULES.max_turns_per_hand
        )
        past, mask = past[0], mask[0]
        checked += 1
        discarding = now[L["phase"].start + PHASE_DISCARD] == 1
        took += bool(discarding and seen.taken[0] >= 0)
        drew += bool(discarding and seen.taken[0] < 0)
        sheets += bool(now[L["my_scores"]].any() and now[L["opp_scores"]].any())
        for name in EXACT:
            assert np.allclose(past[L[name]], then[L[name]]), name
        pile = past[L["top_discard"]] + past[L["pile_below"]]
        assert np.array_equal(pile, then[L["top_discard"]] + then[L["pile_below"]])
        assert not past[L["top_discard"]].any()
        for name in ("opponent_known", "own_discards"):  # a subset: what the seat saw
            assert (past[L[name]] <= then[L[name]]).all(), name
        assert (mask >= mask_then).all()  # at most the card it took from the pile more
        assert np.flatnonzero(mask != mask_then).size <= 2
        rest = ("opponent_known", "own_discards", "deadwood")
        same = all(np.array_equal(past[L[name]], then[L[name]]) for name in rest)
        exact_rows += bool(same and np.array_equal(mask, mask_then))
    assert checked > 3000 and min(took, drew, sheets) > 300  # every branch, sheets in play
    assert exact_rows > 0.7 * checked


def test_the_true_hand_explains_the_discard_better_than_the_worlds():
    """Under the model that played, the opponent's real hand makes its discard likelier."""
    model = load_policy("ppo-league2", 0)
    series = SeriesEngine(32, seed=11)
    series.reset()
    for _ in range(14):  # the network plays both seats
        eng = series.engine
        obs = encode_observations(eng, eng.current_player, series.sheets)
        series.step(model.act(obs, eng.legal_action_mask()))
    obs, masks, keys = search_decision(series)
    seen = seen_position(obs, masks, RULES)
    eng = series.engine
    live = np.flatnonzero(~eng.over & (last_discard(seen) >= 0))
    assert live.size > 10
    true_hand = eng.state.hands[live, 1 - eng.current_player[live]]
    sub, seen_live = obs[live], seen_position(obs[live], masks[live], RULES)
    worlds, _ = believed_worlds(seen_live, keys[live], 16)
    turns = RULES.max_turns_per_hand
    truth = discard_log_likelihoods(model, seen_live, sub, true_hand, 1, turns)
    sampled = discard_log_likelihoods(model, seen_live, sub, worlds.hands[:, 1], 16, turns)
    assert (truth <= 0).all() and (sampled <= 0).all() and np.isfinite(sampled).all()
    assert truth[:, 0].mean() > sampled.mean() + 0.5


def test_a_bot_model_gives_its_own_discard_full_weight():
    """A deterministic model: 1 where it would have thrown the card, the floor elsewhere.

    The bot that played gives its real hand full weight nearly always (not always: the
    rebuilt observation lacks the card it may have just taken, and the pile's order).
    """
    from research.search.inference import BOT_FLOOR

    chances = []
    for _then, _mask, now, mask_now, hand in _discards_then_replies(32, seed=4):
        seen = seen_position(now[None], mask_now[None], RULES)
        chance = discard_log_likelihoods(
            SimpleBot(0, rules=RULES), seen, now[None], hand[None], 1, 200
        )
        chances.append(float(np.exp(chance[0, 0])))
    assert len(chances) > 200 and np.isclose(sorted(set(chances)), [BOT_FLOOR, 1.0]).all()
    assert np.mean(np.array(chances) == 1.0) > 0.9


def test_no_discard_yet_leaves_every_world_at_a_chance_of_one():
    """Before the opponent has discarded (the first upcard offer), no world is weighed."""
    series = SeriesEngine(6, seed=1)
    series.reset()
    obs, masks, keys = search_decision(series)
    seen = seen_position(obs, masks, RULES)
    assert (last_discard(seen) == -1).all()
    worlds, _ = believed_worlds(seen, keys, 4)
    chance = discard_log_likelihoods(SimpleBot(0), seen, obs, worlds.hands[:, 1], 4, 200)
    assert (chance == 0.0).all()


def test_the_weights_of_a_sure_model_do_not_all_vanish():
    """Weighed in logs: however unlikely every world, the likeliest of a game weighs 1."""
    from research.search.inference import inferred_weights

    log_chance = np.array([[-400.0, -420.0, -900.0], [0.0, -1.0, -2.0]])
    weights = inferred_weights(log_chance, 10.0)
    assert np.isfinite(weights).all() and (weights.max(axis=1) == 1.0).all()
    assert weights[0, 1] < 1e-80 and weights[1, 1] == pytest.approx(np.exp(-10.0))
    assert (inferred_weights(log_chance, 0.0) == 1.0).all()

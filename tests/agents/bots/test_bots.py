"""The rule bots: legal play, determinism, their stated strategies and their strength."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from helpers.deck import make_deck

from agents import ExpertBot, PatientBot, SimpleBot, TempoBot, evaluate
from agents.bots import SimpleBotV1
from hgin_env.engine import DRAW, KNOCK, PASS, TAKE, GinEngine, RulesConfig
from hgin_env.engine.cards import card_id
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.play import play_batch
from hgin_env.envs.policy import RandomPolicy, resolve_policy

BOTS = {
    "random": RandomPolicy,
    "simple": SimpleBot,
    "expert": ExpertBot,
    "patient": PatientBot,
    "tempo": TempoBot,
    "simple@1": SimpleBotV1,
}


class Unkeyed:
    """A policy called without keys, so it draws from its own seeded generator."""

    def __init__(self, policy) -> None:
        self.policy = policy

    def act(self, observations, action_masks):
        """The wrapped policy's actions, its keys withheld."""
        return self.policy.act(observations, action_masks)


def play_hands(policies, n_games, steps, seed, rules=None, keyed=False):
    """Seeded play of ``policies[seat]`` for ``steps`` steps of N series (``play_batch``).

    Every action is checked legal and the engine's invariants after every step. With
    ``keyed`` the policies get ``play_batch``'s per-game keys, else none. Returns
    int64[steps, N], the actions.
    """
    series = SeriesEngine(n_games, rules, seed=seed)
    series.reset()
    history = []
    a, b = (p if keyed else Unkeyed(p) for p in policies)

    def check_legal(actions: np.ndarray) -> None:
        live = ~series.engine.over
        legal = series.engine.legal_action_mask()[np.arange(n_games), actions]
        assert legal[live].all(), (
            f"illegal action {actions[live & ~legal][0]} in game {np.flatnonzero(live & ~legal)[0]}"
        )
        history.append(actions.copy())

    def check_step(step, running) -> np.ndarray:
        series.engine.check_invariants()
        return np.full(n_games, len(history) >= steps)

    play_batch(series, a, b, 0, before_step=check_legal, after_step=check_step)
    return np.array(history)


def observe(eng: GinEngine) -> tuple[np.ndarray, np.ndarray]:
    """The acting seats' observations and masks."""
    return encode_observations(eng, eng.current_player), eng.legal_action_mask()


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("simple", "random"),
        ("expert", "random"),
        ("expert", "simple"),
        ("patient", "random"),
        ("patient", "expert"),
        ("tempo", "random"),
        ("tempo", "patient"),
        ("simple@1", "simple"),
    ],
)
def test_bots_only_choose_legal_actions(a, b):
    """Over long seeded play (both seats, hands re-dealt) every bot action is legal."""
    play_hands([BOTS[a](1), BOTS[b](2)], n_games=32, steps=150, seed=11)


@pytest.mark.parametrize(
    "rules",
    [
        RulesConfig(knock_limit=0),
        RulesConfig(knock_limit=25, allow_rediscard=True),
        RulesConfig(big_gin_bonus=31, max_turns_per_hand=12),
    ],
)
def test_bots_stay_legal_under_rule_options(rules):
    """The bots read legality from the mask, so rule options never make them act illegally."""
    play_hands([ExpertBot(3), SimpleBot(4)], n_games=24, steps=80, seed=5, rules=rules)
    play_hands(
        [PatientBot(3, rules), TempoBot(4, rules)], n_games=24, steps=80, seed=6, rules=rules
    )


@pytest.mark.parametrize("name", ["simple", "expert", "patient", "tempo", "simple@1"])
def test_bots_are_deterministic_for_a_seed(name):
    """The same seed gives the same actions; the seed only breaks ties."""
    runs = [
        play_hands([BOTS[name](seed), RandomPolicy(9)], n_games=8, steps=120, seed=2)
        for seed in (7, 7)
    ]
    assert np.array_equal(runs[0], runs[1])


def test_bots_are_registered_by_name():
    """``resolve_policy`` builds the bots by name once ``agents`` registers them."""
    assert isinstance(resolve_policy("simple", 0), SimpleBot)
    assert isinstance(resolve_policy("expert", 0), ExpertBot)
    assert isinstance(resolve_policy("random", 0), RandomPolicy)
    assert isinstance(resolve_policy("patient", 0), PatientBot)
    assert isinstance(resolve_policy("tempo", 0), TempoBot)


#: sha256 prefixes of the actions of ``simple`` (seat 0) against ``expert`` (seat 1) in
#: 24 series of 160 steps, seed 21, without keys and with keys (``play_hands``): measured
#: when this loop moved onto ``play_batch``, on bots that still gave the pins measured
#: before the ``Bot`` base class (commit 3d0e625) under the old loop, so a change of their
#: play shows here (a changed bot needs a new version, see agents.registry)
PINNED_PLAY = {False: "de959226aa256ee2", True: "7b7cfcb5551576cb"}


@pytest.mark.parametrize("keyed", [False, True])
def test_simple_and_expert_play_exactly_as_pinned(keyed):
    """A seeded batch of simple against expert gives the very actions it gave before."""
    history = play_hands([SimpleBot(5), ExpertBot(6)], n_games=24, steps=160, seed=21, keyed=keyed)
    digest = hashlib.sha256(history.astype(np.int64).tobytes()).hexdigest()[:16]
    assert digest == PINNED_PLAY[keyed]


def test_simple_takes_the_upcard_only_to_meld():
    """Simple takes an upcard that makes a run with its hand and passes one that melds nothing."""
    non_dealer = "7H 8H 2C 5C 9C JD QD KS 4S 3D"
    dealer = "AC 3C 6D 8D TD 2H 4H 6S 8S TS"
    eng = GinEngine(2, seed=0)
    eng.reset(
        decks=np.stack([make_deck(non_dealer, dealer, "9H"), make_deck(non_dealer, dealer, "KC")]),
        dealers=1,
    )
    actions = SimpleBot(0).act(*observe(eng))
    assert actions.tolist() == [TAKE, PASS]


def test_simple_takes_an_upcard_that_lets_it_knock_and_knocks_at_once():
    """Simple takes an upcard that melds nothing but lets it knock, then knocks with its king."""
    non_dealer = "AC 2C 3C 4D 5D 6D 7S 8S 9S KH"
    dealer = "AH 3H 5H 7H 9H JC QC 2D 8D TD"
    eng = GinEngine(1, seed=0)
    eng.reset(decks=make_deck(non_dealer, dealer, "2H"), dealers=1)
    bot = SimpleBot(0)
    assert int(bot.act(*observe(eng))[0]) == TAKE  # 2H melds nothing, but KH can go
    eng.step(np.array([TAKE]))
    assert int(bot.act(*observe(eng))[0]) == KNOCK + card_id("KH")


def test_simple_knocks_with_its_highest_unmelded_card():
    """After a stock draw that lets it knock, simple knocks, throwing its highest loose card."""
    non_dealer = "AC 2C 3C 4D 5D 6D 7S 8S 5H KH"
    dealer = "AH 3H 6H 7H 9H JC QC 2D 8D TD"
    eng = GinEngine(1, seed=0)
    eng.reset(decks=make_deck(non_dealer, dealer, "QH", stock="9S"), dealers=1)
    bot = SimpleBot(0)
    assert int(bot.act(*observe(eng))[0]) == PASS  # QH melds nothing, no knock with it
    eng.step(np.array([PASS]))
    eng.step(np.array([PASS]))  # the dealer passes too
    eng.step(np.array([DRAW]))  # forced stock draw: 9S melds 7S 8S, 5H + KH = 15 left
    assert int(bot.act(*observe(eng))[0]) == KNOCK + card_id("KH")


def test_expert_goes_gin_and_takes_a_meld_card():
    """The expert takes a discard that completes a meld and knocks at once with gin."""
    non_dealer = "AC 2C 3C 4D 5D 6D 7S 8S 9S KH"
    dealer = "AH 3H 5H 7H 9H JC QC 2D 8D TD"
    eng = GinEngine(1, seed=0)
    eng.reset(decks=make_deck(non_dealer, dealer, "KS"), dealers=1)
    bot = ExpertBot(0)
    eng.step(bot.act(*observe(eng)))  # KS melds nothing
    assert eng.state.passes[0] == 1
    eng.reset(decks=make_deck(non_dealer, dealer, "TS"), dealers=1)
    assert int(bot.act(*observe(eng))[0]) == TAKE
    eng.step(np.array([TAKE]))
    assert int(bot.act(*observe(eng))[0]) == KNOCK + card_id("KH")  # gin: deadwood 0


def test_simple_beats_random_in_95_percent_of_hands():
    """Simple wins at least 95% of the hands against random (about 180 hands, fixed seed)."""
    res = evaluate("simple", "random", n_series=40, seed=1, progress=False)
    assert res.hands >= 150
    assert res.hand_win_rate >= 0.95


def test_expert_beats_simple_in_more_than_half_of_the_hands():
    """The expert wins more than half the hands against simple, the 95% interval included.

    About 2,700 hands in duplicate series (each deal sequence played from both seats):
    the measured rate is about 55%, four standard errors above one half.
    """
    res = evaluate("expert", "simple", n_series=96, seed=3, duplicate=True, progress=False)
    assert res.hands >= 2400
    assert res.hand_win_rate > 0.5
    assert res.hand_win_ci[0] > 0.5


@pytest.mark.slow
def test_expert_beats_simple_in_most_series():
    """Over 1,000 duplicate series the expert wins more than 60% of the series against simple."""
    res = evaluate("expert", "simple", n_series=500, seed=4, duplicate=True, progress=False)
    assert res.series_win_ci[0] > 0.55
    assert res.series_win_rate > 0.6

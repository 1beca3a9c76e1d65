"""The ``simple`` bot's classic strategy (OpenSpiel's simple gin rummy bot), phase by phase.

Each position is dealt from card strings; the non-dealer (seat 1) is to act on the
first-turn offer, or, after ``take``, in its discard phase. Ties are checked over many
per-game keys: the set of actions the bot takes across keys.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.deck import deal, play

from agents.bots.features import random_best_deadwood
from agents.bots.simple import SimpleBot
from hgin_env.engine.actions import action_text
from hgin_env.engine.cards import N_CARDS, card_text, parse_card_list
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.observation import encode_observations

#: a dealer hand that shares no card with the positions below
DEALER = "AS 2D 5H 6C TC JC QC 3S 4H KD"
KEYS = np.arange(1, 65, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)


def choices(eng, rules: RulesConfig | None = None) -> set[str]:
    """The actions simple takes at the engine's position over 64 different keys, as texts."""
    obs = encode_observations(eng, eng.current_player)
    masks = eng.legal_action_mask()
    reps = KEYS.size
    actions = SimpleBot(0, rules=rules).act(
        np.repeat(obs, reps, 0), np.repeat(masks, reps, 0), KEYS
    )
    assert masks[0, actions].all()
    return {action_text(a) for a in actions}


def mask_of(text: str) -> np.ndarray:
    """A card string as a ``bool[1, 52]`` hand."""
    hand = np.zeros((1, N_CARDS), bool)
    hand[0, parse_card_list(text)] = True
    return hand


# ------------------------------------------------------------------ offer and draw
OFFERS = [
    # (hand, upcard, what simple does, why)
    ("7H 8H 2C 5C 9C JD QD KS 4S 3D", "9H", {"take"}, "makes the run 7H 8H 9H"),
    ("7H 8H 2C 5C 9C JD QD KS 4S 3D", "KC", {"pass"}, "melds nothing, no knock"),
    ("AC 2C 3C 4C 9D TD JD QD 3H JH", "JS", {"pass"},
     "three jacks would break the run 9D-QD: JS is not in the best arrangement"),
    ("AC 2C 3C 4D 5D 6D 7C 8C 9C KH", "QS", {"take"},
     "melds nothing, but then KH goes and 10 points are left: a knock"),
    ("8C 8D 7C 9C KS QH JD 2S 4D 6H", "8H", {"take", "pass"},
     "8C 8D 8H or 7C 8C 9C leave the same deadwood: 8H is melded in one of the two"),
]  # fmt: skip


@pytest.mark.parametrize(("hand", "upcard", "expected", "why"), OFFERS)
def test_simple_takes_the_upcard_by_the_classic_rule(hand, upcard, expected, why):
    """Take when the card lets it knock or is melded in the best arrangement, else pass."""
    eng = deal(hand, DEALER, upcard)
    assert choices(eng) == expected, why


def test_simple_judges_a_knock_with_the_rules_it_is_given():
    """Whether taking lets it knock depends on the knock limit and on ``allow_rediscard``."""
    hand = "AC 2C 3C 4D 5D 6D 7C 8C 9C 2H"  # 2 points
    assert choices(deal(hand, DEALER, "KS")) == {"take"}  # then 2H goes: 10 left, a knock
    limit9 = RulesConfig(knock_limit=9)
    assert choices(deal(hand, DEALER, "KS", rules=limit9), limit9) == {"pass"}
    rediscard = RulesConfig(knock_limit=9, allow_rediscard=True)
    assert choices(deal(hand, DEALER, "KS", rules=rediscard), rediscard) == {"take"}  # KS back


def test_simple_reads_each_games_knock_limit_from_the_observation():
    """Built with the default rules, it still judges a knock by the game's own limit."""
    hand = "AC 2C 3C 4D 5D 6D 7C 8C 9C 2H"  # take KS, throw 2H: 10 left
    assert choices(deal(hand, DEALER, "KS", rules=RulesConfig(knock_limit=9))) == {"pass"}
    assert choices(deal(hand, DEALER, "KS", rules=RulesConfig(knock_limit=10))) == {"take"}


# ------------------------------------------------------------------ discard and knock
DISCARDS = [
    # (hand, upcard taken, what simple does, why)
    ("AC 2C 3C 4D 5D 6D 9C TH KS 2S", "7D", {"discard KS"},
     "highest rank of the unmelded TH KS 9C 2S (TH and KS both count 10)"),
    ("AC 2C 3C 4D 5D 6D 9C KH KS 2S", "7D", {"discard KH", "discard KS"},
     "two kings: one at random"),
    ("AC 2C 3C 4D 5D 6D 7S 8S 9S KH", "9H", {"knock KH"},
     "after taking 9H, KH leaves 9 points: it knocks at once"),
    ("AC 2C 3C 4C 4D 5D 6D 7S 8S 9S", "TS", {"knock AC", "knock 4C", "knock 7S"},
     "all 11 cards meld: a card whose discard keeps gin (not TS, just taken)"),
]  # fmt: skip


@pytest.mark.parametrize(("hand", "upcard", "expected", "why"), DISCARDS)
def test_simple_discards_and_knocks_by_the_classic_rule(hand, upcard, expected, why):
    """Knock when it may; throw the highest-rank unmelded card of the best arrangement."""
    eng = deal(hand, DEALER, upcard)
    play(eng, "take")
    assert choices(eng) == expected, why


# ------------------------------------------------------------------ arrangements
def test_random_best_deadwood_draws_each_arrangement_from_the_uniform():
    """The choice follows the uniform number: low and high numbers give the two sets."""
    hand = mask_of("8C 8D 8H 7C 9C KS")
    low, high = random_best_deadwood(np.repeat(hand, 2, 0), np.array([0.1, 0.9]))
    picked = {frozenset(card_text(c) for c in np.flatnonzero(x)) for x in (low, high)}
    assert picked == {frozenset({"7C", "9C", "KS"}), frozenset({"8D", "8H", "KS"})}

"""The styles of the ``patient`` and ``tempo`` bots, their options and the bots' versions.

Positions are dealt from card strings. The non-dealer (seat 1) holds the hand; both
players pass the upcard, then each turn before the one under test both players draw a
filler card from the stock and throw it straight back, so the non-dealer reaches its
turn ``t`` with its hand unchanged and then draws the card named in the table.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.actions import random_legal
from helpers.deck import deal, play

from agents import ExpertBot, PatientBot, TempoBot
from agents.bots import SimpleBot, SimpleBotV1
from agents.bots.base import own_turn
from agents.registry import VERSIONS, exact_name
from hgin_env.engine import GinEngine
from hgin_env.engine.actions import KNOCK, action_text
from hgin_env.engine.cards import N_CARDS, card_text, parse_card_list
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.observation import decode_observations, encode_observations
from hgin_env.envs.policy import resolve_policy

#: a dealer hand that shares no card with the positions below
DEALER = "AS 2D 5H 6C TC JC QC 3S 4H KD"
UPCARD = "JS"
KEYS = np.arange(1, 33, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)


def at_turn(hand: str, drawn: str, turn: int, rules: RulesConfig | None = None):
    """The engine with the non-dealer in the discard phase of its turn ``turn``, ``drawn`` drawn."""
    used = set(parse_card_list(f"{hand} {DEALER} {UPCARD} {drawn}"))
    fillers = [card_text(c) for c in range(N_CARDS) if c not in used][: 2 * (turn - 1)]
    eng = deal(hand, DEALER, UPCARD, " ".join([*fillers, drawn]), rules=rules)
    play(eng, "pass", "pass")
    for card in fillers:
        play(eng, "draw", f"discard {card}")
    play(eng, "draw")
    assert eng.state.turns[0] == 2 * (turn - 1)
    return eng


def choices(bot, eng) -> set[str]:
    """The actions ``bot`` takes at the engine's position over 32 keys, as texts."""
    obs = encode_observations(eng, eng.current_player)
    masks = eng.legal_action_mask()
    reps = KEYS.size
    actions = bot.act(np.repeat(obs, reps, 0), np.repeat(masks, reps, 0), KEYS)
    assert masks[0, actions].all()
    return {action_text(a) for a in actions}


NINE_MELDED = "AC 2C 3C 4D 5D 6D 7S 8S 9S"

PATIENT = [
    # (options, loose card in hand, card drawn, turn, what patient does, why); "holds":
    # it discards (which card is the expert's choice), it does not knock
    ("", "8H", "KH", 1, {"knock KH"}, "deadwood 8 on its first turn: an early knock"),
    ("", "8H", "KH", 3, {"knock KH"}, "still early: knock_turns is 3"),
    ("", "8H", "KH", 4, "holds", "deadwood 8 on its fourth turn: it holds for gin"),
    ("", "8H", "KH", 10, "holds", "deadwood 8 on turn 10: it holds for gin"),
    ("", "KH", "TS", 10, {"knock KH"}, "gin on turn 10: it knocks"),
    ("", "AH", "KH", 10, "holds", "deadwood 1 on turn 10: gin only by default"),
    ("knock_deadwood=2", "2H", "KH", 10, {"knock KH"}, "deadwood 2: within knock_deadwood"),
    ("knock_deadwood=1", "2H", "KH", 10, "holds", "deadwood 2 > knock_deadwood 1: it holds"),
    ("knock_turns=5", "8H", "KH", 5, {"knock KH"}, "knock_turns=5: turn 5 is early"),
    ("knock_turns=0", "8H", "KH", 1, "holds", "knock_turns=0: no early knock"),
]  # fmt: skip


@pytest.mark.parametrize(("options", "loose", "drawn", "turn", "expected", "why"), PATIENT)
def test_patient_knocks_early_or_at_a_tiny_deadwood(options, loose, drawn, turn, expected, why):
    """Patient knocks on its first turns, on gin, or at ``knock_deadwood``; else it holds."""
    bot = resolve_policy("patient" + (f":{options}" if options else ""), 0)
    eng = at_turn(f"{NINE_MELDED} {loose}", drawn, turn)
    got = choices(bot, eng)
    if expected == "holds":
        assert {a.split()[0] for a in got} == {"discard"}, why
    else:
        assert got == expected, why


def discard_positions(n_games: int = 64, steps: int = 90, seed: int = 3):
    """Observations and masks of discard decisions with no knock legal, from random play."""
    eng = GinEngine(n_games, seed=seed)
    eng.reset()
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for _ in range(steps):
        if eng.over.any():
            eng.reset(mask=eng.over)
        m = eng.legal_action_mask()
        rows = np.flatnonzero(
            m[:, :N_CARDS].any(axis=1) & ~m[:, KNOCK : KNOCK + N_CARDS].any(axis=1)
        )
        obs.append(encode_observations(eng, eng.current_player[rows], None, rows))
        masks.append(m[rows])
        eng.step(random_legal(m, rng))
    return np.concatenate(obs), np.concatenate(masks)


def test_patient_sheds_its_deadwood_harder_late_in_the_hand():
    """Without its deadwood weight it discards as the expert; with it, it keeps less deadwood."""
    obs, masks = discard_positions()
    keys = np.arange(1, obs.shape[0] + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    expert = ExpertBot(0).act(obs, masks, keys)
    flat = resolve_policy("patient:low_deadwood_weight=0", 0).act(obs, masks, keys)
    np.testing.assert_array_equal(flat, expert)
    patient = PatientBot(0).act(obs, masks, keys)
    dec = decode_observations(obs)
    late = np.flatnonzero(own_turn(dec, np.arange(obs.shape[0])) >= 5)
    left = dec.discard_deadwood[late]
    r = np.arange(late.size)
    assert late.size > 200 and (patient[late] != expert[late]).sum() > 10
    assert left[r, patient[late]].mean() < left[r, expert[late]].mean()


# ------------------------------------------------------------------ tempo
def test_tempo_threshold_falls_one_point_a_turn_to_gin():
    """The default schedule: the knock limit on turn 1, one point less a turn, gin from 11."""
    got = TempoBot(0).threshold(np.arange(1, 14)).tolist()
    assert got == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0]


def test_tempo_threshold_follows_its_options_and_the_knock_limit():
    """start, step and floor shape the schedule; the rules' knock limit caps it."""
    bot = resolve_policy("tempo:start=12,step=0.5,floor=3", 0)
    assert bot.threshold(np.arange(1, 20, 3)).tolist() == [10, 10, 9, 7, 6, 4, 3]
    capped = TempoBot(0, rules=RulesConfig(knock_limit=7))
    assert capped.threshold(np.array([1, 2, 5])).tolist() == [7, 7, 6]


TEMPO = [
    # (loose card, card drawn, turn, what tempo does, why)
    ("8H", "KH", 1, {"knock KH"}, "deadwood 8, threshold 10"),
    ("8H", "KH", 3, {"knock KH"}, "deadwood 8, threshold 8"),
    ("8H", "KH", 4, {"discard KH"}, "deadwood 8, threshold 7: no knock"),
    ("5C", "KH", 6, {"knock KH"}, "deadwood 5, threshold 5"),
    ("2H", "KH", 10, {"discard KH"}, "deadwood 2, threshold 1: no knock"),
    ("KH", "TS", 14, {"knock KH"}, "gin: always"),
]  # fmt: skip


@pytest.mark.parametrize(("loose", "drawn", "turn", "expected", "why"), TEMPO)
def test_tempo_knocks_within_its_falling_threshold(loose, drawn, turn, expected, why):
    """Tempo knocks when its least knock deadwood is within the threshold of the turn."""
    eng = at_turn(f"{NINE_MELDED} {loose}", drawn, turn)
    assert choices(TempoBot(0), eng) == expected, why


def test_tempo_takes_a_card_that_lets_it_knock_within_the_threshold():
    """It takes a top card that lets it knock within this turn's threshold, else leaves it."""
    eng = deal(f"{NINE_MELDED} 2H", DEALER, "KS")  # with KS: 2H goes, 10 left
    assert choices(TempoBot(0), eng) == {"take"}  # threshold 10 on its first turn
    assert choices(resolve_policy("tempo:start=5,step=0,floor=5", 0), eng) == {"pass"}


# ------------------------------------------------------------------ options and versions
BAD_NAMES = [
    ("patient:foo=1", "unknown option 'foo'"),
    ("patient:knock_turns=-1", "knock_turns must be in 0..100, got -1"),
    ("patient:knock_turns=1.5", "must be an integer"),
    ("patient:knock_turns", "write key=value"),
    ("patient:", "sets no option"),
    ("patient:knock_turns=1,knock_turns=2", "given twice"),
    ("tempo:step=nan", "step must be finite"),
    ("tempo:step=x", "must be a number"),
    ("expert:danger_weight=1", "(options: none)"),
    ("simple@3", "known versions: simple@1, simple@2"),
    ("simple@", "known versions: simple@1, simple@2"),
    ("patient@2", "known versions: patient@1"),
]


@pytest.mark.parametrize(("name", "message"), BAD_NAMES)
def test_bad_bot_names_are_refused_by_name(name, message):
    """An unknown version or a bad option is a ValueError that names it."""
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        resolve_policy(name, 0)


def test_options_set_the_parameters_and_the_spec_names_them():
    """Options in the name set the parameters; ``spec`` gives the exact, versioned name."""
    bot = resolve_policy("patient:knock_turns=4,knock_deadwood=2", 0)
    assert (bot.params.knock_turns, bot.params.knock_deadwood) == (4, 2)
    assert bot.spec == "patient@1:knock_turns=4,knock_deadwood=2"
    assert resolve_policy(bot.spec, 0).params == bot.params
    assert PatientBot(0).spec == "patient@1"


def test_a_name_without_version_is_the_newest():
    """``simple`` is ``simple@2`` (OpenSpiel's port); ``simple@1`` is the first simple bot."""
    assert type(resolve_policy("simple", 0)) is SimpleBot
    assert type(resolve_policy("simple@2", 0)) is SimpleBot
    assert type(resolve_policy("simple@1", 0)) is SimpleBotV1
    assert resolve_policy("simple", 0).spec == "simple@2"
    for name, versions in VERSIONS.items():
        assert exact_name(name) == f"{name}@{max(versions)}"


SIMPLE_V1 = [
    # (hand, upcard, what simple@1 does, why)
    ("7H 8H 2C 5C 9C JD QD KS 4S 3D", "9H", {"take"}, "makes the run 7H 8H 9H"),
    ("AC 2C 3C 4C 9D TD JD QD 3H JH", "JS", {"take"}, "JS melds with JD JH (simple@2 passes)"),
    ("AC 2C 3C 4D 5D 6D 7C 8C 9C KH", "QS", {"pass"}, "melds nothing (simple@2 takes it to knock)"),
]  # fmt: skip


@pytest.mark.parametrize(("hand", "upcard", "expected", "why"), SIMPLE_V1)
def test_simple_v1_takes_only_cards_that_meld_with_its_hand(hand, upcard, expected, why):
    """simple@1 takes the upcard exactly when it forms a meld with two cards in hand."""
    assert choices(SimpleBotV1(0), deal(hand, DEALER, upcard)) == expected, why


def test_simple_v1_discards_the_card_that_leaves_the_least_deadwood():
    """After taking 7D it throws KS or TH (both leave the least deadwood) and knocks when it may."""
    eng = deal("AC 2C 3C 4D 5D 6D 9C TH KS 2S", DEALER, "7D")
    play(eng, "take")
    assert choices(SimpleBotV1(0), eng) == {"discard KS", "discard TH"}
    eng = at_turn(f"{NINE_MELDED} 8H", "KH", 10)
    assert choices(SimpleBotV1(0), eng) == {"knock KH"}

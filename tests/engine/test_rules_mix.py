"""Per-game rules: one batch whose games play under different knock and scoring options."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.deck import RUNS_AND_KS, make_deck, play

from hgin_env.engine.actions import parse_action
from hgin_env.engine.cards import parse_cards
from hgin_env.engine.config import HandRules, RulesConfig, check_mix
from hgin_env.engine.game import GinEngine, Outcome
from hgin_env.engine.knock import resolve_knocks
from hgin_env.engine.series import SeriesEngine
from hgin_env.engine.table import HandTable

#: the undercut of test_game.KNOCKS: K = 9 (9S kept), the defender melds all but 2D (D = 2)
UNDERCUT_DEALER = "5S 5C 5H JD QD KD 2S 3S 4S 2D"


def dealt(mix: tuple[RulesConfig, ...], ids: list[int], non_dealer: str, dealer: str, up: str):
    """An engine of len(ids) games, game i under ``mix[ids[i]]``, all dealt the same cards."""
    eng = GinEngine(len(ids), mix, seed=0)
    eng.set_rule_ids(np.arange(len(ids)), np.array(ids))
    eng.reset(decks=make_deck(non_dealer, dealer, up)[None], dealers=0)
    return eng


def step_all(eng: GinEngine, action: str) -> np.ndarray:
    """Apply one action (text) in every game of the batch."""
    return eng.step(np.full(eng.n, parse_action(action), np.int64))


#: (id, mix entries as option dicts, the per-game ids, deal, actions, outcomes, points)
TABLE = [
    ("undercut_10_and_25", [{}, {"undercut_bonus": 25}], [0, 1, 0],
     (RUNS_AND_KS, UNDERCUT_DEALER, "9S"), ["take", "knock KS"],
     [Outcome.UNDERCUT] * 3, [10 + 7, 25 + 7, 10 + 7]),
    ("gin_20_and_25", [{"gin_bonus": 20}, {}], [1, 0],
     (RUNS_AND_KS, "JH 4C 5S 6S 7S 9C 9D 2H 3H KD", "TH"), ["take", "knock KS"],
     [Outcome.GIN] * 2, [47 + 25, 47 + 20]),
    # 11 cards all melded after taking TH: big gin where it is on, plain gin elsewhere
    ("big_gin_on_and_off", [{}, {"big_gin_bonus": 31}], [0, 1],
     ("AC 2C 3C 4C 4D 5D 6D 7H 8H 9H", "JH QH KH 2D 3D 9C 9S 5S 6S KC", "TH"),
     ["take", "knock AC"], [Outcome.GIN, Outcome.BIG_GIN], [44 + 25, 44 + 31]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "ids", "cards", "actions", "outcomes", "points"),
    [t[1:] for t in TABLE],
    ids=[t[0] for t in TABLE],
)
def test_one_batch_scores_each_game_under_its_rules(options, ids, cards, actions, outcomes, points):
    """The same knock in one batch scores by each game's own gin, undercut and big-gin bonus."""
    eng = dealt(tuple(RulesConfig(**o) for o in options), ids, *cards)
    for a in actions:
        ended = step_all(eng, a)
    assert ended.all()
    assert [Outcome(int(o)) for o in eng.state.outcome] == outcomes
    assert eng.state.points.tolist() == points


def test_knock_limit_per_game_decides_who_may_knock():
    """Deadwood 9 after taking the upcard: knocking is legal at limit 10, not at limit 5."""
    mix = (RulesConfig(), RulesConfig(knock_limit=5))
    eng = dealt(mix, [0, 1], RUNS_AND_KS, UNDERCUT_DEALER, "9S")
    play(eng, "take", game=0)  # both games take (the other game takes its lowest id: take)
    mask = eng.legal_action_mask()
    ks = parse_action("knock KS")
    assert mask[0, ks] and not mask[1, ks]
    assert mask[0, parse_action("discard KS")] and mask[1, parse_action("discard KS")]


def test_resolve_knocks_takes_per_row_rules():
    """``resolve_knocks`` with ``HandRules`` rows scores each knock by its row's rules."""
    knocker = parse_cards("AC 2C 3C 4D 5D 6D 7H 8H 9H 9S")
    defender = parse_cards(UNDERCUT_DEALER)
    mix = (RulesConfig(), RulesConfig(undercut_bonus=25), RulesConfig(undercut_bonus=0))
    rules = HandRules.of(mix, np.array([2, 1, 0]))
    out = resolve_knocks(np.stack([knocker] * 3), np.stack([defender] * 3), rules)
    assert out.undercut.all()
    assert out.points.tolist() == [7, 32, 17]


def test_a_mix_draws_rule_sets_by_seed_alone():
    """Game i of a mixed batch seeded s plays the rule set of a single game seeded s + i."""
    mix = (RulesConfig(), RulesConfig(undercut_bonus=25), RulesConfig(gin_bonus=30))
    batch = SeriesEngine(40, mix, seed=77)
    singles = [SeriesEngine(1, mix, seed=77 + i) for i in range(40)]
    for _ in range(3):  # and again for each new series
        batch.reset()
        for one in singles:
            one.reset()
        assert batch.engine.rule_ids.tolist() == [int(o.engine.rule_ids[0]) for o in singles]
    assert len(set(batch.engine.rule_ids.tolist())) == 3


def test_hand_table_draws_a_rule_set_per_hand_with_weights():
    """Hand mode draws per hand; a weight of 0 never plays, the weights set the frequencies."""
    mix = (RulesConfig(), RulesConfig(undercut_bonus=25), RulesConfig(gin_bonus=30))
    table = HandTable(4000, mix, seed=5, weights=(3.0, 1.0, 0.0))
    seen = []
    for _ in range(3):
        table.reset()
        seen.append(table.engine.rule_ids.copy())
    ids = np.concatenate(seen)
    assert not (ids == 2).any()
    assert abs((ids == 0).mean() - 0.75) < 0.02
    assert (seen[0] != seen[1]).any()  # a game's rule set changes between hands


@pytest.mark.parametrize(
    ("mix", "message"),
    [
        ((), "at least one rule set"),
        ((RulesConfig(), RulesConfig(max_turns_per_hand=50)), "max_turns_per_hand differs"),
        ((RulesConfig(), RulesConfig(game_target=150)), "game_target differs"),
        ((RulesConfig(), RulesConfig(allow_rediscard=True)), "allow_rediscard differs"),
        ((RulesConfig(), {"undercut_bonus": 25}), "entry 1 must be a RulesConfig"),
    ],
    ids=["empty", "max_turns", "game_target", "rediscard", "not_rules"],
)
def test_a_mix_that_one_batch_cannot_play_is_refused_by_name(mix, message):
    """Options shared by a batch must agree across a mix; the error names the option."""
    with pytest.raises(ValueError, match=message):
        check_mix(mix)
    with pytest.raises(ValueError, match=message):
        GinEngine(2, mix, seed=0)


@pytest.mark.parametrize(
    ("weights", "message"),
    [((1.0,), "needs 2 weights"), ((1.0, -1.0), ">= 0"), ((0.0, 0.0), "not all 0"),
     ((1.0, float("nan")), "finite")],
)  # fmt: skip
def test_bad_mix_weights_are_refused(weights, message):
    """A weight count that does not match, a negative, NaN or all-zero weight is refused."""
    with pytest.raises(ValueError, match=message):
        GinEngine(2, (RulesConfig(), RulesConfig(undercut_bonus=25)), seed=0, weights=weights)

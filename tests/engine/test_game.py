"""The round engine (docs/rules.md §3), one test per rule (series: ``test_series.py``).

Hands are written as card strings. Unless a test says otherwise seat 0 deals, so seat 1
(the non-dealer) is offered the upcard first. Expected numbers are worked out by hand in
the comments, never computed with the engine's own functions.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.deck import (
    DEALER,
    LOOSE,
    NON_DEALER,
    RUNS_AND_KS,
    SWAP_DEALER,
    cards,
    deal,
    draw_discard,
    hand,
    knocks,
    legal,
    make_deck,
    play,
    step_one,
    stock_cards,
    swap_actions,
    top,
)

from hgin_env.engine.actions import (
    DRAW,
    N_ACTIONS,
    PASS,
    TAKE,
    is_knock,
    knock_legal,
    parse_action,
)
from hgin_env.engine.cards import card_text
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, HandState, Outcome, Phase

ROLE = {"nd": NON_DEALER, "d": DEALER}


def fields_equal(a: HandState, b: HandState) -> bool:
    """Whether two hand states hold equal arrays in every field."""
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in HandState.__dataclass_fields__)


# ----------------------------------------------------------------------------- deal


def test_deck_order_contract():
    """reset(decks=...) deals deck[0:10] to the non-dealer, [10:20] to the dealer, [20] up."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", stock="TC JC")
    assert hand(eng, NON_DEALER) == cards(RUNS_AND_KS)
    assert hand(eng, DEALER) == cards(LOOSE)
    assert top(eng) == "QS"
    assert int(eng.stock_size[0]) == 31
    assert int(eng.dealer[0]) == DEALER
    play(eng, "pass", "pass", "draw", "discard TC", "draw")
    assert "JC" in hand(eng, DEALER)  # deck[21] then deck[22]


@pytest.mark.parametrize("dealer_seat", [0, 1])
def test_deal_respects_the_dealer_seat(dealer_seat):
    """The non-dealer's cards go to the seat that did not deal, whichever seat deals."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", dealer_seat=dealer_seat)
    assert hand(eng, 1 - dealer_seat) == cards(RUNS_AND_KS)
    assert hand(eng, dealer_seat) == cards(LOOSE)
    assert int(eng.current_player[0]) == 1 - dealer_seat


def test_reset_with_mask_deals_only_the_selected_games():
    """reset(mask, decks) re-deals the masked games and leaves the others untouched."""
    eng = GinEngine(3, seed=5)
    eng.reset()
    before = eng.state.rows(np.arange(3))
    deck = make_deck(RUNS_AND_KS, LOOSE, "QS")
    eng.reset(mask=np.array([False, True, False]), decks=np.stack([deck] * 3), dealers=0)
    assert fields_equal(eng.state.rows([0, 2]), before.rows([0, 2]))
    assert hand(eng, NON_DEALER, game=1) == cards(RUNS_AND_KS)


# ---------------------------------------------------------------- first-turn offer

#: (id, actions with the role and phase expected after each)
OFFER_FLOW = [
    (
        "non_dealer_takes",
        [("take", "nd", Phase.DISCARD), ("discard KS", "d", Phase.DRAW)],
    ),
    (
        "dealer_takes",
        [
            ("pass", "d", Phase.OFFER),
            ("take", "d", Phase.DISCARD),
            ("discard KD", "nd", Phase.DRAW),
        ],
    ),
    (
        "both_pass",
        [
            ("pass", "d", Phase.OFFER),
            ("pass", "nd", Phase.DRAW),
            ("draw", "nd", Phase.DISCARD),
            ("discard KS", "d", Phase.DRAW),
        ],
    ),
]


@pytest.mark.parametrize("dealer_seat", [0, 1])
@pytest.mark.parametrize(("flow_id", "flow"), OFFER_FLOW, ids=[f[0] for f in OFFER_FLOW])
def test_first_turn_offer_order(flow_id, flow, dealer_seat):
    """Upcard offered to the non-dealer, then the dealer; after a discard the other player moves."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", dealer_seat=dealer_seat)
    seat = {"nd": 1 - dealer_seat, "d": dealer_seat}
    assert int(eng.phase[0]) == Phase.OFFER
    assert int(eng.current_player[0]) == seat["nd"]
    assert legal(eng) == {"take", "pass"}
    for action, who, phase in flow:
        step_one(eng, action)
        assert int(eng.current_player[0]) == seat[who], action
        assert int(eng.phase[0]) == phase, action
    # the turn after the first discard is a normal turn: stock or the new top of the pile
    assert legal(eng) == {"draw", "take"}


def test_dealer_is_offered_the_upcard_after_the_non_dealer_passes():
    """After the non-dealer passes, the dealer may take or pass; no draw is possible yet."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS")
    play(eng, "pass")
    assert int(eng.current_player[0]) == DEALER
    assert legal(eng) == {"take", "pass"}


def test_after_two_passes_only_the_stock_draw_is_legal():
    """Both pass: the non-dealer must draw from the stock (only action 104 is legal)."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", stock="TC")
    play(eng, "pass", "pass")
    mask = eng.legal_action_mask()[0]
    assert np.flatnonzero(mask).tolist() == [DRAW]
    assert int(eng.current_player[0]) == NON_DEALER
    with pytest.raises(ValueError, match="game 0"):
        step_one(eng, "take")
    play(eng, "draw")
    assert "TC" in hand(eng, NON_DEALER)
    assert top(eng) == "QS"  # the upcard stays on the pile


def test_taker_holds_the_upcard_and_discards_it_onto_the_pile():
    """Taking the upcard moves it into the taker's hand; the taker's discard tops the pile."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS")
    play(eng, "pass", "take")
    assert "QS" in hand(eng, DEALER)
    assert top(eng) is None
    play(eng, "discard KD")
    assert top(eng) == "KD"
    assert int(eng.stock_size[0]) == 31  # the offer never touches the stock


# --------------------------------------------------------------- knock on turn one


def test_knock_allowed_after_taking_the_upcard():
    """The non-dealer may knock on the first turn right after taking the upcard."""
    eng = deal(RUNS_AND_KS, LOOSE, "2S")
    play(eng, "take")
    # 11 cards: only KS leaves deadwood <= 10 (2S would, but it was just taken)
    assert knocks(eng) == {"KS"}
    assert play(eng, "knock KS") == [True]
    assert int(eng.state.outcome[0]) == Outcome.KNOCK
    assert int(eng.state.knocker[0]) == NON_DEALER


def test_dealer_may_knock_after_taking_the_passed_upcard():
    """The dealer, taking the upcard the non-dealer passed, may knock at once."""
    eng = deal(LOOSE, RUNS_AND_KS, "2S")
    play(eng, "pass", "take")
    assert knocks(eng) == {"KS"}
    play(eng, "knock KS")
    assert int(eng.state.outcome[0]) == Outcome.KNOCK
    assert int(eng.state.knocker[0]) == DEALER


def test_knock_allowed_after_the_forced_stock_draw():
    """After two passes, the non-dealer's forced stock draw may be followed by a knock."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", stock="2S")
    play(eng, "pass", "pass", "draw")
    # discarding KS leaves 2 deadwood, discarding the drawn 2S leaves 10
    assert knocks(eng) == {"KS", "2S"}
    play(eng, "knock KS")
    assert int(eng.state.outcome[0]) == Outcome.KNOCK
    assert int(eng.state.knocker_deadwood[0]) == 2


# ---------------------------------------------------------------------- knock mask

#: (dealt non-dealer hand, card drawn after two passes, knock_limit, cards it may knock with)
KNOCK_MASK = [
    # KS or QS leaves the other (10)
    (RUNS_AND_KS, "QS", 10, "KS QS"),
    (RUNS_AND_KS, "QS", 9, ""),
    (RUNS_AND_KS, "QS", 0, ""),
    # TH extends 7H-9H: KS -> gin; TH -> KS 10; 7H -> 8H-TH run, KS 10
    (RUNS_AND_KS, "TH", 10, "KS TH 7H"),
    (RUNS_AND_KS, "TH", 0, "KS"),
    # limit 25 adds breaking a club or diamond run: AC 15, 2C 14, 3C 13, 4D 21, 5D 20,
    # 6D 19; breaking 7H-TH in the middle leaves 35 or 36
    (RUNS_AND_KS, "TH", 25, "KS TH 7H AC 2C 3C 4D 5D 6D"),
    # four 4s: set 4C 4D 4S with run 4H-6H, run 7C-9C; KD or QD leaves the other (10)
    ("4C 4D 4H 5H 6H 7C 8C 9C KD QD", "4S", 10, "KD QD"),
    # ace low: AS-3S run, set of 5s, 9D-JD; 8H leaves KH (10), KH leaves 8H (8)
    ("AS 2S 3S 5C 5D 5H 9D TD JD 8H", "KH", 10, "8H KH"),
    ("AS 2S 3S 5C 5D 5H 9D TD JD 8H", "KH", 8, "KH"),
    ("AS 2S 3S 5C 5D 5H 9D TD JD 8H", "KH", 7, ""),
]


#: a dealer hand sharing no card with the table above
MASK_DEALER = "6C JC KC 7D 8D 2H 3H 6S 8S JS"


@pytest.mark.parametrize(("dealt", "drawn", "limit", "expected"), KNOCK_MASK)
def test_knock_mask(dealt, drawn, limit, expected):
    """Knock actions are exactly the discards leaving deadwood <= knock_limit."""
    rules = RulesConfig(knock_limit=limit)
    eng = deal(dealt, MASK_DEALER, "QC", stock=drawn, rules=rules)
    play(eng, "pass", "pass", "draw")
    assert knocks(eng) == cards(expected)
    # every held card may still be discarded without knocking
    discards = {t.split()[1] for t in legal(eng) if t.startswith("discard")}
    assert discards == cards(dealt) | {drawn}


def test_knock_legal_flags_the_rows_that_may_knock():
    """``knock_legal`` is true exactly in the masks of the table above that hold a knock."""
    rows = []
    for dealt, drawn, limit, expected in KNOCK_MASK:
        eng = deal(dealt, MASK_DEALER, "QC", stock=drawn, rules=RulesConfig(knock_limit=limit))
        play(eng, "pass", "pass", "draw")
        rows.append((eng.legal_action_mask()[0], bool(expected)))
    masks = np.stack([mask for mask, _ in rows])
    assert knock_legal(masks).tolist() == [want for _, want in rows]
    assert not knock_legal(np.zeros((2, N_ACTIONS), dtype=bool)).any()


def test_is_knock_names_the_knock_ids_only():
    """``is_knock``: the ids of "knock C" for every card, none of discards, draw, take, pass."""
    texts = ["discard AC", "discard KS", "knock AC", "knock KS", "draw", "take", "pass"]
    ids = np.array([parse_action(t) for t in texts])
    assert is_knock(ids).tolist() == [t.startswith("knock") for t in texts]
    assert is_knock(np.arange(N_ACTIONS)).sum() == 52


@pytest.mark.parametrize(("allow", "expected"), [(False, "KS"), (True, "KS QS")])
def test_knock_mask_respects_the_rediscard_rule(allow, expected):
    """Decision (no rediscard): a card just taken is no knock discard unless allow_rediscard."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", rules=RulesConfig(allow_rediscard=allow))
    play(eng, "take")
    assert knocks(eng) == cards(expected)


def test_never_obliged_to_knock():
    """A player who may knock (even gin) may still discard without knocking."""
    eng = deal(RUNS_AND_KS, LOOSE, "TH")
    play(eng, "take")
    assert "knock KS" in legal(eng)
    assert play(eng, "discard KS") == [False]
    assert int(eng.phase[0]) == Phase.DRAW


# ----------------------------------------------------------------- no rediscard


def test_upcard_taken_may_not_be_discarded():
    """Decision (no rediscard): the upcard just taken may not be discarded (or knocked with)."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS")
    play(eng, "take")
    assert "discard QS" not in legal(eng)
    assert "knock QS" not in legal(eng)
    assert "discard KS" in legal(eng)
    with pytest.raises(ValueError, match="game 0"):
        step_one(eng, "discard QS")


def test_card_taken_from_the_pile_mid_hand_may_not_be_discarded():
    """Decision (no rediscard): in a normal turn the card taken from the pile may not go back."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", stock="TC")
    play(eng, "pass", "pass", "draw", "discard TC", "take")
    assert int(eng.current_player[0]) == DEALER
    assert "discard TC" not in legal(eng)
    assert "discard KD" in legal(eng)


def test_taken_card_may_be_discarded_on_a_later_turn():
    """The rediscard ban lasts one turn: the taken card may be discarded next time."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", stock="TC JC")
    play(eng, "take", "discard KS", "draw", "discard TC", "draw")
    assert "discard QS" in legal(eng)


def test_allow_rediscard_permits_discarding_the_taken_card():
    """Decision (no rediscard): with allow_rediscard=True the taken card may go at once."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", rules=RulesConfig(allow_rediscard=True))
    play(eng, "take", "discard QS")
    assert top(eng) == "QS"
    assert hand(eng, NON_DEALER) == cards(RUNS_AND_KS)


def test_card_drawn_from_the_stock_may_be_discarded_at_once():
    """A card drawn from the stock may be discarded in the same turn."""
    eng = deal(RUNS_AND_KS, LOOSE, "QS", stock="TC")
    play(eng, "pass", "pass", "draw")
    assert "discard TC" in legal(eng)
    play(eng, "discard TC")
    assert top(eng) == "TC"


# ------------------------------------------------------------------- drawn hand


def test_drawn_hand_exactly_when_a_discard_leaves_two_stock_cards():
    """The discard leaving 3 stock cards continues; the one leaving 2 ends a drawn hand."""
    deck = make_deck(RUNS_AND_KS, LOOSE, "QS")
    stock = stock_cards(deck)
    eng = deal(RUNS_AND_KS, LOOSE, "QS")
    play(eng, "pass", "pass")
    for k in range(29):  # 31 stock cards: the 29th draw leaves 2
        play(eng, "draw")
        assert int(eng.stock_size[0]) == 30 - k
        ended = play(eng, f"discard {stock[k]}")
        assert ended == [k == 28], k
    assert int(eng.state.outcome[0]) == Outcome.DRAW
    assert int(eng.state.winner[0]) == -1
    assert int(eng.state.points[0]) == 0
    assert int(eng.state.knocker[0]) == -1
    assert int(eng.stock_size[0]) == 2


def test_player_taking_the_stock_card_that_leaves_two_may_still_knock():
    """The player who draws the stock card leaving two may knock instead of discarding."""
    deck = make_deck(RUNS_AND_KS, LOOSE, "QS")
    stock = stock_cards(deck)
    eng = deal(RUNS_AND_KS, LOOSE, "QS")
    play(eng, "pass", "pass", *draw_discard(stock, 28), "draw")
    assert int(eng.stock_size[0]) == 2
    assert int(eng.current_player[0]) == NON_DEALER  # draws 1, 3, ..., 29
    assert "knock KS" in legal(eng)
    play(eng, "knock KS")
    assert int(eng.state.outcome[0]) in (Outcome.KNOCK, Outcome.UNDERCUT)
    assert int(eng.state.knocker[0]) == NON_DEALER


def test_taking_from_the_pile_does_not_bring_the_draw_closer():
    """At 3 stock cards, taking the discard and discarding continues; the next draw ends it."""
    deck = make_deck(RUNS_AND_KS, LOOSE, "QS")
    stock = stock_cards(deck)
    eng = deal(RUNS_AND_KS, LOOSE, "QS")
    play(eng, "pass", "pass", *draw_discard(stock, 28))
    assert int(eng.stock_size[0]) == 3
    assert play(eng, "take", "discard KS") == [False, False]
    assert int(eng.stock_size[0]) == 3
    assert play(eng, "draw", f"discard {stock[28]}") == [False, True]
    assert int(eng.state.outcome[0]) == Outcome.DRAW


# ------------------------------------------------------------------- truncation


@pytest.mark.parametrize("max_turns", [2, 3, 4, 7])
def test_max_turns_per_hand_truncates(max_turns):
    """Decision (max-turn draw): swapping ends the hand TRUNCATED at max_turns_per_hand turns."""
    eng = deal(RUNS_AND_KS, SWAP_DEALER, "QH", rules=RulesConfig(max_turns_per_hand=max_turns))
    ended = play(eng, *swap_actions(max_turns))
    assert ended == [False] * (2 * max_turns - 1) + [True]
    assert int(eng.state.outcome[0]) == Outcome.TRUNCATED
    assert int(eng.state.turns[0]) == max_turns
    assert int(eng.state.winner[0]) == -1
    assert int(eng.state.points[0]) == 0
    assert int(eng.stock_size[0]) == 31


def test_default_max_turns_is_200():
    """Decision (max-turn draw): by default the 200th turn of swapping ends it TRUNCATED."""
    eng = deal(RUNS_AND_KS, SWAP_DEALER, "QH")
    ended = play(eng, *swap_actions(200))
    assert ended == [False] * 399 + [True]
    assert int(eng.state.outcome[0]) == Outcome.TRUNCATED


# ---------------------------------------------------------------- knock outcomes

#: (id, non-dealer, dealer, upcard, actions, rules, outcome, knocker, winner, points, K, D,
#:  layoffs)
KNOCKS = [
    # gin: 10 cards all melded; dealer keeps 5S-7S, 47 deadwood, no layoffs against gin
    # (JH would extend 7H-TH, 4C would extend AC-3C)
    ("gin", RUNS_AND_KS, LOOSE, "TH", ["take", "knock KS"], {},
     Outcome.GIN, "nd", "nd", 47 + 25, 0, 47, ""),
    ("gin_bonus_20", RUNS_AND_KS, LOOSE, "TH", ["take", "knock KS"], {"gin_bonus": 20},
     Outcome.GIN, "nd", "nd", 47 + 20, 0, 47, ""),
    # knock on 2S (K=2); TH then JH chain onto 7H-9H, 4C onto AC-3C: D = 9+9+3+10 = 31
    ("knock_run_layoffs", RUNS_AND_KS, "TH JH 4C 5S 6S 7S 9C 9D 3H KD", "2S",
     ["take", "knock KS"], {}, Outcome.KNOCK, "nd", "nd", 31 - 2, 2, 31, "TH JH 4C"),
    # knock on AH (K=1); 9S is the fourth 9, 3S then 2S extend 4S-6S; own KC KD KH;
    # D = 8C 8 + TC 10 + 8D 8 + 5H 5 = 31
    ("knock_set_layoff", "9C 9D 9H 4S 5S 6S AD 2D 3D QC", "9S 3S 2S KC KD KH 8C TC 8D 5H",
     "AH", ["take", "knock QC"], {}, Outcome.KNOCK, "nd", "nd", 31 - 1, 1, 31, "9S 3S 2S"),
    # undercut: K = 9 (9S), defender melds all but 2D: D = 2
    ("undercut", RUNS_AND_KS, "5S 5C 5H JD QD KD 2S 3S 4S 2D", "9S", ["take", "knock KS"], {},
     Outcome.UNDERCUT, "nd", "d", 10 + 9 - 2, 9, 2, ""),
    ("undercut_bonus_25", RUNS_AND_KS, "5S 5C 5H JD QD KD 2S 3S 4S 2D", "9S",
     ["take", "knock KS"], {"undercut_bonus": 25}, Outcome.UNDERCUT, "nd", "d", 25 + 7, 9, 2, ""),
    # equal deadwood is an undercut: K = D = 9
    ("undercut_on_a_tie", RUNS_AND_KS, "5S 5C 5H JD QD KD 2S 3S 4S 9D", "9S",
     ["take", "knock KS"], {}, Outcome.UNDERCUT, "nd", "d", 10, 9, 9, ""),
    # the dealer knocks after the non-dealer passed: same scoring, seats swapped
    ("dealer_knocks", "TH JH 4C 5S 6S 7S 9C 9D 3H KD", RUNS_AND_KS, "2S",
     ["pass", "take", "knock KS"], {}, Outcome.KNOCK, "d", "d", 29, 2, 31, "TH JH 4C"),
    ("dealer_undercut", "5S 5C 5H JD QD KD 2S 3S 4S 2D", RUNS_AND_KS, "9S",
     ["pass", "take", "knock KS"], {}, Outcome.UNDERCUT, "d", "nd", 17, 9, 2, ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("nd", "dealer", "upcard", "actions", "options", "outcome", "knocker", "winner", "points",
     "k", "d", "layoffs"),
    [k[1:] for k in KNOCKS],
    ids=[k[0] for k in KNOCKS],
)  # fmt: skip
def test_knock_outcome(nd, dealer, upcard, actions, options, outcome, knocker, winner, points,
                       k, d, layoffs):  # fmt: skip
    """A knock ends the hand with the outcome, points, deadwoods, layoffs of docs/rules.md §3."""
    eng = deal(nd, dealer, upcard, rules=RulesConfig(**options))
    ended = play(eng, *actions)
    assert ended == [False] * (len(actions) - 1) + [True]
    s = eng.state
    assert int(eng.phase[0]) == Phase.OVER
    assert Outcome(int(s.outcome[0])) == outcome
    assert int(s.knocker[0]) == ROLE[knocker]
    assert int(s.winner[0]) == ROLE[winner]
    assert int(s.points[0]) == points
    assert int(s.knocker_deadwood[0]) == k
    assert int(s.defender_deadwood[0]) == d
    assert {card_text(c) for c in np.flatnonzero(s.layoffs[0])} == cards(layoffs)
    assert top(eng) == actions[-1].split()[1]  # the knock discard is on the pile
    assert not eng.legal_action_mask()[0].any()


# --------------------------------------------------------------------- big gin

#: 11 cards all melded after drawing TH: AC-4C, 4D-6D, 7H-TH
BIG = "AC 2C 3C 4C 4D 5D 6D 7H 8H 9H"
#: own run JH-KH, deadwood 2+3+9+9+5+6+10 = 44 (gin allows no layoffs of 2D, 3D or JH)
BIG_DEFENDER = "JH QH KH 2D 3D 9C 9S 5S 6S KC"


def test_big_gin_off_by_default_knock_needs_a_discard():
    """With big_gin_bonus off, an all-melded 11-card hand knocks with a discard: plain gin."""
    eng = deal(BIG, BIG_DEFENDER, "QS", stock="TH")
    play(eng, "pass", "pass", "draw")
    # AC, 4C, 7H, TH leave gin; 2C leaves AC 3C 4C (8), 3C AC 2C 4C (7), 5D 4D 6D (10),
    # 6D 4D 5D (9); 4D (11), 8H (26) and 9H (25) leave too much
    assert knocks(eng) == cards("AC 4C 7H TH 2C 3C 5D 6D")
    assert "knock 9H" not in legal(eng)
    play(eng, "knock AC")
    s = eng.state
    assert int(s.outcome[0]) == Outcome.GIN
    assert int(s.points[0]) == 44 + 25
    assert top(eng) == "AC"
    assert len(hand(eng, NON_DEALER)) == 10


def test_big_gin_bonus_scores_a_knock_with_all_eleven_melded():
    """With big_gin_bonus=31, any knock of an all-melded 11-card hand scores D + 31."""
    eng = deal(BIG, BIG_DEFENDER, "QS", stock="TH", rules=RulesConfig(big_gin_bonus=31))
    play(eng, "pass", "pass", "draw")
    assert knocks(eng) == cards(BIG) | {"TH"}
    play(eng, "knock 9H")  # 9H could not knock without big gin: the knocker keeps all 11
    s = eng.state
    assert int(s.outcome[0]) == Outcome.BIG_GIN
    assert int(s.winner[0]) == NON_DEALER
    assert int(s.points[0]) == 44 + 31
    assert int(s.knocker_deadwood[0]) == 0
    assert int(s.defender_deadwood[0]) == 44  # 2D 3D would lay off on 4D-6D, but not on big gin
    assert not s.layoffs[0].any()
    assert hand(eng, NON_DEALER) == cards(BIG) | {"TH"}
    assert top(eng) == "QS"  # nothing discarded


def test_big_gin_bonus_leaves_other_knocks_alone():
    """With big_gin_bonus set, a hand that does not all meld knocks as usual."""
    eng = deal(RUNS_AND_KS, LOOSE, "QC", stock="QS", rules=RulesConfig(big_gin_bonus=31))
    play(eng, "pass", "pass", "draw")
    assert knocks(eng) == cards("KS QS")
    play(eng, "knock KS")
    assert int(eng.state.outcome[0]) == Outcome.KNOCK
    assert top(eng) == "KS"


# ------------------------------------------------------------------ illegal actions

#: (id, actions before, illegal action)
ILLEGAL = [
    ("draw_on_offer", [], "draw"),
    ("discard_on_offer", [], "discard AC"),
    ("knock_on_offer", [], "knock KS"),
    ("take_on_forced_draw", ["pass", "pass"], "take"),
    ("pass_on_forced_draw", ["pass", "pass"], "pass"),
    ("pass_after_the_offer", ["take", "discard KS"], "pass"),
    ("discard_in_draw_phase", ["take", "discard KS"], "discard 5S"),
    ("draw_in_discard_phase", ["take"], "draw"),
    ("take_in_discard_phase", ["take"], "take"),
    ("discard_a_card_not_held", ["take"], "discard KD"),
    ("rediscard", ["take"], "discard QS"),
    ("knock_over_the_limit", ["take"], "knock AC"),
    ("id_too_large", [], N_ACTIONS),
    ("id_negative", [], -1),
]


@pytest.mark.parametrize(
    ("before", "action"), [i[1:] for i in ILLEGAL], ids=[i[0] for i in ILLEGAL]
)
def test_illegal_action_raises_naming_game_and_action(before, action):
    """An illegal action raises ValueError naming the game index and the action; no change."""
    eng = GinEngine(3, seed=0)
    deck = make_deck(RUNS_AND_KS, LOOSE, "QS")
    eng.reset(decks=np.stack([deck] * 3), dealers=DEALER)
    play(eng, *before, game=2)
    snapshot = eng.state.rows(np.arange(3))
    action_id = parse_action(action) if isinstance(action, str) else action
    with pytest.raises(ValueError, match=rf"game 2: illegal action {action_id} \("):
        step_one(eng, action, game=2)
    assert fields_equal(eng.state, snapshot)


def test_malformed_action_arrays_raise():
    """A wrong number of actions or non-integer actions raise ValueError."""
    eng = GinEngine(2, seed=0)
    eng.reset()
    with pytest.raises(ValueError, match="expected 2 actions"):
        eng.step(np.array([PASS]))
    with pytest.raises(ValueError, match="integers"):
        eng.step(np.array([PASS, PASS], dtype=float))


def test_finished_hands_ignore_actions():
    """Actions for a finished hand (even illegal ids) are ignored; the other games go on."""
    eng = GinEngine(2, seed=0)
    deck = make_deck(RUNS_AND_KS, LOOSE, "TH")
    eng.reset(decks=np.stack([deck] * 2), dealers=DEALER)
    play(eng, "take", "knock KS")
    eng.reset(mask=np.array([False, True]), decks=np.stack([deck] * 2), dealers=DEALER)
    assert bool(eng.over[0]) and not bool(eng.over[1])
    assert not eng.legal_action_mask()[0].any()
    done = eng.state.rows([0])
    game1 = ["pass", "pass", "draw", "discard KS"]
    for junk, action in zip((TAKE, 999, -5, parse_action("knock KS")), game1, strict=True):
        ended = eng.step(np.array([junk, parse_action(action)]))
        assert not ended.any()
        assert fields_equal(eng.state.rows([0]), done)
    assert top(eng, game=1) == "KS"  # game 1 did move


# ---------------------------------------------------------------------- reset checks

GOOD = make_deck(RUNS_AND_KS, LOOSE, "QS")
BAD_DECKS = [
    ("duplicate", np.concatenate([GOOD[:51], GOOD[:1]])),
    ("id_52", np.where(GOOD == 0, 52, GOOD)),
    ("negative", np.where(GOOD == 0, -1, GOOD.astype(np.int64))),
    ("too_short", GOOD[:51]),
    ("too_long", np.concatenate([GOOD, [0]])),
    ("wrong_batch", np.stack([GOOD] * 3)),
]


@pytest.mark.parametrize("deck", [b[1] for b in BAD_DECKS], ids=[b[0] for b in BAD_DECKS])
def test_reset_rejects_a_deck_that_is_not_a_permutation(deck):
    """reset(decks=...) raises ValueError unless each deck is a permutation of 0..51."""
    eng = GinEngine(2, seed=0)
    with pytest.raises(ValueError):
        eng.reset(decks=deck, dealers=0)


@pytest.mark.parametrize("dealers", [2, -1, 256, 257, [0, 3]])
def test_reset_rejects_a_dealer_that_is_not_a_seat(dealers):
    """reset(dealers=...) raises ValueError for anything but seat 0 or 1."""
    eng = GinEngine(2, seed=0)
    with pytest.raises(ValueError):
        eng.reset(dealers=dealers)


@pytest.mark.parametrize(
    "kwargs", [{"decks": GOOD[:51]}, {"dealers": 2}], ids=["bad_deck", "bad_dealer"]
)
def test_rejected_reset_changes_nothing(kwargs):
    """A reset that raises leaves the engine as it was: the next seeded deal is unchanged."""
    eng, twin = GinEngine(2, seed=9), GinEngine(2, seed=9)
    with pytest.raises(ValueError):
        eng.reset(**kwargs)
    eng.reset()
    twin.reset()
    assert fields_equal(eng.state, twin.state)

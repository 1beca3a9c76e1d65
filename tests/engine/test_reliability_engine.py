"""Issue 17, engine side: min_deadwood limits, replay input errors, env input errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import reference_melds as ref
from helpers import random_legal

from hgin_env import replay
from hgin_env.engine import melds
from hgin_env.engine.cards import parse_card_list, parse_cards
from hgin_env.engine.game import GinEngine
from hgin_env.envs.gym_env import HollywoodGinEnv
from hgin_env.envs.pettingzoo_env import env as pettingzoo_env
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

# ---------------------------------------------------------------- item 8: min_deadwood


def test_min_deadwood_refuses_a_string_array() -> None:
    """An array of card strings is refused by dtype, not read as 52 held cards."""
    hand = np.array(["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "TS"] * 5 + ["JS", "QS"])
    with pytest.raises(ValueError, match="dtype <U2"):
        melds.min_deadwood(hand)
    with pytest.raises(ValueError, match="dtype"):
        melds.deadwood_after_discard(hand)


def test_min_deadwood_accepts_zero_one_numbers_but_not_other_values() -> None:
    """An int8 0/1 mask gives the bool answer; an entry of 2 is refused."""
    hand = parse_cards("AC 2C 3C 4D 5D 6D 7H 8H 9H TS")
    assert melds.min_deadwood(hand.astype(np.int8)) == melds.min_deadwood(hand) == 10
    with pytest.raises(ValueError, match="0 or 1"):
        melds.min_deadwood(hand.astype(np.int8) * 2)


@pytest.mark.parametrize(
    "cards",
    [
        " ".join(f"{r}{s}" for r in "A23456789TJQK" for s in "CDHS"),  # all 52 cards
        # 36 cards, 9 ranks of 3 or more: 6**9 scenarios (asked for 2.7 GiB before)
        "AC AD AH 2C 2D 2H 3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D 6H 7C 7D 7H 8C 8D 8H "
        "9C 9D 9H TC TD JC JD QC QD KC KD KH",
    ],
)
def test_min_deadwood_refuses_hands_beyond_its_documented_limit(cards: str) -> None:
    """Hands with more than MAX_SET_RANKS ranks of 3+ cards raise a ValueError naming it."""
    hand = parse_cards(cards)
    with pytest.raises(ValueError, match=f"at most {melds.MAX_SET_RANKS}"):
        melds.min_deadwood(hand)
    with pytest.raises(ValueError, match=f"at most {melds.MAX_SET_RANKS}"):
        melds.deadwood_after_discard(hand[None])


def test_the_worst_hand_within_the_limit_is_searched() -> None:
    """20 cards with 6 ranks of three (6**6 scenarios) get their exact minimum deadwood."""
    hand = parse_cards("AC AD AH 2C 2D 2H 3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D 6H QS KS")
    assert melds.min_deadwood(hand) == 20
    assert melds.deadwood_after_discard(hand)[parse_card_list("KS")[0]] == 10


def test_big_hands_agree_with_the_brute_force_reference() -> None:
    """Dense 16- to 18-card hands (up to 5 ranks of 3+) match the plain-Python reference."""
    rng = np.random.default_rng(17)
    hands = np.zeros((12, 52), dtype=bool)
    for i, row in enumerate(hands):
        ranks = rng.choice(13, 5, replace=False)
        pool = {s * 13 + r for s in range(4) for r in ranks} | {13 + r for r in range(13)}
        row[rng.choice(sorted(pool), 16 + i % 3, replace=False)] = True
    got = melds.min_deadwood(hands)
    want = [ref.min_deadwood(np.flatnonzero(h).tolist()) for h in hands]
    assert got.tolist() == want


def test_chunked_search_equals_one_pass(monkeypatch) -> None:
    """With a tiny scenario budget (many chunks) both deadwood functions give the same answers."""
    rng = np.random.default_rng(5)
    hands = np.zeros((300, 52), dtype=bool)
    for row in hands:
        ranks = rng.choice(13, 4, replace=False)
        pool = [s * 13 + r for s in range(4) for r in ranks] + list(range(13))
        row[rng.choice(sorted(set(pool)), 11, replace=False)] = True
    one_pass = melds.min_deadwood(hands), melds.deadwood_after_discard(hands)
    monkeypatch.setattr(melds, "SCENARIO_BUDGET", 40)
    chunked = melds.min_deadwood(hands), melds.deadwood_after_discard(hands)
    assert np.array_equal(one_pass[0], chunked[0]) and np.array_equal(one_pass[1], chunked[1])


def test_best_melds_refuses_a_batch() -> None:
    """best_melds takes one hand; a batch gets a ValueError saying so (not a reshape error)."""
    hands = np.stack([parse_cards("AC 2C 3C 4D 5D 6D 7H 8H 9H TS")] * 3)
    with pytest.raises(ValueError, match="one hand"):
        melds.best_melds(hands)
    found, loose = melds.best_melds(hands[0])
    assert len(found) == 3 and loose == parse_card_list("TS")


# ---------------------------------------------------------------- item 11: replay input


def one_hand_record() -> dict:
    """The record of one hand of random legal play (seeded)."""
    engine = GinEngine(1, seed=11)
    engine.reset()
    deck, dealer = engine.state.deck[0].copy(), int(engine.state.dealer[0])
    rng = np.random.default_rng(0)
    actions = []
    while not engine.all_over:
        seat = int(engine.current_player[0])
        action = random_legal(engine.legal_action_mask(), rng, knock_prob=0.5)
        actions.append((seat, int(action[0])))
        engine.step(action)
    return replay.hand_record(deck, dealer, actions, engine.state)


def run_replay(path: Path, capsys) -> tuple[int, list[str]]:
    """Run the replay CLI in-process; returns its status and its stderr lines."""
    status = replay.main([str(path)])
    return status, capsys.readouterr().err.strip().splitlines()


def test_a_good_record_replays(tmp_path: Path, capsys) -> None:
    """The unmodified record verifies with status 0 (the baseline of the tests below)."""
    path = tmp_path / "hand.jsonl"
    path.write_text(json.dumps(one_hand_record()) + "\n")
    assert replay.main([str(path)]) == 0
    assert "verified 1 hand(s)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["actions"][3].__setitem__(1, 999), "action id 999"),
        (lambda r: r["actions"][0].__setitem__(1, -1), "action id -1"),
        (lambda r: r.__setitem__("deck", r["deck"][:40]), "got 40 entries"),
        (lambda r: r.__setitem__("version", 99), "version 99 is not supported"),
        (lambda r: r.pop("version"), "version None is not supported"),
    ],
)
def test_malformed_records_exit_2_with_one_line(change, message, tmp_path: Path, capsys) -> None:
    """Out-of-range action ids, a short deck and an unknown version: status 2, one line."""
    record = one_hand_record()
    change(record)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")
    status, lines = run_replay(path, capsys)
    assert status == 2 and len(lines) == 1 and message in lines[0], lines


def test_unreadable_transcripts_exit_2_with_one_line(tmp_path: Path, capsys) -> None:
    """A binary file and an empty file are errors (status 2), not a crash or '0 hands'."""
    binary = tmp_path / "model.jsonl"
    binary.write_bytes(bytes(range(256)) * 4)
    status, lines = run_replay(binary, capsys)
    assert status == 2 and len(lines) == 1 and "not a text transcript" in lines[0]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    status, lines = run_replay(empty, capsys)
    assert status == 2 and len(lines) == 1 and "no hand records" in lines[0]


def test_a_mismatching_record_still_exits_1(tmp_path: Path, capsys) -> None:
    """A well-formed record that the engine disagrees with keeps status 1 (verification)."""
    record = one_hand_record()
    record["result"]["points"] += 1
    path = tmp_path / "tampered.jsonl"
    path.write_text(json.dumps(record) + "\n")
    status, lines = run_replay(path, capsys)
    assert status == 1 and len(lines) == 1 and "differs from the record" in lines[0]


# ---------------------------------------------------------------- item 12: env input


def test_a_huge_action_id_is_named_exactly() -> None:
    """step(2**63) names 9223372036854775808 (no wrap to a negative id)."""
    env = HollywoodGinEnv(seed=0)
    env.reset()
    with pytest.raises(ValueError, match="illegal action 9223372036854775808 ") as info:
        env.step(2**63)
    assert "-9223372036854775808" not in str(info.value)


def test_seeds_outside_the_uint64_range_are_refused() -> None:
    """reset(seed=2**64) and seed -1 raise a ValueError naming the range; 2**64-1 works."""
    env = HollywoodGinEnv(seed=0)
    for bad in (2**64, -1):
        with pytest.raises(ValueError, match=r"0\.\.2\*\*64-1"):
            env.reset(seed=bad)
    obs, _ = env.reset(seed=2**64 - 1)
    assert obs.shape == env.observation_space.shape
    with pytest.raises(ValueError, match=r"0\.\.2\*\*64-1"):
        pettingzoo_env().reset(seed=2**64)


def test_vec_env_refuses_a_negative_seed_at_construction() -> None:
    """HollywoodGinVecEnv(4, seed=-1) fails at once with the seed range, as does seed(-1)."""
    with pytest.raises(ValueError, match=r"got -1"):
        HollywoodGinVecEnv(4, seed=-1)
    env = HollywoodGinVecEnv(4, seed=0)
    with pytest.raises(ValueError, match=r"0\.\.2\*\*64-1"):
        env.seed(-1)
    env.seed(2**64 - 2)  # seeds 2**64-2 .. wrap modulo 2**64
    assert env.reset().shape[0] == 4


def test_pettingzoo_refuses_an_array_of_actions_clearly() -> None:
    """step(np.array([104, 105])) raises a ValueError asking for one action id."""
    env = pettingzoo_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="one action id expected"):
        env.step(np.array([104, 105]))

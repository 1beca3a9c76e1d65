"""The replay checker (``python -m hgin_env.replay``): good records pass, bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers.actions import random_legal

from hgin_env import replay
from hgin_env.engine.game import GinEngine


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
        (lambda r: r.__setitem__("names", [1, 2]), "names must hold 2 names"),
        (lambda r: r.__setitem__("result", [1]), "result must be an object"),
        (lambda r: r.__setitem__("dealt", 5), "dealt must be a list"),
    ],
)
def test_malformed_records_exit_2_with_one_line(change, message, tmp_path: Path, capsys) -> None:
    """Bad ids, a short deck, an unknown version, wrong-typed fields: status 2, one line."""
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


def test_an_integer_past_the_digit_limit_is_not_json(tmp_path: Path, capsys) -> None:
    """A 4,301-digit integer (json.loads raises ValueError) is status 2 and one line."""
    path = tmp_path / "huge.jsonl"
    path.write_text('{"version": ' + "9" * 4301 + "}\n")
    status, lines = run_replay(path, capsys)
    assert status == 2 and len(lines) == 1 and "number too long" in lines[0], lines


def test_a_mismatching_record_still_exits_1(tmp_path: Path, capsys) -> None:
    """A well-formed record that the engine disagrees with keeps status 1 (verification)."""
    record = one_hand_record()
    record["result"]["points"] += 1
    path = tmp_path / "tampered.jsonl"
    path.write_text(json.dumps(record) + "\n")
    status, lines = run_replay(path, capsys)
    assert status == 1 and len(lines) == 1 and "differs from the record" in lines[0]

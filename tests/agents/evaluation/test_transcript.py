"""Transcripts: evaluation records replay through the engine; tampering is caught; CLI works."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hgin_cli.evaluate as cli
from agents import evaluate
from agents.evaluation.transcript import TranscriptRecorder
from hgin_env.engine.game import Outcome
from hgin_env.engine.series import SeriesEngine
from hgin_env.replay import ReplayError, read_transcript, replay_hand

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def recorded() -> TranscriptRecorder:
    """A recorder filled by a small seeded evaluation of simple against expert."""
    rec = TranscriptRecorder(hands=4)
    evaluate("simple", "expert", 6, seed=1, progress=False, recorder=rec)
    return rec


def test_recorder_keeps_first_hands(recorded: TranscriptRecorder) -> None:
    """The first hand of each of the first K series is recorded, and only those."""
    assert recorded.done
    assert sorted(r["info"]["series"] for r in recorded.records) == [0, 1, 2, 3]


def test_records_name_each_seats_exact_version(recorded: TranscriptRecorder) -> None:
    """Each record's ``info["versions"]`` holds the players' versions, seat 0 first as names."""
    exact = {"simple": "simple@2", "expert": "expert@1"}
    for rec in recorded.records:
        assert rec["info"]["versions"] == [exact[name] for name in rec["names"]]
    assert {tuple(r["names"]) for r in recorded.records} == {
        ("simple", "expert"),
        ("expert", "simple"),
    }


def test_records_match_the_engine(recorded: TranscriptRecorder) -> None:
    """Replaying each record re-deals its deck and ends in the engine's recorded state."""
    for rec in recorded.records:
        engine, lines = replay_hand(rec)
        s = engine.state
        assert int(s.points[0]) == rec["result"]["points"]
        assert int(s.winner[0]) == rec["result"]["winner"]
        assert int(s.turns[0]) == rec["result"]["turns"]
        assert len([line for line in lines if ". " in line]) >= len(rec["actions"])


def test_recorded_hand_equals_a_fresh_series(recorded: TranscriptRecorder) -> None:
    """The recorded actions, played on a fresh SeriesEngine with the deck, give the same hand."""
    rec = recorded.records[0]
    series = SeriesEngine(1, seed=0)
    series.reset(first_dealers=rec["dealer"])
    series.engine.reset(decks=np.array(rec["deck"])[None], dealers=rec["dealer"])
    for k, (seat, action) in enumerate(rec["actions"]):
        assert int(series.engine.current_player[0]) == seat
        step = series.step(np.array([action]))
        assert bool(step.hand_over[0]) == (k == len(rec["actions"]) - 1)
    assert int(step.hands.points[0]) == rec["result"]["points"]
    assert step.hands.outcome[0] == Outcome[rec["result"]["outcome"]]


def test_tampered_records_are_rejected(recorded: TranscriptRecorder) -> None:
    """A changed action, seat, result or truncated record raises a clear ReplayError."""
    rec = recorded.records[0]
    bad = copy.deepcopy(rec)
    bad["result"]["points"] += 1
    with pytest.raises(ReplayError, match="points"):
        replay_hand(bad)
    bad = copy.deepcopy(rec)
    bad["actions"][0][0] = 1 - bad["actions"][0][0]
    with pytest.raises(ReplayError, match="step 1"):
        replay_hand(bad)
    bad = copy.deepcopy(rec)
    bad["actions"] = bad["actions"][:-1]
    with pytest.raises(ReplayError, match="still live"):
        replay_hand(bad)
    bad = copy.deepcopy(rec)
    bad["actions"][2][1] = 0 if bad["actions"][2][1] != 0 else 1
    with pytest.raises(ReplayError):
        replay_hand(bad)


def test_evaluate_cli_writes_transcript_and_replay_cli(tmp_path: Path) -> None:
    """evaluate.py --transcript writes JSONL and text; python -m hgin_env.replay verifies it."""
    path = tmp_path / "hands.jsonl"
    args = ["simple", "random", "--series", "4", "--no-progress", "--transcript", str(path)]
    assert cli.main([*args, "--transcript-hands", "2"]) == 0
    records = read_transcript(path)
    assert len(records) == 2
    text = path.with_suffix(".txt").read_text()
    assert "Hand 1 of 2" in text and ("points to" in text or "drawn" in text)
    proc = subprocess.run(
        [sys.executable, "-m", "hgin_env.replay", str(path), "--hand", "2"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Hand 2 of 2" in proc.stdout and "verified 1 hand(s)" in proc.stdout
    bad = records[0]
    bad["result"]["winner"] = 1 - bad["result"]["winner"]
    path.write_text(json.dumps(bad) + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "hgin_env.replay", str(path)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1 and "differs from the record" in proc.stderr
    assert "Traceback" not in proc.stderr

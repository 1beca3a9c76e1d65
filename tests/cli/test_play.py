"""The terminal game: play.py driven through stdin for a whole hand, illegal input, EOF, quit."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.reports import NOWHERE, one_error_line

import hgin_cli.play as play_cli
from agents import SimpleBot, load_policy
from hgin_env.engine import KNOCK
from hgin_env.engine.cards import N_CARDS, card_text
from hgin_env.engine.game import Phase
from hgin_env.replay import replay_hand
from hgin_ui.terminal import GameSession, input_text

ROOT = Path(__file__).resolve().parents[2]
SEED = 3


def scripted_hand(seed: int, seat: int, opponent: str = "simple") -> tuple[list[dict], dict]:
    """Play one seeded hand in-process with a bot in the human's seat.

    Returns:
        ``(prompts, record)``: per human prompt its input text, phase, hand and legal mask;
        and the engine's record of the hand.
    """
    session = GameSession(load_policy(opponent, seed), seed=seed, seat=seat)
    human = SimpleBot(seed)
    prompts = []
    while session.hands_done < 1:
        if not session.human_to_act:
            session.step(session.opponent_action())
            continue
        legal = session.legal().copy()
        action = int(human.act(session.observation(seat), legal[None])[0])
        prompts.append(
            {
                "text": input_text(action),
                "action": action,
                "phase": int(session.engine.phase[0]),
                "hand": session.engine.state.hands[0, seat].copy(),
                "legal": legal,
            }
        )
        session.step(action)
    return prompts, session.last_record


def run_play(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    """Run play.py with the given arguments and standard input."""
    return subprocess.run(
        [sys.executable, str(ROOT / "play.py"), *args],
        input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip


def with_illegal_input(prompts: list[dict]) -> tuple[list[str], dict[str, str]]:
    """The scripted lines with gibberish, a card not held and a forbidden knock inserted.

    Returns:
        ``(lines, expected)``: stdin lines and the messages each inserted line must produce.
    """
    lines = ["gibberish words", "ZZ", "help"]
    expected = {"gibberish": "Not a move", "ZZ": "Not a move"}
    inserted = False
    for p in prompts:
        held = p["hand"]
        blocked = [c for c in range(N_CARDS) if p["legal"][c] and not p["legal"][KNOCK + c]]
        if not inserted and p["phase"] == Phase.DISCARD and blocked:
            missing = card_text(int(np.flatnonzero(~held)[0]))
            lines += [f"knock {missing}", missing, f"knock {card_text(blocked[0])}"]
            expected[f"knock {missing}"] = f"You do not hold {missing}."
            expected[f"knock {card_text(blocked[0])}"] = (
                f"You cannot knock discarding {card_text(blocked[0])}"
            )
            inserted = True
        lines.append(p["text"])
    assert inserted, "the scripted hand never had a discard prompt with a forbidden knock"
    return lines, expected


@pytest.mark.parametrize(("seat", "seed"), [(0, 3), (1, 5)])
def test_whole_hand_through_stdin_with_illegal_input(seat: int, seed: int, tmp_path: Path) -> None:
    """A scripted hand fed through stdin ends like the in-process game; bad input re-prompts."""
    prompts, record = scripted_hand(seed, seat)
    lines, expected = with_illegal_input(prompts)
    transcript = tmp_path / "play.jsonl"
    proc = run_play(
        ["simple", "--seed", str(seed), "--seat", str(seat), "--hands", "1",
         "--names", "Ann", "Bot", "--transcript", str(transcript)],
        "\n".join(lines) + "\n",
    )  # fmt: skip
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    # one prompt per line read: the scripted moves, the illegal lines and help
    assert out.count("Ann> ") == len(lines)
    assert out.count("Illegal move:") == 3 and out.count("Not a move:") == 2
    for message in expected.values():
        assert message in out
    assert "Legal:" in out and "Commands:" in out
    assert "Hand over" in out and "Stopped after 1 hand(s)." in out
    assert "Top discard" in out and "Stock" in out and "Bot holds" in out
    assert "Game 1" in out  # the Hollywood score sheet
    if any(s != seat for s, _ in record["actions"]):  # the opponent's moves are shown
        assert re.search(r"^Bot (passes|takes|draws|discards|knocks)", out, re.M)
    # the transcript of the session is the in-process game, move for move
    (rec,) = [json.loads(line) for line in transcript.read_text().splitlines()]
    human_moves = [a for s, a in rec["actions"] if s == seat]
    assert human_moves == [p["action"] for p in prompts]
    assert rec["actions"] == record["actions"]
    assert rec["result"] == record["result"]
    replay_hand(rec)


def test_end_of_input_exits_cleanly() -> None:
    """Closing stdin before the hand ends prints a message and exits 0 without a traceback."""
    proc = run_play(["simple", "--seed", str(SEED), "--hands", "1"], "")
    assert proc.returncode == 0
    assert "End of input: leaving the game." in proc.stdout
    assert "Traceback" not in proc.stderr


def test_quit() -> None:
    """``quit`` at the prompt ends the game with exit status 0."""
    proc = run_play(["simple", "--seed", "5", "--seat", "1", "--hands", "1"], "quit\n")
    assert proc.returncode == 0
    assert "You left the game." in proc.stdout


def test_bad_command_line() -> None:
    """An unknown opponent or a bad rules option is a clear error, not a traceback."""
    proc = run_play(["no-such-bot", "--seed", "1"], "")
    assert proc.returncode == 2 and "unknown policy" in proc.stderr
    proc = run_play(["simple", "--rules", "knock_limit=x"], "")
    assert proc.returncode == 2 and "must be an integer" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_play_checks_its_transcript_before_the_game(capsys) -> None:
    """play.py --transcript to an unwritable path fails at once (status 2, one line)."""
    assert play_cli.main(["simple", "--transcript", str(NOWHERE / "x.jsonl")]) == 2
    out, line = one_error_line(capsys)
    assert "cannot write /proc/nope/x.jsonl" in line and out == ""

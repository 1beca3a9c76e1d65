"""The games ``evaluate.py`` plays stay the same: bots, models, the search, rules, duplicates.

Each case runs the real command line and reduces what it wrote (the ``--json`` results
and, where asked, the move-by-move ``--transcript``) to a fingerprint: a sha256 of the
canonical JSON with the measured timings and the provenance block left out. The expected
fingerprints in ``tests/data/fingerprints.json`` were recorded from the engine before it
was compiled; a change to a deal, a legal mask, a bot's choice, a model's play or a score
changes them. After a deliberate change of play (which also needs a new version of the
bot or model), rewrite the file with ``HGIN_WRITE_FINGERPRINTS=1 pytest
tests/test_fingerprints.py`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = ROOT / "tests" / "data" / "fingerprints.json"

#: keys whose values are measurements of this run, not of the games
UNSTABLE_KEYS = frozenset({"seconds", "series_per_second", "provenance"})

#: name -> evaluate.py arguments (without --json, --transcript, --no-progress)
CASES: dict[str, list[str]] = {
    "bots-random-simple": ["random", "simple", "--series", "6", "--seed", "1"],
    "bots-expert-simple-duplicate": [
        "expert", "simple", "--series", "3", "--seed", "2", "--duplicate",
    ],
    "bots-patient-tempo-undercut25": [
        "patient", "tempo", "--series", "3", "--seed", "5", "--rules", "undercut_bonus=25",
    ],
    "league-bots-rediscard": [
        "--series", "2", "--seed", "4", "--rules", "allow_rediscard=true",
        "--league", "random", "simple", "expert",
    ],
    "models-league": [
        "--series", "1", "--seed", "6", "--rules", "game_target=25",
        "--league", "ppo-cards", "ppo-knock", "ppo-league", "ppo-league2", "ppo-taught",
    ],
    "model-taught-against-bots": [
        "ppo-taught", "--series", "2", "--seed", "8", "--rules", "game_target=25",
        "--against", "simple", "patient",
    ],
    "searcher-simple": [
        "searcher", "simple", "--series", "1", "--seed", "7", "--rules", "game_target=25",
    ],
}  # fmt: skip

#: the cases that also fingerprint the move-by-move transcript of their first hands
TRANSCRIBED = {"bots-expert-simple-duplicate", "bots-patient-tempo-undercut25", "searcher-simple"}


def _stable(value: Any) -> Any:
    """The value with every measured timing and provenance key removed, at any depth."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in UNSTABLE_KEYS}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _digest(value: Any) -> str:
    """sha256 of the canonical JSON text of a value."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprint(name: str, tmp: Path) -> dict[str, str]:
    """Run one case through ``evaluate.py`` and return its fingerprints."""
    out = tmp / f"{name}.json"
    args = [sys.executable, str(ROOT / "evaluate.py"), *CASES[name], "--json", str(out)]
    transcript = tmp / f"{name}.jsonl"
    if name in TRANSCRIBED:
        args += ["--transcript", str(transcript), "--transcript-hands", "3"]
    done = subprocess.run(
        [*args, "--no-progress"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    prints = {"results": _digest(_stable(json.loads(out.read_text())))}
    if name in TRANSCRIBED:
        lines = [json.loads(line) for line in transcript.read_text().splitlines() if line]
        assert lines, "the transcript is empty"
        prints["transcript"] = _digest(_stable(lines))
    return prints


@pytest.mark.parametrize("name", sorted(CASES))
def test_games_unchanged(name: str, tmp_path: Path) -> None:
    """The case's results and transcript hash to the fingerprints recorded before."""
    got = fingerprint(name, tmp_path)
    if os.environ.get("HGIN_WRITE_FINGERPRINTS") == "1":
        table = json.loads(EXPECTED.read_text()) if EXPECTED.exists() else {}
        table[name] = got
        EXPECTED.parent.mkdir(exist_ok=True)
        EXPECTED.write_text(json.dumps(table, indent=2, sort_keys=True) + "\n")
        pytest.skip("fingerprints written")
    expected = json.loads(EXPECTED.read_text())
    assert got == expected[name], f"{name}: the games changed (evaluate.py {CASES[name]})"


def test_every_case_recorded() -> None:
    """Each case has an expected fingerprint, and none is left over from a removed case."""
    assert set(json.loads(EXPECTED.read_text())) == set(CASES)

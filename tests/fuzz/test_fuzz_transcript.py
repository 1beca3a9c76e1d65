"""Fuzz transcript lines: a record replays, or is refused with one line, never a crash.

Seeded and small: a real hand's record with fields replaced by random values, texts
with lone surrogates and raw lines; ``parse_transcript`` and ``format_record`` may only
raise ``ReplayError``, and ``python -m hgin_env.replay`` exits 0, 1 or 2.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.evaluation import evaluate
from agents.evaluation.transcript import TranscriptRecorder
from hgin_env.replay import ReplayError, format_record, main, parse_transcript

RECORDER = TranscriptRecorder(1)
evaluate("random", "simple", 1, seed=5, progress=False, recorder=RECORDER)
(RECORD,) = RECORDER.records
#: texts of any code point, lone surrogates included (``st.text`` never makes those)
TEXT = st.lists(
    st.characters() | st.sampled_from(["\ud800", "\udfff", "\x00", "é"]), max_size=10
).map("".join)
SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | TEXT
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
SETTINGS = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def replays_or_refuses(line: str) -> None:
    """The line's records replay, or a ReplayError of one line says why."""
    try:
        for record in parse_transcript(line, "t.jsonl"):
            format_record(record)
    except ReplayError as exc:
        assert str(exc).strip() and "\n" not in str(exc), str(exc)[:300]


@SETTINGS
@given(st.sampled_from(sorted(RECORD)), VALUES)
def test_a_record_with_a_field_replaced(key: str, value: object) -> None:
    """One field of a real record replaced by a random value."""
    replays_or_refuses(json.dumps({**RECORD, key: value}))


@SETTINGS
@given(st.sampled_from(["actions", "deck"]), st.integers(0, 60), st.integers(-(2**66), 2**66))
def test_a_record_with_one_number_changed(key: str, index: int, value: int) -> None:
    """One action or card of a real record changed."""
    items = list(RECORD[key])
    items[index % len(items)] = value if key == "deck" else [value % 2, value]
    replays_or_refuses(json.dumps({**RECORD, key: items}))


@SETTINGS
@given(TEXT | st.text(alphabet='{}[]":,0123456789\\u ', max_size=40))
def test_raw_lines(text: str) -> None:
    """Raw text as a transcript."""
    replays_or_refuses(text)


def test_the_replay_command_exits_with_a_status(tmp_path, capsys) -> None:
    """A line with a surrogate name or nested deep: exit 2, one line, no traceback."""
    for line in [json.dumps({**RECORD, "names": ["\udfff", "b"]}), "[" * 100_000]:
        path = tmp_path / "t.jsonl"
        path.write_text(json.dumps(RECORD) + "\n" + line + "\n")
        assert main([str(path)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err

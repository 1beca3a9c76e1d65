"""``python -m research.experiments.belief_table`` builds the shipped deadwood table again."""

from __future__ import annotations

import json
import sys

import numpy as np

from agents.search import worlds
from research.experiments import belief_table

#: the shipped table's fields; a tiny run must write the same ones
FIELDS = json.loads(worlds.DEADWOOD_TABLE.read_text())
#: bots only (no model to load): the experiment's code path is the same for every pair
PAIRS = (("expert", "simple"), ("tempo", "patient"))


def _build(monkeypatch, out) -> dict:
    """Run the experiment's command line on 2 hands per pair with 2 worlds; its table."""
    argv = ["belief_table", "--hands", "2", "--worlds", "2", "--seed", "7", "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(belief_table, "PAIRS", PAIRS)
    belief_table.main()
    return json.loads(out.read_text())


def test_a_tiny_run_writes_the_shipped_format_and_repeats_itself(monkeypatch, tmp_path):
    """The table has the shipped file's fields and shapes, the reader takes it, a rerun is equal."""
    table = _build(monkeypatch, tmp_path / "a.json")
    assert table.keys() == FIELDS.keys()
    shape = (worlds.TURN_BUCKETS, worlds.DEADWOOD_BUCKETS)
    true, uniform = np.asarray(table["true_counts"]), np.asarray(table["uniform_counts"])
    assert true.shape == uniform.shape == shape and true.sum() > 0
    assert np.isclose(true.sum(), uniform.sum())  # each decision counted once in both
    assert table["hands_per_pair"] == 2 and table["pairs"] == [list(p) for p in PAIRS]
    monkeypatch.setattr(worlds, "DEADWOOD_TABLE", tmp_path / "a.json")
    worlds.true_deadwood_shares.cache_clear()
    try:
        assert np.allclose(worlds.true_deadwood_shares().sum(axis=1), 1.0)
    finally:
        worlds.true_deadwood_shares.cache_clear()
    again = _build(monkeypatch, tmp_path / "b.json")
    assert {**again, "command": ""} == {**table, "command": ""}

"""The random-key library: one table of streams, derived in one place, with stable numbers."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from hgin_env.engine import keys
from hgin_env.engine.keys import Salt, SeedStream

ROOT = Path(__file__).resolve().parents[2]
KEYS_FILE = ROOT / "hgin_env" / "engine" / "keys.py"


def project_files() -> list[Path]:
    """Every module of the packages, but the key library itself."""
    files = [p for pkg in ("hgin_env", "agents", "hgin_cli") for p in (ROOT / pkg).rglob("*.py")]
    return [p for p in files if p != KEYS_FILE]


@pytest.mark.parametrize("table", [Salt, SeedStream])
def test_every_stream_has_its_own_number(table) -> None:
    """No two names of a table share a number (an IntEnum would make the second an alias)."""
    assert len(list(table)) == len(table.__members__)


def test_seeds_are_derived_only_in_the_key_library() -> None:
    """Outside keys.py no module builds a SeedSequence or hashes with a literal salt."""
    offenders = []
    for path in project_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            salts = node.args[2:] + [k.value for k in node.keywords if k.arg == "salt"]
            literal_salt = name == "hash_stream" and any(isinstance(s, ast.Constant) for s in salts)
            if name == "SeedSequence" or literal_salt:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders


@pytest.mark.parametrize("seed", [0, 7, 2**63 + 5])
def test_seed_streams_keep_their_numbers(seed: int) -> None:
    """Each seed stream is numpy's SeedSequence([seed, stream]) at its documented width."""

    def words(entropy: list[int], count: int) -> np.ndarray:
        return np.random.SeedSequence(entropy).generate_state(count, np.uint64)

    for stream in SeedStream:
        assert keys.sub_seed(seed, stream) == int(words([seed, int(stream)], 1)[0] >> 1)
    assert np.array_equal(keys.series_seeds(seed, 5), words([seed, 0], 5))
    assert keys.session_seed(seed, 2048) == int(words([seed, 2048], 1)[0] >> 2)
    games, draws = keys.worker_seeds(seed, 3)
    assert [games, draws] == [int(w >> 2) for w in words([seed, 3], 2)]


def test_uniforms_lie_in_the_unit_interval_and_the_shifted_ones_exclude_zero() -> None:
    """to_uniform maps 0 to 0 and the largest word below 1; the shifted variant avoids 0."""
    bits = np.array([0, 2**64 - 1], dtype=np.uint64)
    closed, opened = keys.to_uniform(bits), keys.to_uniform(bits, open_interval=True)
    assert closed[0] == 0.0 and closed[1] < 1.0
    assert opened[0] > 0.0 and opened[1] <= 1.0
    uniforms = keys.key_uniforms(np.arange(4, dtype=np.uint64), 3, offset=2)
    assert uniforms.shape == (4, 3) and np.all((uniforms >= 0) & (uniforms < 1))

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
    """The evaluator's streams are SeedSequence([seed, stream]); later ones use a spawn key."""

    def words(count: int, *entropy: int, spawn: tuple[int, ...] = ()) -> np.ndarray:
        sequence = np.random.SeedSequence(list(entropy) or None, spawn_key=spawn)
        return sequence.generate_state(count, np.uint64)

    for stream in (SeedStream.DEALS, SeedStream.POLICY_A, SeedStream.POLICY_B):
        assert keys.sub_seed(seed, stream) == int(words(1, seed, int(stream))[0] >> 1)
    assert np.array_equal(keys.series_seeds(seed, 5), words(5, seed, 0))
    session = words(1, seed, spawn=(int(SeedStream.SESSION), 2048))[0]
    assert keys.session_seed(seed, 2048) == int(session >> 2)
    games, draws = keys.worker_seeds(seed, 3)
    runner = words(2, seed, spawn=(int(SeedStream.ENV_RUNNER), 3))
    assert [games, draws] == [int(w >> 2) for w in runner]


def test_a_pair_stream_takes_no_counter() -> None:
    """The evaluator's streams have no counter: passing one is an error, not a new stream."""
    with pytest.raises(ValueError, match="DEALS takes no counter"):
        keys.sub_seed(3, SeedStream.DEALS, 1)


#: the streams drawn through their own function (``series_seeds``, ``session_seed``,
#: ``worker_seeds``) rather than ``sub_seed``
WRAPPED = {SeedStream.DEALS, SeedStream.SESSION, SeedStream.ENV_RUNNER}
#: counters drawn for each stream that takes one (steps, worker indices, mix places)
COUNTERS = (0, 1, 2, 3, 2048)


def every_stream(seed: int) -> dict[str, int]:
    """Every seed stream of ``seed`` (the counter streams at ``COUNTERS``), by name.

    Each value is the top 32 bits of what its caller receives (the narrowest width a
    caller uses), so two streams that share a word at different widths count as equal.
    """

    def top(value: int, bits: int) -> int:
        return value >> (bits - 32)

    drawn = {f"series{i}": top(int(v), 64) for i, v in enumerate(keys.series_seeds(seed, 3))}
    for stream in set(SeedStream) - WRAPPED:
        counters = (0,) if stream in keys._PAIR_STREAMS else COUNTERS
        for counter in counters:
            drawn[f"{stream.name}[{counter}]"] = top(keys.sub_seed(seed, stream, counter), 63)
    for counter in COUNTERS:
        drawn[f"session_seed[{counter}]"] = top(keys.session_seed(seed, counter), 62)
        games, draws = keys.worker_seeds(seed, counter)
        drawn[f"worker_games[{counter}]"] = top(games, 62)
        drawn[f"worker_draws[{counter}]"] = top(draws, 62)
    return drawn


def test_no_two_seed_streams_are_equal() -> None:
    """Over seeds 0..200, no two streams (series, sub seeds, sessions, workers) share a seed."""
    seen: dict[int, str] = {}
    clashes = []
    for seed in range(201):
        for name, value in every_stream(seed).items():
            if value in seen:
                clashes.append(f"{name} of seed {seed} == {seen[value]}")
            seen[value] = f"{name} of seed {seed}"
    assert not clashes, clashes[:5]


#: ``seed + k`` left on purpose, with the reason: not a seed derivation
SEED_ARITHMETIC_ALLOWED = {
    ("hgin_env/envs/core.py", "seeds + k.astype(np.uint64)"): "the alternating seat's parity",
}


def seedish(node: ast.AST) -> bool:
    """Whether an expression names a seed (``seed``, ``self.seed``, ``session_seed(...)``)."""
    if isinstance(node, ast.Name):
        return "seed" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "seed" in node.attr.lower()
    if isinstance(node, ast.Call | ast.Subscript):
        return seedish(node.func if isinstance(node, ast.Call) else node.value)
    return False


def seed_arithmetic(path: Path) -> list[str]:
    """Every ``seed + k``, ``k + seed``, ``seed * k`` (or ``seed += k``) in a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mult):
            if seedish(node.left) or seedish(node.right):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.AugAssign)
            and isinstance(node.op, ast.Add | ast.Mult)
            and seedish(node.target)
        ):
            found.append((node.lineno, ast.unparse(node)))
    name = str(path.relative_to(ROOT))
    return [f"{name}:{n}: {t}" for n, t in found if (name, t) not in SEED_ARITHMETIC_ALLOWED]


def test_no_seed_arithmetic_outside_the_key_library() -> None:
    """No module makes a seed by adding to or multiplying another (streams come from keys)."""
    files = project_files() + list((ROOT / "hgin_ui").rglob("*.py"))
    offenders = [line for path in files for line in seed_arithmetic(path)]
    assert not offenders, offenders


def test_the_seed_arithmetic_check_sees_it(tmp_path: Path) -> None:
    """The check finds ``seed + 1``, ``config.seed * 3`` and ``session_seed(s, 0) + 1``."""
    module = ROOT / "tests" / "engine" / "_arithmetic_probe.py"
    module.write_text("a = seed + 1\nb = config.seed * 3\nc = session_seed(s, 0) + 1\nd = 2 + 3\n")
    try:
        found = seed_arithmetic(module)
    finally:
        module.unlink()
    assert [line.split(": ", 1)[1] for line in found] == [
        "seed + 1",
        "config.seed * 3",
        "session_seed(s, 0) + 1",
    ]


def test_uniforms_lie_in_the_unit_interval_and_the_shifted_ones_exclude_zero() -> None:
    """to_uniform maps 0 to 0 and the largest word below 1; the shifted variant avoids 0."""
    bits = np.array([0, 2**64 - 1], dtype=np.uint64)
    closed, opened = keys.to_uniform(bits), keys.to_uniform(bits, open_interval=True)
    assert closed[0] == 0.0 and closed[1] < 1.0
    assert opened[0] > 0.0 and opened[1] <= 1.0
    uniforms = keys.key_uniforms(np.arange(4, dtype=np.uint64), 3, offset=2)
    assert uniforms.shape == (4, 3) and np.all((uniforms >= 0) & (uniforms < 1))


def test_key_uniforms_are_the_top_bits_of_the_splitmix_sequence() -> None:
    """Entry (i, j) is to_uniform(mix64(key_i + (offset + j + 1) * GOLDEN)), bit for bit."""
    k = np.array([0, 1, 2**63, 2**64 - 1, 0x1234_5678_9ABC_DEF0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        steps = np.arange(8, 8 + 300, dtype=np.uint64) * keys.GOLDEN
        want = keys.to_uniform(keys.mix64(k[:, None] + steps[None, :]))
    got = keys.key_uniforms(k, 300, offset=7)
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))

"""Seeded random legal play under the engine checker, determinism, and engine imports.

``hgin_env.engine.checker.EngineChecker`` checks every state and transition against
docs/rules.md §3; here it re-scores a sample of knocks with the brute-force reference in
``reference_knock``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import reference_knock as ref
from helpers.actions import mixed_actions, mixed_policy

from hgin_env.engine.checker import EngineChecker, rows_equal
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, Outcome
from hgin_env.engine.series import SeriesEngine

ENGINE_DIR = Path(__file__).resolve().parents[2] / "hgin_env" / "engine"


def reference_score(knocker: list[int], defender: list[int], rules: RulesConfig) -> tuple:
    """The brute-force reference's (knocker deadwood, defender deadwood, points)."""
    got = ref.resolve(
        knocker, defender, rules.knock_limit, rules.gin_bonus, rules.undercut_bonus,
        rules.big_gin_bonus,
    )  # fmt: skip
    return got.knocker_deadwood, got.defender_deadwood, got.points


# --------------------------------------------------------------------- random play

OC = Outcome
#: (id, rules, lowest greedy_prob, player actions to check, outcomes that must occur,
#:  outcomes that cannot occur); together well over 100k player actions
CONFIGS = [
    ("default", RulesConfig(), 0.0, 50_000,
     {OC.KNOCK, OC.GIN, OC.UNDERCUT, OC.DRAW}, {OC.BIG_GIN, OC.TRUNCATED}),
    # a knock needs K = 0, which is gin: never a plain knock or an undercut
    ("knock_limit_0", RulesConfig(knock_limit=0), 0.5, 20_000,
     {OC.GIN, OC.DRAW}, {OC.KNOCK, OC.UNDERCUT, OC.BIG_GIN, OC.TRUNCATED}),
    ("knock_limit_25", RulesConfig(knock_limit=25), 0.0, 20_000,
     {OC.KNOCK, OC.UNDERCUT, OC.DRAW}, {OC.BIG_GIN, OC.TRUNCATED}),
    ("allow_rediscard", RulesConfig(allow_rediscard=True), 0.0, 20_000,
     {OC.KNOCK, OC.GIN, OC.DRAW}, {OC.BIG_GIN, OC.TRUNCATED}),
    ("big_gin_31", RulesConfig(big_gin_bonus=31), 0.9, 30_000,
     {OC.BIG_GIN, OC.KNOCK}, {OC.TRUNCATED}),
    # a mix: each game plays one of three rule sets (knock limits 10, 0, 25; big gin in one)
    ("mix", (RulesConfig(), RulesConfig(knock_limit=0, undercut_bonus=25),
             RulesConfig(knock_limit=25, gin_bonus=30, big_gin_bonus=31)), 0.5, 30_000,
     {OC.KNOCK, OC.GIN, OC.UNDERCUT, OC.BIG_GIN, OC.DRAW}, {OC.TRUNCATED}),
    # six turns never empty the stock
    ("max_turns_6", RulesConfig(max_turns_per_hand=6), 0.0, 20_000,
     {OC.TRUNCATED, OC.KNOCK}, {OC.DRAW, OC.BIG_GIN}),
]  # fmt: skip
assert sum(c[3] for c in CONFIGS) >= 100_000
BATCH = 128


@pytest.mark.parametrize(
    ("rules", "greedy_lo", "quota", "must", "never"),
    [c[1:] for c in CONFIGS],
    ids=[c[0] for c in CONFIGS],
)
def test_random_legal_play_keeps_every_invariant(rules, greedy_lo, quota, must, never):
    """Seeded random legal play, re-dealing finished hands, never breaks a rule invariant."""
    checker = EngineChecker(GinEngine(BATCH, rules, seed=1234), rescore=reference_score)
    rng = np.random.default_rng(99)
    greedy = np.linspace(greedy_lo, 1.0, BATCH)  # from random to greedy players, per game
    while checker.actions < quota:
        checker.step(mixed_policy(checker.engine, rng, greedy, knock_prob=0.05))
    seen = {o for o in Outcome if checker.outcomes[o] > 0}
    assert must <= seen, f"never saw {must - seen}"
    assert not (never & seen), f"saw {never & seen}"


# --------------------------------------------------------------------- determinism


def test_same_seed_same_games():
    """Two engines with the same seed, given the same actions, go through identical states."""
    a, b = GinEngine(32, seed=7), GinEngine(32, seed=7)
    a.reset()
    b.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        assert rows_equal(a.state, b.state).all()
        actions = mixed_policy(a, rng, 0.5)
        assert np.array_equal(a.step(actions), b.step(actions))
        a.reset(mask=a.over)
        b.reset(mask=b.over)
    other = GinEngine(32, seed=1000)
    other.reset()
    fresh = GinEngine(32, seed=7)
    fresh.reset()
    assert not np.array_equal(other.state.deck, fresh.state.deck)


def test_batch_equals_single_engines():
    """GinEngine(N, seed=s) plays game i exactly like GinEngine(1, seed=s + i)."""
    n, seed = 6, 40
    batch = GinEngine(n, seed=seed)
    singles = [GinEngine(1, seed=seed + i) for i in range(n)]
    rng_b = [np.random.default_rng(i) for i in range(n)]
    rng_s = [np.random.default_rng(i) for i in range(n)]
    batch.reset()
    for e in singles:
        e.reset()
    hands = 0
    for _ in range(250):
        mask, dead = batch.legal_action_mask(), batch.discard_deadwood()
        actions = np.array(
            [mixed_actions(mask[i : i + 1], dead[i : i + 1], rng_b[i], 0.6)[0] for i in range(n)]
        )
        ended = batch.step(actions)
        for i, e in enumerate(singles):
            act = mixed_actions(e.legal_action_mask(), e.discard_deadwood(), rng_s[i], 0.6)
            assert e.step(act)[0] == ended[i]
            assert rows_equal(batch.state.rows([i]), e.state).all(), f"game {i}"
            if e.over[0]:
                e.reset()
        hands += int(ended.sum())
        batch.reset(mask=batch.over)
    assert hands >= 2 * n  # several hands each, so re-deals were compared too


def test_series_batch_equals_single_series():
    """SeriesEngine(N, seed=s) plays series i exactly like SeriesEngine(1, seed=s + i)."""
    n, seed = 4, 500
    rules = RulesConfig(game_target=10)
    batch = SeriesEngine(n, rules, seed=seed)
    singles = [SeriesEngine(1, rules, seed=seed + i) for i in range(n)]
    rng_b = [np.random.default_rng(i) for i in range(n)]
    rng_s = [np.random.default_rng(i) for i in range(n)]
    batch.reset()
    for e in singles:
        e.reset()
    series_done = 0
    for _ in range(600):
        eng = batch.engine
        mask, dead = eng.legal_action_mask(), eng.discard_deadwood()
        actions = np.array(
            [mixed_actions(mask[i : i + 1], dead[i : i + 1], rng_b[i], 0.8)[0] for i in range(n)]
        )
        out = batch.step(actions)
        for i, e in enumerate(singles):
            act = mixed_actions(
                e.engine.legal_action_mask(), e.engine.discard_deadwood(), rng_s[i], 0.8
            )
            one = e.step(act)
            assert one.hand_over[0] == out.hand_over[i]
            assert one.series_over[0] == out.series_over[i]
            assert rows_equal(batch.engine.state.rows([i]), e.engine.state).all(), f"game {i}"
            for name in ("scores", "entered", "game_winners", "finished", "series_winner"):
                assert np.array_equal(getattr(batch.sheets, name)[i], getattr(e.sheets, name)[0])
            if e.finished[0]:
                e.reset()
        series_done += int(out.series_over.sum())
        if batch.finished.any():
            batch.reset(mask=batch.finished)
    assert series_done >= n  # finished series were restarted and compared too


# --------------------------------------------------------------------- imports

# the engine is numpy and its kernel compiler, numba (hgin_env/engine/jit.py) only
ALLOWED_TOP_LEVEL = {"numpy", "numba", "__future__"} | set(sys.stdlib_module_names)


def test_engine_sources_import_only_numpy_numba_stdlib_and_the_engine():
    """Every import in hgin_env/engine/*.py is numpy, the standard library or the engine."""
    sources = sorted(ENGINE_DIR.glob("*.py"))
    assert len(sources) >= 8
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                ok = name.split(".")[0] in ALLOWED_TOP_LEVEL or name.startswith("hgin_env.engine")
                assert ok, f"{path.name}:{node.lineno} imports {name}"


IMPORT_PROBE = """
import sys, types
before = set(sys.modules)
# load hgin_env.engine without running hgin_env/__init__.py, which may import more
pkg = types.ModuleType("hgin_env")
pkg.__path__ = [{pkg_dir!r}]
sys.modules["hgin_env"] = pkg
import hgin_env.engine
new = {{m.split(".")[0] for m in set(sys.modules) - before}}
print(sorted(new - set(sys.stdlib_module_names)))
"""


NUMBA_PROBE = """
import sys
before = set(sys.modules)
import numba
new = {m.split(".")[0] for m in set(sys.modules) - before}
print(sorted(new - set(sys.stdlib_module_names)))
"""


def test_importing_the_engine_loads_numpy_and_numba_only():
    """Importing hgin_env.engine loads no gymnasium, torch or SB3.

    Beyond the standard library it loads numpy, numba and what numba itself loads.
    """
    code = IMPORT_PROBE.format(pkg_dir=str(ENGINE_DIR.parent))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(ast.literal_eval(out.strip()))
    numba_out = subprocess.run(
        [sys.executable, "-c", NUMBA_PROBE], capture_output=True, text=True, check=True
    ).stdout
    numba_loads = set(ast.literal_eval(numba_out.strip()))
    assert loaded <= {"numpy", "numba", "hgin_env"} | numba_loads, loaded
    for heavy in ("gymnasium", "torch", "stable_baselines3", "sb3_contrib", "pettingzoo"):
        assert heavy not in loaded

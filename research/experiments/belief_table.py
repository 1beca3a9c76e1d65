r"""Measure the search's deadwood belief: how good the opponent's hand really is, by turn.

Not part of the toolkit's play: it writes ``agents/search/data/opponent_deadwood.json``,
the table ``pimc``'s ``belief=deadwood`` reads (``agents.search.worlds.believed_worlds``
resamples its worlds to ``true_counts``).

A uniform deal of the unseen cards gives the opponent a random hand; a real opponent has
spent its turns keeping cards that meld, so at turn ``t`` its deadwood is far lower than
a random hand's. Over seeded single hands between several pairs of players (every style
the league has), at each decision with more than one legal action this records the turn,
the deadwood of the opponent's true hand, and the deadwood of the opponent's hand in
``--worlds`` uniform worlds of the acting seat (``sample_worlds``). The table holds both
counts per turn bucket and deadwood bucket: ``true_counts`` (what the search resamples
to) and ``uniform_counts`` (what uniform worlds deal, for comparison).

Usage::

    python -m research.experiments.belief_table --hands 2000 --seed 5150
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from agents.policies.model import load_policy
from agents.search.worlds import (
    DEADWOOD_BUCKET,
    DEADWOOD_BUCKETS,
    TURN_BUCKETS,
    deadwood_cells,
    sample_worlds,
    seen_position,
    world_keys,
)
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.keys import Salt, hash_stream
from hgin_env.engine.melds import min_deadwood
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.play import play_batch

#: the pairs whose hands are measured (every style of the league, both seats)
PAIRS = (
    ("ppo-cards", "ppo-cards"),
    ("ppo-cards", "patient"),
    ("expert", "simple"),
    ("tempo", "patient"),
)
OUT = (
    Path(__file__).resolve().parent.parent / "agents" / "search" / "data" / "opponent_deadwood.json"
)


def measure(pair: tuple[str, str], hands: int, seed: int, worlds: int, counts: np.ndarray) -> None:
    """Play ``hands`` hands of ``pair`` and add to ``counts[2, T, D]`` (true, uniform)."""
    rules = RulesConfig()
    players = [load_policy(name, seed + k) for k, name in enumerate(pair)]
    engine = GinEngine(hands, rules, seed=seed)
    engine.reset()
    sheets = ScoreSheets(hands, rules)
    moves = np.zeros(hands, dtype=np.int64)  # decisions per game, both seats

    def tally_worlds(actions: np.ndarray) -> None:
        """Count the true and the sampled deadwood of every decision with a choice."""
        live = np.flatnonzero(~engine.over)
        seat = engine.current_player[live].astype(np.int64)
        masks = engine.legal_action_mask()
        obs = encode_observations(engine, seat, sheets, live)
        choice = masks[live].sum(axis=1) > 1
        rows = live[choice]
        if rows.size:
            seen = seen_position(obs[choice], masks[rows], rules)
            keys = hash_stream(engine.seeds[rows], moves[rows], Salt.SEARCH_WORLDS)
            w = sample_worlds(seen, world_keys(keys, worlds))
            sampled = min_deadwood(w.hands[:, 1]).reshape(rows.size, worlds)
            true = engine.hand_deadwood(rows, 1 - seat[choice])
            t_cell, d_cell = deadwood_cells(seen.turns, true)
            np.add.at(counts[0], (t_cell, d_cell), 1.0)
            ts, ds = deadwood_cells(np.repeat(seen.turns, worlds), sampled.reshape(-1))
            np.add.at(counts[1], (ts, ds), 1.0 / worlds)
        moves[live] += 1

    a, b = players
    play_batch(engine, a, b, 0, shared_moves=True, sheets=sheets, before_step=tally_worlds)


def main() -> None:
    """Measure every pair and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per pair")
    parser.add_argument("--seed", type=int, default=5150)
    parser.add_argument("--worlds", type=int, default=8)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    counts = np.zeros((2, TURN_BUCKETS, DEADWOOD_BUCKETS))
    t0 = time.perf_counter()
    for k, pair in enumerate(PAIRS):
        measure(pair, args.hands, args.seed + 1000 * k, args.worlds, counts)
        print(f"{pair}: {time.perf_counter() - t0:.0f} s", flush=True)
    true, uniform = counts
    for t in range(TURN_BUCKETS):
        mt = (true[t] * np.arange(DEADWOOD_BUCKETS)).sum() / max(true[t].sum(), 1)
        mu = (uniform[t] * np.arange(DEADWOOD_BUCKETS)).sum() / max(uniform[t].sum(), 1)
        print(
            f"turn bucket {t}: {int(true[t].sum())} decisions, mean deadwood bucket true "
            f"{mt * DEADWOOD_BUCKET:.1f} vs uniform {mu * DEADWOOD_BUCKET:.1f}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table = {
        "about": "opponent deadwood by turn, true hands and uniform worlds "
        "(experiments/belief_table.py)",
        "command": " ".join(sys.argv[1:]) or "(defaults)",
        "pairs": [list(p) for p in PAIRS],
        "hands_per_pair": args.hands,
        "seed": args.seed,
        "worlds": args.worlds,
        "deadwood_bucket": DEADWOOD_BUCKET,
        "true_counts": true.round(3).tolist(),
        "uniform_counts": uniform.round(3).tolist(),
    }
    args.out.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {args.out} in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

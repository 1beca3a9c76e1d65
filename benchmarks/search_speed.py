"""Search speed: ``pimc`` decisions per second against worlds, rollout policy and batch.

Usage: ``python -m benchmarks.search_speed [--repeats 3] [--worlds 16 64] [--series 4]``
(run it alone on the machine: no other heavy job beside it).

Measures on one core (BLAS/OpenMP threads pinned to 1):

- search decisions per second at each (rollout policy, worlds, top, batch): the
  decisions are a fixed pool drawn from ``simple`` vs ``simple`` series (every phase in
  its natural share: upcard offers, draws, discards), searched ``batch`` at a time;
  decisions with a single legal action (a forced draw) are excluded from the pool, as
  the search answers them at no cost;
- the engine actions per second inside the rollouts (every candidate x world row's
  actions, the candidate itself included);
- with ``--searchers SPEC ...`` (``searcher``, or any search spec with a network
  rollout), the same rates over the same pool and over a pool of knock-legal decisions
  (discards with a legal knock, from series of ``simple`` told never to knock), where a
  ``decisions=knock`` search does all its work; the ratio column divides each rate by
  the first searcher's rate at the same batch and pool, measured in the same run;
- the wall time of a short series evaluation against ``simple`` (``--series`` deal
  sequences, duplicate), in seconds per series;
- a projection to 16 and 64 cores: one evaluation splits into independent shards
  (``evaluate.py --workers K``, keyed randomness), so K cores give K times one core's
  rate, less the start-up; the projection is that linear bound, not a measurement.

Each figure is the median of ``--repeats`` runs, with the range.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import agents  # noqa: F401  - registers pimc
from agents.bots import SimpleBot
from agents.evaluation import evaluate
from agents.policies.model import load_policy
from benchmarks._common import print_table
from hgin_env.engine.actions import KNOCK
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import hash_stream
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import encode_observations


def decision_pool(
    size: int, seed: int, games: int = 256, share: float = 0.05
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``size`` decisions (obs, masks, keys) with 2+ legal actions from simple-vs-simple series.

    ``games`` series play at once; each decision with 2+ legal actions joins the pool with
    probability ``share``.
    """
    series = SeriesEngine(games, seed=seed)
    series.reset()
    bot = SimpleBot(seed)
    rng = np.random.default_rng(seed)
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    while sum(m.shape[0] for m in mask_rows) < size:
        eng = series.engine
        obs = encode_observations(eng, eng.current_player, series.sheets)
        masks = eng.legal_action_mask()
        pick = np.flatnonzero((masks.sum(axis=1) > 1) & (rng.random(eng.n) < share))
        obs_rows.append(obs[pick])
        mask_rows.append(masks[pick])
        series.step(bot.act(obs, masks))
        if series.finished.any():
            series.reset(series.finished)
    obs = np.concatenate(obs_rows)[:size]
    masks = np.concatenate(mask_rows)[:size]
    keys = hash_stream(np.arange(size, dtype=np.uint64), np.zeros(size, np.int64), 99)
    return obs, masks, keys


def knock_pool(size: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``size`` discard decisions with a legal knock, from ``simple`` told never to knock."""
    series = SeriesEngine(256, seed=seed)
    series.reset()
    bot = SimpleBot(seed)
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []
    while sum(m.shape[0] for m in mask_rows) < size:
        eng = series.engine
        obs = encode_observations(eng, eng.current_player, series.sheets)
        legal = eng.legal_action_mask()
        can_knock = legal[:, KNOCK : KNOCK + N_CARDS].any(axis=1)
        obs_rows.append(obs[can_knock])
        mask_rows.append(legal[can_knock])
        masks = legal.copy()
        masks[:, KNOCK : KNOCK + N_CARDS] = False
        masks[~masks.any(axis=1)] = legal[~masks.any(axis=1)]
        series.step(bot.act(obs, masks))
        if series.finished.any():
            series.reset(series.finished)
    obs = np.concatenate(obs_rows)[:size]
    masks = np.concatenate(mask_rows)[:size]
    keys = hash_stream(np.arange(size, dtype=np.uint64), np.zeros(size, np.int64), 98)
    return obs, masks, keys


def median_range(values: list[float]) -> str:
    """``median (min-max)``."""
    return f"{statistics.median(values):,.1f} ({min(values):,.1f}-{max(values):,.1f})"


def decision_rates(
    spec: str, batch: int, pool: tuple[np.ndarray, np.ndarray, np.ndarray], repeats: int
) -> tuple[list[float], list[float]]:
    """Decisions/s and rollout actions/s of ``spec`` over the pool, ``batch`` decisions a call."""
    obs, masks, keys = pool
    per_call = max(1, min(batch, obs.shape[0]))
    calls = max(1, min(obs.shape[0] // per_call, 2 if batch > 1 else 16))
    decisions, actions = [], []
    for _ in range(repeats):
        policy = load_policy(spec, seed=0)
        start = time.perf_counter()
        for c in range(calls):
            part = slice(c * per_call, (c + 1) * per_call)
            policy.act(obs[part], masks[part], keys=keys[part])
        elapsed = time.perf_counter() - start
        decisions.append(calls * per_call / elapsed)
        actions.append(getattr(policy, "rollout_actions", 0) / elapsed)
    return decisions, actions


def searcher_rows(
    specs: list[str],
    batches: list[int],
    pools: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    repeats: int,
) -> list[list[object]]:
    """Rows of the searcher table: spec, pool, batch, decisions/s, ratio, rollout actions/s."""
    rows: list[list[object]] = []
    baseline: dict[tuple[str, int], float] = {}
    for spec in specs:
        for name, pool in pools.items():
            for batch in batches:
                dec, act = decision_rates(spec, batch, pool, repeats)
                rate = statistics.median(dec)
                base = baseline.setdefault((name, batch), rate)
                rows.append(
                    [spec, name, batch, median_range(dec), f"{rate / base:.2f}", median_range(act)]
                )
                print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--worlds", type=int, nargs="+", default=[16, 64], help="worlds")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64], help="games per call")
    parser.add_argument("--tops", type=int, nargs="+", default=[0, 6], help="pimc top values")
    parser.add_argument(
        "--beliefs", nargs="+", default=["uniform"], help="pimc belief values (simple rows)"
    )
    parser.add_argument("--expert-worlds", type=int, default=16, help="worlds for expert rows")
    parser.add_argument("--series", type=int, default=4, help="deal sequences (x2) timed")
    parser.add_argument("--series-spec", default="pimc:worlds=64,top=6", help="series timed")
    parser.add_argument("--series-opponent", default="simple", help="the timed series' opponent")
    parser.add_argument(
        "--searchers", nargs="*", default=[], help="searcher specs timed on both pools"
    )
    parser.add_argument("--undercut-bonus", type=int, default=10, help="the series' rules")
    parser.add_argument("--no-pimc", action="store_true", help="skip the simple/expert rows")
    args = parser.parse_args()
    pool = decision_pool(256, seed=5)
    phases = {"offer": 106, "draw": 104}
    counts = {k: int(pool[1][:, a].sum()) for k, a in phases.items()}
    counts["discard"] = int(pool[1][:, :52].any(axis=1).sum())
    print(f"decision pool: {pool[1].shape[0]} decisions {counts}\n", flush=True)
    if args.searchers:
        pools = {"all": pool, "knock-legal": knock_pool(256, seed=6)}
        print_table(
            "searcher decisions per second, one core",
            ["spec", "pool", "games per call", "decisions/s", "ratio", "rollout actions/s"],
            searcher_rows(args.searchers, args.batches, pools, args.repeats),
        )
    rows = []
    configs = [("simple", w, t, b) for b in args.beliefs for w in args.worlds for t in args.tops]
    configs.append(("expert", args.expert_worlds, 6, "uniform"))
    if args.no_pimc:
        configs = []
    for rollout, worlds, top, belief in configs:
        spec = f"pimc:worlds={worlds},top={top},belief={belief},rollout={rollout}"
        for batch in args.batches:
            reps = args.repeats if rollout == "simple" else 1
            dec, act = decision_rates(spec, batch, pool, reps)
            rows.append([rollout, belief, worlds, top, batch, median_range(dec), median_range(act)])
            print(rows[-1], flush=True)
    if rows:
        print_table(
            "pimc decisions per second, one core",
            [
                "rollout",
                "belief",
                "worlds",
                "top",
                "games per call",
                "decisions/s",
                "rollout actions/s",
            ],
            rows,
        )
    walls = []
    hands = 0
    for _ in range(args.repeats):
        start = time.perf_counter()
        result = evaluate(
            args.series_spec,
            args.series_opponent,
            args.series,
            seed=7,
            duplicate=True,
            progress=False,
            rules=RulesConfig(undercut_bonus=args.undercut_bonus),
        )
        walls.append((time.perf_counter() - start) / result.n_series)
        hands = result.hands
    per_series = statistics.median(walls)
    print_table(
        f"{args.series_spec} vs {args.series_opponent} (undercut {args.undercut_bonus}), "
        f"{2 * args.series} series ({hands} hands), one core",
        ["s / series (median, range)", "series / hour, 1 core", "16 cores (bound)", "64 cores"],
        [[median_range(walls), f"{3600 / per_series:,.0f}", f"{16 * 3600 / per_series:,.0f}",
          f"{64 * 3600 / per_series:,.0f}"]],
    )  # fmt: skip


if __name__ == "__main__":
    main()

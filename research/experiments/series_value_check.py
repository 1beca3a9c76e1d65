"""Measurement: how far V(score sheet) (independent games) is from simulated series.

Not part of the toolkit: the figure behind docs/search.md. Under the hand-outcome model
of ``agents.search.series_value`` (each decided hand won by either seat with probability
1/2, points drawn from ``points_distribution``), sheets are reached by playing 0-12 hands
from an empty sheet; each sheet's true chance of winning the series under the model is
estimated by playing it out ``--runs`` times, and compared with ``series_values``.

Usage: ``python -m research.experiments.series_value_check [--sheets 200] [--runs 2000]``
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.search.series_value import points_distribution, series_values
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.hollywood import ScoreSheets


def play_hands(sheets: ScoreSheets, hands: np.ndarray, pmf: np.ndarray, rng) -> None:
    """Record up to ``hands[i]`` model hands on sheet i (until its series ends)."""
    for h in range(int(hands.max(initial=0))):
        live = (h < hands) & ~sheets.finished
        winners = rng.integers(0, 2, sheets.n)
        points = rng.choice(pmf.size, size=sheets.n, p=pmf)
        sheets.record(winners, points, mask=live)


def main() -> None:
    """Print the mean and largest absolute error, and the error by true value."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sheets", type=int, default=200)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    rules = RulesConfig()
    pmf = points_distribution(rules)
    sheets = ScoreSheets(args.sheets, rules)
    play_hands(sheets, rng.integers(0, 13, args.sheets), pmf, rng)
    model = series_values(sheets, 0)
    rows = np.repeat(np.arange(args.sheets), args.runs)
    runs = sheets.rows(rows)
    play_hands(runs, np.full(rows.size, 400), pmf, rng)
    true = np.bincount(rows, weights=runs.series_winner == 0, minlength=args.sheets) / args.runs
    err = np.abs(model - true)
    se = np.sqrt(true * (1 - true) / args.runs)
    print(
        f"{args.sheets} sheets x {args.runs} simulated series: mean |V - simulated| "
        f"{err.mean():.3f}, 90th percentile {np.quantile(err, 0.9):.3f}, max {err.max():.3f} "
        f"(simulation s.e. <= {se.max():.3f}); rank correlation "
        f"{np.corrcoef(np.argsort(np.argsort(model)), np.argsort(np.argsort(true)))[0, 1]:.3f}"
    )
    for lo, hi in ((0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.01)):
        sel = (true >= lo) & (true < hi)
        if sel.any():
            print(
                f"  simulated in [{lo:.1f}, {hi:.1f}): {sel.sum():3d} sheets, "
                f"model mean {model[sel].mean():.3f}, simulated mean {true[sel].mean():.3f}"
            )


if __name__ == "__main__":
    main()

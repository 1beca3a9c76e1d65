r"""Measurement: two players against one opponent on the same deals, paired by deal sequence.

Not part of the toolkit: the pricing comparison behind docs/search.md (the search's
``objective=points`` against ``objective=series``, with the score sheet in play). Both
``A1`` and ``A2`` play full series against ``B`` in the project's evaluator on the same
duplicate deals (same seed); each deal sequence's share of series won and points per
hand are compared between the two, so the deals' luck cancels from the difference. The
series part ways after the first decision the two players make differently, so the
pairing removes the deals' luck, not the play's.

Usage::

    python -m research.experiments.search_pricing searcher searcher:objective=series ppo-league2 \
        --series 150 --seed 2027 --undercut-bonus 25
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from agents.evaluation import evaluate
from agents.evaluation.match import MatchJob, Played, local
from agents.evaluation.tally import MatchTally
from hgin_env.engine.config import RulesConfig


class KeepTally:
    """The local runner, keeping the raw per-series tally of the match it plays."""

    reports_progress = False

    def __init__(self) -> None:
        self.tally: MatchTally | None = None

    def session(self):  # noqa: ANN201 - the Runner protocol's context
        """Nothing to start."""
        return local.session()

    def start(self, job: MatchJob, on_finished: Callable[[int], object]) -> Callable[[], Played]:
        """Play the job in this process and keep its tally."""
        played = local.start(job, on_finished)()
        self.tally = played[0]
        return lambda: played


def per_deal(tally: MatchTally) -> tuple[np.ndarray, np.ndarray]:
    """Each deal sequence's share of series A won (1/2 a draw) and A's points per hand."""
    clusters = np.unique(tally.cluster)
    won = np.zeros(clusters.size)
    pph = np.zeros(clusters.size)
    for i, c in enumerate(clusters):
        rows = tally.cluster == c
        won[i] = ((tally.series_result[rows] + 1) / 2).mean()
        points = tally.a_points[rows].sum() - tally.b_points[rows].sum()
        pph[i] = points / max(int(tally.hands[rows].sum()), 1)
    return won, pph


def main() -> None:
    """Play both matches and print one line per player and the paired differences."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a1")
    parser.add_argument("a2")
    parser.add_argument("b")
    parser.add_argument("--series", type=int, default=20, help="deal sequences (x2 seats)")
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--undercut-bonus", type=int, default=10)
    args = parser.parse_args()
    rules = RulesConfig(undercut_bonus=args.undercut_bonus)
    figures = []
    for a in (args.a1, args.a2):
        keep = KeepTally()
        start = time.perf_counter()
        result = evaluate(
            a, args.b, args.series, seed=args.seed, rules=rules, duplicate=True,
            progress=False, runner=keep,
        )  # fmt: skip
        assert keep.tally is not None
        figures.append(per_deal(keep.tally))
        print(
            f"{a} vs {args.b} (undercut {args.undercut_bonus}, {result.n_series} series, seed "
            f"{args.seed}): {100 * result.series_win_rate:.1f}% of series, "
            f"{result.points_per_hand:+.2f} points per hand, {time.perf_counter() - start:.0f} s",
            flush=True,
        )
    n = figures[0][0].size
    for what, k in (("share of series won", 0), ("points per hand", 1)):
        diff = figures[0][k] - figures[1][k]
        print(
            f"paired by deal sequence ({n}): {args.a1} minus {args.a2}, {what}: "
            f"{diff.mean():+.3f} (s.e. {diff.std(ddof=1) / np.sqrt(n):.3f})"
        )


if __name__ == "__main__":
    main()

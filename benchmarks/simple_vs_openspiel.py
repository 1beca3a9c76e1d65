"""``simple`` against OpenSpiel's simple gin rummy bot: decision agreement and head-to-head.

Usage: ``python -m benchmarks.simple_vs_openspiel [--hands 2000] [--deals 2000] [--seed 0]
[--repeats 3]``
(needs the ``peers`` extra: ``pip install -e '.[peers]'``).

Two measurements, both inside OpenSpiel's engine with each hand mirrored in this
project's (``tests/agents/bots/openspiel_peer.py`` describes the mirror and the remaining rule
differences):

- **Agreement**: OpenSpiel's bot plays both seats of ``--hands`` hands; at every
  decision both rule sets share, the set of actions ``simple`` can take (asked with 32
  keys) is compared with the set OpenSpiel's strategy allows there (its arbitrary
  tie-breaks counted as ties), its own action among them. Decisions whose knock
  legality differs between the rule sets, and OpenSpiel's wall decisions, are counted
  apart and not compared.
- **Head-to-head**: ``simple`` plays one seat against OpenSpiel's bot over ``--deals``
  deals, each dealt twice with the seats swapped; points per hand under OpenSpiel's
  scoring (gin and undercut bonus 25), neither side laying off. A faithful port scores
  0 up to the noise.

The figures are counts of seeded games, the same in every run; the ``--repeats`` runs
check that (the script stops if two differ) and give the time of each measurement as the
median with its min-max.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from agents.bots.simple import SimpleBot
from benchmarks._common import Sample, add_repeats, print_table

T = TypeVar("T")


def pct(part: int, whole: int) -> str:
    """A share as a percentage with two decimals."""
    return f"{100 * part / max(whole, 1):.2f}%"


def repeated(run: Callable[[], T], repeats: int) -> tuple[T, str]:
    """``run()``'s result (the same every time, or the script stops) and its median time."""
    results, times = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        results.append(run())
        times.append(time.perf_counter() - start)
    if any(r != results[0] for r in results):
        sys.exit("two runs of the same seeded games differ: the comparison is not deterministic")
    sample = Sample(tuple(times))
    return results[0], f"{sample.median:.1f} s, min-max {sample.spread(lambda x: f'{x:.1f}')}"


def main() -> None:
    """Run both measurements and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands for the agreement")
    parser.add_argument("--deals", type=int, default=2000, help="deals for the head-to-head")
    parser.add_argument("--seed", type=int, default=0)
    add_repeats(parser, default=3)
    args = parser.parse_args()
    try:
        import tests.agents.bots.openspiel_peer as peer
    except ImportError:
        sys.exit("needs pyspiel: pip install -e '.[peers]'")

    agreement, seconds = repeated(lambda: peer.compare(args.hands, args.seed), args.repeats)
    rows = []
    for kind in ("offer", "draw", "discard"):
        n, ok = agreement.by_kind[kind], agreement.agreed_by_kind[kind]
        rows.append([kind, n, ok, n - ok, pct(ok, n)])
    a = agreement
    rows.append(["all", a.compared, a.agreed, a.compared - a.agreed, pct(a.agreed, a.compared)])
    rows.append(["of which ties", a.ties, a.ties_agreed, a.ties - a.ties_agreed,
                 pct(a.ties_agreed, a.ties)])  # fmt: skip
    print_table(
        f"simple vs OpenSpiel's simple bot: decisions over {args.hands} hands "
        f"(seed {args.seed}, {seconds})",
        ["decision", "compared", "agree", "differ", "agreement"],
        rows,
    )
    print(
        f"not compared: {a.rule_differences} decisions whose knock legality differs "
        f"between the rule sets, {a.wall} wall decisions\n"
    )
    for line in a.examples:
        print("  differs:", line)

    match, seconds = repeated(
        lambda: peer.match(SimpleBot(args.seed, rules=peer.PEER_RULES), args.deals, args.seed + 1),
        args.repeats,
    )
    print_table(
        f"simple vs OpenSpiel's simple bot in OpenSpiel's engine ({args.deals} deals, both "
        f"seats, {seconds})",
        ["hands", "simple's points per hand", "95% interval", "knocks refused"],
        [[
            len(match.points),
            f"{match.mean:+.2f}",
            f"{match.mean - 1.96 * match.stderr:+.2f} .. {match.mean + 1.96 * match.stderr:+.2f}",
            match.refused_knocks,
        ]],
    )  # fmt: skip


if __name__ == "__main__":
    main()

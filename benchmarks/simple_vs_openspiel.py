"""``simple`` against OpenSpiel's simple gin rummy bot: decision agreement and head-to-head.

Usage: ``python benchmarks/simple_vs_openspiel.py [--hands 2000] [--deals 2000] [--seed 0]``
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
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "agents" / "bots"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import print_table  # noqa: E402

from agents.bots.simple import SimpleBot  # noqa: E402


def pct(part: int, whole: int) -> str:
    """A share as a percentage with two decimals."""
    return f"{100 * part / max(whole, 1):.2f}%"


def main() -> None:
    """Run both measurements and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands for the agreement")
    parser.add_argument("--deals", type=int, default=2000, help="deals for the head-to-head")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        import openspiel_peer as peer
    except ImportError:
        sys.exit("needs pyspiel: pip install -e '.[peers]'")

    start = time.perf_counter()
    agreement = peer.compare(args.hands, args.seed)
    seconds = time.perf_counter() - start
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
        f"(seed {args.seed}, {seconds:.0f} s)",
        ["decision", "compared", "agree", "differ", "agreement"],
        rows,
    )
    print(
        f"not compared: {a.rule_differences} decisions whose knock legality differs "
        f"between the rule sets, {a.wall} wall decisions\n"
    )
    for line in a.examples:
        print("  differs:", line)

    start = time.perf_counter()
    match = peer.match(SimpleBot(args.seed, rules=peer.PEER_RULES), args.deals, args.seed + 1)
    seconds = time.perf_counter() - start
    print_table(
        f"simple vs OpenSpiel's simple bot in OpenSpiel's engine ({args.deals} deals, both "
        f"seats, {seconds:.0f} s)",
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

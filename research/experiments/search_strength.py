r"""Measurement: the ``pimc`` search against a policy, duplicate deals, optional undercut bonus.

Not part of the toolkit: the figures behind docs/search.md. It calls
``agents.evaluation.evaluate`` with a ``RulesConfig`` built from ``--undercut-bonus`` (as
``evaluate.py --rules undercut_bonus=25`` does); the search's spec must carry the same
rules, e.g. ``undercut_bonus=25``.

Usage::

    python -m research.experiments.search_strength pimc:worlds=32,top=6 simple --series 20
    python -m research.experiments.search_strength pimc:worlds=32,undercut_bonus=25 ppo-cards \\
        --series 20 --undercut-bonus 25 --json runs/search/ppo25.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agents.evaluation import evaluate
from hgin_env.engine.config import RulesConfig


def main() -> None:
    """Play the match and print one line of figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--series", type=int, default=20, help="deal sequences (x2: duplicate)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--undercut-bonus", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rules = RulesConfig(undercut_bonus=args.undercut_bonus)
    r = evaluate(
        args.a, args.b, args.series, seed=args.seed, rules=rules, duplicate=True, progress=False
    )
    lo, hi = r.series_win_ci
    plo, phi = r.points_per_hand_ci
    print(
        f"{args.a} vs {args.b}, undercut_bonus {args.undercut_bonus}, {r.n_series} series "
        f"(duplicate, seed {args.seed}): series {r.series_won}/{r.n_series} = "
        f"{r.series_win_rate:.1%} [{lo:.1%}, {hi:.1%}], hands won {r.hand_win_rate:.1%}, "
        f"points per hand {r.points_per_hand:+.2f} [{plo:+.2f}, {phi:+.2f}], {r.hands} hands, "
        f"{r.seconds:.0f} s ({r.seconds / r.n_series:.1f} s/series)",
        flush=True,
    )
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(r.to_dict(), default=str))


if __name__ == "__main__":
    main()

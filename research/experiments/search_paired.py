r"""Measurement: a search's paired gain over its own prior, single hands (hand points).

Not part of the toolkit: the probes behind docs/search.md. ``hands`` single hands are
dealt (seats alternating by game index), played once by ``A`` against ``B`` and once by
``A0`` (the policy ``A`` would be without the search, by default its rollout policy)
against the same ``B`` on the same deals with the same per-game keys. Both players are
shown a fresh Hollywood score sheet (the networks read one). The per-hand difference of
A's and A0's points is paired: it is 0 in every hand the search leaves alone, so its
standard error is far below that of two separate matches.

Usage::

    python -m research.experiments.search_paired pimc:worlds=64,rollout=ppo-cards,objective=points \
        ppo-cards --baseline ppo-cards --hands 200
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from agents.policies.model import load_policy
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.envs.play import play_batch
from hgin_env.envs.policy import Policy


def play_hands(
    a: Policy,
    b: Policy,
    n: int,
    seed: int,
    rules: RulesConfig,
    wrap: Callable[[Policy, GinEngine], Policy] | None = None,
) -> np.ndarray:
    """Play ``n`` single hands, A in seat ``i % 2`` of game ``i``; A's signed points per hand.

    ``wrap``: optional, A is replaced by ``wrap(A, engine)`` (a probe that reads the table).
    """
    engine = GinEngine(n, rules, seed=seed)
    engine.reset()
    a_seat = np.arange(n) % 2
    if wrap is not None:
        a = wrap(a, engine)
    play_batch(engine, a, b, a_seat, sheets=ScoreSheets(n, rules))
    return signed_points(engine.state.winner, engine.state.points, a_seat)


def signed_points(winner: np.ndarray, points: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """float64[N]: the hands' points as seat ``seat`` sees them (+ won, - lost, 0 none)."""
    points = np.asarray(points, np.float64)
    return np.where(winner == seat, points, np.where(winner == 1 - seat, -points, 0.0))


def main() -> None:
    """Play both matches and print the paired figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--baseline", default=None, help="A0 (default: A's rollout policy)")
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--undercut-bonus", type=int, default=10)
    args = parser.parse_args()
    rules = RulesConfig(undercut_bonus=args.undercut_bonus)
    search = load_policy(args.a, args.seed)
    base_name = args.baseline or getattr(getattr(search, "params", None), "rollout", args.a)
    baseline = load_policy(base_name, args.seed)
    t0 = time.perf_counter()
    pa = play_hands(search, load_policy(args.b, args.seed + 1), args.hands, args.seed, rules)
    t_search = time.perf_counter() - t0
    pb = play_hands(baseline, load_policy(args.b, args.seed + 1), args.hands, args.seed, rules)
    diff = pa - pb
    changed = diff != 0
    se = diff.std(ddof=1) / np.sqrt(diff.size)
    print(
        f"{args.a} vs {args.b} (undercut {args.undercut_bonus}, {args.hands} hands, seed "
        f"{args.seed}): A {pa.mean():+.2f} pph, A0={base_name} {pb.mean():+.2f} pph, paired "
        f"gain {diff.mean():+.2f} (s.e. {se:.2f}), hands changed {changed.mean():.0%}, "
        f"search {t_search:.0f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()

r"""Measurement: the belief from the opponent's last discard, on held-out hands.

Not part of the toolkit: the table behind docs/search.md's ``infer`` section. For each
style of opponent, single hands of it against ``ppo-league2`` are recorded (both rule
sets); at positions of the other seat where the opponent's last action was a discard,
the deadwood belief's worlds are weighed by the opponent model's chance of that discard
to the power ``tau`` (``research.search.inference``), and the weighted worlds' chance of
each unseen card is scored against the opponent's true hand: log-loss per card (lower is
better), the worlds' effective number, and the error of their mean deadwood.

Usage::

    python -m research.experiments.infer_belief --model ppo-league2 --hands 120 --rows 600
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.policies.model import load_policy
from agents.search.worlds import believed_worlds
from hgin_env.engine.game import HAND_SIZE
from hgin_env.engine.keys import Salt, hash_stream
from hgin_env.engine.melds import min_deadwood
from research.experiments.hand_model import RULES, STYLES, record
from research.search.inference import discard_log_likelihoods, inferred_weights, last_discard

#: the weights' powers compared (0: the deadwood belief alone)
TAUS = (0.0, 0.5, 1.0)


def main() -> None:
    """Record, weigh, score, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="ppo-league2", help="the opponent model")
    parser.add_argument("--hands", type=int, default=120, help="hands recorded per style and rules")
    parser.add_argument(
        "--rows", type=int, default=600, help="positions measured per style and rules"
    )
    parser.add_argument("--worlds", type=int, default=128)
    parser.add_argument("--seed", type=int, default=9100)
    args = parser.parse_args()
    model = load_policy(args.model, 0)
    w = args.worlds
    print("| opponent | rules | positions | tau | log-loss | effective worlds | deadwood error |")
    print("|---|---|---|---|---|---|---|")
    t0 = time.perf_counter()
    for style in ("ppo-league2", "simple", "patient", "tempo", "expert"):
        s = STYLES.index(style)
        pair = (s, STYLES.index("ppo-league2"))
        for r, rules in enumerate(RULES):
            data = record(pair, r, args.hands, args.seed + 10 * s + r)
            rows = np.flatnonzero(data.style == s)
            rng = np.random.default_rng(args.seed)
            rows = np.sort(rng.choice(rows, min(args.rows, rows.size), replace=False))
            seen = data.seen(rows)
            has = last_discard(seen) >= 0
            rows, seen = rows[has], data.seen(rows[has])
            n = rows.size
            keys = hash_stream(np.full(n, args.seed, np.uint64), rows, Salt.SEARCH_WORLDS)
            state, wkeys = believed_worlds(seen, keys, w)
            log_chance = discard_log_likelihoods(
                model, seen, data.obs[rows], state.hands[:, 1], w,
                rules.max_turns_per_hand, wkeys.reshape(-1),
            )  # fmt: skip
            held = state.hands[:, 1].reshape(n, w, -1) & seen.unseen[:, None, :]
            hidden = (HAND_SIZE - seen.opponent_known.sum(axis=1)).astype(np.float64)
            uniform = np.where(seen.unseen, (hidden / seen.unseen.sum(axis=1))[:, None], 0.0)
            truth = data.truth[rows] & seen.unseen
            deadwood = min_deadwood(state.hands[:, 1]).reshape(n, w)
            for tau in TAUS:
                weight = inferred_weights(log_chance, tau)
                weight /= weight.sum(axis=1, keepdims=True)
                # as research.experiments.hand_model scores sampled beliefs: one uniform world added
                p = (w * (weight[:, :, None] * held).sum(axis=1) + uniform) / (w + 1.0)
                q = np.clip(p, 1e-6, 1 - 1e-6)
                loss = -(truth * np.log(q) + (~truth) * np.log(1 - q))
                effective = 1.0 / (weight**2).sum(axis=1)
                error = np.abs((weight * deadwood).sum(axis=1) - data.deadwood[rows])
                print(
                    f"| `{style}` | undercut {rules.undercut_bonus} | {n} | {tau:g} | "
                    f"{loss[seen.unseen].mean():.4f} | {effective.mean():.0f} | "
                    f"{error.mean():.2f} |",
                    flush=True,
                )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

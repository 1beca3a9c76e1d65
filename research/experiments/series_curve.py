"""Series win rate against hand win rate: ``simple`` against a noisier ``simple`` (exp10).

Not part of the toolkit: a measurement behind ``research/experiments.md``. The opponent
plays like ``simple`` but takes a uniformly random legal action with probability
``eps`` at each decision; the larger ``eps``, the larger ``simple``'s hand edge. It
shows which hand win rate a player needs for a given series win rate.

Usage::

    python -m research.experiments.series_curve 0.02 0.05 0.08 0.12 0.2
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from agents.bots.simple import SimpleBot
from agents.evaluation import evaluate


class NoisySimple:
    """``simple``, except that each decision is a random legal action with probability ``eps``."""

    name = "noisy-simple"

    def __init__(self, eps: float, seed: int | None = None) -> None:
        self.eps = eps
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        """Restart both random streams."""
        self.bot = SimpleBot(seed)
        self.rng = np.random.default_rng(None if seed is None else seed + 99)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One legal action per row."""
        actions = self.bot.act(observations, action_masks)
        random_legal = (self.rng.random(action_masks.shape) * action_masks).argmax(axis=1)
        noisy = self.rng.random(action_masks.shape[0]) < self.eps
        return np.where(noisy, random_legal, actions)


def main() -> None:
    """Print one JSON line per ``eps``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("eps", type=float, nargs="+")
    parser.add_argument("--series", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    for eps in args.eps:
        res = evaluate(SimpleBot(0), NoisySimple(eps), args.series, seed=args.seed, progress=False)
        row = {
            "eps": eps,
            "series_win_rate": round(res.series_win_rate, 4),
            "series_win_ci": [round(x, 4) for x in res.series_win_ci],
            "hand_win_rate": round(res.hand_win_rate, 4),
            "points_per_hand": round(res.points_per_hand, 2),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

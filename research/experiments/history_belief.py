r"""Measurement: how much the order of play tells about the opponent's hand.

Not part of the toolkit: a question behind docs/search.md. The observation holds the
pile and both players' discards as sets. The order they came in is public too (each
player saw it), and it says more: which of the seat's discards the opponent let pass
(drew from the stock instead), and which of its own discards are recent. This script
records the hands of ``research.experiments.hand_model`` (every pair of styles, both rule sets)
with, besides each position's observation, four card planes of that order read from the
table (``history_features``), fits two networks of the same shape on the same positions
(``belief_features`` alone, and with the history planes) and compares their chances of
the opponent's true hand on held-out hands of each style: log-loss and Brier score per
unseen card (lower is better).

Usage::

    python -m research.experiments.history_belief --hands 400 --seed 5353
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.game import GinEngine
from hgin_env.engine.keys import SeedStream, sub_seed
from research.experiments.hand_model import STYLES, card_scores, fit, record_all, uniform_marginals
from research.search.hand_model import NOT_UNSEEN, belief_features, hand_marginals, mlp_logits

#: the history planes (``history_features``)
PLANES = ("passed", "taken_back", "their_recency", "my_recency")


def history_features(engine: GinEngine, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """float32[R, 4 * 52]: what the order of play shows, for seat ``seat[i]`` of game ``rows[i]``.

    Planes (``PLANES``), by card:

    - ``passed``: a discard of the seat still in the pile with a discard of the opponent
      right on top of it (the opponent drew from the stock rather than take it);
    - ``taken_back``: a discard of the seat the opponent took and threw again;
    - ``their_recency``: ``1 / (1 + k)`` for the opponent's discard in the pile with
      ``k`` of its discards above it (the latest is 1);
    - ``my_recency``: the same for the seat's own discards.
    """
    st = engine.state
    r = np.arange(rows.size)
    other = 1 - seat
    pile = st.pile[rows].astype(np.int64)  # [R, 52] bottom first
    valid = np.arange(N_CARDS)[None, :] < st.pile_size[rows, None]
    mine_cards = st.discards[rows, seat]  # [R, 52] by card
    theirs_cards = st.discards[rows, other]
    mine = mine_cards[r[:, None], pile] & valid  # [R, 52] by pile position
    theirs = theirs_cards[r[:, None], pile] & valid
    mine_only, theirs_only = mine & ~theirs, theirs & ~mine
    above_theirs = np.zeros_like(theirs_only)
    above_theirs[:, :-1] = theirs_only[:, 1:]
    passed_at = mine_only & above_theirs

    def recency(owned: np.ndarray) -> np.ndarray:
        above = np.cumsum(owned[:, ::-1], axis=1)[:, ::-1] - owned  # owned positions above
        return np.where(owned, 1.0 / (1.0 + above), 0.0)

    planes = np.zeros((rows.size, len(PLANES), N_CARDS), np.float32)
    for k, at in ((0, passed_at), (2, recency(theirs_only)), (3, recency(mine_only))):
        rr, ii = np.nonzero(at if at.dtype == bool else at > 0)
        planes[rr, k, pile[rr, ii]] = at[rr, ii]
    planes[:, 1] = mine_cards & theirs_cards
    return planes.reshape(rows.size, -1)


def main() -> None:
    """Record, fit both networks, print the held-out table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400, help="training hands per pair")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5353)
    args = parser.parse_args()
    t0 = time.perf_counter()
    deals = sub_seed(args.seed, SeedStream.PRETRAIN_DEALS, 0)
    data = record_all(args.hands, deals, log=False, history=history_features)
    held_deals = sub_seed(args.seed, SeedStream.PRETRAIN_DEALS, 1)
    held = record_all(max(args.hands // 4, 1), held_deals, log=False, history=history_features)
    print(f"{data.obs.shape[0]} positions, {held.obs.shape[0]} held out, "
          f"{time.perf_counter() - t0:.0f} s", flush=True)  # fmt: skip
    rows = np.arange(data.obs.shape[0])
    seen, held_seen = data.seen(rows), held.seen(np.arange(held.obs.shape[0]))
    inputs = {
        "observation": (belief_features(seen), belief_features(held_seen)),
        "observation + order": (
            np.concatenate([belief_features(seen), data.history], axis=1),
            np.concatenate([belief_features(held_seen), held.history], axis=1),
        ),
    }
    results: dict[str, np.ndarray] = {}
    for name, (x, x_held) in inputs.items():
        print(f"fitting on {name} ({x.shape[1]} inputs)", flush=True)
        weights = fit(x, data.truth, seen.unseen, args.epochs, args.seed)
        raw = np.where(held_seen.unseen, mlp_logits(weights, x_held), NOT_UNSEEN)
        results[name] = hand_marginals(raw, held_seen)
    results = {"uniform": uniform_marginals(held_seen), **results}
    print(f"\nheld out ({time.perf_counter() - t0:.0f} s): log-loss / Brier per unseen card")
    print("| opponent | positions | " + " | ".join(results) + " |")
    print("|---|---|" + "---|" * len(results))
    for s, style in enumerate(STYLES):
        at = held.style == s
        truth = held.truth[at] & held_seen.unseen[at]
        cells = [card_scores(p[at], truth, held_seen.unseen[at]) for p in results.values()]
        print(f"| `{style}` | {int(at.sum())} | "
              + " | ".join(f"{a:.4f} / {b:.4f}" for a, b in cells) + " |")  # fmt: skip


if __name__ == "__main__":
    main()

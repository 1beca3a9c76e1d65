"""A learned belief: how likely the opponent is to hold each unseen card.

``HandModel`` is a small network (numpy at play time) from what a seat has seen
(``worlds.SeenPosition``: its hand, the pile, the opponent's known pickups and both
players' discards, the stock, the phase, the dealer and the turn) to one logit per card:
the chance that the opponent holds it. It is trained by supervised learning on the true
hidden hands of recorded engine hands between every style of player
(``research/experiments/hand_model.py``, which writes ``data/hand_model.npz``). A learned belief
deals the opponent's hidden cards as a Gumbel top-k sample of the unseen cards under these
logits (``agents.search.worlds.sample_worlds``'s ``scores``), so the cards it discarded
next to and the ranks it let pass weigh in, not only how good its hand is by this turn
(the search's ``belief=deadwood``). Research only: no shipped searcher uses it (the
search's former ``belief=learned`` option).

The features are those ``belief_features`` builds; the score sheet and the rules are not
among them (the same model serves hand and series mode, every rule set).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.search.worlds import SeenPosition
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.game import HAND_SIZE, STOCK_AT_DEAL, Phase

#: the shipped model (``research/experiments/hand_model.py`` writes it)
HAND_MODEL = Path(__file__).resolve().parent / "data" / "hand_model.npz"
#: turns by which the turn feature is scaled
TURN_SCALE = 40.0
#: card planes of the features, then the scalars
CARD_PLANES = ("hand", "top", "pile_below", "opponent_known", "own_discards", "opponent_discards")
SCALARS = ("stock", "dealer", "turn", "offer", "draw", "forced_draw", "discard")
N_FEATURES = len(CARD_PLANES) * N_CARDS + len(SCALARS)
#: a logit for "not an unseen card" (the opponent cannot hold it, as far as sampling goes)
NOT_UNSEEN = -1e9


def belief_features(seen: SeenPosition) -> np.ndarray:
    """float32[N, N_FEATURES]: the model's input for N seats (see ``CARD_PLANES``)."""
    n = seen.hand.shape[0]
    top = np.zeros((n, N_CARDS), dtype=bool)
    has_top = np.flatnonzero(seen.top >= 0)
    top[has_top, seen.top[has_top]] = True
    planes = [seen.hand, top, seen.pile_below, seen.opponent_known]
    planes += [seen.own_discards, seen.opponent_discards]
    phase = np.asarray(seen.phase)
    scalars = np.stack(
        [
            seen.stock_size / STOCK_AT_DEAL,
            seen.dealer == 0,
            seen.turns / TURN_SCALE,
            phase == int(Phase.OFFER),
            (phase == int(Phase.DRAW)) & ~seen.must_draw_stock,
            seen.must_draw_stock,
            phase == int(Phase.DISCARD),
        ],
        axis=1,
    )
    out = np.concatenate([*planes, scalars], axis=1).astype(np.float32)
    assert out.shape == (n, N_FEATURES)
    return out


@dataclass(frozen=True)
class HandModel:
    """An MLP from ``belief_features`` to 52 logits, as numpy arrays.

    Attributes:
        weights: ``(W, b)`` per layer, ``W`` float32[in, out]; ReLU between layers.
        about: how it was trained (the training command, data and held-out figures).
    """

    weights: tuple[tuple[np.ndarray, np.ndarray], ...]
    about: str = ""

    def __post_init__(self) -> None:
        """Check the layer shapes chain from the features to 52 logits."""
        width = N_FEATURES
        for k, (w, b) in enumerate(self.weights):
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise ValueError(
                    f"hand model layer {k}: weight {w.shape} and bias {b.shape} do not follow "
                    f"an input of width {width}"
                )
            width = w.shape[1]
        if not self.weights or width != N_CARDS:
            raise ValueError(f"the hand model must end in {N_CARDS} logits, got {width}")

    def logits(self, seen: SeenPosition) -> np.ndarray:
        """float64[N, 52]: the logit that the opponent holds each card.

        ``NOT_UNSEEN`` where the card is seen (in the seat's hand, the pile or a known pickup).
        """
        x = mlp_logits(self.weights, belief_features(seen))
        return np.where(seen.unseen, x, NOT_UNSEEN)

    def marginals(self, seen: SeenPosition) -> np.ndarray:
        """float64[N, 52]: the chance the opponent holds each card (0 for seen cards).

        The sigmoid of the logits, scaled per seat so the unseen cards' chances add up
        to the opponent's hidden cards (a hand holds exactly that many), each at most 1.
        """
        return hand_marginals(self.logits(seen), seen)

    def save(self, path: Path) -> None:
        """Write the model as an ``.npz`` of plain arrays (no pickled objects)."""
        arrays: dict[str, np.ndarray] = {"about": np.array(self.about)}
        arrays |= {f"w{k}": w for k, (w, _) in enumerate(self.weights)}
        arrays |= {f"b{k}": b for k, (_, b) in enumerate(self.weights)}
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def mlp_logits(weights: tuple[tuple[np.ndarray, np.ndarray], ...], x: np.ndarray) -> np.ndarray:
    """float64[N, out]: an MLP's output for float32 inputs ``x``.

    ``weights``: ``(W, b)`` per layer, ``W`` float32[in, out]; ReLU between layers.
    """
    for k, (w, b) in enumerate(weights):
        x = x @ w + b
        if k < len(weights) - 1:
            np.maximum(x, 0.0, out=x)
    return x.astype(np.float64)


def hand_marginals(logits: np.ndarray, seen: SeenPosition) -> np.ndarray:
    """float64[N, 52]: chances from per-card logits that add up to the opponent's hidden cards.

    ``logits``: float64[N, 52], ``NOT_UNSEEN`` (or as low) for the seen cards. The
    sigmoid of the logits, scaled per seat so the unseen cards' chances add up to the
    opponent's hidden cards (a hand holds exactly that many), each at most 1; 0 for the
    seen cards.
    """
    p = 1.0 / (1.0 + np.exp(-np.clip(logits, -50.0, 50.0)))
    hidden = (HAND_SIZE - seen.opponent_known.sum(axis=1)).astype(np.float64)
    for _ in range(8):  # rescale, cap at 1, rescale the rest
        total = p.sum(axis=1)
        p = np.minimum(p * (hidden / np.maximum(total, 1e-12))[:, None], 1.0)
    return np.where(seen.unseen, p, 0.0)


def read_hand_model(path: Path) -> HandModel:
    """Read a model ``save`` wrote.

    Raises:
        ValueError: when the file is not such a model (named in the message).
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            layers = sum(1 for name in data.files if name.startswith("w"))
            weights = tuple(
                (data[f"w{k}"].astype(np.float32), data[f"b{k}"].astype(np.float32))
                for k in range(layers)
            )
            about = str(data["about"]) if "about" in data.files else ""
    except (OSError, KeyError, ValueError) as err:
        raise ValueError(f"{path.name} is not a hand model: {err}") from err
    return HandModel(weights, about)


@functools.cache
def shipped_hand_model() -> HandModel:
    """The shipped model (``HAND_MODEL``), read once."""
    return read_hand_model(HAND_MODEL)

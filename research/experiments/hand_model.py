r"""Train and measure the search's learned belief (``research/search/hand_model.py``).

Not part of the toolkit's play: it writes ``research/search/data/hand_model.npz``, the
model that the research search's learned belief reads.

1. **Record**: single hands between every pair of ``STYLES`` (both seats, half the games
   under undercut bonus 25), and at each decision with a choice the acting seat's
   position (``worlds.seen_position`` of its observation) with the opponent's true hidden
   hand. Training hands and held-out hands come from different seeds.
2. **Train** the network on the recorded positions: binary cross-entropy of the logits
   over the unseen cards (Adam, minibatches of 1024).
3. **Measure** on the held-out positions, per style of the opponent whose hand is hidden,
   each belief's chance that the opponent holds each unseen card against the true hand:
   the mean log-loss (lower is better: minus the log-likelihood of the true hand, card by
   card) and Brier score over the unseen cards, and the opponent's mean deadwood in the
   belief's worlds against the true deadwood. Beliefs: ``uniform`` (exact: hidden /
   unseen), ``deadwood`` (``worlds.believed_worlds``), ``cards`` (``sample_worlds`` with
   the model's scores), ``learned`` (``believed_worlds`` with the model's scores: its cards,
   the deadwood table's hand quality; ``pimc``'s ``belief=learned``), each from the share
   of ``--worlds`` worlds holding each card (plus one uniform world, for all alike), and
   ``model`` (the model's own marginals, no sampling).

Usage::

    python -m research.experiments.hand_model --hands 2000 --seed 4242  # record, train, write
    python -m research.experiments.hand_model --hands 60 --epochs 1 --out check.npz  # a quick check
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.policies.model import load_policy
from agents.search.worlds import (
    SeenPosition,
    believed_worlds,
    sample_worlds,
    seen_position,
    world_keys,
)
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import HAND_SIZE, GinEngine
from hgin_env.engine.keys import Salt, SeedStream, hash_stream, sub_seed
from hgin_env.engine.melds import min_deadwood
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.play import play_batch
from research.search.hand_model import HAND_MODEL, HandModel, belief_features, read_hand_model

#: the styles whose hands are recorded (every pair of them, self-play included)
STYLES = ("simple", "expert", "patient", "tempo", "ppo-league2")
#: the rule sets, half the games each
RULES = (RulesConfig(), RulesConfig(undercut_bonus=25))
#: hidden width of the network
WIDTH = 256
BELIEFS = ("uniform", "deadwood", "cards", "learned", "model")
#: positions measured at a time
CHUNK = 200


@dataclass
class Recorded:
    """Recorded positions: what the acting seat saw and what the opponent really held."""

    obs: np.ndarray  # float32[M, OBS_DIM]: the acting seat's observation
    masks: np.ndarray  # bool[M, 107]: its legal actions
    truth: np.ndarray  # bool[M, 52]: the opponent's hand
    deadwood: np.ndarray  # int64[M]: the opponent's min deadwood
    style: np.ndarray  # int64[M]: index in STYLES of the opponent
    rules: np.ndarray  # int64[M]: index in RULES
    history: np.ndarray  # float32[M, H]: ``record``'s ``history`` features (H = 0 without)

    @staticmethod
    def join(parts: list[Recorded]) -> Recorded:
        """One record of several."""
        fields = Recorded.__dataclass_fields__
        return Recorded(**{f: np.concatenate([getattr(p, f) for p in parts]) for f in fields})

    def seen(self, rows: np.ndarray) -> SeenPosition:
        """The positions of ``rows`` (one rule set: the turn scale is the rules' own)."""
        return seen_position(self.obs[rows], self.masks[rows], RULES[0])


#: ``history(engine, rows, seat)``: float32[R, H] features of the acting seats' positions
#: that the observation does not hold (``research.experiments.history_belief``)
History = Callable[[GinEngine, np.ndarray, np.ndarray], np.ndarray]


def record(
    pair: tuple[int, int], rules: int, hands: int, seed: int, history: History | None = None
) -> Recorded:
    """Play ``hands`` single hands of the pair (A in seat 0 of even games) and record them.

    ``history``: optional, also record these features of each position (from the table).
    """
    names = [STYLES[pair[0]], STYLES[pair[1]]]
    a = load_policy(names[0], sub_seed(seed, SeedStream.POLICY_A))
    b = load_policy(names[1], sub_seed(seed, SeedStream.POLICY_B))
    engine = GinEngine(hands, RULES[rules], seed=sub_seed(seed, SeedStream.DEALS))
    engine.reset()
    a_seat = np.arange(hands) % 2
    parts: list[Recorded] = []

    def keep(actions: np.ndarray) -> None:
        live = np.flatnonzero(~engine.over)
        seat = engine.current_player[live].astype(np.int64)
        masks = engine.legal_action_mask()[live]
        choice = masks.sum(axis=1) > 1
        rows, seat, masks = live[choice], seat[choice], masks[choice]
        if not rows.size:
            return
        other = 1 - seat
        parts.append(
            Recorded(
                obs=encode_observations(engine, seat, None, rows),
                masks=masks,
                truth=engine.state.hands[rows, other],
                deadwood=engine.hand_deadwood(rows, other),
                style=np.where(other == a_seat[rows], pair[0], pair[1]),
                rules=np.full(rows.size, rules),
                history=(
                    history(engine, rows, seat)
                    if history is not None
                    else np.zeros((rows.size, 0), np.float32)
                ),
            )
        )

    play_batch(engine, a, b, a_seat, before_step=keep)
    return Recorded.join(parts)


def record_all(hands: int, seed: int, log: bool = True, history: History | None = None) -> Recorded:
    """Every pair of ``STYLES`` under every rule set, ``hands`` hands each."""
    parts, t0, k = [], time.perf_counter(), 0
    for i in range(len(STYLES)):
        for j in range(i, len(STYLES)):
            for r in range(len(RULES)):
                deals = sub_seed(seed, SeedStream.PRETRAIN_DEALS, k)
                parts.append(record((i, j), r, hands, deals, history))
                k += 1
            if log:
                print(
                    f"  {STYLES[i]} v {STYLES[j]}: {sum(p.obs.shape[0] for p in parts)} "
                    f"positions, {time.perf_counter() - t0:.0f} s",
                    flush=True,
                )
    return Recorded.join(parts)


def train(data: Recorded, epochs: int, seed: int, lr: float = 1e-3) -> HandModel:
    """Fit the network to the recorded positions (binary cross-entropy on unseen cards)."""
    seen = data.seen(np.arange(data.obs.shape[0]))
    return HandModel(fit(belief_features(seen), data.truth, seen.unseen, epochs, seed, lr))


def fit(
    x: np.ndarray, truth: np.ndarray, unseen: np.ndarray, epochs: int, seed: int, lr: float = 1e-3
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """An MLP (two hidden layers of ``WIDTH``) from features to a logit per card.

    Binary cross-entropy of the logits against the true hand over the unseen cards (Adam,
    minibatches of 1024). Returns ``(W, b)`` per layer, ``W`` float32[in, out].
    """
    import torch

    torch.manual_seed(sub_seed(seed, SeedStream.IMITATION) % 2**31)
    xt = torch.from_numpy(np.asarray(x, np.float32))
    y = torch.from_numpy(truth.astype(np.float32))
    m = torch.from_numpy(unseen.astype(np.float32))
    net = torch.nn.Sequential(
        torch.nn.Linear(xt.shape[1], WIDTH),
        torch.nn.ReLU(),
        torch.nn.Linear(WIDTH, WIDTH),
        torch.nn.ReLU(),
        torch.nn.Linear(WIDTH, y.shape[1]),
    )
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(sub_seed(seed, SeedStream.IMITATION, 1) % 2**31)
    for epoch in range(epochs):
        order = torch.randperm(xt.shape[0], generator=gen)
        total, count = 0.0, 0
        for lo in range(0, xt.shape[0], 1024):
            idx = order[lo : lo + 1024]
            logits = net(xt[idx])
            bce = torch.nn.functional.binary_cross_entropy_with_logits(
                logits, y[idx], reduction="none"
            )
            loss = (bce * m[idx]).sum() / m[idx].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * idx.numel()
            count += idx.numel()
        print(f"  epoch {epoch + 1}: loss {total / count:.4f}", flush=True)
    layers = [layer for layer in net if isinstance(layer, torch.nn.Linear)]
    return tuple(
        (layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy())
        for layer in layers
    )


def uniform_marginals(seen: SeenPosition) -> np.ndarray:
    """float64[N, 52]: every unseen card equally likely in the opponent's hidden cards."""
    hidden = (HAND_SIZE - seen.opponent_known.sum(axis=1)).astype(np.float64)
    return np.where(seen.unseen, (hidden / seen.unseen.sum(axis=1))[:, None], 0.0)


def card_scores(chances: np.ndarray, truth: np.ndarray, unseen: np.ndarray) -> tuple[float, float]:
    """Log-loss and Brier score per unseen card of ``chances`` against the true hand."""
    q = np.clip(chances, 1e-6, 1 - 1e-6)
    loss = -(truth * np.log(q) + (~truth) * np.log(1 - q))
    cells = unseen.sum()
    return float(loss[unseen].sum() / cells), float(((chances - truth) ** 2)[unseen].sum() / cells)


def belief_marginals(
    model: HandModel, seen: SeenPosition, keys: np.ndarray, worlds: int
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per belief: float64[N, 52] chances of the opponent's cards, and its worlds' deadwood.

    The chances cover the opponent's hidden cards only (the unseen ones); the deadwood is
    float64[N], the mean over the worlds (over a uniform sample for ``uniform`` and
    ``model``, which deal no worlds of their own: the learned worlds' for ``model``).
    """
    n = seen.hand.shape[0]
    uniform = uniform_marginals(seen)

    def shares(state_hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        held = state_hands[:, 1].reshape(n, worlds, -1) & seen.unseen[:, None, :]
        p = (held.sum(axis=1) + uniform) / (worlds + 1.0)  # one uniform world added
        dw = min_deadwood(state_hands[:, 1]).reshape(n, worlds).mean(axis=1)
        return np.where(seen.unseen, p, 0.0), dw

    wkeys = world_keys(keys, worlds)
    uni_p, uni_dw = shares(sample_worlds(seen, wkeys).hands)
    dead_state, _ = believed_worlds(seen, keys, worlds)
    dead_p, dead_dw = shares(dead_state.hands)
    scores = model.logits(seen)
    cards_p, cards_dw = shares(sample_worlds(seen, wkeys, scores=scores).hands)
    learned_state, _ = believed_worlds(seen, keys, worlds, scores=scores)
    learned_p, learned_dw = shares(learned_state.hands)
    return {
        "uniform": (uniform, uni_dw),
        "deadwood": (dead_p, dead_dw),
        "cards": (cards_p, cards_dw),
        "learned": (learned_p, learned_dw),
        "model": (model.marginals(seen), cards_dw),
    }


def measure(model: HandModel, data: Recorded, rows_per_style: int, worlds: int, seed: int) -> dict:
    """The held-out table: per opponent style and belief, log-loss, Brier, deadwood."""
    rng = np.random.default_rng(sub_seed(seed, SeedStream.RATINGS))
    table: dict[str, dict] = {}
    for s, style in enumerate(STYLES):
        rows = np.flatnonzero(data.style == s)
        rows = np.sort(rng.choice(rows, min(rows_per_style, rows.size), replace=False))
        seen = data.seen(rows)
        keys = hash_stream(np.full(rows.size, seed, np.uint64), rows, Salt.SEARCH_WORLDS)
        truth = data.truth[rows] & seen.unseen
        entry: dict[str, Any] = {"positions": int(rows.size)}
        true_dw = data.deadwood[rows].astype(np.float64)
        chunks = [  # a few hundred positions at a time (the deadwood pool is 4 x worlds)
            belief_marginals(model, data.seen(rows[lo : lo + CHUNK]), keys[lo : lo + CHUNK], worlds)
            for lo in range(0, rows.size, CHUNK)
        ]
        for name in BELIEFS:
            p = np.concatenate([c[name][0] for c in chunks])
            dw = np.concatenate([c[name][1] for c in chunks])
            log_loss, brier = card_scores(p, truth, seen.unseen)
            entry[name] = {
                "log_loss": log_loss,
                "brier": brier,
                "deadwood": float(dw.mean()),
                "deadwood_error": float(np.abs(dw - true_dw).mean()),
            }
        entry["true_deadwood"] = float(true_dw.mean())
        table[style] = entry
    return table


def print_table(table: dict) -> None:
    """The held-out table as markdown."""
    print("| opponent | positions | belief | log-loss | Brier | deadwood (true) | |error| |")
    print("|---|---|---|---|---|---|---|")
    for style, entry in table.items():
        for name in BELIEFS:
            e = entry[name]
            print(
                f"| `{style}` | {entry['positions']} | {name} | {e['log_loss']:.4f} | "
                f"{e['brier']:.4f} | {e['deadwood']:.1f} ({entry['true_deadwood']:.1f}) | "
                f"{e['deadwood_error']:.1f} |"
            )


def main(argv: list[str] | None = None) -> None:
    """Record, train, measure, write."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="training hands per pair")
    parser.add_argument("--held-out", type=int, default=0, help="held-out hands per pair")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--worlds", type=int, default=128, help="worlds per measured position")
    parser.add_argument("--rows", type=int, default=2000, help="measured positions per style")
    parser.add_argument("--out", type=Path, default=HAND_MODEL)
    parser.add_argument(
        "--measure",
        type=Path,
        metavar="MODEL",
        help="measure this model (no training) and write it to --out with the figures",
    )
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    held_hands = args.held_out or max(args.hands // 4, 1)
    command = " ".join(sys.argv[1:] if argv is None else argv) or "(defaults)"
    about: dict[str, Any] = {
        "about": "P(opponent holds card) network (experiments/hand_model.py)",
        "command": command,
        "styles": list(STYLES),
    }
    if args.measure:  # a model trained before: its training command stays, this one is added
        model = read_hand_model(args.measure)
        about = (json.loads(model.about) if model.about else about) | {"measured": command}
    else:
        print("recording training hands", flush=True)
        data = record_all(args.hands, sub_seed(args.seed, SeedStream.PRETRAIN_DEALS, 0))
        print(f"{data.obs.shape[0]} positions, {time.perf_counter() - t0:.0f} s", flush=True)
        model = train(data, args.epochs, args.seed)
        print(f"trained, {time.perf_counter() - t0:.0f} s", flush=True)
        del data
        model.save(args.out)  # kept if the measurement is interrupted
    held = record_all(held_hands, sub_seed(args.seed, SeedStream.PRETRAIN_DEALS, 1), log=False)
    table = measure(model, held, args.rows, args.worlds, args.seed)
    print_table(table)
    about |= {"held_out": table, "seconds": round(time.perf_counter() - t0)}
    HandModel(model.weights, json.dumps(about)).save(args.out)
    print(f"wrote {args.out} in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

r"""Measurement: how well a network's value predicts a hand's points from a seat's view.

Not part of the toolkit: the value probe behind docs/search.md. ``hands`` single hands
are played by ``A`` (seat ``i % 2`` of game ``i``) against ``B`` on fresh score sheets.
Every decision's observation is kept, for the seat to move, with that seat's signed
points at the hand's end as the target. The games are split in two halves by index: the
first fits, the second is held out. Three estimates of the points are compared on the
held-out half (root mean square error and the share of variance explained, overall and
by how far into the hand the decision is):

- ``mean``: the fitting half's mean points (the floor any estimate must beat);
- ``critic``: ``A``'s own value head (a PPO critic, trained on series returns), mapped
  to points by a least-squares line fitted on the first half;
- ``refit``: a new head (one hidden layer) on ``A``'s frozen trunk (its pooled
  features, which the critic's own head reads), fitted to the points on the first half;
- ``refit + opponent's hand``: the same with the opponent's hand and its least deadwood
  as inputs too: what a value could do at a rollout's cut in a sampled world, where
  the opponent's hand is dealt.

Usage::

    python -m research.experiments.value_error --a ppo-taught --b ppo-league2 --hands 4000
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch

from agents.policies.model import load_policy, model_file
from agents.training.sb3.model import load_model
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.melds import min_deadwood
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.play import play_batch
from research.experiments.search_paired import signed_points

#: decision index bounds of the stages reported (moves into the hand, both seats')
STAGES = ((0, 8), (8, 16), (16, 24), (24, 10_000))


def record_hands(a: str, b: str, n: int, seed: int, rules: RulesConfig) -> tuple[np.ndarray, ...]:
    """Play ``n`` hands; every decision's observation, game, move index, points, world.

    The points are the signed points of the seat that was to move, at the hand's end.
    The world is the opponent's hand (52 entries) and its least deadwood over 100.
    """
    engine = GinEngine(n, rules, seed=seed)
    engine.reset()
    sheets = ScoreSheets(n, rules)
    kept: list[tuple[np.ndarray, ...]] = []
    moves = np.zeros(n, dtype=np.int64)

    def before_step(actions: np.ndarray) -> None:
        del actions
        rows = np.flatnonzero(~engine.over)
        seats = engine.current_player[rows]
        theirs = engine.state.hands[rows, 1 - seats]
        world = np.concatenate([theirs, min_deadwood(theirs)[:, None] / 100.0], axis=1)
        obs = encode_observations(engine, seats, sheets, rows)
        kept.append((obs, rows, seats, moves[rows], world.astype(np.float32)))
        moves[rows] += 1

    a_seat = np.arange(n) % 2
    play_batch(
        engine, load_policy(a, seed), load_policy(b, seed + 1), a_seat,
        sheets=sheets, before_step=before_step,
    )  # fmt: skip
    st = engine.state
    obs = np.concatenate([k[0] for k in kept])
    game = np.concatenate([k[1] for k in kept])
    seat = np.concatenate([k[2] for k in kept])
    move = np.concatenate([k[3] for k in kept])
    world = np.concatenate([k[4] for k in kept])
    return obs, game, move, signed_points(st.winner[game], st.points[game], seat), world


def critic_features(model: Any, obs: np.ndarray, batch: int = 4096) -> tuple[np.ndarray, ...]:
    """The critic's value and the trunk's pooled features (the critic's input), per row."""
    policy = model.policy
    values, latents = [], []
    with torch.no_grad():
        for lo in range(0, obs.shape[0], batch):
            x = torch.as_tensor(obs[lo : lo + batch])
            features = policy.extract_features(x)
            latent_vf = policy.mlp_extractor.forward_critic(features)
            latents.append(features.pooled.numpy())
            values.append(policy.value_net(latent_vf).numpy().reshape(-1))
    return np.concatenate(values), np.concatenate(latents)


def fit_head(
    x: np.ndarray, y: np.ndarray, seed: int, epochs: int, hidden: int = 64
) -> torch.nn.Module:
    """A one-hidden-layer head fitted to ``y`` (scaled by 25) by Adam on minibatches.

    ``x`` is expected standardized (zero mean, unit variance per column).
    """
    torch.manual_seed(seed)
    head = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)
    )
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-3)
    xs, ys = torch.as_tensor(x), torch.as_tensor(y / 25.0, dtype=torch.float32)
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        for idx in np.array_split(rng.permutation(len(y)), max(1, len(y) // 1024)):
            loss = torch.nn.functional.mse_loss(head(xs[idx]).reshape(-1), ys[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return head


def report(name: str, pred: np.ndarray, y: np.ndarray, move: np.ndarray) -> str:
    """One table row: RMSE and variance explained, overall and per stage."""
    cells = []
    for lo, hi in ((0, 10_000), *STAGES):
        sel = (move >= lo) & (move < hi)
        err = pred[sel] - y[sel]
        rmse = float(np.sqrt(np.mean(err**2)))
        r2 = 1.0 - float(np.mean(err**2)) / float(np.var(y[sel]))
        cells.append(f"{rmse:.2f} ({r2:+.3f})")
    return f"| {name} | " + " | ".join(cells) + " |"


def main() -> None:
    """Record the hands, fit on the first half, print the held-out table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="ppo-taught")
    parser.add_argument("--b", default="ppo-league2")
    parser.add_argument("--hands", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=9191)
    parser.add_argument("--undercut-bonus", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rules = RulesConfig(undercut_bonus=args.undercut_bonus)
    t0 = time.perf_counter()
    obs, game, move, y, world = record_hands(args.a, args.b, args.hands, args.seed, rules)
    path = model_file(args.a)
    if path is None:
        raise SystemExit(f"{args.a!r} is not a model with a value head")
    value, latent = critic_features(load_model(path), obs)
    fit, held = game < args.hands // 2, game >= args.hands // 2
    slope, intercept = np.polyfit(value[fit], y[fit], 1)
    mu, sd = latent[fit].mean(axis=0), latent[fit].std(axis=0) + 1e-6
    latent = ((latent - mu) / sd).astype(np.float32)
    head = fit_head(latent[fit], y[fit], args.seed, args.epochs)
    both = np.concatenate(
        [latent, (world - world[fit].mean(axis=0)) / (world[fit].std(axis=0) + 1e-6)], axis=1
    ).astype(np.float32)
    head_w = fit_head(both[fit], y[fit], args.seed, args.epochs)
    with torch.no_grad():
        refit = head(torch.as_tensor(latent[held])).numpy().reshape(-1) * 25.0
        refit_w = head_w(torch.as_tensor(both[held])).numpy().reshape(-1) * 25.0
    stages = " | ".join(f"moves {lo}-{hi - 1 if hi < 10_000 else ''}" for lo, hi in STAGES)
    print(
        f"{args.a} vs {args.b}, undercut {args.undercut_bonus}, {args.hands} hands "
        f"(seed {args.seed}): {fit.sum()} decisions fit, {held.sum()} held out; "
        f"critic line: points = {slope:.2f} x value {intercept:+.2f}; "
        f"{time.perf_counter() - t0:.0f} s"
    )
    print(f"| estimate | all | {stages} |")
    print("|---|" + "---|" * (len(STAGES) + 1))
    yh, mh = y[held], move[held]
    print(report("mean", np.full(yh.size, y[fit].mean()), yh, mh))
    print(report("critic (line)", slope * value[held] + intercept, yh, mh))
    print(report("refit head", refit, yh, mh))
    print(report("refit + opponent's hand", refit_w, yh, mh))


if __name__ == "__main__":
    main()

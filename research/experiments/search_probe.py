"""Probe: determinized rollout search at the discard decision, against ``simple`` (exp10).

Not part of the toolkit: a measurement behind ``research/experiments.md``. Single hands are
played in lock step, seats alternating by game index, the agent against ``simple``. The
agent is the shipped ``ppo-cards`` network (shown a fresh Hollywood score sheet); with
``--mode search`` its discard decisions (discard or knock) are replaced by a rollout
search: for each of ``K`` deals of the hidden cards consistent with what the agent has
seen, every legal discard is played out to the end of the hand with ``simple`` playing
both seats, and the discard with the best mean score wins (the same sampled deals for
every candidate). ``--oracle hand`` gives the search the opponent's true hand (the stock
order stays hidden); ``--oracle full`` plays out from the true state.

Usage::

    python -m research.experiments.search_probe --hands 1000 --seed 300 --mode net
    python -m research.experiments.search_probe --hands 1000 --seed 300 --mode search --samples 64
    python -m research.experiments.search_probe --hands 1000 --mode search --samples 32 \
        --oracle hand
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.bots.simple import SimpleBot
from agents.policies.model import load_policy
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.game import GinEngine, Phase
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.envs.observation import encode_observations
from research.experiments.search_paired import signed_points

HAND = 10
NO_VALUE = -1e9


def sample_hidden(st, seat: np.ndarray, oracle: str, rng: np.random.Generator) -> None:
    """Redeal, in place, the cards ``seat`` cannot see: the opponent's hidden ones and the stock.

    ``st`` is a ``HandState`` copy (one row per rollout); the stock keeps its size.
    """
    n = seat.size
    r = np.arange(n)
    opp = 1 - seat
    own = st.hands[r, seat]
    fixed = st.hands[r, opp] if oracle == "hand" else st.known[r, opp]
    unseen = ~(own | st.in_pile | fixed)
    keys = rng.random((n, N_CARDS))
    # seen cards first, then the unseen ones in random order: the first of those fill
    # the opponent's hand, the rest (from stock_pos on) are the new stock
    deck = np.argsort(np.where(unseen, keys, keys - 2.0), axis=1).astype(np.int8)
    start = N_CARDS - unseen.sum(axis=1)
    pos = np.arange(N_CARDS)[None, :]
    dealt = (pos >= start[:, None]) & (pos < st.stock_pos[:, None])
    hand = fixed.copy()
    rows, cols = np.nonzero(dealt)
    hand[rows, deck[rows, cols]] = True
    if not (hand.sum(axis=1) == HAND).all():
        raise AssertionError("a redealt opponent hand does not hold 10 cards")
    st.hands[r, opp] = hand
    st.deck = deck


def rollout_values(
    eng: GinEngine,
    games: np.ndarray,
    masks: np.ndarray,
    samples: int,
    oracle: str,
    rng: np.random.Generator,
    bot: SimpleBot,
    max_plies: int = 80,
) -> np.ndarray:
    """``float[G, 107]``: mean points (for the seat to act) after each legal action."""
    g_idx, k_idx, actions = [], [], []
    for i in range(games.size):
        legal = np.flatnonzero(masks[i])
        for k in range(samples):
            g_idx.append(np.full(legal.size, i))
            k_idx.append(np.full(legal.size, k))
            actions.append(legal)
    gi, ki, ai = (np.concatenate(x) for x in (g_idx, k_idx, actions))
    st = eng.state.rows(games[gi])
    seat = st.current.astype(np.int64)
    if oracle != "full":
        # one redeal per (game, sample), shared by all of that game's candidates
        _, first, deal_of = np.unique(gi * samples + ki, return_index=True, return_inverse=True)
        base = st.rows(first)
        sample_hidden(base, base.current.astype(np.int64), oracle, rng)
        st.hands, st.deck = base.hands[deal_of], base.deck[deal_of]
    sim = GinEngine(gi.size, eng.rules, seed=0)
    sim.state = st
    sim.invalidate()
    sim.step(ai.astype(np.int64))
    for _ in range(max_plies):
        live = np.flatnonzero(~sim.over)
        if live.size == 0:
            break
        acts = np.zeros(gi.size, np.int64)
        obs = encode_observations(sim, sim.state.current[live], rows=live)
        acts[live] = bot.act(obs, sim.legal_action_mask()[live])
        sim.step(acts)
    value = signed_points(sim.state.winner.astype(np.int64), sim.state.points, seat)
    total = np.zeros((games.size, N_ACTIONS))
    count = np.zeros((games.size, N_ACTIONS))
    np.add.at(total, (gi, ai), value)
    np.add.at(count, (gi, ai), 1.0)
    return np.where(count > 0, total / np.maximum(count, 1.0), NO_VALUE)


def play(hands: int, seed: int, mode: str, samples: int, oracle: str) -> None:
    """Play ``hands`` single hands against ``simple`` and print the agent's results."""
    eng = GinEngine(hands, seed=seed)
    eng.reset()
    sheets = ScoreSheets(hands)  # a fresh score sheet: the context the network knows
    agent_seat = np.arange(hands) % 2
    net = load_policy("ppo-cards")
    opponent, rollout_bot = SimpleBot(seed + 1), SimpleBot(seed + 2)
    rng = np.random.default_rng(seed + 3)
    start = time.perf_counter()
    while not eng.all_over:
        current = eng.state.current.astype(np.int64)
        masks = eng.legal_action_mask()
        actions = np.zeros(hands, np.int64)
        live = ~eng.over
        mine = np.flatnonzero(live & (current == agent_seat))
        theirs = np.flatnonzero(live & (current != agent_seat))
        if theirs.size:
            obs = encode_observations(eng, current[theirs], rows=theirs)
            actions[theirs] = opponent.act(obs, masks[theirs])
        if mine.size:
            obs = encode_observations(eng, current, sheets=sheets)[mine]
            actions[mine] = net.act(obs, masks[mine])
            search = mine[eng.state.phase[mine] == Phase.DISCARD] if mode == "search" else mine[:0]
            if search.size:
                values = rollout_values(
                    eng, search, masks[search], samples, oracle, rng, rollout_bot
                )
                actions[search] = values.argmax(axis=1)
        eng.step(actions)
    winner = eng.state.winner.astype(np.int64)
    won, lost = winner == agent_seat, (winner >= 0) & (winner != agent_seat)
    points = np.where(won, eng.state.points, np.where(lost, -eng.state.points, 0))
    print(
        f"{mode} (samples {samples}, oracle {oracle}) vs simple, {hands} hands: "
        f"won {won.mean():.3f}, lost {lost.mean():.3f}, points per hand {points.mean():+.2f} "
        f"(s.e. {points.std() / np.sqrt(hands):.2f}), {time.perf_counter() - start:.0f} s"
    )


def main() -> None:
    """Parse the command line and play."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=300)
    parser.add_argument("--mode", choices=("net", "search"), default="net")
    parser.add_argument("--samples", type=int, default=64, help="redeals per decision")
    parser.add_argument("--oracle", choices=("none", "hand", "full"), default="none")
    args = parser.parse_args()
    play(args.hands, args.seed, args.mode, args.samples, args.oracle)


if __name__ == "__main__":
    main()

"""Positions for the search: mid-series games, hidden cards redealt, decision keys."""

from __future__ import annotations

import numpy as np

from agents.bots import SimpleBot
from hgin_env.engine.actions import KNOCK
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import encode_observations


def simple_positions(n: int, plies: int, seed: int, knocks: bool = True) -> SeriesEngine:
    """Some series after ``plies`` decisions of ``simple`` on both sides (mid-hand positions).

    With ``knocks=False`` the bot is told never to knock (unless nothing else is legal),
    which leaves many knock-legal positions.
    """
    series = SeriesEngine(n, seed=seed)
    series.reset()
    bot = SimpleBot(seed)
    for _ in range(plies):
        eng = series.engine
        obs = encode_observations(eng, eng.current_player, series.sheets)
        legal = eng.legal_action_mask()
        masks = legal
        if not knocks:
            masks = legal.copy()
            masks[:, KNOCK : KNOCK + N_CARDS] = False
            stuck = ~masks.any(axis=1)
            masks[stuck] = legal[stuck]
        series.step(bot.act(obs, masks))
    return series


def redeal_hidden(series: SeriesEngine, rng: np.random.Generator) -> int:
    """Redeal each live game's hidden cards (the opponent's unknown ones and the stock).

    The opponent of the seat to act gets a random new set of its hidden cards from the
    pool of those and the stock, the stock the rest in a random order: what the seat to
    act sees is unchanged. Returns the number of games whose opponent hand changed.
    """
    eng = series.engine
    s = eng.state
    changed = 0
    for g in np.flatnonzero(~eng.over):
        opp = 1 - int(s.current[g])
        hidden = np.flatnonzero(s.hands[g, opp] & ~s.known[g, opp])
        stock = s.deck[g, s.stock_pos[g] :].astype(np.int64)
        pool = rng.permutation(np.concatenate([hidden, stock]))
        s.hands[g, opp, hidden] = False
        s.hands[g, opp, pool[: hidden.size]] = True
        s.deck[g, s.stock_pos[g] :] = pool[hidden.size :]
        changed += int(not np.array_equal(np.sort(pool[: hidden.size]), hidden))
    eng.invalidate()
    eng.check_invariants()
    return changed


def search_decision(series: SeriesEngine) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seats to act of ``series``: observations, legal masks and per-game decision keys."""
    from hgin_env.engine.keys import hash_stream
    from hgin_env.envs.observation import encode_observations

    eng = series.engine
    obs = encode_observations(eng, eng.current_player, series.sheets)
    keys = hash_stream(eng.seeds, np.zeros(eng.n, np.int64), 5)
    return obs, eng.legal_action_mask(), keys

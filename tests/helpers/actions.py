"""Random legal actions: uniform, knocking when it can, or mixed with greedy play."""

from __future__ import annotations

import numpy as np

from hgin_env.engine.actions import DRAW, KNOCK
from hgin_env.engine.game import GinEngine


def random_legal(mask: np.ndarray, rng: np.random.Generator, knock_prob: float = 0.0) -> np.ndarray:
    """One random legal action per row of a ``bool[N, 107]`` mask (0 for a row with none).

    With probability ``knock_prob`` a row that may knock picks among its knock actions only,
    so that random play ends hands by knocking as well as by exhausting the stock.
    """
    mask = np.asarray(mask, dtype=bool)
    knock_part = mask[:, KNOCK:DRAW]
    prefer = knock_part.any(axis=1) & (rng.random(mask.shape[0]) < knock_prob)
    pool = mask.copy()
    pool[prefer] = False
    pool[prefer, KNOCK:DRAW] = knock_part[prefer]
    counts = pool.sum(axis=1)
    pick = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    action = (np.cumsum(pool, axis=1) > pick[:, None]).argmax(axis=1)
    return np.where(counts > 0, action, 0).astype(np.int64)


def knock_or_legal(
    masks: np.ndarray, rng: np.random.Generator | list[np.random.Generator]
) -> np.ndarray:
    """Per game, a random legal knock if any, else a random legal action; 0 for an empty mask.

    Knocking whenever possible makes hands and series end often. ``rng`` is one generator
    drawn game after game, or one generator per game.
    """
    rngs = rng if isinstance(rng, list) else [rng] * len(masks)
    actions = np.zeros(len(masks), np.int64)
    for i, (mask, game_rng) in enumerate(zip(masks, rngs, strict=True)):
        knocks = np.flatnonzero(mask[KNOCK:DRAW]) + KNOCK
        legal = knocks if knocks.size else np.flatnonzero(mask)
        if legal.size:
            actions[i] = game_rng.choice(legal)
    return actions


def mixed_actions(
    mask: np.ndarray,
    dead: np.ndarray,
    rng: np.random.Generator,
    greedy_prob: float,
    knock_prob: float = 1.0,
) -> np.ndarray:
    """Random legal actions, mixed with greedy play in the discard phase.

    With probability ``greedy_prob`` a row in its discard phase plays greedily: gin when it
    can; else, with probability ``knock_prob``, the knock leaving the least deadwood when it
    may knock; else the discard leaving the least deadwood. Greedy play makes hands end by
    knocks, gin and undercuts, not only by the stock.

    Args:
        mask: bool[N, 107] legal actions.
        dead: int[N, 52] deadwood left by each discard (``GinEngine.discard_deadwood()``).
        rng: the random source. It draws a fixed count of numbers per row, so one call for
            N rows differs from N calls for one row: per-game streams call it row by row.
        greedy_prob: chance that a row in its discard phase plays greedily.
        knock_prob: chance that a greedy row knocks when it may (gin is always taken).
    """
    n = mask.shape[0]
    action = random_legal(mask, rng)
    dead = np.where(mask[:, :KNOCK], np.asarray(dead, dtype=np.float64), np.inf)
    knock_dead = np.where(mask[:, KNOCK:DRAW], dead, np.inf)
    best_discard, best_knock = dead.argmin(axis=1), KNOCK + knock_dead.argmin(axis=1)
    can_knock = np.isfinite(knock_dead.min(axis=1))
    gin = can_knock & (knock_dead.min(axis=1) == 0)
    knock = gin | (can_knock & (rng.random(n) < knock_prob))
    greedy = mask[:, :KNOCK].any(axis=1) & (rng.random(n) < greedy_prob)
    return np.where(greedy, np.where(knock, best_knock, best_discard), action)


def mixed_policy(
    engine: GinEngine, rng: np.random.Generator, greedy_prob: float, knock_prob: float = 1.0
) -> np.ndarray:
    """``mixed_actions`` for every game of an engine, from one random stream."""
    mask, dead = engine.legal_action_mask(), engine.discard_deadwood()
    return mixed_actions(mask, dead, rng, greedy_prob, knock_prob)

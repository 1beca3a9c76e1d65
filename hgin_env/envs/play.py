"""``play_batch``: two policies play N games in one batch, each side one ``act`` per step.

The one loop behind the evaluator's series, the single-hand experiments and the bots'
tests: at every step the games where A's seat is to act get one batched call of A (through
``PolicyCall``, so a policy that takes per-game ``keys`` gets them), the others one call
of B, then the table steps. The table is a ``GinEngine`` (single hands: play ends when
every hand is over) or a ``SeriesEngine`` (full series: play ends when ``after_step``
has stopped every series).

Keys: side ``k`` of game ``i`` gets ``hash_stream(key_seeds[i], moves, salts[k])``, where
``moves`` counts that side's decisions in game ``i`` (or, with ``shared_moves``, the
decisions of both sides), so a game plays the same alone or in a batch of any size.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hgin_env.engine.game import GinEngine
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.keys import Salt, hash_stream
from hgin_env.engine.series import SeriesEngine, SeriesStep
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.policy import Policy, PolicyCall

#: the salts of A's and B's decision keys, unless a caller names others
KEY_SALTS = (Salt.EVAL_A, Salt.EVAL_B)


def play_batch(
    table: GinEngine | SeriesEngine,
    a: Policy,
    b: Policy,
    a_seat: np.ndarray | int = 0,
    *,
    key_seeds: np.ndarray | None = None,
    salts: tuple[int, int] = KEY_SALTS,
    shared_moves: bool = False,
    sheets: ScoreSheets | None = None,
    before_step: Callable[[np.ndarray], object] | None = None,
    after_step: Callable[[SeriesStep, np.ndarray], np.ndarray | None] | None = None,
) -> int:
    """Play A against B on ``table`` (already reset) until every game is done.

    Args:
        table: N games: a ``GinEngine`` (until every hand is over) or a ``SeriesEngine``
            (until ``after_step`` stops every series).
        a: A's policy.
        b: B's policy (may be A itself: self-play, two calls per step).
        a_seat: int[N] A's seat in each game (or one seat for all).
        key_seeds: uint64[N] the seeds the decision keys hash (default: the engine's).
        salts: the salts of A's and B's keys.
        shared_moves: count decisions per game for both sides together (else per side).
        sheets: the score sheets the observations show (default: a ``SeriesEngine``'s own;
            a ``GinEngine`` without them shows none).
        before_step: called with int64[N] actions (every live game's) before each step.
        after_step: a ``SeriesEngine`` only: called with each ``SeriesStep`` and bool[N]
            the series that were still playing; returns bool[N] series to stop playing (or
            None), besides those whose series ended.

    Returns:
        The batched steps taken.
    """
    series = table if isinstance(table, SeriesEngine) else None
    engine: GinEngine = table.engine if isinstance(table, SeriesEngine) else table
    if series is not None and sheets is None:
        sheets = series.sheets
    n = engine.n
    seat_a = np.broadcast_to(np.asarray(a_seat, dtype=np.int64), (n,))
    seeds = engine.seeds if key_seeds is None else key_seeds
    calls = (PolicyCall.of(a), PolicyCall.of(b))
    moves = np.zeros((1 if shared_moves else 2, n), np.int64)
    running = np.ones(n, dtype=bool) if series is not None else ~engine.over
    actions = np.zeros(n, dtype=np.int64)
    steps = 0
    while running.any():
        game = series.engine if series is not None else engine  # a series deals new hands
        masks = game.legal_action_mask()
        live = np.flatnonzero(~game.over)  # abandoned series still need legal moves
        actions[live] = masks[live].argmax(axis=1)
        rows = np.flatnonzero(running)
        seat = game.current_player[rows].astype(np.int64)
        is_a = seat == seat_a[rows]
        for side, (call, pick) in enumerate(zip(calls, (is_a, ~is_a), strict=True)):
            sel = rows[pick]
            if not sel.size:
                continue
            obs = encode_observations(game, seat[pick], sheets, sel) if call.observes else None
            counter = moves[0 if shared_moves else side]
            keys = hash_stream(seeds[sel], counter[sel], salts[side]) if call.keys else None
            actions[sel] = call(obs, masks[sel], keys=keys)
            if not shared_moves:
                counter[sel] += 1
        if shared_moves:
            moves[0, rows] += 1
        if before_step is not None:
            before_step(actions)
        steps += 1
        if series is None:
            engine.step(actions)
            running = ~engine.over
            continue
        step = series.step(actions)
        stop = after_step(step, running) if after_step is not None else None
        running = running & ~step.series_over
        if stop is not None:
            running &= ~stop
    return steps

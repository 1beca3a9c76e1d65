"""The compiled single-game path of ``GinCore`` (N = 1, the Gymnasium env).

A step of one game is a handful of Python calls around two kernels:

- ``play_one`` applies one move (the agent's, or a Python opponent's), then, with the
  built-in keyed random opponent (``policy.is_keyed_random``), the opponent's moves
  until the agent is to act or the episode ends, drawing each from the key
  ``hash(seed, opponent decision counter, Salt.OPPONENT)`` and ``policy.pick_legal``,
  exactly as ``RandomPolicy.act`` would. The hands that end are scored from the
  agent's side into a ``TALLY`` row; in series mode each is entered on the score
  sheet and the next hand dealt (``series.settle_hands``, the series engine's own).
- ``observe_one`` writes the agent's observation (``observation._encode_rows``) and
  its int8 action mask.

The batched path of ``GinCore`` does the same through the engine's batched calls; the
two play identical games (``tests/envs/test_one_game_path.py``).
"""

from __future__ import annotations

import numpy as np

from hgin_env.engine.game import (
    Outcome,
    Phase,
    _cache_views,
    _deadwood_rows,
    _hand_deadwood_rows,
    _state_views,
    _step_rows,
)
from hgin_env.engine.hollywood import _entry_games_row
from hgin_env.engine.jit import kernel
from hgin_env.engine.keys import Salt, hash_one, uniform_one
from hgin_env.engine.series import settle_hands
from hgin_env.envs.observation import _encode_rows
from hgin_env.envs.policy import pick_legal

#: the fields of a tally row (int64[len(TALLY)]), the ``StepResult`` fields of one game
TALLY = (
    "hands_ended",
    "hand_score",
    "outcome",
    "hand_result",
    "agent_knocked",
    "series_result",
    "illegal",
    "terminated",
    "truncated",
)
_HANDS, _SCORE, _OUTCOME, _RESULT, _KNOCKED, _SERIES, _ILLEGAL, _TERM, _TRUNC = range(len(TALLY))
#: what ``play_one`` stopped at (``ILLEGAL``: the agent's action, nothing done)
AGENT_TO_ACT, EPISODE_OVER, OPPONENT_TO_ACT, ILLEGAL = range(4)
_OVER, _DISCARD, _TRUNCATED = int(Phase.OVER), int(Phase.DISCARD), int(Outcome.TRUNCATED)
_OPPONENT_SALT = np.uint64(int(Salt.OPPONENT))


@kernel
def play_one(  # noqa: PLR0913 - the engine's, the counters' and the score sheet's arrays
    b, i8, i16, i64, cb, ci, seeds, hand_counter, allow_rediscard, max_turns,
    series, scores, entered, boxes, game_winners, finished, series_winner, game_target,
    stop_when_decided, hands_played, opponent_moves, keyed,
    agent_seat, tally, begin, action, moving,
):  # fmt: skip
    """Play ``action``, then the keyed opponent's moves, in a core of one game.

    The first six arguments are ``GinEngine.storage`` of the one game, then its seeds
    (uint64[1]), hand counters (int64[1]) and rules; ``series`` says series mode, with
    the ``ScoreSheets`` arrays, target and stop rule and the series engine's
    ``hands_played`` (placeholders in hand mode). ``opponent_moves`` (int64[1]) counts
    the opponent's decisions, its key counter; with ``keyed`` the opponent is the keyed
    random policy, played here, else the kernel stops when it is to act.

    ``tally`` (int64[2, len(TALLY)]) holds in row 0 the step's result and in row 1 the
    hands settled since the episode began (paid with the agent's first step). The hands
    of the episode the agent's step belongs to (``moving``) go to row 0, where its end
    is marked terminated or truncated; those of an episode just begun go to row 1.

    ``action`` is a move of the seat to act, or -1 for none; with ``begin`` it is the
    agent's: if illegal, nothing is done (``ILLEGAL``), else row 1 moves into row 0 and
    is cleared before the move's hand is scored.

    Returns:
        ``AGENT_TO_ACT``, ``EPISODE_OVER``, ``OPPONENT_TO_ACT`` (a Python opponent's move)
        or ``ILLEGAL``.
    """
    sv = _state_views(b, i8, i16, i64, 1)
    current, phase = sv[9], sv[10]
    outcome, winner, points, knocker = sv[15], sv[16], sv[17], sv[18]
    mask = _cache_views(cb, ci, 1)[0]
    acts = np.zeros(1, np.int64)
    active = np.ones(1, np.bool_)
    ended = np.zeros(1, np.bool_)
    rows = np.zeros(1, np.int64)
    series_over = np.zeros(1, np.bool_)
    row = tally[0] if moving else tally[1]
    a = action
    while True:
        if a >= 0 or begin:
            acts[0] = a
            bad = _step_rows(
                b, i8, i16, i64, cb, ci, 1, acts, active, allow_rediscard, max_turns, ended
            )[1]
            if begin:
                if bad:
                    return ILLEGAL
                for k in range(tally.shape[1]):
                    tally[0, k] = tally[1, k]
                    tally[1, k] = 0
                begin = False
            if ended[0]:
                sign = 1 if winner[0] == agent_seat else (0 if winner[0] < 0 else -1)
                row[_SCORE] += sign * np.int64(points[0])
                row[_HANDS] += 1
                row[_OUTCOME] = outcome[0]
                row[_RESULT] = sign
                row[_KNOCKED] = knocker[0] == agent_seat
                if series:
                    settle_hands(
                        b, i8, i16, i64, cb, ci, 1, rows, seeds, hand_counter, allow_rediscard,
                        scores, entered, boxes, game_winners, finished, series_winner,
                        game_target, stop_when_decided, hands_played, series_over,
                    )  # fmt: skip
                    if series_over[0]:
                        w = series_winner[0]
                        row[_SERIES] = 1 if w == agent_seat else (0 if w < 0 else -1)
        over = finished[0] if series else phase[0] == _OVER
        if over:
            if moving:
                if outcome[0] == _TRUNCATED:
                    row[_TRUNC] = 1
                else:
                    row[_TERM] = 1
            return EPISODE_OVER
        if current[0] == agent_seat:
            return AGENT_TO_ACT
        if not keyed:
            return OPPONENT_TO_ACT
        key = hash_one(seeds[0], np.uint64(opponent_moves[0]), _OPPONENT_SALT)
        opponent_moves[0] += 1
        a = pick_legal(mask[0], uniform_one(key))


@kernel
def observe_one(  # noqa: PLR0913 - the engine's and the score sheet's arrays
    b, i8, i16, i64, cb, ci, allow_rediscard, max_turns,
    series, target, scores, entered, game_winners, finished, seat, awaiting, obs, mask_out,
):  # fmt: skip
    """Fill ``obs`` (float32[1, OBS_DIM], zeroed) and ``mask_out`` (int8[107]) for ``seat``.

    The same observation as ``observation.encode_observations`` of the one game (its
    deadwood from the engine's caches, its blocks from ``_encode_rows``); the mask is the
    engine's legal actions, all 0 unless ``awaiting``.
    """
    sv = _state_views(b, i8, i16, i64, 1)
    stock_pos, hands, pile, pile_size, in_pile, known, discards = sv[1:8]
    dealer, current, phase, must_draw, taken, turns = sv[8], sv[9], sv[10], sv[12], sv[13], sv[14]
    cv = _cache_views(cb, ci, 1)
    mask, dw, rules = cv[0], cv[4], cv[6]
    rows = np.zeros(1, np.int64)
    seats = np.full(1, seat, np.int64)
    deadwood = np.zeros(1, np.int64)
    if phase[0] == _DISCARD and current[0] == seat:
        _deadwood_rows(b, i8, i16, i64, cb, ci, 1, rows)
        disc = rows
        after = dw
    else:
        _hand_deadwood_rows(b, i8, i16, i64, cb, ci, 1, rows, seats, deadwood)
        disc = rows[:0]
        after = dw[:0]
    next_entry = np.zeros((1, 2, 3), np.bool_)
    if series:
        for s in range(2):
            _entry_games_row(game_winners, entered, finished, 0, s, next_entry[0, s])
    _encode_rows(
        obs, rows, seats, disc, after, deadwood,
        hands, known, discards, in_pile, pile, pile_size, phase, current,
        must_draw, taken, stock_pos, dealer, turns, max_turns, allow_rediscard,
        rules[0], rules[1], rules[2], rules[3], rules[4],
        series, target, scores, entered, game_winners, finished, next_entry,
    )  # fmt: skip
    for a in range(mask_out.shape[0]):
        mask_out[a] = mask[0, a] and awaiting

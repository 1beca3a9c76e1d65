"""Rollouts: play a batch of sampled positions to the end of their hands.

Each row of the batch is one (game, candidate, world) of a search decision: the row's
first move is the candidate, then the rollout policy plays both seats (or, with ``own``,
only the opponent's, ``own`` playing the searching seat, seat 0) until the hand ends.
The rows live in one ``GinEngine`` built on the worlds' ``HandState``; every step asks
the engine for the seats to act and their legal actions, shows each policy its seats'
observations (the policies are networks and bots that read them), and steps the engine.
Rows that are over are dropped once fewer than half the engine's rows are live, so a
long hand does not drag the finished ones along.

Random numbers: a row's policy call at move ``m`` gets the key
``hash_stream(key, m, Salt.SEARCH_ROLLOUT)`` of the row's world key, so a rollout plays
the same whatever batch it is in.
"""

from __future__ import annotations

import numpy as np

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, HandState
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.keys import Salt, hash_stream
from hgin_env.envs.observation import encode_observations
from hgin_env.envs.policy import Policy, PolicyCall

#: the rollout engine drops its finished rows when fewer than this share is live
COMPACT_BELOW = 0.5
#: the policies that never read the score sheet (it is not encoded for them)
SHEETLESS = ("simple", "expert")


class Rollouts:
    """The rollout players of a search and the loop that plays their hands out.

    Args:
        rollout: the policy playing both seats (or only the opponent's, with ``own``).
        own: the policy playing the searching seat, seat 0 (None: ``rollout``).
    """

    def __init__(self, rollout: Policy, own: Policy | None = None) -> None:
        self.rollout = rollout
        self._rollout_call = PolicyCall.of(rollout)
        self._own_call = PolicyCall.of(own) if own is not None else None
        players = [rollout] if own is None else [rollout, own]
        #: a network reads the score sheet; the bots do not, so they skip encoding it
        self.reads_sheets = any(getattr(p, "name", "") not in SHEETLESS for p in players)
        #: engine actions taken inside rollouts since construction (for the benchmarks)
        self.actions = 0

    def sheets(self, sheets: ScoreSheets | None, rows: np.ndarray) -> ScoreSheets | None:
        """The score sheets of the rollout rows (None when no player reads them)."""
        if sheets is None or not self.reads_sheets:
            return None
        return sheets.rows(rows)

    def play_out(
        self,
        state: HandState,
        first: np.ndarray,
        keys: np.ndarray,
        sheets: ScoreSheets | None,
        rules: RulesConfig,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Play ``first`` then the rollout players to the end of every row's hand.

        Args:
            state: R positions (seat 0 the searching seat, to act).
            first: int[R] each row's first move.
            keys: uint64[R] each row's world key.
            sheets: the rows' score sheets (``sheets``), or None.
            rules: the rules the rows play under.

        Returns:
            ``(winner, points)``: int64[R] the seat that scored (-1: none), and its points.
        """
        total = first.size
        engine: GinEngine = GinEngine.from_state(state, rules)
        engine.step(first)
        self.actions += total
        ids = np.arange(total)  # original row of each engine row
        winner = np.full(total, -1, dtype=np.int64)
        points = np.zeros(total, dtype=np.int64)
        moves = np.zeros(total, dtype=np.int64)
        actions = np.zeros(total, dtype=np.int64)
        while True:
            over = engine.over
            live = np.flatnonzero(~over)
            if live.size < COMPACT_BELOW * ids.size or live.size == 0:
                done = np.flatnonzero(over)
                winner[ids[done]] = engine.state.winner[done]
                points[ids[done]] = engine.state.points[done]
                if live.size == 0:
                    return winner, points
                engine = GinEngine.from_state(engine.state.rows(live), rules)
                ids, keys, moves = ids[live], keys[live], moves[live]
                if sheets is not None:
                    sheets = sheets.rows(live)
                actions = np.zeros(live.size, dtype=np.int64)
                live = np.arange(live.size)
            seats = engine.current_player[live]
            obs = encode_observations(engine, seats, sheets, live)
            masks = engine.legal_action_mask(copy=False)[live]
            step_keys = hash_stream(keys[live], moves[live], Salt.SEARCH_ROLLOUT)
            actions[live] = self._actions(seats, obs, masks, step_keys)
            moves[live] += 1
            engine.step(actions)
            self.actions += live.size

    def _actions(
        self, seats: np.ndarray, obs: np.ndarray, masks: np.ndarray, keys: np.ndarray
    ) -> np.ndarray:
        """int64[R]: the rollout players' actions; seat 0 is the searching seat."""
        if self._own_call is None:
            return np.asarray(self._rollout_call(obs, masks, keys=keys))
        out = np.zeros(seats.size, dtype=np.int64)
        for call, rows in (
            (self._own_call, np.flatnonzero(seats == 0)),
            (self._rollout_call, np.flatnonzero(seats == 1)),
        ):
            if rows.size:
                out[rows] = call(obs[rows], masks[rows], keys=keys[rows])
        return out

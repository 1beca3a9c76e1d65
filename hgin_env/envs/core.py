"""The shared core of the single-agent environments: N games of agent vs opponent, batched.

``GinCore`` drives a ``Table`` (``hgin_env.engine.table``: one hand per episode, or a
whole Hollywood series) of N games in which the learner (the *agent*) plays one seat and
an opponent policy the other.
The Gymnasium env is the core with N = 1; the SB3 VecEnv and the Gymnasium VectorEnv are
the core with N games and same-step autoreset (``step(actions, autoreset=True)`` keeps the
last observations of the episodes that ended and restarts them). No rules live here:
legality, scoring, dealing and the score sheet all come from the engine. One ``step``:

1. the agent's actions are checked against the engine's mask (illegal: ``ValueError``,
   or with ``illegal_action="penalize"`` the episode ends with ``-illegal_penalty``);
2. the engine applies them;
3. the opponent acts, one batched ``act`` call over the games where it is its turn,
   again and again until the agent is to act in every live game;
4. the hands that ended are scored from the agent's side: reward = (points won - points
   lost) / ``reward_scale``, plus +/- ``series_win_reward`` when a series ends.

The opponent may end a hand between two agent decisions (and, in series mode, the next
hand is dealt at once); its result goes into that step's reward. Engine steps touch only
the games whose turn it is (``step(actions, active)``), and the engine's masks are cached
per game, so waiting games cost no work. A core of one game (the Gymnasium env) steps
and resets through a compiled path (``hgin_env.envs.one_game``; ``step_one``): the same
checks, moves and scoring in one kernel call per step (the keyed random opponent's
moves included), without the bool[N] bookkeeping that would cost more than the game
itself. At reset, a hand the opponent ends before the agent's first decision (it takes
the upcard and knocks at once) cannot be shown to the agent: in hand mode that hand is
dealt again (counted in ``redeals``); in series mode its reward is paid with the
agent's first step.

Determinism: game i depends only on its own seed (the engine's counter-based shuffles)
and its own counters (episodes, opponent decisions); a keyed opponent such as
``RandomPolicy`` draws from hash(seed, decision counter). So game i of a batch plays
exactly like a single game with the same seed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from hgin_env.engine.actions import N_ACTIONS, illegal_action_message
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, Outcome, Phase
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.jit import entry_point, kernel
from hgin_env.engine.keys import Salt, check_seed, hash_stream
from hgin_env.engine.series import SeriesStep
from hgin_env.engine.table import Table, make_table
from hgin_env.envs.config import EnvConfig, make_env_config, make_rules, rules_mix
from hgin_env.envs.observation import (
    OBS_DIM,
    PRIVILEGED_DIM,
    encode_observations,
    encode_privileged,
)
from hgin_env.envs.one_game import (
    AGENT_TO_ACT,
    EPISODE_OVER,
    ILLEGAL,
    OPPONENT_TO_ACT,
    TALLY,
    observe_one,
    play_one,
)
from hgin_env.envs.policy import Policy, PolicyCall, is_keyed_random, resolve_policy

# plain ints for the hot path (IntEnum attribute access is slow)
_OVER, _TRUNCATED = int(Phase.OVER), int(Outcome.TRUNCATED)
#: the one game of a single-game core, as a row list and as a bool[1] selection
_ROW0 = np.zeros(1, np.int64)
_ONE = np.ones(1, bool)
_ONE.flags.writeable = False
_ROW0.flags.writeable = False
#: the one-game path's placeholders of the score sheet's arrays in hand mode
_NO_SHEET = (
    np.zeros((1, 2, 3), np.int64),
    np.zeros((1, 2, 3), bool),
    np.zeros((1, 2, 3), np.int64),
    np.zeros((1, 3), np.int64),
    np.zeros(1, bool),
    np.full(1, -1, np.int64),
)
_NO_COUNT = np.zeros(1, np.int64)  # the series engine's hands_played
_ILLEGAL, _TERMINATED = TALLY.index("illegal"), TALLY.index("terminated")
_SCORE, _SERIES = TALLY.index("hand_score"), TALLY.index("series_result")


@dataclass
class StepResult:
    """What one ``GinCore.step`` did, per game; every field has the batch as leading axis."""

    reward: np.ndarray  # float32[N]: the agent's reward
    terminated: np.ndarray  # bool[N]: the hand (hand mode) or the series (series mode) ended
    truncated: np.ndarray  # bool[N]: hand mode: the hand reached max_turns_per_hand (a draw)
    hands_ended: np.ndarray  # int64[N]: hands that ended in the step (series: also at reset)
    hand_score: np.ndarray  # int64[N]: the agent's points won minus lost in those hands
    outcome: np.ndarray  # int8[N]: the Outcome of the last of those hands, NONE if none
    hand_result: np.ndarray  # int8[N]: last of those hands: +1 the agent scored, -1 lost, else 0
    agent_knocked: np.ndarray  # bool[N]: the agent knocked (or went gin) in the last of them
    series_result: np.ndarray  # int8[N]: +1 the agent won the series, -1 lost, else 0
    illegal: np.ndarray  # bool[N]: the agent's action was illegal (illegal_action="penalize")
    # autoreset only: the games whose episode ended and was restarted in the step (int64[M],
    # ascending) and their episodes' last observations (float32[M, OBS_DIM]), in that order
    final_rows: np.ndarray | None = None
    final_obs: np.ndarray | None = None

    @classmethod
    def zeros(cls, n: int) -> StepResult:
        """An empty result for n games."""
        return cls(
            reward=np.zeros(n, np.float32),
            terminated=np.zeros(n, bool),
            truncated=np.zeros(n, bool),
            hands_ended=np.zeros(n, np.int64),
            hand_score=np.zeros(n, np.int64),
            outcome=np.zeros(n, np.int8),
            hand_result=np.zeros(n, np.int8),
            agent_knocked=np.zeros(n, bool),
            series_result=np.zeros(n, np.int8),
            illegal=np.zeros(n, bool),
        )

    @staticmethod
    def per_game_dtypes() -> dict[str, np.dtype]:
        """The per-game fields (``final_*`` apart) and their dtypes, in field order."""
        return dict(_per_game_dtypes())

    def clear(self, rows: np.ndarray) -> None:
        """Zero the per-game arrays of the selected games (int or bool index)."""
        for name in self.per_game_dtypes():
            getattr(self, name)[rows] = 0

    def add(self, other: StepResult, rows: np.ndarray) -> None:
        """Add the hands ``other`` settled in ``rows`` (bool[N]) to this result."""
        self.hands_ended[rows] += other.hands_ended[rows]
        self.hand_score[rows] += other.hand_score[rows]
        latest = rows & (other.hands_ended > 0)
        self.outcome[latest] = other.outcome[latest]
        self.hand_result[latest] = other.hand_result[latest]
        self.agent_knocked[latest] = other.agent_knocked[latest]
        self.series_result[rows] = other.series_result[rows]


@functools.cache
def _per_game_dtypes() -> tuple[tuple[str, np.dtype], ...]:
    """``StepResult.per_game_dtypes``, worked out once."""
    empty = StepResult.zeros(0)
    names = (f.name for f in fields(StepResult) if f.name not in ("final_rows", "final_obs"))
    return tuple((name, getattr(empty, name).dtype) for name in names)


#: the step facts the envs put in their infos: info key -> ``StepResult`` field
STEP_INFO = {
    "hands_ended": "hands_ended",
    "hand_score": "hand_score",
    "outcome": "outcome",
    "hand_result": "hand_result",
    "agent_knocked": "agent_knocked",
    "series_result": "series_result",
    "illegal_action": "illegal",
}


def action_ids(actions: np.ndarray, n: int) -> np.ndarray:
    """int64[N]: the agent's actions of one step as action ids, -1 for an id out of range.

    Ids are range-checked before the int64 cast, which would wrap ids >= 2**63 (the error
    message reads the original values: ``illegal_message``).

    Raises:
        ValueError: for a shape other than N actions, or values that are not whole numbers.
    """
    a = np.asarray(actions).reshape(-1)
    if a.shape != (n,):
        raise ValueError(f"expected {n} actions (one per game), got shape {a.shape}")
    whole = a.dtype.kind in "iu" or (a.dtype.kind == "f" and bool((a == np.round(a)).all()))
    if not whole:
        raise ValueError(f"actions must be integer action ids, got {actions!r}")
    return np.where((a >= 0) & (a < N_ACTIONS), a, -1).astype(np.int64)


def illegal_games(a: np.ndarray, masks: np.ndarray, awaiting: np.ndarray) -> np.ndarray:
    """bool[N]: games awaiting the agent whose action ``a`` is not legal under ``masks``."""
    in_range = (a >= 0) & (a < N_ACTIONS)
    legal = in_range & masks[np.arange(a.size), np.where(in_range, a, 0)]
    return awaiting & ~legal


def illegal_message(
    actions: np.ndarray, illegal: np.ndarray, masks: np.ndarray, phases: np.ndarray
) -> str:
    """The error of the first illegal action of a step (naming its game in a batch).

    Args:
        actions: the step's actions as given (so an id of 2**63 is named as it is).
        illegal: bool[N], the games whose action is illegal.
        masks: bool[N, 107], the legal actions.
        phases: int[N], each game's phase.
    """
    raw = np.asarray(actions).reshape(-1)
    i = int(np.flatnonzero(illegal)[0])
    phase = Phase(int(phases[i])).name
    who = f"game {i}: " if raw.size > 1 else ""
    return illegal_action_message(int(raw[i]), masks[i], phase, who)


class GinCore:
    """N games of Hollywood Gin, agent against opponent, stepped together.

    Args:
        n: number of games.
        opponent: a policy name (``"random"``) or an object with a batched
            ``act(observations, action_masks)``; see ``hgin_env.envs.policy``.
        config: the environment options (``EnvConfig`` or a dict of its fields).
        rules: the rules options (``RulesConfig`` or a dict of its fields).
        seed: an int in 0..2**64-1 (game i uses ``seed + i``), uint64[N] per-game seeds,
            or None.
        **options: ``EnvConfig`` fields overriding ``config`` (``mode="series"``, ...).

    Attributes:
        table: the games' ``Table`` (``hgin_env.engine.table``): a ``HandTable`` in hand
            mode, a ``SeriesEngine`` in series mode.
        engine: the ``GinEngine`` of the N games (``table.engine``).
        sheets: the ``ScoreSheets`` in series mode, else None.
        agent_seat: int8[N], the agent's seat in each game's current episode.
        awaiting: bool[N], games waiting for an agent action (episode live).
        episodes: int64[N], episodes started per game since seeding.
        redeals: int64[N], hand mode: hands dealt again because the opponent ended them
            before the agent's first decision (series mode: series restarted so).
    """

    def __init__(
        self,
        n: int,
        opponent: str | Policy = "random",
        config: EnvConfig | dict | None = None,
        rules: RulesConfig | dict | None = None,
        seed: int | np.ndarray | None = None,
        **options,
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"the number of games must be an integer >= 1, got {n!r}")
        self.n = int(n)
        self.config = make_env_config(config, **options)
        self.rules = make_rules(rules)
        #: the rule sets of the games (``env.rules_mix``; one without it) and their weights
        self.rules_mix, self.mix_weights = rules_mix(self.rules, self.config)
        policy_seed = check_seed(seed) if isinstance(seed, int | np.integer) else None
        self.opponent = resolve_policy(opponent, seed=policy_seed)
        self._call = PolicyCall.of(self.opponent)
        # a keyed opponent decides each game from that game alone (see the policy module),
        # so games restarted within a step can join the step's opponent loop (fewer
        # batched calls); a policy with a shared random stream or per-call state (one
        # that takes ``rows``) sees the restarts in a batch of their own, as always
        self._restart_in_loop = self._call.keys and not self._call.rows
        # one game against the built-in random policy: its moves are played in the kernel
        self._keyed = is_keyed_random(self.opponent)
        self.seed(seed)

    # ------------------------------------------------------------------ setup
    def seed(self, seed: int | np.ndarray | None) -> None:
        """Start over with new per-game seeds (all episodes end; call ``reset`` next).

        An opponent with a ``seed(int)`` method is reseeded too when ``seed`` is an int.

        Raises:
            ValueError: a seed outside 0..2**64-1 (``hgin_env.engine.keys.check_seed``).
        """
        if isinstance(seed, int | np.integer):
            check_seed(seed)
        reseed = getattr(self.opponent, "seed", None)
        if isinstance(seed, int | np.integer) and callable(reseed):
            reseed(int(seed))
        self.table: Table = make_table(
            self.config.mode, self.n, self.rules_mix, seed, self.mix_weights
        )
        self.engine: GinEngine = self.table.engine
        self.sheets: ScoreSheets | None = self.table.sheets
        n = self.n
        self.agent_seat = np.zeros(n, np.int8)
        self.awaiting = np.zeros(n, bool)
        self.episodes = np.zeros(n, np.int64)
        self.opponent_moves = np.zeros(n, np.int64)  # opponent decisions per game (its keys)
        self.redeals = np.zeros(n, np.int64)
        # series: hands settled at reset, paid next step (one game: row 1 of ``_tally``)
        self._pending = StepResult.zeros(n)
        # one game: row 0 the step's tally, row 1 the pending hands (``TALLY`` fields)
        self._tally = np.zeros((2, len(TALLY)), np.int64)
        self._play: tuple | None = None  # (play_one's entry, its leading arguments)
        self._look: tuple | None = None  # (observe_one's entry, its leading arguments)

    def reseed(self, rows: np.ndarray, seeds: np.ndarray) -> None:
        """Give the games ``rows`` (int[M]) new seeds and restart their counters.

        Afterwards game ``rows[j]`` plays like a single game seeded ``seeds[j]``; its
        episode ends (call ``reset`` for it next). The other games are untouched.
        """
        rows = np.asarray(rows, np.int64)
        self.engine.seeds[rows] = np.asarray(seeds, np.uint64)
        self.engine.hand_counter[rows] = 0
        series_counter = getattr(self.table, "series_counter", None)
        if series_counter is not None:
            series_counter[rows] = 0
        for counter in (self.episodes, self.opponent_moves, self.redeals):
            counter[rows] = 0
        self.awaiting[rows] = False
        self._clear_pending(rows)

    @property
    def seeds(self) -> np.ndarray:
        """uint64[N]: each game's seed."""
        return self.engine.seeds

    def _choose_seats(self, rows: np.ndarray) -> np.ndarray:
        """int8[M]: the agent's seat for the episodes starting in ``rows``."""
        choice = self.config.agent_seat
        seeds, k = self.engine.seeds[rows], self.episodes[rows]
        if choice == "random":
            return (hash_stream(seeds, k, Salt.SEAT) & np.uint64(1)).astype(np.int8)
        if choice == "alternate":
            return ((seeds + k.astype(np.uint64)) & np.uint64(1)).astype(np.int8)
        return np.full(rows.size, choice, np.int8)

    # ------------------------------------------------------------------ reset
    def reset(self, mask: np.ndarray | None = None) -> None:
        """Start a new episode in the selected games (default: all) up to the agent's turn.

        Args:
            mask: bool[N], the games to restart.
        """
        if self.n == 1:
            if mask is None or np.asarray(mask, bool).any():
                self._begin(_ONE)
                self._run_fresh_one()
            return
        fresh = np.ones(self.n, bool) if mask is None else np.asarray(mask, bool).copy()
        if not fresh.any():
            return
        self._begin(fresh)
        _, fresh = self._run(np.zeros(self.n, bool), fresh, None)
        self.awaiting |= fresh

    def _begin(self, sel: np.ndarray) -> None:
        """Deal the first hand of a new episode in the games ``sel`` (bool[N])."""
        rows = np.flatnonzero(sel)
        self.agent_seat[rows] = self._choose_seats(rows)
        self.episodes[rows] += 1
        self._clear_pending(rows)
        self.table.reset(sel)

    def _clear_pending(self, rows: np.ndarray) -> None:
        """Forget the hands settled at reset in the games ``rows`` (int[M])."""
        if self.n > 1:
            self._pending.clear(rows)
        elif rows.size:  # the one game keeps them in its tally
            self._tally[1] = 0

    # ------------------------------------------------------------------ queries
    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """float32[M, obs_dim]: the agent's observations (all games, or the int[M] ``rows``).

        With ``config.privileged`` the hidden-information block follows each observation.
        """
        if rows is None:
            rows = _ROW0 if self.n == 1 else np.arange(self.n)
        rows = np.asarray(rows, np.int64)
        seats = self.agent_seat[rows]
        obs = encode_observations(self.engine, seats, self.sheets, rows)
        if not self.config.privileged:
            return obs
        return np.concatenate([obs, encode_privileged(self.engine, seats, rows)], axis=1)

    @property
    def obs_dim(self) -> int:
        """Length of the agent's observations (``OBS_DIM``, plus the privileged block)."""
        return OBS_DIM + PRIVILEGED_DIM * self.config.privileged

    def final_observations(self, mask: np.ndarray) -> np.ndarray:
        """float32[M, obs_dim]: the agent's observations of the M games selected by ``mask``.

        Meant for the last observation of episodes about to be reset.
        """
        return self.observe(np.flatnonzero(np.asarray(mask, bool)))

    def action_masks(self) -> np.ndarray:
        """bool[N, 107]: the agent's legal actions (all false where no episode is live)."""
        return self.engine.legal_action_mask(copy=False) & self.awaiting[:, None]

    # ------------------------------------------------------------------ step
    def step(self, actions: np.ndarray, autoreset: bool = False) -> StepResult:
        """Apply the agent's actions, let the opponent answer, and score the hands that ended.

        Games that are not awaiting an agent action ignore their entry.

        Args:
            actions: int[N] action ids.
            autoreset: restart the episodes that end, within this step (their last
                observations are returned in ``final_rows`` / ``final_obs``).

        Raises:
            ValueError: for a wrong shape or dtype, or (``illegal_action="raise"``) an
                illegal action, naming the action and the legal ones.
        """
        if self.n == 1:
            one = self._step_one(actions)
            if autoreset:
                self._autoreset_one(one)
            return one
        a = action_ids(actions, self.n)
        mask = self.engine.legal_action_mask(copy=False)
        illegal = illegal_games(a, mask, self.awaiting)
        if illegal.any() and self.config.illegal_action == "raise":
            raise ValueError(illegal_message(actions, illegal, mask, self.engine.state.phase))
        result, self._pending = self._pending, StepResult.zeros(self.n)
        result.illegal[:] = illegal
        result.terminated[:] = illegal
        moving = self.awaiting & ~illegal
        fresh = np.zeros(self.n, bool)
        finals: list[tuple[np.ndarray, np.ndarray]] | None = None
        if autoreset and self._restart_in_loop:
            finals = []
            if illegal.any():
                self._restart(illegal, finals)
                fresh |= illegal
        self._advance(moving, result, np.where(moving, a, 0))
        moving, fresh = self._run(moving, fresh, result, finals)
        self.awaiting = moving | fresh
        cfg = self.config
        reward = result.hand_score / cfg.reward_scale
        reward += result.series_result * cfg.series_win_reward
        reward[illegal] = -cfg.illegal_penalty
        result.reward[:] = reward
        if autoreset:
            done = result.terminated | result.truncated
            result.final_rows = done.nonzero()[0]
            result.final_obs = np.zeros((0, self.obs_dim), np.float32)
            if finals:  # restarted in the loop: their observations, in row order
                rows = np.concatenate([r for r, _ in finals])
                result.final_obs = np.concatenate([o for _, o in finals])[np.argsort(rows)]
            elif finals is None and done.any():
                result.final_obs = self.final_observations(done)
                self.reset(done)
        return result

    # ------------------------------------------------------------------ internals
    def _run(
        self,
        moving: np.ndarray,
        fresh: np.ndarray,
        result: StepResult | None,
        finals: list[tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Let the opponent act until the agent is to act in every live game.

        The games are of two kinds, batched together: ``moving`` (bool[N]), whose episode
        the agent's action of this step belongs to (their hands go to ``result``; an
        episode that ends is marked terminated or truncated and leaves ``moving``), and
        ``fresh``, whose episode has just begun (their hands go to ``_pending``, paid with
        the agent's next step; an episode the opponent ends before the agent's first move
        is restarted: the hand dealt again in hand mode, the series in series mode).

        With ``finals`` (a list), an episode of ``moving`` that ends is restarted at once
        and joins ``fresh``; its last observation goes to ``finals`` as ``(rows, obs)``.

        Returns:
            ``(moving, fresh)`` at the end: the games now waiting for the agent.
        """
        moving, fresh = moving.copy(), fresh.copy()
        tally: StepResult | None = None  # the opponent's hands of one move, once one ends
        while True:
            if result is not None:
                ended = moving & self._episode_over()
                if ended.any():
                    moving &= ~ended
                    self._mark_end(result, ended)
                    if finals is not None:
                        self._restart(ended, finals)
                        fresh |= ended
            void = fresh & self._episode_over()
            if void.any():
                self.redeals[void] += 1
                self._pending.clear(void)
                self.table.reset(void)
            s = self.engine.state
            turn = (moving | fresh) & (s.phase != _OVER) & (s.current != self.agent_seat)
            if not turn.any():
                return moving, fresh
            if tally is None:
                tally = StepResult.zeros(self.n)
            if not self._advance(turn, tally):
                continue  # no hand ended: the tally is still all zeros
            if result is not None:
                result.add(tally, turn & moving)
            if fresh.any():
                self._pending.add(tally, turn & fresh)
            tally = None

    # ------------------------------------------------------------------ one game
    def step_one(self, action: Any) -> tuple[float, list[int]]:
        """``step`` of a core of one game, in Python scalars (the Gymnasium env's step).

        Args:
            action: the agent's action id (an int, or anything ``step`` takes for N = 1).

        Returns:
            ``(reward, tally)``: the agent's reward (a float32 value) and the step's
            ``StepResult`` fields of the game as ints, in ``one_game.TALLY`` order.

        Raises:
            ValueError: as ``step``.
        """
        if type(action) is int and 0 <= action < N_ACTIONS:
            a = action
        elif isinstance(action, np.integer):  # out of range: -1, as ``action_ids`` says
            a = int(action) if 0 <= action < N_ACTIONS else -1
        else:
            a = int(action_ids(action, 1)[0])
        tally, cfg = self._tally, self.config
        awaiting = bool(self.awaiting[0])
        status = self._play_one(a, True, True) if awaiting else EPISODE_OVER
        illegal = status == ILLEGAL
        if illegal and cfg.illegal_action == "raise":
            mask = self.engine.legal_action_mask(copy=False)
            raise ValueError(illegal_message(action, _ONE, mask, self.engine.state.phase))
        if illegal or not awaiting:  # no move: the step pays the pending hands alone
            tally[0] = tally[1]
            tally[1] = 0
            tally[0, _ILLEGAL] = tally[0, _TERMINATED] = illegal
        self.awaiting[0] = status == AGENT_TO_ACT
        t = tally[0].tolist()
        if illegal:
            return float(np.float32(-cfg.illegal_penalty)), t
        reward = t[_SCORE] / cfg.reward_scale + t[_SERIES] * cfg.series_win_reward
        return float(np.float32(reward)), t

    def _step_one(self, actions: np.ndarray) -> StepResult:
        """``step`` for a single game (N = 1): ``step_one``'s scalars as a ``StepResult``."""
        reward, tally = self.step_one(actions)
        dtypes = StepResult.per_game_dtypes()
        fields_ = {name: np.array([v], dtypes[name]) for name, v in zip(TALLY, tally, strict=True)}
        return StepResult(reward=np.array([reward], np.float32), **fields_)

    def _play_one(self, action: int, begin: bool, moving: bool) -> int:
        """Play ``action`` and the opponent's answer in the one game (``one_game.play_one``).

        A Python opponent (a bot, a model) is asked for each of its moves here; the
        keyed random policy plays inside the kernel.

        Returns:
            ``AGENT_TO_ACT``, ``EPISODE_OVER`` or (``begin``: the agent's action was
            illegal, nothing done) ``ILLEGAL``.
        """
        if self._play is None or self._play[2] is not self.engine.state:
            self._play = self._play_entry()
        play, args, _ = self._play
        seat = int(self.agent_seat[0])
        status = play(*args, seat, self._tally, begin, action, moving)
        while status == OPPONENT_TO_ACT:
            chosen = int(self._opponent_actions(_ROW0)[0])
            status = play(*args, seat, self._tally, False, chosen, moving)
        return status

    def _play_entry(self) -> tuple:
        """``play_one``'s compiled entry, its leading arguments and the state they hold."""
        eng, table = self.engine, self.table
        sheets = self.sheets
        sheet = _NO_SHEET if sheets is None else (
            sheets.scores, sheets.entered, sheets.boxes, sheets.game_winners,
            sheets.finished, sheets.series_winner,
        )  # fmt: skip
        rules = self.rules
        args = (
            *eng.storage, eng.seeds, eng.hand_counter, bool(rules.allow_rediscard),
            int(rules.max_turns_per_hand), sheets is not None, *sheet, int(rules.game_target),
            bool(rules.stop_when_decided), getattr(table, "hands_played", _NO_COUNT),
            self.opponent_moves, self._keyed,
        )  # fmt: skip
        entry = entry_point(play_one, *args, 0, self._tally, True, 0, True)
        return entry, args, eng.state

    def _run_fresh_one(self) -> None:
        """``reset``'s run for a single game: the opponent moves until the agent is to act.

        A hand (hand mode) or series the opponent ends before the agent's first move is
        dealt again (counted in ``redeals``); hands it settles are paid with the next step.
        """
        while self._play_one(-1, False, False) != AGENT_TO_ACT:
            self.redeals[0] += 1
            self._tally[1] = 0
            self.table.reset(_ONE)
        self.awaiting[0] = True

    def observe_one(self) -> tuple[np.ndarray, np.ndarray]:
        """The one game's observation and int8 action mask, from one kernel.

        ``observe()[0]`` (float32[obs_dim], a new array) and ``action_masks()[0]`` as int8
        (all 0 when no episode is live).
        """
        if self._look is None or self._look[2] is not self.engine.state:
            self._look = self._look_entry()
        look, args, _ = self._look
        obs = np.zeros((1, OBS_DIM), np.float32)
        mask = np.empty(N_ACTIONS, np.int8)
        look(*args, int(self.agent_seat[0]), bool(self.awaiting[0]), obs, mask)
        if self.config.privileged:
            extra = encode_privileged(self.engine, self.agent_seat[:1], _ROW0)
            obs = np.concatenate([obs, extra], axis=1)
        return obs[0], mask

    def _look_entry(self) -> tuple:
        """``observe_one``'s compiled entry, its leading arguments and the state they hold."""
        eng, sheets, rules = self.engine, self.sheets, self.rules
        if sheets is None:
            target = 1.0
            sheet = (_NO_SHEET[0], _NO_SHEET[1], _NO_SHEET[3], _NO_SHEET[4])
        else:
            target = float(rules.game_target)
            sheet = (sheets.scores, sheets.entered, sheets.game_winners, sheets.finished)
        args = (
            *eng.storage, bool(rules.allow_rediscard), float(rules.max_turns_per_hand),
            sheets is not None, target, *sheet,
        )  # fmt: skip
        obs = np.zeros((1, OBS_DIM), np.float32)
        entry = entry_point(observe_one, *args, 0, True, obs, np.empty(N_ACTIONS, np.int8))
        return entry, args, eng.state

    def _autoreset_one(self, result: StepResult) -> None:
        """``step``'s autoreset for a single game: keep its last observation, then reset.

        The same as the batched path's (``test_autoreset_equals_step_then_reset``).
        """
        done = bool(result.terminated[0] or result.truncated[0])
        result.final_rows = _ROW0.copy() if done else _ROW0[:0].copy()
        result.final_obs = self.observe() if done else np.zeros((0, self.obs_dim), np.float32)
        if done:
            self.reset()

    def _restart(self, ended: np.ndarray, finals: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """Keep the last observations of the episodes ``ended`` (bool[N]), then restart them."""
        finals.append((ended.nonzero()[0], self.final_observations(ended)))
        self._begin(ended)

    def _episode_over(self) -> np.ndarray:
        """bool[N]: games whose episode is over (hand mode: the hand; series: the series)."""
        return self.table.finished

    def _mark_end(self, result: StepResult, ended: np.ndarray) -> None:
        """Mark the episodes ``ended`` as terminated, or truncated by the max-turn draw.

        Only a hand-mode episode can end truncated: a series ends with a won hand.
        """
        truncated = ended & (self.engine.state.outcome == _TRUNCATED)
        result.truncated |= truncated
        result.terminated |= ended & ~truncated

    def _advance(self, active: np.ndarray, tally: StepResult, actions=None) -> bool:
        """One engine step in the ``active`` games only; the opponent decides if no actions.

        Returns:
            Whether a hand ended (and was scored into ``tally``).
        """
        if actions is None:
            rows = _ROW0 if self.n == 1 else active.nonzero()[0]
            actions = self._opponent_actions(rows)
        st = self.table.step(actions, active)
        if st.rows.size:
            self._score(st, tally)
            return True
        return False

    def _score(self, st: SeriesStep, tally: StepResult) -> None:
        """Add the hands that ended in ``st`` to ``tally``, from the agent's side."""
        rows, hands = st.rows, st.hands
        seat = self.agent_seat[rows]
        sign = np.where(hands.winner == seat, 1, np.where(hands.winner < 0, 0, -1))
        tally.hand_score[rows] += sign * hands.points.astype(np.int64)
        tally.hands_ended[rows] += 1
        tally.outcome[rows] = hands.outcome
        tally.hand_result[rows] = sign
        tally.agent_knocked[rows] = hands.knocker == seat
        if self.sheets is not None and st.series_over.any():
            done = np.flatnonzero(st.series_over)
            w = self.sheets.series_winner[done]
            tally.series_result[done] = np.where(
                w == self.agent_seat[done], 1, np.where(w < 0, 0, -1)
            )

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        """int64[N]: the opponent's actions in ``rows`` (0 elsewhere), one batched ``act``."""
        obs = None
        call = self._call
        if call.observes:
            obs = encode_observations(self.engine, 1 - self.agent_seat[rows], self.sheets, rows)
        masks = self.engine.legal_action_mask(copy=False)[rows]
        keys = None
        if call.keys:
            keys = hash_stream(self.engine.seeds[rows], self.opponent_moves[rows], Salt.OPPONENT)
        chosen = call(obs, masks, keys=keys, rows=rows)
        self.opponent_moves[rows] += 1
        chosen = np.asarray(chosen).reshape(-1).astype(np.int64)
        if chosen.shape != rows.shape:
            raise ValueError(
                f"the opponent policy returned {chosen.shape} actions for {rows.size} games"
            )
        j = _first_illegal(chosen, masks)
        if j >= 0:
            phase = Phase(int(self.engine.state.phase[rows[j]])).name
            who = f"game {int(rows[j])}: the opponent policy {type(self.opponent).__name__} chose "
            raise ValueError(illegal_action_message(chosen[j], masks[j], phase, who))
        if rows.size == self.n:  # every game (rows is ascending): no scatter
            return chosen
        actions = np.zeros(self.n, np.int64)
        actions[rows] = chosen
        return actions


@kernel
def _first_illegal(chosen: np.ndarray, masks: np.ndarray) -> int:
    """The first row whose action ``chosen[i]`` is not legal under ``masks[i]``, else -1."""
    for i in range(chosen.size):
        a = chosen[i]
        if a < 0 or a >= masks.shape[1] or not masks[i, a]:
            return i
    return -1

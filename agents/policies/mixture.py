"""A mixture of opponents in one policy: each game plays its own assigned opponent.

A batched environment holds one opponent policy. ``MixturePolicy`` is that policy when
the games of a batch should face different opponents: it keeps one assignment per game
(an index into its list of policies) and, on every ``act`` call, splits the rows by
assignment and makes one batched call per opponent.

A game keeps its opponent for a whole episode. Given the environment's per-game episode
counter (``follow_episodes``), the mixture redraws a game's opponent from the weights
the first time it acts in a new episode, and remembers which opponent played which
episode (``opponent_of``), for per-opponent statistics.

The environment calls ``act`` on a subset of its games (those where the opponent is to
act), so the mixture must know which games the rows are: either ``act(..., rows=...)``
passes them, or the caller sets ``mixture.rows`` just before the call.

Draws are per game: game g's k-th draw comes from ``hash(seed + g, k)``, so a game's
opponents do not depend on the other games of the batch. That is what lets
``shard(lo, hi)`` hand games ``[lo, hi)`` to an env worker process
(``hgin_env.envs.workers``) that then draws exactly what one process would, and
``per_game_state`` / ``mirror`` show the workers' assignments to the trainer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from hgin_env.engine.keys import Salt, fresh_seed, game_seed_rows, hash_stream, to_uniform
from hgin_env.envs.policy import Policy, PolicyCall

#: the per-game arrays of the assignment state (``per_game_state``)
STATE_ARRAYS = ("assignment", "assigned_episode", "previous", "previous_episode")


class MixturePolicy:
    """Route each game's decisions to its assigned policy.

    Args:
        policies: the opponents (policy objects; ``None`` for a slot filled later).
        names: one display name per policy.
        weights: sampling weights (>= 0, with a positive sum).
        n_games: games in the batch.
        seed: seed of the assignment draws (None: fresh entropy).
        first_game: the index of game 0 in the whole batch (a worker's share of it).

    Attributes:
        assignment: int64[n_games], the policy index of each game.
        assigned_episode: int64[n_games], the episode ``assignment`` was drawn for.
        previous: int64[n_games], the assignment before the last redraw.
        previous_episode: int64[n_games], the episode of ``previous``.
        rows: int64[M], the games of the next ``act`` call when it is not given ``rows``.
    """

    name = "mixture"

    def __init__(
        self,
        policies: Sequence[Policy | None],
        names: Sequence[str],
        weights: Sequence[float] | np.ndarray,
        n_games: int,
        seed: int | None = None,
        first_game: int = 0,
    ) -> None:
        if not len(policies) == len(names) == len(weights):
            raise ValueError("policies, names and weights must have the same length")
        self.policies: list[Policy | None] = list(policies)
        #: each slot's policy, inspected once (None for an empty slot)
        self._calls = [PolicyCall.of(p) if p is not None else None for p in self.policies]
        self.names = list(names)
        self.n_games = n_games
        if seed is None:
            seed = fresh_seed()
        self.seed = int(seed)
        self.first_game = int(first_game)
        self.draws = np.zeros(n_games, dtype=np.int64)  # draws made per game
        self.weights = np.zeros(len(policies))
        self.set_weights(weights)
        self.assignment = np.zeros(n_games, dtype=np.int64)
        self.assigned_episode = np.full(n_games, -1, dtype=np.int64)
        self.previous = np.zeros(n_games, dtype=np.int64)
        self.previous_episode = np.full(n_games, -1, dtype=np.int64)
        self.episodes: Callable[[], np.ndarray] | None = None
        self.rows: np.ndarray | None = None
        self.resample()

    # ------------------------------------------------------------------ weights, slots
    def set_weights(self, weights: Sequence[float] | np.ndarray) -> None:
        """Change the sampling weights (used from the next draw on).

        Raises:
            ValueError: wrong length, negative weights, or no positive weight.
        """
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (len(self.policies),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"need {len(self.policies)} weights >= 0 with a positive sum, got {w}")
        self.weights = w

    @property
    def probabilities(self) -> np.ndarray:
        """float[K]: the probability that a drawn game gets each policy."""
        return self.weights / self.weights.sum()

    def set_policy(self, index: int, policy: Policy, name: str) -> None:
        """Put ``policy`` in slot ``index`` (games assigned to the slot play it from now on)."""
        self.policies[index] = policy
        self._calls[index] = PolicyCall.of(policy)
        self.names[index] = name

    def counts(self) -> np.ndarray:
        """int64[K]: games currently assigned to each policy."""
        return np.bincount(self.assignment, minlength=len(self.policies))

    # ------------------------------------------------------------------ assignment
    def follow_episodes(self, episodes: Callable[[], np.ndarray]) -> None:
        """Redraw a game's opponent when ``episodes()[game]`` (its episode counter) changes."""
        self.episodes = episodes

    def resample(self, games: np.ndarray | None = None) -> None:
        """Draw a new opponent now for the selected games (bool[N] or int[M]; default all)."""
        rows = np.arange(self.n_games) if games is None else np.asarray(games)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        if rows.size:
            game = game_seed_rows(self.seed, self.first_game + rows)
            keys = hash_stream(game, self.draws[rows], Salt.MIXTURE_DRAW)
            uniform = to_uniform(keys)
            edges = np.cumsum(self.probabilities)
            pick = np.searchsorted(edges, uniform * edges[-1], side="right")
            self.assignment[rows] = np.minimum(pick, len(self.policies) - 1)
            self.draws[rows] += 1

    def _follow(self, rows: np.ndarray) -> None:
        """Redraw the opponents of the games in ``rows`` whose episode changed."""
        if self.episodes is None:
            return
        episode = np.asarray(self.episodes())[rows]
        stale = self.assigned_episode[rows] != episode
        if stale.any():
            games = rows[stale]
            self.previous[games] = self.assignment[games]
            self.previous_episode[games] = self.assigned_episode[games]
            self.resample(games)
            self.assigned_episode[games] = episode[stale]

    def opponent_of(
        self, games: Sequence[int] | np.ndarray, episodes: Sequence[int] | np.ndarray
    ) -> np.ndarray:
        """int64[M]: the slot that played episode ``episodes[j]`` of game ``games[j]``.

        -1 when the mixture never acted in that episode (the opponent made no move).
        """
        rows = np.asarray(games, dtype=np.int64)
        want = np.asarray(episodes, dtype=np.int64)
        return np.select(
            [self.assigned_episode[rows] == want, self.previous_episode[rows] == want],
            [self.assignment[rows], self.previous[rows]],
            -1,
        )

    # ------------------------------------------------------------------ worker processes
    def shard(self, lo: int, hi: int) -> MixturePolicy:
        """A mixture of games ``[lo, hi)`` only, which draws what this one would for them.

        The same policies, names, weights and seed; the games' assignment state is copied.
        """
        part = MixturePolicy(
            self.policies, self.names, self.weights, hi - lo, self.seed, self.first_game + lo
        )
        for name in (*STATE_ARRAYS, "draws"):
            getattr(part, name)[:] = getattr(self, name)[lo:hi]
        return part

    def per_game_state(self) -> dict[str, np.ndarray]:
        """The per-game assignment arrays (``STATE_ARRAYS``), by name."""
        return {name: getattr(self, name) for name in STATE_ARRAYS}

    def mirror(self, state: dict[str, np.ndarray], episodes: Callable[[], np.ndarray]) -> None:
        """Read the assignment from ``state`` (arrays kept up to date elsewhere) from now on.

        The trainer's copy of a mixture whose games play in env workers: ``counts`` and
        ``opponent_of`` then report the workers' assignments; this copy must not ``act``
        or ``resample`` (the workers do).
        """
        for name in STATE_ARRAYS:
            setattr(self, name, state[name])
        self.episodes = episodes

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["episodes"] = None  # a callable bound to this process's env
        state["rows"] = None
        return state

    # ------------------------------------------------------------------ acting
    def act(
        self,
        observations: np.ndarray | None,
        action_masks: np.ndarray,
        rows: np.ndarray | None = None,
        keys: np.ndarray | None = None,
    ) -> np.ndarray:
        """Return int64[M] actions, each row decided by its game's assigned policy.

        Args:
            observations: float32[M, D] (or None when no policy reads them).
            action_masks: bool[M, 107].
            rows: int[M] the games of the rows (default: ``self.rows``, else all games).
            keys: uint64[M] per-game random keys from the environment, passed on to the
                policies that accept them (``hgin_env.envs.policy.PolicyCall``).
        """
        m = len(action_masks)
        if rows is None:
            rows = self.rows if self.rows is not None else np.arange(m)
        rows = np.asarray(rows, dtype=np.int64)
        if rows.shape != (m,):
            raise ValueError(f"MixturePolicy got {m} rows but {rows.size} game indices")
        self._follow(rows)
        who = self.assignment[rows]
        actions = np.zeros(m, dtype=np.int64)
        for k in np.unique(who):
            pick = who == k
            call = self._calls[k]
            if call is None:
                raise ValueError(f"MixturePolicy slot {k} ({self.names[k]}) holds no policy")
            obs = observations[pick] if observations is not None else None
            part = keys[pick] if keys is not None else None
            chosen = call(obs, action_masks[pick], keys=part)
            actions[pick] = np.asarray(chosen).reshape(-1)
        return actions

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from hgin_env.envs.policy import Policy, accepts_keys


class MixturePolicy:
    """Route each game's decisions to its assigned policy.

    Args:
        policies: the opponents (policy objects; ``None`` for a slot filled later).
        names: one display name per policy.
        weights: sampling weights (>= 0, with a positive sum).
        n_games: games in the batch.
        seed: seed of the assignment stream.

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
    ) -> None:
        if not len(policies) == len(names) == len(weights):
            raise ValueError("policies, names and weights must have the same length")
        self.policies: list[Policy | None] = list(policies)
        self.names = list(names)
        self.n_games = n_games
        self.rng = np.random.default_rng(seed)
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
            self.assignment[rows] = self.rng.choice(
                len(self.policies), size=rows.size, p=self.probabilities
            )

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
                policies that accept them (``hgin_env.envs.policy.accepts_keys``).
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
            policy = self.policies[k]
            if policy is None:
                raise ValueError(f"MixturePolicy slot {k} ({self.names[k]}) holds no policy")
            obs = observations[pick] if observations is not None else None
            if keys is not None and accepts_keys(policy):
                chosen = policy.act(obs, action_masks[pick], keys=keys[pick])
            else:
                chosen = policy.act(obs, action_masks[pick])
            actions[pick] = np.asarray(chosen).reshape(-1)
        return actions

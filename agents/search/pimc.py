"""``pimc``: a batched determinized (perfect-information Monte Carlo) search policy.

At every decision it searches (``decisions``) it samples ``worlds`` deals of what the
seat cannot see (``agents.search.worlds``), plays every candidate action in every world
to the end of the hand (``agents.search.rollouts``: the ``rollout`` policy playing both
seats, or, with ``own``, only the opponent's, ``own`` playing the searching seat), and
takes the action with the best mean value; the same worlds and the same rollout random
numbers serve every candidate (common random numbers). Values (``objective``):

- ``series`` (default): the seat's chance of winning the series after the hand
  (``agents.search.series_value``), so a hand's points count by what they do on the
  score sheet; in hand mode (no score sheet in the observation) it falls back to points;
- ``points``: the hand's points, + for the seat, - for the opponent.

One ``act`` call searches all its games together: every (game, candidate, world) is one
row of one engine batch, and each rollout step is one batched call of the rollout
policy. It leaves the prior's choice (the rollout policy's own, or the ``prior``
policy's) only for a candidate whose gain over it is more than ``z`` standard errors
(the worlds are few and a hand's points noisy). The worlds are uniform deals of the
unseen cards, or (``belief=deadwood``) resampled so the opponent's hand is as good as a
real player's at this turn (``worlds.believed_worlds``). With ``close``, the decisions
the prior (a network) is unsure of are searched between its two best actions.
Random numbers come from the per-game ``keys`` (else from the seeded stream), so a game
decides the same alone, in a batch or in a worker process.

The parameters and their spec are ``agents.search.params``; the named versions
(``searcher@N``) are ``agents.search.searchers``. The rollouts play each game's hand
rules (knock limit, gin, undercut and big-gin bonuses) as its observation's rules block
gives them (in a mix every game has its own; ``rule_groups``), so a rules option in the
spec matters only for the options the observation does not carry.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from agents.bots.features import decision_keys
from agents.search.params import PimcParams, parse_params
from agents.search.rollouts import Rollouts
from agents.search.series_value import series_values
from agents.search.worlds import (
    SeenPosition,
    believed_worlds,
    sample_worlds,
    seen_position,
    world_keys,
)
from hgin_env.engine.actions import DRAW, KNOCK, N_ACTIONS, knock_legal
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.envs.observation import decode_observations, discard_deadwood
from hgin_env.envs.policy import Policy, PolicyCall, PolicyLoadError


def load_player(spec: str, seed: int | None, rules: RulesConfig) -> Policy:
    """A rollout or prior policy by name (the simple bot gets the search's rules)."""
    from agents.policies.model import load_policy

    if spec == "simple":
        from agents.bots.simple import SimpleBot

        return SimpleBot(seed, rules=rules)
    return load_policy(spec, seed)


class PimcPolicy:
    """The determinized search (see the module docstring).

    Args:
        params: the search's parameters.
        seed: seed of the random stream used when ``act`` gets no per-game keys.
    """

    def __init__(self, params: PimcParams | None = None, seed: int | None = None) -> None:
        from agents.policies.model import load_policy

        self.params = params or PimcParams()
        self.name = self.params.spec()
        #: the exact name the evaluator records: the spec itself for a plain ``pimc``
        #: spec (no version), ``searcher@N`` for a named version (``searchers``)
        self.spec: str | None = None
        self.rng = np.random.default_rng(seed)
        self.rollout = load_player(self.params.rollout, seed, self.params.rules)
        self.prior = load_policy(self.params.prior, seed) if self.params.prior else self.rollout
        self._prior_call = PolicyCall.of(self.prior)
        logits = getattr(self.prior, "logits", None)
        if self.params.close and not callable(logits):
            name = getattr(self.prior, "name", self.params.prior or self.params.rollout)
            raise PolicyLoadError(f"pimc parameter close needs a network as the prior, not {name}")
        self._prior_logits = logits
        own = None
        if self.params.own:
            same = self.params.own == self.params.prior
            own = self.prior if same else load_policy(self.params.own, seed)
        self.rollouts = Rollouts(self.rollout, own)

    @property
    def rollout_actions(self) -> int:
        """Engine actions taken inside rollouts since construction (for the benchmarks)."""
        return self.rollouts.actions

    def seed(self, seed: int | None) -> None:
        """Restart the random stream."""
        self.rng = np.random.default_rng(seed)

    def act(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        keys: np.ndarray | None = None,
    ) -> np.ndarray:
        """Return one legal action per row: the best mean over the sampled worlds.

        Args:
            observations: float32[N, OBS_DIM] of the seats to act.
            action_masks: bool[N, 107].
            keys: optional uint64[N], one fresh key per game and decision.
        """
        masks = np.asarray(action_masks, dtype=bool).reshape(-1, N_ACTIONS)
        n = masks.shape[0]
        keys = decision_keys(keys, self.rng, n)
        prior = np.asarray(self._prior_call(observations, masks, keys=keys)).astype(np.int64)
        actions = prior.copy()
        obs = np.asarray(observations)
        cands = self.searched_candidates(obs, masks, keys, prior)
        todo = np.flatnonzero(cands.sum(axis=1) > 1)
        for rows, rules in rule_groups(obs, todo, self.params.rules):
            actions[rows] = self._choose(
                obs[rows], masks[rows], cands[rows], keys[rows], prior[rows], rules
            )
        return actions

    def searched_candidates(
        self, obs: np.ndarray, masks: np.ndarray, keys: np.ndarray, prior: np.ndarray
    ) -> np.ndarray:
        """bool[N, 107]: each row's candidates under ``decisions``.

        A row whose decision is not searched has the prior's choice alone.
        """
        if self.params.decisions == "all":
            return candidates(obs, masks, prior, self.params.top)
        searched = self.params.decisions
        cands = np.zeros_like(masks)
        cands[np.arange(masks.shape[0]), prior] = True
        if "knock" in searched:
            cands |= self._knock_candidates(obs, masks, keys, prior)
        if "draw" in searched:
            draws = np.flatnonzero(masks[:, DRAW:].any(axis=1))
            cands[draws] = masks[draws]
        if self.params.close:
            cands |= self._close_calls(obs, masks, cands)
        return cands

    def _close_calls(self, obs: np.ndarray, masks: np.ndarray, cands: np.ndarray) -> np.ndarray:
        """bool[N, 107]: the prior's two best legal actions where they are close.

        Only in the rows not yet searched (one candidate) whose two most likely legal
        actions are less than ``close`` apart in the prior's logits; no action elsewhere.
        """
        out = np.zeros_like(masks)
        rows = np.flatnonzero((cands.sum(axis=1) == 1) & (masks.sum(axis=1) >= 2))
        if rows.size == 0:
            return out
        assert self._prior_logits is not None  # checked when built
        logits = np.where(masks[rows], self._prior_logits(obs[rows]), -np.inf)
        two = np.argsort(-logits, axis=1, kind="stable")[:, :2]
        best, second = np.take_along_axis(logits, two, axis=1).T
        near = best - second < self.params.close
        out[rows[near, None], two[near]] = True
        return out

    def _knock_candidates(
        self, obs: np.ndarray, masks: np.ndarray, keys: np.ndarray, prior: np.ndarray
    ) -> np.ndarray:
        """bool[N, 107]: knock now against go on, in the rows where a knock is legal.

        The candidates of such a row are the least-deadwood knock, the prior's choice, the
        prior's best non-knock discard (its own choice had it not been let knock: "go on")
        and, with ``top=K > 0``, the ``K`` least-deadwood discards (``candidates``); every
        other row has the prior's choice alone, so it is not searched.
        """
        out = np.zeros_like(masks)
        out[np.arange(masks.shape[0]), prior] = True
        rows = np.flatnonzero(knock_legal(masks))
        if rows.size == 0:
            return out
        go_on = masks[rows].copy()
        go_on[:, KNOCK : KNOCK + N_CARDS] = False
        on = np.asarray(self._prior_call(obs[rows], go_on, keys=keys[rows])).astype(np.int64)
        cands = candidates(obs[rows], masks[rows], prior[rows], self.params.top)
        if self.params.top == 0:
            cands[:, :N_CARDS] = False
        cands[np.arange(rows.size), on] = True
        cands[np.arange(rows.size), prior[rows]] = True
        out[rows] = cands & masks[rows]
        return out

    def _choose(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        cands: np.ndarray,
        keys: np.ndarray,
        prior: np.ndarray,
        rules: RulesConfig,
    ) -> np.ndarray:
        """int64[G]: the chosen action of G games that play under ``rules``."""
        seen = seen_position(obs, masks, rules)
        values, gain, error = self.candidate_values(seen, cands, keys, prior, rules)
        # leave the prior's choice only for a candidate clearly better than it
        clear = gain > self.params.z * np.where(np.isfinite(error), error, 1e300)
        clear[np.arange(prior.size), prior] = True
        return np.where(clear, values, -np.inf).argmax(axis=1)

    def candidate_values(
        self,
        seen: SeenPosition,
        masks: np.ndarray,
        keys: np.ndarray,
        prior: np.ndarray,
        rules: RulesConfig | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each candidate's mean value over the worlds, and its gain over the prior's choice.

        Args:
            seen: the positions of G games.
            masks: bool[G, 107], the candidates (legal actions) of each game; each game's
                ``prior`` among them.
            keys: uint64[G], the games' decision keys.
            prior: int[G], the prior's choice in each game.
            rules: the rules the G games play under (default the spec's).

        Returns:
            ``(values, gain, error)``, float64[G, 107] each (-inf / 0 / inf where not
            a candidate): the mean value, the mean of the per-world difference to the
            prior's candidate (same worlds: common random numbers), and its standard
            error.
        """
        rules = rules or self.params.rules
        w = self.params.worlds
        g = masks.shape[0]
        if self.params.belief == "deadwood":
            worlds, wkeys = believed_worlds(seen, keys, w)  # G * W rows
        else:
            wkeys = world_keys(keys, w)  # [G, W]
            worlds = sample_worlds(seen, wkeys)
        game, cand = np.nonzero(masks)  # one entry per (game, candidate)
        weight = np.ones((game.size, w))  # [E, W]: every world counts the same
        entry_of = np.full((g, N_ACTIONS), -1)
        entry_of[game, cand] = np.arange(game.size)
        is_prior = cand == prior[game]
        per_world = np.zeros((game.size, w))  # [E, W]
        alive = np.ones(game.size, dtype=bool)
        bounds = np.linspace(0, w, min(self.params.rounds, w) + 1).astype(np.int64)
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            e = np.flatnonzero(alive)
            span = np.arange(lo, hi)
            # rows: (entry, world); the world's row in ``worlds`` is game * W + world
            world_row = (game[e][:, None] * w + span[None, :]).reshape(-1)
            games = np.repeat(game[e], span.size)
            winner, points = self.rollouts.play_out(
                worlds.rows(world_row), np.repeat(cand[e], span.size),
                wkeys.reshape(-1)[world_row], self.rollouts.sheets(seen.sheets, games), rules,
            )  # fmt: skip
            value = self._values(seen.sheets, games, winner, points)
            per_world[e[:, None], span[None, :]] = value.reshape(e.size, span.size)
            if hi < w:
                alive &= _better_half(per_world[:, :hi], weight[:, :hi], game, alive) | is_prior
        e = np.flatnonzero(alive)
        diff = per_world[e] - per_world[entry_of[game[e], prior[game[e]]]]
        chosen, mean_diff, error_of = _weighted_stats(per_world[e], diff, weight[e], slice(0, w))
        values = np.full((g, N_ACTIONS), -np.inf)
        gain = np.zeros((g, N_ACTIONS))
        error = np.full((g, N_ACTIONS), np.inf)
        values[game[e], cand[e]] = chosen
        gain[game[e], cand[e]] = mean_diff
        error[game[e], cand[e]] = error_of
        return values, gain, error

    def _values(
        self,
        sheets: ScoreSheets | None,
        game: np.ndarray,
        winner: np.ndarray,
        points: np.ndarray,
    ) -> np.ndarray:
        """float64[R]: each outcome's value for seat 0 (the searching seat)."""
        signed = np.where(winner == 0, points, np.where(winner == 1, -points, 0))
        if self.params.objective == "points" or sheets is None:
            return signed.astype(np.float64)
        # the chance of winning the series after recording each outcome on a copy
        after = sheets.rows(game)
        after.record(winner, points)
        return series_values(after, 0)


def _better_half(
    per_world: np.ndarray, weight: np.ndarray, game: np.ndarray, alive: np.ndarray
) -> np.ndarray:
    """bool[E]: the entries among ``alive`` in the better half of their game's (rounded up).

    Args:
        per_world: float64[E, W'] the values over the worlds played so far.
        weight: float64[E, W'] the worlds' weights.
        game: int[E] each entry's game (entries of a game are contiguous).
        alive: bool[E] the entries still searched.
    """
    mean = (per_world * weight).sum(axis=1) / weight.sum(axis=1)
    # within each game, best first: sort by game, then by mean descending (ties: entry order)
    order = np.lexsort((np.arange(game.size), -np.where(alive, mean, -np.inf), game))
    first_of_game = np.searchsorted(game[order], game[order], side="left")
    rank = np.empty(game.size, dtype=np.int64)
    rank[order] = np.arange(game.size) - first_of_game
    count = np.bincount(game[alive], minlength=int(game.max()) + 1)[game]
    return alive & (rank < (count + 1) // 2)


def _weighted_stats(
    per_world: np.ndarray, diff: np.ndarray, weight: np.ndarray, part: slice
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted mean value, mean difference and its standard error over the worlds ``part``."""
    w = weight[:, part] / weight[:, part].sum(axis=1, keepdims=True)
    effective = 1.0 / (w**2).sum(axis=1)  # the worlds' effective number
    d = diff[:, part]
    mean_diff = (w * d).sum(axis=1)
    spread = np.sqrt((w * (d - mean_diff[:, None]) ** 2).sum(axis=1))
    return (w * per_world[:, part]).sum(axis=1), mean_diff, spread / np.sqrt(effective)


def rule_groups(
    obs: np.ndarray, rows: np.ndarray, base: RulesConfig
) -> list[tuple[np.ndarray, RulesConfig]]:
    """``rows`` grouped by the hand rules their observations carry, each with its rules.

    The observation's rules block gives each game's knock limit and bonuses (in a mix of
    rule sets every game has its own); the other options come from ``base`` (the spec's).
    """
    if rows.size == 0:
        return []
    d = decode_observations(obs[rows])
    big = np.where(d.big_gin, d.big_gin_bonus, -1)
    table = np.stack([d.knock_limit, d.gin_bonus, d.undercut_bonus, big], axis=1)
    kinds, which = np.unique(table, axis=0, return_inverse=True)
    groups = []
    for k, (limit, gin, undercut, big_bonus) in enumerate(kinds.tolist()):
        rules = dataclasses.replace(
            base, knock_limit=limit, gin_bonus=gin, undercut_bonus=undercut,
            big_gin_bonus=None if big_bonus < 0 else big_bonus,
        )  # fmt: skip
        groups.append((rows[which.reshape(-1) == k], rules))
    return groups


def candidates(
    observations: np.ndarray, masks: np.ndarray, prior: np.ndarray, top: int
) -> np.ndarray:
    """bool[N, 107]: the actions searched (see ``PimcParams.top``); always the prior's ``prior``."""
    out = masks.copy()
    rows = np.flatnonzero(masks[:, :N_CARDS].any(axis=1))
    if rows.size == 0:
        return out
    dd = discard_deadwood(np.asarray(observations)[rows]).astype(np.float64)
    # ties: the higher card id first (a king before a queen), as a tiny offset
    score = dd - np.arange(N_CARDS) * 1e-3
    knocks = masks[rows, KNOCK : KNOCK + N_CARDS]
    best_knock = np.where(knocks, score, np.inf).argmin(axis=1)
    keep = np.zeros_like(knocks)
    keep[np.arange(rows.size), best_knock] = True
    out[rows, KNOCK : KNOCK + N_CARDS] = knocks & keep
    if top > 0:
        discards = masks[rows, :N_CARDS]
        order = np.argsort(np.where(discards, score, np.inf), axis=1, kind="stable")
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(N_CARDS)[None, :], axis=1)
        out[rows, :N_CARDS] = discards & (rank < top)
    out[np.arange(out.shape[0]), prior] = True
    return out & masks


def make_pimc(params: str, seed: int | None) -> PimcPolicy:
    """``pimc:PARAMS`` -> a ``PimcPolicy`` (``params``: the text after ``pimc:``)."""
    return PimcPolicy(parse_params(params), seed)

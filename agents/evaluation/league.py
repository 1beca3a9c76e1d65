"""The league: a round robin of ``evaluate`` over every pair, matrices and ratings."""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence

import numpy as np

from agents.evaluation.match import (
    MAX_HANDS_PER_SERIES,
    MatchJob,
    MatchPlan,
    PolicyLike,
    Runner,
    check_evaluation,
    local,
    players,
    policy_name,
    policy_version,
    start_match,
    summarize,
)
from agents.evaluation.results import EvalResult, LeagueResult, Rating, jsonable
from agents.evaluation.stats import RATING_METHOD, bradley_terry, rating_draws
from agents.policies.model import load_policy
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import SeedStream, sub_seed
from hgin_env.envs.policy import Policy


def league_players(
    policies: Sequence[PolicyLike] | Mapping[str, PolicyLike], seed: int
) -> tuple[list[str], list[Policy]]:
    """The league's names and loaded policies (every one loaded before any game).

    Raises:
        ValueError: fewer than two players or a repeated name; ``PolicyLoadError`` for a
            policy that cannot be loaded.
    """
    items = (
        list(policies.items())
        if isinstance(policies, Mapping)
        else [(str(p) if isinstance(p, str) else None, p) for p in policies]
    )
    if len(items) < 2:
        raise ValueError(f"a league needs at least two players, got {len(items)}")
    loaded = [load_policy(spec, seed) for _, spec in items]
    names = [
        name or policy_name(spec, pol) for pol, (name, spec) in zip(loaded, items, strict=True)
    ]
    if len(set(names)) != len(names):
        raise ValueError(f"league players must have distinct names, got {names}")
    return names, loaded


def league(
    policies: Sequence[PolicyLike] | Mapping[str, PolicyLike],
    n_series: int,
    seed: int = 0,
    rules: RulesConfig | None = None,
    duplicate: bool = False,
    progress: bool = True,
    n_rating_draws: int = 1000,
    runner: Runner = local,
) -> LeagueResult:
    """Round robin: ``evaluate`` every pair once, then matrices and Bradley-Terry ratings.

    Args:
        policies: names / model paths, or a mapping name -> policy (or spec).
        n_series: deal sequences per pair (the same ones for every pair).
        seed: the seed of every pair's evaluation and of the rating draws.
        rules: rules options.
        duplicate: duplicate mode for every pair.
        progress: progress bars.
        n_rating_draws: posterior draws for the rating intervals.
        runner: where the series play (``local``, ``processes(K)``, ``ray(address)``, as
            for ``evaluate``); every pair is started before any is waited for.

    Returns:
        The ``LeagueResult``.

    Raises:
        ValueError: fewer than two players or a repeated name; ``PolicyLoadError`` for a
            policy that cannot be loaded (checked before any game is played).
    """
    check_evaluation(n_series, seed)
    rules = rules or RulesConfig()
    names, resolved = league_players(policies, seed)
    start = time.perf_counter()
    plan = MatchPlan.make(n_series, seed, duplicate)
    combos = list(itertools.combinations(range(len(names)), 2))
    with runner.session():
        waits = [
            start_match(runner, MatchJob(
                *players(resolved[i], resolved[j], seed), plan, rules, MAX_HANDS_PER_SERIES,
                (names[i], names[j]), seed,
            ), progress)
            for i, j in combos
        ]  # fmt: skip
        played = [wait() for wait in waits]
    pairs = [
        summarize(
            tally, name_a=names[i], name_b=names[j], seed=seed, duplicate=duplicate,
            rules=rules, deal_sequences=n_series, seconds=seconds, steps=steps,
            version_a=policy_version(resolved[i]), version_b=policy_version(resolved[j]),
        )
        for (i, j), (tally, steps, seconds) in zip(combos, played, strict=True)
    ]  # fmt: skip
    return summarize_league(names, pairs, n_series, seed, duplicate, n_rating_draws, start)


def summarize_league(
    names: list[str],
    pairs: list[EvalResult],
    n_series: int,
    seed: int,
    duplicate: bool,
    n_rating_draws: int,
    start: float,
) -> LeagueResult:
    """Matrices and ratings of a league from its pairs (``itertools.combinations`` order)."""
    k = len(names)
    matrices: dict[str, list[list[float | None]]] = {
        key: [[None] * k for _ in range(k)] for key in ("series", "hand", "points")
    }
    wins = np.zeros((k, k))
    for (i, j), res in zip(itertools.combinations(range(k), 2), pairs, strict=True):
        matrices["series"][i][j] = res.series_win_rate
        matrices["series"][j][i] = res.series_lost / res.n_series
        matrices["hand"][i][j] = res.hand_win_rate
        matrices["hand"][j][i] = res.hands_lost / res.hands if res.hands else 0.0
        matrices["points"][i][j] = res.points_per_hand
        matrices["points"][j][i] = -res.points_per_hand
        wins[i, j], wins[j, i] = res.series_won, res.series_lost
    rating = bradley_terry(wins)
    draws = rating_draws(wins, n_rating_draws, sub_seed(seed, SeedStream.RATINGS))
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    ratings = [Rating(names[i], float(rating[i]), float(low[i]), float(high[i])) for i in range(k)]
    gaps = draws[:, :, None] - draws[:, None, :]  # [D, K, K]: row minus column
    gap_low, gap_high = np.percentile(gaps, [2.5, 97.5], axis=0)
    rating_gaps = [
        [
            None if a == b else [float(rating[a] - rating[b]), gap_low[a, b], gap_high[a, b]]
            for b in range(k)
        ]
        for a in range(k)
    ]
    return LeagueResult(
        names=names,
        n_series=n_series,
        seed=seed,
        duplicate=duplicate,
        pairs=pairs,
        series_win_rate=matrices["series"],
        hand_win_rate=matrices["hand"],
        points_per_hand=matrices["points"],
        ratings=ratings,
        rating_gaps=jsonable(rating_gaps),
        rating_method=RATING_METHOD.format(n=n_rating_draws),
        seconds=time.perf_counter() - start,
    )

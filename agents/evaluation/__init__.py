"""Evaluate policies against each other over full Hollywood series.

- ``match``: the match driver (``evaluate``, ``play_series`` on a ``MatchPlan``), the one
  ``shard_bounds`` and the ``local`` runner;
- ``parallel``, ``ray_shards``: the ``processes(K)`` and ``ray(address)`` runners
  (``evaluate(..., runner=processes(4))``: the same result, split);
- ``tally``: the raw per-series counts and the one definition of every metric;
- ``stats``: confidence intervals and Bradley-Terry ratings;
- ``league``: the round robin;
- ``results``: the result types (``EvalResult``, ``LeagueResult``);
- ``report``: tables for people (``evaluate.py`` prints these);
- ``hand_eval``: single-hand evaluation (the trainer's), ``transcript``: recorded hands.
"""

from __future__ import annotations

from agents.evaluation.league import league
from agents.evaluation.match import (
    MAX_HANDS_PER_SERIES,
    MatchPlan,
    Runner,
    evaluate,
    local,
    play_series,
    policy_name,
    seating,
    shard_bounds,
    summarize,
)
from agents.evaluation.parallel import processes
from agents.evaluation.results import EvalResult, LeagueResult, PlayerStats, Rating
from agents.evaluation.stats import bradley_terry, wilson_interval
from agents.evaluation.tally import MatchTally


def ray(address: str | None = None, shards: int | None = None) -> Runner:
    """The runner that plays each match as Ray tasks (``ray_shards.RayRunner``; Ray on use)."""
    from agents.evaluation.ray_shards import RayRunner

    return RayRunner(address, shards)


__all__ = [
    "MAX_HANDS_PER_SERIES",
    "EvalResult",
    "LeagueResult",
    "MatchPlan",
    "MatchTally",
    "PlayerStats",
    "Rating",
    "Runner",
    "bradley_terry",
    "evaluate",
    "league",
    "local",
    "play_series",
    "policy_name",
    "processes",
    "ray",
    "seating",
    "shard_bounds",
    "summarize",
    "wilson_interval",
]

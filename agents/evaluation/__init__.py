"""Evaluate policies against each other over full Hollywood series.

- ``match``: the match driver (``evaluate``, ``play_series`` on a ``MatchPlan``);
- ``tally``: the raw per-series counts and the one definition of every metric;
- ``stats``: confidence intervals and Bradley-Terry ratings;
- ``league``: the round robin;
- ``results``: the result types (``EvalResult``, ``LeagueResult``);
- ``report``: tables for people (``evaluate.py`` prints these).
"""

from __future__ import annotations

from agents.evaluation.league import league
from agents.evaluation.match import (
    MAX_HANDS_PER_SERIES,
    MatchPlan,
    evaluate,
    play_series,
    policy_name,
    seating,
    summarize,
)
from agents.evaluation.results import EvalResult, LeagueResult, PlayerStats, Rating
from agents.evaluation.stats import bradley_terry, wilson_interval
from agents.evaluation.tally import MatchTally

__all__ = [
    "MAX_HANDS_PER_SERIES",
    "EvalResult",
    "LeagueResult",
    "MatchPlan",
    "MatchTally",
    "PlayerStats",
    "Rating",
    "bradley_terry",
    "evaluate",
    "league",
    "play_series",
    "policy_name",
    "seating",
    "summarize",
    "wilson_interval",
]

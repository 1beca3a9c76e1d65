"""The Hollywood Gin rules engine: numpy only, batched over N games."""

from __future__ import annotations

from hgin_env.engine.actions import DRAW, KNOCK, N_ACTIONS, PASS, TAKE, action_text, parse_action
from hgin_env.engine.cards import card_text, format_cards, parse_cards
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, HandState, Outcome, Phase
from hgin_env.engine.hollywood import ScoreSheet, ScoreSheets
from hgin_env.engine.knock import KnockOutcome, KnockResult, resolve_knocks, score_knock
from hgin_env.engine.melds import (
    best_melds,
    deadwood_after_discard,
    knock_discards,
    min_deadwood,
)
from hgin_env.engine.series import SeriesEngine, SeriesStep

__all__ = [
    "DRAW",
    "KNOCK",
    "N_ACTIONS",
    "PASS",
    "TAKE",
    "GinEngine",
    "HandState",
    "KnockOutcome",
    "KnockResult",
    "Outcome",
    "Phase",
    "RulesConfig",
    "ScoreSheet",
    "ScoreSheets",
    "SeriesEngine",
    "SeriesStep",
    "action_text",
    "best_melds",
    "card_text",
    "deadwood_after_discard",
    "format_cards",
    "knock_discards",
    "min_deadwood",
    "parse_action",
    "parse_cards",
    "resolve_knocks",
    "score_knock",
]

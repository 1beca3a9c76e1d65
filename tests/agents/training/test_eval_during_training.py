"""Evaluation during training: the series' and the single hands' figures under their own names."""

from __future__ import annotations

import pytest

from agents.evaluation import evaluate
from agents.evaluation.hand_eval import evaluate_hands
from agents.policies.model import load_policy
from agents.training.config import EvalConfig
from agents.training.eval_record import evaluate_opponent
from hgin_env.engine.config import RulesConfig

SEED = 11


def summary(n_series: int, n_hands: int) -> dict[str, float]:
    """``evaluate_opponent``'s summary of ``simple`` against ``random``."""
    cfg = EvalConfig(n_series=n_series, n_hands=n_hands, max_hands_per_series=30, seed=SEED)
    agent, opponent = load_policy("simple", SEED), load_policy("random", SEED)
    return evaluate_opponent(agent, "random", opponent, cfg, RulesConfig(), SEED)["summary"]


@pytest.fixture(scope="module")
def both() -> dict[str, float]:
    """The summary with series and single hands both measured."""
    return summary(n_series=2, n_hands=40)


def test_both_kinds_keep_their_own_figures(both) -> None:
    """With series and single hands, each kind's figures stay under its own names."""
    series = evaluate(
        load_policy("simple", SEED), load_policy("random", SEED), 2, seed=SEED,
        progress=False, max_hands_per_series=30, name_a="agent", name_b="random",
    )  # fmt: skip
    hands = evaluate_hands(load_policy("simple", SEED), load_policy("random", SEED), 40, SEED)
    assert both["series_win_rate"] == series.series_win_rate
    assert both["series_hand_win_rate"] == series.hand_win_rate
    assert both["series_points_per_hand"] == series.points_per_hand
    assert both["series_gin_rate"] == series.a.gin_rate
    assert both["hand_win_rate"] == hands.hand_win_rate
    assert both["points_per_hand"] == hands.points_per_hand
    assert both["gin_rate"] == hands.gin_rate


def test_series_alone_fill_the_plain_names(both) -> None:
    """With no single hands, the plain names hold the series' hand figures (best_metric)."""
    alone = summary(n_series=2, n_hands=0)
    assert alone["hand_win_rate"] == alone["series_hand_win_rate"] == both["series_hand_win_rate"]
    assert alone["points_per_hand"] == alone["series_points_per_hand"]

"""The training charts count wins, knocks and undercuts from the engine's facts."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from agents.training.sb3.callbacks import HandStatsCallback
from hgin_env.engine.game import Outcome


class OneOpponent:
    """The training opponents of a run against ``simple`` alone."""

    pool = None

    def opponent_group(self, game: int, ended: bool) -> str:
        """Every game plays ``simple``."""
        return "simple"

    def shares(self) -> dict[str, float]:
        """All games against ``simple``."""
        return {"simple": 1.0}


class Recorder:
    """An SB3 logger that keeps what was recorded."""

    def __init__(self) -> None:
        self.values: dict[str, float] = {}

    def record(self, key: str, value: float) -> None:
        """Keep ``value`` under ``key``."""
        self.values[key] = float(value)


def hand(score: int, outcome: Outcome, result: int, knocked: bool) -> dict:
    """The info of a game whose hand ended (the keys the VecEnv puts there)."""
    return {"hands_ended": 1, "hand_score": score, "outcome": int(outcome),
            "hand_result": result, "agent_knocked": knocked}  # fmt: skip


def charts(*infos: dict) -> dict[str, float]:
    """What the callback logs after one step in which these games' hands ended."""
    callback = HandStatsCallback(OneOpponent(), window=100)  # type: ignore[arg-type]
    logger = Recorder()
    callback.model = SimpleNamespace(policy=None, logger=logger)  # type: ignore[assignment]
    callback.decisions = np.zeros(len(infos), np.int64)
    callback.locals = {"infos": list(infos), "dones": np.ones(len(infos), bool)}
    callback._on_step()
    callback._on_rollout_end()
    return logger.values


def test_an_undercut_worth_no_points_is_a_knock_undercut_and_a_loss():
    """undercut_bonus 0 and equal deadwood: 0 points, yet the agent knocked and lost."""
    logged = charts(
        hand(0, Outcome.UNDERCUT, -1, True),  # the agent knocked, undercut for 0 points
        hand(12, Outcome.KNOCK, 1, True),
        hand(-25, Outcome.GIN, -1, False),
        hand(0, Outcome.DRAW, 0, False),
    )
    assert logged["charts/knock_rate"] == 0.5
    assert logged["charts/undercut_rate"] == 0.5  # one of the agent's two knocks
    assert logged["charts/hand_win_rate"] == 0.25
    assert logged["charts/draw_rate"] == 0.25  # the stock ran out once; the undercut is no draw
    assert logged["charts/gin_rate"] == 0.0 and logged["charts/points_per_hand"] == -13 / 4

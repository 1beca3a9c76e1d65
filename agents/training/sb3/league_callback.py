"""The league's training callback: records each member's results and re-weights it.

``LeagueCallback`` keeps ``agents.training.league.League``'s records from the hands the
learner finishes and re-weights the opponents every rollout. It observes the run only:
the runner trains the league's exploiters between two updates
(``agents.training.sb3.runner.SB3Session``). Apart from ``league.py`` so that the
league's bookkeeping imports neither the opponents nor SB3.
"""

from __future__ import annotations

from stable_baselines3.common.callbacks import BaseCallback

from agents.training.checkpoint import TrainState
from agents.training.league import League, hand_score
from agents.training.opponents import TrainingOpponents


class LeagueCallback(BaseCallback):
    """Keeps the league's records and re-weights it every rollout.

    Args:
        opponents: the training opponents (their ``league`` is set).
        state: the run's ``TrainState`` (its ``league`` entry is kept up to date).
    """

    def __init__(self, opponents: TrainingOpponents, state: TrainState) -> None:
        super().__init__()
        self.opponents = opponents
        self.state = state
        assert opponents.league is not None
        self.league: League = opponents.league

    def _on_step(self) -> bool:
        infos, dones = self.locals["infos"], self.locals["dones"]
        for i, info in enumerate(infos):
            if info.get("hands_ended"):
                slot = self.opponents.opponent_slot(i, ended=bool(dones[i]))
                member = self.opponents.member(slot)
                if member is not None:
                    self.league.record(member[0], hand_score(int(info["hand_result"])))
        return True

    def _on_rollout_end(self) -> None:
        self.opponents.update_weights()
        self.state.league = self.league.state()
        record = self.logger.record
        probabilities = self.opponents.mixture.probabilities
        members = self.opponents.members()
        for slot, member in enumerate(members):
            if member is not None:
                record(f"league/score/{member[0]}", self.league.score(member[0]))
                record(f"league/probability/{member[0]}", probabilities[slot])
        record("league/members", sum(m is not None for m in members))

"""The patient player: knocks only early in a hand or at a tiny deadwood, else plays for gin.

The style of strong tournament players (the winner of the EAAI-2021 gin rummy
challenge is described this way): a knock late in a hand runs into undercuts, because
the opponent has had the time to meld and to shed its high cards, so knock early or not
at all; otherwise keep improving the hand towards gin, keep the deadwood low so that an
opponent's knock is likely to be undercut, and do not feed the opponent's melds.

It plays the expert's game (``agents.bots.expert``: the same pickups, the same
lookahead and danger estimate in its discards), with its own knock rule and a
discard that sheds high cards harder as the hand goes on. Strategy, phase by phase:

- **Draw / first-turn offer**: as the expert: take the top card when the best 10 of
  the 11 cards beat the expected result of a blind stock draw by more than
  ``take_margin`` points (meld cards, and low cards that cut the deadwood).
- **Knock**: with the least-deadwood knock discard, when knocking is legal and
  (1) it has gin, or (2) it is playing one of its first ``knock_turns`` turns of the
  hand (counted from its own discards), or (3) the deadwood left is at most
  ``knock_deadwood``. Otherwise it holds and plays on for gin.
- **Discard** (not knocking): the expert's score (deadwood left, improved by the
  expected gain of the next draw, plus the danger that the opponent melds the card),
  plus ``low_deadwood_weight * min(turn, 10) / 10`` times the deadwood left: from turn
  to turn the deadwood left counts more against the meld potential, so it throws its
  high unmelded cards and keeps low ones, which undercut a knock.

Its parameters are the fields of ``PatientParams``; ``knock_turns``, ``knock_deadwood``,
``low_deadwood_weight`` and ``danger_weight`` may be set in its name
(``patient:knock_turns=4,knock_deadwood=2``). Random choices come from the per-game
``keys`` (see ``agents.bots.features``): a game plays the same alone or in a batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.bots.base import own_turn
from agents.bots.expert import ExpertBot, ExpertParams
from hgin_env.envs.observation import DecodedObservation

#: the turn from which the deadwood weight of the discards is full
_FULL_WEIGHT_TURN = 10


@dataclass(frozen=True)
class PatientParams(ExpertParams):
    """The patient player's parameters (the expert's weights, and its own knock rule).

    Attributes:
        knock_turns: it knocks at any legal deadwood on its first ``knock_turns`` turns
            of a hand (0: never early).
        knock_deadwood: on a later turn it knocks only at this deadwood or less
            (0: gin only).

    The defaults (3 turns, then gin only) won most of a short sweep against ``simple`` and
    ``expert`` under undercut bonuses 10 and 25 (research/experiments.md).
        low_deadwood_weight: extra weight of the deadwood left in a discard's score,
            reached at its 10th turn (linear from 0 before).
    """

    knock_turns: int = 3
    knock_deadwood: int = 0
    low_deadwood_weight: float = 1.0


class PatientBot(ExpertBot):
    """Knocks early or at a tiny deadwood, else plays for gin; keeps low cards; danger-aware.

    Takes ``Bot``'s arguments; ``params`` is a ``PatientParams``.
    """

    name = "patient"
    version = 1
    Params = PatientParams
    OPTIONS = {
        "knock_turns": (0, 100),
        "knock_deadwood": (0, 100),
        "low_deadwood_weight": (0.0, 100.0),
        "danger_weight": (0.0, 100.0),
    }
    params: PatientParams

    def _knocks(
        self, obs: DecodedObservation, rows: np.ndarray, knock_dd: np.ndarray
    ) -> np.ndarray:
        """``bool[R]``: gin, an early turn, or a deadwood of at most ``knock_deadwood``."""
        prm = self.params
        early = own_turn(obs, rows) <= prm.knock_turns
        return (knock_dd == 0) | early | (knock_dd <= prm.knock_deadwood)

    def _deadwood_weight(self, obs: DecodedObservation, rows: np.ndarray) -> np.ndarray:
        """``float[R]``: ``low_deadwood_weight``, in proportion to the turn up to turn 10."""
        turn = np.minimum(own_turn(obs, rows), _FULL_WEIGHT_TURN) / _FULL_WEIGHT_TURN
        return self.params.low_deadwood_weight * turn

"""The tempo player: the classic simple game, with a knock threshold that falls turn by turn.

Early in a hand a knock at high deadwood wins: the opponent has not melded much yet.
Every turn the opponent's hand improves, so a knock needs less deadwood to be safe
from an undercut. The tempo player knocks at a threshold that starts high and falls
with the turn number; with the defaults it knocks at the knock limit on its first
turn, at one point less every turn after, and at gin only from its 11th turn.

It plays ``simple``'s game otherwise (``agents.bots.simple``). Strategy, phase by phase:

- **Threshold**: on its own turn ``t`` of the hand (counted from its own discards,
  1 on its first turn), ``threshold(t) = max(floor, start - step * (t - 1))``, and
  never above the rules' knock limit.
- **First-turn offer and draw**: take the top card when some discard afterwards leaves
  deadwood within this turn's threshold (it would knock at once), or when the card is
  melded in the best arrangement of the hand with it; else draw (pass the upcard).
- **Knock**: when knocking is legal and the least deadwood it can knock with is at
  most this turn's threshold (gin always). It throws its highest-rank unmelded card
  among the discards that leave at most the threshold, as ``simple`` does.
- **Discard** (not knocking): ``simple``'s: the unmelded card of highest rank in the
  best arrangement of its 11 cards (ties from the game's key).

Its parameters (``TempoParams``: ``start``, ``step``, ``floor``) may be set in its name,
``tempo:start=10,step=0.5,floor=2``. Random choices come from the per-game ``keys``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.bots.base import own_turn
from agents.bots.simple import SimpleBot
from hgin_env.engine.melds import deadwood_after_discard
from hgin_env.envs.observation import DecodedObservation


@dataclass(frozen=True)
class TempoParams:
    """The tempo player's knock schedule.

    Attributes:
        start: the threshold on its first turn of a hand.
        step: how much the threshold falls per turn.
        floor: the lowest threshold (0: gin only once it is reached).
    """

    start: int = 10
    step: float = 1.0
    floor: int = 0


class TempoBot(SimpleBot):
    """Simple's pickups and discards; knocks below a threshold that falls with the turn.

    Takes ``Bot``'s arguments; ``params`` is a ``TempoParams``. The rules' knock limit
    caps its threshold, and ``allow_rediscard`` matters to its pickups.
    """

    name = "tempo"
    version = 1
    Params = TempoParams
    OPTIONS = {"start": (0, 100), "step": (0.0, 100.0), "floor": (0, 100)}
    params: TempoParams

    def threshold(
        self, turn: np.ndarray, knock_limit: np.ndarray | int | None = None
    ) -> np.ndarray:
        """``int64[R]``: the deadwood it knocks at on its own turn ``turn`` (1-based).

        Capped by ``knock_limit`` (per row, from the observation; default the bot's rules).
        """
        prm = self.params
        limit = self.rules.knock_limit if knock_limit is None else knock_limit
        falling = np.floor(prm.start - prm.step * (np.asarray(turn) - 1)).astype(np.int64)
        return np.minimum(np.maximum(falling, prm.floor), limit)

    def _knock_cards(
        self, obs: DecodedObservation, rows: np.ndarray, hands11: np.ndarray
    ) -> np.ndarray:
        """``bool[P, 52]``: the discards that leave at most this turn's threshold."""
        limit = self.threshold(own_turn(obs, rows), obs.knock_limit[rows])
        return deadwood_after_discard(hands11) <= limit[:, None]

    def _knock_with(
        self, obs: DecodedObservation, rows: np.ndarray, may_knock: np.ndarray
    ) -> np.ndarray:
        """``bool[R, 52]``: the legal knock discards that leave at most this turn's threshold."""
        limit = self.threshold(own_turn(obs, rows), obs.knock_limit[rows])
        return may_knock & (obs.discard_deadwood[rows] <= limit[:, None])

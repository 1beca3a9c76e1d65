"""``simple@1``: the first ``simple`` bot of this project, before it became OpenSpiel's port.

Kept so that figures measured against the first ``simple`` (the early rounds of
research/experiments.md) can be reproduced: ``simple`` now names its second version
(``agents.bots.simple``, ``simple@2``), which beats this one in 56.4% of series.

Strategy, phase by phase:

- **First-turn offer and draw**: take the top card when it would form a meld with
  cards already in hand (two cards of its rank, or two cards of its suit next to it in
  a run); otherwise pass the upcard, or draw from the stock.
- **Knock**: as soon as knocking is legal, knock with the discard that leaves the
  least deadwood. It never waits for gin.
- **Discard**: among the cards it may discard, one whose removal leaves the least
  deadwood (the ``discard_deadwood`` block of the observation).

Every tie is broken at random. The first version drew its ties from one shared random
stream; this one draws them from the per-game ``keys`` (see ``agents.bots.features``),
so its games are not those of the old runs card for card, but its strategy, hence its
strength, is the same.
"""

from __future__ import annotations

import numpy as np

from agents.bots.base import Bot
from agents.bots.features import NO_CHOICE, jittered_argmin
from hgin_env.engine.actions import KNOCK
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.keys import key_uniforms
from hgin_env.engine.melds import meld_with
from hgin_env.envs.observation import DecodedObservation


class SimpleBotV1(Bot):
    """The first simple player: meld-only pickups, least-deadwood discards, knocks at once.

    Args:
        seed: seed of the random stream used when ``act`` gets no per-game keys.
        rules: the rules it plays under (it reads legality from the mask).
    """

    name = "simple"
    version = 1

    def _takes(self, obs: DecodedObservation, rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """``bool[P]``: the top card forms a meld with cards in hand."""
        return meld_with(obs.hand[rows])[np.arange(rows.size), obs.top_discard[rows]]

    def _discards(
        self, obs: DecodedObservation, masks: np.ndarray, rows: np.ndarray, keys: np.ndarray
    ) -> np.ndarray:
        """Knock when it may, else discard; the card that leaves the least deadwood."""
        may_knock = masks[rows, KNOCK : KNOCK + N_CARDS]
        knock = np.asarray(may_knock.any(axis=1))
        allowed = np.where(knock[:, None], may_knock, masks[rows, :N_CARDS])
        scores = np.where(allowed, obs.discard_deadwood[rows].astype(np.float64), NO_CHOICE)
        card = jittered_argmin(scores, key_uniforms(keys, N_CARDS), 0.5)
        return np.where(knock, KNOCK + card, card)

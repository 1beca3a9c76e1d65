"""The classic baseline gin player: OpenSpiel's simple gin rummy bot, under this project's rules.

A decision-by-decision port of the strategy of OpenSpiel's ``simple_gin_rummy_bot``
(``open_spiel/bots/gin_rummy/``), the yardstick of the gin rummy literature, written
anew for batches of observations. The strategy rests on one notion, the *best
arrangement* of a hand: a way to put its cards into melds that leaves the least
deadwood. A hand can have several; where the strategy depends on which one, the bot
takes one of the distinct sets of unmelded cards they leave at random (OpenSpiel's
bot takes the first its search finds: "chosen arbitrarily", its header says).

Strategy, phase by phase:

- **First-turn offer and draw**: take the upcard (the top of the discard pile) when

  1. taking it would let it knock at once: some card it may discard afterwards
     leaves deadwood within the knock limit; or
  2. the card is melded in the best arrangement of the hand with it (so it lowers
     the deadwood; a card that only makes a meld by breaking up a better one is
     left, e.g. a third jack that would break a run of four).

  Otherwise pass the upcard, or draw from the stock.
- **Knock**: as soon as knocking is legal, knock. It never waits for gin.
- **Discard** (and the discard of a knock): throw the unmelded card of highest rank in
  the best arrangement of its 11 cards, among the cards it may throw (knocking: the
  discards the knock allows); a king before a queen before a jack before a ten
  although all count 10. Same-rank cards are equal: one at random. When no unmelded
  card may go (all 11 cards meld, or the only one is the card just taken), it throws
  the card whose discard leaves the least deadwood.
- **Knocker's arrangement and layoffs**: the engine lays every hand out for the least
  deadwood (RULES.md), as the bot would; the bot takes no decision there.

Where this project's rules differ from OpenSpiel's gin rummy, the rules here win: the
card just taken may not be thrown back unless ``allow_rediscard`` is set (OpenSpiel
allows it), and no knock is possible once the stock is down to two cards (OpenSpiel has
a last chance to knock with the upcard there). The bot reads each game's knock limit
from the observation's rules block (in a mix of rule sets every game has its own), and
``allow_rediscard``, which one batch shares, from its ``rules`` (the defaults unless told).

Random choices come from the per-game ``keys`` the environments pass (``act(...,
keys=...)``, see ``agents.bots.features``), else from the bot's seeded stream.
"""

from __future__ import annotations

import numpy as np

from agents.bots.base import Bot
from agents.bots.features import (
    NO_CHOICE,
    jittered_argmin,
    random_best_deadwood,
)
from hgin_env.engine.actions import KNOCK
from hgin_env.engine.cards import N_CARDS, N_RANKS
from hgin_env.engine.keys import key_uniforms
from hgin_env.engine.melds import knock_discards, meld_with
from hgin_env.envs.observation import DecodedObservation

#: the rank of each card id (0 = ace ... 12 = king)
_RANK = np.arange(N_CARDS) % N_RANKS
#: uniform numbers per decision: take test, discard arrangement, then one per card
_U_TAKE, _U_DISCARD, _U_CARDS = 0, 1, 2


class SimpleBot(Bot):
    """The classic simple player: best-arrangement pickups, highest-rank discards, knocks at once.

    Args:
        seed: seed of the random stream used when ``act`` gets no per-game keys.
        rules: the rules it plays under (only ``knock_limit`` and ``allow_rediscard``
            matter); default ``RulesConfig()``.
    """

    name = "simple"
    version = 2

    def _takes(self, obs: DecodedObservation, rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """``bool[P]``: take the top card (it lets it knock, or melds in the best arrangement)."""
        hand, top = obs.hand[rows], obs.top_discard[rows]
        uniforms = key_uniforms(keys, 1, offset=_U_TAKE)[:, 0]
        r = np.arange(hand.shape[0])
        with_top = hand.copy()
        with_top[r, top] = True
        knocks = self._knock_cards(obs, rows, with_top)
        if not self.rules.allow_rediscard:
            knocks[r, top] = False
        take = np.asarray(knocks.any(axis=1))
        # a card that forms no 3-card meld with the hand is unmelded in every arrangement
        ask = np.flatnonzero(~take & meld_with(hand)[r, top])
        if ask.size:
            unmelded = random_best_deadwood(with_top[ask], uniforms[ask])
            take[ask] = ~unmelded[np.arange(ask.size), top[ask]]
        return take

    def _knock_cards(
        self, obs: DecodedObservation, rows: np.ndarray, hands11: np.ndarray
    ) -> np.ndarray:
        """``bool[P, 52]``: the discards of an 11-card hand after which it would knock."""
        return knock_discards(hands11, obs.knock_limit[rows])

    def _knock_with(
        self, obs: DecodedObservation, rows: np.ndarray, may_knock: np.ndarray
    ) -> np.ndarray:
        """``bool[R, 52]``: the knock discards it would make, of the legal ``may_knock``.

        ``simple`` knocks whenever it may; no card marked means no knock.
        """
        return may_knock

    def _discards(
        self, obs: DecodedObservation, masks: np.ndarray, rows: np.ndarray, keys: np.ndarray
    ) -> np.ndarray:
        """Actions (a knock or a discard) for the rows in the discard phase."""
        uniforms = key_uniforms(keys, _U_CARDS + N_CARDS)
        may_knock = self._knock_with(obs, rows, masks[rows, KNOCK : KNOCK + N_CARDS])
        knock = np.asarray(may_knock.any(axis=1))
        allowed = np.where(knock[:, None], may_knock, masks[rows, :N_CARDS])
        unmelded = random_best_deadwood(obs.hand[rows], uniforms[:, _U_DISCARD]) & allowed
        # highest rank among the allowed unmelded cards; else the least deadwood left
        has: np.ndarray = np.asarray(unmelded.any(axis=1))[:, None]
        choice = np.where(has, unmelded, allowed)
        value = np.where(has, -_RANK, obs.discard_deadwood[rows]).astype(np.float64)
        scores = np.where(choice, value, NO_CHOICE)
        card = jittered_argmin(scores, uniforms[:, _U_CARDS:], 0.5)
        return np.where(knock, KNOCK + card, card)

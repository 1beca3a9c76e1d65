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
a last chance to knock with the upcard there). The bot reads the knock limit and
``allow_rediscard`` from its ``rules`` (the defaults unless told), since the
observation does not carry them and the draw decision needs them.

Random choices come from the per-game ``keys`` the environments pass (``act(...,
keys=...)``, see ``agents.bots.features``), else from the bot's seeded stream.
"""

from __future__ import annotations

import numpy as np

from agents.bots.features import (
    NO_CHOICE,
    decision_keys,
    jittered_argmin,
    meld_with,
    random_best_deadwood,
)
from hgin_env.engine.actions import DRAW, KNOCK, PASS, TAKE
from hgin_env.engine.cards import N_CARDS, N_RANKS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.keys import key_uniforms
from hgin_env.engine.melds import knock_discards
from hgin_env.envs.observation import decode_observations

#: the rank of each card id (0 = ace ... 12 = king)
_RANK = np.arange(N_CARDS) % N_RANKS
#: uniform numbers per decision: take test, discard arrangement, then one per card
_U_TAKE, _U_DISCARD, _U_CARDS = 0, 1, 2


class SimpleBot:
    """The classic simple player: best-arrangement pickups, highest-rank discards, knocks at once.

    Args:
        seed: seed of the random stream used when ``act`` gets no per-game keys.
        rules: the rules it plays under (only ``knock_limit`` and ``allow_rediscard``
            matter); default ``RulesConfig()``.
    """

    name = "simple"

    def __init__(self, seed: int | None = None, rules: RulesConfig | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.rules = rules or RulesConfig()

    def seed(self, seed: int | None) -> None:
        """Restart the random stream."""
        self.rng = np.random.default_rng(seed)

    def act(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        keys: np.ndarray | None = None,
    ) -> np.ndarray:
        """Return one legal action per row.

        Args:
            observations: ``float32[N, OBS_DIM]``.
            action_masks: ``bool[N, 107]``.
            keys: optional ``uint64[N]``, one fresh key per game and decision; row i's
                choice then depends on row i alone.

        Returns:
            ``int64[N]`` action ids.
        """
        masks = np.asarray(action_masks, dtype=bool)
        obs = decode_observations(observations)
        n = masks.shape[0]
        uniforms = key_uniforms(decision_keys(keys, self.rng, n), _U_CARDS + N_CARDS)
        actions = np.where(masks[:, PASS], PASS, DRAW).astype(np.int64)
        in_discard = masks[:, :N_CARDS].any(axis=1)

        pick = np.flatnonzero(masks[:, TAKE] & ~in_discard & (obs.top_discard >= 0))
        if pick.size:
            take = self._takes(obs.hand[pick], obs.top_discard[pick], uniforms[pick, _U_TAKE])
            actions[pick[take]] = TAKE

        rows = np.flatnonzero(in_discard)
        if rows.size:
            actions[rows] = self._discards(obs, masks, uniforms, rows)
        return actions

    def _takes(self, hand: np.ndarray, top: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        """``bool[P]``: take the top card (it lets it knock, or melds in the best arrangement)."""
        r = np.arange(hand.shape[0])
        with_top = hand.copy()
        with_top[r, top] = True
        knocks = knock_discards(with_top, self.rules.knock_limit)
        if not self.rules.allow_rediscard:
            knocks[r, top] = False
        take = np.asarray(knocks.any(axis=1))
        # a card that forms no 3-card meld with the hand is unmelded in every arrangement
        ask = np.flatnonzero(~take & meld_with(hand)[r, top])
        if ask.size:
            unmelded = random_best_deadwood(with_top[ask], uniforms[ask])
            take[ask] = ~unmelded[np.arange(ask.size), top[ask]]
        return take

    @staticmethod
    def _discards(obs, masks: np.ndarray, uniforms: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Actions (a knock or a discard) for the rows in the discard phase."""
        may_knock = masks[rows, KNOCK : KNOCK + N_CARDS]
        knock = np.asarray(may_knock.any(axis=1))
        allowed = np.where(knock[:, None], may_knock, masks[rows, :N_CARDS])
        unmelded = random_best_deadwood(obs.hand[rows], uniforms[rows, _U_DISCARD]) & allowed
        # highest rank among the allowed unmelded cards; else the least deadwood left
        has: np.ndarray = np.asarray(unmelded.any(axis=1))[:, None]
        choice = np.where(has, unmelded, allowed)
        value = np.where(has, -_RANK, obs.discard_deadwood[rows]).astype(np.float64)
        scores = np.where(choice, value, NO_CHOICE)
        card = jittered_argmin(scores, uniforms[rows, _U_CARDS:], 0.5)
        return np.where(knock, KNOCK + card, card)

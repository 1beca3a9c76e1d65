"""The classic baseline gin player (after OpenSpiel's ``simple_gin_rummy_bot.h``).

Strategy, phase by phase:

- **First-turn offer**: take the upcard when it would form part of a meld with cards
  already in hand (two cards of its rank, or two cards of its suit next to it in a
  run); otherwise pass.
- **Draw**: take the top of the discard pile under the same test; otherwise draw from
  the stock (always the stock when both players passed the upcard).
- **Knock**: as soon as knocking is legal, knock with the discard that leaves the
  least deadwood. It never waits for gin.
- **Discard**: among the cards it may discard, one whose removal leaves the minimum
  deadwood (the ``discard_deadwood`` block of the observation).

Every tie is broken uniformly at random from the bot's seeded stream, so the bot is
deterministic for a seed (and for the sequence of batches it is given).
"""

from __future__ import annotations

import numpy as np

from agents.bots.features import NO_CHOICE, jittered_argmin, meld_with
from hgin_env.engine.actions import DRAW, KNOCK, PASS, TAKE
from hgin_env.engine.cards import N_CARDS
from hgin_env.envs.observation import decode_observations


class SimpleBot:
    """The baseline gin player: melds-only pickups, minimum-deadwood discards, knocks at once.

    Args:
        seed: seed of the tie-breaking random stream.
    """

    name = "simple"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the tie-breaking random stream."""
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Return one legal action per row.

        Args:
            observations: ``float32[N, OBS_DIM]``.
            action_masks: ``bool[N, 107]``.

        Returns:
            ``int64[N]`` action ids.
        """
        masks = np.asarray(action_masks, dtype=bool)
        obs = decode_observations(observations)
        n = masks.shape[0]
        rows = np.arange(n)

        # pick up: the top card when it melds with the hand, else draw / pass
        top = obs.top_discard
        top_melds = meld_with(obs.hand)[rows, np.maximum(top, 0)] & (top >= 0)
        take = masks[:, TAKE] & top_melds
        pickup = np.where(masks[:, PASS], PASS, DRAW)
        pickup = np.where(take, TAKE, pickup)

        # discard or knock: least deadwood left, ties at random
        deadwood = obs.discard_deadwood.astype(np.float64)
        may_discard = masks[:, :N_CARDS]
        may_knock = masks[:, KNOCK : KNOCK + N_CARDS]
        can_knock = may_knock.any(axis=1)
        allowed = np.where(can_knock[:, None], may_knock, may_discard)
        card = jittered_argmin(np.where(allowed, deadwood, NO_CHOICE), self.rng, 0.5)
        discard = np.where(can_knock, KNOCK + card, card)

        in_discard = may_discard.any(axis=1)
        return np.where(in_discard, discard, pickup).astype(np.int64)

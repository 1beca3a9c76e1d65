"""A stronger hand-written gin player: one-card lookahead, card counting, a model of the opponent.

It acts from the observation only: its hand, the discard pile, the cards the opponent
took from the pile (*known pickups*) and threw away, the cards it threw itself, and the
stock size. A card it has not seen (not in its hand, not in the pile, not a known
pickup) is *unseen*: it lies in the stock or in the opponent's hidden hand.

Strategy, phase by phase:

- **Draw / first-turn offer**: compare taking the top card with drawing blind. Taking
  is worth the least deadwood of the best 10 of the 11 cards (the taken card may not
  be discarded back); drawing is worth the mean of the same quantity over every unseen
  card, which counts the live cards that would complete its pairs and near-runs. It
  takes when taking is better by more than ``take_margin`` points, so it takes cards
  that make melds and also low cards that cut its deadwood; otherwise it draws from the
  stock (or passes the upcard).
- **Knock**: when knocking is legal it knocks with the discard that leaves the least
  deadwood, if that deadwood is 0 (gin) or at most the threshold for the current stock
  size (``knock_table``). Optionally (``gin_wait``) it keeps playing for gin when its
  deadwood is already tiny and the stock still large. Measured against ``simple`` and
  itself, knocking as soon as the knock limit allows won most, so the defaults knock at
  once; lower late-hand thresholds (against undercuts) lost hands.
- **Discard** (not knocking): each card it may discard gets a score in deadwood points,
  the lowest wins (exact ties at random):

  * *value*: the deadwood left now, improved by ``lookahead_weight`` times the expected
    gain of the next draw (mean over unseen cards of the best 10-card deadwood after
    drawing it, minus the deadwood now). This is the card's meld potential with live
    cards counted: a pair or a near-run whose completing cards are in the pile or in the
    opponent's known pickups earns nothing, and a weight above 1 stands for the several
    draws still to come.
  * *danger*: ``danger_weight`` times the chance that the opponent could meld the card
    if it picked it up (a known pickup of the same rank or a suit neighbour makes that
    likely). The chance is estimated over ``n_samples`` hands sampled for the opponent
    (its known pickups plus unseen cards, low cards likelier since players throw high
    cards first), weighted by how well each sample explains what the opponent did: it
    picked up its known pickups to meld them, let this bot's discards still in the pile
    go by, threw its discards away, and holds no loose card above the value of the card
    it just threw.

Random choices (ties, the sampled hands) come from the per-game ``keys`` the environments
pass (``act(..., keys=...)``, see ``agents.bots.features``), else from the bot's seeded
stream: a game plays the same alone or in a batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.bots.base import Bot
from agents.bots.features import (
    NO_CHOICE,
    expected_after_draw,
    jittered_argmin,
    sample_melds,
    unseen_cards,
)
from hgin_env.engine.actions import KNOCK
from hgin_env.engine.cards import CARD_VALUE, N_CARDS
from hgin_env.engine.game import HAND_SIZE
from hgin_env.engine.keys import key_uniforms
from hgin_env.engine.melds import NO_DEADWOOD, deadwood_after_discard
from hgin_env.envs.observation import DecodedObservation


@dataclass(frozen=True)
class ExpertParams:
    """The expert's weights (defaults tuned against ``simple`` in seeded matches).

    Attributes:
        lookahead_weight: weight of the expected gain of the next draw in a discard's
            value (0: plain deadwood, 1: expected deadwood after one draw).
        danger_weight: deadwood points charged per unit chance that the opponent could
            meld the discarded card.
        take_margin: points by which taking the top card must beat a blind draw.
        knock_table: ``(min_stock, threshold)`` rows, the first whose ``min_stock`` the
            stock reaches wins: knock when the deadwood left is at most ``threshold``.
        gin_wait: ``None``, or ``(max_deadwood, min_stock)``: do not knock with a
            deadwood of 1 to ``max_deadwood`` while the stock holds ``min_stock`` cards.
        n_samples: hands sampled for the opponent to estimate the danger of discards.
        low_card_bias: an unseen ace is ``1 + low_card_bias`` times likelier than a
            ten-count card to be in a sampled opponent hand (linear in between).
        evidence: weight factor of a sampled hand per contradiction with what the
            opponent did (1: ignore the evidence).
        discard_evidence: a sample melding an opponent's discard counts as this many
            contradictions.
        highest_discard_evidence: each loose card of a sample above the value of the
            opponent's last discard counts as this many contradictions.
    """

    lookahead_weight: float = 1.5
    danger_weight: float = 5.0
    take_margin: float = 1.0
    knock_table: tuple[tuple[int, int], ...] = ((0, 10),)
    gin_wait: tuple[int, int] | None = None
    n_samples: int = 64
    low_card_bias: float = 1.0
    evidence: float = 0.2
    discard_evidence: float = 0.5
    highest_discard_evidence: float = 1.0


class ExpertBot(Bot):
    """Lookahead discards with card counting, defensive discarding, stock-aware knocking.

    Takes ``Bot``'s arguments; ``params`` is an ``ExpertParams`` (no rules option
    changes its play: it reads legality from the mask).
    """

    name = "expert"
    version = 1
    Params = ExpertParams
    params: ExpertParams

    # ------------------------------------------------------------------ pickups
    def _takes(self, obs: DecodedObservation, rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """``bool[P]``: taking the top card beats a blind draw by more than the margin."""
        hand, top, unseen = obs.hand[rows], obs.top_discard[rows], unseen_cards(obs, rows)
        p = hand.shape[0]
        r = np.arange(p)
        with_top = hand.copy()
        with_top[r, top] = True
        after = deadwood_after_discard(with_top)
        after[r, top] = NO_DEADWOOD  # no rediscard of the card just taken
        take_value = after.min(axis=1)
        draw_value = expected_after_draw(hand, unseen)
        return take_value + self.params.take_margin < draw_value

    # ------------------------------------------------------------------ discards
    def _discards(
        self, obs: DecodedObservation, masks: np.ndarray, rows: np.ndarray, keys: np.ndarray
    ) -> np.ndarray:
        """Actions (knock or discard) for the rows in the discard phase (``keys``: theirs)."""
        ties = key_uniforms(keys, 2 * N_CARDS)  # knock card ties, then discard ties
        dd = obs.discard_deadwood[rows].astype(np.float64)
        may_discard = masks[rows, :N_CARDS]
        may_knock = masks[rows, KNOCK : KNOCK + N_CARDS]

        knock_scores = np.where(may_knock, dd + 0.25 * ties[:, :N_CARDS], NO_CHOICE)
        knock_card = knock_scores.argmin(axis=1)
        can_knock = may_knock.any(axis=1)
        knock_dd = dd.min(axis=1, initial=NO_DEADWOOD, where=may_knock)
        knock = can_knock & self._knocks(obs, rows, knock_dd)
        actions = KNOCK + knock_card

        play = np.flatnonzero(~knock)  # the discard scores, of the rows that do not knock
        if play.size:
            may_play = may_discard[play]
            unseen = unseen_cards(obs, rows[play])
            scores = self._discard_scores(obs, rows[play], may_play, dd[play], unseen, keys[play])
            scores = np.where(may_play, scores, NO_CHOICE)
            actions[play] = jittered_argmin(scores, ties[play, N_CARDS:], 1e-6)
        return actions

    def _knocks(
        self, obs: DecodedObservation, rows: np.ndarray, knock_dd: np.ndarray
    ) -> np.ndarray:
        """``bool[R]``: knock (where it may) with ``knock_dd``, its least deadwood after a knock.

        On gin, or at most the threshold of the stock size (``knock_table``), unless
        ``gin_wait`` holds it back.
        """
        prm = self.params
        stock = obs.stock[rows]
        threshold = np.full(rows.size, -1)
        for min_stock, limit in reversed(prm.knock_table):
            threshold = np.where(stock >= min_stock, limit, threshold)
        wait_for_gin = np.zeros(rows.size, dtype=bool)
        if prm.gin_wait is not None:
            wait_for_gin = (knock_dd <= prm.gin_wait[0]) & (stock >= prm.gin_wait[1])
        is_gin = knock_dd == 0
        return is_gin | ((knock_dd <= threshold) & ~wait_for_gin)

    def _discard_scores(
        self,
        obs: DecodedObservation,
        rows: np.ndarray,
        may_discard: np.ndarray,
        dd: np.ndarray,
        unseen: np.ndarray,
        keys: np.ndarray,
    ) -> np.ndarray:
        """``float[G, 52]``: the score of discarding each allowed card (lower is better)."""
        prm = self.params
        g, c = np.nonzero(may_discard)
        kept = obs.hand[rows][g].copy()
        kept[np.arange(g.size), c] = False
        expected = np.full(may_discard.shape, NO_CHOICE)
        expected[g, c] = expected_after_draw(kept, unseen[g])
        value = dd - prm.lookahead_weight * (dd - expected)  # deadwood minus weighted gain
        danger = self._danger(obs, rows, unseen, keys)
        return value + prm.danger_weight * danger + self._deadwood_weight(obs, rows)[:, None] * dd

    def _deadwood_weight(self, obs: DecodedObservation, rows: np.ndarray) -> np.ndarray:
        """``float[R]``: an extra weight of the deadwood left in the discard scores (none here)."""
        return np.zeros(rows.size)

    def _danger(
        self, obs: DecodedObservation, rows: np.ndarray, unseen: np.ndarray, keys: np.ndarray
    ) -> np.ndarray:
        """``float[G, 52]``: the chance that the opponent could meld each card if it took it.

        Estimated over ``n_samples`` hands drawn for the opponent: its known pickups plus
        unseen cards (low cards likelier, ``low_card_bias``), each sample weighted by how
        well it explains what the opponent did: it took its known pickups to meld them,
        passed on the cards this bot discarded (still in the pile), and threw away its
        discards (``evidence`` is the weight kept by a sample contradicting one of these).
        """
        prm = self.params
        g = rows.size
        s = prm.n_samples
        known = obs.opponent_known[rows]
        hidden = HAND_SIZE - known.sum(axis=1)  # int[G]
        in_pile = obs.pile_below[rows].copy()
        top = obs.top_discard[rows]
        in_pile[np.flatnonzero(top >= 0), top[top >= 0]] = True
        passed = obs.own_discards[rows] & in_pile  # the opponent let these go by
        thrown = obs.opponent_discards[rows]

        log_w = np.log1p(prm.low_card_bias * (10 - CARD_VALUE) / 9.0)  # float[52]
        # a player throws its highest loose card: after its last discard (the top card,
        # when it is the opponent's) no loose card above that value is left in its hand
        last = np.where((top >= 0) & thrown[np.arange(g), np.maximum(top, 0)], top, -1)
        limit = np.where(last >= 0, CARD_VALUE[np.maximum(last, 0)], 10)
        melds, contradictions = sample_melds(
            keys, 2 * N_CARDS, s, log_w, unseen, hidden.astype(np.int64), known, passed,
            thrown, limit.astype(np.int64), float(prm.discard_evidence),
            float(prm.highest_discard_evidence),
        )  # fmt: skip
        weight = prm.evidence**contradictions  # float[G, S]
        weight /= weight.sum(axis=1, keepdims=True)
        return np.einsum("gs,gsc->gc", weight, melds.astype(np.float64))

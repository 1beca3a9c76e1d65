"""A belief from the opponent's play: its last discard, weighed by an opponent model.

A sampled world deals the opponent a hand. Where the opponent's last action was a
discard, the hand it held then is known in that world: the world's hand plus the card
it threw (nothing has entered or left its hand since). ``past_observations`` rebuilds
the observation the opponent had at that discard, as the encoder
(``hgin_env.envs.observation``) would have made it for its seat, from the searching
seat's observation and the world's hand; ``discard_log_likelihoods`` asks an opponent model
how likely that discard was from each world's hand. A world in which the model would
rather have thrown something else explains the discard worse and weighs less
(``inferred_weights``). Research only: no shipped searcher weighs its worlds so (the
search's former ``infer`` option).

What the searching seat does not see is filled in as closely as its observation allows:

- the pile's top under the discard (the pile's order is not observed): the whole pile is
  given as ``pile_below`` and ``top_discard`` is empty;
- the cards the searching seat took from the pile and still holds (what the opponent
  saw it take): the held cards the opponent had discarded;
- the card the opponent took from the pile on that turn, which it could not throw back:
  every held card is a legal discard (and its ``deadwood`` entry may count that card);
- a first-turn upcard the seat took is missing from the cards the opponent saw it take;
- a card the opponent had thrown once before is missing from its own discards;
- with big gin on, the knocks an 11-card gin allows beyond the knock limit are not in
  the rebuilt legal mask.

Under ``allow_rediscard`` the seat's pickup is not in its observation, so the discard
cannot be read there.

Earlier discards are not weighed: a stock draw since then puts an unseen card in the
hand, so the hand at the time is not known in the world.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.search.worlds import SeenPosition
from hgin_env.engine.actions import DISCARD, KNOCK, N_ACTIONS
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.game import STOCK_AT_DEAL
from hgin_env.engine.keys import Salt, hash_stream
from hgin_env.engine.melds import deadwood_after_discard
from hgin_env.envs.observation import (
    DEADWOOD_SCALE,
    OBS_LAYOUT,
    PHASE_DISCARD,
    decode_observations,
    plain_observations,
)
from hgin_env.envs.policy import Policy, PolicyCall

#: the chance a deterministic opponent model (a bot, no logits) gives a discard it would
#: not have made: a floor, so that a world it contradicts still counts a little
BOT_FLOOR = 0.05

#: the observation blocks swapped between the two seats (each seat's own first)
_SWAPPED = (
    ("my_scores", "opp_scores"),
    ("my_entered", "opp_entered"),
    ("my_next_entry", "opp_next_entry"),
)


def last_discard(seen: SeenPosition) -> np.ndarray:
    """int64[G]: the card the opponent threw on its last turn (-1 where there is none).

    It is the pile's top, or the card the seat just took from it, when the opponent
    discarded it (the first turn's upcard was nobody's discard).
    """
    g = np.arange(seen.top.size)
    card = np.where(seen.taken >= 0, seen.taken, seen.top)
    thrown = (card >= 0) & seen.opponent_discards[g, np.maximum(card, 0)]
    return np.where(thrown, card, -1).astype(np.int64)


def past_observations(
    observations: np.ndarray,
    taken: np.ndarray,
    thrown: np.ndarray,
    hands: np.ndarray,
    max_turns: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's observations and legal masks at its last discard, one per world.

    Args:
        observations: float32[R, OBS_DIM], the searching seat's observation of each
            world's game (rows repeated per world).
        taken: int[R], the card the seat took from the pile this turn (-1: none).
        thrown: int[R], the opponent's last discard (``last_discard``; every row has one).
        hands: bool[R, 52], the opponent's hand in each world (without ``thrown``).
        max_turns: the rules' ``max_turns_per_hand`` (the turn entry's scale).

    Returns:
        ``(obs, masks)``: float32[R, OBS_DIM] and bool[R, 107].
    """
    own = plain_observations(observations).astype(np.float32, copy=False)
    r = np.arange(own.shape[0])
    L = OBS_LAYOUT
    dec = decode_observations(own)
    held = hands.copy()
    held[r, thrown] = True  # the 11 cards it held then
    past = own.copy()
    past[:, L["hand"]] = held
    pile = dec.pile_below.copy()
    has_top = dec.top_discard >= 0
    pile[r[has_top], dec.top_discard[has_top]] = True
    pile[r, thrown] = False
    past[:, L["top_discard"]] = 0.0
    past[:, L["pile_below"]] = pile
    seen_take = dec.hand & dec.opponent_discards  # held cards the opponent had thrown
    seen_take[r, thrown] = False
    past[:, L["opponent_known"]] = seen_take
    past[:, L["opponent_discards"]] = dec.own_discards
    theirs = dec.opponent_discards.copy()
    theirs[r, thrown] = False
    past[:, L["own_discards"]] = theirs
    after = deadwood_after_discard(held)  # NO_DEADWOOD for cards not held
    past[:, L["discard_deadwood"]] = np.minimum(after, DEADWOOD_SCALE) / DEADWOOD_SCALE
    past[:, L["deadwood"].start] = after.min(axis=1) / DEADWOOD_SCALE
    past[:, L["phase"]] = 0.0
    past[:, L["phase"].start + PHASE_DISCARD] = 1.0
    past[:, L["to_act"].start] = 1.0
    drew_stock = (dec.phase == PHASE_DISCARD) & (taken < 0)  # the seat's draw, since
    past[:, L["stock"].start] += drew_stock / STOCK_AT_DEAL
    past[:, L["dealer"].start] = 1.0 - own[:, L["dealer"].start]
    turn = L["turn"].start  # the discard was not yet a completed turn
    past[:, turn] = np.maximum(own[:, turn] - 1.0 / max_turns, 0.0)
    for mine, opp in _SWAPPED:
        past[:, L[mine]], past[:, L[opp]] = own[:, L[opp]], own[:, L[mine]]
    masks = np.zeros((r.size, N_ACTIONS), dtype=bool)
    masks[:, DISCARD : DISCARD + N_CARDS] = held
    masks[:, KNOCK : KNOCK + N_CARDS] = held & (after <= dec.knock_limit[:, None])
    return past, masks


def discard_log_likelihoods(
    model: Policy,
    seen: SeenPosition,
    observations: np.ndarray,
    hands: np.ndarray,
    worlds: int,
    max_turns: int,
    keys: np.ndarray | None = None,
) -> np.ndarray:
    """float64[G, W]: the log of the opponent model's chance of its last discard per world.

    Args:
        model: the opponent model: a network policy (``logits``: its softmax over the
            legal actions) or any policy that takes per-game keys (``act``: ``BOT_FLOOR``
            where it would have thrown something else, else 1).
        seen: the G positions, as read from ``observations`` (``worlds.seen_position``).
        observations: float32[G, OBS_DIM], the searching seat's observations.
        hands: bool[G * W, 52], the opponent's hand in each world (game-major).
        worlds: W.
        max_turns: the rules' ``max_turns_per_hand``.
        keys: uint64[G * W], the worlds' keys (a bot model's ties are broken from them,
            so a game weighs its worlds alike alone or in any batch); None: zeros.

    Games whose opponent has not discarded yet get 0 (a chance of 1) in every world.
    """
    g = observations.shape[0]
    out = np.zeros((g, worlds))
    thrown = last_discard(seen)
    games = np.flatnonzero(thrown >= 0)
    if games.size == 0:
        return out
    rows = (games[:, None] * worlds + np.arange(worlds)[None, :]).reshape(-1)
    game_of = np.repeat(games, worlds)
    obs, masks = past_observations(
        observations[game_of], seen.taken[game_of], thrown[game_of], hands[rows], max_turns
    )
    action = DISCARD + thrown[game_of]
    logits: Callable[[np.ndarray], np.ndarray] | None = getattr(model, "logits", None)
    if callable(logits):
        z = np.where(masks, np.asarray(logits(obs), dtype=np.float64), -np.inf)
        z -= z.max(axis=1, keepdims=True)  # the thrown card is always legal: no empty row
        log_p = z[np.arange(rows.size), action] - np.log(np.exp(z).sum(axis=1))
    else:
        world_keys = np.zeros(hands.shape[0], np.uint64) if keys is None else keys
        bot_keys = hash_stream(world_keys[rows], np.zeros(rows.size, np.int64), Salt.SEARCH_INFER)
        choice = np.asarray(PolicyCall.of(model)(obs, masks, keys=bot_keys))
        log_p = np.where(choice == action, 0.0, np.log(BOT_FLOOR))
    out[games] = log_p.reshape(games.size, worlds)
    return out


def inferred_weights(log_chance: np.ndarray, power: float) -> np.ndarray:
    """float64[G, W]: ``chance ** power`` scaled so each game's likeliest world weighs 1.

    Scaled in logs, so no game's weights all underflow to 0 however sure the model is.
    """
    scaled = power * log_chance
    return np.exp(scaled - scaled.max(axis=1, keepdims=True))

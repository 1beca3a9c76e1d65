"""Determinized worlds: full hand positions consistent with one seat's observation.

``seen_position`` reads what a seat knows from its observation (``hgin_env.envs.
observation``): its hand, the discard pile, the opponent's known pickups and both
players' discards, the stock size, the phase, the dealer, the turn count and (in series
mode) the score sheet. ``sample_worlds`` deals the rest at random: the opponent holds its
known pickups plus ``10 - known`` of the *unseen* cards (not in the seat's hand, not in
the pile, not a known pickup), and the other unseen cards form the stock in random
order. Each world is drawn from a key derived from the game's decision key and the
world's index alone, so a game's worlds do not depend on the batch it is in.

In a world the observing seat is seat 0 and the opponent seat 1. Two things the
observation does not carry are filled in: the order of the pile below its top (which
never matters again, see ``hgin_env.engine.position``), and which of the seat's own
cards it took from the pile earlier (its opponent's ``opponent_known`` in a rollout):
only the card taken this turn is marked.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.cards import CARD_VALUE, N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import HAND_SIZE, HandState, Phase
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.keys import Salt, hash_stream, key_uniforms, spread_keys
from hgin_env.engine.melds import meld_with, min_deadwood
from hgin_env.engine.position import position_state
from hgin_env.envs.observation import (
    OBS_DIM,
    OBS_LAYOUT,
    PHASE_DISCARD,
    PHASE_FORCED_DRAW,
    PHASE_OFFER,
    decode_observations,
    decode_sheets,
    plain_observations,
)


@dataclass
class SeenPosition:
    """What each of N seats knows, as arrays (the seat is seat 0, its opponent seat 1)."""

    hand: np.ndarray  # bool[N, 52]
    top: np.ndarray  # int[N], -1: empty pile
    pile_below: np.ndarray  # bool[N, 52]
    opponent_known: np.ndarray  # bool[N, 52]
    own_discards: np.ndarray  # bool[N, 52]
    opponent_discards: np.ndarray  # bool[N, 52]
    unseen: np.ndarray  # bool[N, 52]
    stock_size: np.ndarray  # int[N]
    dealer: np.ndarray  # int[N]: 0 when the seat dealt, else 1
    phase: np.ndarray  # int[N]: an engine Phase
    must_draw_stock: np.ndarray  # bool[N]
    taken: np.ndarray  # int[N]: card taken from the pile this turn, -1: none
    turns: np.ndarray  # int[N]
    sheets: ScoreSheets | None  # the score sheets (series mode), seat 0 = the seat


def seen_position(
    observations: np.ndarray, action_masks: np.ndarray, rules: RulesConfig
) -> SeenPosition:
    """Read the positions of N seats to act from their observations and legal masks.

    Raises:
        ValueError: when an observation is inconsistent (a row not to act, or whose
            unseen cards do not fill the opponent's hand and the stock).
    """
    obs = plain_observations(observations)
    if obs.shape[1] != OBS_DIM:
        raise ValueError(f"observations must have {OBS_DIM} entries, got {obs.shape[1]}")
    masks = np.asarray(action_masks, dtype=bool).reshape(-1, N_ACTIONS)
    dec = decode_observations(obs)
    n = obs.shape[0]
    if (dec.phase < 0).any():
        raise ValueError(f"observation row {int(np.argmax(dec.phase < 0))} has no phase to act in")
    r = np.arange(n)
    has_top = dec.top_discard >= 0
    seen = dec.hand | dec.pile_below | dec.opponent_known
    seen[r[has_top], dec.top_discard[has_top]] = True
    unseen = ~seen
    hidden = HAND_SIZE - dec.opponent_known.sum(axis=1)
    bad = np.flatnonzero(unseen.sum(axis=1) != hidden + dec.stock)
    if bad.size:
        raise ValueError(f"observation row {int(bad[0])}: its unseen cards do not add up")
    phase = np.select(
        [dec.phase == PHASE_OFFER, dec.phase == PHASE_DISCARD],
        [int(Phase.OFFER), int(Phase.DISCARD)],
        int(Phase.DRAW),
    )
    discarding = phase == int(Phase.DISCARD)
    # the card held that may not be thrown back is the one just taken from the pile
    barred = dec.hand & ~masks[:, :N_CARDS] & discarding[:, None]
    taken = np.where(barred.any(axis=1), barred.argmax(axis=1), -1)
    turns = np.rint(obs[:, OBS_LAYOUT["turn"].start] * rules.max_turns_per_hand).astype(np.int64)
    return SeenPosition(
        hand=dec.hand,
        top=dec.top_discard,
        pile_below=dec.pile_below,
        opponent_known=dec.opponent_known,
        own_discards=dec.own_discards,
        opponent_discards=dec.opponent_discards,
        unseen=unseen,
        stock_size=dec.stock,
        dealer=np.where(dec.dealer, 0, 1),
        phase=phase,
        must_draw_stock=dec.phase == PHASE_FORCED_DRAW,
        taken=taken,
        turns=turns,
        sheets=decode_sheets(obs, rules),
    )


def world_keys(keys: np.ndarray, worlds: int) -> np.ndarray:
    """uint64[N, W]: the key of world w of game i, from ``keys[i]`` and ``w`` alone."""
    return spread_keys(keys, worlds, Salt.SEARCH_WORLDS)


def sample_worlds(
    seen: SeenPosition,
    keys: np.ndarray,
    grow: np.ndarray | None = None,
    scores: np.ndarray | None = None,
) -> HandState:
    """One full position per (game, world): ``G * W`` rows, game-major (world fastest).

    Args:
        seen: the positions of G games.
        keys: uint64[G, W] world keys (``world_keys``).
        grow: optional int[G * W]: deal world ``i``'s opponent ``grow[i]`` more unseen
            cards than it holds, then drop that many of its loose cards, highest first
            (``drop_loose``), as a player keeps melding cards over its turns; the stock
            is then the other unseen cards in a fresh random order. None: a uniform
            deal (the opponent's hidden cards are the first unseen ones of a random order).
        scores: optional float64[G, 52] logits of a belief (``hand_model``): the cards
            dealt to the opponent (with ``grow``, before the drop) are a Gumbel top-k
            sample of the unseen cards (card ``c`` ranked by ``scores[c]`` plus Gumbel
            noise), the stock the other unseen cards in a fresh random order.
    """
    g, w = keys.shape
    rows = np.repeat(np.arange(g), w)
    unseen = seen.unseen[rows]
    # the unseen cards in a random order (the seen ones after them)
    u = key_uniforms(keys.reshape(-1), N_CARDS)
    if scores is not None:
        gumbel = -np.log(-np.log(np.maximum(u, 1e-300)))  # u < 1: no upper bound needed
        u = -(scores[rows] + gumbel)
    order = np.argsort(np.where(unseen, u, np.inf), axis=1, kind="stable")
    hidden = HAND_SIZE - seen.opponent_known.sum(axis=1)[rows]
    rank = np.arange(N_CARDS)[None, :]
    opponent = seen.opponent_known[rows].copy()
    extra = np.zeros(rows.size, np.int64) if grow is None else np.asarray(grow, np.int64)
    extra = np.minimum(extra, unseen.sum(axis=1) - hidden)
    dealt = rank < (hidden + extra)[:, None]
    rr, cc = np.nonzero(dealt)
    opponent[rr, order[rr, cc]] = True
    if grow is None and scores is None:
        # the stock: the unseen cards after the opponent's, top first
        stock = np.take_along_axis(order, np.minimum(rank + hidden[:, None], N_CARDS - 1), axis=1)
    else:
        if grow is not None:
            opponent = drop_loose(opponent, seen.opponent_known[rows], extra)
        u2 = key_uniforms(keys.reshape(-1), N_CARDS, offset=N_CARDS)
        stock = np.argsort(np.where(unseen & ~opponent, u2, 2.0), axis=1, kind="stable")
    hands = np.stack([seen.hand[rows], opponent], axis=1)
    known = np.zeros((rows.size, 2, N_CARDS), dtype=bool)
    known[:, 1] = seen.opponent_known[rows]
    taken = seen.taken[rows]
    has_taken = np.flatnonzero(taken >= 0)
    known[has_taken, 0, taken[has_taken]] = True
    discards = np.stack([seen.own_discards[rows], seen.opponent_discards[rows]], axis=1)
    return position_state(
        hands=hands,
        top=seen.top[rows],
        pile_below=seen.pile_below[rows],
        stock=stock,
        stock_size=seen.stock_size[rows],
        dealer=seen.dealer[rows],
        current=np.zeros(rows.size, np.int64),
        phase=seen.phase[rows],
        known=known,
        discards=discards,
        must_draw_stock=seen.must_draw_stock[rows],
        taken=taken,
        turns=seen.turns[rows],
    )


#: the deadwood belief's table (``research/experiments/belief_table.py`` writes it)
DEADWOOD_TABLE = Path(__file__).resolve().parent / "data" / "opponent_deadwood.json"
#: turn buckets of the table: two turns a bucket, the last one open-ended
TURN_BUCKETS = 16
#: deadwood points a bucket, and buckets (the last one open-ended)
DEADWOOD_BUCKET = 4
DEADWOOD_BUCKETS = 26


def deadwood_cells(turns: np.ndarray, deadwood: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (turn bucket, deadwood bucket) of each (turns completed, hand deadwood)."""
    t = np.minimum(np.asarray(turns, dtype=np.int64) // 2, TURN_BUCKETS - 1)
    d = np.minimum(np.asarray(deadwood, dtype=np.int64) // DEADWOOD_BUCKET, DEADWOOD_BUCKETS - 1)
    return np.maximum(t, 0), np.maximum(d, 0)


def drop_loose(hands: np.ndarray, fixed: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Drop ``counts[i]`` cards of ``hands[i]``, one at a time, never one of ``fixed[i]``.

    Each time the card dropped is the highest-valued loose one (no meld with two other
    held cards), else the highest-valued card; ties go to the higher card id. The
    simple bot's way of discarding, cheap enough for thousands of hands at once.
    """
    out = hands.copy()
    left = np.asarray(counts, dtype=np.int64).copy()
    tiny = np.arange(N_CARDS) * 1e-3
    while (left > 0).any():
        rows = np.flatnonzero(left > 0)
        held = out[rows] & ~fixed[rows]
        loose = held & ~meld_with(out[rows])
        score = CARD_VALUE[None, :] + tiny + np.where(loose, 100.0, 0.0)
        pick = np.where(held, score, -1.0).argmax(axis=1)
        out[rows, pick] = False
        left[rows] -= 1
    return out


@functools.cache
def true_deadwood_shares() -> np.ndarray:
    """float64[TURN_BUCKETS, DEADWOOD_BUCKETS]: real opponents' deadwood by turn (shares).

    From the measured counts of ``DEADWOOD_TABLE``, smoothed by one count per cell.
    """
    table = json.loads(DEADWOOD_TABLE.read_text())
    counts = np.asarray(table["true_counts"], dtype=np.float64)
    if counts.shape != (TURN_BUCKETS, DEADWOOD_BUCKETS) or (counts < 0).any():
        raise ValueError(
            f"{DEADWOOD_TABLE.name}: true_counts must be a non-negative table of shape "
            f"{(TURN_BUCKETS, DEADWOOD_BUCKETS)}"
        )
    counts = counts + 1.0
    return counts / counts.sum(axis=1, keepdims=True)


def grown_worlds(
    seen: SeenPosition, keys: np.ndarray, m: int, scores: np.ndarray | None = None
) -> tuple[HandState, np.ndarray]:
    """``m`` candidate worlds per game, from a uniform opponent hand to a well melded one.

    Candidate ``j`` grows the opponent's hand by ``j mod (turns // 2 + 1)`` cards
    (``sample_worlds``'s ``grow``: from a uniform hand to one kept over each of its turns).

    Args:
        seen: the positions of G games.
        keys: uint64[G], the games' decision keys.
        m: candidates per game.
        scores: optional float64[G, 52] card logits (``sample_worlds``'s ``scores``).

    Returns:
        ``(state, keys)``: the ``G * m`` candidates (game-major) and uint64[G, m] their
        world keys.
    """
    g = keys.shape[0]
    pkeys = world_keys(keys, m)  # [G, M]
    turns = np.repeat(seen.turns, m)
    grow = np.tile(np.arange(m), g) % (np.maximum(turns, 0) // 2 + 1)
    return sample_worlds(seen, pkeys, grow, scores), pkeys


def believed_worlds(
    seen: SeenPosition,
    keys: np.ndarray,
    worlds: int,
    pool: int = 4,
    scores: np.ndarray | None = None,
) -> tuple[HandState, np.ndarray]:
    """``worlds`` worlds per game whose opponent hands have real players' deadwood by turn.

    A pool of ``pool * worlds`` candidate worlds per game is dealt (``grown_worlds``), so
    the pool spans hands from random to well melded. Each candidate is weighted by the
    share of real opponents at this turn holding its deadwood (``true_deadwood_shares``)
    over the share of the pool holding it, and ``worlds`` of them are drawn by
    systematic resampling. The deadwood of the drawn hands then follows the real
    players' at this turn, whatever the pool holds.

    Args:
        seen: the positions of G games.
        keys: uint64[G], the games' decision keys.
        worlds: worlds per game.
        pool: candidates per world.
        scores: optional float64[G, 52] card logits of a learned belief
            (``hand_model``): the candidates' cards are dealt by them (``sample_worlds``'s
            ``scores``) rather than uniformly, then resampled to the deadwood as above.

    Returns:
        ``(state, world_keys)``: the ``G * worlds`` positions (game-major) and
        uint64[G, worlds] the key of each drawn world (for the rollouts' randomness).
    """
    g = keys.shape[0]
    m = worlds * pool
    cands, pkeys = grown_worlds(seen, keys, m, scores)
    turns = np.repeat(seen.turns, m)
    t, d = deadwood_cells(turns, min_deadwood(cands.hands[:, 1]))
    cell = (t * DEADWOOD_BUCKETS + d).reshape(g, m)
    # the pool's count of each candidate's cell, per game
    counts = np.zeros((g, TURN_BUCKETS * DEADWOOD_BUCKETS))
    np.add.at(counts, (np.repeat(np.arange(g), m), cell.reshape(-1)), 1.0)
    share = true_deadwood_shares().reshape(-1)
    weight = share[cell] / np.take_along_axis(counts, cell, axis=1)
    cdf = np.cumsum(weight, axis=1)
    cdf /= cdf[:, -1:]
    start = key_uniforms(hash_stream(keys, np.zeros(g, np.int64), Salt.SEARCH_BELIEF), 1)
    points = (start + np.arange(worlds)[None, :]) / worlds  # systematic resampling
    picked = np.minimum((cdf[:, None, :] < points[:, :, None]).sum(axis=2), m - 1)  # [G, W]
    rows = (np.arange(g)[:, None] * m + picked).reshape(-1)
    return cands.rows(rows), np.take_along_axis(pkeys, picked, axis=1)

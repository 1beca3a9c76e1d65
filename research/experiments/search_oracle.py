r"""Measurement: how much a search would gain if it knew the opponent's hand.

Not part of the toolkit: the ceiling of any belief, behind docs/search.md. The same
paired probe as ``research.experiments.search_paired`` (single hands, the same deals and keys, a
fresh score sheet), with A a ``pimc`` spec whose worlds are told the truth: in every
world of a searched decision the opponent holds its real hand, and only the order of the
stock stays unknown (the other unseen cards, in the order the world's own deal gave
them). Everything else of the search (candidates, rollouts, the test against the prior)
is as in the spec, so the gain over the same spec without the truth is what a perfect
belief is worth to it. The rollouts still see only what each seat knows.

``--told deadwood`` tells less: of eight times the worlds, dealt as the deadwood belief
deals its candidates, each game keeps those whose opponent hand has the deadwood nearest
the real hand's; the cards stay unknown. It measures how much of the truth's worth is
how good the hand is.

Usage::

    python -m research.experiments.search_oracle searcher@4 simple --hands 1000 --seed 8989
    python -m research.experiments.search_oracle searcher@4 simple --series 150 --seed 2027

With ``--series`` it plays ``evaluate.py A B --series N --duplicate --seed S`` in one
process, A told the truth, and prints the series figures (run the plain row with
``evaluate.py`` itself).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from agents.evaluation import match
from agents.evaluation.results import EvalResult
from agents.policies.model import load_policy
from agents.search import pimc
from agents.search.worlds import SeenPosition, grown_worlds
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, HandState
from hgin_env.engine.melds import min_deadwood
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import (
    decode_observations,
    encode_observations,
    plain_observations,
)
from hgin_env.envs.policy import Policy
from research.experiments.search_paired import play_hands


def _public(
    hand: np.ndarray, top: np.ndarray, below: np.ndarray, mine: np.ndarray, theirs: np.ndarray
) -> np.ndarray:
    """bool[N, 5 * 52]: a seat's cards, the pile's top and the rest, both players' discards."""
    top_card = np.zeros_like(hand)
    has = np.flatnonzero(top >= 0)
    top_card[has, top[has]] = True
    return np.concatenate([hand, top_card, below, mine, theirs], axis=1)


def _observed(observations: np.ndarray) -> np.ndarray:
    """``_public`` of the seats whose observations these are."""
    d = decode_observations(plain_observations(observations))
    return _public(d.hand, d.top_discard, d.pile_below, d.own_discards, d.opponent_discards)


class Truth:
    """The true opponent hands of the games the searching seat is acting in now."""

    def __init__(self) -> None:
        self.seen: np.ndarray = np.zeros((0, 5 * N_CARDS), bool)  # ``_public`` of each game
        self.opponent: np.ndarray = np.zeros((0, N_CARDS), bool)

    def set(self, observations: np.ndarray, engine: GinEngine, a_seat: np.ndarray) -> None:
        """Read the acting seats' positions and find each one's table game and opponent hand.

        A game is found by what the seat sees (its cards, the pile, the discards): the
        first live table game where seat ``a_seat`` is to act with the same.
        """
        self.seen = _observed(observations)
        live = np.flatnonzero(~engine.over)
        acting = live[engine.current_player[live] == a_seat[live]]
        me = a_seat[acting]
        table = _observed(encode_observations(engine, me, None, acting))
        self.opponent = engine.state.hands[acting, 1 - me][self._find(self.seen, table)]

    def _find(self, seen: np.ndarray, table: np.ndarray) -> np.ndarray:
        """int[G]: for each row of ``seen``, the first row of ``table`` equal to it."""
        index = {row.tobytes(): i for i, row in reversed(list(enumerate(table)))}
        found = [index.get(row.tobytes(), -1) for row in seen]
        if min(found, default=0) < 0:
            raise RuntimeError("a searched game matches no acting game")
        return np.asarray(found, dtype=np.int64)

    def lookup(self, seen: SeenPosition) -> np.ndarray:
        """bool[G, 52]: each searched game's true opponent hand, matched by what it sees."""
        public = _public(
            seen.hand, seen.top, seen.pile_below, seen.own_discards, seen.opponent_discards
        )
        return self.opponent[self._find(public, self.seen)]


def tell_truth(worlds: HandState, seen: SeenPosition, truth: np.ndarray) -> None:
    """Give every world's opponent its true hand (in place), the stock the rest of its cards.

    ``worlds`` holds G * W rows, game-major. The stock keeps its size and the world's order
    of the cards that stay in it: the world's stock, then the hidden cards the world dealt
    the opponent, with the true hand's cards taken out.
    """
    w = worlds.hands.shape[0] // truth.shape[0]
    for row in range(worlds.hands.shape[0]):
        g = row // w
        pos = int(worlds.stock_pos[row])
        dealt = np.flatnonzero(worlds.hands[row, 1] & ~seen.opponent_known[g])
        pool = np.concatenate([worlds.deck[row, pos:].astype(np.int64), dealt])
        stock = pool[~truth[g][pool]]
        if stock.size != N_CARDS - pos:
            raise RuntimeError("the true hand is not among the world's unseen cards")
        worlds.deck[row, pos:] = stock
        worlds.hands[row, 1] = truth[g]


def with_truth(build: Callable[..., Any], truth: Truth, returns_keys: bool) -> Callable[..., Any]:
    """``build`` (a world sampler of ``pimc``), its worlds then told the truth."""

    def told(seen: SeenPosition, *args: Any, **kwargs: Any) -> Any:
        out = build(seen, *args, **kwargs)
        worlds = out[0] if returns_keys else out
        tell_truth(worlds, seen, truth.lookup(seen))
        return out

    return told


#: ``--told deadwood``: candidate worlds per world, of which the closest are kept
DEADWOOD_POOL = 8


def with_deadwood(truth: Truth) -> Callable[..., Any]:
    """A ``believed_worlds`` whose worlds' opponents hold the true hand's deadwood, or near it.

    As ``worlds.believed_worlds`` does, ``DEADWOOD_POOL`` times the worlds are dealt per
    game (``worlds.grown_worlds``: from uniform to well melded); each game then keeps the
    ``worlds`` candidates whose opponent deadwood is nearest the real hand's (the first
    dealt on ties), each once.
    The cards stay unknown: only how good the hand is, is told.
    """

    def told(seen: SeenPosition, keys: np.ndarray, worlds: int, **kwargs: Any) -> Any:
        g, m = keys.shape[0], worlds * DEADWOOD_POOL
        cands, pkeys = grown_worlds(seen, keys, m, kwargs.get("scores"))
        true = min_deadwood(truth.lookup(seen)).astype(np.int64)
        have = min_deadwood(cands.hands[:, 1]).astype(np.int64).reshape(g, m)
        near = np.argsort(np.abs(have - true[:, None]), axis=1, kind="stable")[:, :worlds]
        rows = (np.arange(g)[:, None] * m + near).reshape(-1)
        return cands.rows(rows), np.take_along_axis(pkeys, near, axis=1)

    return told


class Oracle:
    """A ``pimc`` policy playing seat ``a_seat`` of a table, its worlds told the truth.

    ``engine`` returns the table's current ``GinEngine`` (a series deals new hands).
    ``told``: ``hand`` (the opponent's cards) or ``deadwood`` (only its hand's deadwood;
    the spec must use ``belief=deadwood``).
    """

    def __init__(
        self, search: Any, engine: Callable[[], GinEngine], a_seat: np.ndarray, told: str = "hand"
    ) -> None:
        self.search, self.engine, self.a_seat = search, engine, np.asarray(a_seat)
        self.truth = Truth()
        if told == "deadwood":
            pimc.believed_worlds = with_deadwood(self.truth)  # type: ignore[attr-defined]
        else:
            pimc.believed_worlds = with_truth(pimc.believed_worlds, self.truth, True)  # type: ignore[attr-defined]
            pimc.sample_worlds = with_truth(pimc.sample_worlds, self.truth, False)  # type: ignore[attr-defined]

    def act(
        self, observations: np.ndarray, action_masks: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """The spec's action, its worlds holding each game's true opponent hand."""
        self.truth.set(np.asarray(observations), self.engine(), self.a_seat)
        return self.search.act(observations, action_masks, keys=keys)


def told_series(
    a: str, b: str, n: int, seed: int, rules: RulesConfig, told: str = "hand"
) -> EvalResult:
    """``evaluate(a, b, n, seed, duplicate=True)`` in this process, A's worlds told the truth."""
    real = match.play_batch

    def told_play_batch(table: SeriesEngine, pa: Policy, pb: Policy, a_seat: Any, **kw: Any) -> int:
        oracle = Oracle(pa, lambda: table.engine, a_seat, told)
        return real(table, cast(Policy, oracle), pb, a_seat, **kw)

    match.play_batch = told_play_batch  # type: ignore[assignment]
    try:
        return match.evaluate(a, b, n, seed, rules, duplicate=True, progress=False)
    finally:
        match.play_batch = real


def main() -> None:
    """Play the spec told the truth and the spec itself on the same hands; print the gain."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="a pimc spec, e.g. searcher@4")
    parser.add_argument("b")
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--undercut-bonus", type=int, default=10)
    parser.add_argument(
        "--series", type=int, default=0,
        help="play this many deal sequences of full series (duplicate) instead, told only",
    )  # fmt: skip
    parser.add_argument(
        "--told", choices=("hand", "deadwood"), default="hand",
        help="what the worlds are told: the opponent's hand, or only its deadwood",
    )  # fmt: skip
    args = parser.parse_args()
    rules = RulesConfig(undercut_bonus=args.undercut_bonus)
    if args.told == "deadwood" and getattr(load_policy(args.a, 0), "params", None) is None:
        parser.error(f"{args.a} is not a pimc search")
    if args.told == "deadwood" and load_policy(args.a, 0).params.belief != "deadwood":  # type: ignore[attr-defined]
        parser.error("--told deadwood needs a spec with belief=deadwood (e.g. searcher@4)")
    if args.series:
        result = told_series(args.a, args.b, args.series, args.seed, rules, args.told)
        lo, hi = result.series_win_ci
        plo, phi = result.points_per_hand_ci
        print(
            f"{args.a} told the {args.told} vs {args.b} (undercut {args.undercut_bonus}, "
            f"{result.n_series} series, duplicate, seed {args.seed}): series won "
            f"{result.series_win_rate:.1%} [{lo:.1%}, {hi:.1%}], points per hand "
            f"{result.points_per_hand:+.2f} [{plo:+.2f}, {phi:+.2f}], {result.seconds:.0f} s",
            flush=True,
        )
        return
    n = args.hands
    a_seat = np.arange(n) % 2
    originals = (pimc.believed_worlds, pimc.sample_worlds)  # type: ignore[attr-defined]
    t0 = time.perf_counter()
    told = play_hands(
        load_policy(args.a, args.seed), load_policy(args.b, args.seed + 1), n, args.seed, rules,
        wrap=lambda policy, engine: cast(Policy, Oracle(policy, lambda: engine, a_seat, args.told)),
    )  # fmt: skip
    t_told = time.perf_counter() - t0
    pimc.believed_worlds, pimc.sample_worlds = originals  # type: ignore[attr-defined]
    plain = play_hands(
        load_policy(args.a, args.seed), load_policy(args.b, args.seed + 1), n, args.seed, rules
    )
    diff = told - plain
    se = diff.std(ddof=1) / np.sqrt(diff.size)
    print(
        f"{args.a} told the {args.told} vs {args.b} (undercut {args.undercut_bonus}, {n} hands, "
        f"seed {args.seed}): told {told.mean():+.2f} pph, not told {plain.mean():+.2f} pph, "
        f"paired gain {diff.mean():+.2f} (s.e. {se:.2f}), hands changed "
        f"{(diff != 0).mean():.0%}, told {t_told:.0f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()

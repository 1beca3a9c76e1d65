"""Engine speed: random legal play and min-deadwood throughput, against the peers.

Usage: ``python -m benchmarks.engine_speed [--seconds 1] [--repeats 5]
[--batches 1 64 1024 4096]``

Measures on one core (BLAS/OpenMP threads pinned to 1); each row is the median of
``--repeats`` interleaved samples of ``--seconds`` each, with their min-max:

- random legal play, player actions per second (legal masks with knock masks
  computed every step), at each batch size, with hands re-dealt as they end;
- ``min_deadwood`` hands per second on uniform and dense 10- and 11-card hands;
- the same for OpenSpiel (``gin_rummy`` ``apply_action`` play, ``GinRummyUtils.min_deadwood``)
  and RLCard (``gin-rummy`` env steps) when they are installed, with ratios;
- a ceiling row per batch size: the same loop with the rules stripped (deal, then draw
  and discard a random card, no meld or knock checks, no legal masks), one compiled
  call per step over the batch: how close the engine runs to what this machine can do.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

from benchmarks._common import (
    add_repeats,
    fmt_rate,
    interleaved,
    load_text,
    print_table,
    rate,
    rlcard_steps,
)
from hgin_env.engine import GinEngine, card_text, min_deadwood
from hgin_env.engine.jit import kernel
from hgin_env.engine.keys import GOLDEN, mix_one, shuffle_one
from hgin_env.envs.policy import random_legal_actions as random_legal


def ours_play(batch: int, seconds: float) -> float:
    """Player actions per second of random legal play at one batch size.

    The actions are counted with ``np.count_nonzero`` (a small array's ``sum`` costs a
    microsecond, a good part of a batch-1 step): harness overhead, as the peers' loops
    count theirs with a plain ``+= 1``.
    """
    eng = GinEngine(batch, seed=0)
    eng.reset()
    rng = np.random.default_rng(0)

    def work() -> int:
        done = 0
        for _ in range(20):
            live = ~eng.over
            eng.step(random_legal(eng.legal_action_mask(), rng))
            done += np.count_nonzero(live)
            if eng.over.any():
                eng.reset(mask=eng.over)
        return done

    return rate(work, seconds)


@kernel
def _stripped_step(
    seeds: np.ndarray,
    counter: np.ndarray,
    deck: np.ndarray,
    stock_pos: np.ndarray,
    hands: np.ndarray,
    current: np.ndarray,
    drawn: np.ndarray,
    keys: np.ndarray,
) -> None:
    """One action in every game of the rules-stripped loop: a draw, or a random discard.

    A game deals (a seeded shuffle, 10 cards each), then its seats draw the stock's top
    card and discard one of their 11 cards at random, until two stock cards are left;
    then it deals again. No melds, no knocks, no legal masks.
    """
    for i in range(seeds.shape[0]):
        if stock_pos[i] == 0 or stock_pos[i] >= 50:  # deal
            shuffle_one(seeds[i], np.uint64(counter[i]), keys, deck[i])
            counter[i] += 1
            hands[i, :, :] = False
            for c in range(10):
                hands[i, 0, deck[i, c]] = True
                hands[i, 1, deck[i, 10 + c]] = True
            stock_pos[i] = 21
            current[i] = 0
            drawn[i] = False
        seat = current[i]
        if not drawn[i]:
            hands[i, seat, deck[i, stock_pos[i]]] = True
            stock_pos[i] += 1
            drawn[i] = True
        else:
            bits = mix_one(seeds[i] + np.uint64(counter[i] * 64 + stock_pos[i]) * GOLDEN)
            pick = np.int64(bits % np.uint64(11))
            for c in range(52):
                if hands[i, seat, c]:
                    if pick == 0:
                        hands[i, seat, c] = False
                        break
                    pick -= 1
            current[i] = 1 - seat
            drawn[i] = False


def ceiling_play(batch: int, seconds: float) -> float:
    """Actions per second of the rules-stripped loop (``_stripped_step``) at one batch size."""
    seeds = np.arange(batch, dtype=np.uint64)
    counter = np.zeros(batch, np.int64)
    deck = np.zeros((batch, 52), np.int8)
    stock_pos = np.zeros(batch, np.int64)
    table = np.zeros((batch, 2, 52), bool)
    current = np.zeros(batch, np.int64)
    drawn = np.zeros(batch, bool)
    keys = np.zeros(52, np.uint64)
    _stripped_step(seeds, counter, deck, stock_pos, table, current, drawn, keys)  # compiled

    def work() -> int:
        for _ in range(20):
            _stripped_step(seeds, counter, deck, stock_pos, table, current, drawn, keys)
        return 20 * batch

    return rate(work, seconds)


def hands(n: int, size: int, dense: bool, rng: np.random.Generator) -> np.ndarray:
    """bool[n, 52] hands: uniform, or dense (drawn from 4 ranks x all suits + 2 suits)."""
    out = np.zeros((n, 52), bool)
    for i in range(n):
        if dense:
            ranks = rng.choice(13, 4, replace=False)
            suits = rng.choice(4, 2, replace=False)
            pool = {s * 13 + r for s in range(4) for r in ranks}
            pool |= {s * 13 + r for s in suits for r in range(13)}
            out[i, rng.choice(sorted(pool), size, replace=False)] = True
        else:
            out[i, rng.choice(52, size, replace=False)] = True
    return out


def openspiel_play(seconds: float) -> float | None:
    """OpenSpiel gin_rummy random play: player actions per second (chance moves excluded)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(0)

    def work() -> int:
        state = game.new_initial_state()
        done = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                done += 1
        return done

    return rate(work, seconds)


def openspiel_min_deadwood(batch: np.ndarray, seconds: float) -> float | None:
    """OpenSpiel GinRummyUtils.min_deadwood hands per second (C++ through pybind)."""
    try:
        import pyspiel
    except ImportError:
        return None
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    # OpenSpiel numbers cards by its own suit order (s, c, d, h): convert through text
    lists = [
        [utils.card_int(card_text(c)[0] + card_text(c)[1].lower()) for c in np.flatnonzero(h)]
        for h in batch
    ]

    def work() -> int:
        for cards in lists:
            utils.min_deadwood(cards)
        return len(lists)

    return rate(work, seconds)


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per sample")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096])
    add_repeats(parser)
    args = parser.parse_args()
    sec, n = args.seconds, args.repeats

    play = interleaved(
        {
            "OpenSpiel gin_rummy (1 game)": lambda: openspiel_play(sec),
            "RLCard gin-rummy (1 game)": lambda: rlcard_steps(sec),
            **{f"hollywood-gin, batch {b}": (lambda b=b: ours_play(b, sec)) for b in args.batches},
            **{
                f"ceiling: rules stripped, batch {b}": (lambda b=b: ceiling_play(b, sec))
                for b in args.batches
            },
        },
        n,
    )
    os_rate, rl_rate = (play[k] for k in list(play)[:2])
    rows = []
    for name, got in play.items():
        if got is None:
            rows.append([name, "not installed", "-", "-", "-"])
            continue
        ours = name.startswith(("hollywood-gin", "ceiling"))
        rows.append(
            [
                name,
                fmt_rate(got.median),
                got.spread(),
                f"{got.median / os_rate.median:,.1f}x" if ours and os_rate else "-",
                f"{got.median / rl_rate.median:,.1f}x" if ours and rl_rate else "-",
            ]
        )
    print_table(
        "Random legal play, player actions per second (one core; "
        f"median of {n} x {sec:g} s, {load_text()})",
        ["engine", "actions/s", "min-max", "vs OpenSpiel", "vs RLCard"],
        rows,
    )

    rng = np.random.default_rng(1)
    kinds = [(dense, size) for dense in (False, True) for size in (10, 11)]
    batches = {kind: hands(4096, kind[1], kind[0], rng) for kind in kinds}
    measures: dict[tuple[bool, int, str], Callable[[], float | None]] = {}
    for kind, batch in batches.items():
        measures[(*kind, "ours")] = lambda b=batch: rate(lambda: (min_deadwood(b), len(b))[1], sec)
        measures[(*kind, "theirs")] = lambda b=batch: openspiel_min_deadwood(b[:2000], sec)
    got = interleaved(measures, n)
    rows = []
    for dense, size in kinds:
        ours, theirs = got[(dense, size, "ours")], got[(dense, size, "theirs")]
        assert ours is not None
        rows.append(
            [
                f"{'dense' if dense else 'uniform'} {size} cards",
                fmt_rate(ours.median),
                ours.spread(),
                fmt_rate(theirs.median) if theirs else "not installed",
                theirs.spread() if theirs else "-",
                f"{ours.median / theirs.median:,.1f}x" if theirs else "-",
            ]
        )
    print_table(
        "min_deadwood, hands per second (batch of 4096; OpenSpiel one call per hand; "
        f"median of {n} x {sec:g} s, {load_text()})",
        ["hands", "hollywood-gin", "min-max", "OpenSpiel C++", "min-max", "ratio"],
        rows,
    )


if __name__ == "__main__":
    main()

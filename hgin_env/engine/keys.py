"""Random keys: every random stream of the project is derived here, from a seed and a name.

Two kinds of stream, each with its one table of names:

- **hash streams** (``Salt``): one ``uint64`` per game from ``(seed, counter, salt)``
  through ``hash_stream`` (SplitMix64). They are counter-based, so a game's numbers depend
  on its own seed and counter alone, never on the batch it plays in: the engine's decks
  and dealers, the environments' seats and opponent keys, the evaluator's per-decision
  keys, the training mixture's draws and a network's sampling noise;
- **seed streams** (``SeedStream``): a new integer seed derived from a seed, a stream
  number and a counter through numpy's ``SeedSequence``, for seeds that start other
  generators: the evaluator's series and policies, a training session's deals, an env
  runner's games, the training opponents' bots and snapshots.

A new stream takes a new name (and number) in its table; changing a number changes every
game, result and test that uses it. Nothing outside this module adds to or multiplies a
seed to make another one (``tests/engine/test_keys.py`` checks it). The evaluator's streams
(``DEALS``, ``POLICY_A``, ``POLICY_B``) keep the numbers and widths they always had, so an
evaluation's seed plays the games it played before this module existed.

Also here: the seed range (``check_seed``, ``MAX_SEED``), per-game seeds
(``game_seeds``), uniform numbers from keys (``key_uniforms``, ``to_uniform``) and the
seeds of a training driver's global generators (``driver_seeds``).

>>> int(Salt.DECK), int(SeedStream.POLICY_B)
(1, 2)
>>> sub_seed(7, SeedStream.POLICY_A) == sub_seed(7, SeedStream.POLICY_A) < 2**63
True
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.jit import inline_kernel, kernel

#: SplitMix64's increment (the golden ratio in 64 bits)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: the largest seed: seeds are unsigned 64-bit integers, 0..2**64 - 1
MAX_SEED = 2**64 - 1
#: what engines accept as a seed: an int (game i uses ``seed + i``), uint64[N] per-game
#: seeds, or None for fresh entropy
SeedLike = int | np.integer | np.ndarray | None
#: 2**-53: the top 53 bits of a uint64 as a float in [0, 1)
_UNIT = 1.0 / (1 << 53)


class Salt(IntEnum):
    """The salt of every hash stream (``hash_stream(seeds, counter, salt)``), one table.

    The counter of each stream is what advances it: a game's hand or series number, its
    episode, or how many decisions a player has taken in it.
    """

    #: engine: each hand's deck order (counter: the game's hand number)
    DECK = 1
    #: engine: each hand's dealer when no score sheet decides it
    DEALER = 2
    #: series engine: the first dealer of each series (counter: the series number)
    SERIES_DEALER = 3
    #: engine: which rule set of a mix each episode plays (counter: the episode number)
    RULES_MIX = 4
    #: envs: the agent's seat with ``agent_seat="random"`` (counter: the episode)
    SEAT = 101
    #: envs: the opponent's per-game decision keys (counter: its decisions so far)
    OPPONENT = 102
    #: evaluation: the decision keys of player A, then of player B (counter: decisions)
    EVAL_A = 201
    EVAL_B = 202
    #: training mixture: which opponent a game draws (counter: its draws so far)
    MIXTURE_DRAW = 301
    #: a network's Gumbel noise when it samples (counter: the action id)
    GUMBEL = 401
    #: search: the rollout policies' decision keys (counter: moves played in the rollout)
    SEARCH_ROLLOUT = 0x0C0FFEE
    #: search: the redeal of each sampled world (mixed into the decision key, not hashed)
    SEARCH_WORLDS = 0x5EA4C11
    #: search: the deadwood belief's grown hands, stock orders and resampling draws
    SEARCH_BELIEF = 0x5EA4B3F
    #: search: a bot opponent model's keys when it weighs a world (counter: 0)
    SEARCH_INFER = 0x5EA41F0
    #: search: the decision keys of the hands that measure the series-value table's model
    SERIES_VALUE_MODEL = 7


_DECK = int(Salt.DECK)


class SeedStream(IntEnum):
    """The stream number of every seed derived from a run's or an evaluation's seed.

    The first four are ``SeedSequence([seed, stream])``, the form the evaluator has always
    used (its documented results depend on it). Every later stream is
    ``SeedSequence(seed, spawn_key=(stream, counter))``: numpy pads the entropy of a seed
    with a spawn key to four words first, so no ``[seed, stream]`` pair, and no other
    ``(stream, counter)``, gives the same numbers.
    """

    #: evaluation: the series' deal seeds
    DEALS = 0
    #: evaluation: the seeds of player A's and player B's own random streams
    POLICY_A = 1
    POLICY_B = 2
    #: league: the bootstrap draws of the ratings' intervals
    RATINGS = 3
    #: training: a session's deals (counter: the step the session starts at)
    SESSION = 4
    #: training: the deals a teacher's demonstrations are recorded on (``pretrain``)
    PRETRAIN_DEALS = 5
    #: training: the teacher's own random stream
    TEACHER = 6
    #: training: the minibatch order of imitation
    IMITATION = 7
    #: training: a resumed session's global generators (counter: the step it resumes at)
    RESUME = 8
    #: training: an env runner's games and torch draws (counter: the worker index)
    ENV_RUNNER = 9
    #: training: the random stream of each opponent bot (counter: its place in the mix)
    TRAINING_BOT = 10
    #: training: a self-play snapshot's sampling (counter: the step it was taken at)
    SNAPSHOT = 11
    #: training: a league exploiter's sampling (counter: the learner's step it trained at)
    EXPLOITER = 12
    #: web table: the second player's random stream of a watched game
    WATCH_SECOND = 13


#: the streams of the historical form ``SeedSequence([seed, stream])``
_PAIR_STREAMS = frozenset(
    {SeedStream.DEALS, SeedStream.POLICY_A, SeedStream.POLICY_B, SeedStream.RATINGS}
)


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _ONE = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(1)
_S11 = np.uint64(11)


@kernel
def mix_one(x: np.uint64) -> np.uint64:
    """SplitMix64's finalizer of one uint64 (wrapping arithmetic)."""
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


@kernel
def hash_one(seed: np.uint64, counter: np.uint64, salt: np.uint64) -> np.uint64:
    """``hash_stream`` of one game: SplitMix64 of the seed and salt, then of the counter."""
    return mix_one(mix_one(seed * GOLDEN + salt) ^ (counter * GOLDEN))


@inline_kernel
def uniform_one(bits: np.uint64) -> float:
    """``to_uniform`` of one uint64: its top 53 bits as a float in [0, 1)."""
    return np.float64(bits >> np.uint64(11)) * _UNIT


@kernel
def _mix_all(x: np.ndarray, out: np.ndarray) -> None:
    for i in range(x.shape[0]):
        out[i] = mix_one(x[i])


@kernel
def _hash_all(seeds: np.ndarray, counter: np.ndarray, salt: np.uint64, out: np.ndarray) -> None:
    for i in range(seeds.shape[0]):
        out[i] = hash_one(seeds[i], counter[i], salt)


@kernel
def shuffle_one(seed: np.uint64, counter: np.uint64, keys: np.ndarray, deck: np.ndarray) -> None:
    """Fill ``deck`` (int8[52]) with the deck order of (seed, counter): ``shuffled_decks``."""
    base = hash_one(seed, counter, np.uint64(_DECK))
    for c in range(N_CARDS):
        keys[c] = mix_one(base + np.uint64(c + 1) * GOLDEN)
    order = np.argsort(keys, kind="mergesort")
    for c in range(N_CARDS):
        deck[c] = order[c]


@kernel
def _shuffle_all(seeds: np.ndarray, counter: np.ndarray, decks: np.ndarray) -> None:
    keys = np.zeros(N_CARDS, np.uint64)
    for i in range(seeds.shape[0]):
        shuffle_one(seeds[i], counter[i], keys, decks[i])


def _u64(x: np.ndarray | int) -> np.ndarray:
    """``x`` as a C-contiguous uint64[M] (any shape, flattened)."""
    return np.ascontiguousarray(x, dtype=np.uint64).reshape(-1)


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finalizer over uint64 arrays: a fast, well-spread integer hash."""
    flat = _u64(x)
    out = np.empty_like(flat)
    _mix_all(flat, out)
    return out.reshape(np.shape(x))[()]


def hash_stream(seeds: np.ndarray, counter: np.ndarray, salt: int) -> np.ndarray:
    """One uint64 per game from ``(seed, counter, salt)``; ``salt`` is a ``Salt``.

    ``seeds`` and ``counter`` broadcast against each other (scalars give a scalar).
    """
    s, c = np.broadcast_arrays(np.asarray(seeds, np.uint64), np.asarray(counter, np.uint64))
    out = np.empty(s.shape, dtype=np.uint64)
    _hash_all(_u64(s), _u64(c), np.uint64(salt), out.reshape(-1))
    return out[()]


def shuffled_decks(seeds: np.ndarray, counter: np.ndarray) -> np.ndarray:
    """int8[N, 52] deck orders, one permutation per (seed, counter) pair.

    Deck ``i`` sorts the cards by the keys ``mix64(hash_stream(seed, counter, DECK) +
    (c + 1) * GOLDEN)`` (a stable sort).
    """
    s, c = np.broadcast_arrays(np.asarray(seeds, np.uint64), np.asarray(counter, np.uint64))
    decks = np.empty((s.size, N_CARDS), dtype=np.int8)
    _shuffle_all(_u64(s), _u64(c), decks)
    return decks


def to_uniform(bits: np.ndarray, open_interval: bool = False) -> np.ndarray:
    """float64 numbers in [0, 1) from uint64 ``bits`` (their top 53 bits).

    Args:
        bits: uint64 array.
        open_interval: shift by half a step, so that no number is 0 (for a logarithm;
            the largest word then rounds to 1.0 in float64).
    """
    top = np.asarray(bits, np.uint64) >> np.uint64(11)
    return ((top + 0.5) if open_interval else top) * _UNIT


def spread_keys(keys: np.ndarray, count: int, salt: int) -> np.ndarray:
    """``uint64[N, count]``: ``count`` sub-keys of each key, entry ``(i, j)`` from ``keys[i]``.

    The SplitMix64 sequence of ``keys[i] ^ salt`` (the search's sampled worlds use it).
    """
    k = np.asarray(keys, dtype=np.uint64).reshape(-1, 1) ^ np.uint64(salt)
    with np.errstate(over="ignore"):
        return mix64(k + (np.arange(1, count + 1, dtype=np.uint64) * GOLDEN)[None, :])


def key_uniforms(keys: np.ndarray, count: int, offset: int = 0) -> np.ndarray:
    """``float64[N, count]`` uniform numbers in [0, 1), entry ``(i, j)`` from ``keys[i]`` alone.

    Number ``j`` is ``key_uniform(key, offset + j)``: the top 53 bits of ``mix64(key +
    (offset + j + 1) * GOLDEN)`` (the SplitMix64 sequence of the key), so callers take
    disjoint ``offset`` ranges for the different random choices of one decision.
    """
    k = _u64(keys)
    out = np.empty((k.size, count), dtype=np.float64)
    _key_uniforms_rows(k, int(offset), out)
    return out


@inline_kernel
def key_uniform(key: np.uint64, index: int) -> float:
    """Uniform number ``index`` of ``key`` in [0, 1) (``key_uniforms``, in a kernel)."""
    bits = mix_one(key + np.uint64(index + 1) * GOLDEN)
    return float(bits >> _S11) * _UNIT


@kernel
def _key_uniforms_rows(keys: np.ndarray, offset: int, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = key_uniform(keys[i], offset + j)


def _stream_words(seed: int, stream: SeedStream, counter: int, count: int) -> np.ndarray:
    """``count`` uint64 words of stream ``stream`` of ``seed`` at ``counter``.

    Raises:
        ValueError: a counter on one of the four pair streams (they have none).
    """
    if stream in _PAIR_STREAMS:
        if counter:
            raise ValueError(f"stream {stream.name} takes no counter, got {counter}")
        sequence = np.random.SeedSequence([seed, stream])
    else:
        sequence = np.random.SeedSequence(seed, spawn_key=(stream, counter))
    return sequence.generate_state(count, np.uint64)


def sub_seed(seed: int, stream: SeedStream, counter: int = 0, bits: int = 63) -> int:
    """A ``bits``-bit seed derived from ``(seed, stream, counter)`` (the top bits of a word).

    >>> sub_seed(3, SeedStream.SNAPSHOT, 2048, bits=32) < 2**32
    True
    """
    return int(_stream_words(seed, stream, counter, 1)[0] >> np.uint64(64 - bits))


def series_seeds(seed: int, n: int) -> np.ndarray:
    """uint64[n]: the deal seeds of an evaluation's ``n`` series (``SeedStream.DEALS``)."""
    return _stream_words(seed, SeedStream.DEALS, 0, n)


def session_seed(seed: int, steps: int) -> int:
    """The game seed of a training session that starts at ``steps`` (62 bits).

    Derived through a hash so that runs with nearby seeds, and a resumed session, do not
    replay the same deals.
    """
    return sub_seed(seed, SeedStream.SESSION, steps, bits=62)


def worker_seeds(seed: int, worker: int) -> tuple[int, int]:
    """The game seed and torch seed (62 bits each) of env runner ``worker`` of a run."""
    games, draws = _stream_words(seed, SeedStream.ENV_RUNNER, worker, 2) >> np.uint64(2)
    return int(games), int(draws)


def driver_seeds(seed: int) -> tuple[int, int, int]:
    """The seeds of a training driver's global generators: ``(random, numpy, torch)``."""
    return seed, seed % 2**32, seed


def fresh_seed() -> int:
    """A 63-bit seed from the operating system's entropy (not reproducible)."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


def check_seed(seed: object) -> int:
    """``seed`` as a Python int after checking that it is an integer in 0..``MAX_SEED``.

    Raises:
        ValueError: for anything else (negative, too large, not an integer), naming it.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ValueError(f"a seed must be an integer in 0..2**64-1, got {seed!r}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"a seed must be an integer in 0..2**64-1, got {int(seed)}")
    return int(seed)


def game_seed_rows(seed: int, rows: np.ndarray) -> np.ndarray:
    """uint64 seeds of games ``rows`` of ``seed``: game i plays ``seed + i`` (mod 2**64).

    >>> game_seed_rows(2**64 - 1, np.array([0, 2])).tolist()
    [18446744073709551615, 1]
    """
    with np.errstate(over="ignore"):
        return np.uint64(check_seed(seed)) + np.asarray(rows, dtype=np.uint64)


def game_seeds(seed: SeedLike, n: int) -> np.ndarray:
    """Per-game uint64 seeds: an int s gives s, s+1, ..., s+n-1; an array is used as is.

    Seeds are integers in 0..2**64-1 (``check_seed``); ``s + i`` wraps modulo 2**64.
    """
    if seed is None:
        seed = fresh_seed()
    arr = np.asarray(seed)
    if arr.ndim == 0:
        return game_seed_rows(arr.item(), np.arange(n))
    if arr.shape != (n,):
        raise ValueError(f"seed array must have shape ({n},), got {arr.shape}")
    if arr.dtype.kind != "u":
        for value in arr.tolist():
            check_seed(value)
    return arr.astype(np.uint64)

"""V(score sheet): the chance that a seat wins a Hollywood series, from a table solved once.

The search prices a hand's outcome by how much it changes the chance of winning the
series (docs/search.md). The chance comes from a **hand-outcome model** and two steps.

**Hand-outcome model.** Hands are independent; each decided hand (drawn and truncated
hands change nothing and are left out) is won by either seat with probability 1/2, and
is worth ``base + bonus`` points, where ``(kind, base)`` is drawn from the distribution
measured in ``expert`` vs ``expert`` play (``HAND_OUTCOMES``, 6000 hands, seed 424242,
``measure_hand_outcomes``): ``kind`` a knock (``base`` = the deadwood difference), a gin
(``base`` = the defender's deadwood, plus ``gin_bonus``) or an undercut (``base`` = the
deadwood difference, plus ``undercut_bonus``). The bonuses are read from the rules, so the
model follows ``undercut_bonus=25``; the frequencies are those of the default rules.

**One game** (``GameTable``). ``T[ka, kb, a, b]``: the chance that player A, at ``a``
points against B's ``b`` in one Hollywood game, reaches ``game_target`` first, when A's
next ``ka`` wins (and B's next ``kb``) are not entered in this game (a player enters game
2 from its second win on, game 3 from its third: the *entry delay*, 0..2). Solved by
dynamic programming over the anti-diagonals ``a + b`` (every point-scoring win moves to a
later one; a win worth 0 points is a self-loop, divided out) for all ``ka, kb`` at once.

**The sheet** (``series_values``). Each open game ``j`` gets ``p_j = T[ka_j, kb_j, a_j,
b_j]`` with the entry delays read from the sheet (0 in a game the player is entered in
or that is the first open one; else one more than in the game before; 2 when the game
before has ended without the player), an ended game 1 or 0; the series chance is that of
winning two of three *independent* games, ``p1 p2 + p1 p3 + p2 p3 - 2 p1 p2 p3``. This
is the approximation: the same hands score in several games, so the games are positively
correlated (docs/search.md measures the error against simulated series). It is exact on
the sheet's end states (two games won: 1) and symmetric (``V(me) = 1 - V(opponent)``).

The table is built on first use (about 0.1 s) and cached per (target, bonuses).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.hollywood import N_GAMES, ScoreSheets

#: entry delays the table covers (a player enters game 3 after two more wins at most)
MAX_DELAY = 2
#: outcome kinds of the hand-outcome model
KNOCK, GIN, UNDERCUT = 0, 1, 2
#: ``kind -> {base points: hands}``: expert vs expert, 6000 hands, seed 424242
#: (``measure_hand_outcomes("expert", 6000, 424242)``; 11 drawn hands left out)
HAND_OUTCOMES: dict[int, dict[int, int]] = {
    KNOCK: {
        1: 154, 2: 181, 3: 218, 4: 270, 5: 257, 6: 292, 7: 261, 8: 275, 9: 257, 10: 246, 11:
        226, 12: 214, 13: 195, 14: 179, 15: 187, 16: 154, 17: 151, 18: 128, 19: 124, 20: 130,
        21: 91, 22: 86, 23: 86, 24: 101, 25: 75, 26: 67, 27: 68, 28: 66, 29: 63, 30: 48, 31: 60,
        32: 48, 33: 34, 34: 46, 35: 46, 36: 43, 37: 32, 38: 34, 39: 29, 40: 27, 41: 22, 42: 23,
        43: 28, 44: 28, 45: 30, 46: 22, 47: 15, 48: 8, 49: 19, 50: 10, 51: 12, 52: 10, 53: 11,
        54: 7, 55: 7, 56: 5, 57: 8, 58: 11, 59: 1, 60: 4, 61: 3, 62: 2, 63: 3, 64: 1, 65: 1, 66:
        1, 67: 3, 68: 1, 69: 1, 74: 2, 78: 1
    },
    GIN: {
        11: 6, 12: 3, 13: 10, 14: 3, 15: 5, 16: 2, 17: 5, 18: 3, 19: 7, 20: 5, 21: 5, 22: 5, 23:
        3, 24: 6, 25: 3, 26: 3, 27: 1, 28: 4, 29: 5, 30: 4, 31: 2, 32: 4, 33: 1, 34: 1, 37: 1,
        39: 2, 40: 1, 41: 2, 42: 3, 43: 1, 46: 1, 49: 1, 58: 1, 65: 1, 68: 1
    },
    UNDERCUT: {
        0: 96, 1: 79, 2: 63, 3: 40, 4: 25, 5: 14, 6: 7, 7: 2, 8: 1, 9: 2
    },
}  # fmt: skip


def points_distribution(rules: RulesConfig) -> np.ndarray:
    """float64[P + 1]: the probability that a decided hand is worth 0..P points, for ``rules``."""
    bonus = {KNOCK: 0, GIN: rules.gin_bonus, UNDERCUT: rules.undercut_bonus}
    top = max(base + bonus[kind] for kind, counts in HAND_OUTCOMES.items() for base in counts)
    pmf = np.zeros(top + 1)
    for kind, counts in HAND_OUTCOMES.items():
        for base, count in counts.items():
            pmf[base + bonus[kind]] += count
    return pmf / pmf.sum()


def solve_game(target: int, pmf: np.ndarray) -> np.ndarray:
    """``float64[3, 3, target, target]``: the one-game table ``T[ka, kb, a, b]`` (module docs).

    Args:
        target: the game target (points to reach).
        pmf: float[P + 1], the distribution of a decided hand's points (sums to 1).
    """
    pmf = np.asarray(pmf, dtype=np.float64)
    top = pmf.size - 1
    size = target + top + 1
    d = MAX_DELAY + 1
    v = np.zeros((d, d, size, size))
    v[:, :, target:, :] = 1.0  # A reached the target first (B's cells there are never read)
    x = np.arange(1, top + 1)
    px = pmf[1:]
    p0 = pmf[0]
    for s in range(2 * target - 2, -1, -1):
        a = np.arange(max(0, s - target + 1), min(s, target - 1) + 1)
        b = s - a
        for total in range(2 * d - 1):
            for ka in range(max(0, total - d + 1), min(total, d - 1) + 1):
                kb = total - ka
                # A wins the hand: entered (points) when ka == 0, else one delay less
                if ka == 0:
                    win_a = v[0, kb][a[:, None] + x[None, :], b[:, None]] @ px
                else:
                    win_a = v[ka - 1, kb, a, b]
                if kb == 0:
                    win_b = v[ka, 0][a[:, None], b[:, None] + x[None, :]] @ px
                else:
                    win_b = v[ka, kb - 1, a, b]
                stay = 0.5 * p0 * ((ka == 0) + (kb == 0))  # a 0-point entered win
                v[ka, kb, a, b] = 0.5 * (win_a + win_b) / (1.0 - stay)
    return v[:, :, :target, :target].copy()


@lru_cache(maxsize=8)
def game_table(target: int, gin_bonus: int, undercut_bonus: int) -> np.ndarray:
    """The cached ``solve_game`` table for a target and the bonuses of the points model."""
    rules = RulesConfig(game_target=target, gin_bonus=gin_bonus, undercut_bonus=undercut_bonus)
    table = solve_game(target, points_distribution(rules))
    table.setflags(write=False)
    return table


def entry_delays(sheets: ScoreSheets, seat: np.ndarray) -> np.ndarray:
    """int64[N, 3]: wins of ``seat`` (int[N]) before its wins enter each game (module docs)."""
    n = sheets.n
    r = np.arange(n)
    entered = sheets.entered[r, seat]  # bool[N, 3]
    open_games = sheets.open_games
    first_open = open_games & (np.cumsum(open_games, axis=1) == 1)
    delay = np.zeros((n, N_GAMES), dtype=np.int64)
    for j in range(1, N_GAMES):
        behind = np.where(open_games[:, j - 1], delay[:, j - 1] + 1, MAX_DELAY)
        delay[:, j] = np.where(entered[:, j - 1] | first_open[:, j], 0, behind)
    return np.minimum(np.where(entered, 0, delay), MAX_DELAY)


def series_values(sheets: ScoreSheets, seat: np.ndarray | int) -> np.ndarray:
    """float64[N]: the chance that ``seat`` wins each sheet's series (see the module docstring).

    Args:
        sheets: the score sheets (their ``rules`` give the target and the bonuses).
        seat: int[N] or one seat, 0 or 1.
    """
    rules = sheets.rules
    n = sheets.n
    seat = np.broadcast_to(np.asarray(seat, dtype=np.int64), (n,))
    other = 1 - seat
    r = np.arange(n)
    table = game_table(rules.game_target, rules.gin_bonus, rules.undercut_bonus)
    top = rules.game_target - 1
    mine = np.minimum(sheets.scores[r, seat], top)  # [N, 3]
    theirs = np.minimum(sheets.scores[r, other], top)
    ka, kb = entry_delays(sheets, seat), entry_delays(sheets, other)
    p = table[ka, kb, mine, theirs]
    ended = sheets.game_winners >= 0
    p = np.where(ended, (sheets.game_winners == seat[:, None]).astype(np.float64), p)
    p1, p2, p3 = p[:, 0], p[:, 1], p[:, 2]
    value = p1 * p2 + p1 * p3 + p2 * p3 - 2.0 * p1 * p2 * p3
    done = sheets.finished
    return np.where(done, (sheets.series_winner == seat).astype(np.float64), value)


def measure_hand_outcomes(policy: str, hands: int, seed: int) -> dict[int, dict[int, int]]:
    """``kind -> {base: count}`` over ``hands`` single hands of ``policy`` against itself.

    How ``HAND_OUTCOMES`` was measured (``policy="expert"``, 6000 hands, seed 424242).
    """
    from agents.policies.model import load_policy
    from hgin_env.engine.game import GinEngine, Outcome
    from hgin_env.engine.keys import Salt
    from hgin_env.envs.play import play_batch

    bot = load_policy(policy, seed)
    engine = GinEngine(hands, seed=seed)
    engine.reset()
    salt = int(Salt.SERIES_VALUE_MODEL)
    play_batch(engine, bot, bot, salts=(salt, salt), shared_moves=True)
    s = engine.state
    kdw, ddw = s.knocker_deadwood.astype(int), s.defender_deadwood.astype(int)
    kind = {int(Outcome.KNOCK): KNOCK, int(Outcome.GIN): GIN, int(Outcome.BIG_GIN): GIN}
    kind[int(Outcome.UNDERCUT)] = UNDERCUT
    counts: dict[int, dict[int, int]] = {KNOCK: {}, GIN: {}, UNDERCUT: {}}
    for i in range(hands):
        k = kind.get(int(s.outcome[i]))
        if k is None:
            continue  # drawn or truncated
        base = int({KNOCK: ddw[i] - kdw[i], GIN: ddw[i], UNDERCUT: kdw[i] - ddw[i]}[k])
        counts[k][base] = counts[k].get(base, 0) + 1
    return {k: dict(sorted(c.items())) for k, c in counts.items()}

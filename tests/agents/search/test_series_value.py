"""The series value table V(score sheet) on cases small enough to work out by hand."""

from __future__ import annotations

import numpy as np

from agents.search.series_value import (
    entry_delays,
    game_table,
    points_distribution,
    series_values,
    solve_game,
)
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.hollywood import ScoreSheets


def _sheets(*hands: tuple[int, int], rules: RulesConfig | None = None) -> ScoreSheets:
    """One sheet with the given (winner, points) hands recorded."""
    sheets = ScoreSheets(1, rules)
    for winner, points in hands:
        sheets.record(np.array([winner]), np.array([points]))
    return sheets


def test_two_games_won_is_a_won_series():
    """A seat that has won two games has V = 1 and its opponent V = 0."""
    sheets = _sheets((0, 100), (0, 100))  # game 1, then game 2 (entered from the 2nd win)
    assert sheets.games_won[0].tolist() == [2, 0]
    assert series_values(sheets, 0)[0] == 1.0 and series_values(sheets, 1)[0] == 0.0


def test_the_value_is_symmetric_and_even_at_the_start():
    """V(me) + V(opponent) = 1 on any sheet (no draws in the model), 1/2 on an empty one."""
    assert abs(series_values(ScoreSheets(1), 0)[0] - 0.5) < 1e-12
    rng = np.random.default_rng(3)
    for _ in range(30):
        hands = [(int(rng.integers(2)), int(rng.integers(0, 60))) for _ in range(rng.integers(8))]
        sheets = _sheets(*hands)
        total = series_values(sheets, 0)[0] + series_values(sheets, 1)[0]
        assert abs(total - 1.0) < 1e-9


def test_every_hand_worth_the_target_gives_best_of_three_coins():
    """Hands worth the target each end a game: a seat 1 game up needs 1 of 2 coin flips, 3/4."""
    table = solve_game(10, np.eye(11)[10])
    assert abs(table[0, 0, 0, 0] - 0.5) < 1e-12 and abs(table[1, 1, 0, 0] - 0.5) < 1e-12
    assert abs(table[0, 1, 0, 0] - 0.75) < 1e-12  # B's first win does not count here
    sheets = _sheets((0, 10), rules=RulesConfig(game_target=10))
    assert sheets.game_winners[0].tolist() == [0, -1, -1]
    # games 2 and 3 then read the table at delays (0, 0) and (1, 1): p2 + p3 - p2 p3 = 3/4
    assert entry_delays(sheets, np.array([0])).tolist() == [[0, 0, 1]]
    assert entry_delays(sheets, np.array([1])).tolist() == [[0, 0, 1]]


def test_one_game_table_matches_a_simulated_race():
    """T[0, 0, a, b] agrees with a Monte Carlo race to the target under the same points model."""
    pmf = np.zeros(31)
    pmf[[0, 5, 10, 30]] = [0.1, 0.4, 0.3, 0.2]
    table = solve_game(40, pmf)
    rng = np.random.default_rng(0)
    a0, b0, n = 15, 5, 20000
    a, b = np.full(n, a0), np.full(n, b0)
    while ((a < 40) & (b < 40)).any():
        live = (a < 40) & (b < 40)
        pts = rng.choice(31, size=n, p=pmf)
        a_wins = rng.random(n) < 0.5
        a = np.where(live & a_wins, a + pts, a)
        b = np.where(live & ~a_wins, b + pts, b)
    assert abs((a >= 40).mean() - table[0, 0, a0, b0]) < 0.015


def test_entry_delays_follow_the_hollywood_entry_rule():
    """A first win enters game 1 only: the next win enters game 2, the one after game 3."""
    sheets = _sheets((0, 10))
    assert entry_delays(sheets, np.array([0])).tolist() == [[0, 0, 1]]
    assert entry_delays(sheets, np.array([1])).tolist() == [[0, 1, 2]]


def test_more_points_are_worth_more_and_the_bonuses_follow_the_rules():
    """V grows with the seat's score; a larger undercut bonus moves points mass upwards."""
    values = [series_values(_sheets((0, p)), 0)[0] for p in (5, 20, 40, 80)]
    assert values == sorted(values) and values[0] > 0.5
    low = points_distribution(RulesConfig())
    high = points_distribution(RulesConfig(undercut_bonus=25))
    mean = lambda pmf: float(np.arange(pmf.size) @ pmf)  # noqa: E731
    assert mean(high) > mean(low)
    assert game_table(100, 25, 10) is game_table(100, 25, 10)  # solved once, cached

"""The score-sheet blocks of the observation decode back to the sheet they show."""

from __future__ import annotations

import numpy as np

from agents import SimpleBot
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import decode_sheets, encode_observations


def test_each_seat_decodes_the_series_sheet_with_itself_as_seat_0() -> None:
    """Seeded series play: each open series' totals, entries and won games, observing seat first.

    A short game target, so that games end within the play.
    """
    rules = RulesConfig(game_target=20)
    series = SeriesEngine(16, rules, seed=5)
    series.reset()
    bot = SimpleBot(5, rules=rules)
    checked = won = 0
    while not series.sheets.finished.all():
        eng, true = series.engine, series.sheets
        # open series whose totals are shown uncapped (below twice the target)
        uncapped = (true.scores < 2 * rules.game_target).all(axis=(1, 2))
        rows = np.flatnonzero(~true.finished & uncapped)
        for seat in (0, 1):
            seen = decode_sheets(encode_observations(eng, np.full(eng.n, seat), true), rules)
            assert seen is not None
            order = [seat, 1 - seat]
            assert np.array_equal(seen.scores[rows], true.scores[rows][:, order])
            assert np.array_equal(seen.entered[rows], true.entered[rows][:, order])
            winners = true.game_winners[rows]
            relative = np.where(winners < 0, -1, np.where(winners == seat, 0, 1))
            assert np.array_equal(seen.game_winners[rows], relative)
            assert not seen.finished[rows].any() and (seen.series_winner[rows] == -1).all()
        checked += rows.size
        won += int((true.game_winners[rows] >= 0).sum())
        obs = encode_observations(eng, eng.current_player, true)
        series.step(bot.act(obs, eng.legal_action_mask()))
    assert checked > 0 and won > 0


def test_hand_mode_observations_show_no_sheet() -> None:
    """Without a score sheet (hand mode) there is nothing to decode: None."""
    engine = GinEngine(4, seed=1)
    engine.reset()
    assert decode_sheets(encode_observations(engine, engine.current_player), RulesConfig()) is None

"""The compiled observation encoder against a plain numpy reference, block by block.

``encode_observations`` writes every block in one compiled loop over the games; the
reference below builds the same blocks with numpy, one block at a time, straight from the
engine's state (the layout table of ``hgin_env.envs.observation``). Over seeded random
play, in hand and series mode, under a rules mix and with the card just taken allowed
back, both must agree to the bit for every seat and any selection of games (one game
alone included).
"""

from __future__ import annotations

import numpy as np
import pytest

from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import STOCK_AT_DEAL, GinEngine, Phase
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.melds import NO_DEADWOOD
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs.observation import OBS_DIM, OBS_LAYOUT, encode_observations
from hgin_env.envs.policy import random_legal_actions

_PHASE_ENTRY = {int(Phase.OFFER): 0, int(Phase.DRAW): 1, int(Phase.DISCARD): 3}


def reference_observations(
    engine: GinEngine, seats: np.ndarray, sheets: ScoreSheets | None, rows: np.ndarray
) -> np.ndarray:
    """float32[M, OBS_DIM]: the observations, block by block in numpy (the oracle)."""
    s, L = engine.state, OBS_LAYOUT
    opp = 1 - seats
    obs = np.zeros((rows.size, OBS_DIM), np.float32)
    obs[:, L["hand"]] = s.hands[rows, seats]
    obs[:, L["opponent_known"]] = s.known[rows, opp]
    obs[:, L["opponent_discards"]] = s.discards[rows, opp]
    obs[:, L["own_discards"]] = s.discards[rows, seats]
    obs[:, L["pile_below"]] = s.in_pile[rows]
    for i, g in enumerate(rows):
        size = int(s.pile_size[g])
        if size:
            top = int(s.pile[g, size - 1])
            obs[i, L["pile_below"].start + top] = 0.0
            obs[i, L["top_discard"].start + top] = 1.0
        phase = int(s.phase[g])
        live = phase != int(Phase.OVER)
        acting = live and int(s.current[g]) == seats[i]
        if acting and phase == int(Phase.DISCARD):
            dd = engine.discard_deadwood(np.array([g]))[0]
            obs[i, L["discard_deadwood"]] = np.minimum(dd, 100.0) / 100.0
            allowed = dd.copy()
            if not engine.rules.allow_rediscard and s.taken[g] >= 0:
                allowed[s.taken[g]] = NO_DEADWOOD
            deadwood = allowed.min()
        else:
            deadwood = engine.hand_deadwood(np.array([g]), np.array([seats[i]]))[0]
        obs[i, L["deadwood"].start] = deadwood / 100.0
        if live:
            entry = _PHASE_ENTRY[phase] + (phase == int(Phase.DRAW) and bool(s.must_draw_stock[g]))
            obs[i, L["phase"].start + entry] = 1.0
        obs[i, L["to_act"].start] = acting
        obs[i, L["stock"].start] = (N_CARDS - int(s.stock_pos[g])) / STOCK_AT_DEAL
        obs[i, L["dealer"].start] = int(s.dealer[g]) == seats[i]
        obs[i, L["turn"].start] = int(s.turns[g]) / engine.rules.max_turns_per_hand
        if sheets is not None:
            target = float(engine.rules.game_target)
            me, them = seats[i], opp[i]
            obs[i, L["my_scores"]] = np.minimum(sheets.scores[g, me] / target, 2.0)
            obs[i, L["opp_scores"]] = np.minimum(sheets.scores[g, them] / target, 2.0)
            obs[i, L["my_entered"]] = sheets.entered[g, me]
            obs[i, L["opp_entered"]] = sheets.entered[g, them]
            obs[i, L["open_games"]] = sheets.open_games[g]
            obs[i, L["my_next_entry"]] = sheets.next_entry_games(np.full(sheets.n, me))[g]
            obs[i, L["opp_next_entry"]] = sheets.next_entry_games(np.full(sheets.n, them))[g]
            obs[i, L["rules_game_target"].start] = min(target / 100.0, 2.0)
        hr = engine.hand_rules
        obs[i, L["rules_knock_limit"].start] = hr.knock_limit[g] / 100.0
        obs[i, L["rules_gin_bonus"].start] = min(hr.gin_bonus[g] / 100.0, 2.0)
        obs[i, L["rules_undercut_bonus"].start] = min(hr.undercut_bonus[g] / 100.0, 2.0)
        obs[i, L["rules_big_gin"].start] = hr.big_gin[g]
        obs[i, L["rules_big_gin_bonus"].start] = min(hr.big_gin_bonus[g] / 100.0, 2.0)
    return obs


RULES = {
    "default": None,
    "rediscard": RulesConfig(allow_rediscard=True),
    "mix": [RulesConfig(), RulesConfig(knock_limit=5, gin_bonus=250, big_gin_bonus=31)],
}


@pytest.mark.parametrize("mode", ["hand", "series"])
@pytest.mark.parametrize("rules", list(RULES))
def test_encoder_matches_the_numpy_reference_over_random_play(mode, rules):
    """Every observation of seeded random play equals the reference's, bit for bit."""
    n = 12
    rng = np.random.default_rng(7)
    if mode == "series":
        table: GinEngine | SeriesEngine = SeriesEngine(n, RULES[rules], seed=3)
    else:
        table = GinEngine(n, RULES[rules], seed=3)
    table.reset()
    checked = 0
    for _ in range(80):
        engine = table.engine if isinstance(table, SeriesEngine) else table
        sheets = table.sheets if isinstance(table, SeriesEngine) else None
        for seat in (0, 1):
            seats = np.full(n, seat, np.int64)
            rows = np.arange(n)
            want = reference_observations(engine, seats, sheets, rows)
            np.testing.assert_array_equal(encode_observations(engine, seats, sheets), want)
            pick = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
            got = encode_observations(engine, seats[pick], sheets, pick)
            np.testing.assert_array_equal(got, want[pick])
            checked += 1
        actions = random_legal_actions(engine.legal_action_mask(), rng)
        if isinstance(table, SeriesEngine):
            table.step(actions)
            if table.finished.any():
                table.reset(table.finished)
        elif table.over.all():
            table.reset()
        else:
            table.step(np.where(table.over, 0, actions), ~table.over)
    assert checked == 160

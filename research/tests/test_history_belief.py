"""``research.experiments.history_belief``: the order-of-play planes against a card-by-card walk."""

from __future__ import annotations

import numpy as np

from agents.bots import SimpleBot
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.game import GinEngine
from hgin_env.envs.observation import encode_observations
from research.experiments.history_belief import PLANES, history_features


def _reference(engine: GinEngine, game: int, seat: int) -> np.ndarray:
    """The four planes of one position, walking the pile from the top one card at a time."""
    st = engine.state
    pile = [int(c) for c in st.pile[game, : st.pile_size[game]]]
    mine, theirs = st.discards[game, seat], st.discards[game, 1 - seat]
    owner = ["me" if mine[c] and not theirs[c] else "them" if theirs[c] and not mine[c] else ""
             for c in pile]  # fmt: skip
    out = np.zeros((len(PLANES), N_CARDS), np.float32)
    seen = {"me": 0, "them": 0}
    for i in range(len(pile) - 1, -1, -1):  # top first
        who = owner[i]
        if not who:
            continue
        out[3 if who == "me" else 2, pile[i]] = 1.0 / (1 + seen[who])
        seen[who] += 1
        if who == "me" and i + 1 < len(pile) and owner[i + 1] == "them":
            out[0, pile[i]] = 1.0
    out[1] = mine & theirs
    return out.reshape(-1)


def test_the_planes_match_the_reference_over_seeded_play():
    """Every position of 24 seeded hands of ``simple``, both seats' views, plane by plane."""
    engine = GinEngine(24, seed=11)
    engine.reset()
    bot = SimpleBot(5)
    checked = passed = 0
    while not engine.over.all():
        live = np.flatnonzero(~engine.over)
        for seat in (0, 1):
            got = history_features(engine, live, np.full(live.size, seat))
            for k, g in enumerate(live):
                want = _reference(engine, int(g), seat)
                assert np.array_equal(got[k], want), (int(g), seat)
                passed += int(want[:N_CARDS].sum())
                checked += 1
        actions = np.zeros(engine.n, np.int64)
        masks = engine.legal_action_mask()
        obs = encode_observations(engine, engine.current_player[live], None, live)
        actions[live] = bot.act(obs, masks[live])
        engine.step(actions)
    assert checked > 1000 and passed > 100  # the planes were not all empty

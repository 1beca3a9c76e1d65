"""The policy kernel (``PolicyCall``) and the one two-policy loop (``play_batch``)."""

from __future__ import annotations

import numpy as np
import pytest

from hgin_env.engine.game import GinEngine
from hgin_env.engine.series import SeriesEngine
from hgin_env.envs import policy as policy_module
from hgin_env.envs.play import play_batch
from hgin_env.envs.policy import PolicyCall, RandomPolicy


class Recorder:
    """A deterministic policy (lowest legal id) that records the keywords of each call."""

    def __init__(self) -> None:
        self.calls: list[dict[str, np.ndarray]] = []

    def act(self, observations, action_masks):
        """The lowest legal action of each row."""
        self.calls.append({})
        return np.asarray(action_masks).argmax(axis=1)


class KeyedRecorder(Recorder):
    """Like ``Recorder``, but takes per-game ``keys`` and ``rows``."""

    def act(self, observations, action_masks, keys=None, rows=None):  # type: ignore[override]
        """The lowest legal action of each row; the keywords are recorded."""
        self.calls.append({"keys": keys, "rows": rows})
        return np.asarray(action_masks).argmax(axis=1)


def test_policy_call_passes_only_the_keywords_a_policy_declares():
    """Keys and rows reach a policy that declares them and never one that does not."""
    masks = np.ones((3, 107), dtype=bool)
    keys, rows = np.arange(3, dtype=np.uint64), np.arange(3)
    plain, keyed = Recorder(), KeyedRecorder()
    PolicyCall.of(plain)(None, masks, keys=keys, rows=rows)
    PolicyCall.of(keyed)(None, masks, keys=keys, rows=rows)
    PolicyCall.of(keyed)(None, masks)  # None keywords are left out
    assert plain.calls == [{}]
    assert keyed.calls[0]["keys"] is keys and keyed.calls[0]["rows"] is rows
    assert keyed.calls[1] == {"keys": None, "rows": None}
    call = PolicyCall.of(RandomPolicy())
    assert call.keys and not call.rows and not call.observes


def test_a_mixture_inspects_its_policies_once_not_per_call(monkeypatch):
    """``MixturePolicy.act`` inspects no policy: its slots were inspected when set."""
    from agents.policies.mixture import MixturePolicy

    mixture = MixturePolicy([RandomPolicy(0), Recorder()], ["random", "low"], [1, 1], 8, seed=1)
    looked = []
    real = policy_module._act_takes
    monkeypatch.setattr(policy_module, "_act_takes", lambda p, k: looked.append(k) or real(p, k))
    masks = np.ones((8, 107), dtype=bool)
    mixture.act(None, masks, keys=np.arange(8, dtype=np.uint64))
    assert looked == []


@pytest.mark.parametrize("shared", [False, True])
def test_play_batch_plays_each_game_the_same_alone_or_in_a_batch(shared):
    """Keyed policies: the hands of a batch of 6 equal the same deals played one at a time."""

    def final_states(seeds: np.ndarray, seats: np.ndarray) -> np.ndarray:
        engine = GinEngine(seeds.size, seed=seeds)
        engine.reset()
        play_batch(engine, RandomPolicy(), RandomPolicy(), seats, shared_moves=shared)
        return np.stack([engine.state.points, engine.state.winner, engine.state.turns], axis=1)

    seeds = np.arange(100, 106, dtype=np.uint64)
    seats = np.arange(6) % 2
    batch = final_states(seeds, seats)
    alone = np.concatenate([final_states(seeds[i : i + 1], seats[i : i + 1]) for i in range(6)])
    np.testing.assert_array_equal(batch, alone)


def test_play_batch_keys_each_side_from_its_own_decision_counter():
    """Side k's keys hash the game's seed, that side's decisions so far and ``salts[k]``."""
    from hgin_env.engine.keys import hash_stream

    a, b = KeyedRecorder(), Recorder()
    engine = GinEngine(4, seed=9)
    engine.reset()
    opening = np.flatnonzero(engine.current_player == 0)  # games where A (seat 0) acts first
    play_batch(engine, a, b, 0, salts=(11, 12))
    assert engine.over.all() and b.calls and all(c == {} for c in b.calls)
    first, second = a.calls[0], a.calls[1]
    assert first["rows"] is None  # play_batch passes no rows
    zeros = np.zeros(opening.size, np.int64)
    np.testing.assert_array_equal(first["keys"], hash_stream(engine.seeds[opening], zeros, 11))
    assert not np.isin(second["keys"], first["keys"]).any()  # the counter moved on


def test_play_batch_stops_a_series_when_after_step_says_so():
    """On a SeriesEngine play ends when ``after_step`` stops every series, not at a hand's end."""
    series = SeriesEngine(3, seed=4)
    series.reset()
    seen = []

    def after_step(step, running):
        seen.append(int(running.sum()))
        return series.hands_played >= 2

    play_batch(series, RandomPolicy(), RandomPolicy(), np.array([0, 1, 0]), after_step=after_step)
    assert (series.hands_played >= 2).all() and seen[0] == 3

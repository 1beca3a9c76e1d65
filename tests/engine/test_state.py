"""HandState's storage: copy and restore (the search's worlds), packing, pickling, assignment.

The state's fields are views into four flat buffers that the compiled kernels read; these
tests check that every way of making, copying or editing a state keeps the engine and the
fields in step, and that restoring a copy replays the same game.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import fields

import numpy as np
import pytest

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, HandState

NAMES = [f.name for f in fields(HandState)]


def played(n: int = 6, steps: int = 25, seed: int = 3) -> GinEngine:
    """An engine after some seeded random play (first legal action of a seeded shuffle)."""
    eng = GinEngine(n, RulesConfig(big_gin_bonus=31), seed=seed)
    eng.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mask = eng.legal_action_mask()
        scores = rng.random(mask.shape) + mask
        eng.step(np.where(mask.any(axis=1), scores.argmax(axis=1), 0))
        if eng.over.any():
            eng.reset(mask=eng.over)
    return eng


def states_equal(a: HandState, b: HandState) -> bool:
    """Whether two states hold equal arrays in every field."""
    return all(np.array_equal(getattr(a, name), getattr(b, name)) for name in NAMES)


def play_on(eng: GinEngine, steps: int, seed: int) -> list[np.ndarray]:
    """Masks seen while playing ``steps`` more seeded steps (no re-deals)."""
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(steps):
        mask = eng.legal_action_mask()
        seen.append(mask)
        if not mask.any():
            break
        scores = rng.random(mask.shape) + mask
        eng.step(np.where(mask.any(axis=1), scores.argmax(axis=1), 0))
    return seen


def test_copy_is_equal_and_independent():
    """copy() gives an equal state that shares no memory with the original."""
    eng = played()
    saved = eng.state.copy()
    assert states_equal(saved, eng.state)
    saved.hands[:] = False
    assert eng.state.hands.any()


def test_copy_into_restores_a_position_and_replays_the_same_game():
    """Save, play on, restore with copy_into: the engine replays the very same masks."""
    eng = played()
    saved = eng.state.copy()
    first = play_on(eng, 15, seed=9)
    after = eng.state.copy()
    saved.copy_into(eng.state)
    eng.invalidate()
    second = play_on(eng, 15, seed=9)
    assert len(first) == len(second)
    assert all(np.array_equal(x, y) for x, y in zip(first, second, strict=True))
    assert states_equal(eng.state, after)


def test_copy_into_refuses_another_batch_size():
    """copy_into a state of another size raises, naming both sizes."""
    with pytest.raises(ValueError, match="copy_into needs a state of 6 hands"):
        played().state.copy_into(HandState.empty(5))


def test_assigning_a_field_writes_into_the_engine_state():
    """``state.phase = x`` writes into the buffers the kernels read, not a new array."""
    eng = played()
    view = eng.state.turns
    eng.state.turns = np.full(eng.n, 7)
    assert view is eng.state.turns and (view == 7).all()
    assert eng.state.turns.dtype == np.int16


def test_loose_arrays_are_packed_when_an_engine_takes_them():
    """A state of loose arrays is packed by from_state and plays like the original."""
    eng = played()
    loose = HandState(**{name: getattr(eng.state, name).copy() for name in NAMES})
    other = GinEngine.from_state(loose)
    assert other.state is loose
    assert states_equal(other.state, eng.state)
    assert np.array_equal(other.legal_action_mask(), eng.legal_action_mask())
    loose.hands[0, 0, :] = True  # an edit after packing reaches the engine's buffers
    assert other.state.hands[0, 0].all()


def test_packing_refuses_fields_of_the_wrong_shape():
    """Packing a field of the wrong shape raises, naming the field."""
    eng = played()
    parts = {name: getattr(eng.state, name).copy() for name in NAMES}
    parts["deck"] = parts["deck"][:, :40]
    with pytest.raises(ValueError, match="HandState.deck has shape"):
        HandState(**parts).packed()


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "rows"])
def test_pickled_deep_copied_and_selected_states_play_like_the_original(how):
    """Pickled, deep-copied and row-selected states play on like the original."""
    eng = played()
    if how == "pickle":
        twin = pickle.loads(pickle.dumps(eng.state))
    elif how == "deepcopy":
        twin = copy.deepcopy(eng.state)
    else:
        twin = eng.state.rows(np.arange(eng.n))
    assert states_equal(twin, eng.state)
    other = GinEngine.from_state(twin, RulesConfig(big_gin_bonus=31))
    assert np.array_equal(play_on(other, 10, 4)[-1], play_on(eng, 10, 4)[-1])


def test_setting_engine_state_replaces_it_and_invalidates_the_masks():
    """engine.state = saved restores a position; a state of another size is refused."""
    eng = played()
    saved = eng.state.copy()
    play_on(eng, 5, seed=1)
    eng.state = saved
    assert eng.state is saved
    fresh = GinEngine.from_state(saved.copy(), RulesConfig(big_gin_bonus=31))
    assert np.array_equal(eng.legal_action_mask(), fresh.legal_action_mask())
    with pytest.raises(ValueError, match="the engine plays 6 games; the state holds 2"):
        eng.state = saved.rows(np.arange(2))

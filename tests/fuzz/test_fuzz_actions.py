"""Fuzz the env's actions: any array steps the games or is refused, changing nothing.

Seeded and small: arrays of random shapes, dtypes and values for a VecEnv of 4 games;
a refusal is a ``ValueError`` and leaves the games as they were.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

N = 4
ENV = HollywoodGinVecEnv(N, seed=0)
assert ENV.core is not None  # in-process games (no workers)
CORE = ENV.core
ENV.reset()
DTYPES = st.sampled_from([np.int64, np.int8, np.uint64, np.float32, np.float64, np.bool_])
SHAPES = st.sampled_from([(N,), (N, 1), (1, N), (2, 2), (N, 2), (8,), (1,), (), (0,)])
ARRAYS = st.tuples(DTYPES, SHAPES).flatmap(lambda ds: hnp.arrays(ds[0], ds[1]))
#: the legal actions of the games (as ``LEGAL`` marks), in one of the shapes
LEGAL = SHAPES.map(lambda shape: ("legal", shape))


@settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(ARRAYS | LEGAL)
def test_fuzzed_actions_step_or_are_refused(actions) -> None:
    """One action per game steps (illegal ones are the env's to penalise); others refused."""
    obs, masks = CORE.observe().copy(), ENV.action_masks().copy()
    if isinstance(actions, tuple):  # legal actions, reshaped when the shape holds N
        legal = masks.argmax(axis=1)
        size = int(np.prod(actions[1]))
        actions = np.resize(legal, size).reshape(actions[1])
    try:
        ENV.step_async(actions)
        ENV.step_wait()
    except ValueError as exc:
        assert "\n" not in str(exc).strip() or "actions must be" in str(exc)
        ENV._actions = None  # the refused step is dropped, as a trainer would
        assert np.array_equal(CORE.observe(), obs)
        assert np.array_equal(ENV.action_masks(), masks)
    else:
        assert actions.size == N and actions.shape in ((N,), (N, 1))

"""Env workers: a frozen worker is reported, and step_async takes one action per game."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
from hgin_env.envs.workers import EnvWorkerError


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs SIGSTOP")
def test_a_frozen_worker_is_an_env_worker_error_after_the_timeout(monkeypatch) -> None:
    """A worker stopped by SIGSTOP: step_wait raises EnvWorkerError, naming it, in time."""
    monkeypatch.setenv("HGIN_WORKER_TIMEOUT", "1.5")
    env = HollywoodGinVecEnv(4, seed=0, workers=2)
    try:
        env.reset()
        frozen = env.worker_pids[1]
        os.kill(frozen, signal.SIGSTOP)
        start = time.monotonic()
        legal = env.action_masks().argmax(axis=1)
        env.step_async(legal)
        with pytest.raises(
            EnvWorkerError, match=rf"env worker 1 \(pid {frozen}.*did not answer within 1.5 s"
        ):
            env.step_wait()
        assert time.monotonic() - start < 10
    finally:
        env.close()


def test_the_reply_timeout_is_generous_and_checked(monkeypatch) -> None:
    """The default is a minute; a bad HGIN_WORKER_TIMEOUT is a ValueError naming it."""
    from hgin_env.envs.workers import REPLY_TIMEOUT, reply_timeout

    monkeypatch.delenv("HGIN_WORKER_TIMEOUT", raising=False)
    assert reply_timeout() == REPLY_TIMEOUT == 60.0
    for bad in ("0", "-1", "soon", "inf", "nan"):
        monkeypatch.setenv("HGIN_WORKER_TIMEOUT", bad)
        with pytest.raises(ValueError, match="HGIN_WORKER_TIMEOUT must be a positive"):
            reply_timeout()


@pytest.mark.parametrize("shape", [(4, 1), (4,)])
def test_step_async_takes_one_action_per_game(shape) -> None:
    """(n,) and SB3's (n, 1) step the games."""
    env = HollywoodGinVecEnv(4, seed=0)
    env.reset()
    env.step_async(env.action_masks().argmax(axis=1).reshape(shape))
    obs, *_ = env.step_wait()
    assert len(obs) == 4


@pytest.mark.parametrize("shape", [(2, 2), (1, 4), (4, 2), (8,), (2,), ()])
def test_step_async_refuses_any_other_shape(shape) -> None:
    """A (2, 2) or (1, 4) array for 4 games is no longer flattened: the shape is named."""
    env = HollywoodGinVecEnv(4, seed=0)
    env.reset()
    with pytest.raises(ValueError, match=rf"one action per game.*got shape {re_shape(shape)}"):
        env.step_async(np.zeros(shape, dtype=np.int64))


def re_shape(shape: tuple[int, ...]) -> str:
    """``shape`` as a regular expression of its repr."""
    return str(shape).replace("(", r"\(").replace(")", r"\)")

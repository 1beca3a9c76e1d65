"""Env worker processes: K workers play the games of one process; they never outlive it.

Both vector envs get them: the SB3 ``VecEnv`` and the Gymnasium ``VectorEnv`` (in each
autoreset mode).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from helpers.actions import knock_or_legal
from helpers.processes import sockets
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks

from agents.policies.mixture import MixturePolicy
from agents.policies.model import ModelPolicy
from agents.policies.model_zip import trust_folder
from agents.policies.torch_policy import TorchPolicy
from agents.training.checkpoint import latest_checkpoint
from agents.training.config import build_config
from agents.training.opponents import attach, install_policy
from agents.training.sb3 import callbacks as callbacks_module
from agents.training.sb3.runner import train
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.policy import RandomPolicy
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
from hgin_env.envs.vector_env import HollywoodGinVectorEnv
from hgin_env.envs.workers import EnvWorkerError

ROOT = Path(__file__).resolve().parents[2]
N, K = 8, 2
SEED = 17
#: hand mode with frequent max-turn draws; series mode with easy knocks and short games
CASES = {
    "hand": {"mode": "hand", "rules": RulesConfig(max_turns_per_hand=8)},
    "series": {"mode": "series", "rules": RulesConfig(game_target=25, knock_limit=30)},
    # a mix of rule sets, each series drawing its own from its seed
    "mix": {"mode": "series", "rules": RulesConfig(game_target=25, knock_limit=30),
            "rules_mix": [{"knock_limit": 20}, {"undercut_bonus": 25, "weight": 2}]},
}  # fmt: skip
#: (mode, opponent) pairs; the shipped card network loads in every process, so its
#: series case is left to ``-m slow``
PAIRS = [
    pytest.param(case, opponent, id=f"{opponent}-{case}", marks=[
        *([pytest.mark.slow] if (case, opponent) == ("series", "ppo-cards") else []),
    ])
    for case in CASES
    for opponent in ("random", "ppo-cards", "simple", "expert")
    if case != "mix" or opponent == "random"
]  # fmt: skip


def assert_same_step(a: tuple, b: tuple) -> None:
    """Two VecEnv step returns are equal: observations, rewards, dones and every info entry."""
    for x, y in zip(a[:3], b[:3], strict=True):
        np.testing.assert_array_equal(x, y)
    for info_a, info_b in zip(a[3], b[3], strict=True):
        assert info_a.keys() == info_b.keys()
        for key in info_a:
            np.testing.assert_array_equal(info_a[key], info_b[key])


def play_both(one: HollywoodGinVecEnv, many: HollywoodGinVecEnv, steps: int, seed: int) -> int:
    """Step both envs with the same actions; assert they agree; return the episodes ended."""
    np.testing.assert_array_equal(one.reset(), many.reset())
    rng, ended = np.random.default_rng(seed), 0
    for _ in range(steps):
        masks = one.action_masks()
        np.testing.assert_array_equal(masks, many.action_masks())
        np.testing.assert_array_equal(get_action_masks(many), masks)
        np.testing.assert_array_equal(np.stack(many.env_method("action_masks")), masks)
        actions = knock_or_legal(masks, rng)
        result = one.step(actions)
        assert_same_step(result, many.step(actions))
        ended += int(result[2].sum())
    return ended


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children, ...), from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def wait_gone(pids: list[int], seconds: float = 30.0) -> list[int]:
    """Wait up to ``seconds`` for the processes to end; the ones still running."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


@pytest.fixture
def envs():
    """A factory of VecEnvs that are closed after the test, pass or fail."""
    made: list[HollywoodGinVecEnv] = []

    def make(*args, **kwargs) -> HollywoodGinVecEnv:
        made.append(HollywoodGinVecEnv(*args, **kwargs))
        return made[-1]

    yield make
    for env in made:
        env.close()


@pytest.fixture(scope="module")
def tiny_model_path(tmp_path_factory) -> Path:
    """A tiny untrained MaskablePPO saved to a zip (a model opponent that loads fast)."""
    env = HollywoodGinVecEnv(2, seed=0)
    path = tmp_path_factory.mktemp("model") / "tiny.zip"
    MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [8]}).save(
        path
    )
    trust_folder(path.parent)  # the test's own model
    return path


# ---------------------------------------------------------------------- same games
@pytest.mark.parametrize(("case", "opponent"), PAIRS)
def test_k_workers_play_the_games_of_one_process(envs, case, opponent):
    """K workers give one process's observations, masks, rewards, dones and infos."""
    one = envs(N, opponent=opponent, seed=SEED, **CASES[case])
    many = envs(N, opponent=opponent, seed=SEED, workers=K, **CASES[case])
    assert many.num_envs == N and len(set(many.worker_pids)) == K
    # hands end every few steps (55 episodes in 60 steps); short series need more
    assert play_both(one, many, 60 if CASES[case]["mode"] == "hand" else 120, seed=3) > 2


def test_a_model_object_opponent_reaches_every_worker(envs, tiny_model_path):
    """A model object is pickled as its file and reloaded in each worker; same games."""
    one = envs(N, opponent=ModelPolicy(tiny_model_path), seed=SEED, **CASES["hand"])
    many = envs(N, opponent=ModelPolicy(tiny_model_path), seed=SEED, workers=K, **CASES["hand"])
    assert play_both(one, many, 60, seed=4) > 0


def test_seed_then_reset_reseeds_every_worker(envs):
    """VecEnv.seed(s) then reset() gives four workers the games of one process seeded s."""
    one = envs(N, seed=SEED, **CASES["series"])
    many = envs(N, seed=SEED + 1, workers=4, **CASES["series"])
    assert one.seed(99) == many.seed(99)
    assert play_both(one, many, 80, seed=5) > 0


def test_a_mixture_with_a_sampling_snapshot_plays_alike_and_gets_new_snapshots(
    envs, tiny_model_path
):
    """A mixture with a sampling snapshot plays alike; a new snapshot reaches every worker."""

    def mixture() -> MixturePolicy:
        net = MaskablePPO.load(tiny_model_path).policy
        snap = TorchPolicy(net, deterministic=False, seed=1, name="self@1")
        return MixturePolicy([RandomPolicy(), snap, None], ["random", "self@1", "pool1"],
                             [1, 1, 0], N, seed=5)  # fmt: skip

    mix_one, mix_many = mixture(), mixture()
    one = envs(N, opponent=mix_one, seed=SEED, **CASES["hand"])
    many = envs(N, opponent=mix_many, seed=SEED, workers=K, **CASES["hand"])
    apply_one, apply_many = attach(one, mix_one), attach(many, mix_many)
    play_both(one, many, 60, seed=6)
    np.testing.assert_array_equal(mix_one.assignment, mix_many.assignment)
    np.testing.assert_array_equal(mix_one.episodes(), mix_many.episodes())
    new = TorchPolicy(MaskablePPO.load(tiny_model_path).policy, False, seed=2, name="self@2")
    for apply in (apply_one, apply_many):
        apply(install_policy, 2, new, "self@2", np.array([0.0, 1.0, 1.0]), True)
    assert many.for_each_core(_slot_names) == [["random", "self@1", "self@2"]] * K
    assert mix_many.counts()[0] == 0  # the mirror shows the workers' redraw
    assert play_both(one, many, 60, seed=7) > 0
    np.testing.assert_array_equal(mix_one.assignment, mix_many.assignment)
    np.testing.assert_array_equal(
        mix_one.opponent_of(np.arange(N), mix_one.episodes()),
        mix_many.opponent_of(np.arange(N), mix_many.episodes()),
    )


def _slot_names(core) -> list[str]:
    """In a worker: the names in its mixture's slots."""
    return list(core.opponent.names)


def test_starting_the_workers_in_two_calls_makes_one_step(envs):
    """step_async_workers for each half of the workers, then step_wait: the full step."""
    one = envs(N, seed=SEED, **CASES["hand"])
    many = envs(N, seed=SEED, workers=4, **CASES["hand"])
    assert many.worker_bounds() == [(0, 2), (2, 4), (4, 6), (6, 8)]
    np.testing.assert_array_equal(one.reset(), many.reset())
    rng = np.random.default_rng(8)
    for _ in range(40):
        actions = knock_or_legal(one.action_masks(), rng)
        many.step_async_workers(actions, [0, 1])
        with pytest.raises(RuntimeError, match=r"started workers \[2, 3\]"):
            many.step_wait()
        many.step_async_workers(actions, [3, 2])
        assert_same_step(one.step(actions), many.step_wait())


def test_render_and_illegal_actions_behave_as_in_one_process(envs):
    """render_game shows the same view; an illegal action raises the same message."""
    one = envs(N, seed=SEED)
    many = envs(N, seed=SEED, workers=K)
    one.reset()
    many.reset()
    assert many.render_game(N - 1) == one.render_game(N - 1)
    bad = np.full(N, 107)  # no such action
    with pytest.raises(ValueError) as expected:
        one.step(bad)
    with pytest.raises(ValueError) as got:
        many.step(bad)
    assert str(got.value) == str(expected.value) and "game " in str(got.value)
    play_both(one, many, 5, seed=1)  # nothing was stepped by the refused actions


def test_bad_worker_counts_and_names_fail_before_any_process_starts():
    """The workers must divide n_envs; an unknown opponent name fails with its usual error."""
    with pytest.raises(ValueError, match="divisible"):
        HollywoodGinVecEnv(10, workers=3)
    with pytest.raises(ValueError, match="workers must be an integer >= 1"):
        HollywoodGinVecEnv(4, workers=0)
    with pytest.raises(ValueError, match="unknown policy"):
        HollywoodGinVecEnv(4, opponent="nobody", workers=2)


# ---------------------------------------------------------------------- the Gymnasium VectorEnv
MODES = list(AutoresetMode)


@pytest.fixture
def vector_envs():
    """A factory of Gymnasium VectorEnvs that are closed after the test, pass or fail."""
    made: list[HollywoodGinVectorEnv] = []

    def make(*args, **kwargs) -> HollywoodGinVectorEnv:
        made.append(HollywoodGinVectorEnv(*args, **kwargs))
        return made[-1]

    yield make
    for env in made:
        env.close()


def assert_same_vector(a: tuple, b: tuple) -> None:
    """Two VectorEnv step (or reset) returns agree: every array, every info entry exactly."""
    *arrays_a, info_a = a
    *arrays_b, info_b = b
    for x, y in zip(arrays_a, arrays_b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert info_a.keys() == info_b.keys()
    for key in info_a:
        assert data_equivalence(info_a[key], info_b[key]), key


def play_both_vector(one, many, steps: int, seed: int) -> int:
    """Step two VectorEnvs alike (restarting ended games when DISABLED); the episodes ended."""
    rng, ended = np.random.default_rng(seed), 0
    masks = one.action_masks()
    for _ in range(steps):
        np.testing.assert_array_equal(masks, many.action_masks())
        actions = knock_or_legal(masks, rng)
        result = one.step(actions)
        assert_same_vector(result, many.step(actions))
        done = result[2] | result[3]
        ended += int(done.sum())
        if one.autoreset_mode == AutoresetMode.DISABLED and done.any():
            assert_same_vector(
                one.reset(options={"reset_mask": done}), many.reset(options={"reset_mask": done})
            )
        masks = one.action_masks()
    return ended


@pytest.mark.parametrize("case", ["hand", "series"])
@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_vector_env_workers_play_the_games_of_one_process(vector_envs, case, mode):
    """K workers give one process's observations, rewards, flags and infos in each mode."""
    one = vector_envs(N, opponent="simple", autoreset_mode=mode, **CASES[case])
    many = vector_envs(N, opponent="simple", autoreset_mode=mode, workers=K, **CASES[case])
    assert many.core is None and len(set(many.worker_pids)) == K and not one.worker_pids
    assert_same_vector(one.reset(seed=SEED), many.reset(seed=SEED))
    assert play_both_vector(one, many, 60 if case == "hand" else 120, seed=3) > 2


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_vector_env_workers_reseed_and_restart_some_games_alike(vector_envs, mode):
    """Seeds by int or by list (None: keep), with and without a reset mask, reach every worker."""
    one = vector_envs(N, autoreset_mode=mode, seed=SEED, **CASES["hand"])
    many = vector_envs(N, autoreset_mode=mode, seed=SEED, workers=4, **CASES["hand"])
    seeds = [7, None, 8, None, 9, 10, None, 11]
    assert_same_vector(one.reset(seed=seeds), many.reset(seed=seeds))
    play_both_vector(one, many, 5, seed=1)
    mask = np.array([True, False, False, True, False, False, True, True])
    if mode == AutoresetMode.DISABLED:  # a game whose episode ended must restart too
        mask |= ~one.core.awaiting
    for seed in (40, seeds, None):
        assert_same_vector(
            one.reset(seed=seed, options={"reset_mask": mask}),
            many.reset(seed=seed, options={"reset_mask": mask.copy()}),
        )
        play_both_vector(one, many, 3, seed=2)
    assert_same_vector(one.reset(seed=99), many.reset(seed=99))
    assert play_both_vector(one, many, 40, seed=4) > 0


def test_vector_env_workers_render_and_refuse_bad_input_as_one_process(vector_envs):
    """Views, an illegal action's error, DISABLED's refusal and bad options match one process."""
    one = vector_envs(N, autoreset_mode="DISABLED", render_mode="ansi", **CASES["hand"])
    many = vector_envs(N, autoreset_mode="DISABLED", render_mode="ansi", workers=K,
                       **CASES["hand"])  # fmt: skip
    one.reset(seed=SEED)
    many.reset(seed=SEED)
    assert many.render() == one.render()
    for bad in (np.full(N, 107), np.zeros(N + 1, np.int64)):
        with pytest.raises(ValueError) as expected:
            one.step(bad)
        with pytest.raises(ValueError) as got:
            many.step(bad)
        assert str(got.value) == str(expected.value)
    rng = np.random.default_rng(0)
    while not (~one.core.awaiting).any():
        actions = knock_or_legal(one.action_masks(), rng)
        assert_same_vector(one.step(actions), many.step(actions))
    with pytest.raises(ValueError, match="no live episode") as expected:
        one.step(knock_or_legal(one.action_masks(), rng))
    with pytest.raises(ValueError, match="no live episode") as got:
        many.step(knock_or_legal(many.action_masks(), rng))
    assert str(got.value) == str(expected.value)
    with pytest.raises(ValueError, match="divisible"):
        HollywoodGinVectorEnv(10, workers=3)
    with pytest.raises(ValueError, match="workers must be an integer >= 1"):
        HollywoodGinVectorEnv(4, workers=0)
    with pytest.raises(ValueError, match="unknown policy"):
        HollywoodGinVectorEnv(4, opponent="nobody", workers=2)


def test_vector_env_workers_hold_no_socket_and_end_with_close():
    """make_vec passes workers; they talk through pipes (no socket) and close() ends them."""
    env = gym.make_vec("HollywoodGin-v1", num_envs=4, workers=2)
    try:
        pids = env.unwrapped.worker_pids
        assert len(pids) == 2 and all(alive(p) for p in pids)
        env.reset(seed=0)
        env.step(knock_or_legal(env.unwrapped.action_masks(), np.random.default_rng(0)))
        assert sockets(pids) == []  # the test process may hold sockets of earlier tests
    finally:
        env.close()
    env.close()
    assert not wait_gone(pids)


def test_a_killed_vector_env_worker_gives_an_error_naming_it(vector_envs):
    """A SIGKILLed worker of the VectorEnv: the next step names it; close() ends the rest."""
    env = vector_envs(N, workers=K)
    env.reset(seed=SEED)
    pid = env.worker_pids[0]
    os.kill(pid, signal.SIGKILL)
    assert not wait_gone([pid])
    with pytest.raises(EnvWorkerError, match=rf"env worker 0 \(pid {pid}.*SIGKILL"):
        env.step(knock_or_legal(env.action_masks(), np.random.default_rng(0)))
    others = env.worker_pids
    env.close()
    assert not wait_gone(others)


# ---------------------------------------------------------------------- failures
def test_a_killed_worker_gives_an_error_naming_it(envs):
    """A SIGKILLed worker: the next step raises an error naming its index, pid and signal."""
    env = envs(N, seed=SEED, workers=K)
    env.reset()
    pid = env.worker_pids[1]
    os.kill(pid, signal.SIGKILL)
    assert not wait_gone([pid])
    with pytest.raises(EnvWorkerError, match=rf"env worker 1 \(pid {pid}.*SIGKILL"):
        env.step(knock_or_legal(env.action_masks(), np.random.default_rng(0)))
    with pytest.raises(EnvWorkerError, match="cannot be used"):
        env.reset()
    others = env.worker_pids
    env.close()
    assert not wait_gone(others)


class Exploding:
    """An opponent that fails on its 3rd call (to show a worker's exception)."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Raise on the 3rd call, else the first legal action."""
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("boom in the opponent")
        return action_masks.argmax(axis=1)


def test_an_exception_in_a_worker_names_the_worker_and_keeps_its_traceback(envs):
    """A worker's exception is raised in the trainer naming the worker, with its traceback."""
    env = envs(N, opponent=Exploding(), seed=SEED, workers=K)
    env.reset()
    with pytest.raises(ValueError, match=r"env worker 0 .*bad call"):  # keeps its type
        env.for_each_core(_fail_with_value_error)
    rng = np.random.default_rng(0)
    with pytest.raises(EnvWorkerError, match=r"env worker \d \(pid \d+, games \d+-\d+\)") as err:
        for _ in range(10):
            env.step(knock_or_legal(env.action_masks(), rng))
    assert "boom in the opponent" in str(err.value)
    assert "Traceback" in str(err.value.__cause__)
    with pytest.raises(EnvWorkerError, match="cannot be used: a step failed"):
        env.step(knock_or_legal(env.action_masks(), rng))


def _fail_with_value_error(core) -> None:
    raise ValueError("bad call")


def test_close_ends_every_worker(envs):
    """close() stops the worker processes and may be called twice."""
    env = envs(N, workers=4)
    pids = env.worker_pids
    assert all(alive(p) for p in pids)
    env.close()
    env.close()
    assert not wait_gone(pids)


STEPPER = """
import signal, sys, time
import numpy as np

# as train.py does: Ctrl-C raises KeyboardInterrupt even if the parent ignored SIGINT
signal.signal(signal.SIGINT, signal.default_int_handler)
from hgin_env.envs.config import EnvConfig
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.workers import EnvWorkers
from hgin_env.envs.policy import random_legal_actions

# numpy.random before the pids are printed: a signal that lands in an import (numpy
# imports numpy.random lazily) can be lost in CPython's C code, the loop then runs on
rng = np.random.default_rng(0)
pool = EnvWorkers(8, 2, "random", EnvConfig(), RulesConfig(), seed=0)
pool.reset()
print(*pool.pids, flush=True)
end = time.monotonic() + 60
while time.monotonic() < end:
    pool.step_async(random_legal_actions(pool.action_masks(), rng))
    pool.step_wait()
    if sys.argv[1] == "raise":
        raise RuntimeError("the trainer fails")
"""


@pytest.mark.parametrize("how", ["raise", "SIGINT", "SIGTERM", "SIGKILL"])
def test_workers_end_with_their_trainer(how):
    """An exception, Ctrl-C, SIGTERM or SIGKILL of the trainer process ends its workers."""
    proc = subprocess.Popen(
        [sys.executable, "-c", STEPPER, "raise" if how == "raise" else "run"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2, proc.stderr.read()
        if how != "raise":
            proc.send_signal(getattr(signal, how))
        proc.wait(timeout=60)
        assert not wait_gone(pids)
        assert proc.returncode != 0
        assert how != "raise" or "the trainer fails" in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()


# ---------------------------------------------------------------------- training
TINY = {
    "experiment": "tiny",
    "total_timesteps": 1024,
    "progress_bar": False,
    "ppo": {"n_envs": 8, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [32, 32],
            "env_workers": 2},
    "eval": {"every_steps": 0, "n_series": 1, "n_hands": 2, "max_hands_per_series": 2,
             "opponents": ["random"]},
    "checkpoint": {"every_steps": 256, "keep": 2},
    "opponents": {
        "mix": {"random": 1},
        "selfplay": {"enabled": True, "snapshot_every": 256, "pool_size": 2, "weight": 0.5},
    },
}  # fmt: skip


@pytest.fixture
def at_step(monkeypatch):
    """A hook: ``action(callback, pids)`` once at step >= ``steps`` of training; the pids."""
    seen: list[int] = []

    def install(steps: int, action) -> list[int]:
        original = callbacks_module.HandStatsCallback._on_step

        def hooked(self):
            if self.num_timesteps >= steps and not seen:
                seen.extend(self.training_env.get_attr("worker_pids")[0])
                action(self, seen)
            return original(self)

        monkeypatch.setattr(callbacks_module.HandStatsCallback, "_on_step", hooked)
        return seen

    return install


def test_ctrl_c_with_workers_writes_a_checkpoint_ends_them_and_resume_continues(tmp_path, at_step):
    """KeyboardInterrupt mid-training: checkpoint, no worker left; resume with workers."""

    def interrupt(callback, pids):
        raise KeyboardInterrupt

    pids = at_step(600, interrupt)
    config = build_config(TINY, [f"runs_dir={tmp_path}"])
    result = train(config, run_name="stop")
    assert result.interrupted and result.steps == 600 and len(pids) == 2
    assert not wait_gone(pids)
    assert latest_checkpoint(result.run_dir / "checkpoints").name == "ckpt_000000000600.zip"
    again = train(resume=result.run_dir)
    assert again.steps >= TINY["total_timesteps"] and not again.interrupted


def test_a_killed_worker_stops_training_with_a_checkpoint_and_resume_continues(tmp_path, at_step):
    """A killed worker stops training naming it, with a checkpoint; the run resumes."""

    def kill(callback, pids):
        os.kill(pids[1], signal.SIGKILL)
        wait_gone([pids[1]])

    pids = at_step(600, kill)
    config = build_config(TINY, [f"runs_dir={tmp_path}"])
    with pytest.raises(EnvWorkerError, match=r"env worker 1 \(pid \d+.*SIGKILL.*--resume") as err:
        train(config, run_name="crash")
    assert str(pids[1]) in str(err.value)
    assert not wait_gone(pids)
    steps = int(re.search(r"stopped at step ([\d,]+)", str(err.value)).group(1).replace(",", ""))
    run = tmp_path / "crash"
    assert latest_checkpoint(run / "checkpoints").name == f"ckpt_{steps:012d}.zip"
    assert train(resume=run).steps >= TINY["total_timesteps"]


def start_trainer(tmp_path: Path, name: str) -> subprocess.Popen:
    """``python train.py`` on the tiny config with two env workers."""
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "total_timesteps": 10_000_000}))
    cmd = [sys.executable, str(ROOT / "train.py"), "--config", str(config),
           "--set", f"runs_dir={tmp_path}", "--run-name", name]  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def wait_for_checkpoint(proc: subprocess.Popen, folder: Path) -> None:
    """Wait until the run has written its first checkpoint."""
    deadline = time.monotonic() + 120
    while not list(folder.glob("ckpt_*.json")):
        assert time.monotonic() < deadline and proc.poll() is None, "no first checkpoint"
        time.sleep(0.2)


@pytest.mark.slow
def test_ctrl_c_saves_a_checkpoint_ends_the_workers_and_resume_continues(tmp_path):
    """Ctrl-C of train.py with workers: checkpoint, exit 130, no worker left; resume ends."""
    proc = start_trainer(tmp_path, "sig")
    try:
        wait_for_checkpoint(proc, tmp_path / "sig" / "checkpoints")
        below = descendants(proc.pid)
        assert below
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, out
    assert not wait_gone(below)
    steps = int(re.search(r"interrupted at step ([\d,]+)", out).group(1).replace(",", ""))
    folder = tmp_path / "sig" / "checkpoints"
    assert latest_checkpoint(folder).name == f"ckpt_{steps:012d}.zip"
    result = train(resume=tmp_path / "sig", overrides=[f"total_timesteps={steps + 512}"])
    assert result.steps >= steps + 512 and (result.run_dir / "final_model.zip").exists()


@pytest.mark.slow
def test_a_dead_worker_stops_training_with_a_checkpoint_and_resume_continues(tmp_path):
    """A killed worker stops train.py naming it, with a checkpoint; --resume then ends."""
    proc = start_trainer(tmp_path, "crash")
    try:
        wait_for_checkpoint(proc, tmp_path / "crash" / "checkpoints")
        below = descendants(proc.pid)
        server = [p for p in below if b"forkserver" in Path(f"/proc/{p}/cmdline").read_bytes()]
        workers = [p for p in below if p in descendants(server[0])]
        assert len(workers) == 2
        os.kill(workers[1], signal.SIGKILL)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 1, out
    assert re.search(rf"error: env worker \d \(pid {workers[1]}.*SIGKILL", out), out
    assert "--resume" in out
    assert not wait_gone(below)
    steps = int(re.search(r"stopped at step ([\d,]+)", out).group(1).replace(",", ""))
    assert latest_checkpoint(tmp_path / "crash" / "checkpoints").name == f"ckpt_{steps:012d}.zip"
    result = train(resume=tmp_path / "crash", overrides=[f"total_timesteps={steps + 512}"])
    assert result.steps >= steps + 512

"""How much the Hollywood Gin environment costs MaskablePPO training.

Trains the default config's MaskablePPO (same network, n_envs, n_steps, batch size,
epochs) on three environments and prints the steps per second of each:

- ``trivial``: a VecEnv with the same observation and action spaces that does no work
  (a fixed observation, a fixed mask, an episode end every ``--episode`` steps): the
  cost of PPO itself;
- ``hgin``: the real batched ``HollywoodGinVecEnv`` against the config's opponents;
- ``hgin + callbacks``: the real env with the trainer's per-step callbacks (hand
  statistics, opponent logging; no evaluation, no checkpoints).

The environment's share of training time is ``1 - fps(hgin) / fps(trivial)``. The
machine may be shared, so the setups run in interleaved rounds: the ratio is taken
within each round (so slow phases of the machine cancel out) and the median over the
rounds (``--repeats``) is reported, with its range. Also printed: the environment alone
stepping random legal actions (median of as many samples of 5 s, with their range).

Usage::

    python -m benchmarks.train_overhead [--config configs/default.yaml] [--set KEY=VALUE]
        [--repeats 3] [--rollouts 8]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from gymnasium import spaces  # noqa: E402
from stable_baselines3.common.callbacks import CallbackList  # noqa: E402
from stable_baselines3.common.logger import configure  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

from agents.training.config import TrainConfig, load_config  # noqa: E402
from agents.training.opponents import TrainingOpponents  # noqa: E402
from agents.training.sb3.callbacks import HandStatsCallback  # noqa: E402
from agents.training.sb3.model import make_model  # noqa: E402
from agents.training.sb3.runner import make_env  # noqa: E402
from benchmarks._common import add_repeats, fmt_rate, interleaved, load_text, print_table  # noqa: E402
from hgin_env.engine.actions import N_ACTIONS  # noqa: E402
from hgin_env.envs.observation import OBS_DIM  # noqa: E402
from hgin_env.envs.policy import random_legal_actions  # noqa: E402


class TrivialVecEnv(VecEnv):
    """Same spaces as the real env, no work: fixed observations and masks, fixed episodes."""

    def __init__(self, n_envs: int, episode: int, legal: int = 12) -> None:
        self.render_mode = None
        super().__init__(
            n_envs,
            spaces.Box(0.0, 2.0, (OBS_DIM,), np.float32),
            spaces.Discrete(N_ACTIONS),
        )
        rng = np.random.default_rng(0)
        self.obs = rng.random((n_envs, OBS_DIM), dtype=np.float32)
        self.masks = np.zeros((n_envs, N_ACTIONS), dtype=bool)
        self.masks[:, :legal] = True
        self.episode = episode
        self.t = 0

    def reset(self) -> np.ndarray:
        """Fixed observations."""
        return self.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Ignore the actions."""

    def step_wait(self):
        """Zero reward; every game's episode ends every ``episode`` steps."""
        self.t += 1
        done = self.t % self.episode == 0
        dones = np.full(self.num_envs, done)
        infos = [{} for _ in range(self.num_envs)]
        if done:
            for info in infos:
                info["terminal_observation"] = self.obs[0]
                info["TimeLimit.truncated"] = False
        return self.obs.copy(), np.zeros(self.num_envs, np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """The fixed mask."""
        return self.masks

    def env_method(self, method_name, *args, indices=None, **kwargs):
        """Per-game masks, like the real env."""
        return list(self.masks)

    def close(self) -> None:
        """Nothing to close."""

    def get_attr(self, attr_name, indices=None):
        """Shared attributes."""
        return [getattr(self, attr_name)] * self.num_envs

    def set_attr(self, attr_name, value, indices=None) -> None:
        """Shared attributes."""
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None):
        """Nothing is wrapped."""
        return [False] * self.num_envs


def train_fps(config: TrainConfig, setup: str, rollouts: int, episode: int) -> float:
    """Steps per second of ``model.learn`` over ``rollouts`` rollouts (after one warm-up)."""
    torch.set_num_threads(config.ppo.torch_threads)
    callbacks = []
    if setup == "trivial":
        env = VecMonitor(TrivialVecEnv(config.ppo.n_envs, episode))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            opponents = TrainingOpponents(
                config.opponents, config.ppo.n_envs, Path(tmp), config.seed
            )
        env = make_env(config, opponents)
        if setup == "hgin + callbacks":
            callbacks = [HandStatsCallback(opponents, config.stats_window)]
    model = make_model(config, env)
    with tempfile.TemporaryDirectory() as tmp:
        model.set_logger(configure(tmp, []))
        steps = config.ppo.rollout_steps
        model.learn(steps, callback=CallbackList(callbacks))
        start = time.perf_counter()
        model.learn(steps * rollouts, callback=CallbackList(callbacks), reset_num_timesteps=False)
        return steps * rollouts / (time.perf_counter() - start)


def env_fps(config: TrainConfig, seconds: float) -> float:
    """The VecEnv alone: steps per second with random legal actions."""
    with tempfile.TemporaryDirectory() as tmp:
        opponents = TrainingOpponents(config.opponents, config.ppo.n_envs, Path(tmp), 0)
    env = make_env(config, opponents)
    env.reset()
    rng = np.random.default_rng(0)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = np.stack(env.env_method("action_masks"))
        env.step(random_legal_actions(masks, rng))
        done += env.num_envs
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config", default=str(Path(__file__).resolve().parents[1] / "configs" / "mlp_hand.yaml"),
        help="config file (default: configs/mlp_hand.yaml, the earlier MLP default)",
    )  # fmt: skip
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], help="override a field"
    )
    add_repeats(parser, default=3)
    parser.add_argument("--rollouts", type=int, default=8, help="timed rollouts per setup")
    parser.add_argument("--episode", type=int, default=20, help="trivial env episode length")
    args = parser.parse_args()
    config = load_config(args.config, args.overrides)
    setups = ["trivial", "hgin", "hgin + callbacks"]
    fps: dict[str, list[float]] = {s: [] for s in setups}
    for _ in range(args.repeats):
        for setup in setups:
            fps[setup].append(train_fps(config, setup, args.rollouts, args.episode))
    env_alone = interleaved({0: lambda: env_fps(config, 5.0)}, args.repeats)[0]
    assert env_alone is not None
    p = config.ppo
    rows = []
    for setup in setups:
        ratios = [x / t for x, t in zip(fps[setup], fps["trivial"], strict=True)]
        ratio = statistics.median(ratios)
        rows.append(
            [
                setup,
                fmt_rate(statistics.median(fps[setup])),
                f"{fmt_rate(min(fps[setup]))}-{fmt_rate(max(fps[setup]))}",
                f"{ratio:.2f} ({min(ratios):.2f}-{max(ratios):.2f})",
                f"{1 - ratio:.0%}",
            ]
        )
    rows.append(
        ["env alone (random actions)", fmt_rate(env_alone.median), env_alone.spread(), "", ""]
    )
    print_table(
        f"MaskablePPO training fps: n_envs={p.n_envs}, n_steps={p.n_steps}, "
        f"batch={p.batch_size}, epochs={p.n_epochs}, net={list(p.net_arch)}, "
        f"opponents={dict(config.opponents.mix)}, torch threads={p.torch_threads} "
        f"(median of {args.repeats} rounds, {load_text()})",
        ["setup", "steps/s (median)", "range", "fps / trivial (per round)", "env share"],
        rows,
    )


if __name__ == "__main__":
    main()

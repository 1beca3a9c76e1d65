"""How env worker processes scale the environment and MaskablePPO training.

Prints markdown tables (the machine's load, from ``os.getloadavg``, is in each title):

1. ``env``: the batched VecEnv alone (random legal actions, ``simple`` opponent): steps/s
   in this process and with K worker processes, for ``--env-games`` games (default
   1024), and the ratio to K = 1;
2. ``core``: one core stepping m games in this process (no workers): milliseconds per
   step and per game-step, the cost model ``t(m) = a + b m`` behind the on-paper
   projections of docs/workers.md;
3. ``train``: MaskablePPO on a config (default ``configs/mlp_hand.yaml``): a no-work env
   (the learner alone), the env in this process, in 1 worker process, in 2, and in 2
   with the games split in halves (``--halves``: the policy decides one half while the
   other half steps); steps/s, the env's share of wall time
   (``1 - fps / fps(no-work env)``, as ``benchmarks/train_overhead.py``), and the
   learner's cost per step split into rollout collection and the PPO update;
4. the same for ``--cards`` (``configs/hollywood_cards.yaml``, pretraining skipped).

Every setup runs ``--repeats`` times, interleaved, and the median is shown with the
range (the machine may be shared). Usage::

    nice -n 10 python -m benchmarks.scaling [--repeats 3] [--rollouts 4] [--cards]
        [--env-games 1024 4096] [--set ppo.n_envs=1024 --set ppo.n_steps=4] [--skip env core]

The columns "on free cores" add up the CPU time per step of the trainer and of the
busiest worker (they take turns; no overlap assumed): the speed when every process has a
core of its own, which a shared machine cannot show in its wall-clock figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.logger import configure  # noqa: E402
from stable_baselines3.common.utils import obs_as_tensor  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from agents.training.config import TrainConfig, load_config  # noqa: E402
from agents.training.opponents import TrainingOpponents  # noqa: E402
from agents.training.sb3.model import make_model  # noqa: E402
from agents.training.sb3.runner import make_env  # noqa: E402
from benchmarks._common import add_repeats, fmt_rate, load_text, print_table  # noqa: E402
from benchmarks.train_overhead import TrivialVecEnv  # noqa: E402
from hgin_env.envs.core import GinCore  # noqa: E402
from hgin_env.envs.policy import random_legal_actions  # noqa: E402
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv  # noqa: E402
from hgin_env.envs.workers import EnvWorkers  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------- env alone
def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by process ``pid`` (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def env_fps(n: int, workers: int, seconds: float, opponent: str = "simple") -> tuple:
    """VecEnv steps/s with random legal actions (after warm-up steps).

    Also the CPU milliseconds per step of this process and of the busiest worker.
    """
    env = HollywoodGinVecEnv(n, opponent=opponent, seed=0, workers=workers)
    try:
        env.reset()
        rng = np.random.default_rng(0)
        for _ in range(3):
            env.step(random_legal_actions(env.action_masks(), rng))
        pids = env.worker_pids
        cpu0 = [cpu_seconds(p) for p in pids]
        steps, main0, start = 0, time.process_time(), time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.step(random_legal_actions(env.action_masks(), rng))
            steps += 1
        wall = time.perf_counter() - start
        main = time.process_time() - main0
        busiest = max((cpu_seconds(p) - c for p, c in zip(pids, cpu0, strict=True)), default=0.0)
        return n * steps / wall, 1000 * main / steps, 1000 * busiest / steps
    finally:
        env.close()


def core_ms(m: int, seconds: float, opponent: str = "simple") -> float:
    """Milliseconds per step of one core of m games in this process (step, observe, masks)."""
    core = GinCore(m, opponent=opponent, seed=0)
    core.reset()
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        core.step(random_legal_actions(core.action_masks(), rng), autoreset=True)
        core.observe()
        steps += 1
    return 1000 * (time.perf_counter() - start) / steps


# ---------------------------------------------------------------------- training
class HalvesPPO(MaskablePPO):
    """MaskablePPO whose rollouts decide half of the games while the other half steps.

    A copy of ``MaskablePPO.collect_rollouts`` (sb3-contrib 2.x) with one change: the
    policy runs on the first half of the games, their workers start stepping
    (``step_async_workers``), then the policy runs on the second half. Benchmark only.
    """

    def collect_rollouts(self, env, callback, rollout_buffer, n_rollout_steps, use_masking=True):
        """Collect ``n_rollout_steps`` steps per game (see the class docstring)."""
        bounds = env.get_attr("worker_bounds")[0]()
        half = len(bounds) // 2
        groups = [list(range(half)), list(range(half, len(bounds)))]
        cuts = [(bounds[g[0]][0], bounds[g[-1]][1]) for g in groups]
        self.policy.set_training_mode(False)
        n_steps, n = 0, env.num_envs
        rollout_buffer.reset()
        callback.on_rollout_start()
        while n_steps < n_rollout_steps:
            action_masks = get_action_masks(env)
            obs_tensor = obs_as_tensor(self._last_obs, self.device)
            actions = np.zeros(n, np.int64)
            values, log_probs = torch.zeros((n, 1)), torch.zeros(n)
            with torch.no_grad():
                for group, (lo, hi) in zip(groups, cuts, strict=True):
                    a, v, lp = self.policy(obs_tensor[lo:hi], action_masks=action_masks[lo:hi])
                    actions[lo:hi], values[lo:hi], log_probs[lo:hi] = a.numpy(), v, lp
                    env.step_async_workers(actions, group)
            new_obs, rewards, dones, infos = env.step_wait()
            self.num_timesteps += n
            callback.update_locals(locals())
            if not callback.on_step():
                return False
            self._update_info_buffer(infos, dones)
            n_steps += 1
            for idx, done in enumerate(dones):
                if done and infos[idx].get("TimeLimit.truncated", False):
                    terminal = self.policy.obs_to_tensor(infos[idx]["terminal_observation"])[0]
                    with torch.no_grad():
                        rewards[idx] += self.gamma * self.policy.predict_values(terminal)[0]
            rollout_buffer.add(
                self._last_obs, actions.reshape(-1, 1), rewards, self._last_episode_starts,
                values, log_probs, action_masks=action_masks,
            )  # fmt: skip
            self._last_obs, self._last_episode_starts = new_obs, dones
        with torch.no_grad():
            values = self.policy.predict_values(obs_as_tensor(new_obs, self.device))
        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=dones)
        callback.on_rollout_end()
        return True


def build(config: TrainConfig, setup: str) -> VecMonitor:
    """The training env of a setup (see the module docstring)."""
    p = config.ppo
    if setup == "no-work env":
        return VecMonitor(TrivialVecEnv(p.n_envs, 20))
    workers = {"in process": 1, "1 worker": 1, "2 workers": 2, "2 workers, halves": 2}[setup]
    config = dataclasses.replace(config, ppo=dataclasses.replace(p, env_workers=workers))
    with tempfile.TemporaryDirectory() as tmp:
        opponents = TrainingOpponents(config.opponents, p.n_envs, Path(tmp), config.seed)
    env = make_env(config, opponents)
    if setup == "1 worker":  # the same VecEnv, its games in one worker process
        venv = env.venv
        venv._games = EnvWorkers(p.n_envs, 1, opponents.policy, venv.config, venv.rules, seed=0)
        venv.core = None
    return env


def train_fps(config: TrainConfig, setup: str, rollouts: int) -> tuple[float, ...]:
    """Steps/s of ``model.learn`` over ``rollouts`` rollouts (after a warm-up rollout).

    Also, per step: the seconds spent collecting rollouts and in the PPO update, and the
    CPU seconds of this process and of the busiest worker.
    """
    torch.set_num_threads(config.ppo.torch_threads)
    env = build(config, setup)
    try:
        model = make_model(config, env)
        if setup.endswith("halves"):
            model.__class__ = HalvesPPO
        model.set_logger(configure(None, []))
        steps = config.ppo.rollout_steps
        model.learn(steps)
        spent = {"collect": 0.0, "train": 0.0}
        collect, update = model.collect_rollouts, model.train

        def timed_collect(*args, **kwargs):
            start = time.perf_counter()
            out = collect(*args, **kwargs)
            spent["collect"] += time.perf_counter() - start
            return out

        def timed_train(*args, **kwargs):
            start = time.perf_counter()
            update(*args, **kwargs)
            spent["train"] += time.perf_counter() - start

        model.collect_rollouts, model.train = timed_collect, timed_train
        pids = env.get_attr("worker_pids")[0] if hasattr(env.venv, "worker_pids") else []
        cpu0 = [cpu_seconds(p) for p in pids]
        start, main0 = time.perf_counter(), time.process_time()
        model.learn(steps * rollouts, reset_num_timesteps=False)
        n = steps * rollouts
        wall, main = time.perf_counter() - start, time.process_time() - main0
        busiest = max((cpu_seconds(p) - c for p, c in zip(pids, cpu0, strict=True)), default=0.0)
        return n / wall, spent["collect"] / n, spent["train"] / n, main / n, busiest / n
    finally:
        env.close()


def train_table(config: TrainConfig, name: str, setups: list[str], rounds: int, rollouts: int):
    """Run the setups in interleaved rounds and print their table."""
    runs: dict[str, list[tuple[float, ...]]] = {s: [] for s in setups}
    for _ in range(rounds):
        for setup in setups:
            runs[setup].append(train_fps(config, setup, rollouts))
    p = config.ppo

    def med(setup: str, i: int) -> float:
        return statistics.median(r[i] for r in runs[setup])

    base, free_base = med(setups[0], 0), 1 / (med(setups[0], 3) + med(setups[0], 4))
    rows = []
    for setup in setups:
        fps = [r[0] for r in runs[setup]]
        # the trainer and the workers take turns: a step costs the trainer's CPU time plus
        # the busiest worker's, when every process has a core of its own
        free = 1 / (med(setup, 3) + med(setup, 4))
        share = "" if setup == setups[0] else f"{max(0.0, 1 - med(setup, 0) / base):.0%}"
        free_share = "" if setup == setups[0] else f"{max(0.0, 1 - free / free_base):.0%}"
        rows.append([setup, fmt_rate(med(setup, 0)), f"{min(fps):,.0f}-{max(fps):,.0f}", share,
                     f"{1e6 * med(setup, 1):.0f}", f"{1e6 * med(setup, 2):.0f}",
                     f"{1e6 * med(setup, 3):.0f}", f"{1e6 * med(setup, 4):.0f}",
                     fmt_rate(free), free_share])  # fmt: skip
    print_table(
        f"MaskablePPO, {name}: n_envs={p.n_envs}, n_steps={p.n_steps}, batch={p.batch_size}, "
        f"epochs={p.n_epochs}, policy={p.policy}, torch threads={p.torch_threads}, "
        f"opponents={dict(config.opponents.mix)} (median of {rounds}; {load_text()})",
        ["setup", "steps/s", "range", "env share", "collect us/step", "update us/step",
         "CPU us/step: trainer", "busiest worker", "steps/s on free cores",
         "env share (free cores)"],
        rows,
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_repeats(parser, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds per env timing")
    parser.add_argument("--rollouts", type=int, default=4, help="timed rollouts per run")
    parser.add_argument("--env-games", type=int, nargs="+", default=[1024], help="env table n")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="env table K")
    parser.add_argument("--env-opponent", default="simple", help="env table opponent")
    parser.add_argument("--core-games", type=int, nargs="+", default=[128, 256, 512, 1024, 2048])
    parser.add_argument("--core-opponents", nargs="+", default=["simple"], help="core table")
    parser.add_argument("--config", default=str(ROOT / "configs" / "mlp_hand.yaml"))
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="override a field of --config (repeatable)",
    )  # fmt: skip
    parser.add_argument("--cards", action="store_true", help="also the card-network recipe")
    parser.add_argument("--cards-rollouts", type=int, default=1, help="timed card rollouts")
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["env", "core", "train"], help="tables to skip"
    )
    args = parser.parse_args()
    if "env" not in args.skip:
        rows = []
        for n in args.env_games:
            runs: dict[int, list[tuple]] = {k: [] for k in args.workers}
            for _ in range(args.repeats):
                for k in args.workers:
                    runs[k].append(env_fps(n, k, args.seconds, args.env_opponent))
            one = statistics.median(r[0] for r in runs[args.workers[0]])
            free_one = None
            for k in args.workers:
                fps = [r[0] for r in runs[k]]
                med = statistics.median(fps)
                main = statistics.median(r[1] for r in runs[k])
                worker = statistics.median(r[2] for r in runs[k])
                # the trainer and the workers take turns: a step costs the trainer's CPU
                # time plus the busiest worker's, when every process has a core of its own
                free = n / ((main + worker) / 1000)
                free_one = free_one or free
                rows.append([str(n), str(k), str(n // k), fmt_rate(med),
                             f"{min(fps):,.0f}-{max(fps):,.0f}", f"{med / one:.2f}",
                             f"{main:.1f}", f"{worker:.1f}" if k > 1 else "-",
                             fmt_rate(free), f"{free / free_one:.2f}"])  # fmt: skip
        print_table(
            f"Env alone: random legal actions against {args.env_opponent} "
            f"(median of {args.repeats}; {load_text()})",
            ["n_envs", "workers K", "games per worker", "steps/s", "range", "vs K=1",
             "CPU ms/step: this process", "busiest worker", "steps/s on free cores",
             "vs K=1 (free cores)"],
            rows,
        )  # fmt: skip
    if "core" not in args.skip:
        for opponent in args.core_opponents:
            rows, costs = [], []
            for m in args.core_games:
                runs = [core_ms(m, args.seconds / 2, opponent) for _ in range(args.repeats)]
                costs.append(statistics.median(runs))
                rows.append([str(m), f"{costs[-1]:.2f}", f"{min(runs):.2f}-{max(runs):.2f}",
                             f"{1000 * costs[-1] / m:.1f}"])  # fmt: skip
            b, a = np.polyfit(args.core_games, costs, 1)
            print_table(
                f"One core, m games against {opponent}, in this process: t(m) ~ {a:.2f} ms + "
                f"{1000 * b:.1f} us * m (median of {args.repeats}; {load_text()})",
                ["games m", "ms per step", "min-max", "us per game-step"],
                rows,
            )
    if "train" not in args.skip:
        setups = ["no-work env", "in process", "1 worker", "2 workers", "2 workers, halves"]
        name = " ".join([Path(args.config).name, *args.overrides])
        train_table(load_config(args.config, args.overrides), name, setups, args.repeats,
                    args.rollouts)  # fmt: skip
    if args.cards:
        cards = load_config(ROOT / "configs" / "hollywood_cards.yaml")
        setups = ["no-work env", "in process", "2 workers"]
        train_table(cards, "hollywood_cards.yaml", setups, args.repeats, args.cards_rollouts)


if __name__ == "__main__":
    main()

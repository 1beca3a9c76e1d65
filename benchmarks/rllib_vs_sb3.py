"""RLlib PPO (batched env, 0-2 env runners) against MaskablePPO; Ray-sharded evaluation.

Usage::

    nice -n 10 .venv/bin/python -m benchmarks.rllib_vs_sb3 --train [--iterations 3]
    nice -n 10 .venv/bin/python -m benchmarks.rllib_vs_sb3 --eval [--series 2000]
    nice -n 10 .venv/bin/python -m benchmarks.rllib_vs_sb3 --parity 400000 --seeds 0 1 2 3 4
    nice -n 10 .venv/bin/python -m benchmarks.rllib_vs_sb3 --selfplay 300000

``--train``: the same config (``configs/mlp_hand.yaml``: 256 games, 16 steps a rollout)
trained for ``--iterations`` rollouts after one warm-up rollout; steps/s is wall time,
steps per CPU-second counts the CPU time of every process involved (the driver and, for
RLlib, the Ray processes under it: env runners, raylet, GCS), read from ``/proc``.
``--train`` and ``--eval`` run each row ``--repeats`` times, interleaved, and print the
median with the min-max. ``--eval``: ``expert`` vs ``simple`` over ``--series`` series,
in one process, over 2 env worker processes and sharded over a local 2-CPU Ray cluster.
``--parity``: for each seed, both backends train ``STEPS`` steps on the default config,
then play 2000 single hands against ``random`` (hand win rate); the mean and standard
deviation over the seeds close the table (the seeds are its repeats). ``--selfplay``:
``configs/rllib_selfplay.yaml`` for ``STEPS`` steps, then 2000 hands against each bot.
Each table notes the load average (``uptime``) at the time, since the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import benchmarks._common  # noqa: F401  - one thread for numpy / torch
from benchmarks._common import Sample, add_repeats, load_text, print_table

ROOT = Path(__file__).resolve().parents[1]


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and every live process below it."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in descendants(os.getpid()):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def load() -> str:
    """The 1-minute load average."""
    return f"{os.getloadavg()[0]:.2f}"


def bench_sb3(config, iterations: int) -> tuple[int, float, float, str]:
    """MaskablePPO: (steps, wall seconds, CPU seconds, load) over ``iterations`` rollouts."""
    import torch

    from agents.training.opponents import TrainingOpponents
    from agents.training.sb3.model import make_model
    from agents.training.sb3.runner import make_env

    torch.set_num_threads(config.ppo.torch_threads)
    opponents = TrainingOpponents(config.opponents, config.ppo.n_envs, Path("/tmp"), 0)
    model = make_model(config, make_env(config, opponents))
    model.learn(config.ppo.rollout_steps)  # warm-up rollout and update
    steps0, wall0, cpu0 = model.num_timesteps, time.perf_counter(), cpu_seconds()
    model.learn(iterations * config.ppo.rollout_steps, reset_num_timesteps=False)
    return (model.num_timesteps - steps0, time.perf_counter() - wall0, cpu_seconds() - cpu0, load())


def bench_rllib(config, iterations: int, runners: int) -> tuple[int, float, float, str]:
    """RLlib PPO with ``runners`` env runners: (steps, wall s, CPU s of all processes, load)."""
    import torch

    from agents.cluster.ray import ray_cluster
    from agents.training.rllib.backend import algorithm_config

    torch.set_num_threads(config.ppo.torch_threads)
    with ray_cluster(num_cpus=max(2, runners), log_to_driver=False):
        algo = algorithm_config(config, runners).build_algo()
        try:
            algo.train()  # warm-up: first rollout, weights sync
            first = algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]
            wall0, cpu0 = time.perf_counter(), cpu_seconds()
            for _ in range(iterations):
                last = algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]
            return (int(last - first), time.perf_counter() - wall0, cpu_seconds() - cpu0, load())
        finally:
            algo.stop()


def train_table(iterations: int, repeats: int) -> None:
    """Steps/s and steps per CPU-second, MaskablePPO vs RLlib (0, 1 and 2 env runners).

    Each backend runs ``repeats`` times, interleaved; the medians are shown, with the
    min-max of steps per CPU-second.
    """
    from agents.training.config import load_config

    config = load_config(ROOT / "configs" / "mlp_hand.yaml", ["progress_bar=false"])
    rows = []
    runs = [("MaskablePPO (SB3)", lambda: bench_sb3(config, iterations))]
    runs += [
        (
            f"RLlib PPO, {k} env runner{'s' * (k > 1)}" if k else "RLlib PPO, driver samples",
            lambda k=k: bench_rllib(config, iterations, k),
        )
        for k in (0, 1, 2)
    ]
    results: dict[str, list[tuple[int, float, float, str]]] = {name: [] for name, _ in runs}
    for _ in range(repeats):
        for name, run in runs:
            results[name].append(run())
    base = None
    for name, got in results.items():
        per_s = Sample(tuple(steps / wall for steps, wall, _, _ in got))
        per_cpu = Sample(tuple(steps / cpu for steps, _, cpu, _ in got))
        base = base or per_cpu.median
        rows.append([name, f"{got[0][0]:,}", f"{per_s.median:,.0f}", f"{per_cpu.median:,.0f}",
                     per_cpu.spread(), f"{per_cpu.median / base:.2f}x",
                     " ".join(avg for *_, avg in got)])  # fmt: skip
    print_table(
        "Training throughput, configs/mlp_hand.yaml (256 games x 16 steps a rollout; "
        f"median of {repeats}, {load_text()})",
        ["backend", "steps", "steps/s", "steps per CPU-s", "min-max", "vs SB3", "load avg"],
        rows,
    )


def eval_table(series: int, repeats: int) -> None:
    """Wall time of an ``expert`` vs ``simple`` evaluation: one process, 2 env workers, Ray.

    Each setup runs ``repeats`` times, interleaved (median seconds and min-max). The
    "same result" column says whether every result (every figure of its JSON but the
    timings) equals the one-process run's.
    """
    from agents.cluster.ray import ray_cluster
    from agents.evaluation import evaluate, processes, ray

    def figures(result) -> dict:
        data = result.to_dict()
        data.pop("seconds"), data.pop("series_per_second")
        return data

    rows, base = [], None
    runs = [
        ("local, one process", lambda: evaluate("expert", "simple", series, seed=2026,
                                                 progress=False)),
        ("local, 2 env worker processes", lambda: evaluate(
            "expert", "simple", series, seed=2026, progress=False, runner=processes(2))),
    ]  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name, _ in runs}
    same: dict[str, bool] = {name: True for name, _ in runs}
    rate: dict[str, float] = {}
    with ray_cluster(num_cpus=2, log_to_driver=False):
        runs.append(("Ray, 2 workers (cluster already up)", lambda: evaluate(
            "expert", "simple", series, seed=2026, progress=False,
            runner=ray(shards=2))))  # fmt: skip
        times[runs[-1][0]], same[runs[-1][0]] = [], True
        for _ in range(repeats):
            for name, run in runs:
                start = time.perf_counter()
                result = run()
                times[name].append(time.perf_counter() - start)
                base = base or figures(result)
                same[name] = same[name] and figures(result) == base
                rate[name] = result.series_win_rate
    for name, _ in runs:
        seconds = Sample(tuple(times[name]))
        rows.append([name, f"{seconds.median:.1f}", seconds.spread(lambda x: f"{x:.1f}"),
                     f"{rate[name]:.3f}", "yes" if same[name] else "NO"])  # fmt: skip
    print_table(
        f"expert vs simple, {series} series, seed 2026 (median of {repeats}, {load_text()})",
        ["where", "seconds", "min-max", "expert series win rate", "same result"],
        rows,
    )


def parity_table(steps: int, seeds: list[int]) -> None:
    """Hand win rate against ``random`` after ``steps`` steps of the default config, per seed."""
    import numpy as np

    from agents.evaluation.hand_eval import evaluate_hands
    from agents.policies.model import ModelPolicy
    from agents.policies.torch_policy import TorchPolicy
    from agents.training.config import load_config
    from agents.training.rllib.backend import train as train_rllib
    from agents.training.sb3.runner import train as train_sb3

    runs = Path("/tmp/hgin-parity")
    rows, wins = [], {"MaskablePPO": [], "RLlib PPO (1 env runner)": []}
    for seed in seeds:
        overrides = [f"total_timesteps={steps}", f"runs_dir={runs}", "progress_bar=false",
                     f"seed={seed}", "eval.every_steps=0", "checkpoint.every_steps=0"]  # fmt: skip
        config = load_config(ROOT / "configs" / "mlp_hand.yaml", overrides)
        stamp = time.strftime("%H%M%S")
        start = time.perf_counter()
        sb3 = train_sb3(config, run_name=f"sb3-{seed}-{stamp}")
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(sb3.run_dir / "final_model.zip", device="cpu")
        agent = TorchPolicy(model.policy, deterministic=True)
        res = evaluate_hands(agent, "random", 2000, seed=77)
        wins["MaskablePPO"].append(res.hand_win_rate)
        rows.append([seed, "MaskablePPO", f"{sb3.steps:,}", f"{res.hand_win_rate:.3f}",
                     f"{time.perf_counter() - start:.0f}", load()])  # fmt: skip
        start = time.perf_counter()
        rl = train_rllib(config, run_name=f"rllib-{seed}-{stamp}", env_runners=1)
        res = evaluate_hands(ModelPolicy(rl.run_dir), "random", 2000, seed=77)
        wins["RLlib PPO (1 env runner)"].append(res.hand_win_rate)
        rows.append([seed, "RLlib PPO (1 env runner)", f"{rl.steps:,}",
                     f"{res.hand_win_rate:.3f}", f"{time.perf_counter() - start:.0f}",
                     load()])  # fmt: skip
    for name, rates in wins.items():
        sd = np.std(rates, ddof=1) if len(rates) > 1 else 0.0
        rows.append([f"mean of {len(rates)}", name, "", f"{np.mean(rates):.3f} (sd {sd:.3f})",
                     "", ""])  # fmt: skip
    print_table(
        f"Learning parity: default config ({steps:,} steps against simple), then 2000 hands "
        "against random (seed 77)",
        ["training seed", "backend", "steps", "hand win rate vs random", "seconds", "load avg"],
        rows,
    )


def selfplay_table(steps: int) -> None:
    """Shared-policy self-play on the rllib backend: speed, then hands against the bots."""
    from agents.evaluation.hand_eval import evaluate_hands
    from agents.policies.model import ModelPolicy
    from agents.training.config import load_config
    from agents.training.rllib.backend import train as train_rllib

    overrides = [f"total_timesteps={steps}", "runs_dir=/tmp/hgin-parity", "progress_bar=false",
                 "eval.every_steps=0", "checkpoint.every_steps=0"]  # fmt: skip
    config = load_config(ROOT / "configs" / "rllib_selfplay.yaml", overrides)
    start = time.perf_counter()
    rl = train_rllib(config, run_name=f"selfplay-{time.strftime('%H%M%S')}", env_runners=1)
    seconds = time.perf_counter() - start
    agent = ModelPolicy(rl.run_dir)
    rows = []
    for opponent in ("random", "simple", "expert"):
        res = evaluate_hands(agent, opponent, 2000, seed=77)
        rows.append([f"{rl.steps:,}", f"{rl.fps:,.0f}", f"{seconds:.0f}", opponent,
                     f"{res.hand_win_rate:.3f}", f"{res.points_per_hand:+.2f}",
                     load()])  # fmt: skip
    print_table(
        "Self-play, configs/rllib_selfplay.yaml (1 env runner), then 2000 hands per bot",
        ["steps", "steps/s", "seconds", "opponent", "hand win rate", "points per hand",
         "load avg"],
        rows,
    )  # fmt: skip


def main() -> None:
    """Run the chosen measurements."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", action="store_true", help="training throughput table")
    parser.add_argument("--iterations", type=int, default=3, help="timed rollouts per backend")
    parser.add_argument("--eval", action="store_true", help="sharded evaluation table")
    parser.add_argument("--series", type=int, default=2000, help="series of --eval")
    parser.add_argument("--parity", type=int, metavar="STEPS", help="learning parity table")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds of --parity")
    parser.add_argument("--selfplay", type=int, metavar="STEPS", help="rllib self-play table")
    add_repeats(parser, default=3)
    args = parser.parse_args()
    if args.train:
        train_table(args.iterations, args.repeats)
    if args.eval:
        eval_table(args.series, args.repeats)
    if args.parity:
        parity_table(args.parity, args.seeds)
    if args.selfplay:
        selfplay_table(args.selfplay)


if __name__ == "__main__":
    main()

"""Environment speed: the batched SB3 VecEnv against the peers' gin rummy environments.

Usage: ``python benchmarks/env_speed.py [--seconds 3] [--n-envs 1 64 1024]
[--pettingzoo-path DIR]``

Measures on one core (BLAS/OpenMP threads pinned to 1), random legal actions:

- ``HollywoodGinVecEnv`` (hand mode, random opponent): agent steps per second, summed
  over the batch, at each ``n_envs``. One step is one agent decision plus the opponent's
  answer inside it, and autoresets included;
- the single-agent Gymnasium env ``HollywoodGinEnv`` (the same core with N = 1);
- RLCard ``gin-rummy`` ``env.step`` calls per second (one player action each), when installed;
- PettingZoo 1.26.1 ``gin_rummy_v4`` AEC ``env.step`` calls per second (one player action
  each), when importable. PettingZoo 1.27 dropped that env; install the old version apart
  from the project's and point ``--pettingzoo-path`` at it::

      pip install --no-deps --target /tmp/pz1261 pettingzoo==1.26.1 pygame
      python benchmarks/env_speed.py --pettingzoo-path /tmp/pz1261
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from _common import fmt_rate, print_table, rate, rlcard_steps  # noqa: E402

from hgin_env.envs.gym_env import HollywoodGinEnv  # noqa: E402
from hgin_env.envs.policy import random_legal_actions  # noqa: E402
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv  # noqa: E402


def ours_vec(n_envs: int, seconds: float) -> float:
    """Agent steps per second of the SB3 VecEnv with random masked actions."""
    env = HollywoodGinVecEnv(n_envs, opponent="random", seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    steps = max(1, 2048 // n_envs)

    def work() -> int:
        for _ in range(steps):
            env.step(random_legal_actions(env.action_masks(), rng))
        return steps * n_envs

    return rate(work, seconds)


def ours_single(seconds: float) -> float:
    """Steps per second of the single-agent Gymnasium env with random masked actions."""
    env = HollywoodGinEnv(opponent="random")
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    state = {"info": info}

    def work() -> int:
        for _ in range(100):
            mask = state["info"]["action_mask"]
            _, _, terminated, truncated, state["info"] = env.step(rng.choice(np.flatnonzero(mask)))
            if terminated or truncated:
                _, state["info"] = env.reset()
        return 100

    return rate(work, seconds)


def pettingzoo_steps(seconds: float, path: str | None) -> tuple[float | None, str]:
    """PettingZoo gin_rummy_v4: live ``env.step`` calls per second; also the version used."""
    if path:
        sys.path.insert(0, path)
    try:
        import pettingzoo
        from pettingzoo.classic import gin_rummy_v4
    except ImportError:
        return None, "not installed"
    except Exception as exc:  # noqa: BLE001 (a newer PettingZoo raises its own error type)
        return None, f"unavailable ({type(exc).__name__})"
    env = gin_rummy_v4.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def work() -> int:
        env.reset()
        done = 0
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done += 1
        return done

    return rate(work, seconds), pettingzoo.__version__


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--n-envs", type=int, nargs="+", default=[1, 64, 1024])
    parser.add_argument("--pettingzoo-path", default=None, help="dir holding PettingZoo 1.26.1")
    args = parser.parse_args()

    rl = rlcard_steps(args.seconds)
    pz, pz_version = pettingzoo_steps(args.seconds, args.pettingzoo_path)

    def ratios(r: float) -> list[str]:
        return [f"{r / rl:,.1f}x" if rl else "-", f"{r / pz:,.1f}x" if pz else "-"]

    rows = [
        [
            "RLCard gin-rummy env.step (1 game)",
            fmt_rate(rl) if rl else "not installed",
            "1.0x",
            "-",
        ],
        [
            f"PettingZoo {pz_version} gin_rummy_v4 env.step (1 game)",
            fmt_rate(pz) if pz else pz_version,
            "-",
            "1.0x" if pz else "-",
        ],
    ]
    if rl and pz:
        rows[1][2] = f"{pz / rl:,.1f}x"
    single = ours_single(args.seconds)
    rows.append(
        ["hollywood-gin HollywoodGinEnv (Gymnasium, 1 game)", fmt_rate(single), *ratios(single)]
    )
    for n in args.n_envs:
        r = ours_vec(n, args.seconds)
        rows.append([f"hollywood-gin HollywoodGinVecEnv, n_envs {n}", fmt_rate(r), *ratios(r)])
    print_table(
        "Env steps per second, random masked actions, random opponent (one core)",
        ["environment", "steps/s", "vs RLCard", "vs PettingZoo"],
        rows,
    )


if __name__ == "__main__":
    main()

"""Environment speed: the batched SB3 VecEnv against the peers' gin rummy environments.

Usage: ``python -m benchmarks.env_speed [--seconds 1] [--repeats 5] [--n-envs 1 64 1024]
[--pettingzoo-path DIR]``

Measures on one core (BLAS/OpenMP threads pinned to 1), random legal actions; each row
is the median of ``--repeats`` interleaved samples of ``--seconds`` each, with their
min-max:

- ``HollywoodGinVecEnv`` (hand mode, random opponent): agent steps per second, summed
  over the batch, at each ``n_envs``. One step is one agent decision plus the opponent's
  answer inside it, and autoresets included;
- the single-agent Gymnasium env ``HollywoodGinEnv`` (the same core with N = 1);
- RLCard ``gin-rummy`` ``env.step`` calls per second (one player action each), when installed.
  This row and the Gymnasium env's pick their actions the same way: the legal ids as a
  sequence (RLCard's ``legal_actions`` keys; ours ``info["action_mask"].nonzero()[0]``),
  then ``legal[rng.integers(len(legal))]``;
- PettingZoo 1.26.1 ``gin_rummy_v4`` AEC ``env.step`` calls per second (one player action
  each), when importable. PettingZoo 1.27 dropped that env; install the old version apart
  from the project's and point ``--pettingzoo-path`` at it::

      pip install --no-deps --target pz1261 pettingzoo==1.26.1 pygame
      python -m benchmarks.env_speed --pettingzoo-path pz1261

- this project's PettingZoo AEC env (``hgin_env.envs.pettingzoo_env``): ``env.step`` calls
  per second, in the same loop as ``gin_rummy_v4`` (one player action each, random legal
  actions for both seats), so the two rows compare directly.

A second table (skip it with ``--no-bots``) times bot play, one core, median of the repeats:

- ``evaluate.py expert simple``: full Hollywood series per second, ``--bot-series``
  deal sequences (one batch, as ``evaluate.py`` plays them; seed 0);
- the search's rollouts with a bot as the rollout policy (``pimc`` with
  ``rollout=simple`` and ``rollout=expert``): the engine actions per second inside the
  rollouts, through the search's public policy API (``resolve_policy(spec).act`` and its
  ``rollout_actions`` counter) over a fixed pool of decisions from ``simple`` series.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from benchmarks._common import (
    add_repeats,
    fmt_rate,
    interleaved,
    load_text,
    print_table,
    rate,
    rlcard_steps,
)
from hgin_env.envs.gym_env import HollywoodGinEnv
from hgin_env.envs.policy import random_legal_actions
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv


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
            legal = state["info"]["action_mask"].nonzero()[0]  # picked as in ``rlcard_steps``
            _, _, terminated, truncated, state["info"] = env.step(legal[rng.integers(len(legal))])
            if terminated or truncated:
                _, state["info"] = env.reset()
        return 100

    return rate(work, seconds)


def pettingzoo_version(path: str | None) -> str | None:
    """The version of the PettingZoo that has ``gin_rummy_v4`` (None with the reason why not)."""
    if path:
        sys.path.insert(0, path)
    try:
        import pettingzoo
        from pettingzoo.classic import gin_rummy_v4  # noqa: F401
    except ImportError:
        return None
    except Exception:  # noqa: BLE001 (a newer PettingZoo raises its own error type)
        return None
    return str(pettingzoo.__version__)


def aec_steps(env: Any, seconds: float) -> float:
    """``env.step`` calls per second of a PettingZoo AEC env, random legal actions, hand by hand."""
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

    return rate(work, seconds)


def pettingzoo_steps(seconds: float) -> float:
    """PettingZoo gin_rummy_v4: ``env.step`` calls per second (check ``pettingzoo_version``)."""
    from pettingzoo.classic import gin_rummy_v4

    return aec_steps(gin_rummy_v4.env(), seconds)


def ours_pettingzoo(seconds: float) -> float:
    """This project's PettingZoo AEC env: ``env.step`` calls per second, in ``aec_steps`` too."""
    from hgin_env.envs import pettingzoo_env

    return aec_steps(pettingzoo_env.env(mode="hand"), seconds)


def bot_series_rate(n_series: int) -> float:
    """``evaluate.py expert simple``: full series per second over ``n_series`` deal sequences."""
    from agents.evaluation import evaluate

    start = time.perf_counter()
    result = evaluate("expert", "simple", n_series, seed=0, progress=False)
    return result.n_series / (time.perf_counter() - start)


def rollout_rate(rollout: str, worlds: int, pool: tuple[np.ndarray, ...]) -> float | None:
    """Engine actions per second in the rollouts of ``pimc`` with a bot rollout policy.

    None when the search keeps no ``rollout_actions`` count.
    """
    import agents  # noqa: F401 - registers the search's policies
    from hgin_env.envs.policy import resolve_policy

    obs, masks, keys = pool
    policy: Any = resolve_policy(f"pimc:worlds={worlds},rollout={rollout}", seed=0)
    start = time.perf_counter()
    for lo in range(0, obs.shape[0], 16):
        part = slice(lo, lo + 16)
        policy.act(obs[part], masks[part], keys=keys[part])
    elapsed = time.perf_counter() - start
    count = getattr(policy, "rollout_actions", None)
    return None if count is None else count / elapsed


def _two(x: float) -> str:
    """A rate with two decimals (series per second are few)."""
    return f"{x:,.2f}"


def bot_table(args: argparse.Namespace) -> None:
    """Time bot play: ``evaluate.py expert simple`` series and the search's bot rollouts."""
    from benchmarks.search_speed import decision_pool

    pool = decision_pool(64, seed=5, games=64, share=0.1)
    got = interleaved(
        {
            f"evaluate.py expert simple ({args.bot_series} series), series/s": (
                lambda: bot_series_rate(args.bot_series)
            ),
            "pimc rollout=simple (16 worlds), rollout actions/s": (
                lambda: rollout_rate("simple", 16, pool)
            ),
            "pimc rollout=expert (16 worlds), rollout actions/s": (
                lambda: rollout_rate("expert", 16, pool)
            ),
        },
        args.repeats,
    )
    rows = [
        [name, "-" if s is None else f"{s.median:,.2f}", "-" if s is None else s.spread(_two)]
        for name, s in got.items()
    ]
    print_table(
        f"Bot play, one core (median of {args.repeats}, {load_text()})",
        ["what", "rate", "min-max"],
        rows,
    )


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per sample")
    parser.add_argument("--n-envs", type=int, nargs="+", default=[1, 64, 1024])
    parser.add_argument("--pettingzoo-path", default=None, help="dir holding PettingZoo 1.26.1")
    parser.add_argument("--bot-series", type=int, default=200, help="series of the bot row")
    parser.add_argument("--no-bots", action="store_true", help="skip the bot play table")
    add_repeats(parser)
    args = parser.parse_args()
    sec, n = args.seconds, args.repeats

    pz_version = pettingzoo_version(args.pettingzoo_path)
    rl_name = "RLCard gin-rummy env.step (1 game)"
    pz_name = f"PettingZoo {pz_version or ''} gin_rummy_v4 env.step (1 game)".replace("  ", " ")
    got = interleaved(
        {
            rl_name: lambda: rlcard_steps(sec),
            pz_name: (lambda: pettingzoo_steps(sec)) if pz_version else (lambda: None),
            "hollywood-gin HollywoodGinEnv (Gymnasium, 1 game)": lambda: ours_single(sec),
            "hollywood-gin PettingZoo AEC env.step (1 game)": lambda: ours_pettingzoo(sec),
            **{
                f"hollywood-gin HollywoodGinVecEnv, n_envs {k}": (lambda k=k: ours_vec(k, sec))
                for k in args.n_envs
            },
        },
        n,
    )
    rl, pz = got[rl_name], got[pz_name]
    rows = []
    for name, sample in got.items():
        if sample is None:
            rows.append([name, "not installed", "-", "-", "-"])
            continue
        r = sample.median
        rows.append(
            [
                name,
                fmt_rate(r),
                sample.spread(),
                f"{r / rl.median:,.1f}x" if rl else "-",
                f"{r / pz.median:,.1f}x" if pz and name != rl_name else "-",
            ]
        )
    print_table(
        "Env steps per second, random masked actions, random opponent (one core; "
        f"median of {n} x {sec:g} s, {load_text()})",
        ["environment", "steps/s", "min-max", "vs RLCard", "vs PettingZoo"],
        rows,
    )
    if not args.no_bots:
        bot_table(args)


if __name__ == "__main__":
    main()

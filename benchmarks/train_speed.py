"""Training steps per second of the shipped recipes on each backend, with a per-part profile.

For each recipe (a shipped config, by name) and backend, one process trains from fresh
weights (no ``pretrain``: imitation is a one-off cost, not a per-step one) for one warm-up
rollout, then ``--rollouts`` timed rollouts, on one core (one torch thread, no env
workers, RLlib sampling in the driver: ``env_runners=0``). Each measurement runs in a
process of its own, so that no recipe warms another's caches.

``--baseline REV`` measures the same recipes with the code of git revision ``REV`` too
(exported into a temporary folder and run from there), round by round beside the
current tree: the ``x baseline`` column is the median of the per-round ratios. By default
both trees train the current tree's configs (the code's speed-up on one recipe);
``--baseline-recipes own`` gives the baseline its own revision's configs, so that the
ratio is end to end: a recipe as it shipped then against the same recipe as it ships now
(epochs, batch sizes and all).

The SB3 profile splits the timed rollouts' wall time into exclusive parts (a part that
calls another is charged only its own time):

- ``env step``: the engine and the env around it (``step_wait``, ``reset``);
- ``obs encode``: the engine state to observations (``encode_observations``);
- ``opponents``: the opponent policies choosing their moves;
- ``card planes``: the card network's input planes (``card_planes``, inside forwards);
- ``forward (rollout)`` / ``forward (update)``: the policy's forward passes while
  sampling and in PPO's update (``evaluate_actions``);
- ``backward``, ``optimizer``: the gradients and the optimizer's step;
- ``callbacks``: the trainer's per-step hand statistics;
- ``rest``: everything else (SB3's buffer, advantages, tensor copies, masks).

Usage::

    python -m benchmarks.train_speed [--configs default cards_vs_simple ...]
        [--backends sb3 rllib] [--baseline REV] [--baseline-recipes {current,own}]
        [--device cpu] [--repeats 3] [--rollouts 2]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import benchmarks._common  # noqa: F401  - one thread for numpy / torch
from benchmarks._common import add_repeats, fmt_rate, load_text, print_table

ROOT = Path(__file__).resolve().parents[1]
#: the parts of the SB3 profile, in table order
PARTS = (
    "env step",
    "obs encode",
    "opponents",
    "card planes",
    "forward (rollout)",
    "forward (update)",
    "backward",
    "optimizer",
    "callbacks",
)
BACKENDS = ("sb3", "rllib")


class Profile:
    """Exclusive wall time of wrapped functions: a caller is charged its own time only."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(PARTS, 0.0)
        self._stack: list[float] = []  # time spent in wrapped callees, per open frame

    def wrap(self, part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, timed as ``part``."""

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._stack.append(0.0)
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                inner = self._stack.pop()
                self.seconds[part] += elapsed - inner
                if self._stack:
                    self._stack[-1] += elapsed

        return timed

    def clear(self) -> None:
        """Forget what was timed so far (after the warm-up)."""
        self.seconds = dict.fromkeys(PARTS, 0.0)


@contextlib.contextmanager
def patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    """Set ``obj.name`` for the duration of the block."""
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


def measure_sb3(config: Any, rollouts: int) -> dict[str, Any]:
    """Steps per second of MaskablePPO on ``config`` and the per-part profile (seconds)."""
    import torch
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.logger import configure

    import agents.policies.card_layers as card_layers
    import hgin_env.envs.core as core
    import hgin_env.envs.sb3_vec_env as vec_env
    from agents.training.opponents import TrainingOpponents
    from agents.training.sb3.callbacks import HandStatsCallback
    from agents.training.sb3.model import make_model
    from agents.training.sb3.runner import make_env

    torch.set_num_threads(1)
    profile = Profile()
    wrap = profile.wrap
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        opponents = TrainingOpponents(config.opponents, config.ppo.n_envs, Path(tmp), config.seed)
        env = make_env(config, opponents)
        model = make_model(config, env)
        model.set_logger(configure(tmp, []))
        stats = HandStatsCallback(opponents, config.stats_window)
        policy = model.policy
        V = vec_env.HollywoodGinVecEnv
        for obj, name, part in (
            (V, "step_wait", "env step"),
            (V, "reset", "env step"),
            (core, "encode_observations", "obs encode"),
            (core.GinCore, "_opponent_actions", "opponents"),
            (card_layers, "card_planes", "card planes"),
            (policy, "forward", "forward (rollout)"),
            (policy, "evaluate_actions", "forward (update)"),
            (torch.Tensor, "backward", "backward"),
            (policy.optimizer, "step", "optimizer"),
            (stats, "_on_step", "callbacks"),
        ):
            stack.enter_context(patched(obj, name, wrap(part, getattr(obj, name))))
        steps = config.ppo.n_envs * config.ppo.n_steps
        model.learn(steps, callback=CallbackList([stats]))
        profile.clear()
        start = time.perf_counter()
        model.learn(steps * rollouts, callback=CallbackList([stats]), reset_num_timesteps=False)
        seconds = time.perf_counter() - start
        env.close()
    parts = dict(profile.seconds)
    parts["rest"] = seconds - sum(parts.values())
    return {"fps": steps * rollouts / seconds, "parts": parts, "seconds": seconds}


def measure_rllib(config: Any, rollouts: int) -> dict[str, Any]:
    """Steps per second of RLlib's PPO on ``config``, sampling in the driver."""
    import torch

    from agents.cluster.ray import ray_cluster
    from agents.training.rllib.backend import algorithm_config, rollout_steps, seed_driver

    torch.set_num_threads(1)
    with ray_cluster(None, num_cpus=1, log_to_driver=False):
        seed_driver(config.seed)
        algo = algorithm_config(config, env_runners=0).build_algo()
        try:
            algo.train()
            start = time.perf_counter()
            for _ in range(rollouts):
                algo.train()
            seconds = time.perf_counter() - start
        finally:
            algo.stop()
    steps = rollout_steps(config, 0) * rollouts
    return {"fps": steps / seconds, "parts": {}, "seconds": seconds}


def measure(
    recipe: str, backend: str, rollouts: int, device: str = "cpu", configs: str = ""
) -> dict[str, Any]:
    """One measurement of ``recipe`` (a shipped config's name) on ``backend``.

    ``device``: the learner's torch device (``ppo.device``); ``configs``: the folder of
    the config files (default: this tree's ``configs/``).
    """
    from agents.training.config import load_config

    overrides = ["ppo.env_workers=1", f"ppo.device={device}"]
    folder = Path(configs) if configs else ROOT / "configs"
    config = load_config(str(folder / f"{recipe}.yaml"), overrides)
    run = measure_sb3 if backend == "sb3" else measure_rllib
    return run(config, rollouts)


def child(
    tree: Path,
    recipe: str,
    backend: str,
    rollouts: int,
    device: str = "cpu",
    configs: Path | None = None,
) -> dict[str, Any] | None:
    """Run ``measure`` in a new process on the code of ``tree``; None if it fails there.

    The process is set up as ``train.py`` sets it up: it imports the tree's ``hgin_cli``
    first. ``configs``: the config folder (default: the current tree's).
    """
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); import hgin_cli; "
        "import runpy; m = runpy.run_path(sys.argv[2]); "
        "a = sys.argv; r = m['measure'](a[3], a[4], int(a[5]), a[6], a[7]); "
        "print('RESULT ' + json.dumps(r))"
    )
    folder = str(configs or ROOT / "configs")
    argv = [sys.executable, "-c", code, str(tree), __file__, recipe, backend, str(rollouts),
            device, folder]  # fmt: skip
    proc = subprocess.run(argv, cwd=tree, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    print(f"  {recipe}/{backend} in {tree.name}: failed ({tail})", file=sys.stderr)
    return None


def export(rev: str, into: Path) -> Path:
    """The files of git revision ``rev`` in a folder under ``into``."""
    data = subprocess.run(
        ["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True
    ).stdout
    folder = into / f"baseline-{rev}"
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    for name in ("models",):  # shipped files git keeps as they are: the same in both trees
        if not (folder / name).exists():
            (folder / name).symlink_to(ROOT / name)
    return folder


def shipped_recipes() -> list[str]:
    """The names of the shipped configs."""
    return sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=["default"], metavar="NAME",
                        help="shipped configs by name, or 'all' (default: default)")  # fmt: skip
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=["sb3"])
    parser.add_argument("--baseline", metavar="REV", help="also measure git revision REV")
    parser.add_argument("--baseline-recipes", choices=("current", "own"), default="current",
                        help="the configs the baseline trains: the current tree's (the "
                        "code's speed-up, default) or its own revision's (end to end)")  # fmt: skip
    parser.add_argument("--device", default="cpu", help="the learner's torch device (cpu)")
    parser.add_argument("--rollouts", type=int, default=2, help="timed rollouts (default 2)")
    add_repeats(parser, default=3)
    args = parser.parse_args(argv)
    recipes = shipped_recipes() if args.configs == ["all"] else args.configs
    unknown = sorted(set(recipes) - set(shipped_recipes()))
    if unknown:
        parser.error(
            f"no shipped config named {', '.join(unknown)} ({', '.join(shipped_recipes())})"
        )
    if args.rollouts < 1:
        parser.error(f"--rollouts must be >= 1, got {args.rollouts}")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"current": ROOT}
        if args.baseline:
            trees["baseline"] = export(args.baseline, Path(tmp))
        rows = [(r, b) for r in recipes for b in args.backends]
        got: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        configs = {"current": ROOT / "configs"}
        if args.baseline:
            own = args.baseline_recipes == "own"
            configs["baseline"] = trees["baseline"] / "configs" if own else ROOT / "configs"
            missing = [r for r in recipes if not (configs["baseline"] / f"{r}.yaml").exists()]
            if missing:
                parser.error(f"{args.baseline} has no config named {', '.join(missing)}")
        for round_ in range(args.repeats):
            for recipe, backend in rows:
                for label, tree in trees.items():
                    result = child(
                        tree, recipe, backend, args.rollouts, args.device, configs[label]
                    )
                    print(f"  round {round_ + 1}: {recipe}/{backend} {label}: "
                          + (f"{result['fps']:,.0f} steps/s" if result else "failed"),
                          file=sys.stderr, flush=True)  # fmt: skip
                    if result:
                        got.setdefault((recipe, backend, label), []).append(result)
    report(got, rows, args)


def report(got: dict[tuple[str, str, str], list[dict[str, Any]]], rows: list, args: Any) -> None:
    """Print the steps/s table and, for SB3, the per-part profile of the current tree."""
    header = ["recipe", "backend", "steps/s (median)", "range"]
    if args.baseline:
        which = "its own recipes" if args.baseline_recipes == "own" else "the same recipes"
        header += [f"{args.baseline} steps/s ({which})", "x baseline (per round)"]
    table = []
    for recipe, backend in rows:
        now = got.get((recipe, backend, "current"), [])
        if not now:
            table.append([recipe, backend, "failed", "", *([""] * 2 * bool(args.baseline))])
            continue
        fps = [r["fps"] for r in now]
        line = [recipe, backend, fmt_rate(statistics.median(fps)),
                f"{fmt_rate(min(fps))}-{fmt_rate(max(fps))}"]  # fmt: skip
        if args.baseline:
            old = [r["fps"] for r in got.get((recipe, backend, "baseline"), [])]
            if old:
                ratios = [a / b for a, b in zip(fps, old, strict=False)]
                spread = f"({min(ratios):.2f}-{max(ratios):.2f})"
                line += [
                    fmt_rate(statistics.median(old)),
                    f"{statistics.median(ratios):.2f} {spread}",
                ]
            else:
                line += ["failed", ""]
        table.append(line)
    print_table(
        f"Training steps/s on one core ({args.device} learner), {args.rollouts} rollouts "
        f"after a warm-up, median of {args.repeats} ({load_text()})",
        header,
        table,
    )
    for recipe, backend in rows:
        if backend != "sb3":
            continue
        labels = [lab for lab in ("current", "baseline") if got.get((recipe, backend, lab))]
        if not labels:
            continue
        prof = []
        for part in (*PARTS, "rest"):
            line = [part]
            for label in labels:
                runs = got[(recipe, backend, label)]
                share = [r["parts"].get(part, 0.0) / r["seconds"] for r in runs]
                per_k = [1e6 * r["parts"].get(part, 0.0) / (r["fps"] * r["seconds"]) for r in runs]
                line += [f"{statistics.median(per_k):.1f}", f"{statistics.median(share):.0%}"]
            prof.append(line)
        cols = []
        for label in labels:
            name = "" if label == "current" else f" ({args.baseline})"
            cols += [f"us/step{name}", f"share{name}"]
        print_table(f"Where the time goes: {recipe} on sb3 (median of {len(runs)})",
                    ["part", *cols], prof)  # fmt: skip


if __name__ == "__main__":
    main()

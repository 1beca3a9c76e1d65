"""``hgin-tune CONFIG --trials N``: an Optuna search over a config's PPO fields.

As rl-zoo's ``--optimize``: each trial trains the config for ``--steps`` environment steps
with PPO fields drawn by Optuna's TPE sampler (learning rate, epochs, batch size, gamma,
GAE lambda, clip range, entropy and value coefficients), in ``--chunks`` parts; after
each part the run's evaluation (``eval.best_metric``, ``eval.json``) is reported to the
study, and the median pruner stops a trial whose curve falls below the median of the
trials before it. The study lives in SQLite (``<runs_dir>/tune/<study>.db``): ``--trials
N`` is the study's total, so running the same command again after an interruption runs
only the missing trials (a trial killed mid-run is marked failed and not counted). At
the end the best trial's config is written as YAML (``--out``, default
``<runs_dir>/tune/<study>_best.yaml``), ready for ``train.py --config``.

Each trial is a run folder ``<runs_dir>/tune/<study>__t<N>/`` (TensorBoard, evaluations,
model), so ``hgin-plot`` draws the trials' curves. Optuna is the ``tune`` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hgin_cli.common import add_version, epilog, help_formatter

#: the PPO fields searched and their ranges (batch sizes: the divisors of the rollout)
SPACE = {
    "learning_rate": (1e-5, 1e-3),
    "n_epochs": (1, 8),
    "gamma": (0.98, 0.999),
    "gae_lambda": (0.9, 0.99),
    "clip_range": (0.1, 0.3),
    "ent_coef": (1e-5, 2e-2),
    "vf_coef": (0.25, 1.0),
}
BATCH_SIZES = (64, 128, 256, 512, 1024, 2048, 4096, 8192)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="hgin-tune",
        description="Search a config's PPO fields with Optuna (pruned short runs, a "
        "resumable SQLite study, the best config written as YAML).",
        formatter_class=help_formatter(),
        epilog=epilog(
            "%(prog)s vs_simple --trials 20 --steps 200000",
            "%(prog)s configs/selfplay.yaml --trials 8 --study sp --set ppo.n_envs=64",
            "%(prog)s vs_simple --trials 30        # again: runs only the missing trials",
            "train.py --config runs/tune/vs_simple_best.yaml   # train the best config",
        ),
    )
    add_version(parser)
    parser.add_argument("config", help="YAML config file or a named config (vs_simple)")
    parser.add_argument(
        "--trials", type=int, required=True, help="the study's number of trials (in all)"
    )
    parser.add_argument(
        "--steps", type=int, default=100_000, help="environment steps per trial (default 100k)"
    )
    parser.add_argument(
        "--chunks", type=int, default=4, help="evaluations (pruning points) per trial (default 4)"
    )
    parser.add_argument("--study", default=None, help="study name (default: the config's stem)")
    parser.add_argument(
        "--storage", default=None, help="Optuna storage URL (default sqlite:///<runs_dir>/tune/)"
    )
    parser.add_argument("--out", type=Path, default=None, help="the best config's YAML file")
    parser.add_argument("--seed", type=int, default=0, help="the sampler's seed (default 0)")
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="override a field of the config for every trial (repeatable)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.trials < 1:
        parser.error(f"--trials must be >= 1, got {args.trials}")
    if args.chunks < 1 or args.steps < args.chunks:
        parser.error("--chunks must be >= 1 and --steps at least --chunks")
    return args


def suggest(trial: Any, rollout: int) -> list[str]:
    """The trial's PPO fields as ``ppo.KEY=VALUE`` overrides."""
    batches = [b for b in BATCH_SIZES if b <= rollout and rollout % b == 0] or [rollout]
    lo, hi = SPACE["n_epochs"]
    values: dict[str, Any] = {
        "learning_rate": trial.suggest_float("learning_rate", *SPACE["learning_rate"], log=True),
        "n_epochs": trial.suggest_int("n_epochs", lo, hi),
        "batch_size": trial.suggest_categorical("batch_size", batches),
        "gamma": trial.suggest_float("gamma", *SPACE["gamma"]),
        "gae_lambda": trial.suggest_float("gae_lambda", *SPACE["gae_lambda"]),
        "clip_range": trial.suggest_float("clip_range", *SPACE["clip_range"]),
        "ent_coef": trial.suggest_float("ent_coef", *SPACE["ent_coef"], log=True),
        "vf_coef": trial.suggest_float("vf_coef", *SPACE["vf_coef"]),
    }
    return [f"ppo.{key}={value}" for key, value in values.items()]


def latest_value(run_dir: Path) -> float:
    """The run's latest evaluation value (its ``eval.best_metric``), from ``eval.json``."""
    data = json.loads((run_dir / "eval.json").read_text())
    return float(data["latest"]["value"])


def main(argv: list[str] | None = None) -> int:
    """Run the study; the exit status."""
    args = parse_args(argv)
    try:
        import optuna
    except ModuleNotFoundError as exc:
        print(
            f"error: hgin-tune needs optuna ({exc.name}): pip install -e '.[tune]'", file=sys.stderr
        )
        return 2
    from agents.training import CheckpointError, ConfigError, load_config, train

    try:
        base = load_config(args.config, args.overrides)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    study_name = args.study or Path(args.config).stem
    tune_dir = Path(base.runs_dir) / "tune"
    tune_dir.mkdir(parents=True, exist_ok=True)
    storage = args.storage or f"sqlite:///{tune_dir / f'{study_name}.db'}"
    out = args.out or tune_dir / f"{study_name}_best.yaml"
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        study_name=study_name, storage=storage, load_if_exists=True, direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=args.seed),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=1, n_warmup_steps=0),
    )  # fmt: skip
    states = optuna.trial.TrialState
    for stale in study.get_trials(deepcopy=False, states=(states.RUNNING,)):
        study.tell(stale.number, state=states.FAIL)  # a trial killed mid-run (one process)
    done = len(study.get_trials(deepcopy=False, states=(states.COMPLETE, states.PRUNED)))
    rollout = base.ppo.n_envs * base.ppo.n_steps
    chunk = args.steps // args.chunks

    def objective(trial: Any) -> float:
        ppo = suggest(trial, rollout)
        name = f"{study_name}__t{trial.number}"
        fixed = [
            *args.overrides, *ppo, f"runs_dir={tune_dir}", "progress_bar=false",
            f"eval.every_steps={chunk}", f"total_timesteps={chunk}",
        ]  # fmt: skip
        config = load_config(args.config, fixed)
        result = train(config, run_name=name)
        value = latest_value(result.run_dir)
        trial.set_user_attr("run_dir", str(result.run_dir))
        trial.report(value, result.steps)
        for part in range(2, args.chunks + 1):
            if trial.should_prune():
                raise optuna.TrialPruned()
            result = train(
                None, resume=result.run_dir, overrides=[f"total_timesteps={chunk * part}"]
            )
            value = latest_value(result.run_dir)
            trial.report(value, result.steps)
        return value

    remaining = max(0, args.trials - done)
    print(f"study {study_name!r} ({storage}): {done} trials done, {remaining} to run")
    try:
        if remaining:
            study.optimize(objective, n_trials=remaining, catch=(CheckpointError,))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: the study is saved; run the same command to go on", file=sys.stderr)
        return 130
    finished = study.get_trials(deepcopy=False, states=(states.COMPLETE,))
    for t in study.get_trials(deepcopy=False):
        shown = "-" if t.value is None else f"{t.value:.4f}"
        print(f"trial {t.number}: {t.state.name.lower()} {shown} {t.params}")
    if not finished:
        print("error: no trial completed, so there is no best config", file=sys.stderr)
        return 1
    best = study.best_trial
    overrides = [*args.overrides, *(f"ppo.{k}={v}" for k, v in best.params.items())]
    out.parent.mkdir(parents=True, exist_ok=True)
    header = (
        f"# hgin-tune: best of study {study_name!r}, trial {best.number}, "
        f"{base.eval.best_metric} {best.value:.4f} after {args.steps:,} steps\n"
    )
    out.write_text(header + load_config(args.config, overrides).to_yaml())
    print(f"best: trial {best.number}, {base.eval.best_metric} {best.value:.4f}; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

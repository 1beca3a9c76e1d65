"""Train a MaskablePPO agent for Hollywood Gin from a YAML config.

Usage::

    python train.py                                   # configs/default.yaml
    python train.py --config configs/vs_simple.yaml --seed 3
    python train.py --config vs_simple                # a named config, the same file
    python train.py --config configs/selfplay.yaml --set ppo.learning_rate=1e-4 --run-name sp
    python train.py --resume runs/default__0__20250101-120000
    python train.py --config vs_simple --track        # also log to Weights & Biases
    python train.py --exploit ppo-cards --steps 1000000 --series 1000 --eval-seed 2026

Everything is documented in ``docs/training.md``; the work happens in ``agents.training``.
``--exploit TARGET`` measures exploitability: it trains a fresh best response to TARGET
for ``--steps`` steps (the recipe ``configs/exploit.yaml``, or ``--config``;
``agents.training.exploit``) and reports its margin over ``--series`` series of the
held-out deals of ``--eval-seed`` (docs/training.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import Any

from hgin_cli.common import add_version, epilog, help_formatter, policy_error, rules_items
from hgin_cli.trust import add_trust_option, apply_trust


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description="Train a MaskablePPO Hollywood Gin agent (see docs/training.md).",
        formatter_class=help_formatter(),
        epilog=epilog(
            "%(prog)s                                  # configs/default.yaml",
            "%(prog)s --config vs_simple --seed 3 --set ppo.learning_rate=1e-4",
            "%(prog)s --resume runs/default__0__20250101-120000",
            "%(prog)s --config vs_simple --track      # Weights & Biases (WANDB_MODE=offline)",
            "hgin-plot runs/default__0__* -o curves.png   # the learning curves",
            "hgin-tune vs_simple --trials 20           # an Optuna search (docs/plots.md)",
        ),
    )
    add_version(parser)
    parser.add_argument(
        "--config",
        help="YAML config file, or a named config (vs_simple) or shipped model (ppo-cards) "
        "(default: configs/default.yaml)",
        default=None,
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one field, e.g. --set ppo.learning_rate=1e-4 (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=None, help="override the config's seed")
    parser.add_argument(
        "--run-name", default=None, help="run folder name (default: <experiment>__<seed>__<time>)"
    )
    parser.add_argument(
        "--resume", default=None, metavar="RUN_DIR", help="continue a run from its last checkpoint"
    )
    parser.add_argument(
        "--print-config", action="store_true", help="print the resolved config and exit"
    )
    parser.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default="sb3",
        help="sb3: MaskablePPO (default); rllib: RLlib PPO on Ray (docs/rllib.md)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="rllib: join this Ray cluster (auto or HOST:PORT) instead of starting a local one",
    )
    parser.add_argument(
        "--env-runners",
        type=int,
        default=1,
        help="rllib: env runners, each stepping ppo.n_envs games (default 1)",
    )
    parser.add_argument(
        "--track",
        action="store_true",
        help="log the run to Weights & Biases too (TensorBoard synced, config and run folder "
        "attached; works offline with WANDB_MODE=offline; the track extra)",
    )
    parser.add_argument(
        "--wandb-project", default=None, metavar="NAME", help="--track: the wandb project"
    )
    exploit = parser.add_argument_group(
        "exploitability", "train a best response to a frozen policy and report its margin"
    )
    exploit.add_argument(
        "--exploit",
        metavar="TARGET",
        help="train a fresh best response to TARGET (a bot, model or shipped model) and report "
        "its margin; --config is the recipe (default configs/exploit.yaml)",
    )
    exploit.add_argument(
        "--steps", type=int, default=1_000_000, help="the best response's steps (default 1,000,000)"
    )
    exploit.add_argument(
        "--series", type=int, default=1000, help="series of the final evaluation (default 1000)"
    )
    exploit.add_argument(
        "--eval-seed", type=int, default=0, help="seed of the held-out evaluation deals (default 0)"
    )
    exploit.add_argument(
        "--workers", type=int, default=1, help="processes playing the evaluation (default 1)"
    )
    exploit.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="KEY=VALUE[,...]",
        help="rules options of the training and the evaluation (docs/rules.md); repeat the "
        "flag or give a comma list",
    )
    exploit.add_argument("--json", type=Path, metavar="PATH", help="write the result as JSON")
    exploit.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    add_trust_option(parser)
    args = parser.parse_args(argv)
    apply_trust(args)
    args.rules = rules_items(args.rules)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for the provenance block
    if args.exploit is None:
        given = [f"--{k.replace('_', '-')}" for k in DEFAULTS if getattr(args, k) != DEFAULTS[k]]
        if given:
            parser.error(f"{', '.join(given)} go with --exploit TARGET")
    else:
        if args.resume or args.print_config or args.backend != "sb3" or args.track:
            parser.error("--exploit TARGET takes no --resume, --print-config, --backend or --track")
        for name in ("steps", "series", "workers"):
            if getattr(args, name) < 1:
                parser.error(f"--{name} must be >= 1, got {getattr(args, name)}")
        if args.eval_seed < 0:
            parser.error(f"--eval-seed must be >= 0, got {args.eval_seed}")
    return args


#: the options that go with ``--exploit`` alone, and their defaults
DEFAULTS: dict[str, Any] = {
    "steps": 1_000_000,
    "series": 1000,
    "eval_seed": 0,
    "workers": 1,
    "rules": [],
    "json": None,
    "no_progress": False,
}


def run_exploit(args: argparse.Namespace) -> int:
    """``--exploit TARGET``: train a best response, print its margin; the exit status."""
    from agents.evaluation.provenance import provenance
    from agents.evaluation.report import (
        RESULTS_HEADER,
        markdown_table,
        pair_rows,
        print_table,
        results_row,
    )
    from agents.training import CheckpointError, ConfigError
    from agents.training.exploit import exploit
    from hgin_cli.output_paths import OutputPathError, check_writable
    from hgin_env.envs.policy import PolicyLoadError
    from hgin_env.envs.spec import parse_rules

    try:
        parse_rules(args.rules)
        if args.json:
            check_writable(args.json)
        overrides = [f"rules.{item}" for item in args.rules] + args.overrides  # --rules too
        if args.seed is not None:
            overrides.append(f"seed={args.seed}")
        out = exploit(
            args.exploit, args.steps, args.config, overrides, args.series,
            args.eval_seed, args.workers, args.run_name, progress=not args.no_progress,
        )  # fmt: skip
    except PolicyLoadError as exc:
        print(policy_error(exc), file=sys.stderr)
        return 2
    except (ConfigError, CheckpointError, OutputPathError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: the exploiter's run folder keeps its checkpoint", file=sys.stderr)
        return 130
    res = out.evaluation
    title = f"exploiter of {out.target} after {out.steps:,} steps: {res.n_series} series"
    print_table(title, ["", "A", "B"], pair_rows(res))
    print(markdown_table(RESULTS_HEADER, [results_row(res)]))
    print(f"run folder: {out.run_dir} (exploit.json, TensorBoard under tb/)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        data = out.to_dict()
        rules = parse_rules(args.rules).to_dict()
        seeds = {"seed": args.seed, "eval_seed": args.eval_seed, "series": args.series}
        data["provenance"] = provenance([args.exploit], rules, seeds, ["train.py", *args.argv])
        args.json.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


def write_provenance(run_dir: Path, argv: list[str]) -> None:
    """Write ``provenance.json`` in the run folder: version, commit, model sha256s, seeds.

    The models are the run's own (``final_model.zip``, ``best_model.zip``: whichever
    exists) and those its config names (a pretraining start or teacher, opponents).
    """
    import json

    import yaml

    from agents.evaluation.provenance import provenance

    config = yaml.safe_load((run_dir / "config.yaml").read_text()) or {}
    opponents = config.get("opponents") or {}
    league = opponents.get("league") or {}
    pretrain = config.get("pretrain") or {}
    named = [
        *(opponents.get("mix") or {}),
        *(league.get("bots") or {}),
        *(str(pretrain[k]) for k in ("init_from", "teacher") if pretrain.get(k)),
    ]
    own = [str(p) for p in sorted(run_dir.glob("*_model.*"))]
    seeds = {"seed": config.get("seed"), "eval_seed": (config.get("eval") or {}).get("seed")}
    data = provenance([*own, *named], config.get("rules"), seeds, ["train.py", *argv])
    (run_dir / "provenance.json").write_text(json.dumps(data, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, train, and print where the results are."""
    args = parse_args(argv)
    # Ctrl-C (SIGINT) must reach the trainer as KeyboardInterrupt, which writes a checkpoint,
    # even when a parent shell started us with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from agents.training.run import by_sigterm, check_name, stop_on_sigterm

    # SIGTERM (timeout, docker stop, Kubernetes, Slurm) takes Ctrl-C's path: a checkpoint,
    # the resume command, then exit status 143
    stop_on_sigterm()
    if args.exploit is not None:
        return run_exploit(args)
    from agents.cluster.ray import RayClusterError
    from agents.training import CheckpointError, ConfigError, load_config
    from hgin_cli.track import TrackingError, attach, tracking
    from hgin_env.envs.policy import PolicyLoadError
    from hgin_env.envs.workers import EnvWorkerError

    try:
        if args.resume:
            if args.config or args.seed is not None or args.run_name:
                raise ConfigError("--resume takes the run's saved config; only --set may change it")
            check_name(Path(args.resume).name or args.resume, "--resume")
            config = None
        else:
            if args.run_name is not None:
                check_name(args.run_name, "--run-name")
            config = load_config(args.config, args.overrides, seed=args.seed)
        if args.print_config:
            if config is None:  # the saved config with the --set overrides, as resuming uses it
                from agents.training.run import load_run_config

                config = load_run_config(Path(args.resume), args.overrides)
            print(config.to_yaml())
            return 0
        from agents.training import train

        overrides = args.overrides if args.resume else ()
        kwargs = {}
        if args.backend == "rllib":
            from agents.training.rllib.backend import train  # noqa: F811
            from agents.training.sb3.convert import SB3_BRIDGE

            kwargs = {
                "address": args.address,
                "env_runners": args.env_runners,
                "bridge": SB3_BRIDGE,
            }
        tracker: contextlib.AbstractContextManager = contextlib.nullcontext()
        if args.track:
            if config is None:
                from agents.training.run import load_run_config

                config = load_run_config(Path(args.resume), args.overrides)
            name = args.run_name or (Path(args.resume).name if args.resume else None)
            tracker = tracking(config.to_dict(), Path(config.runs_dir), name, args.wandb_project)
        with tracker as wandb_run:
            result = train(
                None if args.resume else config, run_name=args.run_name, resume=args.resume,
                overrides=overrides, **kwargs,
            )  # fmt: skip
            if (result.run_dir / "config.yaml").is_file():  # not a run removed at Ctrl-C
                write_provenance(result.run_dir, sys.argv[1:] if argv is None else argv)
            if wandb_run is not None:
                attach(wandb_run, result.run_dir, result.final_eval)
    except TrackingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (ConfigError, CheckpointError, PolicyLoadError, RayClusterError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except EnvWorkerError as exc:  # a worker process died; a checkpoint was written
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # before the trainer could handle it (while starting up)
        print("\ninterrupted while starting: nothing was trained", file=sys.stderr)
        return 143 if by_sigterm(exc) else 130
    if result.interrupted:
        return 143 if result.terminated else 130
    print(f"done: {result.steps:,} steps in {result.seconds:.0f}s ({result.fps:,.0f} steps/s)")
    if result.final_eval:
        scores = ", ".join(
            f"{name} {s['hand_win_rate']:.2f}" for name, s in result.final_eval["opponents"].items()
        )
        print(f"final evaluation, hand win rate: {scores}")
    print(f"run folder: {result.run_dir}  (tensorboard --logdir {result.run_dir.parent})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

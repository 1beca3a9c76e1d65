"""Evaluate policies over full Hollywood series: one pair, or a round-robin league.

Usage::

    python evaluate.py A B --series 1000 --seed 0 [--duplicate] [--json out.json]
    python evaluate.py --league random simple expert --series 2000 --json league.json
    python evaluate.py A B --series 100 --transcript runs/hands.jsonl --transcript-hands 5
    python evaluate.py ppo-cards --against random simple expert --series 2000 --seed 2026
    python evaluate.py --rules undercut_bonus=25,knock_limit=10 A B   # any supported rule set
    python evaluate.py --list-policies                # every policy name, version, summary

``--against`` plays A against each listed opponent in turn and ends with one markdown
results table (the shipped-agent table of ``docs/results.md`` is this output). ``--workers K`` plays
the series of each pair (``--against`` and ``--league`` too) in K processes, and ``--ray``
as Ray tasks, with the same table and JSON as one process (the ``runner`` of
``agents.evaluation.evaluate``; see docs/workers.md). ``--json`` results carry a
``provenance`` block (package version, git commit, model sha256s, rules, seeds;
``agents.evaluation.provenance``).

A policy is a bot name (``random``, ``simple``, ``expert``), a saved model (a folder
holding ``hgin_policy.json``, or a run folder), a MaskablePPO ``.zip`` path, or a shipped
model name (``models/<name>/``). The numbers come from
``agents.evaluation`` (see its docstring for the confidence intervals). ``--transcript``
keeps the first hand of the first K series as JSON Lines plus a ``.txt`` rendering;
replay one with ``python -m hgin_env.replay PATH --hand 1``. Exploitability (a best
response trained against a policy) is training: ``train.py --exploit TARGET``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sys
from pathlib import Path

from agents.cluster.ray import RayClusterError
from agents.evaluation import Runner, evaluate, league, local, processes, ray, shard_bounds
from agents.evaluation.provenance import provenance
from agents.evaluation.report import (
    RESULTS_HEADER,
    league_tables,
    markdown_table,
    pair_rows,
    print_table,
    results_row,
)
from agents.evaluation.transcript import TranscriptRecorder, transcript_paths
from agents.memory import SERIES_BYTES, check_fits
from agents.policies.model import PolicyLoadError, load_policy
from hgin_cli.common import (
    add_list_policies,
    add_rules,
    add_version,
    epilog,
    help_formatter,
    policy_error,
    rules_items,
)
from hgin_cli.output_paths import OutputPathError, check_writable
from hgin_cli.trust import add_trust_option, apply_trust
from hgin_env.envs.spec import parse_rules
from hgin_env.envs.workers import EnvWorkerError


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        description="Play full Hollywood series between policies and report the results.",
        formatter_class=help_formatter(),
        epilog=epilog(
            "%(prog)s simple random --series 200 --seed 1",
            "%(prog)s ppo-taught --against random simple expert --series 2000 --json out.json",
            "%(prog)s --league random simple expert --series 500 --json league.json",
            "%(prog)s --rules undercut_bonus=25,knock_limit=10 simple expert",
            "%(prog)s --list-policies",
            "hgin-plot out.json -o out.png     # draw the results (docs/plots.md)",
        ),
    )
    add_version(parser)
    add_list_policies(parser)
    parser.add_argument(
        "policies", nargs="*", metavar="POLICY",
        help="two policies (A B): bot names, model paths (folders, .zip) or shipped model names",
    )  # fmt: skip
    parser.add_argument(
        "--league", nargs="+", metavar="POLICY",
        help="round robin of every pair of these policies (instead of A B)",
    )  # fmt: skip
    parser.add_argument(
        "--against", nargs="+", metavar="OPPONENT",
        help="play the one policy A against each of these opponents; print a markdown table",
    )  # fmt: skip
    parser.add_argument(
        "--series", type=int, default=1000, help="series (deal sequences) per pair (default 1000)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the deals and the bots (default 0)"
    )
    parser.add_argument(
        "--duplicate", action="store_true",
        help="also play every deal sequence with the seats swapped (doubles the series)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the results as JSON")
    parser.add_argument(
        "--workers", type=int, default=1, metavar="K",
        help="play the series in K processes (same results; A B, --against and --league)",
    )  # fmt: skip
    add_rules(parser, "rules options (docs/rules.md), recorded in the JSON")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--transcript", type=Path, metavar="PATH",
        help="write sampled hands as JSON Lines to PATH and as text next to it (.txt)",
    )  # fmt: skip
    parser.add_argument(
        "--transcript-hands", type=int, default=5, metavar="K",
        help="hands in the transcript: the first hand of the first K series (default 5)",
    )  # fmt: skip
    parser.add_argument(
        "--ray", nargs="?", const="", default=None, metavar="ADDRESS",
        help="split the series across Ray workers: a new local cluster, or join ADDRESS "
        "(auto or HOST:PORT); see docs/rllib.md",
    )  # fmt: skip
    add_trust_option(parser)
    args = parser.parse_args(argv)
    apply_trust(args)
    args.rules = rules_items(args.rules)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for the provenance block
    if args.ray is not None and args.transcript:
        parser.error("--transcript works without --ray")
    if args.league and args.policies:
        parser.error("give either two policies A B or --league P1 P2 ..., not both")
    if args.against:
        if args.league or len(args.policies) != 1:
            parser.error("--against takes exactly one policy A: evaluate.py A --against B C ...")
        if args.transcript:
            parser.error("--transcript works with a pair A B, not with --against")
    elif not args.league and len(args.policies) != 2:
        parser.error(f"expected two policies A B (or --league), got {len(args.policies)}")
    if args.league and len(args.league) < 2:
        parser.error("--league needs at least two policies")
    if args.league and len(set(args.league)) < len(args.league):
        twice = next(p for p in args.league if args.league.count(p) > 1)
        parser.error(f"--league lists {twice!r} twice: each policy plays once per pair")
    if args.series < 1:
        parser.error(f"--series must be >= 1, got {args.series}")
    try:  # all the series of a pair are one batch in memory (workers split, not shrink, it)
        check_fits(args.series * (1 + args.duplicate), SERIES_BYTES, "--series")
    except ValueError as exc:
        parser.error(f"{exc} series{' (doubled by --duplicate)' if args.duplicate else ''}")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.transcript and args.league:
        parser.error("--transcript works with a pair A B, not with --league")
    if args.transcript_hands < 1:
        parser.error(f"--transcript-hands must be >= 1, got {args.transcript_hands}")
    if args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")
    if args.ray is not None and args.workers > 1:
        parser.error("give either --workers K (processes here) or --ray (a Ray cluster), not both")
    first = shard_bounds(args.series * (1 + args.duplicate), args.workers)[0][1]
    if args.transcript and args.workers > 1 and args.transcript_hands > first:
        parser.error(
            f"--transcript-hands {args.transcript_hands} is more than the {first} series of "
            "the first worker: use fewer hands or fewer --workers"
        )
    return args


def check_inputs(args: argparse.Namespace) -> None:
    """Fail before any game: the output files must be writable, ``--against`` opponents load.

    A pair or a league loads its policies before the first game anyway; ``--against``
    plays its opponents one after another, so all of them are loaded once here first.

    Raises:
        OutputPathError: ``--json`` or ``--transcript`` (or its ``.txt``) not writable.
        PolicyLoadError: a policy that cannot be loaded.
    """
    outputs = [args.json] if args.json else []
    if args.json and args.json.exists() and not args.json.is_file():
        raise OutputPathError(
            f"cannot write {args.json}: not a regular file (--json writes a whole file, atomically)"
        )
    if args.transcript:
        outputs += transcript_paths(args.transcript)
    for path in outputs:
        check_writable(path)
    if args.against:
        for spec in dict.fromkeys([*args.policies, *args.against]):
            load_policy(spec, args.seed)


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation; return the process exit status."""
    args = parse_args(argv)
    progress = not args.no_progress
    try:
        rules = parse_rules(args.rules)
        check_inputs(args)
    except PolicyLoadError as exc:
        print(policy_error(exc), file=sys.stderr)
        return 2
    except (OutputPathError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # pairs and leagues: in this process, in --workers K processes, or sharded over Ray
    runner: Runner = local if args.workers == 1 else processes(args.workers)
    if args.ray is not None:
        runner = ray(args.ray or None)
    run_pair = functools.partial(evaluate, runner=runner)
    run_league = functools.partial(league, runner=runner)
    cluster = contextlib.ExitStack()
    try:
        cluster.enter_context(runner.session())
        if args.against:
            (agent,) = args.policies
            results = []
            for opponent in args.against:
                res = run_pair(
                    agent, opponent, args.series, args.seed, duplicate=args.duplicate,
                    progress=progress, rules=rules,
                )  # fmt: skip
                title = f"{res.name_a} (A) vs {res.name_b} (B): {res.n_series} series"
                print_table(title, ["", "A", "B"], pair_rows(res))
                results.append(res)
            print(f"\n{results[0].name_a}, seed {args.seed}:\n")
            print(markdown_table(RESULTS_HEADER, [results_row(r) for r in results]))
            data = {
                "agent": results[0].name_a,
                "seed": args.seed,
                "rules": rules.to_dict(),
                "results": {r.name_b: r.to_dict() for r in results},
            }
        elif args.league:
            table = run_league(
                args.league, args.series, args.seed, duplicate=args.duplicate, progress=progress,
                rules=rules,
            )  # fmt: skip
            for title, header, rows in league_tables(table):
                print_table(title, header, rows)
            print(f"rating method: {table.rating_method}")
            data = table.to_dict()
        else:
            a, b = args.policies
            recorder = TranscriptRecorder(args.transcript_hands) if args.transcript else None
            res = run_pair(
                a, b, args.series, args.seed, duplicate=args.duplicate, progress=progress,
                recorder=recorder, rules=rules,
            )  # fmt: skip
            title = f"{res.name_a} (A) vs {res.name_b} (B): {res.n_series} series, seed {res.seed}"
            print_table(title, ["", "A", "B"], pair_rows(res))
            data = res.to_dict()
            if recorder is not None:
                jsonl, txt = recorder.write(args.transcript)
                print(f"wrote {len(recorder.records)} hands to {jsonl} and {txt}")
    except PolicyLoadError as exc:
        print(policy_error(exc), file=sys.stderr)
        return 2
    except RayClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except EnvWorkerError as exc:  # a worker process died
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        cluster.close()
    if args.json:
        policies = [*args.policies, *(args.against or []), *(args.league or [])]
        data["provenance"] = run_provenance(args, policies, rules.to_dict())
    return write_json(args.json, data)


def write_json(path: Path | None, data: object) -> int:
    """Write ``--json`` atomically (a whole file or none); the exit status (2: failed)."""
    if path is None:
        return 0
    from agents.training.checkpoint import atomic_write_text  # the one atomic writer

    try:
        atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    except OSError as exc:
        print(f"error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


def run_provenance(
    args: argparse.Namespace, policies: list[str], rules: dict | None = None
) -> dict:
    """The JSON's ``provenance`` block: version, commit, model sha256s, rules, seeds."""
    if rules is None:
        rules = parse_rules(args.rules).to_dict()
    seeds = {"seed": args.seed, "series": args.series, "duplicate": args.duplicate}
    return provenance(policies, rules, seeds, command=["evaluate.py", *args.argv])


if __name__ == "__main__":
    sys.exit(main())

"""Evaluate policies over full Hollywood series: one pair, or a round-robin league.

Usage::

    python evaluate.py A B --series 1000 --seed 0 [--duplicate] [--json out.json]
    python evaluate.py --league random simple expert --series 2000 --json league.json
    python evaluate.py A B --series 100 --transcript runs/hands.jsonl --transcript-hands 5
    python evaluate.py ppo-cards --against random simple expert --series 2000 --seed 2026

``--against`` plays A against each listed opponent in turn and ends with one markdown
results table (the README's shipped-agent table is this output). ``--workers K`` plays
the series of a pair (or of each ``--against`` pair) in K processes, with the same
table and JSON as one process (``agents.parallel_eval``; see docs/workers.md).

A policy is a bot name (``random``, ``simple``, ``expert``), a MaskablePPO ``.zip``
path, or a shipped model name (``models/<name>/model.zip``). The numbers come from
``agents.evaluation`` (see its docstring for the confidence intervals). ``--transcript``
keeps the first hand of the first K series as JSON Lines plus a ``.txt`` rendering;
replay one with ``python -m hgin_env.replay PATH --hand 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

# One intra-op thread for torch and numpy: a model plays small batches between engine
# steps, and with several OpenMP threads its forward passes ran ~30x slower whenever
# another process held the other core (threads spin-waiting).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from agents.evaluation import EvalResult, LeagueResult, league  # noqa: E402
from agents.model_policy import PolicyLoadError  # noqa: E402
from agents.parallel_eval import evaluate_parallel, shard_bounds  # noqa: E402
from agents.transcript import TranscriptRecorder  # noqa: E402
from hgin_env.envs.workers import EnvWorkerError  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        description="Play full Hollywood series between policies and report the results.",
    )
    parser.add_argument(
        "policies", nargs="*", metavar="POLICY",
        help="two policies (A B): bot names, MaskablePPO .zip paths or shipped model names",
    )  # fmt: skip
    parser.add_argument(
        "--league", nargs="+", metavar="POLICY",
        help="round robin of every pair of these policies (instead of A B)",
    )  # fmt: skip
    parser.add_argument(
        "--against", nargs="+", metavar="OPPONENT",
        help="play the one policy A against each of these opponents; print a markdown table",
    )  # fmt: skip
    parser.add_argument("--series", type=int, default=1000, help="series (deal sequences) per pair")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the bots")
    parser.add_argument(
        "--duplicate", action="store_true",
        help="also play every deal sequence with the seats swapped (doubles the series)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the results as JSON")
    parser.add_argument(
        "--workers", type=int, default=1, metavar="K",
        help="play the series in K processes (same results; A B and --against only)",
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--transcript", type=Path, metavar="PATH",
        help="write sampled hands as JSON Lines to PATH and as text next to it (.txt)",
    )  # fmt: skip
    parser.add_argument(
        "--transcript-hands", type=int, default=5, metavar="K",
        help="hands in the transcript: the first hand of the first K series (default 5)",
    )  # fmt: skip
    args = parser.parse_args(argv)
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
    if args.series < 1:
        parser.error(f"--series must be >= 1, got {args.series}")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.transcript and args.league:
        parser.error("--transcript works with a pair A B, not with --league")
    if args.transcript_hands < 1:
        parser.error(f"--transcript-hands must be >= 1, got {args.transcript_hands}")
    if args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")
    if args.workers > 1 and args.league:
        parser.error("--workers works with a pair A B and with --against, not with --league")
    first = shard_bounds(args.series * (1 + args.duplicate), args.workers)[0][1]
    if args.transcript and args.workers > 1 and args.transcript_hands > first:
        parser.error(
            f"--transcript-hands {args.transcript_hands} is more than the {first} series of "
            "the first worker: use fewer hands or fewer --workers"
        )
    return args


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(ci: tuple[float, float] | list[float], pct: bool = True) -> str:
    lo, hi = ci
    return f"[{_pct(lo)}, {_pct(hi)}]" if pct else f"[{lo:+.2f}, {hi:+.2f}]"


def pair_rows(r: EvalResult) -> list[tuple[str, str, str]]:
    """The rows (metric, A, B) of a pair's table."""
    a, b = r.a, r.b
    n = r.n_series
    return [
        ("series won", f"{r.series_won}/{n} {_pct(r.series_win_rate)} {_ci(r.series_win_ci)}",
         f"{r.series_lost}/{n} {_pct(r.series_lost / n)}"),
        ("games won", str(r.games_won), str(r.games_lost)),
        ("hands won", f"{r.hands_won} {_pct(r.hand_win_rate)} {_ci(r.hand_win_ci)}",
         f"{r.hands_lost} {_pct(r.hands_lost / max(r.hands, 1))}"),
        ("hands drawn", f"{r.hands_drawn} of {r.hands} ({r.hands_truncated} truncated)", ""),
        ("points per hand", f"{r.points_per_hand:+.2f} {_ci(r.points_per_hand_ci, pct=False)}",
         f"{-r.points_per_hand:+.2f}"),
        ("knock rate", _pct(a.knock_rate), _pct(b.knock_rate)),
        ("gin rate", _pct(a.gin_rate), _pct(b.gin_rate)),
        ("undercuts given (per opp. knock)", f"{a.undercuts_given} {_pct(a.undercut_given_rate)}",
         f"{b.undercuts_given} {_pct(b.undercut_given_rate)}"),
        ("undercut suffered (per knock)",
         f"{a.undercuts_suffered} {_pct(a.undercut_suffered_rate)}",
         f"{b.undercuts_suffered} {_pct(b.undercut_suffered_rate)}"),
        ("mean deadwood at knock", f"{a.mean_deadwood_at_knock:.2f}",
         f"{b.mean_deadwood_at_knock:.2f}"),
        ("mean hands per series", f"{r.mean_hands_per_series:.2f}", ""),
        ("speed", f"{r.series_per_second:.1f} series/s ({r.seconds:.1f} s)", ""),
    ]  # fmt: skip


RESULTS_HEADER = [
    "opponent",
    "series",
    "series won [95% CI]",
    "hand win % [95% CI]",
    "points per hand [95% CI]",
    "gin rate",
    "undercut rate",
    "undercut suffered",
]


def results_row(r: EvalResult) -> list[str]:
    """One row of the results table: A's figures against B (rates per hand, per knock)."""
    a = r.a
    return [
        r.name_b,
        str(r.n_series),
        f"{_pct(r.series_win_rate)} {_ci(r.series_win_ci)}",
        f"{_pct(r.hand_win_rate)} {_ci(r.hand_win_ci)}",
        f"{r.points_per_hand:+.2f} {_ci(r.points_per_hand_ci, pct=False)}",
        _pct(a.gin_rate),
        _pct(a.undercut_given_rate),
        _pct(a.undercut_suffered_rate),
    ]


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def league_tables(res: LeagueResult) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of the league's tables: ratings, then the three matrices."""
    tables = []
    order = sorted(range(len(res.names)), key=lambda i: -res.ratings[i].rating)
    rows = []
    for rank, i in enumerate(order):
        r = res.ratings[i]
        gap = ""
        if rank + 1 < len(order):
            value, lo, hi = res.rating_gaps[i][order[rank + 1]]
            gap = f"{value:+.0f} [{lo:+.0f}, {hi:+.0f}] over {res.names[order[rank + 1]]}"
        rows.append([r.name, f"{r.rating:+.0f}", f"[{r.ci_low:+.0f}, {r.ci_high:+.0f}]", gap])
    per_pair = f"{res.pairs[0].n_series} series per pair"
    tables.append((f"Ratings ({per_pair})", ["player", "rating", "95% CI", "gap, 95% CI"], rows))
    for title, matrix, fmt in (
        ("Series win % (row vs column)", res.series_win_rate, _pct),
        ("Hand win % (row vs column)", res.hand_win_rate, _pct),
        ("Points per hand (row vs column)", res.points_per_hand, lambda x: f"{x:+.2f}"),
    ):
        rows = [
            [res.names[i]] + ["-" if v is None else fmt(v) for v in matrix[i]]
            for i in range(len(res.names))
        ]
        tables.append((title, ["", *res.names], rows))
    return tables


def print_table(title: str, header: list[str], rows: list[list[str]] | list[tuple]) -> None:
    """Print a table with rich when it is installed, else as aligned plain text."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover - rich is a dependency
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
        print(title)
        for row in [header, *rows]:
            print("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)))
        return
    table = Table(title=title)
    for h in header:
        table.add_column(h)
    for row in rows:
        table.add_row(*[str(x) for x in row])
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation; return the process exit status."""
    args = parse_args(argv)
    progress = not args.no_progress
    try:
        if args.against:
            (agent,) = args.policies
            results = []
            for opponent in args.against:
                res = evaluate_parallel(
                    agent, opponent, args.series, args.seed, duplicate=args.duplicate,
                    progress=progress, workers=args.workers,
                )  # fmt: skip
                title = f"{res.name_a} (A) vs {res.name_b} (B): {res.n_series} series"
                print_table(title, ["", "A", "B"], pair_rows(res))
                results.append(res)
            print(f"\n{results[0].name_a}, seed {args.seed}:\n")
            print(markdown_table(RESULTS_HEADER, [results_row(r) for r in results]))
            data = {
                "agent": results[0].name_a,
                "seed": args.seed,
                "results": {r.name_b: r.to_dict() for r in results},
            }
        elif args.league:
            res = league(
                args.league, args.series, args.seed, duplicate=args.duplicate, progress=progress
            )
            for title, header, rows in league_tables(res):
                print_table(title, header, rows)
            print(f"rating method: {res.rating_method}")
            data = res.to_dict()
        else:
            a, b = args.policies
            recorder = TranscriptRecorder(args.transcript_hands) if args.transcript else None
            res = evaluate_parallel(
                a, b, args.series, args.seed, duplicate=args.duplicate, progress=progress,
                recorder=recorder, workers=args.workers,
            )  # fmt: skip
            title = f"{res.name_a} (A) vs {res.name_b} (B): {res.n_series} series, seed {res.seed}"
            print_table(title, ["", "A", "B"], pair_rows(res))
            data = res.to_dict()
            if recorder is not None:
                jsonl, txt = recorder.write(args.transcript)
                print(f"wrote {len(recorder.records)} hands to {jsonl} and {txt}")
    except PolicyLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except EnvWorkerError as exc:  # a worker process died
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

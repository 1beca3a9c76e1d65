"""Report formatting of evaluations: pair tables, the results table, league tables.

Plain functions from result objects to rows of strings, shared by ``evaluate.py`` and
anything else that prints evaluations; ``print_table`` renders one with rich.
"""

from __future__ import annotations

from agents.evaluation.results import EvalResult, LeagueResult


def pct(x: float) -> str:
    """A fraction as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def ci(interval: tuple[float, float] | list[float], percent: bool = True) -> str:
    """An interval as ``[lo, hi]``: percentages, or signed numbers with ``percent=False``."""
    lo, hi = interval
    return f"[{pct(lo)}, {pct(hi)}]" if percent else f"[{lo:+.2f}, {hi:+.2f}]"


def pair_rows(r: EvalResult) -> list[tuple[str, str, str]]:
    """The rows (metric, A, B) of a pair's table."""
    a, b = r.a, r.b
    n = r.n_series
    return [
        ("series won", f"{r.series_won}/{n} {pct(r.series_win_rate)} {ci(r.series_win_ci)}",
         f"{r.series_lost}/{n} {pct(r.series_lost / n)}"),
        ("games won", str(r.games_won), str(r.games_lost)),
        ("hands won", f"{r.hands_won} {pct(r.hand_win_rate)} {ci(r.hand_win_ci)}",
         f"{r.hands_lost} {pct(r.hands_lost / max(r.hands, 1))}"),
        ("hands drawn", f"{r.hands_drawn} of {r.hands} ({r.hands_truncated} truncated)", ""),
        ("points per hand", f"{r.points_per_hand:+.2f} {ci(r.points_per_hand_ci, percent=False)}",
         f"{-r.points_per_hand:+.2f}"),
        ("knock rate", pct(a.knock_rate), pct(b.knock_rate)),
        ("gin rate", pct(a.gin_rate), pct(b.gin_rate)),
        ("undercuts given (per opp. knock)", f"{a.undercuts_given} {pct(a.undercut_given_rate)}",
         f"{b.undercuts_given} {pct(b.undercut_given_rate)}"),
        ("undercut suffered (per knock)",
         f"{a.undercuts_suffered} {pct(a.undercut_suffered_rate)}",
         f"{b.undercuts_suffered} {pct(b.undercut_suffered_rate)}"),
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
    "undercuts given",
]


def results_row(r: EvalResult) -> list[str]:
    """One row of the results table: A's figures against B (rates per hand, per knock).

    ``undercut rate`` is A's knocks that were undercut (per A knock), ``undercuts given``
    B's knocks that A undercut (per B knock): the definitions of ``agents.evaluation.tally``.
    """
    a = r.a
    return [
        r.name_b,
        str(r.n_series),
        f"{pct(r.series_win_rate)} {ci(r.series_win_ci)}",
        f"{pct(r.hand_win_rate)} {ci(r.hand_win_ci)}",
        f"{r.points_per_hand:+.2f} {ci(r.points_per_hand_ci, percent=False)}",
        pct(a.gin_rate),
        pct(a.undercut_suffered_rate),
        pct(a.undercut_given_rate),
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
            gap_row = res.rating_gaps[i][order[rank + 1]]
            assert gap_row is not None  # only the diagonal is None
            value, lo, hi = gap_row
            gap = f"{value:+.0f} [{lo:+.0f}, {hi:+.0f}] over {res.names[order[rank + 1]]}"
        rows.append([r.name, f"{r.rating:+.0f}", f"[{r.ci_low:+.0f}, {r.ci_high:+.0f}]", gap])
    per_pair = f"{res.pairs[0].n_series} series per pair"
    tables.append((f"Ratings ({per_pair})", ["player", "rating", "95% CI", "gap, 95% CI"], rows))
    for title, matrix, fmt in (
        ("Series win % (row vs column)", res.series_win_rate, pct),
        ("Hand win % (row vs column)", res.hand_win_rate, pct),
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

"""``hgin-plot``: pictures of runs and results (matplotlib, the ``plots`` extra).

What it draws depends on what it is given (all inputs of one kind):

- run folders (``runs/<name>/``, or a model's ``training_eval.json``): learning curves,
  one panel per evaluation opponent (``--metric``, default the run's
  ``eval.best_metric``) plus the training return from the TensorBoard events
  (``rollout/ep_rew_mean``); several runs are overlaid, each with a 95% Wilson band
  where the metric is a rate of counted hands or series (the run's ``eval.n_hands`` or
  ``eval.n_series``);
- ``evaluate.py --league ... --json`` files: the series-won heatmap and the rating bars
  with their 95% intervals;
- ``evaluate.py A --against ... --json`` (or ``A B --json``) files: series-won bars with
  their 95% intervals, one group per file; with ``--heatmap``, one matrix of the agents
  against their opponents instead (``models/*/eval.json`` gives the shipped models').

``make plots`` draws docs/results.md's pictures from the shipped models' files.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from hgin_cli.common import add_version, epilog, help_formatter

#: the TensorBoard scalar drawn beside the evaluations
TB_TAG = "rollout/ep_rew_mean"
#: the metrics a rate band is drawn for, and the eval field counting their trials
RATE_COUNTS = {"hand_win_rate": "n_hands", "series_win_rate": "n_series"}


class PlotError(ValueError):
    """An input that cannot be drawn (the message names it)."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="hgin-plot",
        description="Draw learning curves, league heatmaps, ratings and results bars as PNG.",
        formatter_class=help_formatter(),
        epilog=epilog(
            "%(prog)s runs/default__0__20261201-120000 -o curves.png",
            "%(prog)s runs/sp__* runs/vs_simple__* -o compare.png --metric series_win_rate",
            "%(prog)s league.json -o league.png        # evaluate.py --league ... --json",
            "%(prog)s eval.json -o bars.png            # evaluate.py A --against ... --json",
            "%(prog)s models/*/eval.json --heatmap -o shipped.png",
        ),
    )
    add_version(parser)
    parser.add_argument("inputs", nargs="+", type=Path, metavar="INPUT", help="run folders or JSON")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the PNG to write")
    parser.add_argument(
        "--metric", default=None,
        help="curves: the evaluation metric (hand_win_rate, series_win_rate, points_per_hand)",
    )  # fmt: skip
    parser.add_argument(
        "--heatmap", action="store_true", help="--against files: one agents x opponents matrix"
    )
    parser.add_argument("--title", default=None, help="the figure's title")
    parser.add_argument("--dpi", type=int, default=110, help="resolution (default 110)")
    return parser.parse_args(argv)


# ------------------------------------------------------------------ reading
def wilson(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a rate observed over ``n`` trials.

    >>> [round(x, 3) for x in wilson(0.5, 100)]
    [0.404, 0.596]
    """
    if n <= 0:
        return (math.nan, math.nan)
    den = 1 + z * z / n
    mid = (rate + z * z / (2 * n)) / den
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / den
    return (mid - half, mid + half)


def read_json(path: Path) -> Any:
    """A JSON file's data; ``PlotError`` naming the file when it cannot be read."""
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlotError(f"{path}: cannot read it as JSON ({exc})") from None


def kind_of(path: Path) -> str:
    """``"run"``, ``"league"`` or ``"against"``: what an input holds."""
    if path.is_dir():
        if history_file(path) is not None or (path / "tb").is_dir():
            return "run"
        raise PlotError(f"{path}: a folder without an evaluation history or tb/ (not a run)")
    if not path.is_file():
        raise PlotError(f"{path}: no such file or folder")
    data = read_json(path)
    if isinstance(data, dict) and "history" in data:
        return "run"
    if isinstance(data, dict) and "ratings" in data and "names" in data:
        return "league"
    if isinstance(data, dict) and ("results" in data or "name_a" in data):
        return "against"
    raise PlotError(
        f"{path}: not a run's eval.json, nor evaluate.py --json output (pair, --against, league)"
    )


def history_file(folder: Path) -> Path | None:
    """A folder's evaluation history: a run's ``eval.json``, a model's ``training_eval.json``."""
    for name in ("eval.json", "training_eval.json"):
        path = folder / name
        if path.is_file():
            data = read_json(path)
            if isinstance(data, dict) and "history" in data:
                return path
    return None


def run_curves(path: Path) -> dict[str, Any]:
    """A run's evaluation history, its eval counts and its TensorBoard training return."""
    eval_file = history_file(path) if path.is_dir() else path
    folder = path if path.is_dir() else path.parent
    history = read_json(eval_file)["history"] if eval_file is not None else []
    config_file = folder / "config.yaml"
    counts: dict[str, int] = {}
    if config_file.is_file():
        import yaml

        evals = (yaml.safe_load(config_file.read_text()) or {}).get("eval") or {}
        counts = {k: int(evals[k]) for k in ("n_hands", "n_series") if k in evals}
    tb: list[tuple[int, float]] = []
    if (folder / "tb").is_dir():
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        for events in sorted((folder / "tb").glob("**/events.out.tfevents.*")):
            acc = EventAccumulator(str(events), size_guidance={"scalars": 0})
            acc.Reload()
            if TB_TAG in acc.Tags().get("scalars", []):
                tb += [(e.step, e.value) for e in acc.Scalars(TB_TAG)]
    label = folder.name if path.is_dir() else f"{folder.name}/{path.stem}"
    return {"label": label, "history": history, "counts": counts, "tb": sorted(tb)}


# ------------------------------------------------------------------ drawing
def _pyplot() -> Any:
    try:
        import matplotlib
    except ModuleNotFoundError:
        raise PlotError("hgin-plot needs matplotlib: pip install -e '.[plots]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_curves(paths: list[Path], metric: str | None) -> Any:
    """Learning curves of one or more runs (see the module docstring)."""
    plt = _pyplot()
    runs = [run_curves(p) for p in paths]
    if not any(r["history"] or r["tb"] for r in runs):
        raise PlotError(
            "no evaluation history nor TensorBoard scalars in: " + ", ".join(map(str, paths))
        )
    first: dict[str, Any] = next((r["history"][0] for r in runs if r["history"]), {})
    metric = metric or first.get("metric", "hand_win_rate")
    opponents = list(
        dict.fromkeys(o for r in runs for h in r["history"] for o in h.get("opponents", {}))
    )
    panels = [*opponents, *([TB_TAG] if any(r["tb"] for r in runs) else [])]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for k, run in enumerate(runs):
        colour = f"C{k}"
        for ax, panel in zip(axes[0], panels, strict=True):
            if panel == TB_TAG:
                if run["tb"]:
                    steps, values = zip(*run["tb"], strict=True)
                    ax.plot(steps, values, color=colour, label=run["label"])
                continue
            points = [
                (h["steps"], h["opponents"][panel][metric])
                for h in run["history"]
                if metric in h.get("opponents", {}).get(panel, {})
            ]
            if not points:
                continue
            steps, values = zip(*points, strict=True)
            ax.plot(steps, values, marker="o", ms=3, color=colour, label=run["label"])
            count = run["counts"].get(RATE_COUNTS.get(metric, ""), 0)
            if count:
                low, high = zip(*(wilson(v, count) for v in values), strict=True)
                ax.fill_between(steps, low, high, color=colour, alpha=0.18, linewidth=0)
    for ax, panel in zip(axes[0], panels, strict=True):
        ax.set_title("training return (TensorBoard)" if panel == TB_TAG else f"vs {panel}")
        ax.set_xlabel("environment steps")
        ax.set_ylabel("episode return" if panel == TB_TAG else metric.replace("_", " "))
        ax.grid(alpha=0.3)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=f"C{k}", label=r["label"]) for k, r in enumerate(runs)]
    axes[0][0].legend(handles=handles, fontsize=8)
    return fig


def _bars(
    ax: Any, labels: list[str], values: list[float], cis: list[list[float]], colour: str
) -> None:
    pos = range(len(labels))
    err = [[v - lo for v, (lo, _) in zip(values, cis, strict=True)],
           [hi - v for v, (_, hi) in zip(values, cis, strict=True)]]  # fmt: skip
    ax.bar(pos, values, yerr=err, capsize=4, color=colour, alpha=0.85)
    ax.set_xticks(list(pos), labels, rotation=30, ha="right")


def against_results(path: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    """(agent, {opponent: pair result}) of an ``--against`` or pair JSON."""
    data = read_json(path)
    if "results" in data:
        return str(data["agent"]), dict(data["results"])
    return str(data["name_a"]), {str(data["name_b"]): data}


def draw_against(paths: list[Path]) -> Any:
    """Series-won bars with their 95% intervals, one panel per file."""
    plt = _pyplot()
    groups = [(p, *against_results(p)) for p in paths]
    fig, axes = plt.subplots(
        1,
        len(groups),
        figsize=(1.1 * max(4, max(len(g[2]) for g in groups)) * len(groups) + 1, 3.6),
        squeeze=False,
    )
    for k, (ax, (path, agent, results)) in enumerate(zip(axes[0], groups, strict=True)):
        names = list(results)
        values = [results[n]["series_win_rate"] for n in names]
        cis = [results[n]["series_win_ci"] for n in names]
        _bars(ax, names, values, cis, f"C{k}")
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_ylim(0, 1)
        ax.set_ylabel("series won (95% CI)")
        ax.set_title(f"{agent} ({path.stem})" if len(groups) > 1 else agent)
        ax.grid(axis="y", alpha=0.3)
    return fig


def _heatmap(
    ax: Any, fig: Any, rows: list[str], cols: list[str], matrix: list[list[float | None]]
) -> None:
    import numpy as np

    values = np.array([[math.nan if v is None else v for v in row] for row in matrix], float)
    image = ax.imshow(values, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(len(cols)), cols, rotation=35, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not math.isnan(values[i, j]):
                ax.text(j, i, f"{values[i, j]:.0%}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="series won by the row")


def draw_league(path: Path) -> Any:
    """A league's series-won heatmap and rating bars."""
    plt = _pyplot()
    data = read_json(path)
    names = list(data["names"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(5 + 1.1 * len(names), 4.2))
    _heatmap(left, fig, names, names, data["series_win_rate"])
    left.set_title("series won (row against column)")
    ratings = data["ratings"]
    values = [r["rating"] for r in ratings]
    cis = [[r["ci_low"], r["ci_high"]] for r in ratings]
    _bars(right, [r["name"] for r in ratings], values, cis, "C0")
    right.axhline(0, color="grey", lw=0.8)
    right.set_ylabel("rating, Elo scale (95% CI)")
    right.set_title("ratings")
    right.grid(axis="y", alpha=0.3)
    return fig


def draw_against_heatmap(paths: list[Path]) -> Any:
    """One agents x opponents matrix of series won from several ``--against`` files."""
    plt = _pyplot()
    table: dict[str, dict[str, float]] = {}
    for path in paths:
        agent, results = against_results(path)
        table.setdefault(agent, {}).update({o: r["series_win_rate"] for o, r in results.items()})
    rows = list(table)
    cols = list(dict.fromkeys(o for r in table.values() for o in r))
    matrix = [[table[r].get(c) for c in cols] for r in rows]
    fig, ax = plt.subplots(figsize=(2.5 + 0.9 * len(cols), 1.6 + 0.5 * len(rows)))
    _heatmap(ax, fig, rows, cols, matrix)
    ax.set_title("series won by each agent (row) against each opponent")
    return fig


def draw(paths: list[Path], metric: str | None = None, heatmap: bool = False) -> Any:
    """The figure for ``paths`` (all of one kind; see the module docstring)."""
    kinds = {kind_of(p) for p in paths}
    if len(kinds) > 1:
        raise PlotError(f"give inputs of one kind, got {', '.join(sorted(kinds))}")
    kind = kinds.pop()
    if kind == "run":
        return draw_curves(paths, metric)
    if kind == "league":
        if len(paths) > 1:
            raise PlotError("draw one league at a time")
        return draw_league(paths[0])
    return draw_against_heatmap(paths) if heatmap else draw_against(paths)


def main(argv: list[str] | None = None) -> int:
    """Draw the inputs into the PNG; the exit status."""
    args = parse_args(argv)
    try:
        fig = draw(args.inputs, args.metric, args.heatmap)
        if args.title:
            fig.suptitle(args.title)
        fig.tight_layout()
        args.output.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.output, dpi=args.dpi, metadata={"Software": None})
    except (PlotError, KeyError) as exc:
        text = str(exc) if isinstance(exc, PlotError) else f"a field is missing: {exc}"
        print(f"error: {text}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

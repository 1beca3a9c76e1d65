"""Model cards: ``models/<name>/README.md`` written from the files in that model's folder.

``python -m hgin_cli.model_card [FOLDER ...]`` (``make cards``; default: every folder under
``models/``) reads what a model folder holds, whatever its weights format:

- ``config.yaml``: the network, the environment, the rules and the opponents; its leading
  ``#`` comment, when there is one, says how the model was really made;
- ``expert_iteration.json`` (made by expert iteration: student, teacher, iterations, the
  gathering and fitting time), or ``training_eval.json`` and ``pretrain.json`` (made by
  ``train.py``: PPO steps, imitation, the evaluation history and its time span);
- ``eval*.json`` (``evaluate.py A --against ... --json``): the results tables with their
  95% intervals, and from them the known weaknesses (opponents it is not clearly ahead
  of, knocks that are often undercut);
- every weights or network-spec file, with its sha256; the observation width read from
  the weights' metadata.

Nothing is loaded (no torch): a card is text made from text. ``--check`` exits 1 when a
card differs from what its files give (a test runs it).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import yaml

from agents.evaluation.provenance import file_sha256, is_model_file
from agents.shipped import shipped_dir
from hgin_cli.common import add_version

#: the observation layouts by width (``hgin_env.envs.observation``: layout 2 adds rules)
LAYOUTS = {394: "layout 1 (394 entries: no rules block)", 400: "layout 2 (400 entries)"}
#: a knock undercut more often than this is called a weakness
UNDERCUT_WEAK = 0.15


def _json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.is_file() else None


def config_comment(text: str) -> str:
    """The leading ``#`` comment of a config file, as one paragraph."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


def observation_width(folder: Path) -> int | None:
    """The observation width in the weights' metadata (SB3 zip ``data``, or a JSON spec)."""
    for path in sorted(folder.iterdir()):
        if path.suffix == ".zip":
            try:
                with zipfile.ZipFile(path) as z:
                    data = json.loads(z.read("data"))
                shape = data["observation_space"]["_shape"]
                return int(shape[0])
            except (KeyError, ValueError, zipfile.BadZipFile, IndexError, TypeError):
                continue
        if path.suffix == ".json" and is_model_file(path):
            found = _find_int(_json(path), ("obs_dim", "observation_dim", "obs_width", "n_inputs"))
            if found:
                return found
    return None


def _find_int(data: Any, keys: tuple[str, ...]) -> int | None:
    if isinstance(data, dict):
        for key, value in data.items():
            if key in keys and isinstance(value, int):
                return value
            found = _find_int(value, keys)
            if found:
                return found
    if isinstance(data, list):
        for value in data:
            found = _find_int(value, keys)
            if found:
                return found
    return None


def pct(x: float) -> str:
    """A rate as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def results_rows(label: str, data: dict[str, Any]) -> list[str]:
    """Markdown rows of an ``--against`` JSON: series, hands, points with their intervals."""
    rows = []
    for opponent, r in data["results"].items():
        s_lo, s_hi = r["series_win_ci"]
        h_lo, h_hi = r["hand_win_ci"]
        p_lo, p_hi = r["points_per_hand_ci"]
        rows.append(
            f"| {label} | {opponent} | {r['n_series']} | {pct(r['series_win_rate'])} "
            f"[{pct(s_lo)}, {pct(s_hi)}] | {pct(r['hand_win_rate'])} [{pct(h_lo)}, {pct(h_hi)}] "
            f"| {r['points_per_hand']:+.2f} [{p_lo:+.2f}, {p_hi:+.2f}] "
            f"| {pct(r['a']['undercut_suffered_rate'])} |"
        )
    return rows


def rules_label(data: dict[str, Any]) -> str:
    """``default`` or the rules that differ from the defaults (``undercut_bonus=25``)."""
    from hgin_env.engine.config import RulesConfig

    defaults = RulesConfig().to_dict()
    changed = [f"{k}={v}" for k, v in (data.get("rules") or {}).items() if defaults.get(k) != v]
    return ", ".join(changed) or "default"


def weaknesses(evals: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """What the results show it is not good at (read from the intervals)."""
    out = []
    for label, data in evals:
        for opponent, r in data["results"].items():
            lo, hi = r["series_win_ci"]
            if hi < 0.5:
                out.append(
                    f"loses to `{opponent}` ({label} rules): {pct(r['series_win_rate'])} of "
                    f"series [{pct(lo)}, {pct(hi)}]"
                )
            elif lo <= 0.5:
                out.append(
                    f"not clearly ahead of `{opponent}` ({label} rules): "
                    f"{pct(r['series_win_rate'])} of series, the interval [{pct(lo)}, "
                    f"{pct(hi)}] holds 50%"
                )
            undercut = r["a"]["undercut_suffered_rate"]
            if undercut > UNDERCUT_WEAK:
                out.append(
                    f"its knocks against `{opponent}` ({label} rules) are undercut "
                    f"{pct(undercut)} of the time"
                )
    return out


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} minutes" if seconds < 5400 else f"{seconds / 3600:.1f} hours"


def recipe(folder: Path, config: dict[str, Any], comment: str) -> tuple[str, list[str]]:
    """(one sentence on what it is, the recipe's lines) from the folder's records."""
    name = folder.name
    ppo = config.get("ppo") or {}
    net = f"{ppo.get('policy', 'mlp')} network"
    lines: list[str] = []
    ei = _json(folder / "expert_iteration.json")
    if ei is not None:
        runs = list((ei.get("runs") or {}).values())
        students = list(dict.fromkeys(r.get("student") for r in runs if r.get("student")))
        teachers = list(dict.fromkeys(r.get("teacher") for r in runs if r.get("teacher")))
        wall = sum(float(r.get("gather_s") or 0) + float(r.get("fit_s") or 0) for r in runs)
        what = (
            f"`{name}` is {students[0] if students else 'a'}'s {net} taught by "
            f"{', '.join(f'`{t}`' for t in teachers)} through expert iteration (no PPO)"
        )
        lines += [
            "Not trained by `train.py`: made by expert iteration (the student plays, the "
            "search labels its decisions, the network is fitted to the labels).",
            f"- command: `{ei.get('recipe', '?')}`",
            f"- {len(runs)} recorded gatherings and fits (`expert_iteration.json`, each run's "
            f"options and figures), starting from `{students[0] if students else '?'}`; each "
            "later fit starts from an earlier one",
            f"- teacher(s): {', '.join(f'`{t}`' for t in teachers)}",
            f"- wall time recorded: {_minutes(wall)} of gathering and fitting in all",
        ]
        if ei.get("note"):
            lines.append(f"- note: {ei['note']}")
        return what, lines
    steps = int(config.get("total_timesteps") or 0)
    opponents = config.get("opponents") or {}
    mix = dict(opponents.get("mix") or {})
    league = opponents.get("league") or {}
    if league.get("enabled"):
        mix.update({f"{k} (league)": v for k, v in (league.get("bots") or {}).items()})
    against = ", ".join(f"`{k}` {v}" for k, v in mix.items()) or "self-play"
    what = f"`{name}` is a MaskablePPO {net} trained {steps:,} steps over full series"
    lines += [
        f"- command: `python train.py --config {name}` (the same config, `models/{name}/"
        "config.yaml`)",
        f"- {steps:,} environment steps of MaskablePPO, seed {config.get('seed')}, "
        f"{ppo.get('n_envs')} games at once, learning rate {ppo.get('learning_rate')}",
        f"- opponents (weights): {against}",
    ]
    pre = _json(folder / "pretrain.json")
    if pre is not None:
        lines.append(
            f"- first imitated `{pre.get('teacher')}` on {int(pre.get('samples') or 0):,} "
            f"decisions ({len(pre.get('epochs') or [])} epochs; `pretrain.json`)"
        )
    hist = (_json(folder / "training_eval.json") or {}).get("history") or []
    if len(hist) >= 2:
        t0 = datetime.datetime.fromisoformat(hist[0]["time"])
        t1 = datetime.datetime.fromisoformat(hist[-1]["time"])
        lines.append(
            f"- {len(hist)} evaluations logged (`training_eval.json`), "
            f"{_minutes((t1 - t0).total_seconds())} from the first to the last"
        )
    return what, lines


def make_card(folder: Path) -> str:
    """The card's Markdown text for a model folder (see the module docstring)."""
    name = folder.name
    config_path = folder / "config.yaml"
    config_text = config_path.read_text() if config_path.is_file() else ""
    config = yaml.safe_load(config_text) or {}
    comment = config_comment(config_text)
    what, lines = recipe(folder, config, comment)
    env = config.get("env") or {}
    ppo = config.get("ppo") or {}
    width = observation_width(folder)
    evals = [
        (rules_label(d), d)
        for d in (_json(p) for p in sorted(folder.glob("eval*.json")))
        if isinstance(d, dict) and "results" in d
    ]
    files = sorted(p for p in folder.iterdir() if p.is_file() and is_model_file(p))
    out = [
        f"# {name}",
        "",
        "<!-- generated by python -m hgin_cli.model_card (make cards) from this folder's "
        "files; do not edit -->",
        "",
        f"{what}. It plays Hollywood Gin from one seat's legal view (see docs/results.md "
        "for how it compares with the other shipped models).",
        "",
        "## How it was made",
        "",
    ]
    if comment:
        out += [f"From its config: {comment}", ""]
    out += [*lines, ""]
    out += [
        "## What it sees and the rules it knows",
        "",
        f"- observation: {LAYOUTS.get(width or 0, f'{width} entries') if width else 'unknown'}"
        " (docs/environments.md); actions: the 107 masked action ids",
        f"- network: `{ppo.get('policy', '?')}` policy, net_arch {ppo.get('net_arch')}",
        f"- trained in `{env.get('mode', '?')}` mode under the rules in `config.yaml` "
        f"(knock limit {config.get('rules', {}).get('knock_limit')}, undercut bonus "
        f"{config.get('rules', {}).get('undercut_bonus')})"
        + (
            "; each game's rules drawn from "
            + "; ".join(", ".join(f"{k}={v}" for k, v in m.items()) for m in env["rules_mix"])
            if env.get("rules_mix")
            else ""
        ),
        "",
        "## Results",
        "",
    ]
    if evals:
        first = evals[0][1]
        out += [
            f"Full series against each opponent, seed {first.get('seed')} "
            f"(`evaluate.py {name} --against ... --json`); 95% intervals; the undercut "
            "rate is the share of its knocks that were undercut.",
            "",
            "| rules | opponent | series | series won | hands won | points per hand | "
            "undercut rate |",
            "|---|---|---|---|---|---|---|",
        ]
        for label, data in evals:
            out += results_rows(label, data)
        out.append("")
    else:
        out += ["No evaluation file (`eval*.json`) in the folder.", ""]
    weak = weaknesses(evals)
    out += ["## Known weaknesses", ""]
    out += [f"- {w}" for w in weak] or ["- none shown by the results above"]
    out += [
        "- it plays greedily (its most likely legal action), so the same position always "
        "gets the same move",
        "",
        "## Load it",
        "",
        "```python",
        "from agents.policies.model import load_policy",
        "",
        f'policy = load_policy("{name}")  # or the folder\'s path',
        "actions = policy.act(observations, action_masks)  # batched, masked",
        "```",
        "",
        f"From the command line: `python evaluate.py {name} simple`, `python play.py {name}`.",
        "",
        "## Files",
        "",
        "| file | sha256 |",
        "|---|---|",
    ]
    out += [f"| `{p.name}` | `{file_sha256(p)}` |" for p in files]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or ``--check``) the cards of the given model folders (default: all shipped)."""
    parser = argparse.ArgumentParser(
        prog="python -m hgin_cli.model_card", description="Write models/<name>/README.md."
    )
    add_version(parser)
    parser.add_argument("folders", nargs="*", type=Path, help="model folders (default: all)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a card is stale")
    args = parser.parse_args(argv)
    folders = args.folders or sorted(p for p in shipped_dir("models").iterdir() if p.is_dir())
    stale = []
    for folder in folders:
        if not folder.is_dir():
            print(f"error: {folder}: not a folder", file=sys.stderr)
            return 2
        text = make_card(folder)
        card = folder / "README.md"
        if args.check:
            if not card.is_file() or card.read_text() != text:
                stale.append(str(card))
            continue
        card.write_text(text)
        print(f"wrote {card}")
    if stale:
        print("stale model cards (run make cards): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

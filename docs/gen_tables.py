"""Generate the docs' reference tables from the code, and check that they are current.

The action table, the observation tables and the config-field tables of the pages under
``docs/`` are written between markers::

    <!-- BEGIN GENERATED: name -->
    ...
    <!-- END GENERATED: name -->

Everything between a pair of markers comes from the code: the ids, indices, sizes, field
names and defaults from the layouts and the dataclasses, and the words from the tables
and ``Attributes:`` sections of their docstrings (so a table cannot say what the code
does not). ``python docs/gen_tables.py`` rewrites every block in place;
``python docs/gen_tables.py --check`` changes nothing and exits with status 1, listing
the blocks that are stale, missing, repeated or unknown (``tests/test_docs.py`` runs the
same check).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

_BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[\w-]+) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED: (?P=name) -->)",
    re.DOTALL,
)


# --- reading the code's docstrings ---------------------------------------------------------


def rst_table(doc: str, first_column: str) -> list[list[str]]:
    """The rows of the reST simple table in ``doc`` whose first header cell is ``first_column``.

    A row whose first cell is blank continues the row above it (its cells are appended).

    Raises:
        ValueError: when ``doc`` holds no such table.
    """
    lines = doc.splitlines()
    borders = [i for i, line in enumerate(lines) if re.fullmatch(r"\s*=+( +=+)*\s*", line)]
    for k in range(len(borders) - 2):
        top, mid, bottom = borders[k : k + 3]
        spans = [m.span() for m in re.finditer(r"=+", lines[top])]
        header = lines[top + 1 : mid]
        if (
            mid - top != 2
            or not header
            or header[0][spans[0][0] : spans[0][1]].strip() != (first_column)
        ):
            continue
        rows: list[list[str]] = []
        for line in lines[mid + 1 : bottom]:
            cells = [
                line[a : (b if j < len(spans) - 1 else len(line))].strip()
                for j, (a, b) in enumerate(spans)
            ]
            if rows and not cells[0]:
                pairs = zip(rows[-1], cells, strict=True)
                rows[-1] = [f"{old} {new}".strip() for old, new in pairs]
            else:
                rows.append(cells)
        return rows
    raise ValueError(f"no table with a {first_column!r} column in the docstring")


def attributes(cls: type) -> dict[str, str]:
    """Name -> description of each entry of the ``Attributes:`` section of ``cls``'s docstring."""
    doc = inspect.getdoc(cls) or ""
    lines = doc.splitlines()
    try:
        start = lines.index("Attributes:")
    except ValueError as exc:
        raise ValueError(f"{cls.__name__} has no 'Attributes:' section in its docstring") from exc
    found: dict[str, str] = {}
    name = None
    for line in lines[start + 1 :]:
        if line and not line.startswith(" "):
            break
        entry = re.fullmatch(r" {4}(\w+): (.*)", line)
        if entry:
            name, text = entry.groups()
            found[name] = text
        elif name and line.strip():
            found[name] += " " + line.strip()
    return found


def markdown(text: str) -> str:
    """ReST inline literals (````x````) as markdown code spans; pipes escaped for tables."""
    return text.replace("``", "`").replace("|", "\\|")


def table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# --- the tables ----------------------------------------------------------------------------


def actions_table() -> str:
    """The action ids: ranges from ``actions.py``'s constants, words from its docstring."""
    from hgin_env.engine import actions

    groups = [
        (actions.DISCARD, actions.KNOCK - 1),
        (actions.KNOCK, actions.DRAW - 1),
        (actions.DRAW, actions.DRAW),
        (actions.TAKE, actions.TAKE),
        (actions.PASS, actions.PASS),
    ]
    if groups[-1][1] != actions.N_ACTIONS - 1 or any(
        b[0] != a[1] + 1 for a, b in zip(groups, groups[1:], strict=False)
    ):
        raise ValueError("the action groups of gen_tables.py do not tile 0..N_ACTIONS-1")
    doc_rows = rst_table(actions.__doc__ or "", "id")
    rows = []
    for (lo, hi), doc_row in zip(groups, doc_rows, strict=True):
        ids = f"{lo}..{hi}" if hi > lo else f"{lo}"
        if doc_row[0] != ids:
            raise ValueError(f"actions.py docstring lists ids {doc_row[0]!r}, the code {ids!r}")
        examples = [lo] if hi == lo else [lo, hi]
        shown = ", ".join(f"`{a}` = {actions.action_text(a)}" for a in examples)
        rows.append([f"`{ids}`", markdown(doc_row[1]), shown])
    return (
        table(["id", "action", "`action_text`"], rows)
        + f"\n\n{actions.N_ACTIONS} ids (`N_ACTIONS`); `action_text(id)` and `parse_action(text)`"
        " convert between ids and words."
    )


def _layout_table(layout: dict[str, slice], offset: int, doc_rows: list[list[str]]) -> str:
    """Indices, name and meaning of each block; the docstring's rows must match the layout."""
    doc = {row[0]: row for row in doc_rows}
    if list(doc) != list(layout):
        raise ValueError(
            f"observation.py docstring lists blocks {list(doc)}, the layout {list(layout)}"
        )
    rows = []
    for name, s in layout.items():
        size = s.stop - s.start
        if doc[name][1] != str(size):
            raise ValueError(
                f"observation.py docstring: {name} has size {doc[name][1]}, not {size}"
            )
        lo, hi = s.start + offset, s.stop - 1 + offset
        rows.append([f"{lo}-{hi}" if hi > lo else f"{lo}", f"`{name}`", markdown(doc[name][2])])
    return table(["indices", "block", "meaning"], rows)


def observation_table() -> str:
    """The observation vector: ``OBS_LAYOUT`` with the words of ``observation.py``."""
    from hgin_env.envs import observation

    rows = rst_table(observation.__doc__ or "", "block")
    dim = observation.OBS_DIM
    return (
        _layout_table(observation.OBS_LAYOUT, 0, rows) + f"\n\n{dim} entries (`OBS_DIM`), float32."
    )


def privileged_table() -> str:
    """The privileged block: ``PRIVILEGED_LAYOUT`` placed after ``OBS_DIM``."""
    from hgin_env.envs import observation

    doc = (observation.__doc__ or "").split("Privileged block", 1)[-1]
    dim, extra = observation.OBS_DIM, observation.PRIVILEGED_DIM
    return (
        _layout_table(observation.PRIVILEGED_LAYOUT, dim, rst_table(doc, "block"))
        + f"\n\n{extra} entries (`PRIVILEGED_DIM`): with them the observation is"
        f" {dim + extra} entries long."
    )


def _python_value(value: Any) -> str:
    return f'`"{value}"`' if isinstance(value, str) else f"`{value!r}`"


def _yaml_value(value: Any) -> str:
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, list | tuple):
        text = "[" + ", ".join(_yaml_value(v).strip("`") for v in value) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k}: {_yaml_value(v).strip('`')}" for k, v in value.items()) + "}"
    else:
        text = str(value)
    return f"`{text}`"


def _field_rows(
    instance: Any, prefix: str, render: Callable[[Any], str], nested: bool
) -> list[list[str]]:
    words = attributes(type(instance))
    rows = []
    for f in dataclasses.fields(instance):
        value = getattr(instance, f.name)
        if dataclasses.is_dataclass(value):
            if nested:
                rows += _field_rows(value, f"{prefix}{f.name}.", render, nested)
            continue
        if f.name not in words:
            raise ValueError(f"{type(instance).__name__}.{f.name} is not in its docstring")
        rows.append([f"`{prefix}{f.name}`", render(value), markdown(words[f.name])])
    return rows


def fields_table(
    instance: Any,
    prefix: str = "",
    render: Callable[[Any], str] = _yaml_value,
    nested: bool = False,
) -> str:
    """Field, default and meaning of a config dataclass.

    Args:
        instance: a config dataclass holding the defaults.
        prefix: put before each field name (``"ppo."``).
        render: writes a default value.
        nested: also list the fields of nested dataclasses (else they are left out).
    """
    rows = _field_rows(instance, prefix, render, nested)
    return table(["field", "default", "meaning"], rows)


def field_list(instance: Any, prefix: str) -> str:
    """The dotted names and defaults of a config dataclass, as one line."""
    return ", ".join(
        f"`{prefix}{f.name}` ({_yaml_value(getattr(instance, f.name))})"
        for f in dataclasses.fields(instance)
    )


def _train_config() -> Any:
    from agents.training.config import TrainConfig

    return TrainConfig()


def _rules_config() -> Any:
    from hgin_env.engine.config import RulesConfig

    return RulesConfig()


def _env_config() -> Any:
    from hgin_env.envs.config import EnvConfig

    return EnvConfig()


def metrics_table() -> str:
    """The metric definitions, from the docstring of ``agents.evaluation.tally``."""
    from agents.evaluation import tally

    rows = rst_table(tally.__doc__ or "", "metric")
    return table(["metric", "definition"], [[f"`{m}`", markdown(d)] for m, d in rows])


#: block name -> the function that renders it
def rllib_refusals_table() -> str:
    """The config fields the rllib backend refuses, from ``rllib_backend.refusals``."""
    from agents.training.config import TrainConfig
    from agents.training.rllib.backend import league_refusals, refusals, selfplay_refusals

    config = TrainConfig()
    rows = [[f"`{field}`", "always", markdown(why)] for _, field, why in refusals(config)]
    rows += [
        [f"`{field}`", "with `opponents.selfplay.enabled`", markdown(why)]
        for _, field, why in selfplay_refusals(config)
    ]
    rows += [
        [f"`{field}`", "with `opponents.league.enabled`", markdown(why)]
        for _, field, why in league_refusals(config)
    ]
    return table(["field", "checked", "refused because"], rows)


def rllib_configs_table() -> str:
    """Which shipped ``configs/*.yaml`` the rllib backend trains, and what it refuses."""
    from agents.training.config import load_config
    from agents.training.rllib.backend import refusals

    rows = []
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        refused = [field for bad, field, _ in refusals(load_config(path)) if bad]
        verdict = "refused: " + ", ".join(f"`{f}`" for f in refused) if refused else "runs"
        rows.append([f"`configs/{path.name}`", verdict])
    return table(["config", "`--backend rllib`"], rows)


TABLES: dict[str, Callable[[], str]] = {
    "actions": actions_table,
    "observation": observation_table,
    "privileged": privileged_table,
    "rules-config": lambda: fields_table(_rules_config(), render=_python_value),
    "env-config": lambda: fields_table(_env_config(), render=_python_value),
    "config-top": lambda: fields_table(_train_config()),
    "config-rules": lambda: field_list(_rules_config(), "rules."),
    "config-env": lambda: field_list(_env_config(), "env."),
    "config-opponents": lambda: fields_table(_train_config().opponents, "opponents.", nested=True),
    "config-ppo": lambda: fields_table(_train_config().ppo, "ppo."),
    "config-eval": lambda: fields_table(_train_config().eval, "eval."),
    "config-checkpoint": lambda: fields_table(_train_config().checkpoint, "checkpoint."),
    "config-pretrain": lambda: fields_table(_train_config().pretrain, "pretrain."),
    "metrics": metrics_table,
    "rllib-refusals": rllib_refusals_table,
    "rllib-configs": rllib_configs_table,
}


# --- rewriting and checking the pages ------------------------------------------------------


def pages(docs: Path = DOCS) -> list[Path]:
    """The markdown pages that may hold generated blocks."""
    return sorted(docs.glob("*.md"))


def regenerate(text: str, rendered: dict[str, str]) -> str:
    """``text`` with the body of every known block replaced by its rendering."""

    def body(m: re.Match[str]) -> str:
        name = m["name"]
        if name not in rendered:
            return m[0]
        return f"{m[1]}{rendered[name]}\n{m[4]}"

    return _BLOCK.sub(body, text)


def problems(docs: Path = DOCS) -> list[str]:
    """What is wrong with the generated blocks: stale, unknown, missing or repeated ones."""
    rendered = {name: render() for name, render in TABLES.items()}
    found: dict[str, list[str]] = {name: [] for name in TABLES}
    issues = []
    for page in pages(docs):
        text = page.read_text()
        rel = page.relative_to(docs.parent)
        for m in _BLOCK.finditer(text):
            name = m["name"]
            if name not in rendered:
                issues.append(f"{rel}: unknown block {name!r}")
                continue
            found[name].append(str(rel))
            if m["body"] != rendered[name] + "\n":
                issues.append(f"{rel}: block {name!r} is stale")
    for name, where in found.items():
        if not where:
            issues.append(f"block {name!r} appears in no page")
        elif len(where) > 1:
            issues.append(f"block {name!r} appears {len(where)} times: {', '.join(where)}")
    return issues


def write(docs: Path = DOCS) -> list[Path]:
    """Rewrite every generated block in place; return the pages that changed."""
    rendered = {name: render() for name, render in TABLES.items()}
    changed = []
    for page in pages(docs):
        text = page.read_text()
        new = regenerate(text, rendered)
        if new != text:
            page.write_text(new)
            changed.append(page)
    return changed


def main(argv: list[str] | None = None) -> int:
    """Command line: rewrite the blocks, or with ``--check`` list what is out of date."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if a block is out of date"
    )
    args = parser.parse_args(argv)
    if args.check:
        issues = problems()
        for issue in issues:
            print(issue)
        return 1 if issues else 0
    for page in write():
        print(f"rewrote {page.relative_to(ROOT)}")
    issues = problems()
    for issue in issues:
        print(issue)
    return 1 if issues else 0


if __name__ == "__main__":
    sys.exit(main())

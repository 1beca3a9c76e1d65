"""What every command shares: ``--version``, ``--rules``, ``--list-policies`` and hints.

- ``add_version(parser)``: ``--version`` prints ``PROG VERSION`` (the package's version).
- ``add_rules(parser)``: ``--rules KEY=VALUE`` is repeatable and takes a comma list
  (``--rules undercut_bonus=25,knock_limit=10``), one value per flag, so it never swallows
  the positional arguments that follow it; ``rules_items`` flattens what it collected.
- ``add_list_policies(parser)``: ``--list-policies`` prints every policy name the registry
  resolves, with its version and one line on what it is, then exits.
- ``policy_error(exc)``: the error text for a policy that cannot be loaded, with the hint
  to run ``make setup`` when the package is not installed (an uninstalled clone has no
  entry points, so no bot or model name is registered).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from importlib import metadata
from typing import Any

from hgin_env import __version__

#: the distribution name (pyproject's ``[project] name``)
DISTRIBUTION = "hollywood-gin"
INSTALL_HINT = (
    "hint: hollywood-gin is not installed in this Python, so its bots and models are not "
    "registered: run `make setup` (or `pip install -e .`) in the clone, then use .venv/bin/python"
)


def add_version(parser: argparse.ArgumentParser) -> None:
    """Add ``--version``: print ``PROG VERSION`` and exit 0."""
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s (hollywood-gin) {__version__}"
    )


def add_rules(parser: argparse.ArgumentParser, help_text: str = "") -> None:
    """Add ``--rules KEY=VALUE[,KEY=VALUE...]``, repeatable (see the module docstring)."""
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="KEY=VALUE[,...]",
        help=(help_text or "rules options (docs/rules.md)")
        + "; repeat the flag or give a comma list: --rules undercut_bonus=25,knock_limit=10",
    )


def rules_items(values: Iterable[str]) -> list[str]:
    """The ``KEY=VALUE`` items of the ``--rules`` values (comma lists split, blanks dropped).

    Example:
        >>> rules_items(["undercut_bonus=25,knock_limit=10", "gin_bonus=30"])
        ['undercut_bonus=25', 'knock_limit=10', 'gin_bonus=30']
    """
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def installed() -> bool:
    """Whether the hollywood-gin distribution is installed in this Python."""
    try:
        metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return False
    return True


def policy_error(exc: BaseException) -> str:
    """``error: ...`` for a policy that cannot be loaded, plus the install hint if needed."""
    text = f"error: {exc}"
    if str(exc).startswith("unknown policy") and not installed():
        text += "\n" + INSTALL_HINT
    return text


def _first_line(doc: str | None) -> str:
    lines = (doc or "").strip().splitlines()
    return lines[0].strip().rstrip(".") if lines else ""


def _describe(name: str) -> tuple[str, str]:
    """(version, one line) of a registered policy name, through the registry.

    A source's own ``describe(name)`` is used when it has one; models are read from their
    folders, the search from its version table, bots are built (cheap): nothing heavy
    (a network, a search prior) is loaded.
    """
    from hgin_env.envs.policy import resolve_policy, spec_source

    source = spec_source(name)
    describe = getattr(source, "describe", None)
    if callable(describe):  # a registry that describes its names itself
        version, summary = describe(name)
        return str(version), str(summary)
    if getattr(source, "serves_paths", False):  # a model: read its folder, load nothing
        from agents.evaluation.provenance import model_summary

        return model_summary(name)
    if name in ("pimc", "searcher"):  # its prior and rollout networks load on first use
        from agents.registry import maker
        from agents.search import pimc

        if name == "searcher":
            newest, _ = maker(name)
            params = getattr(newest, "params", "")
            return newest.exact(None), (
                f"the named search agent, each version fixed pimc parameters ({params})"
            )
        return "-", _first_line(pimc.__doc__).replace("``pimc``: ", "")
    policy = resolve_policy(name, 0)
    spec = getattr(policy, "spec", None)
    version = getattr(policy, "version", None)
    shown = spec if spec and "@" in str(spec) else (f"{name}@{version}" if version else "-")
    return str(shown), _first_line(type(policy).__doc__)


def policy_catalog() -> list[tuple[str, str, str]]:
    """``(name, version, summary)`` of every name the policy registry resolves."""
    from hgin_env.envs.policy import registered_policies

    return [(name, *_describe(name)) for name in registered_policies()]


def print_policies(out: Any = None) -> None:
    """Print the policy catalog as an aligned table (``--list-policies``)."""
    out = out or sys.stdout
    rows = policy_catalog()
    if not rows:
        print("no policies are registered.\n" + INSTALL_HINT, file=out)
        return
    name_w = max(len(r[0]) for r in rows)
    ver_w = max(len(r[1]) for r in rows)
    for name, version, summary in rows:
        print(f"{name.ljust(name_w)}  {version.ljust(ver_w)}  {summary}", file=out)
    if not installed():
        print(INSTALL_HINT, file=out)


class _ListPolicies(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("nargs", 0)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print_policies()
        parser.exit(0)


def add_list_policies(parser: argparse.ArgumentParser) -> None:
    """Add ``--list-policies``: print every policy name with its version, then exit 0."""
    parser.add_argument(
        "--list-policies",
        action=_ListPolicies,
        help="print every policy name with its version and what it is, then exit",
    )


def epilog(*examples: str) -> str:
    """A help epilog listing example command lines."""
    return "examples:\n" + "\n".join(f"  {line}" for line in examples)


def help_formatter() -> type[argparse.HelpFormatter]:
    """The help formatter of every command: the epilog's lines kept as written."""
    return argparse.RawDescriptionHelpFormatter

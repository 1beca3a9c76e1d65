"""The one spec grammar: ``NAME[@VERSION][:key=value,...]``, and its ``key=value`` items.

Bots (``patient@1:knock_turns=4``), the search (``pimc:worlds=64,rollout=simple``) and
the rules options (``--rules undercut_bonus=25,knock_limit=10``, the search's rules
parameters) are written in it and read here, so a malformed item, a repeated key or a
value of the wrong kind reads the same wherever it is written:

- ``split_spec(text)``: ``(name, version, options)``; ``version`` is the text after ``@``
  and ``options`` the text after ``:``, each None when its sign is missing.
- ``split_items(items, what)``: ``{key: value}`` from ``key=value`` items (a text of
  comma-separated items, or a list of them); each key once.
- ``parse_value(raw, kind, what)``: an ``int``, ``float`` or ``bool`` (``true``/``false``);
  ``what`` names the option in the error.
- ``parse_rules(items)``: a ``RulesConfig`` from ``key=value`` items (the options
  validator's ``from_text``, which reads every options record's items alike).

``none`` means "off": the value ``none`` (any case) stands for None, and is accepted only
where a field may be off (a rules option such as ``big_gin_bonus``, ``RulesConfig``'s check);
anywhere else it is an error naming the field, like any other value of the wrong kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.options import NONE, from_text

__all__ = ["NONE", "parse_rules", "parse_value", "split_items", "split_spec"]


def split_spec(text: str) -> tuple[str, str | None, str | None]:
    """``NAME[@VERSION][:OPTIONS]`` -> ``(name, version, options)`` (see the module docstring).

    >>> split_spec("patient@1:knock_turns=4")
    ('patient', '1', 'knock_turns=4')
    >>> split_spec("simple")
    ('simple', None, None)
    """
    head, colon, options = text.partition(":")
    name, at, version = head.partition("@")
    return name, version if at else None, options if colon else None


def split_items(items: str | Iterable[str], what: str) -> dict[str, str]:
    """``{key: value}`` of ``key=value`` items (keys and values stripped).

    Args:
        items: a text of comma-separated items (empty items skipped), or a list of items.
        what: what the items set, for the error (``"bot 'simple'"``, ``"--rules"``).

    Raises:
        ValueError: ``{what}: bad item 'x': write key=value`` for an item without a key or
            a value; ``{what}: 'k' given twice`` for a repeated key.
    """
    parts = items.split(",") if isinstance(items, str) else list(items)
    values: dict[str, str] = {}
    for item in parts:
        if isinstance(items, str) and not item.strip():
            continue
        key, eq, raw = (part.strip() for part in item.partition("="))
        if not eq or not key or not raw:
            raise ValueError(f"{what}: bad item {item.strip()!r}: write key=value")
        if key in values:
            raise ValueError(f"{what}: {key!r} given twice")
        values[key] = raw
    return values


def parse_value(raw: str, kind: type, what: str) -> Any:
    """``raw`` as an ``int`` (base 10), ``float`` or ``bool`` (``true``/``false``, any case).

    Raises:
        ValueError: ``{what} must be an integer, got 'x'`` (``a number``, ``true or
            false``) for a value of another kind.
    """
    if kind is bool:
        if raw.lower() not in ("true", "false"):
            raise ValueError(f"{what} must be true or false, got {raw!r}")
        return raw.lower() == "true"
    try:
        return int(raw, 10) if kind is int else kind(raw)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise ValueError(f"{what} must be {noun}, got {raw!r}") from None


def parse_rules(items: Iterable[str]) -> RulesConfig:
    """Build the rules from ``key=value`` items (ints, ``true``/``false``, ``none``: off).

    Raises:
        ValueError: an item that is not ``key=value``, a value of the wrong kind, or an
            unknown or out-of-range field (``hgin_env.engine.options.from_text``).
    """
    return from_text(RulesConfig, split_items(list(items), "--rules"), "--rules")

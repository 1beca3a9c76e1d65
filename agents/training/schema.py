"""Typed configs from plain mappings: walk a YAML mapping onto nested frozen dataclasses.

``from_mapping(cls, data)`` builds ``cls`` field by field, recursing into fields whose
type is itself a dataclass. It fails at once, with the dotted path of the field, on

- an unknown key (with a ``difflib`` suggestion: ``unknown field 'ppo.lerning_rate';
  did you mean 'learning_rate'?``),
- a value of the wrong type (``ppo.n_steps must be an integer, got 'many'``),
- a value the dataclass itself rejects in ``__post_init__`` (the message is kept).

Supported field types: ``bool``, ``int``, ``float`` (finite: nan and inf are refused; an
int or a numeric string such as ``"3e-4"`` is accepted, since YAML 1.1 reads ``3e-4`` as
a string), ``str``, ``Literal[...]``, ``Enum`` (by name or value), ``X | None``,
``tuple[T, ...]``, ``list[T]``, ``dict[str, T]`` and nested dataclasses. ``to_plain`` is
the inverse: a dataclass to plain dicts, lists and scalars for ``yaml.safe_dump``.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import math
import reprlib
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

T = TypeVar("T")


class ConfigError(ValueError):
    """A config that does not fit the dataclasses; the message names the field."""


def from_mapping(cls: type[T], data: Mapping[str, Any] | None, path: str = "") -> T:
    """Build dataclass ``cls`` from a mapping, recursively and strictly.

    Args:
        cls: a dataclass type.
        data: the mapping (``None`` means all defaults).
        path: dotted path of this mapping inside the whole config (for messages).

    Returns:
        An instance of ``cls``; fields missing from ``data`` keep their defaults.

    Raises:
        ConfigError: on an unknown key, a wrong type or a value ``cls`` rejects.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path or 'the config'} must be a mapping of fields, got {shown(data)}")
    fields = {f.name: f for f in dataclasses.fields(cast(Any, cls)) if f.init}
    hints = typing.get_type_hints(cls)
    for key in data:
        if key not in fields:
            raise ConfigError(_unknown_message(str(key), list(fields), path))
    kwargs = {key: _coerce(value, hints[key], _join(path, key)) for key, value in data.items()}
    try:
        return cls(**kwargs)
    except ConfigError:
        raise
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path or cls.__name__}: {exc}") from exc


def to_plain(value: Any) -> Any:
    """Turn dataclasses, tuples and enums into dicts, lists and scalars (YAML-safe)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.name.lower() if isinstance(value.value, int) else value.value
    return value


def set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``data["a"]["b"]["c"] = value`` for ``dotted == "a.b.c"``, creating mappings.

    Raises:
        ConfigError: when a path element exists but is not a mapping.
    """
    parts = dotted.split(".")
    node = data
    for i, part in enumerate(parts[:-1]):
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        if not isinstance(child, dict):
            raise ConfigError(f"cannot set {dotted}: {'.'.join(parts[: i + 1])} is not a mapping")
        node = child
    node[parts[-1]] = value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _unknown_message(key: str, known: list[str], path: str) -> str:
    message = f"unknown field '{_join(path, key)}'"
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        message += f"; did you mean '{close[0]}'?"
    where = f"'{path}'" if path else "the top level"
    return f"{message} (fields of {where}: {', '.join(sorted(known))})"


_TYPE_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxlist, _SHOWN.maxdict, _SHOWN.maxtuple = 3, 6, 6, 6
_SHOWN.maxstring = _SHOWN.maxother = _SHOWN.maxlong = 60


def shown(value: Any) -> str:
    """A short ``repr`` of a value for a message: never longer than a line, however big."""
    return _SHOWN.repr(value)


def _coerce(value: Any, tp: Any, path: str) -> Any:
    """Check (and gently convert) one value against a type hint."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if isinstance(value, tp):
            return value
        return from_mapping(tp, value, path)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _coerce(value, arg, path)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(
            errors[0] if len(errors) == 1 else f"{path}: {shown(value)} fits none of {tp}"
        )
    if origin is Literal:
        if value not in args:
            choices = ", ".join(repr(a) for a in args)
            raise ConfigError(f"{path} must be one of {choices}, got {shown(value)}")
        return value
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _coerce_enum(value, tp, path)
    if origin in (tuple, list):
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{path} must be a list, got {shown(value)}")
        item = args[0] if args else Any
        items = [_coerce(v, item, f"{path}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin in (dict, Mapping) or tp is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{path} must be a mapping, got {shown(value)}")
        item = args[1] if len(args) == 2 else Any
        return {str(k): _coerce(v, item, f"{path}.{k}") for k, v in value.items()}
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{path} must be {_TYPE_WORDS[bool]}, got {shown(value)}")
        return value
    if tp is int:
        return _coerce_int(value, path)
    if tp is float:
        return _coerce_float(value, path)
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{path} must be {_TYPE_WORDS[str]}, got {shown(value)}")
        return value
    return value  # Any, or a type this loader does not police


def _coerce_int(value: Any, path: str) -> int:
    if isinstance(value, bool):
        raise ConfigError(f"{path} must be an integer, got {shown(value)}")
    if isinstance(value, int):
        return value
    number = _as_number(value)
    if number is not None and float(number).is_integer():
        return int(number)
    raise ConfigError(f"{path} must be an integer, got {shown(value)}")


def _coerce_float(value: Any, path: str) -> float:
    if isinstance(value, bool):
        raise ConfigError(f"{path} must be a number, got {shown(value)}")
    number = _as_number(value)
    if number is None:
        raise ConfigError(f"{path} must be a number, got {shown(value)}")
    if not math.isfinite(number):
        raise ConfigError(f"{path} must be a finite number, got {shown(value)}")
    return float(number)


def _as_number(value: Any) -> float | None:
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return float(value.replace("_", ""))
        except ValueError:
            return None
    return None


def _coerce_enum(value: Any, tp: type[enum.Enum], path: str) -> enum.Enum:
    if isinstance(value, tp):
        return value
    for member in tp:
        if value == member.value or (
            isinstance(value, str) and value.lower() == member.name.lower()
        ):
            return member
    names = ", ".join(m.name.lower() for m in tp)
    raise ConfigError(f"{path} must be one of {names}, got {shown(value)}")

"""Options records: the one validator of every frozen dataclass of options.

Every record of options (the rules, the env options, a training config, the search's
parameters, a bot's options) is a frozen dataclass; this module checks them all, one way,
with one set of messages:

- ``check_record(record)`` (a record's ``__post_init__``): every field against its type
  hint and its ``limits`` (``RulesConfig.knock_limit must be in 0..100, got 101``);
- ``from_mapping(cls, data)`` (a YAML mapping): recursively and strictly, with the dotted
  path of the field (``ppo.n_steps must be an integer, got 'many'``) and a ``difflib``
  suggestion for an unknown key (``unknown field 'ppo.lerning_rate'; did you mean
  'learning_rate'?``);
- ``from_text(cls, items, what)`` (the ``key=value`` items of a name such as
  ``pimc:worlds=8`` or ``patient:knock_turns=4``): each text read by its field's type
  (``true``/``false``, ``none`` where a field may be off, integers, numbers, words).

A field's limits live in its metadata: ``field(default=10, metadata=limits(0, 100))``.
Supported field types: ``bool``, ``int``, ``float`` (finite: nan and inf are refused; an
int or a numeric string such as ``"3e-4"`` is accepted from a mapping, since YAML 1.1 reads
``3e-4`` as a string), ``str``, ``Literal[...]``, ``Enum`` (by name or value), ``X | None``,
``tuple[T, ...]``, ``list[T]``, ``dict[str, T]`` and nested dataclasses. ``to_plain`` is the
inverse of ``from_mapping``: a dataclass to plain dicts, lists and scalars.

The standard library only: the engine's ``RulesConfig`` uses it, and every layer above.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import math
import reprlib
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, TypeVar, cast

T = TypeVar("T")
#: the text of an option that is off (``big_gin_bonus=none``)
NONE = "none"


class ConfigError(ValueError):
    """Options that do not fit their record; the message names the field."""


def limits(
    low: float | None = None,
    high: float | None = None,
    *,
    above: float | None = None,
    choices: Iterable[Any] | None = None,
) -> dict[str, Any]:
    """A field's metadata: its inclusive range, an exclusive lower bound, or its choices."""
    return {
        "limits": {
            "low": low, "high": high, "above": above,
            "choices": tuple(choices) if choices is not None else None,
        }
    }  # fmt: skip


def check_value(value: Any, bounds: Mapping[str, Any] | None, path: str) -> None:
    """Raise ``ConfigError`` naming ``path`` unless ``value`` is within ``bounds`` (``limits``)."""
    if not bounds or value is None:
        return
    choices = bounds.get("choices")
    is_bool = isinstance(value, bool)
    if choices is not None and (
        value not in choices or (is_bool and not any(c is value for c in choices))
    ):
        raise ConfigError(f"{path} must be one of {list(choices)}, got {shown(value)}")
    low, high, above = bounds.get("low"), bounds.get("high"), bounds.get("above")
    if is_bool or not isinstance(value, int | float):
        return
    if low is not None and high is not None and not low <= value <= high:
        raise ConfigError(
            f"{path} must be in {_number(low)}..{_number(high)}, got {_number(value)}"
        )
    if low is not None and value < low:
        raise ConfigError(f"{path} must be >= {_number(low)}, got {_number(value)}")
    if high is not None and value > high:
        raise ConfigError(f"{path} must be <= {_number(high)}, got {_number(value)}")
    if above is not None and not value > above:
        raise ConfigError(f"{path} must be > {_number(above)}, got {_number(value)}")


def _number(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


#: each record class's init fields and resolved type hints (read once per class)
_FIELDS: dict[type, tuple[dict[str, dataclasses.Field[Any]], dict[str, Any]]] = {}


def _fields(cls: type) -> tuple[dict[str, dataclasses.Field[Any]], dict[str, Any]]:
    if cls not in _FIELDS:
        fields = {f.name: f for f in dataclasses.fields(cast(Any, cls)) if f.init}
        _FIELDS[cls] = fields, typing.get_type_hints(cls)
    return _FIELDS[cls]


def check_record(record: Any) -> None:
    """Check every field of a built record against its type hint and limits (strictly).

    Raises:
        ConfigError: ``Class.field must be ...`` for the first field that does not fit.
    """
    cls = type(record)
    fields, hints = _fields(cls)
    for name, f in fields.items():
        value = getattr(record, name)
        path = f"{cls.__name__}.{name}"
        check_value(value, f.metadata.get("limits"), path)
        _check_type(value, hints[name], path)


def _check_type(value: Any, tp: Any, path: str) -> None:
    """A built value against a simple type hint (no conversion: a record holds typed values)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        _first_fit(value, tp, path, _check_type)
        return
    if tp is bool and not isinstance(value, bool):
        raise ConfigError(f"{path} must be true or false, got {shown(value)}")
    if tp is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(f"{path} must be an integer, got {shown(value)}")
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{path} must be a number, got {shown(value)}")
        if not math.isfinite(value):
            raise ConfigError(f"{path} must be finite, got {shown(value)}")
    if tp is str and not isinstance(value, str):
        raise ConfigError(f"{path} must be a string, got {shown(value)}")


def _first_fit(value: Any, tp: Any, path: str, fit: Callable[[Any, Any, str], Any]) -> Any:
    """``fit(value, arm, path)`` of the first arm of the union ``tp`` that takes ``value``."""
    args = typing.get_args(tp)
    if value is None and type(None) in args:
        return None
    errors = []
    for arg in (a for a in args if a is not type(None)):
        try:
            return fit(value, arg, path)
        except ConfigError as exc:
            errors.append(str(exc))
    raise ConfigError(
        errors[0] if len(errors) == 1 else f"{path}: {shown(value)} fits none of {tp}"
    )


#: unknown keys named one by one in a message (the rest are counted)
_NAMED_UNKNOWN = 5


def unknown_message(key: str, known: Iterable[str], path: str = "", noun: str = "field") -> str:
    """``unknown field 'a.b'; did you mean 'c'? (fields of 'a': ...)``: the one text."""
    known = sorted(known)
    message = f"unknown {noun} '{_join(path, key)}'"
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        message += f"; did you mean '{close[0]}'?"
    where = f"'{path}'" if path else "the top level"
    return f"{message} ({noun}s of {where}: {', '.join(known)})"


def check_keys(
    data: Mapping[str, Any], known: Iterable[str], path: str = "", noun: str = "field"
) -> None:
    """Raise ``ConfigError`` naming every key of ``data`` not in ``known`` (``unknown_message``)."""
    known = list(known)
    unknown = [str(key) for key in data if key not in known]
    if len(unknown) == 1:
        raise ConfigError(unknown_message(unknown[0], known, path, noun))
    if unknown:
        names = []
        for key in unknown[:_NAMED_UNKNOWN]:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            names.append(f"'{_join(path, key)}'{hint}")
        more = len(unknown) - _NAMED_UNKNOWN
        listed = ", ".join(names) + (f" and {more} more" if more > 0 else "")
        where = f"'{path}'" if path else "the top level"
        raise ConfigError(
            f"unknown {noun}s {listed} ({noun}s of {where}: {', '.join(sorted(known))})"
        )


def unknown_option(key: str, known: Iterable[str]) -> str:
    """``unknown option 'k'; did you mean 'c'? (options: ...)``: a name's unknown option."""
    known = list(known)
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"unknown option {key!r}{hint} (options: {', '.join(known) or 'none'})"


def from_text(
    cls: type[T],
    items: Mapping[str, str],
    what: str,
    options: Mapping[str, tuple[float, float]] | None = None,
    base: T | None = None,
) -> T:
    """Build ``cls`` from ``key=value`` texts (the options of a name), each read by its type.

    Args:
        cls: a dataclass type.
        items: ``{key: text}`` (``hgin_env.envs.spec.split_items``).
        what: what the items set, for the messages (``pimc``, ``bot 'tempo'``).
        options: the settable keys with their inclusive ranges, where these are not all
            the fields (a bot's ``OPTIONS``); None: every field, with its own ``limits``.
        base: the record whose other fields are kept (default ``cls()``).

    Raises:
        ConfigError: ``{what}: unknown option 'k'; did you mean ...``, or
            ``{what}: k must be ...`` for a value of the wrong kind or out of range.
    """
    fields, hints = _fields(cls)
    known = list(options) if options is not None else list(fields)
    values: dict[str, Any] = {}
    for key, raw in items.items():
        if key not in known:
            raise ConfigError(f"{what}: {unknown_option(key, known)}")
        path = f"{what}: {key}"
        value = _read(raw, hints[key], path)
        if options is not None:
            low, high = options[key]
            check_value(value, {"low": low, "high": high}, path)
        else:
            check_value(value, fields[key].metadata.get("limits"), path)
        values[key] = value
    start = base if base is not None else cls()
    try:
        return cast(T, dataclasses.replace(cast(Any, start), **values))
    except ConfigError:
        raise
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what}: {exc}") from exc


def _read(raw: str, tp: Any, path: str) -> Any:
    """One option's text as its type: ``true``/``false``, ``none``, integers, numbers, words."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if raw.lower() == NONE and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _read(raw, inner[0], path) if len(inner) == 1 else raw
    if tp is bool:
        if raw.lower() not in ("true", "false"):
            raise ConfigError(f"{path} must be true or false, got {shown(raw)}")
        return raw.lower() == "true"
    if tp is int:
        try:
            return int(raw, 10)
        except ValueError:
            raise ConfigError(f"{path} must be an integer, got {shown(raw)}") from None
    if tp is float:
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"{path} must be a number, got {shown(raw)}") from None
        if not math.isfinite(value):
            raise ConfigError(f"{path} must be finite, got {shown(raw)}")
        return value
    return raw


def from_mapping(
    cls: type[T], data: Mapping[str, Any] | None, path: str = "", noun: str = "field"
) -> T:
    """Build dataclass ``cls`` from a mapping, recursively and strictly.

    Args:
        cls: a dataclass type.
        data: the mapping (``None`` means all defaults).
        path: dotted path of this mapping inside the whole config (for messages).
        noun: what a key of this mapping is called in messages (``rules field``).

    Returns:
        An instance of ``cls``; fields missing from ``data`` keep their defaults.

    Raises:
        ConfigError: on an unknown key, a wrong type, a value out of its limits or a value
            ``cls`` rejects.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path or 'the config'} must be a mapping of fields, got {shown(data)}")
    fields, hints = _fields(cls)
    check_keys(data, fields, path, noun)
    kwargs = {}
    for key, value in data.items():
        where = _join(path, key)
        kwargs[key] = _coerce(value, hints[key], where)
        check_value(kwargs[key], fields[key].metadata.get("limits"), where)
    try:
        return cls(**kwargs)
    except ConfigError as exc:
        if path and not str(exc).startswith(path):
            raise ConfigError(f"{path}: {exc}") from exc
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
        return _first_fit(value, tp, path, _coerce)
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

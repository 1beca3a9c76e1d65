"""Typed configs from plain mappings: the options validator, as the training config reads it.

``from_mapping(cls, data)`` builds ``cls`` field by field, recursing into fields whose
type is itself a dataclass, and fails at once with the dotted path of the field (an
unknown key with a ``difflib`` suggestion, a value of the wrong type, a value out of its
limits or one the dataclass rejects). It is the one validator of every options record,
``hgin_env.engine.options`` (the rules use it too); see there for the types it reads.
"""

from __future__ import annotations

from hgin_env.engine.options import ConfigError, from_mapping, set_dotted, shown, to_plain

__all__ = ["ConfigError", "from_mapping", "set_dotted", "shown", "to_plain"]

"""The bots by name and version: ``simple``, ``simple@1``, ``patient:knock_turns=4``.

A bot name is ``NAME[@VERSION][:KEY=VALUE,...]``:

- ``NAME`` alone is the newest version (``simple`` is ``simple@2``);
- ``@VERSION`` picks an older one, kept so that old figures stay reproducible (a bot
  whose play changes gets a new version; ``BOTS`` lists them all);
- ``:KEY=VALUE,...`` sets the bot's options (``Bot.OPTIONS``), e.g.
  ``patient:knock_turns=4,knock_deadwood=2``.

An unknown version, an unknown option, a malformed or out-of-range value is refused
with a ``ValueError`` naming it (``bot_factory``). A built bot's ``spec`` is its exact
name (``simple@2``, ``patient@1:knock_turns=4``): the evaluator records it.

``BOT_SOURCE`` serves these names to the environments' policy registry through the
``__bots__`` entry point of ``pyproject.toml`` (``hgin_env.envs.policy.PolicySource``), so
``simple@1`` works wherever a policy name does, in any process.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.bots.base import Bot, parse_options
from agents.bots.expert import ExpertBot
from agents.bots.patient import PatientBot
from agents.bots.simple import SimpleBot
from agents.bots.simple_v1 import SimpleBotV1
from agents.bots.tempo import TempoBot
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.policy import PolicyLoadError
from hgin_env.envs.spec import split_spec

#: every bot version: name -> {version: class}
BOTS: dict[str, dict[int, type[Bot]]] = {
    "simple": {1: SimpleBotV1, 2: SimpleBot},
    "expert": {1: ExpertBot},
    "patient": {1: PatientBot},
    "tempo": {1: TempoBot},
}


def newest(name: str) -> type[Bot]:
    """The newest version of the bot ``name``."""
    versions = BOTS[name]
    return versions[max(versions)]


def parse_bot_spec(spec: str) -> tuple[type[Bot], object]:
    """The class and parameters a bot name stands for (see the module docstring).

    Raises:
        ValueError: not a bot, an unknown version, or bad options (named in the message).
    """
    name, version_text, options = split_spec(spec)
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(BOTS))}")
    versions = BOTS[name]
    known = ", ".join(f"{name}@{v}" for v in sorted(versions))
    if version_text is not None:
        if not version_text.isdigit() or int(version_text) not in versions:
            head = f"{name}@{version_text}"
            raise ValueError(f"unknown version {head!r} of bot {name!r}; known versions: {known}")
        cls = versions[int(version_text)]
    else:
        cls = newest(name)
    if options == "":
        raise ValueError(f"bot name {spec!r} ends with ':' but sets no option")
    params = parse_options(cls, options) if options is not None else cls.Params()
    return cls, params


def bot_factory(spec: str, rules: RulesConfig | None = None) -> Callable[[int | None], Bot]:
    """A factory ``seed -> bot`` for a bot name; the name is checked now, not at the call.

    Raises:
        ValueError: see ``parse_bot_spec``.
    """
    cls, params = parse_bot_spec(spec)
    return lambda seed: cls(seed, rules, params)


def exact_bot_name(spec: str) -> str | None:
    """The exact, versioned name (``Bot.spec``) a bot name stands for; None for no bot name.

    ``simple`` gives ``simple@2``. A bot name with a bad version or option raises
    ``ValueError`` (see ``parse_bot_spec``).
    """
    if spec.split("@")[0].split(":")[0] not in BOTS:
        return None
    cls, params = parse_bot_spec(spec)
    return cls(params=params).spec


class BotSource:
    """The bots, their versions and options as a ``PolicySource`` of the policy registry."""

    def names(self) -> list[str]:
        """The plain bot names (each also takes ``@VERSION`` and ``:OPTIONS``)."""
        return sorted(BOTS)

    def load(self, spec: str, seed: int | None) -> Bot | None:
        """The bot ``spec`` names; None when ``spec`` is no bot name.

        Raises:
            PolicyLoadError: a bot name with an unknown version or a bad option.
        """
        if spec.split("@")[0].split(":")[0] not in BOTS:
            return None
        try:
            return bot_factory(spec)(seed)
        except ValueError as exc:
            raise PolicyLoadError(str(exc)) from None


#: the registry's source of bot names (entry point ``__bots__``)
BOT_SOURCE = BotSource()

"""The one registry of versioned names: the bots and the named search, and ``pimc``.

A name is ``NAME[@VERSION][:KEY=VALUE,...]``:

- ``NAME`` alone is the newest version (``simple`` is ``simple@2``, ``searcher`` is
  ``searcher@4``);
- ``@VERSION`` picks an older one, kept so that old figures stay reproducible (an agent
  whose play changes gets a new version; ``VERSIONS`` lists them all);
- ``:KEY=VALUE,...`` sets options: a bot's (``Bot.OPTIONS``: ``patient:knock_turns=4``) or
  a searcher's ``pimc`` parameters (``searcher@1:worlds=8``).

``pimc:KEY=VALUE,...`` names the search with every parameter given; it has no versions.

An unknown version, an unknown option, a malformed or out-of-range value is refused with
a ``ValueError`` naming it. Every policy built here carries its exact name in ``spec``
(``simple@2``, ``patient@1:knock_turns=4``, ``searcher@4``), which the evaluator records;
a plain ``pimc`` spec carries its canonical spec in ``name``.

The makers are found by their ``module:attribute`` and imported only when a name of theirs
is built, so listing the names imports no bot and no search. ``AGENTS`` serves these names
to the environments' policy registry through the ``__agents__`` entry point of
``pyproject.toml`` (``hgin_env.envs.policy.PolicySource``), so ``simple@1`` works wherever a
policy name does, in any process.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from hgin_env.envs.policy import Policy, PolicyLoadError
from hgin_env.envs.spec import split_spec

#: every versioned name: name -> {version: its maker, as ``module:attribute``}
VERSIONS: dict[str, dict[int, str]] = {
    "simple": {1: "agents.bots.simple_v1:SimpleBotV1", 2: "agents.bots.simple:SimpleBot"},
    "expert": {1: "agents.bots.expert:ExpertBot"},
    "patient": {1: "agents.bots.patient:PatientBot"},
    "tempo": {1: "agents.bots.tempo:TempoBot"},
    "searcher": {v: f"agents.search.searchers:SEARCHER_{v}" for v in (1, 2, 3, 4)},
}
#: names with options but no versions: name -> a function ``(options, seed) -> policy``
UNVERSIONED: dict[str, str] = {"pimc": "agents.search.pimc:make_pimc"}


class Maker(Protocol):
    """One version of a name: builds its policy and names it exactly (a bot class, say)."""

    def make(self, options: str | None, seed: int | None) -> Policy:
        """The policy of this version with ``options`` (None: the defaults)."""
        ...

    def exact(self, options: str | None) -> str:
        """The exact name of this version with ``options`` (``patient@1:knock_turns=4``)."""
        ...


def _import(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def version_of(name: str, version: str | None) -> int:
    """The version a name's ``@VERSION`` picks (None: the newest).

    Raises:
        ValueError: an unknown version, listing the known ones.
    """
    versions = VERSIONS[name]
    if version is None:
        return max(versions)
    if not version.isdigit() or int(version) not in versions:
        known = ", ".join(f"{name}@{v}" for v in sorted(versions))
        raise ValueError(f"unknown version '{name}@{version}' of {name!r}; known versions: {known}")
    return int(version)


def maker(spec: str) -> tuple[Maker, str | None]:
    """The maker of a versioned name and the options it sets.

    Raises:
        ValueError: not a versioned name, an unknown version, or a name that ends with
            ``:`` but sets no option.
    """
    name, version, options = split_spec(spec)
    if name not in VERSIONS:
        known = ", ".join(sorted(VERSIONS))
        raise ValueError(f"unknown agent {name!r}; known versioned names: {known}")
    chosen = version_of(name, version)
    if options == "":
        raise ValueError(f"name {spec!r} ends with ':' but sets no option")
    return _import(VERSIONS[name][chosen]), options


def exact_name(spec: str) -> str:
    """The exact name a versioned name stands for (``simple`` -> ``simple@2``); nothing plays.

    Raises:
        ValueError: see ``maker``; a bad option.
    """
    found, options = maker(spec)
    return found.exact(options)


def make(spec: str, seed: int | None = None) -> Policy:
    """The policy a versioned name or a ``pimc`` spec names.

    Raises:
        ValueError: see ``maker``; a bad option or parameter (named in the message).
    """
    name, version, options = split_spec(spec)
    if name in UNVERSIONED:
        if version is not None:
            raise ValueError(f"{name!r} has no versions; got {spec!r}")
        policy: Policy = _import(UNVERSIONED[name])(options or "", seed)
        return policy
    found, options = maker(spec)
    return found.make(options, seed)


class AgentNames:
    """The versioned names and ``pimc`` as a ``PolicySource`` of the policy registry."""

    def names(self) -> list[str]:
        """The plain names (each also takes ``:OPTIONS``; the versioned ones ``@VERSION``)."""
        return sorted([*VERSIONS, *UNVERSIONED])

    def load(self, spec: str, seed: int | None) -> Policy | None:
        """The policy ``spec`` names (the resolver passes the specs whose name is listed).

        Raises:
            PolicyLoadError: an unknown version, a bad option or parameter.
        """
        try:
            return make(spec, seed)
        except PolicyLoadError:
            raise
        except ValueError as exc:
            raise PolicyLoadError(str(exc)) from None


#: the policy registry's source of these names (entry point ``__agents__``)
AGENTS = AgentNames()

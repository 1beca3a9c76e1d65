"""The policies the web table offers, by name: a request names one, never a path.

A model file is code (a MaskablePPO ``.zip`` is unpickled when it loads), so the server
loads only what its own command line pointed at. ``PolicyCatalog`` lists:

- the registered bots (``random``, ``simple``, ``expert``, ...);
- the shipped models (``models/<name>/``: ``ppo-cards``, ...);
- the models found under the folders given with ``--models DIR``: every folder holding
  ``hgin_policy.json`` (a run's ``final_model/``: data, it loads without trust) as
  ``DIR/<folder path>``, every ``*.zip`` below the folder as ``DIR/<path without .zip>``
  and every folder holding ``model.zip`` as ``DIR/<folder path>`` (``DIR`` is the
  folder's own name, so ``--models runs/`` lists ``runs/quickstart__1/final_model``); where
  a run holds both ``final_model/`` and ``final_model.zip``, the name is the folder's;
- the command line's opponent, under the name it was given (a path typed by the user
  who started the server).

A name not in the list is refused with the list, never looked up on disk, so an answer
says nothing about the files of the machine. A model loads once and is shared by the
games that play it (a model plays deterministically).

A policy's full spec can be long (``pimc:worlds=64,top=0,z=1,rollout=simple,...``);
the page shows ``short_name`` of it (``pimc (64 worlds)``) with the full spec a hover
or a click away.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from agents.policies.model import (
    MODEL_FILE,
    ModelPolicy,
    PolicyLoadError,
    load_policy,
    shipped_models,
)
from agents.policies.saved import POLICY_FILE
from hgin_env.envs.policy import Policy, registered_policies, resolve_policy

#: what an unknown name may look like to be quoted back (a path or a long text is not)
_NAME = re.compile(r"[\w.@:=,+-]{1,40}")
#: the most models listed from the --models folders (a list of thousands helps nobody)
MAX_FOUND = 500
#: the longest short name (the page's headings and score sheet hold it)
SHORT = 24
_WORLDS = re.compile(r"(?:^|,)worlds=(\d{1,6})(?:,|$)")


def short_name(spec: str) -> str:
    """How the page names a policy: its name, ``(N worlds)`` for a search, at most 24 characters.

    ``pimc:worlds=64,top=0,z=1`` is ``pimc (64 worlds)``, ``runs/a/b/final_model`` is
    ``.../final_model``; a name that is short already is itself.

    >>> short_name("pimc:worlds=64,top=0,z=1,rollout=simple,objective=series")
    'pimc (64 worlds)'
    >>> short_name("expert")
    'expert'
    """
    if len(spec) <= SHORT and ":" not in spec:
        return spec
    base, _, params = spec.partition(":")
    if "/" in base and len(base) > SHORT:
        base = ".../" + base.rsplit("/", 1)[-1]
    worlds = _WORLDS.search(params)
    text = f"{base} ({worlds[1]} worlds)" if worlds else base + (":..." if params else "")
    return text if len(text) <= SHORT else text[: SHORT - 3] + "..."


class UnknownPolicyError(ValueError):
    """A policy name the server does not list; the message lists the names it has."""


def found_models(folder: Path) -> dict[str, Path]:
    """The models under ``folder`` by their catalogue names (see the module docstring).

    Raises:
        ValueError: ``folder`` is not a directory.
    """
    if not folder.is_dir():
        raise ValueError(f"--models {folder}: not a directory")
    prefix = folder.resolve().name or "models"
    found: dict[str, Path] = {}
    for spec in sorted(folder.rglob(POLICY_FILE)):
        if spec.is_file() and len(found) < MAX_FOUND:
            found["/".join((prefix, *spec.parent.relative_to(folder).parts))] = spec.parent
    for path in sorted(folder.rglob("*.zip")):
        if not path.is_file() or len(found) >= MAX_FOUND:
            continue
        rel = path.relative_to(folder)
        parts = rel.parent.parts if path.name == MODEL_FILE else rel.with_suffix("").parts
        found.setdefault("/".join((prefix, *parts)), path)
    return found


class PolicyCatalog:
    """The policies the server offers by name, and their loading (models load once).

    Args:
        model_dirs: folders whose models are offered (``--models``).
        extra: more policies by name: a model ``.zip`` path, a folder holding
            ``model.zip``, or another spec ``load_policy`` takes (the command line's
            opponent).

    Raises:
        ValueError: a ``--models`` folder is missing, or two folders list one name.
    """

    def __init__(
        self, model_dirs: Iterable[Path] = (), extra: Mapping[str, str] | None = None
    ) -> None:
        shipped = shipped_models()
        self.bots = [name for name in registered_policies() if name not in shipped]
        self.models: dict[str, Path | str] = dict(shipped)
        for folder in model_dirs:
            for name, path in found_models(Path(folder)).items():
                if name in self.models:
                    raise ValueError(f"--models {folder}: the name {name!r} is listed twice")
                self.models[name] = path
        for name, spec in (extra or {}).items():
            if name not in self.bots:
                self.models.setdefault(name, spec)
        self._loaded: dict[str, Policy] = {}
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """Every name the server accepts: the models first, then the bots."""
        return [*self.models, *self.bots]

    def __contains__(self, name: object) -> bool:
        return name in self.bots or name in self.models

    def load(self, name: str, seed: int | None = None, role: str = "opponent") -> Policy:
        """The policy the server lists as ``name`` (a bot is new and seeded; a model shared).

        Args:
            name: the name, as listed.
            seed: a bot's seed.
            role: what the page calls the policy (``opponent``, ``player``), in messages.

        Raises:
            UnknownPolicyError: the server lists no such name.
            PolicyLoadError: the listed model does not load; the message names the model
                by its catalogue name only (the full reason, which may name paths, is
                the exception's ``__cause__``).
        """
        if name in self.bots:
            return resolve_policy(name, seed)
        if name not in self.models:
            shown = repr(name) if _NAME.fullmatch(name) else "(a path or a long text)"
            raise UnknownPolicyError(
                f"unknown {role} {shown}: choose one the server lists "
                f"({', '.join(self.names()[:20])}{', ...' if len(self.names()) > 20 else ''})"
            )
        with self._lock:
            if name not in self._loaded:
                self._loaded[name] = self._load_model(name, self.models[name])
            return self._loaded[name]

    @staticmethod
    def _load_model(name: str, spec: Path | str) -> Policy:
        try:
            if isinstance(spec, Path):
                return ModelPolicy(spec, name=name)
            return load_policy(spec)
        except PolicyLoadError as exc:
            raise PolicyLoadError(
                f"the model {name!r} cannot be loaded (the server's console says why)"
            ) from exc

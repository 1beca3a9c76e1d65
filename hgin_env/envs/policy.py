"""The policy protocol the environments accept for opponents, and a policy registry.

A policy is any object with a batched ``act(observations, action_masks) -> actions``:
``observations`` float32[N, OBS_DIM], ``action_masks`` bool[N, 107], actions int[N]
(each legal for its row). Rule bots and trained models plug in through it.

Names map to factories in a registry; ``random`` is built in, and installed packages add
theirs through the ``hgin_env.policies`` entry points (as Gymnasium plugins add envs):
hollywood-gin's own ``pyproject.toml`` declares three sources, the bots (``__bots__``),
the search (``__search__``) and the model files and shipped models (``__models__``).
So ``HollywoodGinVecEnv(opponent="expert")`` works in any process, env workers
included, without importing ``agents`` first, and nothing here imports it (imports
flow one way, engine -> envs -> agents).
A third-party package adds a bot the same way::

    [project.entry-points."hgin_env.policies"]
    mybot = "mypackage.bots:MyBot"      # MyBot(seed) -> a policy

``resolve_policy`` is the one resolver from a name, a model path or an object to a policy.

Per-game randomness: a stochastic policy may also accept a keyword ``keys`` (uint64[N],
one fresh key per game and decision, derived by the environments from each game's seed
and a per-game decision counter) and draw its random numbers from them instead of a
shared generator. Then a game plays the same whether it runs alone or in a batch of any
size, which is what makes a VecEnv seeded ``s`` equal to single envs seeded ``s, s+1, ...``.
``RandomPolicy`` does this; ``accepts_keys`` tells whether a policy does.

``PolicyCall`` is the one way to call a policy: it inspects ``act`` once (does it take
``keys``? ``rows``? does it read its observations?) and then passes each call the
keywords the policy declared, so no caller writes that test again.

A policy that never looks at the observations may set ``needs_observations = False``;
the environments then pass ``None`` instead of encoding them (``RandomPolicy`` does).
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hgin_env.engine.jit import entry_point, inline_kernel, kernel
from hgin_env.engine.keys import to_uniform
from hgin_env.envs.spec import split_spec


@runtime_checkable
class Policy(Protocol):
    """A batched policy: one call decides for a whole batch of games."""

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Return int[N] legal actions for float32[N, D] observations and bool[N, 107] masks."""
        ...


def random_legal_actions(action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (-1 for a row with none).

    Draws one uniform number ``u_i`` per row from ``rng`` and picks that row's
    ``floor(u_i * count_i)``-th legal action (in id order), as the keyed version does.
    """
    masks = np.asarray(action_masks, dtype=bool)
    return _pick(masks, np.asarray(rng.random(masks.shape[0])))


def keyed_random_legal_actions(action_masks: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row, drawn from the row's uint64 key (-1: none).

    Row i takes its ``floor(u_i * count_i)``-th legal action (in id order), where ``u_i``
    is the top 53 bits of ``keys[i]`` as a uniform number in [0, 1).
    """
    masks = np.asarray(action_masks, dtype=bool)
    uniform = to_uniform(np.asarray(keys, dtype=np.uint64).reshape(-1))
    if uniform.shape != masks.shape[:1]:
        raise ValueError(f"expected {masks.shape[0]} keys (one per row), got {uniform.size}")
    return _pick(masks, uniform)


#: ``_pick_legal``'s compiled entry for writeable C-contiguous bool masks and float64 numbers
_pick_entry: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None


def _pick(masks: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """``_pick_legal``, through its compiled entry when the arrays have the usual layout.

    A small batch would spend a good part of the pick in numba's dispatch (which types
    every argument on each call); the masks the engine and the envs hand out are
    C-contiguous, and so are the uniform numbers drawn here.
    """
    global _pick_entry
    if (
        masks.ndim == 2
        and masks.flags.c_contiguous
        and masks.flags.writeable
        and uniform.dtype == np.float64
        and uniform.ndim == 1
        and uniform.flags.c_contiguous
    ):
        if _pick_entry is None:
            _pick_entry = entry_point(_pick_legal, masks, uniform)
        return _pick_entry(masks, uniform)
    return _pick_legal(masks, uniform)


@inline_kernel
def pick_legal(mask: np.ndarray, uniform: float) -> int:
    """The ``floor(uniform * count)``-th legal action of one bool mask (in id order), -1 if none."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    if count == 0:
        return -1
    pick = min(int(uniform * count), count - 1)
    for a in range(mask.shape[0]):  # counted down without a branch per action
        pick -= mask[a]
        if pick < 0:
            return a
    return -1


@kernel
def _pick_legal(masks: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """int64[N]: row i's ``floor(uniform[i] * count_i)``-th legal action, -1 for none."""
    out = np.full(masks.shape[0], -1, dtype=np.int64)
    for i in range(masks.shape[0]):
        out[i] = pick_legal(masks[i], uniform[i])
    return out


def is_keyed_random(policy: object) -> bool:
    """Whether ``policy`` is the built-in ``RandomPolicy``, whose keyed pick is ``pick_legal``.

    The single-game env then plays its moves inside a compiled kernel (same keys, same
    picks) instead of calling ``act``.
    """
    return type(policy) is RandomPolicy


def needs_observations(policy: object) -> bool:
    """Whether ``policy.act`` reads its observations (false only when it says so)."""
    return bool(getattr(policy, "needs_observations", True))


def _act_takes(policy: object, keyword: str) -> bool:
    try:
        params = inspect.signature(getattr(policy, "act")).parameters  # noqa: B009
    except (TypeError, ValueError):
        return False
    return keyword in params


def accepts_keys(policy: object) -> bool:
    """Whether ``policy.act`` takes the per-game ``keys`` keyword (see the module docstring)."""
    return _act_takes(policy, "keys")


def accepts_rows(policy: object) -> bool:
    """Whether ``policy.act`` takes a ``rows`` keyword: the batch indices of its rows.

    A policy that plays each game differently (a mixture of opponents, one per game)
    needs to know which games a batched call covers; the environments pass ``rows``
    to the policies that declare it.
    """
    return _act_takes(policy, "rows")


@dataclass(frozen=True)
class PolicyCall:
    """A policy inspected once, then called with the optional keywords its ``act`` takes.

    Attributes:
        policy: the policy.
        keys: ``act`` takes the per-game ``keys`` (``accepts_keys``).
        rows: ``act`` takes the batch indices ``rows`` (``accepts_rows``).
        observes: ``act`` reads its observations (``needs_observations``).
    """

    policy: Policy
    keys: bool
    rows: bool
    observes: bool

    @classmethod
    def of(cls, policy: Policy) -> PolicyCall:
        """Inspect ``policy`` (once) for the keywords its ``act`` takes."""
        return cls(policy, accepts_keys(policy), accepts_rows(policy), needs_observations(policy))

    def __call__(
        self,
        observations: np.ndarray | None,
        action_masks: np.ndarray,
        keys: np.ndarray | None = None,
        rows: np.ndarray | None = None,
    ) -> np.ndarray:
        """``policy.act(observations, action_masks)``, plus ``keys`` and ``rows`` if it takes them.

        A keyword the policy does not take, or one given as None, is left out.
        """
        extra: dict[str, np.ndarray] = {}
        if self.keys and keys is not None:
            extra["keys"] = keys
        if self.rows and rows is not None:
            extra["rows"] = rows
        act: Any = self.policy.act  # takes the keywords inspected above
        return act(observations, action_masks, **extra)


class RandomPolicy:
    """Uniformly random over the legal actions; deterministic for a seed (or per-game keys)."""

    name = "random"
    #: its play's version (``random@1`` in the evaluator's JSON)
    version = 1
    #: the environments may pass ``observations=None``: this policy ignores them
    needs_observations = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the random stream."""
        self.rng = np.random.default_rng(seed)

    def act(
        self,
        observations: np.ndarray | None,
        action_masks: np.ndarray,
        keys: np.ndarray | None = None,
    ) -> np.ndarray:
        """Pick a random legal action in each row (from ``keys`` when given, else the seed)."""
        if keys is not None:
            return keyed_random_legal_actions(action_masks, keys)
        return random_legal_actions(action_masks, self.rng)


PolicyFactory = Callable[[int | None], Policy]
#: the entry-point group through which installed packages add policies (``pyproject.toml``)
ENTRY_POINT_GROUP = "hgin_env.policies"


class PolicyLoadError(ValueError):
    """A policy spec (name, path or object) that cannot be turned into a policy."""


class PolicySource(Protocol):
    """A family of policies named by specs a package understands (model files, say).

    Registered through an entry point whose name is wrapped in double underscores
    (``__models__ = "agents.policies.model:MODELS"``), as Gymnasium's ``__root__`` key.
    The resolver splits a spec once (``hgin_env.envs.spec.split_spec``) and asks the
    source that lists its ``NAME``; a source with ``serves_paths = True`` is also asked
    for the specs no name claims (model files and folders).
    """

    def names(self) -> list[str]:
        """The plain names this source serves (listed by ``registered_policies``)."""
        ...

    def load(self, spec: str, seed: int | None) -> Policy | None:
        """The policy ``spec`` names (its ``NAME`` listed here, or a path), None if none.

        Raises:
            PolicyLoadError: the spec is this source's but cannot be loaded.
        """
        ...


#: explicit registrations and the entry points loaded so far: name -> factory
_REGISTRY: dict[str, PolicyFactory] = {"random": RandomPolicy}
#: the sources registered or found through entry points
_SOURCES: list[PolicySource] = []
#: entry points not loaded yet: name -> entry point (found once, on first use)
_PLUGINS: dict[str, metadata.EntryPoint] = {}
_discovered = False


def register_policy(name: str, factory: PolicyFactory) -> None:
    """Make ``name`` resolvable in this process: ``factory(seed)`` builds the policy.

    Installed packages add names through the ``hgin_env.policies`` entry points instead,
    which every process (env workers included) finds on its own.
    """
    _REGISTRY[name] = factory


def register_source(source: PolicySource) -> None:
    """Consult ``source`` for the specs no name matches (see ``PolicySource``)."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def _load_entry_point(entry: metadata.EntryPoint) -> Any:
    """The object an entry point names; a broken plugin is one clear ``PolicyLoadError``."""
    try:
        return entry.load()
    except Exception as exc:  # noqa: BLE001 - any failure of a third-party import
        raise PolicyLoadError(
            f"policy plugin {entry.name!r} ({entry.value}) cannot be loaded: "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def discover_plugins(force: bool = False) -> None:
    """Read the ``hgin_env.policies`` entry points of the installed packages (once).

    A plain name (``simple = "agents.bots:SimpleBot"``) names a factory, imported when the
    name is first used; a ``__name__`` entry names a ``PolicySource``, loaded now (a source
    that fails to load is skipped with a warning, so one broken plugin breaks no other).
    Names registered explicitly take precedence; of two packages giving one name, the
    first found wins.

    Args:
        force: read the entry points again (after installing a package at run time).
    """
    global _discovered
    if _discovered and not force:
        return
    _discovered = True
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name.startswith("__") and entry.name.endswith("__"):
            try:
                register_source(_load_entry_point(entry))
            except PolicyLoadError as exc:
                warnings.warn(str(exc), RuntimeWarning, stacklevel=2)
        elif entry.name not in _REGISTRY:
            _PLUGINS.setdefault(entry.name, entry)


def registered_policies() -> list[str]:
    """The names ``resolve_policy`` accepts (model paths aside)."""
    discover_plugins()
    names = set(_REGISTRY) | set(_PLUGINS)
    for source in _SOURCES:
        names.update(source.names())
    return sorted(names)


def unknown_policy_message(spec: str) -> str:
    """The one error text for a spec that names no policy."""
    known = ", ".join(registered_policies())
    return f"unknown policy {spec!r}: not a known name ({known}) nor a model path"


def _factory(name: str) -> PolicyFactory | None:
    """The factory of a registered or plugin name (the plugin is imported now), or None."""
    discover_plugins()
    if name not in _REGISTRY and name in _PLUGINS:
        _REGISTRY[name] = _load_entry_point(_PLUGINS.pop(name))
    return _REGISTRY.get(name)


def spec_source(text: str) -> PolicySource | None:
    """The source listing the ``NAME`` of the spec ``text`` (split once), or None."""
    name = split_spec(text)[0]
    return next((source for source in _SOURCES if name in source.names()), None)


def is_variant(text: str) -> bool:
    """Whether ``text`` is a registered name with a version or options (``simple@1``)."""
    name = split_spec(text)[0]
    return name != text and name in registered_policies()


def resolve_policy(spec: str | os.PathLike[str] | Policy, seed: int | None = None) -> Policy:
    """Turn a policy name, a model path or a policy object into a policy: the one resolver.

    In this order: an object with ``act`` is returned as it is; a registered or entry-point
    name builds its policy with ``seed``; a spec whose ``NAME`` a ``PolicySource`` lists
    goes to that source (the bots with their versions and options, the search with its
    parameters, the shipped models); any other spec goes to the sources that serve paths
    (the agents package's: model files, run folders, RLlib checkpoints).

    Raises:
        PolicyLoadError: for a spec that names nothing (one text, listing the known names),
            an object without ``act``, or a model that cannot be loaded.
    """
    if not isinstance(spec, str | os.PathLike):
        if not callable(getattr(spec, "act", None)):
            raise PolicyLoadError(
                "a policy must be a name, a model path or an object with "
                f"act(observations, action_masks); got {type(spec).__name__}"
            )
        return spec
    text = os.fspath(spec)
    factory = _factory(text)
    if factory is not None:
        return factory(seed)
    source = spec_source(text)
    if source is not None:
        policy = source.load(text, seed)
    else:
        paths = (source for source in _SOURCES if getattr(source, "serves_paths", False))
        policy = next(filter(None, (source.load(text, seed) for source in paths)), None)
    if policy is None:
        raise PolicyLoadError(unknown_policy_message(text))
    return policy

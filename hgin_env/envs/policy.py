"""The policy protocol the environments accept for opponents, and a policy registry.

A policy is any object with a batched ``act(observations, action_masks) -> actions``:
``observations`` float32[N, OBS_DIM], ``action_masks`` bool[N, 107], actions int[N]
(each legal for its row). Rule bots and trained models plug in through it. Names map
to factories in a registry; ``random`` is built in. Registration is explicit: importing
the ``agents`` package registers its bots (``simple``, ``expert``) and the shipped
models, and nothing here imports it (imports flow one way, engine -> envs -> agents).

Per-game randomness: a stochastic policy may also accept a keyword ``keys`` (uint64[N],
one fresh key per game and decision, derived by the environments from each game's seed
and a per-game decision counter) and draw its random numbers from them instead of a
shared generator. Then a game plays the same whether it runs alone or in a batch of any
size, which is what makes a VecEnv seeded ``s`` equal to single envs seeded ``s, s+1, ...``.
``RandomPolicy`` does this; ``accepts_keys`` tells whether a policy does.

A policy that never looks at the observations may set ``needs_observations = False``;
the environments then pass ``None`` instead of encoding them (``RandomPolicy`` does).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """A batched policy: one call decides for a whole batch of games."""

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Return int[N] legal actions for float32[N, D] observations and bool[N, 107] masks."""
        ...


def random_legal_actions(action_masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (-1 for a row with none).

    Draws one uniform number per row and picks that row's k-th legal action.
    """
    masks = np.asarray(action_masks, dtype=bool)
    n, width = masks.shape
    legal = np.flatnonzero(masks)  # row-major flat ids of the legal actions
    counts = np.count_nonzero(masks, axis=1)
    first = np.cumsum(counts) - counts
    pick = (rng.random(n) * counts).astype(np.int64)
    chosen = legal[np.minimum(first + pick, max(legal.size - 1, 0))] if legal.size else first
    return np.where(counts > 0, chosen - np.arange(n) * width, -1)


def keyed_random_legal_actions(action_masks: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row, drawn from the row's uint64 key (-1: none).

    Row i takes its ``floor(u_i * count_i)``-th legal action (in id order), where ``u_i``
    is the top 53 bits of ``keys[i]`` as a uniform number in [0, 1).
    """
    masks = np.asarray(action_masks, dtype=bool)
    n, width = masks.shape
    counts = np.count_nonzero(masks, axis=1)
    uniform = (np.asarray(keys, dtype=np.uint64) >> np.uint64(11)) * (1.0 / (1 << 53))
    pick = (uniform * counts).astype(np.int64)
    legal = np.flatnonzero(masks)  # row-major flat ids of the legal actions
    if legal.size == 0:
        return np.full(n, -1, dtype=np.int64)
    first = np.cumsum(counts) - counts
    chosen = legal[np.minimum(first + pick, legal.size - 1)] - np.arange(n) * width
    return np.where(counts > 0, chosen, -1)


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


class RandomPolicy:
    """Uniformly random over the legal actions; deterministic for a seed (or per-game keys)."""

    name = "random"
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
#: a factory of parameterized policies: ``factory(params, seed)``, ``params`` the text
#: after ``name:`` (``""`` for the bare name); it raises ``ValueError`` naming a bad one
FamilyFactory = Callable[[str, int | None], Policy]
#: what an unknown name's error adds while the bots are not registered yet
REGISTER_HINT = " (the bots and shipped models are registered by `import agents`)"
_REGISTRY: dict[str, PolicyFactory] = {"random": RandomPolicy}
_FAMILIES: dict[str, FamilyFactory] = {}


def register_policy(name: str, factory: PolicyFactory) -> None:
    """Make ``name`` resolvable: ``factory(seed)`` builds the policy."""
    _REGISTRY[name] = factory


def register_policy_family(name: str, factory: FamilyFactory) -> None:
    """Make ``name`` and ``name:PARAMS`` resolvable: ``factory(PARAMS, seed)`` builds the policy.

    For policies whose parameters travel in their name (``pimc:worlds=64,rollout=simple``).
    """
    _FAMILIES[name] = factory


def is_registered(spec: str) -> bool:
    """Whether ``resolve_policy`` knows ``spec``: a registered name, or ``family[:params]``."""
    return spec in _REGISTRY or spec.partition(":")[0] in _FAMILIES


def registry_packages() -> list[str]:
    """The top-level packages whose import registered the names known now (``["agents"]``).

    A worker process started fresh (``hgin_env.envs.workers``) imports them
    (``import_registry_packages``) so that the names resolve there as they do here, without
    this module importing them.
    """
    own = __name__.split(".")[0]
    factories = [*_REGISTRY.values(), *_FAMILIES.values()]
    tops = {getattr(f, "__module__", own).split(".")[0] for f in factories}
    return sorted(tops - {own})


def import_registry_packages(packages: list[str]) -> None:
    """Import ``packages`` (from ``registry_packages``), which registers their policies."""
    for name in packages:
        importlib.import_module(name)


def registered_policies() -> list[str]:
    """The names ``resolve_policy`` accepts now (a family's bare name stands for its specs)."""
    return sorted({*_REGISTRY, *_FAMILIES})


def resolve_policy(spec: str | Policy, seed: int | None = None) -> Policy:
    """Turn a policy name or object into a policy.

    Raises:
        ValueError: for an unknown name (the message lists the known ones), a family's
            bad parameter (named), or an object without an ``act`` method.
    """
    if isinstance(spec, str):
        if not is_registered(spec):
            hint = "" if "agents" in sys.modules else REGISTER_HINT
            known = registered_policies()
            raise ValueError(f"unknown policy {spec!r}; known policies: {known}{hint}")
        if spec in _REGISTRY:
            return _REGISTRY[spec](seed)
        family, _, params = spec.partition(":")
        return _FAMILIES[family](params, seed)
    if not callable(getattr(spec, "act", None)):
        raise ValueError(
            f"a policy must be a name or an object with act(observations, action_masks); "
            f"got {type(spec).__name__}"
        )
    return spec

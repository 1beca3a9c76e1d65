"""The policy protocol the environments accept for opponents, and a policy registry.

A policy is any object with a batched ``act(observations, action_masks) -> actions``:
``observations`` float32[N, OBS_DIM], ``action_masks`` bool[N, 107], actions int[N]
(each legal for its row). Rule bots and trained models plug in through it. Names map
to factories in a registry; ``random`` is built in, and the ``agents`` package registers
its bots (``simple``, ``expert``) and trained models when imported; ``resolve_policy``
imports it on first use of an unknown name.
"""

from __future__ import annotations

import importlib
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


class RandomPolicy:
    """Uniformly random over the legal actions; deterministic for a seed."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the random stream."""
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Pick a random legal action in each row."""
        return random_legal_actions(action_masks, self.rng)


PolicyFactory = Callable[[int | None], Policy]
_REGISTRY: dict[str, PolicyFactory] = {"random": RandomPolicy}


def register_policy(name: str, factory: PolicyFactory) -> None:
    """Make ``name`` resolvable: ``factory(seed)`` builds the policy."""
    _REGISTRY[name] = factory


def registered_policies() -> list[str]:
    """The names ``resolve_policy`` accepts."""
    _load_plugins()
    return sorted(_REGISTRY)


def _load_plugins() -> None:
    try:
        importlib.import_module("agents")
    except ImportError:
        pass


def resolve_policy(spec: str | Policy, seed: int | None = None) -> Policy:
    """Turn a policy name or object into a policy.

    Raises:
        ValueError: for an unknown name (the message lists the known ones) or an object
            without an ``act`` method.
    """
    if isinstance(spec, str):
        if spec not in _REGISTRY:
            _load_plugins()
        if spec not in _REGISTRY:
            raise ValueError(f"unknown policy {spec!r}; known policies: {sorted(_REGISTRY)}")
        return _REGISTRY[spec](seed)
    if not callable(getattr(spec, "act", None)):
        raise ValueError(
            f"a policy must be a name or an object with act(observations, action_masks); "
            f"got {type(spec).__name__}"
        )
    return spec

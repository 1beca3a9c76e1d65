"""``searcher``: the named search agent, each version a fixed set of ``pimc`` parameters.

``searcher`` is the newest version, ``searcher@N`` version N, and ``searcher@N:KEY=VALUE``
that version with some parameters changed (``searcher@1:worlds=8``). The registry of
versioned names (``agents.registry``) lists the versions; a version never changes its
parameters, so its games never change.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.search.params import PimcParams, parse_params
from agents.search.pimc import PimcPolicy
from hgin_env.envs.spec import split_items

#: the named search agent's name
SEARCHER = "searcher"


@dataclass(frozen=True)
class Searcher:
    """One version of ``searcher``: its full ``pimc`` parameters.

    Attributes:
        version: the version number.
        params: the ``pimc`` parameters of this version (the text after ``pimc:``).
    """

    version: int
    params: str

    def parameters(self, options: str | None = None) -> PimcParams:
        """The version's parameters with ``options`` (``KEY=VALUE,...``) overriding them.

        Raises:
            ValueError: a bad option (named in the message).
        """
        items = split_items(self.params, SEARCHER)
        if options is not None:
            items.update(split_items(options, f"{SEARCHER}@{self.version}"))
        return parse_params(",".join(f"{k}={v}" for k, v in items.items()))

    def exact(self, options: str | None = None) -> str:
        """The exact name: ``searcher@N``, then the options as given."""
        head = f"{SEARCHER}@{self.version}"
        return head if options is None else f"{head}:{options}"

    def make(self, options: str | None, seed: int | None) -> PimcPolicy:
        """The version's ``PimcPolicy``, named by its exact name (``searcher@N[:OPTIONS]``).

        ``params.spec()`` still gives the policy's full ``pimc:...`` spec.
        """
        policy = PimcPolicy(self.parameters(options), seed)
        policy.name = policy.spec = self.exact(options)
        return policy


SEARCHER_1 = Searcher(
    1,
    "worlds=128,top=0,z=1,belief=deadwood,rollout=ppo-league2,objective=points,"
    "decisions=knock,rounds=2",
)
#: version 1's knock search with ppo-taught playing the moves (the rollouts stay ppo-league2)
SEARCHER_2 = Searcher(
    2,
    "worlds=128,top=0,z=1,belief=deadwood,prior=ppo-taught,rollout=ppo-league2,"
    "objective=points,decisions=knock,rounds=2",
)
#: version 2 with ppo-taught also playing the searching seat of the rollouts
SEARCHER_3 = Searcher(
    3,
    "worlds=128,top=0,z=1,belief=deadwood,prior=ppo-taught,rollout=ppo-league2,"
    "own=ppo-taught,objective=points,decisions=knock,rounds=2",
)
#: version 3 also searching the moves ppo-taught is unsure of (two best within 1 logit)
SEARCHER_4 = Searcher(
    4,
    "worlds=128,top=0,z=1,belief=deadwood,prior=ppo-taught,rollout=ppo-league2,"
    "own=ppo-taught,objective=points,decisions=knock,rounds=2,close=1",
)

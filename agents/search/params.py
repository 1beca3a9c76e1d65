"""The search's parameters: ``PimcParams`` and the ``pimc:KEY=VALUE,...`` spec that sets them.

A spec is ``pimc`` or ``pimc:worlds=64,rollout=simple,objective=series``, plus rules
options (``undercut_bonus=25``, ...). Every value is checked before any work: an unknown,
repeated, malformed or out-of-range parameter is refused with a ``ValueError`` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.options import (
    ConfigError,
    check_record,
    from_text,
    limits,
    unknown_option,
)
from hgin_env.envs.spec import split_items, split_spec

#: the family name the registry knows
NAME = "pimc"
OBJECTIVES = ("series", "points")
BELIEFS = ("uniform", "deadwood")
#: which decisions are searched: every one with a choice, only those where a knock is legal,
#: only the draws (upcard or stock), or both of those
DECISIONS = ("all", "knock", "draw", "knock+draw")
#: most rounds of successive halving
MAX_ROUNDS = 8
#: most worlds per decision
MAX_WORLDS = 4096
#: the rules options a spec may set (those the rollouts and the value table use)
RULES_PARAMS = (
    "knock_limit",
    "gin_bonus",
    "undercut_bonus",
    "big_gin_bonus",
    "allow_rediscard",
    "max_turns_per_hand",
    "game_target",
)
#: the search's own parameters, in the order of the canonical spec
SEARCH_PARAMS = (
    "worlds", "top", "z", "belief", "prior", "rollout", "own", "objective", "decisions",
    "rounds", "close",
)  # fmt: skip


@dataclass(frozen=True)
class PimcParams:
    """The search's parameters (the ``pimc:`` spec).

    Attributes:
        worlds: sampled deals of the hidden cards per decision (1..4096).
        top: discards searched: the ``top`` that leave the least deadwood, plus the
            prior's choice (0: every legal discard). Of the knocks, only the one
            leaving the least deadwood is searched (the others leave more deadwood).
        z: a candidate replaces the prior's choice only when its mean gain
            over it (per world, same worlds) exceeds ``z`` standard errors (0: the best
            mean wins; the sampling noise of a few worlds otherwise decides).
        belief: how the opponent's hidden cards are dealt: ``uniform`` (any unseen
            cards) or ``deadwood`` (worlds resampled so the opponent's deadwood follows
            real players' at this turn, ``worlds.believed_worlds``).
        prior: the policy whose choice the search keeps unless a candidate beats it
            clearly (a registered name or a model path, not a ``pimc`` spec; empty: the
            rollout policy). A network as the prior with a fast bot in the rollouts: the
            network plays, the search overrules it where the rollouts are sure.
        rollout: the policy playing both seats in the rollouts (a registered name or a
            model path; not a ``pimc`` spec).
        own: the policy playing the searching seat in the rollouts, ``rollout`` then
            playing only the opponent's (empty: ``rollout`` plays both seats).
        objective: ``series`` (chance of winning the series) or ``points``.
        decisions: ``all`` (every decision with a choice is searched), ``knock`` (only
            the discards where a knock is legal, between the least-deadwood knock, the
            prior's choice and the prior's best non-knock discard, "go on"), ``draw``
            (only the draws: the upcard against the stock, or the first upcard against
            passing it) or ``knock+draw`` (both); the prior plays every other decision
            unsearched.
        rounds: successive halving: the worlds are played in ``rounds`` equal batches,
            and after each batch but the last every game keeps the better half of its
            candidates by mean value so far (the prior's choice always stays); 1: every
            candidate plays every world.
        close: also search each decision not searched by ``decisions`` where the prior's
            two most likely legal actions are less than ``close`` apart in its logits,
            between those two (0: none; the prior must be a network).
        rules: the rules the rollouts play under.
    """

    worlds: int = field(default=64, metadata=limits(1, MAX_WORLDS))
    top: int = field(default=0, metadata=limits(0, N_CARDS))
    z: float = field(default=1.0, metadata=limits(0, 10))
    belief: str = field(default="uniform", metadata=limits(choices=BELIEFS))
    prior: str = ""
    rollout: str = "simple"
    own: str = ""
    objective: str = field(default="series", metadata=limits(choices=OBJECTIVES))
    decisions: str = field(default="all", metadata=limits(choices=DECISIONS))
    rounds: int = field(default=1, metadata=limits(1, MAX_ROUNDS))
    close: float = field(default=0.0, metadata=limits(0, 100))
    rules: RulesConfig = field(default_factory=RulesConfig)

    def __post_init__(self) -> None:
        check_record(self)

    def spec(self) -> str:
        """The canonical ``pimc:...`` spec (rules options only where they differ)."""
        parts = [f"worlds={self.worlds}", f"top={self.top}", f"z={self.z:g}"]
        if self.belief != "uniform":
            parts.append(f"belief={self.belief}")
        if self.prior:
            parts.append(f"prior={self.prior}")
        parts.append(f"rollout={self.rollout}")
        if self.own:
            parts.append(f"own={self.own}")
        parts.append(f"objective={self.objective}")
        if self.decisions != "all":
            parts.append(f"decisions={self.decisions}")
        if self.rounds != 1:
            parts.append(f"rounds={self.rounds}")
        if self.close:
            parts.append(f"close={self.close:g}")
        default = RulesConfig()
        for name in RULES_PARAMS:
            value = getattr(self.rules, name)
            if value != getattr(default, name):
                parts.append(f"{name}={str(value).lower() if isinstance(value, bool) else value}")
        return f"{NAME}:" + ",".join(parts)


def parse_params(text: str) -> PimcParams:
    """Parse the text after ``pimc:`` (``""``: the defaults).

    Raises:
        ValueError: naming the parameter that is unknown, repeated, malformed or out of
            range (``worlds=0``), or an unknown rollout policy.
    """
    values = split_items(text, NAME)
    known = (*SEARCH_PARAMS, *RULES_PARAMS)
    for key in values:
        if key not in known:
            raise ConfigError(f"{NAME}: {unknown_option(key, known)}")
    rules = {k: v for k, v in values.items() if k in RULES_PARAMS}
    search = {k: v for k, v in values.items() if k not in RULES_PARAMS}
    params = from_text(
        PimcParams, search, NAME, base=PimcParams(rules=from_text(RulesConfig, rules, NAME))
    )
    check_rollout(params.rollout)
    for name in ("prior", "own"):
        if getattr(params, name):
            check_rollout(getattr(params, name), name)
    return params


def check_rollout(name: str, parameter: str = "rollout") -> None:
    """Raise ``ValueError`` naming ``parameter`` unless ``name`` names a policy (nothing loads).

    A model file that exists but cannot be loaded is refused when the search is built.
    """
    from agents.policies.model import policy_problem

    if split_spec(name)[0] == NAME:
        raise ValueError(f"pimc parameter {parameter} cannot be a pimc search")
    problem = policy_problem(name)
    if problem is not None:
        raise ValueError(f"pimc parameter {parameter}: {problem}")

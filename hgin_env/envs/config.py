"""Environment options: one frozen dataclass, ``EnvConfig``, next to the rules' ``RulesConfig``.

Every constructor of the environments takes these fields as keyword arguments
(``HollywoodGinEnv(mode="series", reward_scale=50)``) or a whole ``EnvConfig``
(``config=...``); YAML files map onto them field by field with ``EnvConfig.from_dict``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from hgin_env.engine.config import RulesConfig, RulesMix, check_mix
from hgin_env.engine.game import mix_cdf
from hgin_env.engine.options import check_keys, check_record, limits
from hgin_env.engine.table import MODES

ILLEGAL_ACTIONS = ("raise", "penalize")
AGENT_SEATS = ("random", "alternate", 0, 1)


@dataclass(frozen=True)
class EnvConfig:
    """Options of the environments (the rules themselves live in ``RulesConfig``).

    Attributes:
        mode: ``"hand"``: an episode is one hand; ``"series"``: an episode is a whole
            Hollywood series (three games on one score sheet, winner deals next).
        reward_scale: a hand's reward is (points won - points lost) / reward_scale (> 0).
        series_win_reward: series mode only: +this to the series winner at the end of the
            series, -this to the loser (>= 0).
        illegal_action: ``"raise"``: an illegal action raises ``ValueError`` naming the
            action and the legal ones; ``"penalize"``: it ends the episode with reward
            ``-illegal_penalty`` and leaves the game untouched.
        illegal_penalty: the penalty of ``illegal_action="penalize"`` (>= 0).
        agent_seat: single-agent envs: the learner's seat in each episode.
            ``"random"``: drawn from the game's seed and episode counter;
            ``"alternate"``: seat ``(seed + episode) % 2``, so consecutive episodes of a
            game alternate; ``0`` or ``1``: always that seat. The dealer is drawn
            separately by the engine (series: the first dealer, then the winner deals).
        privileged: single-agent envs: append the hidden-information block
            (``observation.PRIVILEGED_LAYOUT``: the opponent's hand, the stock order, the
            opponent's deadwood) to the agent's observations, for a critic that sees it
            (``ppo.policy: cards``); the actor ignores it. Opponents never get it.
        rules_mix: ``null`` (every game plays ``rules``), or a list of rule sets to mix:
            each entry overrides fields of ``rules`` (``{undercut_bonus: 25}``), with an
            optional ``weight`` (default 1). Each episode draws its rule set from its
            game's seed and episode counter (the same games alone, batched or in
            workers). Entries may differ only in ``knock_limit``, ``gin_bonus``,
            ``undercut_bonus`` and ``big_gin_bonus``.
    """

    mode: str = field(default="hand", metadata=limits(choices=MODES))
    reward_scale: float = field(default=100.0, metadata=limits(above=0))
    series_win_reward: float = field(default=1.0, metadata=limits(0))
    illegal_action: str = field(default="raise", metadata=limits(choices=ILLEGAL_ACTIONS))
    illegal_penalty: float = field(default=1.0, metadata=limits(0))
    agent_seat: str | int = field(default="random", metadata=limits(choices=AGENT_SEATS))
    privileged: bool = False
    rules_mix: tuple[dict[str, Any], ...] | None = None

    def __post_init__(self) -> None:
        check_record(self)
        if self.rules_mix is not None:
            if isinstance(self.rules_mix, dict | str) or not isinstance(
                self.rules_mix, list | tuple
            ):
                raise ValueError(
                    f"EnvConfig.rules_mix must be a list of rules overrides, got {self.rules_mix!r}"
                )
            object.__setattr__(self, "rules_mix", tuple(self.rules_mix))
            rules_mix(RulesConfig(), self)  # the entries alone; the shared options at build

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> EnvConfig:
        """Build from a mapping (a YAML section); an unknown key raises ``ValueError``."""
        data = dict(data or {})
        _check_keys(data)
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """Return the options as a plain dict (for saving with a run)."""
        data = dataclasses.asdict(self)
        if self.rules_mix is not None:
            data["rules_mix"] = [dict(entry) for entry in self.rules_mix]
        return data


#: the key of a ``rules_mix`` entry that is its weight, not a rules field
MIX_WEIGHT = "weight"


def rules_mix(rules: RulesConfig, config: EnvConfig) -> tuple[RulesMix, tuple[float, ...] | None]:
    """The rule sets the games play under, and their weights (None: equal).

    Without ``config.rules_mix``: ``((rules,), None)``. With it: each entry's overrides
    applied to ``rules``.

    Raises:
        ValueError: an empty mix, an entry that is not a mapping, an unknown field, a bad
            value or weight, or entries differing in an option one batch must share; the
            message names ``env.rules_mix`` and the entry.
    """
    if config.rules_mix is None:
        return (rules,), None
    if not config.rules_mix:
        raise ValueError("env.rules_mix is empty: give at least one rule set, or null")
    mix, weights = [], []
    fields = {f.name for f in dataclasses.fields(RulesConfig)}
    for i, entry in enumerate(config.rules_mix):
        where = f"env.rules_mix[{i}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} must be a mapping of rules fields, got {entry!r}")
        overrides = {k: v for k, v in entry.items() if k != MIX_WEIGHT}
        unknown = sorted(set(overrides) - fields)
        if unknown:
            raise ValueError(
                f"{where}: unknown rules field(s) {unknown}; valid fields are "
                f"{sorted(fields)} and {MIX_WEIGHT!r}"
            )
        weight = entry.get(MIX_WEIGHT, 1.0)
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not weight >= 0:
            raise ValueError(f"{where}.{MIX_WEIGHT} must be a number >= 0, got {weight!r}")
        try:
            mix.append(dataclasses.replace(rules, **overrides))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        weights.append(float(weight))
    try:
        checked = check_mix(mix)
        mix_cdf(len(checked), tuple(weights))
    except ValueError as exc:
        raise ValueError(f"env.rules_mix: {exc}") from None
    return checked, tuple(weights)


def _check_keys(data: dict[str, Any]) -> None:
    check_keys(data, [f.name for f in dataclasses.fields(EnvConfig)], noun="env option")


def make_env_config(
    config: EnvConfig | dict[str, Any] | None = None, mode: str | None = None, **overrides
) -> EnvConfig:
    """Merge a base config (an ``EnvConfig``, a dict or None) with keyword overrides.

    ``mode`` (the envs' positional argument) overrides the base's mode unless None.

    Raises:
        ValueError: for an unknown option name or an invalid value (naming the field).
    """
    if config is None:
        base = EnvConfig()
    elif isinstance(config, EnvConfig):
        base = config
    elif isinstance(config, dict):
        base = EnvConfig.from_dict(config)
    else:
        raise ValueError(f"config must be an EnvConfig or a dict, got {type(config).__name__}")
    if mode is not None:
        overrides["mode"] = mode
    _check_keys(overrides)
    return dataclasses.replace(base, **overrides) if overrides else base


def check_render_mode(render_mode: str | None, modes: list[str] | tuple[str, ...]) -> None:
    """Raise ``ValueError`` unless ``render_mode`` is None or one of ``modes``."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be one of {list(modes)} or None, got {render_mode!r}")


def make_rules(rules: RulesConfig | dict[str, Any] | None) -> RulesConfig:
    """Accept a ``RulesConfig``, a dict of its fields, or None (the defaults)."""
    if rules is None:
        return RulesConfig()
    if isinstance(rules, RulesConfig):
        return rules
    if isinstance(rules, dict):
        return RulesConfig.from_dict(rules)
    raise ValueError(f"rules must be a RulesConfig or a dict, got {type(rules).__name__}")

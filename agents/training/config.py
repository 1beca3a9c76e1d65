"""Training options: frozen dataclasses that YAML files map onto field by field.

A config file is a YAML mapping with any of the sections below; every field it leaves
out keeps its default. ``load_config`` reads a file, applies ``--set key=value``
overrides (the value is parsed as YAML, so ``--set ppo.net_arch=[64,64]`` works) and
checks every field: an unknown or mistyped name fails at once with its dotted path and
a suggestion (``unknown field 'ppo.lerning_rate'; did you mean 'learning_rate'?``).

=============  ======================  ==================================================
section        dataclass               what it holds
=============  ======================  ==================================================
(top level)    ``TrainConfig``         experiment name, seed, total steps, runs folder
``rules``      ``RulesConfig``         the rules Options of docs/rules.md (engine)
``env``        ``EnvConfig``           episode mode, reward scale, agent seat (envs)
``opponents``  ``OpponentConfig``      bots/models with weights, and self-play
``ppo``        ``PPOConfig``           MaskablePPO hyperparameters and the network
``eval``       ``EvalConfig``          periodic evaluation and the best-model metric
``checkpoint`` ``CheckpointConfig``    checkpoint interval and how many to keep
``pretrain``   ``PretrainConfig``      start weights and imitation before PPO
=============  ======================  ==================================================

Every field is documented in ``docs/training.md`` (its tables are generated from the
docstrings below by ``docs/gen_tables.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from agents.memory import check_fits
from agents.policies.model import MODELS_DIR, policy_problem
from agents.shipped import shipped_dir
from agents.training.schema import ConfigError, from_mapping, set_dotted, shown, to_plain
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.config import EnvConfig, rules_mix
from hgin_env.envs.observation import OBS_DIM, PRIVILEGED_DIM

#: the named configs: ``configs/<name>.yaml`` (the checkout's or the wheel's)
CONFIGS_DIR = shipped_dir("configs")
#: the config ``python train.py`` runs when given none
DEFAULT_CONFIG = CONFIGS_DIR / "default.yaml"

#: the deepest nesting of mappings and lists a config (or a ``--set`` value) may hold
YAML_MAX_DEPTH = 64
#: the most values (scalars, lists, mappings) a config may expand to, each alias counting
#: the values of what it repeats: a "billion laughs" of nested aliases is refused here
YAML_MAX_VALUES = 20_000

#: the longest experiment name in bytes: ``<experiment>__<seed>__<time>`` (seed up to 20
#: digits, time 15 characters) must fit a folder name's 255 bytes
MAX_EXPERIMENT_BYTES = 200


def game_bytes(n_steps: int) -> int:
    """Estimated bytes of memory one training game holds at ``n_steps`` steps per rollout.

    The rollout buffer's rows (observation with the privileged block, action mask and
    eight scalars, float32 each) plus 16 KiB for the game itself (engine, env and
    opponent state, the observation copies of a step).
    """
    return n_steps * 4 * (OBS_DIM + PRIVILEGED_DIM + N_ACTIONS + 8) + 16 * 1024


#: metrics ``eval.best_metric`` may name (each averaged over the eval opponents)
EVAL_METRICS = ("hand_win_rate", "series_win_rate", "points_per_hand")


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play: the agent also plays frozen snapshots of itself.

    Attributes:
        enabled: add a pool of the agent's past snapshots to the opponents.
        snapshot_every: environment steps between two snapshots added to the pool.
        pool_size: snapshots kept; the oldest is dropped when a new one arrives.
        weight: share of games played against the pool once it holds a snapshot
            (the rest follow ``opponents.mix``); 1.0 = pure self-play.
        sampling: which snapshot a game gets: ``uniform`` over the pool, ``latest``
            always the newest, ``recent`` the k-th newest with weight ``decay**k``.
        decay: the ``recent`` sampling's decay per snapshot of age (0 < decay <= 1).
        deterministic: snapshots play their most likely action instead of sampling.
    """

    enabled: bool = False
    snapshot_every: int = 50_000
    pool_size: int = 5
    weight: float = 0.5
    sampling: Literal["uniform", "latest", "recent"] = "uniform"
    decay: float = 0.7
    deterministic: bool = False

    def __post_init__(self) -> None:
        _positive(self, "snapshot_every", "pool_size")
        if not 0.0 <= self.weight <= 1.0:
            raise ConfigError(f"opponents.selfplay.weight must be in [0, 1], got {self.weight}")
        if not 0.0 < self.decay <= 1.0:
            raise ConfigError(f"opponents.selfplay.decay must be in (0, 1], got {self.decay}")


@dataclass(frozen=True)
class LeagueConfig:
    """League training: prioritized fictitious self-play over a population of opponents.

    The population is the reference players of ``bots``, frozen snapshots of the learner
    and exploiters trained against it; each game draws its opponent with a probability
    that grows with how often that opponent beats the learner (``agents.training.league``).
    With the league enabled, ``opponents.mix`` and ``opponents.selfplay`` must stay off.

    Attributes:
        enabled: train against the league instead of ``opponents.mix``.
        bots: reference player -> prior weight (>= 0): bot names, shipped model names or
            model paths, as in ``mix``; the weight multiplies the player's priority.
        snapshot_every: environment steps between two snapshots of the learner added to
            the league (0: no snapshots).
        snapshots: snapshots kept; the oldest is dropped when a new one arrives.
        snapshot_weight: prior weight of each snapshot.
        exploiter_every: environment steps between two exploiters (0: none). An exploiter
            is a MaskablePPO agent trained for ``exploiter_steps`` against a frozen copy of
            the learner (in the run's ``exploiters/`` folder), then added to the league.
        exploiter_steps: training steps of each exploiter.
        exploiter_init: ``learner`` (an exploiter starts from the learner's weights) or
            ``fresh`` (a new network).
        exploiters: exploiters kept; the oldest is dropped when a new one arrives.
        exploiter_weight: prior weight of each exploiter.
        weighting: the priority of an opponent whom the learner scores ``x`` against
            (hands won plus half the drawn ones, over its last ``window`` hands):
            ``hard`` ``(1 - x) ** exponent``, ``variance`` ``4 x (1 - x)``, ``uniform`` 1.
        exponent: the ``hard`` weighting's exponent (> 0).
        window: hands per opponent that its win rate is measured over.
        prior_hands: pseudo-hands at ``x = 0.5`` added to each opponent's record, so a new
            opponent starts at an even score.
        floor: the smallest priority an opponent gets (in 0..1), so none is dropped.
        deterministic: snapshots and exploiters play their most likely action.
    """

    enabled: bool = False
    bots: dict[str, float] = field(default_factory=dict)
    snapshot_every: int = 200_000
    snapshots: int = 5
    snapshot_weight: float = 1.0
    exploiter_every: int = 0
    exploiter_steps: int = 200_000
    exploiter_init: Literal["learner", "fresh"] = "learner"
    exploiters: int = 2
    exploiter_weight: float = 1.0
    weighting: Literal["hard", "variance", "uniform"] = "hard"
    exponent: float = 2.0
    window: int = 1000
    prior_hands: int = 20
    floor: float = 0.05
    deterministic: bool = False

    def __post_init__(self) -> None:
        where = "opponents.league."
        for name, weight in self.bots.items():
            if weight < 0:
                raise ConfigError(f"{where}bots.{name} must be >= 0, got {weight}")
        for name in ("snapshot_weight", "exploiter_weight"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{where}{name} must be >= 0, got {getattr(self, name)}")
        for name in ("snapshot_every", "exploiter_every", "prior_hands"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{where}{name} must be >= 0, got {getattr(self, name)}")
        _positive(self, "snapshots", "exploiter_steps", "exploiters", "exponent", "window")
        if not 0.0 <= self.floor <= 1.0:
            raise ConfigError(f"{where}floor must be in [0, 1], got {self.floor}")
        if not self.enabled:
            return
        members = sum(self.bots.values()) > 0 or (
            self.snapshot_every > 0 and self.snapshot_weight > 0
        )
        if not members:
            raise ConfigError(
                f"{where}bots needs a positive weight (or snapshots: snapshot_every > 0 "
                "and snapshot_weight > 0)"
            )


@dataclass(frozen=True)
class OpponentConfig:
    """Who the agent plays during training.

    Attributes:
        mix: opponent -> sampling weight. An opponent is a registered policy name
            (``random``, ``simple``, ``expert``), a shipped model name or a path to a
            MaskablePPO ``.zip``. Each game slot draws its opponent from these weights,
            again at every episode end.
        selfplay: the self-play pool (see ``SelfPlayConfig``).
        league: league training (see ``LeagueConfig``); it replaces ``mix`` and
            ``selfplay``.
    """

    mix: dict[str, float] = field(default_factory=lambda: {"simple": 1.0})
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    league: LeagueConfig = field(default_factory=LeagueConfig)

    def __post_init__(self) -> None:
        for name, weight in self.mix.items():
            if weight < 0:
                raise ConfigError(f"opponents.mix.{name} must be >= 0, got {weight}")
        if self.league.enabled:
            if self.mix or self.selfplay.enabled:
                raise ConfigError(
                    "opponents.league replaces opponents.mix and opponents.selfplay: set "
                    "opponents.mix: {} and leave opponents.selfplay.enabled false (the "
                    "league's reference players are opponents.league.bots)"
                )
            return
        if sum(self.mix.values()) <= 0 and not self.selfplay.enabled:
            raise ConfigError(
                "opponents.mix needs a positive weight (or enable opponents.selfplay)"
            )
        if sum(self.mix.values()) <= 0 and self.selfplay.weight < 1.0:
            raise ConfigError(
                "opponents.mix is empty, so opponents.selfplay.weight must be 1.0 "
                f"(got {self.selfplay.weight})"
            )


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO hyperparameters (names as in Stable-Baselines3) and the network.

    Attributes:
        n_envs: games played in parallel by the batched VecEnv.
        n_steps: steps per game per rollout (a rollout is ``n_envs * n_steps`` steps).
        batch_size: minibatch size of the PPO update.
        n_epochs: passes over each rollout.
        learning_rate: Adam step size (at the start, for the ``linear`` schedule).
        lr_schedule: ``constant``, or ``linear`` decay to 0 over ``total_timesteps``.
        gamma: discount factor.
        gae_lambda: GAE smoothing.
        clip_range: PPO clipping of the probability ratio.
        ent_coef: entropy bonus weight.
        vf_coef: value loss weight.
        max_grad_norm: gradient clipping norm.
        target_kl: stop an update's epochs early past this KL (``null``: never).
        normalize_advantage: normalize advantages per minibatch.
        policy: the network: ``mlp`` (SB3's ``MlpPolicy``: separate policy and value
            MLPs) or ``cards`` (``agents.training.card_net``: a card-grid trunk with
            per-card discard/knock logits).
        net_arch: hidden layer sizes of the policy and of the value network (``mlp``), or
            of the pickup and value heads (``cards``).
        card_channels: features per card of the ``cards`` network.
        card_blocks: residual blocks of the ``cards`` network.
        belief_coef: weight of the ``cards`` network's belief loss, which trains its card
            features to predict the opponent's unseen cards (0: off; needs
            ``env.privileged``, whose block holds the targets).
        activation: ``relu`` or ``tanh``.
        ortho_init: orthogonal weight initialisation (SB3's default).
        torch_threads: threads torch may use (2 speeds the update on an idle 2-core
            machine; the CLIs make OpenMP's idle threads sleep, not spin).
        device: torch device (``cpu``; ``auto`` picks a GPU when there is one).
        env_workers: processes stepping the games (1: the trainer's own; K > 1: K env
            worker processes of ``n_envs / K`` games each, see docs/workers.md).
    """

    n_envs: int = 256
    n_steps: int = 16
    batch_size: int = 512
    n_epochs: int = 4
    learning_rate: float = 1e-3
    lr_schedule: Literal["constant", "linear"] = "linear"
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    normalize_advantage: bool = True
    policy: Literal["mlp", "cards"] = "mlp"
    net_arch: tuple[int, ...] = (128, 128)
    card_channels: int = 32
    card_blocks: int = 3
    belief_coef: float = 0.0
    activation: Literal["relu", "tanh"] = "relu"
    ortho_init: bool = True
    torch_threads: int = 1
    device: str = "cpu"
    env_workers: int = 1

    def __post_init__(self) -> None:
        _positive(self, "n_envs", "n_steps", "batch_size", "n_epochs", "torch_threads")
        _positive(self, "env_workers")
        try:  # before any array of n_envs games is made
            check_fits(self.n_envs, game_bytes(self.n_steps), "ppo.n_envs")
        except ValueError as exc:
            raise ConfigError(f"{exc} games at ppo.n_steps {self.n_steps}") from None
        if self.n_envs % self.env_workers:
            raise ConfigError(
                f"ppo.n_envs ({self.n_envs}) must be divisible by ppo.env_workers "
                f"({self.env_workers}): each worker steps n_envs / env_workers games"
            )
        _positive(self, "card_channels", "card_blocks")
        if self.belief_coef < 0:
            raise ConfigError(f"ppo.belief_coef must be >= 0, got {self.belief_coef}")
        _positive(self, "learning_rate", "clip_range", "max_grad_norm")
        if self.batch_size > self.n_envs * self.n_steps:
            raise ConfigError(
                f"ppo.batch_size ({self.batch_size}) must be <= ppo.n_envs * ppo.n_steps "
                f"({self.n_envs * self.n_steps})"
            )
        for name in ("gamma", "gae_lambda"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"ppo.{name} must be in [0, 1], got {getattr(self, name)}")
        if not self.net_arch or min(self.net_arch) < 1:
            raise ConfigError(f"ppo.net_arch must list positive sizes, got {list(self.net_arch)}")

    @property
    def rollout_steps(self) -> int:
        """Environment steps per rollout (``n_envs * n_steps``)."""
        return self.n_envs * self.n_steps


@dataclass(frozen=True)
class EvalConfig:
    """Periodic evaluation against fixed opponents with ``agents.evaluation``.

    Attributes:
        every_steps: environment steps between evaluations (0: only at the end).
        opponents: who to evaluate against (names or model paths, as in ``mix``).
        n_series: full Hollywood series per opponent (0: none).
        n_hands: single hands per opponent (0: none).
        max_hands_per_series: a series still running after this many hands is abandoned
            (counted unfinished), so an agent that rarely knocks cannot stall training.
        seed: evaluation seed: the same deals at every evaluation, so curves compare.
        deterministic: the agent plays its most likely action when evaluated.
        best_metric: the metric, averaged over ``opponents``, that picks
            ``best_model.zip``: ``hand_win_rate``, ``series_win_rate`` or
            ``points_per_hand``.
    """

    every_steps: int = 50_000
    opponents: tuple[str, ...] = ("random", "simple")
    n_series: int = 10
    n_hands: int = 400
    max_hands_per_series: int = 30
    seed: int = 1_000_000
    deterministic: bool = True
    best_metric: Literal["hand_win_rate", "series_win_rate", "points_per_hand"] = "hand_win_rate"

    def __post_init__(self) -> None:
        _positive(self, "max_hands_per_series")
        if not self.opponents:
            raise ConfigError("eval.opponents must name at least one opponent")
        for name in ("every_steps", "n_series", "n_hands", "seed"):
            if getattr(self, name) < 0:
                raise ConfigError(f"eval.{name} must be >= 0, got {getattr(self, name)}")
        if self.n_series == 0 and self.n_hands == 0:
            raise ConfigError("eval.n_series and eval.n_hands cannot both be 0")
        if self.best_metric == "series_win_rate" and self.n_series == 0:
            raise ConfigError("eval.best_metric is series_win_rate but eval.n_series is 0")


@dataclass(frozen=True)
class CheckpointConfig:
    """Checkpoints for ``--resume``.

    Attributes:
        every_steps: environment steps between checkpoints (0: only at the end and on
            Ctrl-C).
        keep: newest checkpoints kept in ``checkpoints/`` (older ones are deleted).
    """

    every_steps: int = 100_000
    keep: int = 2

    def __post_init__(self) -> None:
        if self.every_steps < 0:
            raise ConfigError(f"checkpoint.every_steps must be >= 0, got {self.every_steps}")
        _positive(self, "keep")


@dataclass(frozen=True)
class PretrainConfig:
    """What a fresh run does before PPO (see the module docstring).

    Attributes:
        init_from: a shipped model name or a MaskablePPO ``.zip`` whose network weights
            the run starts from (``null``: a freshly initialised network).
        teacher: a bot name or model to imitate first (``null``: no imitation).
        samples: the agent's decisions recorded from the teacher's play.
        epochs: passes over the recorded decisions.
        batch_size: minibatch size of the imitation updates.
        learning_rate: Adam step size of the imitation updates.
        value_coef: weight of the value loss (fit to the recorded returns).
        value_only: fit only the value head to the returns (the policy, its trunk and
            the teacher's actions are left alone): a critic warm-up for a network
            started by ``init_from`` whose value head does not fit this run's returns.
    """

    init_from: str | None = None
    teacher: str | None = None
    samples: int = 200_000
    epochs: int = 3
    batch_size: int = 1024
    learning_rate: float = 1e-3
    value_coef: float = 0.5
    value_only: bool = False

    def __post_init__(self) -> None:
        for name in ("samples", "epochs", "batch_size", "learning_rate"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"pretrain.{name} must be > 0, got {getattr(self, name)}")
        if self.value_coef < 0:
            raise ConfigError(f"pretrain.value_coef must be >= 0, got {self.value_coef}")
        if self.value_only and self.teacher is None:
            raise ConfigError(
                "pretrain.value_only needs pretrain.teacher: the play whose returns the "
                "value head is fitted to"
            )

    @property
    def active(self) -> bool:
        """True when there is anything to do."""
        return self.init_from is not None or self.teacher is not None


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run needs; saved as ``runs/<name>/config.yaml``.

    Attributes:
        experiment: run name prefix: ``runs/<experiment>__<seed>__<time>/``.
        seed: seeds the games, the opponents' sampling, torch and the evaluation order.
        total_timesteps: environment steps (the agent's decisions) to train for.
        runs_dir: folder holding the run folders.
        progress_bar: show a progress bar (steps, fps, latest evaluation).
        stats_window: finished hands averaged by the ``charts/`` curves.
        rules: the rules Options (``hgin_env.engine.RulesConfig``).
        env: the environment options (``hgin_env.envs.EnvConfig``).
        opponents: the training opponents.
        ppo: MaskablePPO settings.
        eval: periodic evaluation.
        checkpoint: checkpointing.
        pretrain: what a fresh run does before PPO (start weights, imitation).
    """

    experiment: str = "default"
    seed: int = 0
    total_timesteps: int = 400_000
    runs_dir: str = "runs"
    progress_bar: bool = True
    stats_window: int = 2000
    rules: RulesConfig = field(default_factory=RulesConfig)
    env: EnvConfig = field(default_factory=EnvConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)

    def __post_init__(self) -> None:
        _positive(self, "total_timesteps", "stats_window")
        if self.seed < 0:
            raise ConfigError(f"seed must be >= 0, got {self.seed}")
        if not self.experiment or "/" in self.experiment or "__" in self.experiment:
            raise ConfigError(
                "experiment must be a non-empty name without '/' or '__', got "
                f"{shown(self.experiment)}"
            )
        try:
            size = len(self.experiment.encode("utf-8"))
        except UnicodeEncodeError:
            raise ConfigError("experiment must be valid UTF-8 text") from None
        if size > MAX_EXPERIMENT_BYTES:
            raise ConfigError(
                f"experiment is {size} bytes long; it is at most {MAX_EXPERIMENT_BYTES} bytes "
                "(the run folder adds __<seed>__<time>, and a folder name is at most 255)"
            )
        if self.env.privileged and self.ppo.policy != "cards":
            raise ConfigError(
                "env.privileged needs ppo.policy: cards (only its actor ignores the hidden "
                f"information), got ppo.policy: {self.ppo.policy}"
            )
        if self.ppo.belief_coef and not (self.env.privileged and self.ppo.policy == "cards"):
            raise ConfigError(
                "ppo.belief_coef > 0 needs ppo.policy: cards and env.privileged: true (the "
                "privileged block holds the opponent's hand it learns to predict)"
            )
        try:
            rules_mix(self.rules, self.env)  # the mix's entries against this run's rules
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        _check_policies(self)

    def to_dict(self) -> dict[str, Any]:
        """The config as plain dicts and lists (what ``config.yaml`` holds)."""
        return to_plain(self)

    def to_yaml(self) -> str:
        """The config as YAML text, sections in declaration order."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=False)


def _check_policies(config: TrainConfig) -> None:
    """Raise ``ConfigError`` for a policy name or model path that names nothing.

    Checked without loading anything (``agents.policies.model.policy_problem``): bot and
    shipped model names, and model files that exist, pass.
    """
    named = [(f"opponents.mix.{name}", name) for name in config.opponents.mix]
    named += [(f"opponents.league.bots.{name}", name) for name in config.opponents.league.bots]
    named += [(f"eval.opponents[{i}]", name) for i, name in enumerate(config.eval.opponents)]
    if config.pretrain.teacher is not None:
        named.append(("pretrain.teacher", config.pretrain.teacher))
    for where, name in named:
        problem = policy_problem(name)
        if problem is not None:
            raise ConfigError(f"{where}: {problem}")
    if config.pretrain.init_from is not None:
        problem = policy_problem(config.pretrain.init_from, model_only=True)
        if problem is not None:
            raise ConfigError(
                f"pretrain.init_from: {problem} (a resumed run does not use it: "
                "--set pretrain.init_from=null)"
            )


def _positive(obj: Any, *names: str) -> None:
    """Raise ``ConfigError`` unless each named field is > 0."""
    section = _SECTIONS.get(type(obj).__name__, "")
    for name in names:
        value = getattr(obj, name)
        if value <= 0:
            raise ConfigError(f"{section}{name} must be > 0, got {value}")


_SECTIONS = {
    "SelfPlayConfig": "opponents.selfplay.",
    "LeagueConfig": "opponents.league.",
    "OpponentConfig": "opponents.",
    "PPOConfig": "ppo.",
    "EvalConfig": "eval.",
    "CheckpointConfig": "checkpoint.",
    "TrainConfig": "",
}


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with the nesting depth and the expanded size bounded.

    The size counts every value once per place it appears, an alias counting all the
    values of the node it repeats, so the nested aliases of a "billion laughs" are
    refused before anything copies them out. An alias inside the node it names (a
    recursive structure) is refused too.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._values = 0
        self._sizes: dict[int, int] = {}  # id(node) -> values it expands to
        self._open: set[str] = set()  # anchors of the nodes being composed

    def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: D102 - PyYAML's hook
        event = self.peek_event()
        anchor = event.anchor
        if isinstance(event, yaml.AliasEvent):
            if anchor in self._open:
                raise _limit(f"the alias *{anchor} repeats a value that holds it")
            node = super().compose_node(parent, index)
            self._add(self._size(node))
            return node
        self._depth += 1
        if self._depth > YAML_MAX_DEPTH:
            raise _limit(f"it is nested over {YAML_MAX_DEPTH} levels deep")
        if anchor is not None:
            self._open.add(anchor)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open.discard(anchor or "")
        self._add(1)
        return node

    def _add(self, values: int) -> None:
        self._values += values
        if self._values > YAML_MAX_VALUES:
            raise _limit(
                f"it expands to over {YAML_MAX_VALUES:,} values (aliases count what they repeat)"
            )

    def _size(self, node: Any) -> int:
        """The values ``node`` expands to (memoised: each node is counted once here)."""
        known = self._sizes.get(id(node))
        if known is not None:
            return known
        size = 1
        if isinstance(node, yaml.SequenceNode):
            size += sum(self._size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            size += sum(self._size(k) + self._size(v) for k, v in node.value)
        self._sizes[id(node)] = size
        return size


class _YamlLimitError(yaml.YAMLError):
    """A YAML document past ``YAML_MAX_DEPTH`` or ``YAML_MAX_VALUES``."""


def _limit(reason: str) -> _YamlLimitError:
    return _YamlLimitError(f"refused: {reason}")


def _one_line(exc: Exception) -> str:
    """PyYAML's message (several lines, with a snippet of the text) on one bounded line."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def safe_yaml(text: str) -> Any:
    """``yaml.safe_load`` with the nesting depth and the alias expansion bounded.

    Raises:
        yaml.YAMLError: not YAML, or past ``YAML_MAX_DEPTH`` / ``YAML_MAX_VALUES`` (the
            message says which).
    """
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def parse_override(text: str) -> tuple[str, Any]:
    """Split ``"ppo.learning_rate=1e-4"`` into the dotted key and the YAML-parsed value.

    Raises:
        ConfigError: when there is no ``=`` or no key.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(
            f"--set expects key=value (like ppo.learning_rate=1e-4), got {shown(text)}"
        )
    try:
        value = safe_yaml(raw) if raw.strip() else None
    except _YamlLimitError as exc:
        raise ConfigError(f"--set {shown(key)}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(
            f"--set {shown(key)}: cannot parse value {shown(raw)} ({_one_line(exc)})"
        ) from None
    return key, value


def read_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping from a file.

    Raises:
        ConfigError: when the file is missing, is not YAML or not a mapping (the message
            does not repeat the path; ``load_config`` puts it in front).
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError("no such config file")
    try:
        data = safe_yaml(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not a YAML text file (not UTF-8: {exc.reason})") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read it ({exc.strerror or exc})") from exc
    except _YamlLimitError as exc:
        raise ConfigError(str(exc)) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {_one_line(exc)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"a config file must hold a mapping of fields, got {shown(data)}")
    return data


def build_config(
    data: Mapping[str, Any] | None = None,
    overrides: Iterable[str] = (),
    **fields: Any,
) -> TrainConfig:
    """Build a ``TrainConfig`` from a mapping, ``key=value`` overrides and keyword fields.

    Args:
        data: the mapping (a YAML file's content), or None for the defaults.
        overrides: ``"dotted.key=value"`` strings applied in order on top of ``data``.
        **fields: top-level fields set last (``seed=3``); None values are ignored.

    Raises:
        ConfigError: naming the first field that is unknown or invalid.
    """
    merged: dict[str, Any] = _deep_copy(dict(data or {}))
    for text in overrides:
        key, value = parse_override(text)
        set_dotted(merged, key, value)
    for key, value in fields.items():
        if value is not None:
            merged[key] = value
    return from_mapping(TrainConfig, merged)


def load_config(
    path: str | Path | None = None,
    overrides: Iterable[str] = (),
    **fields: Any,
) -> TrainConfig:
    """Read a YAML config (default: ``configs/default.yaml``) and apply overrides.

    ``path`` may also be a named config (``vs_simple``: ``configs/vs_simple.yaml``) or a
    shipped model's name (``ppo-cards``: its ``models/<name>/config.yaml``, the exact
    config that trained it).

    Raises:
        ConfigError: on a missing file, bad YAML, or an unknown or invalid field.
    """
    path = DEFAULT_CONFIG if path is None else shipped_config(Path(path))
    try:
        return build_config(read_yaml(path), overrides, **fields)
    except ConfigError as exc:
        raise ConfigError(f"{_shown(path)}: {exc}") from exc


def shipped_config(path: Path) -> Path:
    """The config ``path`` names when it is no file: a named config, or a shipped model's.

    ``vs_simple`` is ``configs/vs_simple.yaml``; ``ppo-cards`` is
    ``models/ppo-cards/config.yaml``; anything else is returned as it is.
    """
    if path.exists() or len(path.parts) != 1:
        return path
    for candidate in (CONFIGS_DIR / f"{path.name}.yaml", MODELS_DIR / path.name / "config.yaml"):
        if candidate.is_file():
            return candidate
    return path


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def save_config(config: TrainConfig, path: str | Path) -> None:
    """Write the resolved config as YAML (loading it back gives an equal config)."""
    Path(path).write_text(config.to_yaml())


def replace(config: TrainConfig, **changes: Any) -> TrainConfig:
    """``dataclasses.replace`` for the top level (re-validated)."""
    return dataclasses.replace(config, **changes)


def _deep_copy(data: Any) -> Any:
    if isinstance(data, Mapping):
        return {k: _deep_copy(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_deep_copy(v) for v in data]
    return data

"""The training opponents: the configured mix of bots and models plus the self-play pool.

All of them sit in one ``MixturePolicy`` (``agents.policies.mixture``), the single opponent the
batched VecEnv holds. Its slots are the ``opponents.mix`` entries with a positive weight,
then ``opponents.selfplay.pool_size`` pool slots. A game draws its opponent when its
episode starts; the probabilities are

- before the first snapshot: ``mix`` weights, normalized;
- after: the pool as a whole gets ``selfplay.weight`` (shared among the snapshots as
  ``selfplay.sampling`` says) and the mix the remaining ``1 - weight``.

``attach`` connects the mixture to the VecEnv (see its docstring). With a single
opponent and no self-play the env holds that opponent itself (``policy``), which spares
the routing and keeps a keyed bot's per-game random streams.

With env workers (``ppo.env_workers > 1``) every worker plays its own shard of the
mixture; a change to it (a new snapshot, new weights) goes through ``apply``, which the
env broadcasts to every worker, and the trainer's mixture mirrors the workers'
assignments for the statistics.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np

from agents.policies.mixture import MixturePolicy
from agents.policies.model import load_policy
from agents.policies.torch_policy import TorchPolicy
from agents.training.config import OpponentConfig
from agents.training.league import League, snapshot_config
from agents.training.selfplay import SnapshotPool, load_snapshot
from hgin_env.engine.keys import SeedStream, sub_seed


class TrainingOpponents:
    """The mixture of training opponents and the self-play pool behind it.

    Attributes:
        policy: what the VecEnv holds as its opponent: the mixture, or the only
            opponent when there is one and no self-play.
        mixture: the ``MixturePolicy`` over every opponent slot.
        pool: the ``SnapshotPool`` (None without self-play).

    Args:
        config: the opponents section.
        n_games: games in the VecEnv.
        pool_dir: the run's ``pool/`` folder.
        seed: seeds the bots, the snapshots and the assignment stream.
    """

    def __init__(self, config: OpponentConfig, n_games: int, pool_dir: Path, seed: int) -> None:
        self.config = config
        league = config.league if config.league.enabled else None
        mix = league.bots if league is not None else config.mix
        self.bot_names = [name for name, w in mix.items() if w > 0]
        self.bot_weights = np.array([mix[name] for name in self.bot_names], dtype=float)
        bots = [
            load_policy(name, sub_seed(seed, SeedStream.TRAINING_BOT, i))
            for i, name in enumerate(self.bot_names)
        ]
        selfplay = snapshot_config(league) if league is not None else config.selfplay
        self.snapshot_every = selfplay.snapshot_every
        self.pool = SnapshotPool(selfplay, pool_dir, seed) if selfplay.enabled else None
        self.league = (
            League(league, dict(zip(self.bot_names, self.bot_weights, strict=True)))
            if league
            else None
        )
        n_pool = selfplay.pool_size if self.pool is not None else 0
        n_exploiters = league.exploiters if league is not None and league.exploiter_every else 0
        #: the league's exploiters in their slots (after the pool's):
        #: ``(steps, name, policy, file relative to the run folder)``
        self.exploiters: list[tuple[int, str, Any, str] | None] = [None] * n_exploiters
        self.run_dir = pool_dir.parent
        names = self.bot_names + [f"pool{k}" for k in range(n_pool)]
        names += [f"exploiter{k}" for k in range(n_exploiters)]
        weights = self._weights()
        if weights.sum() == 0:  # pure self-play: the pool is empty until the first snapshot
            weights = np.ones_like(weights)
        policies = bots + [None] * (n_pool + n_exploiters)
        self.mixture = MixturePolicy(policies, names, weights, n_games, seed=seed)
        self.single = self.pool is None and self.n_bots == 1 and self.league is None
        self.policy = bots[0] if self.single else self.mixture
        #: ``apply(fn, *args)`` runs ``fn(mixture, *args)`` on the mixture(s) that play
        self.apply: Callable[..., Any] = lambda fn, *args: [fn(self.mixture, *args)]

    @property
    def n_bots(self) -> int:
        """Number of mix slots (they come first in the mixture)."""
        return len(self.bot_names)

    @property
    def n_pool(self) -> int:
        """Number of pool slots (after the mix slots)."""
        return len(self.pool.slots) if self.pool is not None else 0

    def members(self) -> list[tuple[str, str] | None]:
        """Per mixture slot: ``(name, kind)`` of the opponent in it, or None while empty.

        ``kind`` is ``bot`` (a mix or league reference player), ``snapshot`` or
        ``exploiter``.
        """
        out: list[tuple[str, str] | None] = [(name, "bot") for name in self.bot_names]
        if self.pool is not None:
            out += [None if s is None else (s.name, "snapshot") for s in self.pool.slots]
        out += [None if e is None else (e[1], "exploiter") for e in self.exploiters]
        return out

    def member(self, slot: int) -> tuple[str, str] | None:
        """``members()[slot]``, None for slot -1 (no opponent move in the episode)."""
        return None if slot < 0 else self.members()[slot]

    def _weights(self) -> np.ndarray:
        """Sampling weight of every mixture slot (see the module docstring)."""
        if self.league is not None:
            return self.league.weights(self.members())
        bots = self.bot_weights / self.bot_weights.sum() if self.n_bots else self.bot_weights
        if self.pool is None:
            return bots
        pool = self.pool.slot_weights()
        if not len(self.pool):
            return np.concatenate([bots, pool])
        share = self.config.selfplay.weight if self.n_bots else 1.0
        return np.concatenate([bots * (1.0 - share), pool * share])

    def update_weights(self) -> None:
        """Recompute the sampling weights (the league's records change them) and apply them."""
        weights = self._weights()
        if weights.sum() > 0:
            self.apply(_set_weights, weights)

    def add_exploiter(self, path: Path, steps: int) -> str:
        """Put the exploiter model ``path`` into the league (replacing the oldest); its name."""
        assert self.league is not None and self.exploiters
        if None in self.exploiters:
            slot = self.exploiters.index(None)
        else:
            full = cast(list[tuple[int, str, Any, str]], self.exploiters)
            slot = min(range(len(full)), key=lambda i: full[i][0])
            self.league.forget(full[slot][1])
        name = f"exploiter@{steps}"
        rel = str(path.relative_to(self.run_dir))
        policy = self._exploiter_policy(path, steps, name)
        self.exploiters[slot] = (steps, name, policy, rel)
        current = sorted(e for e in self.exploiters if e is not None)
        self.league.exploiter_files = [e[3] for e in current]
        index = self.n_bots + self.n_pool + slot
        self.apply(install_policy, index, policy, name, self._weights(), False)
        return name

    def _exploiter_policy(self, path: Path, steps: int, name: str) -> TorchPolicy:
        assert self.league is not None
        return TorchPolicy(
            load_snapshot(path),
            deterministic=self.league.config.deterministic,
            seed=sub_seed(self.mixture.seed, SeedStream.EXPLOITER, steps),
            name=name,
        )

    def needs_initial_snapshot(self) -> bool:
        """True when only the pool can supply opponents and it is still empty."""
        return self.pool is not None and self.n_bots == 0 and len(self.pool) == 0

    def add_snapshot(self, model: Any) -> str:
        """Snapshot ``model`` into the pool and update the mixture; returns its name."""
        if self.pool is None:
            raise ValueError("add_snapshot needs opponents.selfplay.enabled")
        slot, snap = self.pool.add(model)
        first = self.n_bots == 0 and len(self.pool) == 1  # leave the empty slots at once
        weights = self._weights()
        self.apply(install_policy, self.n_bots + slot, snap.policy, snap.name, weights, first)
        return snap.name

    def restore_pool(self, run_dir: Path, files: list[str], league: dict | None = None) -> None:
        """Rebuild the pool (and the league) from a checkpoint's state (``--resume``).

        Args:
            run_dir: the run folder.
            files: the pool's snapshot files (``TrainState.pool``).
            league: the league's state (``TrainState.league``).
        """
        if self.league is not None:
            self.league.restore(league or {})
            for rel in (
                self.league.exploiter_files[-len(self.exploiters) :] if self.exploiters else []
            ):
                path, steps = run_dir / rel, _file_steps(rel)
                if not path.exists():
                    print(f"warning: league exploiter {path} is missing; continuing without it")
                    continue
                slot = self.exploiters.index(None)
                name = f"exploiter@{steps}"
                policy = self._exploiter_policy(path, steps, name)
                self.exploiters[slot] = (steps, name, policy, rel)
                self.mixture.set_policy(self.n_bots + self.n_pool + slot, policy, name)
        if self.pool is not None:
            self.pool.restore(run_dir, files)
            for slot, snap in enumerate(self.pool.slots):
                if snap is not None:
                    self.mixture.set_policy(self.n_bots + slot, snap.policy, snap.name)
        if (self.pool is not None or self.league is not None) and self._weights().sum() > 0:
            self.mixture.set_weights(self._weights())
            self.mixture.resample()

    def shares(self) -> dict[str, float]:
        """Share of games currently assigned to each mix entry and to the pool as a whole."""
        counts = self.mixture.counts().astype(float)
        total = max(counts.sum(), 1.0)
        out = {name: counts[i] / total for i, name in enumerate(self.bot_names)}
        if self.pool is not None:
            out["selfplay"] = counts[self.n_bots : self.n_bots + self.n_pool].sum() / total
        if self.exploiters:
            out["exploiter"] = counts[self.n_bots + self.n_pool :].sum() / total
        return out

    def group(self, slot: int) -> str:
        """A mixture slot's logging group: mix name, ``selfplay``, ``exploiter``, ``-`` (-1)."""
        member = self.member(slot)
        if member is None:
            return "-"
        return {"bot": member[0], "snapshot": "selfplay", "exploiter": "exploiter"}[member[1]]

    def opponent_slot(self, game: int, ended: bool) -> int:
        """The mixture slot of the opponent in ``game``'s current episode (-1: none).

        Args:
            game: the game index.
            ended: the episode just ended (the env has already begun the next one).
        """
        if self.single:
            return 0
        counter = self.mixture.episodes
        if counter is None:  # not following an env's episodes: the first draw holds
            return int(self.mixture.assignment[game])
        episode = int(counter()[game]) - int(ended)
        return int(self.mixture.opponent_of([game], [episode])[0])

    def opponent_group(self, game: int, ended: bool) -> str:
        """The logging group of the opponent in ``game``'s current episode."""
        return self.group(self.opponent_slot(game, ended))


def install_policy(
    mixture: MixturePolicy,
    slot: int,
    policy: Any,
    name: str,
    weights: np.ndarray,
    resample: bool,
) -> None:
    """Put ``policy`` in a mixture slot, set the weights, and redraw every game if asked."""
    mixture.set_policy(slot, policy, name)
    mixture.set_weights(weights)
    if resample:
        mixture.resample()


def _set_weights(mixture: MixturePolicy, weights: np.ndarray) -> None:
    """Set a mixture's sampling weights (from its next draw on)."""
    mixture.set_weights(weights)


def _file_steps(rel: str) -> int:
    """The step count in a league file name (``exploiters/exploiter_<steps>/...``)."""
    return int(Path(rel).parent.name.split("_")[-1])


def attach(vec_env: Any, mixture: MixturePolicy) -> Callable[..., Any]:
    """Let each game of ``vec_env`` face its own opponent from ``mixture``.

    ``vec_env`` is a ``HollywoodGinVecEnv`` built with ``mixture`` as its opponent. The
    env passes each batched ``act`` call the game indices it covers (``rows``), and the
    mixture follows the core's public per-game episode counter (``core.episodes``) to
    redraw a game's opponent once per episode. With env workers each worker's shard of
    the mixture follows its own core, and ``mixture`` mirrors their assignments.

    Returns:
        ``apply(fn, *args)``: runs ``fn(m, *args)`` on every mixture ``m`` that plays
        (``mixture`` itself, or each worker's shard; ``fn`` module-level).

    Raises:
        RuntimeError: when the VecEnv does not have the expected core.
    """
    if getattr(vec_env, "workers", 1) > 1:
        vec_env.for_each_core(_follow_episodes)
        mixture.mirror(vec_env.opponent_state(), lambda: vec_env.episodes)
        return lambda fn, *args: vec_env.for_each_core(_on_opponent, fn, *args)
    core = getattr(vec_env, "core", None)
    if core is None or core.opponent is not mixture or not hasattr(core, "episodes"):
        raise RuntimeError(
            "the training env must be a HollywoodGinVecEnv whose opponent is the mixture "
            "(with a per-game core.episodes counter); hgin_env.envs changed?"
        )
    mixture.follow_episodes(lambda: core.episodes)
    return lambda fn, *args: [fn(mixture, *args)]


def _follow_episodes(core: Any) -> None:
    """In a worker: its mixture follows its core's episode counter."""
    core.opponent.follow_episodes(lambda: core.episodes)


def _on_opponent(core: Any, fn: Callable[..., Any], *args: Any) -> Any:
    """In a worker: ``fn(opponent, *args)`` on its core's opponent."""
    return fn(core.opponent, *args)

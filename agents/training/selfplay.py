"""The self-play pool: frozen snapshots of the agent, kept on disk in ``runs/<name>/pool/``.

Every ``opponents.selfplay.snapshot_every`` steps the trainer adds a snapshot: the
model is saved (atomically) as ``pool/snapshot_<steps>.zip`` and a frozen copy of its
network plays as a ``TorchPolicy``. The pool holds at most ``pool_size`` snapshots; a new
one replaces the oldest, whose file is deleted once no checkpoint lists it (a resume
from a kept checkpoint finds its pool). Which snapshot a game faces follows
``sampling``: ``uniform``, ``latest`` (always the newest) or ``recent`` (the k-th newest
with weight ``decay**k``). On ``--resume`` the pool is rebuilt from the files the
checkpoint lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from agents.policies.model_zip import trust_folder
from agents.policies.saved import load_network
from agents.policies.torch_policy import TorchPolicy, frozen_copy
from agents.training.checkpoint import referenced_pool_files, save_model
from agents.training.config import SelfPlayConfig
from hgin_env.engine.keys import SeedStream, sub_seed


@dataclass
class Snapshot:
    """One pool entry: the step it was taken at, its file and its playing policy."""

    steps: int
    path: Path
    policy: TorchPolicy

    @property
    def name(self) -> str:
        """Display name: ``self@<steps>``."""
        return f"self@{self.steps}"


class SnapshotPool:
    """At most ``config.pool_size`` snapshots in fixed slots (a slot is reused when full).

    Args:
        config: the self-play options.
        folder: where snapshot files go (``runs/<name>/pool``).
        seed: seed of the snapshots' sampling streams.
    """

    def __init__(self, config: SelfPlayConfig, folder: Path, seed: int = 0) -> None:
        self.config = config
        self.folder = Path(folder)
        trust_folder(self.folder)  # the pool's own snapshots, which it reloads
        self.seed = seed
        self.slots: list[Snapshot | None] = [None] * config.pool_size

    def __len__(self) -> int:
        return sum(s is not None for s in self.slots)

    @property
    def snapshots(self) -> list[Snapshot]:
        """The snapshots, oldest first."""
        return sorted((s for s in self.slots if s is not None), key=lambda s: s.steps)

    def _free_slot(self) -> int:
        """The first empty slot, else the oldest snapshot's slot.

        The oldest snapshot's file is deleted unless a checkpoint in the run's
        ``checkpoints/`` lists it (``write_checkpoint`` deletes it once none does).
        """
        if None in self.slots:
            return self.slots.index(None)
        full = cast(list[Snapshot], self.slots)  # no empty slot left
        oldest = min(range(len(full)), key=lambda i: full[i].steps)
        path, run_dir = full[oldest].path, self.folder.parent
        if str(path.relative_to(run_dir)) not in referenced_pool_files(run_dir):
            path.unlink(missing_ok=True)
        return oldest

    def _policy(self, network: Any, steps: int) -> TorchPolicy:
        return TorchPolicy(
            network,
            deterministic=self.config.deterministic,
            seed=sub_seed(self.seed, SeedStream.SNAPSHOT, steps),
            name=f"self@{steps}",
        )

    def add(self, model: Any) -> tuple[int, Snapshot]:
        """Snapshot ``model`` now: save it to the pool folder and freeze its network.

        Returns:
            ``(slot, snapshot)``.
        """
        steps = int(model.num_timesteps)
        path = save_model(model, self.folder / f"snapshot_{steps:012d}.zip")
        slot = self._free_slot()
        snapshot = Snapshot(steps, path, self._policy(frozen_copy(model.policy), steps))
        self.slots[slot] = snapshot
        return slot, snapshot

    def restore(self, run_dir: Path, files: list[str]) -> None:
        """Load the snapshots listed in a checkpoint (paths relative to ``run_dir``).

        Missing files are skipped with a warning; other snapshot files are left alone.
        """
        self.slots = [None] * self.config.pool_size
        for rel in files[-self.config.pool_size :]:
            path = run_dir / rel
            if not path.exists():
                print(f"warning: self-play snapshot {path} is missing; continuing without it")
                continue
            steps = int(path.stem.split("_")[-1])
            slot = self.slots.index(None)
            self.slots[slot] = Snapshot(steps, path, self._policy(load_snapshot(path), steps))

    def files(self, run_dir: Path) -> list[str]:
        """The snapshot files relative to ``run_dir``, oldest first (for the checkpoint)."""
        return [str(s.path.relative_to(run_dir)) for s in self.snapshots]

    def slot_weights(self) -> np.ndarray:
        """float[pool_size]: each slot's sampling probability within the pool (sums to 1).

        All zeros while the pool is empty.
        """
        weights = np.zeros(len(self.slots))
        filled = [i for i, s in enumerate(self.slots) if s is not None]
        if not filled:
            return weights
        steps = {i: cast(Snapshot, self.slots[i]).steps for i in filled}
        by_age = sorted(filled, key=lambda i: -steps[i])  # newest first
        if self.config.sampling == "uniform":
            weights[filled] = 1.0
        elif self.config.sampling == "latest":
            weights[by_age[0]] = 1.0
        else:  # recent
            for k, i in enumerate(by_age):
                weights[i] = self.config.decay**k
        return weights / weights.sum()


def load_snapshot(path: str | Path) -> Any:
    """The network of a snapshot's MaskablePPO ``.zip``, read as data (CPU, eval mode).

    ``agents.policies.saved.load_network`` rebuilds it without SB3; ``TorchPolicy`` plays
    it with the logits of the network that was saved.

    Raises:
        agents.policies.model.PolicyLoadError: a missing, corrupt or mismatched file.
    """
    network, _, _ = load_network(path)
    return network

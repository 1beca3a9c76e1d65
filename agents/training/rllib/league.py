"""The league on RLlib: the driver keeps it, every env runner's mixture mirrors it.

``opponents.league`` means what it means on SB3 (``agents.training.league``): reference
players, snapshots of the learner every ``snapshot_every`` steps (the newest
``snapshots`` kept) and PFSP weights from the learner's recent scores against each
member. Exploiters (``exploiter_every``) are not trained here (refused by name).

The driver holds the one ``TrainingOpponents`` that decides (``LeagueDriver.opponents``),
with its ``apply`` routed to every env runner: each change to the mixture (a snapshot in
a slot, new weights) runs on the driver's mixture and, through Ray's object store (one
``ray.put`` of the change, fetched by each runner), on every env runner's. After each PPO
iteration the driver collects the env runners' hand records (``RLlibGinEnv.take_records``),
records them in the league, takes a snapshot when one is due (the learner's weights as a
MaskablePPO made by the SB3 side, ``bridge.snapshot_model``, saved to ``pool/`` like SB3's)
and re-weights. The league's state and the pool's files go into every checkpoint's
``TrainState``, so ``--resume`` restores them and sends them to the new env runners.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.training.checkpoint import TrainState
from agents.training.config import TrainConfig
from agents.training.opponents import TrainingOpponents, install_policy


def on_env_runners(algo: Any, fn: Callable[..., Any], *args: Any) -> list[Any]:
    """``fn(env, *args)`` in every env runner that steps a training env; the results.

    ``(fn, args)`` travel once through Ray's object store; each env runner fetches them.
    """
    import ray

    ref = ray.put((fn, args))

    def call(runner: Any) -> Any:
        env = getattr(getattr(runner, "env", None), "unwrapped", None)
        if not hasattr(env, "take_records"):
            return None  # the driver's env runner when remote ones sample
        f, a = ray.get(ref)
        return [f(env, *a)]

    out = algo.env_runner_group.foreach_env_runner(call, local_env_runner=True)
    return [r[0] for r in out if r is not None]


def _on_mixture(env: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    fn(env.opponents.mixture, *args)


def _take_records(env: Any) -> list[tuple[str, float]]:
    return env.take_records()


class LeagueDriver:
    """The league of an rllib run: records, snapshots and weights, sent to the env runners.

    Args:
        algo: the built RLlib Algorithm.
        config: the run's config (``opponents.league.enabled``).
        run_dir: the run folder (snapshots go to ``pool/``).
        state: the run's ``TrainState`` (restored from on resume; kept up to date).
        bridge: the SB3 side's ``snapshot_model`` (see ``backend.train``).
    """

    def __init__(
        self, algo: Any, config: TrainConfig, run_dir: Path, state: TrainState, bridge: Any
    ) -> None:
        self.algo, self.config, self.run_dir, self.state = algo, config, run_dir, state
        self.bridge = bridge
        self.opponents = TrainingOpponents(config.opponents, 1, run_dir / "pool", config.seed)
        assert self.opponents.league is not None
        self.league = self.opponents.league
        self.opponents.apply = self._apply
        self.opponents.restore_pool(run_dir, state.pool, state.league)
        weights = self.opponents.mixture.weights
        pool = self.opponents.pool
        for slot, snap in enumerate(pool.slots if pool is not None else []):
            if snap is not None:  # a resumed run's snapshots, to the new env runners
                index = self.opponents.n_bots + slot
                on_env_runners(algo, _on_mixture, install_policy,
                               (index, snap.policy, snap.name, weights, False))  # fmt: skip
        self.opponents.update_weights()

    def _apply(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        fn(self.opponents.mixture, *args)
        return on_env_runners(self.algo, _on_mixture, fn, args)

    def after_iteration(
        self, steps: int, weights: Callable[[], dict[str, np.ndarray]], network: dict[str, Any]
    ) -> dict[str, float]:
        """Record the hands, take a due snapshot, re-weight; the ``league/`` scalars to log.

        Args:
            steps: the run's steps now.
            weights: the learner's current module weights (called only for a snapshot).
            network: the run's ``network_spec``.
        """
        for records in on_env_runners(self.algo, _take_records):
            for name, score in records:
                self.league.record(name, score)
        pool, state = self.opponents.pool, self.state
        due = (
            pool is not None and steps - state.last_snapshot_steps >= self.opponents.snapshot_every
        )
        if due and steps < self.config.total_timesteps:  # none after the last iteration
            model = self.bridge.snapshot_model(network, weights(), steps)
            self.opponents.add_snapshot(model)
            state.last_snapshot_steps = steps
        self.opponents.update_weights()
        state.pool = pool.files(self.run_dir) if pool is not None else []
        state.league = self.league.state()
        out = {}
        probabilities = self.opponents.mixture.probabilities
        members = self.opponents.members()
        for slot, member in enumerate(members):
            if member is not None:
                out[f"league/score/{member[0]}"] = self.league.score(member[0])
                out[f"league/probability/{member[0]}"] = float(probabilities[slot])
        out["league/members"] = float(sum(m is not None for m in members))
        return out

"""League training: prioritized fictitious self-play (PFSP) over a population of opponents.

``opponents.league`` (``LeagueConfig``) makes the training opponents a population:

- the **reference players** of ``league.bots`` (bots, shipped models, model files);
- **snapshots**: frozen copies of the learner, one every ``league.snapshot_every`` steps,
  the newest ``league.snapshots`` kept (the self-play pool of
  ``agents.training.selfplay``, reused as it is);
- **exploiters**: every ``league.exploiter_every`` steps a fresh MaskablePPO agent is
  trained for ``league.exploiter_steps`` against a frozen copy of the learner
  (``agents.training.exploit``; started from the learner's weights or from scratch), and
  joins the population.

All of them sit in the one ``MixturePolicy`` of ``agents.training.opponents``, so a game
draws its opponent when its episode starts, env workers and resuming work as for the mix.
What changes is the sampling weights: after every rollout each member gets the priority
``f(x)`` of the learner's score ``x`` against it (hands won plus half the drawn ones, over
the member's last ``window`` hands, with ``prior_hands`` pseudo-hands at 0.5), times its
prior weight (the ``bots`` weight, ``snapshot_weight`` or ``exploiter_weight``):

==========  ====================  ============================================
weighting   f(x)                  effect
==========  ====================  ============================================
hard        (1 - x) ** exponent   the opponents that beat the learner most
variance    4 x (1 - x)           the opponents it is even with
uniform     1                     fictitious self-play (the priors alone)
==========  ====================  ============================================

No member's priority falls below ``floor``. The records (``League.state``) and the
exploiter files are saved with every checkpoint (``TrainState.league``), so a resumed run
samples as the stopped one would have. TensorBoard: ``league/score/<member>`` (the
learner's score against it), ``league/probability/<member>`` (its sampling probability)
and ``league/members``.
"""

from __future__ import annotations

import shutil
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.training.checkpoint import TrainState, save_model
from agents.training.config import LeagueConfig, SelfPlayConfig

if TYPE_CHECKING:
    from agents.training.config import TrainConfig
    from agents.training.opponents import TrainingOpponents

#: the kinds of league members (each has its own prior weight)
KINDS = ("bot", "snapshot", "exploiter")


def snapshot_config(league: LeagueConfig) -> SelfPlayConfig:
    """The self-play pool settings that hold the league's snapshots."""
    return SelfPlayConfig(
        enabled=league.snapshot_every > 0,
        snapshot_every=max(league.snapshot_every, 1),
        pool_size=league.snapshots,
        weight=1.0,
        deterministic=league.deterministic,
    )


class League:
    """The PFSP records of the league's members and the sampling weights they give.

    Args:
        config: the league options.
        bot_weights: reference player name -> prior weight.
    """

    def __init__(self, config: LeagueConfig, bot_weights: dict[str, float]) -> None:
        self.config = config
        self.bot_weights = dict(bot_weights)
        #: member name -> the learner's last ``window`` hand scores (1, 0.5 drawn, 0)
        self.records: dict[str, deque[float]] = {}
        #: exploiter files (relative to the run folder), oldest first
        self.exploiter_files: list[str] = []
        self.last_exploiter_steps = 0

    def record(self, name: str, score: float) -> None:
        """Add one hand of the learner against ``name`` (1 won, 0.5 drawn, 0 lost)."""
        if name not in self.records:
            self.records[name] = deque(maxlen=self.config.window)
        self.records[name].append(score)

    def forget(self, name: str) -> None:
        """Drop the record of a member that left the league."""
        self.records.pop(name, None)

    def score(self, name: str) -> float:
        """The learner's score against ``name`` (0.5 with no hands yet)."""
        hands = self.records.get(name, ())
        prior = self.config.prior_hands
        total = len(hands) + prior
        return (sum(hands) + 0.5 * prior) / total if total else 0.5

    def priority(self, name: str) -> float:
        """``f(score)`` of the configured weighting, at least ``floor``."""
        x = self.score(name)
        weighting = self.config.weighting
        if weighting == "hard":
            f = (1.0 - x) ** self.config.exponent
        elif weighting == "variance":
            f = x * (1.0 - x) * 4.0  # 1 at an even score, like the others at x = 0
        else:
            f = 1.0
        return max(f, self.config.floor)

    def prior(self, name: str, kind: str) -> float:
        """A member's prior weight: its ``bots`` weight, or the snapshot/exploiter weight."""
        if kind == "bot":
            return self.bot_weights[name]
        return self.config.snapshot_weight if kind == "snapshot" else self.config.exploiter_weight

    def weights(self, members: list[tuple[str, str] | None]) -> np.ndarray:
        """float[K]: the sampling weight of each mixture slot (0 for an empty slot).

        Args:
            members: per slot ``(name, kind)``, or None for an empty slot.
        """
        return np.array(
            [0.0 if m is None else self.prior(m[0], m[1]) * self.priority(m[0]) for m in members]
        )

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps: the records, the exploiter files and their schedule."""
        return {
            "records": {name: list(hands) for name, hands in self.records.items()},
            "exploiters": list(self.exploiter_files),
            "last_exploiter_steps": self.last_exploiter_steps,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Load ``state`` (a checkpoint's ``league`` entry; empty: a fresh league)."""
        window = self.config.window
        records = state.get("records", {})
        self.records = {name: deque(hands, maxlen=window) for name, hands in records.items()}
        self.exploiter_files = list(state.get("exploiters", []))
        self.last_exploiter_steps = int(state.get("last_exploiter_steps", 0))


def hand_score(hand_result: int) -> float:
    """The learner's score of one hand: 1 won, 0 lost, 0.5 drawn."""
    return 1.0 if hand_result > 0 else 0.0 if hand_result < 0 else 0.5


def train_exploiter(config: TrainConfig, run_dir: Path, model: Any) -> Path:
    """Train one exploiter against a frozen copy of ``model``; returns its model file.

    The learner is saved as ``exploiters/target_<steps>.zip``; the exploiter trains in
    ``exploiters/exploiter_<steps>/`` (a folder left by a stopped session is replaced) on
    the learner's env, rules and network settings (``agents.training.exploit``).

    Raises:
        KeyboardInterrupt: when the exploiter's training was interrupted.
    """
    from agents.training.exploit import best_response_config
    from agents.training.runner import train

    league = config.opponents.league
    steps = int(model.num_timesteps)
    folder = run_dir / "exploiters"
    target = save_model(model, folder / f"target_{steps:012d}.zip")
    name = f"exploiter_{steps:012d}"
    shutil.rmtree(folder / name, ignore_errors=True)
    init = str(target) if league.exploiter_init == "learner" else None
    exploiter = best_response_config(
        config, str(target), league.exploiter_steps, runs_dir=str(folder), init_from=init
    )
    print(f"\ntraining {name} against the learner at step {steps:,} ...")
    result = train(exploiter, run_name=name)
    if result.interrupted:
        raise KeyboardInterrupt
    target.unlink(missing_ok=True)
    return result.run_dir / "final_model.zip"


class LeagueCallback(BaseCallback):
    """Keeps the league's records, trains its exploiters and re-weights it every rollout.

    Args:
        opponents: the training opponents (their ``league`` is set).
        config: the whole training config.
        run_dir: the run folder.
        state: the run's ``TrainState`` (its ``league`` entry is kept up to date).
    """

    def __init__(
        self, opponents: TrainingOpponents, config: TrainConfig, run_dir: Path, state: TrainState
    ) -> None:
        super().__init__()
        self.opponents = opponents
        self.config = config
        self.run_dir = run_dir
        self.state = state
        assert opponents.league is not None
        self.league: League = opponents.league

    def _on_step(self) -> bool:
        infos, dones = self.locals["infos"], self.locals["dones"]
        for i, info in enumerate(infos):
            if info.get("hands_ended"):
                slot = self.opponents.opponent_slot(i, ended=bool(dones[i]))
                member = self.opponents.member(slot)
                if member is not None:
                    self.league.record(member[0], hand_score(int(info["hand_result"])))
        return True

    def _on_rollout_end(self) -> None:
        every = self.config.opponents.league.exploiter_every
        due = every and self.num_timesteps - self.league.last_exploiter_steps >= every
        if due and self.num_timesteps < self.config.total_timesteps:  # none after the last
            path = train_exploiter(self.config, self.run_dir, self.model)
            self.opponents.add_exploiter(path, int(self.num_timesteps))
            self.league.last_exploiter_steps = int(self.num_timesteps)
        self.opponents.update_weights()
        self.state.league = self.league.state()
        record = self.logger.record
        probabilities = self.opponents.mixture.probabilities
        members = self.opponents.members()
        for slot, member in enumerate(members):
            if member is not None:
                record(f"league/score/{member[0]}", self.league.score(member[0]))
                record(f"league/probability/{member[0]}", probabilities[slot])
        record("league/members", sum(m is not None for m in members))

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

from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.training.config import LeagueConfig, SelfPlayConfig

if TYPE_CHECKING:
    pass

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

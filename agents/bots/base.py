"""What every rule bot shares: its seed, its rules, its version, options and the ``act`` skeleton.

A bot subclasses ``Bot`` and writes two decisions, each for the rows of a batch in
that phase:

- ``_takes(obs, rows, keys)``: on the first-turn offer and in the draw phase, whether
  to take the top card (``bool[P]``); the rows that do not take draw from the stock or
  pass the upcard.
- ``_discards(obs, masks, rows, keys)``: in the discard phase, the action (a discard
  or a knock) of each row.

``act`` decodes the observations, draws the per-game keys (``keys`` when the
environment passes them, else one key per row from the bot's seeded stream), and calls
the two decisions on their rows. Every random number of a decision comes from its
row's key (``agents.bots.features.key_uniforms``), so a game plays the same alone or
in a batch.

**Versions.** A bot's ``name`` with its ``version`` names its play exactly
(``simple@2``): a bot whose play changes gets a new version, and the old one stays
reachable by its versioned name (``agents.registry``).

**Options.** A bot's tunable parameters are the fields of its ``Params`` dataclass;
those listed in ``OPTIONS`` (name -> inclusive range) may also be set in its name,
``patient:knock_turns=4,knock_deadwood=2`` (``parse_options``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from agents.bots.features import decision_keys
from hgin_env.engine.actions import DRAW, PASS, TAKE
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.options import from_text
from hgin_env.envs.observation import DecodedObservation, decode_observations
from hgin_env.envs.spec import split_items


@dataclasses.dataclass(frozen=True)
class NoParams:
    """The parameters of a bot that has none."""


class Bot:
    """A batched rule bot: one ``act`` call decides for a whole batch of games.

    Args:
        seed: seed of the random stream used when ``act`` gets no per-game keys.
        rules: the rules it plays under; default ``RulesConfig()``. A game's knock
            limit and bonuses come per row from the observation's rules block; what one
            batch shares (``allow_rediscard``) comes from here.
        params: the strategy's parameters (default ``Params()``).

    Attributes:
        name: the registered name.
        version: the version of its play (a change of play is a new version).
        Params: the dataclass of its parameters.
        OPTIONS: the parameters settable in a name, with their inclusive ranges.
    """

    name: ClassVar[str] = "bot"
    version: ClassVar[int] = 1
    Params: ClassVar[type] = NoParams
    OPTIONS: ClassVar[dict[str, tuple[float, float]]] = {}

    def __init__(
        self, seed: int | None = None, rules: RulesConfig | None = None, params: Any = None
    ) -> None:
        self.rng = np.random.default_rng(seed)
        self.rules = rules or RulesConfig()
        self.params = params if params is not None else self.Params()

    def seed(self, seed: int | None) -> None:
        """Restart the random stream."""
        self.rng = np.random.default_rng(seed)

    @classmethod
    def make(cls, options: str | None, seed: int | None) -> Bot:
        """This bot with the ``key=value,...`` ``options`` of its name (None: the defaults).

        Raises:
            ValueError: a bad option (``parse_options``).
        """
        return cls(seed, None, parse_options(cls, options) if options is not None else None)

    @classmethod
    def exact(cls, options: str | None) -> str:
        """The exact name (``spec``) of this bot with ``options``; nothing is built to play."""
        return cls.make(options, None).spec

    @property
    def spec(self) -> str:
        """The exact name of this player: ``name@version``, then any option set off default.

        ``resolve_policy(bot.spec)`` builds a bot that plays the same.
        """
        default = self.Params()
        changed = [
            f"{key}={getattr(self.params, key)}"
            for key in self.OPTIONS
            if getattr(self.params, key) != getattr(default, key)
        ]
        return f"{self.name}@{self.version}" + (":" + ",".join(changed) if changed else "")

    def act(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        keys: np.ndarray | None = None,
    ) -> np.ndarray:
        """Return one legal action per row.

        Args:
            observations: ``float32[N, OBS_DIM]``.
            action_masks: ``bool[N, 107]``.
            keys: optional ``uint64[N]``, one fresh key per game and decision; row i's
                choice then depends on row i alone.

        Returns:
            ``int64[N]`` action ids.
        """
        masks = np.asarray(action_masks, dtype=bool)
        obs = decode_observations(observations)
        n = masks.shape[0]
        keys = decision_keys(keys, self.rng, n)
        actions = np.where(masks[:, PASS], PASS, DRAW).astype(np.int64)
        in_discard = masks[:, :N_CARDS].any(axis=1)

        pick = np.flatnonzero(masks[:, TAKE] & ~in_discard & (obs.top_discard >= 0))
        if pick.size:
            actions[pick[self._takes(obs, pick, keys[pick])]] = TAKE

        rows = np.flatnonzero(in_discard)
        if rows.size:
            actions[rows] = self._discards(obs, masks, rows, keys[rows])
        return actions

    def _takes(self, obs: DecodedObservation, rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """``bool[P]``: whether each row (offer or draw phase, a top card) takes the top card."""
        raise NotImplementedError

    def _discards(
        self, obs: DecodedObservation, masks: np.ndarray, rows: np.ndarray, keys: np.ndarray
    ) -> np.ndarray:
        """``int64[R]``: the action (a discard or a knock) of each row in the discard phase."""
        raise NotImplementedError


def own_turn(obs: DecodedObservation, rows: np.ndarray) -> np.ndarray:
    """``int64[R]``: the number of this seat's turn in the hand (1 on its first turn).

    Counted from its own discards this hand (the observation's ``own_discards``), so it
    needs no rules: the turn a seat is playing is one more than the turns it completed.
    """
    return obs.own_discards[rows].sum(axis=1).astype(np.int64) + 1


def parse_options(bot: type[Bot], text: str) -> Any:
    """The ``Params`` of ``bot`` with the options of ``text`` (``key=value,key=value``) set.

    Raises:
        ValueError: an empty or malformed item, an unknown or repeated option, a value
            that is not a number of the option's type, or one outside its range; the
            message names the bot and the option (``hgin_env.engine.options.from_text``).
    """
    what = f"bot {bot.name!r}"
    return from_text(bot.Params, split_items(text.split(","), what), what, options=bot.OPTIONS)

"""``pimc``: a batched determinized (perfect-information Monte Carlo) search policy.

At every decision with more than one legal action it samples ``worlds`` deals of what
the seat cannot see (``agents.search.worlds``), plays every legal action in every world
to the end of the hand with the ``rollout`` policy playing both seats (or, with
``own``, only the opponent's, ``own`` playing the searching seat), and takes the
action with the best mean value; the same worlds and the same rollout random numbers
serve every candidate (common random numbers). Values (``objective``):

- ``series`` (default): the seat's chance of winning the series after the hand
  (``agents.search.series_value``), so a hand's points count by what they do on the
  score sheet; in hand mode (no score sheet in the observation) it falls back to points;
- ``points``: the hand's points, + for the seat, - for the opponent.

One ``act`` call searches all its games together: every (game, candidate, world) is one
row of one engine batch, and each rollout step is one batched call of the rollout
policy. It leaves the prior's choice (the rollout policy's own, or the ``prior``
policy's) only for a candidate whose gain over it is more than ``z`` standard errors
(the worlds are few and a hand's points noisy). The worlds are uniform deals of the
unseen cards, or (``belief=deadwood``) resampled so the opponent's hand is as good as a
real player's at this turn (``worlds.believed_worlds``), or (``belief=learned``) the same
with the cards dealt by a learned model of what the opponent holds
(``agents.search.hand_model``).
With ``plans``, a knock decision also weighs going on under a fixed knock threshold of
the searching seat for the rest of the rollout; with ``close``, the decisions the prior
(a network) is unsure of are searched between its two best actions.
Random numbers come from the per-game ``keys`` (else from the seeded stream), so a game
decides the same alone, in a batch or in a worker process.

Spec: ``pimc`` or ``pimc:worlds=64,rollout=simple,objective=series``, plus rules options
(``undercut_bonus=25``, ...). The rollouts play each game's hand rules (knock limit, gin,
undercut and big-gin bonuses) as its observation's rules block gives them (in a mix every
game has its own; ``rule_groups``), so a rules option in the spec matters only for the
options the observation does not carry. Every value is checked before any work.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.bots.features import decision_keys
from agents.search.hand_model import shipped_hand_model
from agents.search.inference import discard_log_likelihoods, inferred_weights
from agents.search.series_value import series_values
from agents.search.worlds import (
    SeenPosition,
    believed_worlds,
    sample_worlds,
    seen_position,
    world_keys,
    world_weights,
)
from hgin_env.engine.actions import DRAW, KNOCK, N_ACTIONS, knock_legal
from hgin_env.engine.cards import N_CARDS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, HandState
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.engine.keys import Salt, hash_stream
from hgin_env.envs.observation import (
    decode_observations,
    discard_deadwood,
    encode_observations,
)
from hgin_env.envs.policy import Policy, PolicyCall, PolicyLoadError
from hgin_env.envs.spec import NONE, parse_value, split_items, split_spec

#: the family name the registry knows
NAME = "pimc"
OBJECTIVES = ("series", "points")
BELIEFS = ("uniform", "deadwood", "learned")
#: which decisions are searched: every one with a choice, only those where a knock is legal,
#: only the draws (upcard or stock), or both of those
DECISIONS = ("all", "knock", "draw", "knock+draw")
#: most rounds of successive halving
MAX_ROUNDS = 8
#: most worlds per decision
MAX_WORLDS = 4096
#: most knock plans, and the highest threshold (deadwood) one may name
MAX_PLANS = 4
MAX_PLAN = 99
#: the rollout engine drops its finished rows when fewer than this share is live
COMPACT_BELOW = 0.5
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


@dataclass(frozen=True)
class PimcParams:
    """The search's parameters (the ``pimc:`` spec).

    Attributes:
        worlds: sampled deals of the hidden cards per decision (1..4096).
        z: a candidate replaces the prior's choice only when its mean gain
            over it (per world, same worlds) exceeds ``z`` standard errors (0: the best
            mean wins; the sampling noise of a few worlds otherwise decides).
        split: choose the best candidate on the first half of the worlds and test its gain
            over the prior's choice on the other half (the test is then free of the
            best-of-several bias); false: every world serves both.
        evidence: the belief: a world's weight is multiplied by this for each thing the
            opponent did that its sampled hand contradicts (``worlds.world_weights``);
            1: uniform worlds.
        top: discards searched: the ``top`` that leave the least deadwood, plus the
            rollout policy's choice (0: every legal discard). Of the knocks, only the one
            leaving the least deadwood is searched (the others leave more deadwood).
        belief: how the opponent's hidden cards are dealt: ``uniform`` (any unseen
            cards), ``deadwood`` (worlds resampled so the opponent's deadwood follows
            real players' at this turn, ``worlds.believed_worlds``) or ``learned`` (as
            ``deadwood``, the cards dealt by the learned hand model's chance of each,
            ``agents.search.hand_model``).
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
        plans: knock thresholds searched as plans of going on: in a row where a knock
            is legal, each threshold ``k`` adds a candidate that plays the prior's best
            non-knock discard now and then, for the rest of the rollout, has the searching
            seat knock as soon as it can leave at most ``k`` deadwood (0: only gin) and
            never otherwise; it wins the decision as the go-on discard (empty: no plans).
        close: also search each decision not searched by ``decisions`` where the prior's
            two most likely legal actions are less than ``close`` apart in its logits,
            between those two (0: none; the prior must be a network).
        infer: weigh each world by the opponent model's (``rollout``'s) chance of the
            opponent's last discard from the world's hand, to this power
            (``agents.search.inference``; 0: not weighed; 1: the model's own chances).
        rounds: successive halving: the worlds are played in ``rounds`` equal batches,
            and after each batch but the last every game keeps the better half of its
            candidates by mean value so far (the prior's choice always stays); 1: every
            candidate plays every world.
        rules: the rules the rollouts play under.
    """

    worlds: int = 64
    top: int = 0
    z: float = 1.0
    split: bool = False
    evidence: float = 1.0
    belief: str = "uniform"
    prior: str = ""
    rollout: str = "simple"
    own: str = ""
    objective: str = "series"
    decisions: str = "all"
    rounds: int = 1
    plans: tuple[int, ...] = ()
    close: float = 0.0
    infer: float = 0.0
    rules: RulesConfig = field(default_factory=RulesConfig)

    def spec(self) -> str:
        """The canonical ``pimc:...`` spec (rules options only where they differ)."""
        parts = [f"worlds={self.worlds}", f"top={self.top}", f"z={self.z:g}"]
        if self.split:
            parts.append("split=true")
        if self.evidence != 1.0:
            parts.append(f"evidence={self.evidence:g}")
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
        if self.plans:
            parts.append("plans=" + "+".join(str(k) for k in self.plans))
        if self.close:
            parts.append(f"close={self.close:g}")
        if self.infer:
            parts.append(f"infer={self.infer:g}")
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
    known = (
        "worlds", "top", "z", "split", "evidence", "belief", "prior", "rollout", "own",
        "objective", "decisions", "rounds", "plans", "close", "infer",
        *RULES_PARAMS,
    )  # fmt: skip
    for key in values:
        if key not in known:
            raise ValueError(f"unknown pimc parameter {key!r}; known parameters: {list(known)}")
    kwargs: dict[str, Any] = {}
    if "worlds" in values:
        kwargs["worlds"] = _integer("worlds", values["worlds"], 1, MAX_WORLDS)
    if "z" in values:
        kwargs["z"] = _number("z", values["z"], 0.0, 10.0)
    if "split" in values:
        kwargs["split"] = _rules_value("split", values["split"])
    if "evidence" in values:
        kwargs["evidence"] = _number("evidence", values["evidence"], 0.0, 1.0)
        if kwargs["evidence"] == 0.0:
            raise ValueError("pimc parameter evidence must be in (0, 1], got 0")
    if "top" in values:
        kwargs["top"] = _integer("top", values["top"], 0, N_CARDS)
    if "close" in values:
        kwargs["close"] = _number("close", values["close"], 0.0, 100.0)
    if "infer" in values:
        kwargs["infer"] = _number("infer", values["infer"], 0.0, 10.0)
    for name, choices in (
        ("objective", OBJECTIVES), ("belief", BELIEFS), ("decisions", DECISIONS)
    ):  # fmt: skip
        if name in values:
            kwargs[name] = _choice(name, values[name], choices)
    if "rounds" in values:
        kwargs["rounds"] = _integer("rounds", values["rounds"], 1, MAX_ROUNDS)
    for name in ("rollout", "prior", "own"):
        if name in values:
            kwargs[name] = values[name]
    if "plans" in values:
        kwargs["plans"] = _plans(values["plans"], kwargs.get("decisions", "all"))
    rules: dict[str, Any] = {}
    for name in RULES_PARAMS:
        if name in values:
            rules[name] = _rules_value(name, values[name])
    try:
        kwargs["rules"] = RulesConfig(**rules)
    except ValueError as exc:
        raise ValueError(f"pimc parameter: {exc}") from exc
    params = PimcParams(**kwargs)
    if params.infer and params.rules.allow_rediscard:
        # nothing is barred after a pickup then, so the seat's take cannot be read
        raise ValueError(
            "pimc parameter infer cannot be used with allow_rediscard=true (the card the "
            "seat took from the pile is not in its observation then)"
        )
    check_rollout(params.rollout)
    for name in ("prior", "own"):
        if getattr(params, name):
            check_rollout(getattr(params, name), name)
    return params


def _plans(text: str, decisions: str) -> tuple[int, ...]:
    """``plans=0+5`` -> ``(0, 5)``: distinct knock thresholds, ascending."""
    if "knock" not in decisions and decisions != "all":
        raise ValueError(
            f"pimc parameter plans needs the knocks searched, not decisions={decisions}"
        )
    plans = [_integer("plans", part, 0, MAX_PLAN) for part in text.split("+")]
    if len(set(plans)) != len(plans) or len(plans) > MAX_PLANS:
        raise ValueError(
            f"pimc parameter plans must be at most {MAX_PLANS} distinct thresholds, got {text!r}"
        )
    return tuple(sorted(plans))


def _number(name: str, text: str, lo: float, hi: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"pimc parameter {name} must be a number, got {text!r}") from None
    if not lo <= value <= hi:
        raise ValueError(f"pimc parameter {name} must be in {lo:g}..{hi:g}, got {value:g}")
    return value


def _choice(name: str, text: str, choices: tuple[str, ...]) -> str:
    if text not in choices:
        raise ValueError(f"pimc parameter {name} must be one of {list(choices)}, got {text!r}")
    return text


def _integer(name: str, text: str, lo: int, hi: int) -> int:
    value = parse_value(text, int, f"pimc parameter {name}")
    if not lo <= value <= hi:
        raise ValueError(f"pimc parameter {name} must be in {lo}..{hi}, got {value}")
    return value


def _rules_value(name: str, text: str) -> Any:
    if name in ("allow_rediscard", "split"):
        return parse_value(text, bool, f"pimc parameter {name}")
    if name == "big_gin_bonus" and text.lower() == NONE:
        return None
    return _integer(name, text, -(2**31), 2**31)


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


def make_rollout(params: PimcParams, seed: int | None) -> Policy:
    """The rollout policy of ``params`` (the simple bot gets the search's rules)."""
    from agents.bots import SimpleBot
    from agents.policies.model import load_policy

    if params.rollout == "simple":
        return SimpleBot(seed, rules=params.rules)
    return load_policy(params.rollout, seed)


class PimcPolicy:
    """The determinized search (see the module docstring).

    Args:
        params: the search's parameters.
        seed: seed of the random stream used when ``act`` gets no per-game keys.
    """

    def __init__(self, params: PimcParams | None = None, seed: int | None = None) -> None:
        self.params = params or PimcParams()
        self.name = self.params.spec()
        #: the exact versioned name of a named search (``searcher@1``; the evaluator
        #: records it), None for a plain ``pimc`` spec
        self.spec: str | None = None
        self.rng = np.random.default_rng(seed)
        self.rollout = make_rollout(self.params, seed)
        self._rollout_call = PolicyCall.of(self.rollout)
        if self.params.prior:
            from agents.policies.model import load_policy

            self.prior = load_policy(self.params.prior, seed)
        else:
            self.prior = self.rollout
        self._prior_call = PolicyCall.of(self.prior)
        logits = getattr(self.prior, "logits", None)
        if self.params.close and not callable(logits):
            name = getattr(self.prior, "name", self.params.prior or self.params.rollout)
            raise PolicyLoadError(f"pimc parameter close needs a network as the prior, not {name}")
        self._prior_logits = logits
        network = callable(getattr(self.rollout, "logits", None))
        if self.params.infer and not network and not self._rollout_call.keys:
            name = getattr(self.rollout, "name", self.params.rollout)
            raise PolicyLoadError(
                f"pimc parameter infer needs an opponent model (rollout) that is a network "
                f"or takes per-game keys, not {name}"
            )
        #: the searching seat's policy in the rollouts (None: the rollout policy's)
        self._own_call: PolicyCall | None = None
        players = [self.rollout]
        if self.params.own:
            from agents.policies.model import load_policy

            same = self.params.own == self.params.prior
            players.append(self.prior if same else load_policy(self.params.own, seed))
            self._own_call = PolicyCall.of(players[-1])
        # a network reads the score sheet; the bots do not, so they skip encoding it
        self._rollout_sheets = any(
            getattr(p, "name", "") not in ("simple", "expert") for p in players
        )
        #: engine actions taken inside rollouts since construction (for the benchmarks)
        self.rollout_actions = 0

    def seed(self, seed: int | None) -> None:
        """Restart the random stream."""
        self.rng = np.random.default_rng(seed)

    def act(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        keys: np.ndarray | None = None,
    ) -> np.ndarray:
        """Return one legal action per row: the best mean over the sampled worlds.

        Args:
            observations: float32[N, OBS_DIM] of the seats to act.
            action_masks: bool[N, 107].
            keys: optional uint64[N], one fresh key per game and decision.
        """
        masks = np.asarray(action_masks, dtype=bool).reshape(-1, N_ACTIONS)
        n = masks.shape[0]
        keys = decision_keys(keys, self.rng, n)
        prior = np.asarray(self._prior_call(observations, masks, keys=keys)).astype(np.int64)
        actions = prior.copy()
        obs = np.asarray(observations)
        cands, go_on = self.searched_candidates(obs, masks, keys, prior)
        todo = np.flatnonzero((cands.sum(axis=1) > 1) | (go_on >= 0))
        for rows, rules in rule_groups(obs, todo, self.params.rules):
            actions[rows] = self._choose(
                obs[rows], masks[rows], cands[rows], keys[rows], prior[rows], rules, go_on[rows]
            )
        return actions

    def searched_candidates(
        self, obs: np.ndarray, masks: np.ndarray, keys: np.ndarray, prior: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each row's candidates under ``decisions``, and the first move of its plans.

        Returns:
            ``(cands, go_on)``: bool[N, 107], the candidate actions (a row whose decision
            is not searched has the prior's choice alone); int64[N], the go-on discard the
            ``plans`` of a row start with (-1: the row has no plans).
        """
        if self.params.decisions == "all":
            cands = candidates(obs, masks, prior, self.params.top)
            go_on = np.full(masks.shape[0], -1, dtype=np.int64)
            if self.params.plans:
                rows = np.flatnonzero(knock_legal(masks))
                go_on[rows] = self._go_on(obs, masks, keys, rows)
            return cands, go_on
        cands, go_on = self._decided_candidates(obs, masks, keys, prior)
        if self.params.close:
            cands |= self._close_calls(obs, masks, cands)
        return cands, go_on

    def _decided_candidates(
        self, obs: np.ndarray, masks: np.ndarray, keys: np.ndarray, prior: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``searched_candidates`` of the decisions ``decisions`` names (not ``all``)."""
        searched = self.params.decisions
        go_on = np.full(masks.shape[0], -1, dtype=np.int64)
        cands = np.zeros_like(masks)
        cands[np.arange(masks.shape[0]), prior] = True
        if "knock" in searched:
            knocks, on = self._knock_candidates(obs, masks, keys, prior)
            cands |= knocks
            if self.params.plans:
                go_on = on
        if "draw" in searched:
            draws = np.flatnonzero(masks[:, DRAW:].any(axis=1))
            cands[draws] = masks[draws]
        return cands, go_on

    def _close_calls(self, obs: np.ndarray, masks: np.ndarray, cands: np.ndarray) -> np.ndarray:
        """bool[N, 107]: the prior's two best legal actions where they are close.

        Only in the rows not yet searched (one candidate) whose two most likely legal
        actions are less than ``close`` apart in the prior's logits; no action elsewhere.
        """
        out = np.zeros_like(masks)
        rows = np.flatnonzero((cands.sum(axis=1) == 1) & (masks.sum(axis=1) >= 2))
        if rows.size == 0:
            return out
        assert self._prior_logits is not None  # checked when built
        logits = np.where(masks[rows], self._prior_logits(obs[rows]), -np.inf)
        two = np.argsort(-logits, axis=1, kind="stable")[:, :2]
        best, second = np.take_along_axis(logits, two, axis=1).T
        near = best - second < self.params.close
        out[rows[near, None], two[near]] = True
        return out

    def _go_on(
        self, obs: np.ndarray, masks: np.ndarray, keys: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """int64[R]: the prior's choice in ``rows`` had it not been let knock."""
        if rows.size == 0:
            return np.zeros(0, dtype=np.int64)
        go_on = masks[rows].copy()
        go_on[:, KNOCK : KNOCK + N_CARDS] = False
        return np.asarray(self._prior_call(obs[rows], go_on, keys=keys[rows])).astype(np.int64)

    def _knock_candidates(
        self, obs: np.ndarray, masks: np.ndarray, keys: np.ndarray, prior: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Knock now against go on, in the rows where a knock is legal.

        The candidates of such a row are the least-deadwood knock, the prior's choice, the
        prior's best non-knock discard (its own choice had it not been let knock) and, with
        ``top=K > 0``, the ``K`` least-deadwood discards (``candidates``); every other row
        has the prior's choice alone, so it is not searched.

        Returns:
            ``(cands, go_on)``: bool[N, 107] the candidates; int64[N] the prior's best
            non-knock discard in the rows where a knock is legal (-1 elsewhere).
        """
        out = np.zeros_like(masks)
        out[np.arange(masks.shape[0]), prior] = True
        go_on = np.full(masks.shape[0], -1, dtype=np.int64)
        rows = np.flatnonzero(knock_legal(masks))
        if rows.size == 0:
            return out, go_on
        on = self._go_on(obs, masks, keys, rows)
        cands = candidates(obs[rows], masks[rows], prior[rows], self.params.top)
        if self.params.top == 0:
            cands[:, :N_CARDS] = False
        cands[np.arange(rows.size), on] = True
        cands[np.arange(rows.size), prior[rows]] = True
        out[rows] = cands & masks[rows]
        go_on[rows] = on
        return out, go_on

    def _choose(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        cands: np.ndarray,
        keys: np.ndarray,
        prior: np.ndarray,
        rules: RulesConfig,
        go_on: np.ndarray | None = None,
    ) -> np.ndarray:
        """int64[G]: the chosen action of G games that play under ``rules``.

        A game whose plan (``go_on`` >= 0) wins plays its go-on discard.
        """
        actions = prior.copy()
        todo = np.arange(prior.size)
        if todo.size:
            seen = seen_position(obs, masks, rules)
            values, gain, error = self.candidate_values(
                seen, cands, keys, prior, rules, go_on, observations=obs
            )
            # leave the prior's choice only for a candidate clearly better than it
            clear = gain > self.params.z * np.where(np.isfinite(error), error, 1e300)
            clear[np.arange(todo.size), prior[todo]] = True
            if self.params.split:  # the best on the first half, if the second half confirms it
                best = values.argmax(axis=1)
                ok = clear[np.arange(todo.size), best]
                actions[todo] = np.where(ok, best, prior[todo])
            else:
                actions[todo] = np.where(clear, values, -np.inf).argmax(axis=1)
            if go_on is not None:  # a plan is played as its go-on discard
                actions = np.where(actions >= N_ACTIONS, go_on, actions)
        return actions

    def candidate_values(
        self,
        seen: SeenPosition,
        masks: np.ndarray,
        keys: np.ndarray,
        prior: np.ndarray,
        rules: RulesConfig | None = None,
        go_on: np.ndarray | None = None,
        observations: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each candidate's mean value over the worlds, and its gain over the prior's choice.

        Args:
            seen: the positions of G games.
            masks: bool[G, 107], the candidates (legal actions) of each game; each game's
                ``prior`` among them.
            keys: uint64[G], the games' decision keys.
            prior: int[G], the prior's choice in each game.
            rules: the rules the G games play under (default the spec's).
            go_on: int[G], the first move of each game's ``plans`` (-1 or None: no plans).
            observations: float32[G, OBS_DIM], the games' observations (``seen`` was read
                from them); needed with ``infer``.

        Returns:
            ``(values, gain, error)``, float64[G, 107 + P] each (-inf / 0 / inf where not
            a candidate): the mean value, the mean of the per-world difference to the
            prior's candidate (same worlds: common random numbers), and its standard
            error; column ``107 + p`` is the game's plan ``p`` (P: the number of plans).
        """
        w = self.params.worlds
        g = masks.shape[0]
        if self.params.belief != "uniform":
            scores = shipped_hand_model().logits(seen) if self.params.belief == "learned" else None
            worlds, wkeys = believed_worlds(seen, keys, w, scores=scores)  # G * W rows
        else:
            wkeys = world_keys(keys, w)  # [G, W]
            worlds = sample_worlds(seen, wkeys)
        game, cand = np.nonzero(masks)  # one entry per (game, candidate)
        plans = np.asarray(self.params.plans, dtype=np.int64)
        width = N_ACTIONS + plans.size
        with_plans = np.flatnonzero(go_on >= 0) if go_on is not None else np.zeros(0, np.int64)
        if plans.size and with_plans.size:  # plan p of a game is its candidate 107 + p
            game = np.concatenate([game, np.repeat(with_plans, plans.size)])
            cand = np.concatenate(
                [cand, np.tile(N_ACTIONS + np.arange(plans.size), with_plans.size)]
            )
            order = np.argsort(game, kind="stable")  # a game's entries stay together
            game, cand = game[order], cand[order]
        # each entry's first move and its searching seat's knock threshold (-1: none)
        first_of, plan_of = cand.copy(), np.full(cand.size, -1, dtype=np.int64)
        is_plan = np.flatnonzero(cand >= N_ACTIONS)
        if is_plan.size and go_on is not None:
            first_of[is_plan] = go_on[game[is_plan]]
            plan_of[is_plan] = plans[cand[is_plan] - N_ACTIONS]
        belief = world_weights(seen, worlds, self.params.evidence)  # [G, W]
        if self.params.infer:
            if observations is None:
                raise ValueError("pimc parameter infer needs the games' observations")
            log_chance = discard_log_likelihoods(
                self.rollout, seen, np.asarray(observations), worlds.hands[:, 1], w,
                (rules or self.params.rules).max_turns_per_hand, wkeys.reshape(-1),
            )  # fmt: skip
            belief = belief * inferred_weights(log_chance, self.params.infer)
        weight = belief[game]  # [E, W]
        entry_of = np.full((g, width), -1)
        entry_of[game, cand] = np.arange(game.size)
        is_prior = cand == prior[game]
        per_world = np.zeros((game.size, w))  # [E, W]
        alive = np.ones(game.size, dtype=bool)
        bounds = np.linspace(0, w, min(self.params.rounds, w) + 1).astype(np.int64)
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            e = np.flatnonzero(alive)
            span = np.arange(lo, hi)
            # rows: (entry, world); the world's row in ``worlds`` is game * W + world
            world_row = (game[e][:, None] * w + span[None, :]).reshape(-1)
            state = worlds.rows(world_row)
            first = np.repeat(first_of[e], span.size)
            rollout_keys = wkeys.reshape(-1)[world_row]
            sheets = self._sheets(seen.sheets, np.repeat(game[e], span.size))
            plan = np.repeat(plan_of[e], span.size) if plans.size else None
            winner, points = self._play_out(state, first, rollout_keys, sheets, rules, plan)
            value = self._values(seen.sheets, np.repeat(game[e], span.size), winner, points)
            per_world[e[:, None], span[None, :]] = value.reshape(e.size, span.size)
            if hi < w:
                alive &= _better_half(per_world[:, :hi], weight[:, :hi], game, alive) | is_prior
        e = np.flatnonzero(alive)
        diff = per_world[e] - per_world[entry_of[game[e], prior[game[e]]]]
        half = w // 2 if self.params.split and w >= 2 else 0
        chosen, _, _ = _weighted_stats(per_world[e], diff, weight[e], slice(0, half or w))
        _, mean_diff, error_of = _weighted_stats(per_world[e], diff, weight[e], slice(half, w))
        values = np.full((g, width), -np.inf)
        gain = np.zeros((g, width))
        error = np.full((g, width), np.inf)
        values[game[e], cand[e]] = chosen
        gain[game[e], cand[e]] = mean_diff
        error[game[e], cand[e]] = error_of
        return values, gain, error

    # ------------------------------------------------------------------ rollouts
    def _sheets(self, sheets: ScoreSheets | None, rows: np.ndarray) -> ScoreSheets | None:
        """The score sheets of the rollout rows (for a rollout policy that reads them)."""
        if sheets is None or not self._rollout_sheets:
            return None
        return sheet_rows(sheets, rows)

    def _play_out(
        self,
        state: HandState,
        first: np.ndarray,
        keys: np.ndarray,
        sheets: ScoreSheets | None,
        rules: RulesConfig | None = None,
        plan: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Play ``first`` then the rollout policy to the end of every row's hand (``rules``).

        ``plan``: int[R], the knock threshold the searching seat plays in each row (-1:
        its rollout policy's own knocks).

        Returns:
            ``(winner, points)``: int64[R] the seat that scored (-1: none), and its points.
        """
        rules = rules or self.params.rules
        total = first.size
        engine = GinEngine.from_state(state, rules)
        engine.step(first)
        self.rollout_actions += total
        ids = np.arange(total)  # original row of each engine row
        winner = np.full(total, -1, dtype=np.int64)
        points = np.zeros(total, dtype=np.int64)
        moves = np.zeros(total, dtype=np.int64)
        actions = np.zeros(total, dtype=np.int64)
        while True:
            over = engine.over
            live = np.flatnonzero(~over)
            if live.size < COMPACT_BELOW * ids.size or live.size == 0:
                done = np.flatnonzero(over)
                winner[ids[done]] = engine.state.winner[done]
                points[ids[done]] = engine.state.points[done]
                if live.size == 0:
                    return winner, points
                engine = GinEngine.from_state(engine.state.rows(live), rules)
                ids, keys, moves = ids[live], keys[live], moves[live]
                if plan is not None:
                    plan = plan[live]
                if sheets is not None:
                    sheets = self._sheets(sheets, live)
                actions = np.zeros(live.size, dtype=np.int64)
                live = np.arange(live.size)
            seats = engine.current_player[live]
            obs = encode_observations(engine, seats, sheets, live)
            masks = engine.legal_action_mask(copy=False)[live]
            step_keys = hash_stream(keys[live], moves[live], Salt.SEARCH_ROLLOUT)
            actions[live] = self._rollout_actions(
                seats, obs, masks, step_keys, None if plan is None else plan[live]
            )
            moves[live] += 1
            engine.step(actions)
            self.rollout_actions += live.size

    def _rollout_actions(
        self,
        seats: np.ndarray,
        obs: np.ndarray,
        masks: np.ndarray,
        keys: np.ndarray,
        plan: np.ndarray | None = None,
    ) -> np.ndarray:
        """int64[R]: the rollout players' actions; seat 0 is the searching seat.

        ``plan``: int[R], the searching seat's knock threshold per row (-1: none); in such
        a row seat 0 knocks (leaving the least deadwood) as soon as it can leave at most
        the threshold, and otherwise plays its policy with the knocks taken away.
        """
        if self._own_call is None and plan is None:
            return np.asarray(self._rollout_call(obs, masks, keys=keys))
        own = self._own_call or self._rollout_call
        out = np.zeros(seats.size, dtype=np.int64)
        masks = np.asarray(masks)
        if plan is not None:
            planned = np.flatnonzero((seats == 0) & (plan >= 0) & knock_legal(masks))
            if planned.size:
                knocks = masks[planned, KNOCK : KNOCK + N_CARDS]
                dd = np.where(knocks, discard_deadwood(obs[planned]), np.inf)
                best = dd.argmin(axis=1)
                knock_now = dd[np.arange(planned.size), best] <= plan[planned]
                out[planned[knock_now]] = KNOCK + best[knock_now]
                masks = masks.copy()
                masks[planned[~knock_now], KNOCK : KNOCK + N_CARDS] = False
                seats = seats.copy()
                seats[planned[knock_now]] = -1  # decided: no policy plays these rows
        for call, rows in (
            (own, np.flatnonzero(seats == 0)),
            (self._rollout_call, np.flatnonzero(seats == 1)),
        ):
            if rows.size:
                out[rows] = call(obs[rows], masks[rows], keys=keys[rows])
        return out

    def _values(
        self,
        sheets: ScoreSheets | None,
        game: np.ndarray,
        winner: np.ndarray,
        points: np.ndarray,
    ) -> np.ndarray:
        """float64[R]: each outcome's value for seat 0 (the searching seat)."""
        signed = np.where(winner == 0, points, np.where(winner == 1, -points, 0))
        if self.params.objective == "points" or sheets is None:
            return signed.astype(np.float64)
        # the chance of winning the series after recording each outcome on a copy
        after = sheet_rows(sheets, game)
        after.record(winner, points)
        return series_values(after, 0)


def _better_half(
    per_world: np.ndarray, weight: np.ndarray, game: np.ndarray, alive: np.ndarray
) -> np.ndarray:
    """bool[E]: the entries among ``alive`` in the better half of their game's (rounded up).

    Args:
        per_world: float64[E, W'] the values over the worlds played so far.
        weight: float64[E, W'] the worlds' weights.
        game: int[E] each entry's game (entries of a game are contiguous).
        alive: bool[E] the entries still searched.
    """
    mean = (per_world * weight).sum(axis=1) / weight.sum(axis=1)
    # within each game, best first: sort by game, then by mean descending (ties: entry order)
    order = np.lexsort((np.arange(game.size), -np.where(alive, mean, -np.inf), game))
    first_of_game = np.searchsorted(game[order], game[order], side="left")
    rank = np.empty(game.size, dtype=np.int64)
    rank[order] = np.arange(game.size) - first_of_game
    count = np.bincount(game[alive], minlength=int(game.max()) + 1)[game]
    return alive & (rank < (count + 1) // 2)


def _weighted_stats(
    per_world: np.ndarray, diff: np.ndarray, weight: np.ndarray, part: slice
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted mean value, mean difference and its standard error over the worlds ``part``."""
    w = weight[:, part] / weight[:, part].sum(axis=1, keepdims=True)
    effective = 1.0 / (w**2).sum(axis=1)  # the worlds' effective number
    d = diff[:, part]
    mean_diff = (w * d).sum(axis=1)
    spread = np.sqrt((w * (d - mean_diff[:, None]) ** 2).sum(axis=1))
    return (w * per_world[:, part]).sum(axis=1), mean_diff, spread / np.sqrt(effective)


def rule_groups(
    obs: np.ndarray, rows: np.ndarray, base: RulesConfig
) -> list[tuple[np.ndarray, RulesConfig]]:
    """``rows`` grouped by the hand rules their observations carry, each with its rules.

    The observation's rules block gives each game's knock limit and bonuses (in a mix of
    rule sets every game has its own); the other options come from ``base`` (the spec's).
    """
    if rows.size == 0:
        return []
    d = decode_observations(obs[rows])
    big = np.where(d.big_gin, d.big_gin_bonus, -1)
    table = np.stack([d.knock_limit, d.gin_bonus, d.undercut_bonus, big], axis=1)
    kinds, which = np.unique(table, axis=0, return_inverse=True)
    groups = []
    for k, (limit, gin, undercut, big_bonus) in enumerate(kinds.tolist()):
        rules = dataclasses.replace(
            base, knock_limit=limit, gin_bonus=gin, undercut_bonus=undercut,
            big_gin_bonus=None if big_bonus < 0 else big_bonus,
        )  # fmt: skip
        groups.append((rows[which.reshape(-1) == k], rules))
    return groups


def candidates(
    observations: np.ndarray, masks: np.ndarray, prior: np.ndarray, top: int
) -> np.ndarray:
    """bool[N, 107]: the actions searched (see ``PimcParams.top``); always the prior's ``prior``."""
    out = masks.copy()
    rows = np.flatnonzero(masks[:, :N_CARDS].any(axis=1))
    if rows.size == 0:
        return out
    dd = discard_deadwood(np.asarray(observations)[rows]).astype(np.float64)
    # ties: the higher card id first (a king before a queen), as a tiny offset
    score = dd - np.arange(N_CARDS) * 1e-3
    knocks = masks[rows, KNOCK : KNOCK + N_CARDS]
    best_knock = np.where(knocks, score, np.inf).argmin(axis=1)
    keep = np.zeros_like(knocks)
    keep[np.arange(rows.size), best_knock] = True
    out[rows, KNOCK : KNOCK + N_CARDS] = knocks & keep
    if top > 0:
        discards = masks[rows, :N_CARDS]
        order = np.argsort(np.where(discards, score, np.inf), axis=1, kind="stable")
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(N_CARDS)[None, :], axis=1)
        out[rows, :N_CARDS] = discards & (rank < top)
    out[np.arange(out.shape[0]), prior] = True
    return out & masks


def sheet_rows(sheets: ScoreSheets, rows: np.ndarray) -> ScoreSheets:
    """A copy of the selected sheets (``rows``: int[M], repeats allowed)."""
    out = ScoreSheets(rows.size, sheets.rules)
    for f in ("scores", "entered", "boxes", "game_winners", "finished", "series_winner"):
        setattr(out, f, getattr(sheets, f)[rows].copy())
    return out


def make_pimc(params: str, seed: int | None) -> PimcPolicy:
    """``pimc:PARAMS`` -> a ``PimcPolicy`` (``params``: the text after ``pimc:``)."""
    return PimcPolicy(parse_params(params), seed)


#: the named search agent: ``searcher`` is its newest version, ``searcher@N`` version N
SEARCHER = "searcher"
#: every version of ``searcher``: its full ``pimc`` parameters (a version never changes)
SEARCHERS: dict[int, str] = {
    1: "worlds=128,top=0,z=1,belief=deadwood,rollout=ppo-league2,objective=points,"
    "decisions=knock,rounds=2",
    # version 1's knock search with ppo-taught playing the moves (the rollouts stay ppo-league2)
    2: "worlds=128,top=0,z=1,belief=deadwood,prior=ppo-taught,rollout=ppo-league2,"
    "objective=points,decisions=knock,rounds=2",
    # version 2 with ppo-taught also playing the searching seat of the rollouts
    3: "worlds=128,top=0,z=1,belief=deadwood,prior=ppo-taught,rollout=ppo-league2,"
    "own=ppo-taught,objective=points,decisions=knock,rounds=2",
    # version 3 also searching the moves ppo-taught is unsure of (two best within 1 logit)
    4: "worlds=128,top=0,z=1,belief=deadwood,prior=ppo-taught,rollout=ppo-league2,"
    "own=ppo-taught,objective=points,decisions=knock,rounds=2,close=1",
}


def _searcher_version(version: str | None) -> int:
    """The version a ``searcher`` spec names (None: the newest).

    Raises:
        ValueError: an unknown version, listing the known ones.
    """
    if version is None:
        return max(SEARCHERS)
    if not version.isdigit() or int(version) not in SEARCHERS:
        known = ", ".join(f"{SEARCHER}@{v}" for v in sorted(SEARCHERS))
        raise ValueError(
            f"unknown version '{SEARCHER}@{version}' of {SEARCHER!r}; known versions: {known}"
        )
    return int(version)


def searcher_params(spec: str) -> PimcParams:
    """The parameters of ``searcher[@VERSION][:NAME=VALUE,...]`` (options override the version's).

    Raises:
        ValueError: an unknown version, or a bad option (named in the message).
    """
    _, version, options = split_spec(spec)
    items = split_items(SEARCHERS[_searcher_version(version)], SEARCHER)
    if options is not None:
        given = split_items(options, f"{SEARCHER} {spec!r}")
        if not given:
            raise ValueError(f"search name {spec!r} ends with ':' but sets no option")
        items.update(given)
    return parse_params(",".join(f"{k}={v}" for k, v in items.items()))


def exact_searcher_name(spec: str) -> str | None:
    """``searcher@N[:OPTIONS]`` for a ``searcher`` spec (its version made explicit), else None.

    Raises:
        ValueError: an unknown version (``_searcher_version``).
    """
    name, version, options = split_spec(spec)
    if name != SEARCHER:
        return None
    exact = f"{SEARCHER}@{_searcher_version(version)}"
    return exact if options is None else f"{exact}:{options}"


def make_searcher(spec: str, seed: int | None) -> PimcPolicy:
    """``searcher[@VERSION][:OPTIONS]`` -> its ``PimcPolicy``, named by its exact spec.

    The name is ``searcher@N`` (with the options given, if any), so results say which
    version played; ``params.spec()`` still gives the full ``pimc:...`` spec.
    """
    policy = PimcPolicy(searcher_params(spec), seed)
    policy.name = policy.spec = exact_searcher_name(spec) or spec
    return policy


class SearchSource:
    """``pimc`` and ``pimc:PARAMS`` as a ``PolicySource`` of the environments' registry."""

    def names(self) -> list[str]:
        """The plain names (each also takes ``:PARAMS``; ``searcher`` also ``@VERSION``)."""
        return [NAME, SEARCHER]

    def load(self, spec: str, seed: int | None) -> PimcPolicy | None:
        """The search ``spec`` names; None when ``spec`` is not ``pimc[:PARAMS]`` or a searcher.

        Raises:
            PolicyLoadError: a bad parameter or version (named in the message).
        """
        name, version, params = split_spec(spec)
        if name not in (NAME, SEARCHER) or (name == NAME and version is not None):
            return None
        try:
            if name == SEARCHER:
                return make_searcher(spec, seed)
            return make_pimc(params or "", seed)
        except PolicyLoadError:
            raise
        except ValueError as exc:
            raise PolicyLoadError(str(exc)) from None


#: the registry's source of search names (entry point ``__search__``)
SEARCH_SOURCE = SearchSource()

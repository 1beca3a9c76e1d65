"""OpenSpiel's gin rummy as a peer: its simple bot against this project's ``simple``.

Test support (needs ``pyspiel``, the ``peers`` extra), shared by
``tests/agents/bots/test_simple_vs_openspiel.py`` and ``benchmarks/simple_vs_openspiel.py``.

A ``Mirror`` plays one hand in OpenSpiel's ``gin_rummy`` and the same hand in a
one-game ``GinEngine``: the same deck (OpenSpiel deals its chance moves from it, player
0 = the non-dealer = seat 0 here), the same actions, under ``PEER_RULES``, this
project's rules set as close to OpenSpiel's as its options allow (the card just taken
may be thrown back). So at each OpenSpiel decision this project's observation and
mask of the same position are at hand, and a hand can be played by either bot.

The rule differences that remain, and what the comparison does with them:

- **The wall**: OpenSpiel gives the player after the discard that leaves two stock
  cards a last chance to knock with the upcard; here the hand is drawn at once. Those
  decisions have no counterpart and are not compared.
- **Knock legality**: OpenSpiel's knock test for 11 cards (its ``MinDeadwood``) keeps
  one least-deadwood arrangement of all 11 cards and takes out its highest-rank
  unmelded card; now and then another discard leaves less. A decision whose knock
  legality (or, at the draw, "taking lets it knock") differs between the rule sets is
  counted as a rule difference and not compared.
- **Card ids**: OpenSpiel orders suits s, c, d, h; here c, d, h, s (``to_os`` and
  ``from_os`` convert, rank unchanged).
- Knocking is one action here (``KNOCK + card``) and two there (knock, then the card);
  the knocker's melds and the defender's layoffs are the engine's work here, actions
  there (both bots lay their least-deadwood melds and never lay off).

Agreement of one decision: OpenSpiel's bot breaks its ties deterministically ("chosen
arbitrarily" in its header: the first arrangement its search finds, the highest suit
in its order), this project's ``simple`` at random. So a decision *agrees* when the set
of actions ``simple`` can take there (found by asking it with ``TIE_KEYS`` different
keys) equals the set OpenSpiel's strategy allows (``os_choices``, every least-deadwood
arrangement and every same-rank card counted), and OpenSpiel's actual action is in it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pyspiel

from agents.bots.simple import SimpleBot
from hgin_env.engine.actions import DRAW, KNOCK, PASS, TAKE, action_text
from hgin_env.engine.cards import N_CARDS, N_RANKS
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.engine.melds import deadwood_after_discard
from hgin_env.envs.observation import encode_observations

GR = pyspiel.gin_rummy
PH = GR.Phase
#: this project's rules as close to OpenSpiel's gin_rummy as the options go
PEER_RULES = RulesConfig(allow_rediscard=True, gin_bonus=25, undercut_bonus=25)
KNOCK_LIMIT = 10
#: keys each decision of ``simple`` is asked with to find the set of actions it can take
TIE_KEYS = 32
#: OpenSpiel's deal: 10 cards to player 0, 10 to player 1, the upcard
DEALT = 21
UTILS = GR.GinRummyUtils(13, 4, 10)


def to_os(card: int) -> int:
    """This project's card id -> OpenSpiel's (suits c d h s -> s c d h)."""
    suit, rank = divmod(int(card), N_RANKS)
    return ((suit + 1) % 4) * N_RANKS + rank


def from_os(card: int) -> int:
    """OpenSpiel's card id -> this project's."""
    suit, rank = divmod(int(card), N_RANKS)
    return ((suit + 3) % 4) * N_RANKS + rank


def os_unmelded_sets(cards: list[int]) -> set[frozenset[int]]:
    """OpenSpiel's view: the unmelded cards of every arrangement of least deadwood."""
    groups = UTILS.all_meld_groups(list(cards))
    if not groups:
        return {frozenset(cards)}
    values = [sum(UTILS.card_value(c) for meld in g for c in meld) for g in groups]
    best = max(values)
    return {
        frozenset(cards) - {c for meld in g for c in meld}
        for g, v in zip(groups, values, strict=True)
        if v == best
    }


def os_choices(state, player: int) -> set[int]:
    """The actions (in this project's ids) OpenSpiel's simple strategy allows at ``state``.

    Every tie the bot breaks "arbitrarily" counts: any least-deadwood arrangement, any
    card of the highest rank. Draw decisions and discard decisions only.
    """
    hand = list(state.hands()[player])
    phase = state.current_phase()
    if phase in (PH.FIRST_UPCARD, PH.DRAW):
        up = state.upcard()
        leave = PASS if phase == PH.FIRST_UPCARD else DRAW
        if UTILS.min_deadwood(hand + [up]) <= KNOCK_LIMIT:
            return {TAKE}
        return {leave if up in s else TAKE for s in os_unmelded_sets(hand + [up])}
    knock = GR.KNOCK_ACTION in state.legal_actions()
    cards: set[int] = set()
    for s in os_unmelded_sets(hand):
        if s:
            top = max(UTILS.card_rank(c) for c in s)
            cards |= {c for c in s if UTILS.card_rank(c) == top}
        else:  # 11-card gin: a card whose discard keeps gin
            cards |= {c for c in hand if UTILS.min_deadwood([x for x in hand if x != c]) == 0}
    if knock:
        # the bot's knock test and its discard use one arrangement, so it only ever throws
        # a card its knock allows; an arrangement whose highest card would not keep the
        # knock is one under which the bot would not have knocked
        cards &= set(UTILS.legal_discards(hand, KNOCK_LIMIT))
    return {(KNOCK if knock else 0) + from_os(c) for c in cards}


def simple_choices(bot: SimpleBot, obs: np.ndarray, mask: np.ndarray) -> set[int]:
    """The actions ``simple`` takes at one position over ``TIE_KEYS`` different keys."""
    keys = np.arange(1, TIE_KEYS + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    actions = bot.act(np.repeat(obs[None], TIE_KEYS, 0), np.repeat(mask[None], TIE_KEYS, 0), keys)
    return {int(a) for a in actions}


class Mirror:
    """One hand in OpenSpiel's engine and the same hand in this project's.

    Args:
        game: a ``pyspiel`` gin_rummy game.
        deck: int[52], this project's card ids: player 0's 10 cards, player 1's 10, the
            upcard, then the stock from the top.
    """

    def __init__(self, game, deck: np.ndarray) -> None:
        self.state = game.new_initial_state()
        self.deck = np.asarray(deck)
        for card in self.deck[:DEALT]:
            self.state.apply_action(to_os(card))
        self.next_card = DEALT
        self.engine = GinEngine(1, PEER_RULES, seed=0)
        self.engine.reset(decks=self.deck[None], dealers=1)  # seat 1 deals: seat 0 starts
        self.pending_knock = False

    @property
    def mirrored(self) -> bool:
        """Whether this project's engine still plays the hand (not over, no wall)."""
        return not bool(self.engine.over[0])

    def ours(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """This project's observation (float32[OBS_DIM]) and mask of ``player``'s position."""
        assert int(self.engine.current_player[0]) == player, "mirror out of step"
        mine = set(np.flatnonzero(self.engine.state.hands[0, player]).tolist())
        assert mine == {from_os(c) for c in self.state.hands()[player]}, "hands differ"
        obs = encode_observations(self.engine, np.array([player], np.int8))[0]
        return obs, self.engine.legal_action_mask()[0]

    def apply(self, os_action: int) -> None:
        """Apply an OpenSpiel action to both engines (stock draws dealt from the deck)."""
        phase = self.state.current_phase()
        ours = None
        if phase in (PH.FIRST_UPCARD, PH.DRAW):
            ours = {GR.DRAW_UPCARD_ACTION: TAKE, GR.DRAW_STOCK_ACTION: DRAW, GR.PASS_ACTION: PASS}[
                os_action
            ]
        elif phase == PH.DISCARD:
            if os_action == GR.KNOCK_ACTION:
                self.pending_knock = True
            else:
                ours = from_os(os_action)
        elif phase == PH.KNOCK and self.pending_knock:
            ours, self.pending_knock = KNOCK + from_os(os_action), False
        self.state.apply_action(os_action)
        if ours is not None and self.mirrored:
            self.engine.step(np.array([ours]))
        if self.state.is_chance_node():
            self.state.apply_action(to_os(self.deck[self.next_card]))
            self.next_card += 1


def os_rules_differ(mirror: Mirror, player: int, obs_mask: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether the knock legality of this decision differs between the two rule sets."""
    state = mirror.state
    _, mask = obs_mask
    hand = list(state.hands()[player])
    if state.current_phase() == PH.DISCARD:
        return (GR.KNOCK_ACTION in state.legal_actions()) != bool(
            mask[KNOCK : KNOCK + N_CARDS].any()
        )
    up = state.upcard()
    eleven = np.zeros(N_CARDS, bool)
    eleven[[from_os(c) for c in hand + [up]]] = True
    exact = int(deadwood_after_discard(eleven[None]).min())
    return (UTILS.min_deadwood(hand + [up]) <= KNOCK_LIMIT) != (exact <= KNOCK_LIMIT)


@dataclass
class Agreement:
    """Decision-by-decision comparison of OpenSpiel's simple bot and this project's."""

    compared: int = 0
    agreed: int = 0
    ties: int = 0  # compared decisions where the strategy allows several actions
    ties_agreed: int = 0
    rule_differences: int = 0  # decisions not compared: knock legality differs
    wall: int = 0  # wall decisions (no counterpart here)
    by_kind: Counter = field(default_factory=Counter)  # kind -> compared
    agreed_by_kind: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)  # the first disagreements

    @property
    def rate(self) -> float:
        """Share of the compared decisions that agree."""
        return self.agreed / max(self.compared, 1)


def kind_of(state) -> str:
    """``offer``, ``draw`` or ``discard`` (a knock included) for a decision state."""
    return {PH.FIRST_UPCARD: "offer", PH.DRAW: "draw"}.get(state.current_phase(), "discard")


def deal_decks(n_hands: int, seed: int) -> np.ndarray:
    """int[n, 52] shuffled decks (this project's card ids)."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n_hands, N_CARDS)), axis=1)


def compare(n_hands: int, seed: int, bot: SimpleBot | None = None) -> Agreement:
    """OpenSpiel's simple bot plays both seats of ``n_hands`` hands; ``simple`` is asked too.

    At every decision of the first turn offer, the draw and the discard (knock
    included) that both rule sets share, the set of actions ``bot`` (default this
    project's ``simple``) can take is compared with the set OpenSpiel's strategy allows
    (see the module docstring).
    """
    game = pyspiel.load_game("gin_rummy")
    bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in range(2)]
    bot = bot or SimpleBot(0, rules=PEER_RULES)
    out = Agreement()
    for deck in deal_decks(n_hands, seed):
        mirror = Mirror(game, deck)
        for b in bots:
            b.restart()
        knock: _Decision | None = None  # a knock waits for its card (OpenSpiel's next move)
        while not mirror.state.is_terminal():
            state = mirror.state
            player, phase = state.current_player(), state.current_phase()
            action = bots[player].step(state)
            if phase == PH.WALL:
                out.wall += 1
            elif phase == PH.KNOCK and knock is not None:
                knock.finish(out, KNOCK + from_os(action))
                knock = None
            elif phase == PH.DISCARD or (
                phase in (PH.FIRST_UPCARD, PH.DRAW) and len(state.legal_actions()) > 1
            ):
                decision = _Decision.at(mirror, player, bot)
                if decision.rules_differ:
                    out.rule_differences += 1
                elif phase == PH.DISCARD and action == GR.KNOCK_ACTION:
                    knock = decision
                elif phase == PH.DISCARD:
                    decision.finish(out, from_os(action))
                else:
                    draw = {GR.DRAW_UPCARD_ACTION: TAKE, GR.DRAW_STOCK_ACTION: DRAW}
                    decision.finish(out, draw.get(action, PASS))
            mirror.apply(action)
    return out


@dataclass
class _Decision:
    """One decision to compare: what each strategy allows there."""

    kind: str
    allowed: set[int]  # OpenSpiel's strategy
    ours: set[int]  # this project's bot
    rules_differ: bool
    text: str

    @classmethod
    def at(cls, mirror: Mirror, player: int, bot: SimpleBot) -> _Decision:
        """The decision of ``player`` at the mirror's current position."""
        state = mirror.state
        obs_mask = mirror.ours(player)
        differ = os_rules_differ(mirror, player, obs_mask)
        hand = " ".join(UTILS.card_string(c) for c in sorted(state.hands()[player]))
        up = state.upcard()
        text = f"hand {hand}" + (f" upcard {UTILS.card_string(up)}" if up is not None else "")
        if differ:
            return cls(kind_of(state), set(), set(), True, text)
        return cls(kind_of(state), os_choices(state, player), simple_choices(bot, *obs_mask),
                   False, text)  # fmt: skip

    def finish(self, out: Agreement, taken: int) -> None:
        """Count the decision, OpenSpiel's bot having taken ``taken`` (this project's id)."""
        same = self.ours == self.allowed and taken in self.allowed
        tie = len(self.allowed) > 1
        out.compared += 1
        out.by_kind[self.kind] += 1
        out.ties += tie
        if same:
            out.agreed += 1
            out.agreed_by_kind[self.kind] += 1
            out.ties_agreed += tie
        elif len(out.examples) < 10:
            out.examples.append(
                f"{self.kind}: {self.text}: openspiel took {action_text(taken)} "
                f"(allows {_texts(self.allowed)}), simple {_texts(self.ours)}"
            )


def _texts(actions: set[int]) -> str:
    return "{" + ", ".join(action_text(a) for a in sorted(actions)) + "}"


@dataclass
class Match:
    """Points per hand of a policy against OpenSpiel's simple bot, in OpenSpiel's engine."""

    points: list[int] = field(default_factory=list)  # the policy's score of each hand
    refused_knocks: int = 0  # knocks this project allows and OpenSpiel does not: discarded

    @property
    def mean(self) -> float:
        """Mean points per hand."""
        return float(np.mean(self.points)) if self.points else 0.0

    @property
    def stderr(self) -> float:
        """Standard error of the mean over deals (the two seatings of a deal paired)."""
        pairs = np.asarray(self.points, dtype=np.float64).reshape(-1, 2).mean(axis=1)
        return float(pairs.std(ddof=1) / np.sqrt(pairs.size)) if pairs.size > 1 else 0.0


def _lay_melds(state, player: int) -> int:
    """The next meld of the hand's least-deadwood arrangement to lay, else pass."""
    legal = set(state.legal_actions())
    for meld in UTILS.best_meld_group(list(state.hands()[player])):
        action = GR.MELD_ACTION_BASE + UTILS.meld_to_int(sorted(meld))
        if action in legal:
            return action
    return GR.PASS_ACTION


def _least_deadwood_discard(state, player: int) -> int:
    """The legal card whose discard leaves the least deadwood (a knock at the wall)."""
    hand = list(state.hands()[player])
    cards = [a for a in state.legal_actions() if a < N_CARDS]
    return min(cards, key=lambda c: UTILS.min_deadwood([x for x in hand if x != c]))


def play_policy(policy, mirror: Mirror, seat: int, os_bot, match: Match) -> int:
    """Play one hand: ``policy`` (this project's actions) in ``seat``, ``os_bot`` in the other.

    The policy decides the offer, the draws and the discards (knocks included) from this
    project's observation; the rest is mechanics, done as OpenSpiel's bot does them so
    that only the decisions differ: it lays its least-deadwood melds when it knocks,
    never lays off when the other knocks (its first move there is a pass, which against
    gin also ends its meld laying: OpenSpiel's bot lays no melds against gin), and at
    OpenSpiel's wall knocks when it may. Returns the policy's points.
    """
    os_bot.restart()
    knock_card: int | None = None
    defending = False  # the policy has made its first move as the defender
    while not mirror.state.is_terminal():
        state = mirror.state
        player, phase = state.current_player(), state.current_phase()
        legal = state.legal_actions()
        if player != seat:
            action = os_bot.step(state)
        elif phase in (PH.FIRST_UPCARD, PH.DRAW, PH.DISCARD) and len(legal) > 1:
            obs, mask = mirror.ours(player)
            ours = int(policy.act(obs[None], mask[None])[0])
            if phase != PH.DISCARD:
                action = {TAKE: GR.DRAW_UPCARD_ACTION, DRAW: GR.DRAW_STOCK_ACTION}.get(
                    ours, GR.PASS_ACTION
                )
            elif ours >= KNOCK and GR.KNOCK_ACTION in legal:
                action, knock_card = GR.KNOCK_ACTION, to_os(ours - KNOCK)
            else:
                match.refused_knocks += ours >= KNOCK
                action = to_os(ours % KNOCK)
        elif phase == PH.KNOCK and len(state.hands()[player]) == 11:
            if knock_card is not None:
                action, knock_card = knock_card, None
            else:
                action = _least_deadwood_discard(state, player)
        elif phase == PH.KNOCK:
            action = _lay_melds(state, player)
        elif phase == PH.LAYOFF:
            action = _lay_melds(state, player) if defending else GR.PASS_ACTION
            defending = True
        elif phase == PH.WALL:
            action = GR.KNOCK_ACTION if GR.KNOCK_ACTION in legal else GR.PASS_ACTION
        else:
            action = legal[0]  # the forced stock draw
        mirror.apply(action)
    points = int(mirror.state.returns()[seat])
    match.points.append(points)
    return points


def match(policy, n_deals: int, seed: int) -> Match:
    """``policy`` against OpenSpiel's simple bot over ``n_deals`` deals, each from both seats."""
    game = pyspiel.load_game("gin_rummy")
    bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in range(2)]
    out = Match()
    for deck in deal_decks(n_deals, seed):
        for seat in (0, 1):
            play_policy(policy, Mirror(game, deck), seat, bots[1 - seat], out)
    return out

"""The lines of the web table's log said to a person: "You draw 7H", not "You draws 7H".

The engine's sentences (``hgin_env.replay.describe_action`` and ``result_lines``) are in
the third person ("Bob draws 7H from the stock"); a player named ``You`` hears them in
the second person. Both the games (the log) and the views (results, replays) use these,
so this module imports neither of them.
"""

from __future__ import annotations

import re

import numpy as np

from hgin_env.engine.actions import KNOCK
from hgin_env.engine.cards import N_CARDS, card_text
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine
from hgin_env.engine.melds import best_melds
from hgin_env.replay import describe_action

#: a sentence about "You" in the person's words: "You draws" -> "You draw"
_YOU_VERBS = {
    "passes": "pass", "takes": "take", "draws": "draw", "discards": "discard",
    "knocks": "knock", "undercuts": "undercut", "goes": "go", "deals": "deal",
}  # fmt: skip
_YOU_VERB = re.compile(r"^You (" + "|".join(_YOU_VERBS) + r")\b")
_ONE_POINTS = re.compile(r"\b1 points\b")
#: "You" inside a sentence (not after its start or a colon): "9 points to You." -> "to you."
_INNER_YOU = re.compile(r"(?<=[^.;:] )You\b")


def you_words(text: str) -> str:
    """A line of ``describe_action`` or ``result_lines`` as the page says it.

    Said to a player named ``You`` in the second person ("You draw", "9 points to
    you."), and "1 point".
    """
    text = _YOU_VERB.sub(lambda m: "You " + _YOU_VERBS[m[1]], text)
    return _ONE_POINTS.sub("1 point", _INNER_YOU.sub("you", text))


def action_line(engine: GinEngine, action: int, name: str, hidden_draw: bool = False) -> str:
    """``describe_action`` in the person's words when ``name`` is ``You`` ("You draw 7H").

    A knock that is a gin says so (``Bob goes gin, discarding 5C``; ``Bob goes big gin``
    when the rules have big gin and all 11 cards meld), as the hand's result will.
    """
    if KNOCK <= action < KNOCK + N_CARDS:
        gin = knock_kind(engine, action - KNOCK)
        if gin == "big gin":
            return you_words(f"{name} goes big gin, melding all 11 cards")
        if gin == "gin":
            return you_words(f"{name} goes gin, discarding {card_text(action - KNOCK)}")
    return you_words(describe_action(engine, action, name, hidden_draw))


def knock_kind(engine: GinEngine, card: int) -> str:
    """What a knock discarding ``card`` in game 0 is: ``"big gin"``, ``"gin"`` or ``"knock"``.

    Call before the knock is played (the seat to act holds 11 cards).
    """
    s = engine.state
    hand = np.asarray(s.hands[0, int(s.current[0])], bool)
    if engine.rules.big_gin_bonus is not None and not best_melds(hand)[1]:
        return "big gin"
    return "gin" if int(engine.discard_deadwood()[0][card]) == 0 else "knock"


def rules_words(rules: RulesConfig) -> str:
    """The rules in force in words: ``knock at 10 or less · gin bonus 25 · ...``.

    The hand's options first, then the score sheet's; an option that is off is said
    only where it differs from the default.
    """
    words = [
        f"knock at {rules.knock_limit} or less",
        f"gin bonus {rules.gin_bonus}",
        f"undercut bonus {rules.undercut_bonus}",
        "big gin off" if rules.big_gin_bonus is None else f"big gin bonus {rules.big_gin_bonus}",
        f"games to {rules.game_target}",
    ]
    default = RulesConfig()
    if rules.allow_rediscard:
        words.append("a card just taken may be discarded")
    if rules.max_turns_per_hand != default.max_turns_per_hand:
        words.append(f"a hand ends as a draw after {rules.max_turns_per_hand} turns")
    if rules.stop_when_decided:
        words.append("the series stops once decided")
    if rules.game_bonus:
        words.append(f"game bonus {rules.game_bonus}")
    if rules.box_bonus:
        words.append(f"box bonus {rules.box_bonus}")
    if rules.shutout_multiplier != 1:
        words.append(f"shutout x{rules.shutout_multiplier}")
    return " · ".join(words)


def deal_line(name: str, upcard: str) -> str:
    """The first line of a hand: ``Bob deals; upcard 7H`` (``You deal`` for You)."""
    return you_words(f"{name} deals; upcard {upcard}")

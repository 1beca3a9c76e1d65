"""The lines of the web table's log said to a person: "You draw 7H", not "You draws 7H".

The engine's sentences (``hgin_env.replay.describe_action`` and ``result_lines``) are in
the third person ("Bob draws 7H from the stock"); a player named ``You`` hears them in
the second person. Both the games (the log) and the views (results, replays) use these,
so this module imports neither of them.
"""

from __future__ import annotations

import re

from hgin_env.engine.game import GinEngine
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
    """``describe_action`` in the person's words when ``name`` is ``You`` ("You draw 7H")."""
    return you_words(describe_action(engine, action, name, hidden_draw))


def deal_line(name: str, upcard: str) -> str:
    """The first line of a hand: ``Bob deals; upcard 7H`` (``You deal`` for You)."""
    return you_words(f"{name} deals; upcard {upcard}")

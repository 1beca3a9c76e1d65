"""Reading the web table's requests: the JSON body and each field, checked, or a clear 400.

Every refusal is an ``ApiError`` (status, message, and the game's view for a refused
move). A message quotes at most a few dozen characters of what was sent (``shown``) and
never a path of the machine.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from hgin_env.engine.config import RulesConfig
from hgin_env.envs.spec import NONE, parse_value, split_items

#: the largest seed: the engine's keys are 64-bit
MAX_SEED = 2**64 - 1
#: the longest text field read (an opponent, the rules)
MAX_TEXT = 200
#: the longest name a player may give (it is shown in the heading, the log and the sheet)
MAX_NAME = 24
#: the most digits of a number in a body (Python refuses to read over 4,300)
MAX_DIGITS = 40
#: the table's range for an option whose engine range (``RulesConfig``) goes well past
#: a playable game, and why: the page refuses a value outside it with that reason
TABLE_RANGES: dict[str, tuple[int, int, str]] = {
    "knock_limit": (
        0, 30, "above 30 almost every hand may knock on its first discard (10 is usual)",
    ),
    "gin_bonus": (0, 200, "a bonus over 200 outweighs a whole game (25 is usual)"),
    "undercut_bonus": (0, 200, "a bonus over 200 outweighs a whole game (10 is usual)"),
    "big_gin_bonus": (0, 200, "a bonus over 200 outweighs a whole game (31 is usual)"),
}  # fmt: skip


class ApiError(Exception):
    """A refused request: its HTTP status, the message, and the game's view if any."""

    def __init__(self, status: int, message: str, state: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.state = state


@dataclass(frozen=True)
class Defaults:
    """What the page's forms start with (from the command line).

    Attributes:
        opponent: the opponent policy's name (one the server lists).
        seat: the person's seat.
        names: the person's and the opponent's names (``Opponent`` shows the policy).
        rules: the rules options.
        seed: the seed of the deals, or None for a random one per game.
    """

    opponent: str = "expert"
    seat: int = 0
    names: tuple[str, str] = ("You", "Opponent")
    rules: RulesConfig = dataclasses.field(default_factory=RulesConfig)
    seed: int | None = None


def shown(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters: what a message quotes of the input."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def rules_text(rules: RulesConfig) -> str:
    """The options that differ from the defaults, as ``play.py --rules`` takes them."""
    default = RulesConfig().to_dict()
    words = []
    for key, value in rules.to_dict().items():
        if value != default[key]:
            text = "none" if value is None else str(value).lower()
            words.append(f"{key}={text}")
    return " ".join(words)


def _number(text: str) -> int:
    """An integer of a JSON body; one of over ``MAX_DIGITS`` digits is refused."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ApiError(400, f"malformed request: a number has over {MAX_DIGITS} digits")
    return int(text)


def parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON object of a request body (an empty body is ``{}``).

    Raises:
        ApiError: 400 for a body that is not JSON, nested too deep, not an object,
            holding a number of over ``MAX_DIGITS`` digits, or a text that is not valid
            Unicode (a lone UTF-16 surrogate, as the escape ud800 decodes to).
    """
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw, parse_int=_number)
    except ApiError:
        raise
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"malformed request: the body is not JSON ({exc})") from exc
    except RecursionError as exc:
        raise ApiError(400, "malformed request: the JSON is nested too deep") from exc
    if not isinstance(data, dict):
        raise ApiError(400, "malformed request: the body must be a JSON object")
    try:  # a "\\ud800" escape decodes to a lone surrogate, which no reply can encode
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(
            400, "malformed request: a text holds an invalid Unicode escape (a lone surrogate)"
        ) from None
    except RecursionError:
        raise ApiError(400, "malformed request: the JSON is nested too deep") from None
    return data


async def read_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (its size is bounded by ``guards.RequestGuard``)."""
    return parse_body(await request.body())


def text_field(data: dict[str, Any], key: str, default: str) -> str:
    """A text field, stripped (blank: ``default``).

    Raises:
        ApiError: 400 for a value that is not a string or is over ``MAX_TEXT`` characters.
    """
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ApiError(400, f"malformed request: {key} must be a string, got {shown(value)}")
    if len(value) > MAX_TEXT:
        raise ApiError(400, f"{key} is over {MAX_TEXT} characters ({len(value)})")
    return value.strip() or default


def name_field(data: dict[str, Any], key: str, default: str) -> str:
    """A player's name: a text of at most ``MAX_NAME`` characters (blank: ``default``).

    Raises:
        ApiError: 400 for a value that is not a string or is too long.
    """
    value = data.get(key)
    if isinstance(value, str) and len(value.strip()) > MAX_NAME:
        raise ApiError(400, f"a name is at most {MAX_NAME} characters, got {len(value.strip())}")
    return text_field(data, key, default)


def seed_field(data: dict[str, Any], default: int | None) -> int | None:
    """The seed: an integer in 0..MAX_SEED or its decimal text; blank or null: ``default``.

    Raises:
        ApiError: 400 for anything else.
    """
    value = data.get("seed", default)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit() and len(text) <= 20:
            value = int(text)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise ApiError(
            400, f"the seed must be a whole number from 0 to {MAX_SEED}, got {shown(value)}"
        )
    return value


def seat_field(data: dict[str, Any], default: int) -> int:
    """The person's seat: 0 or 1 (or the text ``"0"``, ``"1"``).

    Raises:
        ApiError: 400 for anything else (``1.0`` and ``true`` included).
    """
    value = data.get("seat", default)
    if isinstance(value, str) and value.strip() in ("0", "1"):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1):
        raise ApiError(400, f"the seat must be 0 or 1, got {shown(value)}")
    return value


def page_rules(text: str) -> RulesConfig:
    """The rules of the page's Rules box, in the one spec grammar's ``key=value`` items.

    Each error names its field in the page's words: an unknown field before its value
    is read, a true/false field asks for true or false, a range without ``RulesConfig.``.

    Raises:
        ValueError: ``rules: ...`` naming the item or the field.
    """
    values = split_items(text.replace(",", " ").split(), "rules")
    defaults = RulesConfig().to_dict()
    for key in values:
        if key not in defaults:
            known = ", ".join(defaults)
            raise ValueError(f"rules: unknown rules field {shown(key)}; the fields are {known}")
    data: dict[str, Any] = {}
    for key, raw in values.items():
        default = defaults[key]
        if default is None and raw.lower() == NONE:  # a field that may be off
            data[key] = None
        else:
            kind = bool if isinstance(default, bool) else int
            data[key] = parse_value(raw, kind, f"rules: {key}")
    try:
        return RulesConfig.from_dict(data)
    except ValueError as exc:  # a range: "RulesConfig.knock_limit must be in 0..100, got 200"
        raise ValueError("rules: " + str(exc).removeprefix("RulesConfig.")) from exc


def check_table_ranges(rules: RulesConfig) -> None:
    """Refuse an option the engine takes but outside the table's range (``TABLE_RANGES``).

    Raises:
        ValueError: ``rules: knock_limit=99 is outside 0..30: ...`` with the reason.
    """
    for key, (lo, hi, why) in TABLE_RANGES.items():
        value = getattr(rules, key)
        if value is not None and not lo <= value <= hi:
            raise ValueError(f"rules: {key}={value} is outside {lo}..{hi}: {why}")


def rules_field(data: dict[str, Any], default: RulesConfig) -> RulesConfig:
    """The rules from ``key=value`` items (spaces or commas between them).

    The engine's ranges apply, then the table's (``TABLE_RANGES``), except to the
    server's own defaults (the command line's ``--rules``, which the page starts from).

    Raises:
        ApiError: 400 with ``page_rules``' reason (``rules: knock_limit must be ...``).
    """
    if "rules" not in data:
        return default
    text = text_field(data, "rules", "")
    try:
        rules = page_rules(text)
        if rules != default:
            check_table_ranges(rules)
        return rules
    except ValueError as exc:
        raise ApiError(400, str(exc)) from exc

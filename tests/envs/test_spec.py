"""The one spec grammar: bots, the search and the rules read ``key=value`` items alike."""

from __future__ import annotations

import pytest

from agents.registry import make
from agents.search.params import parse_params
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.spec import parse_rules, split_spec


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (make, "tempo:step", "bot 'tempo': bad item 'step': write key=value"),
        (parse_params, "worlds", "pimc: bad item 'worlds': write key=value"),
        (parse_rules, ["knock_limit"], "--rules: bad item 'knock_limit': write key=value"),
        (make, "tempo:step=1,step=2", "bot 'tempo': 'step' given twice"),
        (parse_params, "worlds=4,worlds=8", "pimc: 'worlds' given twice"),
        (parse_rules, ["knock_limit=5", "knock_limit=7"], "--rules: 'knock_limit' given twice"),
    ],
)  # fmt: skip
def test_a_malformed_or_repeated_item_reads_the_same_everywhere(parse, text, message):
    """Bots, the search and the rules give one text for a bad item and for a repeated key."""
    with pytest.raises(ValueError) as caught:
        parse(text)
    assert str(caught.value) == message


def test_none_means_off_where_a_field_may_be_off_and_is_an_error_elsewhere():
    """``none`` switches an optional rules option off, in --rules and in the search alike."""
    assert parse_rules(["big_gin_bonus=none"]).big_gin_bonus is None
    assert parse_params("big_gin_bonus=None").rules.big_gin_bonus is None
    with pytest.raises(ValueError, match="knock_limit"):
        parse_rules(["knock_limit=none"])
    for off in ("off", "null"):  # one word for off
        with pytest.raises(ValueError, match="must be an integer"):
            parse_rules([f"big_gin_bonus={off}"])
    assert parse_rules(["allow_rediscard=TRUE"]) == RulesConfig(allow_rediscard=True)


def test_split_spec_names_the_parts_of_a_spec():
    """NAME[@VERSION][:OPTIONS] splits into its three parts (missing ones empty or None)."""
    assert split_spec("pimc:worlds=8") == ("pimc", None, "worlds=8")
    assert split_spec("simple@2:") == ("simple", "2", "")
    assert split_spec("simple@") == ("simple", "", None)

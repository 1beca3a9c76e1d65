"""RulesConfig: every Option of docs/rules.md §3-4 with its default, validated."""

from __future__ import annotations

import dataclasses

import pytest

from hgin_env.engine.config import RulesConfig

#: every **Option** of docs/rules.md and its documented default
RULES_MD_OPTIONS = {
    "knock_limit": 10,
    "gin_bonus": 25,
    "undercut_bonus": 10,
    "big_gin_bonus": None,
    "allow_rediscard": False,
    "max_turns_per_hand": 200,
    "game_target": 100,
    "stop_when_decided": False,
    "game_bonus": 0,
    "box_bonus": 0,
    "shutout_multiplier": 1,
}


@pytest.mark.parametrize(("field", "default"), list(RULES_MD_OPTIONS.items()), ids=str)
def test_default_matches_rules_md(field, default):
    """Each RulesConfig default equals the Option's default in docs/rules.md."""
    value = getattr(RulesConfig(), field)
    assert value == default
    assert type(value) is type(default)


def test_fields_are_exactly_the_rules_md_options():
    """RulesConfig has one field per docs/rules.md Option and no other field."""
    assert {f.name for f in dataclasses.fields(RulesConfig)} == set(RULES_MD_OPTIONS)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("knock_limit", -1),
        ("knock_limit", 101),
        ("knock_limit", 10.0),
        ("knock_limit", "10"),
        ("knock_limit", True),
        ("knock_limit", None),
        ("gin_bonus", -1),
        ("gin_bonus", 25.5),
        ("undercut_bonus", -1),
        ("undercut_bonus", False),
        ("big_gin_bonus", -5),
        ("big_gin_bonus", "31"),
        ("allow_rediscard", 1),
        ("allow_rediscard", "yes"),
        ("allow_rediscard", None),
        ("max_turns_per_hand", 1),
        ("max_turns_per_hand", 0),
        ("game_target", 0),
        ("game_target", -100),
        ("stop_when_decided", 0),
        ("game_bonus", -1),
        ("box_bonus", -1),
        ("shutout_multiplier", 0),
        ("shutout_multiplier", 1.5),
    ],
    ids=lambda v: repr(v),
)
def test_invalid_value_raises_naming_field(field, value):
    """An out-of-range or wrongly typed option raises ValueError naming the field."""
    with pytest.raises(ValueError, match=field):
        RulesConfig(**{field: value})
    with pytest.raises(ValueError, match=field):
        RulesConfig.from_dict({field: value})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("knock_limit", 0),
        ("knock_limit", 100),
        ("gin_bonus", 20),
        ("big_gin_bonus", 0),
        ("big_gin_bonus", 31),
        ("allow_rediscard", True),
        ("max_turns_per_hand", 2),
        ("stop_when_decided", True),
        ("game_bonus", 100),
        ("box_bonus", 25),
        ("shutout_multiplier", 2),
    ],
    ids=lambda v: repr(v),
)
def test_valid_edge_values_accepted(field, value):
    """Boundary and common non-default values are accepted and stored as given."""
    assert getattr(RulesConfig(**{field: value}), field) == value


def test_from_dict_rejects_unknown_fields_naming_them():
    """from_dict raises ValueError naming every unknown key (e.g. a typo)."""
    with pytest.raises(ValueError, match="knock_limt"):
        RulesConfig.from_dict({"knock_limt": 5})
    with pytest.raises(ValueError) as excinfo:
        RulesConfig.from_dict({"gin_bonus": 20, "ginbonus": 20, "deck_size": 52})
    assert "ginbonus" in str(excinfo.value)
    assert "deck_size" in str(excinfo.value)


def test_from_dict_empty_or_none_gives_defaults():
    """from_dict(None) and from_dict({}) both give the default config."""
    assert RulesConfig.from_dict(None) == RulesConfig()
    assert RulesConfig.from_dict({}) == RulesConfig()


def test_from_dict_sets_given_fields_only():
    """from_dict sets the given fields and leaves the others at their defaults."""
    cfg = RulesConfig.from_dict({"knock_limit": 5, "gin_bonus": 20})
    assert cfg.knock_limit == 5
    assert cfg.gin_bonus == 20
    assert cfg.undercut_bonus == 10
    assert cfg.big_gin_bonus is None


def test_frozen():
    """RulesConfig is immutable: assigning a field raises FrozenInstanceError."""
    cfg = RulesConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.knock_limit = 5  # type: ignore[misc]
    assert cfg.knock_limit == 10


def test_to_dict_defaults():
    """to_dict of the default config is a plain dict equal to the docs/rules.md defaults."""
    d = RulesConfig().to_dict()
    assert type(d) is dict
    assert d == RULES_MD_OPTIONS


def test_to_dict_round_trip():
    """from_dict(cfg.to_dict()) == cfg for a config with every field changed."""
    cfg = RulesConfig(
        knock_limit=7,
        gin_bonus=20,
        undercut_bonus=25,
        big_gin_bonus=31,
        allow_rediscard=True,
        max_turns_per_hand=50,
        game_target=150,
        stop_when_decided=True,
        game_bonus=100,
        box_bonus=25,
        shutout_multiplier=2,
    )
    d = cfg.to_dict()
    assert all(d[k] != v for k, v in RULES_MD_OPTIONS.items())
    assert RulesConfig.from_dict(d) == cfg
    d["knock_limit"] = 0
    assert cfg.knock_limit == 7  # the dict is a copy

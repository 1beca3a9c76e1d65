"""The one options validator: every record is checked, and read, with the same messages."""

from __future__ import annotations

import dataclasses

import pytest

from agents.policies.model import PolicyLoadError, load_policy
from agents.training.config import TrainConfig
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.options import ConfigError, check_record, from_mapping, from_text, limits
from hgin_env.envs.config import EnvConfig
from hgin_env.envs.spec import parse_rules


@dataclasses.dataclass(frozen=True)
class Record:
    """A small options record for the tests."""

    count: int = dataclasses.field(default=1, metadata=limits(1, 9))
    rate: float = dataclasses.field(default=0.5, metadata=limits(above=0))
    word: str = dataclasses.field(default="a", metadata=limits(choices=("a", "b")))
    bonus: int | None = None
    flag: bool = False

    def __post_init__(self) -> None:
        check_record(self)


def test_a_field_out_of_its_limits_is_named_in_every_record():
    """A built record, a mapping and a name's items all refuse an out-of-range value by name."""
    with pytest.raises(ValueError, match=r"^RulesConfig.knock_limit must be in 0..100, got 101$"):
        RulesConfig(knock_limit=101)
    with pytest.raises(ValueError, match=r"^EnvConfig.illegal_penalty must be >= 0, got -1$"):
        EnvConfig(illegal_penalty=-1)
    with pytest.raises(ConfigError, match=r"^env.reward_scale must be > 0, got 0$"):
        from_mapping(TrainConfig, {"env": {"reward_scale": 0}})
    with pytest.raises(ValueError, match=r"^--rules: knock_limit must be in 0..100, got 101$"):
        parse_rules(["knock_limit=101"])
    with pytest.raises(PolicyLoadError, match=r"^pimc: knock_limit must be in 0..100, got 101$"):
        load_policy("pimc:knock_limit=101")
    with pytest.raises(PolicyLoadError, match=r"^bot 'tempo': step must be in 0..100, got 101$"):
        load_policy("tempo:step=101")


@pytest.mark.parametrize(
    ("read", "message"),
    [
        (lambda: parse_rules(["undercutbonus=3"]), "--rules: unknown option 'undercutbonus'; "
         "did you mean 'undercut_bonus'?"),
        (lambda: load_policy("pimc:wolds=8"), "pimc: unknown option 'wolds'; did you mean "
         "'worlds'?"),
        (lambda: load_policy("patient:knock_turn=3"), "bot 'patient': unknown option "
         "'knock_turn'; did you mean 'knock_turns'?"),
        (lambda: RulesConfig.from_dict({"gin_bonnus": 3}), "unknown rules field 'gin_bonnus'; "
         "did you mean 'gin_bonus'?"),
        (lambda: EnvConfig.from_dict({"rewardscale": 3}), "unknown env option 'rewardscale'; "
         "did you mean 'reward_scale'?"),
        (lambda: from_mapping(TrainConfig, {"ppo": {"lerning_rate": 1}}), "unknown field "
         "'ppo.lerning_rate'; did you mean 'learning_rate'?"),
    ],
)  # fmt: skip
def test_an_unknown_option_gets_a_suggestion_everywhere(read, message):
    """The rules, the env, the training config, the search and the bots all say "did you mean"."""
    with pytest.raises(ValueError) as caught:
        read()
    assert str(caught.value).startswith(message)


def test_from_text_reads_each_value_by_its_fields_type():
    """``true``/``false``, ``none`` where a field may be off, integers, numbers and words."""
    items = {"count": "3", "rate": "0.25", "word": "b", "bonus": "none", "flag": "TRUE"}
    assert from_text(Record, items, "rec") == Record(3, 0.25, "b", None, True)
    for key, raw, words in [
        ("count", "2.5", "rec: count must be an integer, got '2.5'"),
        ("count", "0", "rec: count must be in 1..9, got 0"),
        ("rate", "nan", "rec: rate must be finite, got 'nan'"),
        ("rate", "0", "rec: rate must be > 0, got 0"),
        ("word", "c", "rec: word must be one of ['a', 'b'], got 'c'"),
        ("flag", "yes", "rec: flag must be true or false, got 'yes'"),
        ("bonus", "off", "rec: bonus must be an integer, got 'off'"),
    ]:
        with pytest.raises(ConfigError) as caught:
            from_text(Record, {key: raw}, "rec")
        assert str(caught.value) == words


def test_a_built_record_is_checked_strictly():
    """A record holds typed values: a string, a bool for an int, or a float for a bool fail."""
    for kwargs, words in [
        ({"count": "3"}, "Record.count must be an integer, got '3'"),
        ({"count": True}, "Record.count must be an integer, got True"),
        ({"flag": 1}, "Record.flag must be true or false, got 1"),
        ({"word": "z"}, "Record.word must be one of ['a', 'b'], got 'z'"),
    ]:
        with pytest.raises(ConfigError) as caught:
            Record(**kwargs)
        assert str(caught.value) == words

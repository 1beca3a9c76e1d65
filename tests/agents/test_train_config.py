"""Training configs: YAML files map onto typed dataclasses, and mistakes fail naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import hgin_cli.train as train_cli
from agents.training.config import (
    ConfigError,
    TrainConfig,
    build_config,
    load_config,
    parse_override,
)

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_load(path: Path) -> None:
    """Every shipped config file loads into a TrainConfig."""
    assert isinstance(load_config(path), TrainConfig)


def test_required_configs_are_shipped() -> None:
    """default, vs_simple and selfplay configs exist."""
    assert {"default.yaml", "vs_simple.yaml", "selfplay.yaml"} <= {p.name for p in CONFIGS}


def test_default_config_is_used_without_a_path() -> None:
    """load_config() with no path reads configs/default.yaml."""
    assert load_config() == load_config(Path("configs/default.yaml"))


@pytest.mark.parametrize(
    ("override", "named", "suggested"),
    [
        ("ppo.lerning_rate=1e-4", "ppo.lerning_rate", "learning_rate"),
        ("rules.gin_bonnus=20", "rules.gin_bonnus", "gin_bonus"),
        ("opponents.selfplay.pool_sise=3", "opponents.selfplay.pool_sise", "pool_size"),
        ("total_timestep=5", "total_timestep", "total_timesteps"),
        ("env.mdoe=hand", "env.mdoe", "mode"),
    ],
)
def test_unknown_field_fails_with_its_dotted_name(override, named, suggested) -> None:
    """An unknown field is named with its dotted path and the closest valid name."""
    with pytest.raises(ConfigError) as info:
        build_config({}, [override])
    assert f"unknown field '{named}'" in str(info.value)
    assert f"did you mean '{suggested}'" in str(info.value)


def test_unknown_field_in_a_file_names_the_file(tmp_path: Path) -> None:
    """A config file with an unknown field fails naming the file and the field."""
    path = tmp_path / "bad.yaml"
    path.write_text("ppo:\n  n_envs: 4\n  lerning_rate: 0.001\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml.*ppo\.lerning_rate"):
        load_config(path)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("ppo.n_steps=many", "ppo.n_steps must be an integer"),
        ("ppo.normalize_advantage=3", "ppo.normalize_advantage must be true or false"),
        ("ppo.net_arch=64", "ppo.net_arch must be a list"),
        ("eval.best_metric=elo", "eval.best_metric must be one of"),
        ("opponents.mix=[random]", "opponents.mix must be a mapping"),
        ("ppo=3", "ppo must be a mapping"),
    ],
)
def test_wrong_type_fails_naming_the_field(override, message) -> None:
    """A value of the wrong type fails with the field's dotted name."""
    with pytest.raises(ConfigError, match=message):
        build_config({}, [override])


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("rules.knock_limit=200", "knock_limit"),
        ("ppo.batch_size=100000", "ppo.batch_size"),
        ("opponents.selfplay.weight=2", "opponents.selfplay.weight"),
        ("env.mode=tournament", "mode"),
        ("eval.n_hands=-1", "eval.n_hands"),
    ],
)
def test_invalid_value_fails_naming_the_field(override, message) -> None:
    """A well-typed but invalid value fails with the field's name."""
    with pytest.raises(ConfigError, match=message):
        build_config({}, [override])


def test_overrides_are_parsed_as_yaml() -> None:
    """--set values are YAML: numbers (1e-4 included), lists, mappings, null."""
    config = build_config(
        {},
        [
            "ppo.learning_rate=1e-4",
            "ppo.net_arch=[64, 32]",
            "opponents.mix={simple: 2, random: 1}",
            "ppo.target_kl=null",
            "rules.big_gin_bonus=31",
        ],
    )
    assert config.ppo.learning_rate == pytest.approx(1e-4)
    assert config.ppo.net_arch == (64, 32)
    assert config.opponents.mix == {"simple": 2.0, "random": 1.0}
    assert config.ppo.target_kl is None
    assert config.rules.big_gin_bonus == 31


def test_override_without_equals_sign_fails() -> None:
    """An override that is not key=value fails with an example of the syntax."""
    with pytest.raises(ConfigError, match="key=value"):
        parse_override("ppo.learning_rate")


def test_seed_keyword_overrides_the_file() -> None:
    """Keyword fields (the CLI's --seed) win over the file and the overrides."""
    assert build_config({"seed": 1}, ["seed=2"], seed=7).seed == 7


def test_resolved_config_round_trips_through_yaml() -> None:
    """The saved YAML of a config loads back to an equal config."""
    config = build_config({}, ["ppo.net_arch=[8]", "opponents.selfplay.enabled=true"])
    assert build_config(yaml.safe_load(config.to_yaml())) == config


def test_saved_yaml_lists_every_section() -> None:
    """The resolved YAML has every section, so a run folder documents all settings."""
    data = yaml.safe_load(TrainConfig().to_yaml())
    assert {"rules", "env", "opponents", "ppo", "eval", "checkpoint"} <= set(data)
    assert data["rules"]["knock_limit"] == 10


def test_cli_reports_unknown_field_and_exits(capsys) -> None:
    """train.py exits with status 2 and names an unknown --set field."""
    assert train_cli.main(["--set", "ppo.lerning_rate=1e-4"]) == 2
    assert "ppo.lerning_rate" in capsys.readouterr().err


def test_cli_print_config_shows_overrides(capsys) -> None:
    """train.py --print-config prints the resolved config with --set and --seed applied."""
    assert train_cli.main(["--print-config", "--seed", "5", "--set", "ppo.n_epochs=3"]) == 0
    data = yaml.safe_load(capsys.readouterr().out)
    assert data["seed"] == 5
    assert data["ppo"]["n_epochs"] == 3


def _dotted_fields(data: dict, prefix: str = "") -> list[str]:
    names = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name != "opponents.mix":
            names += _dotted_fields(value, f"{name}.")
        else:
            names.append(name)
    return names


def test_every_config_field_is_documented() -> None:
    """README.md (or a page of docs/) names every config field by its dotted path."""
    root = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
    docs = "".join(p.read_text() for p in [root / "README.md", *sorted(root.glob("docs/*.md"))])
    missing = [name for name in _dotted_fields(TrainConfig().to_dict()) if f"`{name}`" not in docs]
    assert not missing, f"fields missing from docs/training.md: {missing}"


def test_a_rules_mix_is_checked_and_saved_with_the_run() -> None:
    """env.rules_mix is kept in the saved config; bad mixes are refused naming env.rules_mix."""
    from agents.training.config import build_config

    mix = "env.rules_mix=[{undercut_bonus: 10}, {undercut_bonus: 25, weight: 2}]"
    config = build_config({}, [mix])
    assert config.to_dict()["env"]["rules_mix"][1] == {"undercut_bonus": 25, "weight": 2}
    for bad, message in [
        ("env.rules_mix=[]", "env.rules_mix is empty"),
        ("env.rules_mix=[{undercutt: 1}]", r"env.rules_mix\[0\]: unknown rules field"),
        ("env.rules_mix=[{weight: -1}]", "weight must be a number >= 0"),
        ("env.rules_mix=[{undercut_bonus: -1}]", "undercut_bonus must be in"),
        ("env.rules_mix=[{}, {game_target: 50}]", "game_target differs"),
    ]:
        with pytest.raises(ConfigError, match=message):
            build_config({}, [bad])

"""Training configs: YAML files map onto typed dataclasses, and mistakes fail naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml
from helpers.training import TINY, tiny_config, tiny_yaml

import hgin_cli.train as train_cli
from agents.training.config import (
    ConfigError,
    TrainConfig,
    build_config,
    load_config,
    parse_override,
)
from agents.training.run import make_run_dir
from agents.training.sb3.runner import train

CONFIGS = sorted((Path(__file__).resolve().parents[3] / "configs").glob("*.yaml"))


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


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ("opponents.mix={nosuchbot: 1}", "opponents.mix.nosuchbot: unknown policy 'nosuchbot'"),
        ("eval.opponents=[random, nosuch]", "eval.opponents[1]: unknown policy 'nosuch'"),
        ("pretrain.teacher=nosuch", "pretrain.teacher: unknown policy 'nosuch'"),
        ("pretrain.init_from=missing/model.zip", "pretrain.init_from: cannot load model"),
        ("pretrain.init_from=simple", "pretrain.init_from: 'simple' is not a model"),
    ],
)
def test_unknown_policies_fail_config_validation(override: str, named: str) -> None:
    """A policy that names nothing fails when the config is built, naming the field."""
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        build_config(TINY, [override])


def test_known_policies_pass_config_validation(tmp_path: Path) -> None:
    """Bots, a shipped model name and an existing model file are accepted."""
    model = tmp_path / "model.zip"
    model.write_bytes(b"checked when it loads")
    config = build_config(
        TINY, ["opponents.mix={simple: 1, expert: 1, ppo-cards: 1}",
               f"eval.opponents=[random, {model}]", f"pretrain.init_from={model}"],
    )  # fmt: skip
    assert config.pretrain.init_from == str(model)


def test_unknown_policy_creates_no_run_folder(tmp_path: Path, capsys) -> None:
    """train.py with a bad opponent name: status 2, one line, and no run folder."""
    config = tiny_yaml(tmp_path)
    assert train_cli.main(["--config", str(config), "--set", "opponents.mix={nosuchbot: 1}"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "nosuchbot" in lines[0]
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", ["nan", ".nan", "inf", "-.inf"])
def test_non_finite_floats_are_refused(value: str) -> None:
    """--set ppo.learning_rate=nan (or inf) fails validation, naming the field."""
    with pytest.raises(ConfigError, match="ppo.learning_rate must be a finite number"):
        build_config(TINY, [f"ppo.learning_rate={value}"])


@pytest.mark.parametrize("name", ["../escape_probe", "a/b", "..", "a\\b", ""])
def test_run_names_with_path_parts_are_refused(tmp_path: Path, name: str) -> None:
    """--run-name must be a plain folder name: nothing is created outside runs_dir."""
    config = tiny_config(tmp_path / "runs")
    with pytest.raises(ConfigError, match="plain folder name"):
        make_run_dir(config, name)
    assert not (tmp_path / "escape_probe").exists() and not (tmp_path / "runs").exists()


def test_cuda_device_without_cuda_is_refused(tmp_path: Path, monkeypatch) -> None:
    """ppo.device=cuda where torch sees no CUDA: a ConfigError before any run folder."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for device, message in (("cuda", "finds no CUDA device"), ("cdua", "not a torch device")):
        with pytest.raises(ConfigError, match=message):
            train(tiny_config(tmp_path / "runs", f"ppo.device={device}"), run_name="gpu")
    assert not (tmp_path / "runs").exists()

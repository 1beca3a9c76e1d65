"""train.py: checks before any work, configs, --print-config."""

from __future__ import annotations

from pathlib import Path

import yaml
from helpers.reports import NOWHERE, one_error_line
from helpers.training import TINY

import hgin_cli.train as train_cli


def test_train_checks_its_runs_dir_before_any_work(tmp_path: Path, capsys) -> None:
    """train.py --set runs_dir=/proc/nope: status 2 and one line naming the folder."""
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    assert train_cli.main(["--config", str(config), "--set", f"runs_dir={NOWHERE}"]) == 2
    _, line = one_error_line(capsys)
    assert "cannot create the run folder /proc/nope/" in line


def test_non_utf8_config_is_one_line(tmp_path: Path, capsys) -> None:
    """A config file that is not UTF-8 text: status 2 and one line naming it."""
    config = tmp_path / "latin1.yaml"
    config.write_bytes("experiment: caf\xe9\n".encode("latin-1"))
    assert train_cli.main(["--config", str(config), "--print-config"]) == 2
    assert "not UTF-8" in one_error_line(capsys)[1]


def test_print_config_of_a_missing_run_is_one_line(tmp_path: Path, capsys) -> None:
    """--resume of a folder without config.yaml with --print-config: status 2, one line."""
    assert train_cli.main(["--resume", str(tmp_path / "nonexistent"), "--print-config"]) == 2
    assert "is not a run folder" in one_error_line(capsys)[1]


def test_nan_learning_rate_is_refused_on_the_command_line(capsys) -> None:
    """--set ppo.learning_rate=nan fails validation: status 2, one line."""
    assert train_cli.main(["--set", "ppo.learning_rate=nan", "--print-config"]) == 2
    assert "ppo.learning_rate must be a finite number" in one_error_line(capsys)[1]


def test_print_config_of_a_resume_shows_the_overrides(tmp_path: Path, capsys) -> None:
    """--resume X --set total_timesteps=5 --print-config prints the saved config with 5."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text(yaml.safe_dump({**TINY, "total_timesteps": 1024}))
    argv = ["--resume", str(run), "--set", "total_timesteps=5", "--print-config"]
    assert train_cli.main(argv) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["total_timesteps"] == 5 and printed["experiment"] == "tiny"

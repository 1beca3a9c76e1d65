"""Issue 17, command lines: checks before any work (outputs, opponents, configs), --help."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers import TINY, save_model

import hgin_cli.evaluate as evaluate_cli
import hgin_cli.play as play_cli
import hgin_cli.train as train_cli
from agents.output_paths import OutputPathError, check_writable
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM, PRIVILEGED_DIM

#: a folder no one can create files in (mkdir there fails with ENOENT, even for root)
NOWHERE = Path("/proc/nope")


def one_error_line(capsys) -> tuple[str, str]:
    """(stdout, the single stderr line); fails unless stderr holds exactly one line."""
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    return out.out, lines[0]


# ---------------------------------------------------------------- item 4: outputs


@pytest.mark.parametrize("option", ["--json", "--transcript"])
def test_evaluate_checks_its_output_before_playing(option: str, capsys) -> None:
    """An unwritable --json or --transcript: status 2, one line, and no game played."""
    path = NOWHERE / "x.json"
    argv = ["random", "simple", "--series", "20", "--no-progress", option, str(path)]
    assert evaluate_cli.main(argv) == 2
    out, line = one_error_line(capsys)
    assert str(path.parent) in line and "No such file or directory" in line
    assert "series" not in out  # no results table: nothing was played


def test_play_checks_its_transcript_before_the_game(capsys) -> None:
    """play.py --transcript to an unwritable path fails at once (status 2, one line)."""
    assert play_cli.main(["simple", "--transcript", str(NOWHERE / "x.jsonl")]) == 2
    out, line = one_error_line(capsys)
    assert "cannot write /proc/nope/x.jsonl" in line and out == ""


def test_train_checks_its_runs_dir_before_any_work(tmp_path: Path, capsys) -> None:
    """train.py --set runs_dir=/proc/nope: status 2 and one line naming the folder."""
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    assert train_cli.main(["--config", str(config), "--set", f"runs_dir={NOWHERE}"]) == 2
    _, line = one_error_line(capsys)
    assert "cannot create the run folder /proc/nope/" in line


def test_the_output_check_leaves_nothing_behind(tmp_path: Path, capsys) -> None:
    """Checking a new path creates and removes its folders; an existing file is untouched."""
    target = tmp_path / "a" / "b" / "out.json"
    argv = ["random", "nosuchbot", "--series", "2", "--json", str(target)]
    assert evaluate_cli.main(argv) == 2  # fails on the policy, after the output check
    assert "nosuchbot" in one_error_line(capsys)[1]
    assert list(tmp_path.iterdir()) == []
    existing = tmp_path / "keep.json"
    existing.write_text("old")
    check_writable(existing)
    assert existing.read_text() == "old"
    with pytest.raises(OutputPathError, match="is a directory"):
        check_writable(tmp_path)


# ---------------------------------------------------------------- item 5: --against


def test_against_resolves_every_opponent_first(capsys) -> None:
    """A typo in the last --against name fails before the first pairing is played."""
    argv = ["random", "--against", "simple", "nosuchbot", "--series", "5", "--no-progress"]
    assert evaluate_cli.main(argv) == 2
    out, line = one_error_line(capsys)
    assert "unknown policy 'nosuchbot'" in line
    assert out == ""  # no table for random vs simple


# ---------------------------------------------------------------- item 10: inputs


@pytest.mark.parametrize("form", ["pair", "against"])
def test_privileged_width_mlp_fails_the_load_check(tmp_path: Path, form: str, capsys) -> None:
    """A MaskablePPO MLP with 499 inputs is refused when loaded, not by a shape error later."""
    model = save_model(tmp_path / "wide.zip", OBS_DIM + PRIVILEGED_DIM, N_ACTIONS)
    extra = ["random"] if form == "pair" else ["--against", "random"]
    assert evaluate_cli.main([str(model), *extra, "--series", "2", "--no-progress"]) == 2
    out, line = one_error_line(capsys)
    assert f"cannot use model {model}" in line and f"{OBS_DIM}-entry observation" in line
    assert out == ""


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


# ---------------------------------------------------------------- item 15: --help


def test_evaluate_help_shows_the_defaults(capsys) -> None:
    """evaluate.py --help says --series defaults to 1000 and --seed to 0."""
    with pytest.raises(SystemExit):
        evaluate_cli.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "per pair (default 1000)" in text and "the bots (default 0)" in text

"""evaluate.py as a user runs it: pair, league and --against output, JSON, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.policies import save_model
from helpers.reports import LEAGUE_KEYS, NOWHERE, check_pair_schema, one_error_line

import hgin_cli.evaluate as cli
import hgin_cli.evaluate as evaluate_cli
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM, PRIVILEGED_DIM

ROOT = Path(__file__).resolve().parents[2]


def test_cli_pair_writes_json(tmp_path, capsys):
    """``evaluate.py A B --json`` prints a table and writes the pair's JSON schema."""
    out = tmp_path / "pair.json"
    code = cli.main(["simple", "random", "--series", "3", "--seed", "1", "--json", str(out)])
    assert code == 0
    assert "series won" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data.pop("provenance")["seeds"]["seed"] == 1  # the one block beside the results
    check_pair_schema(data)
    assert data["name_a"] == "simple" and data["n_series"] == 3


def test_cli_league_writes_json(tmp_path, capsys):
    """``evaluate.py --league`` prints ratings and matrices and writes the league JSON schema."""
    out = tmp_path / "league.json"
    args = ["--league", "random", "simple", "expert", "--series", "2", "--json", str(out)]
    assert cli.main([*args, "--duplicate", "--no-progress"]) == 0
    assert "Ratings" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert set(data) == {*LEAGUE_KEYS, "provenance"}
    assert len(data["pairs"]) == 3
    for pair in data["pairs"]:
        check_pair_schema(pair)
        assert pair["n_series"] == 4
    assert [len(row) for row in data["series_win_rate"]] == [3, 3, 3]
    assert {r["name"] for r in data["ratings"]} == {"random", "simple", "expert"}
    assert set(data["ratings"][0]) == {"name", "rating", "ci_low", "ci_high"}


def test_cli_against_prints_the_results_table(tmp_path, capsys):
    """``evaluate.py A --against B C`` plays A against each and prints one markdown table."""
    out = tmp_path / "against.json"
    args = ["simple", "--against", "random", "expert", "--series", "3", "--seed", "2"]
    assert cli.main([*args, "--no-progress", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    table = [line for line in printed.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| opponent | series | series won")
    assert [row.split(" | ")[0] for row in table[1:]] == ["| random", "| expert"]
    data = json.loads(out.read_text())
    assert data["agent"] == "simple" and data["seed"] == 2
    assert list(data["results"]) == ["random", "expert"]
    for pair in data["results"].values():
        check_pair_schema(pair)
    # the table's series figure is the JSON's
    rate = data["results"]["random"]["series_win_rate"]
    assert f"| random | 3 | {100 * rate:.1f}%" in printed


def test_cli_against_needs_exactly_one_policy(capsys):
    """``--against`` with two policies fails with a usage message."""
    with pytest.raises(SystemExit):
        cli.main(["simple", "random", "--against", "expert"])
    assert "exactly one policy" in capsys.readouterr().err


def test_cli_rejects_a_bad_name_with_a_clear_message():
    """An unknown policy name exits with status 2 and a one-line error listing the bots."""
    proc = subprocess.run(
        [sys.executable, "evaluate.py", "simple", "no-such-bot", "--series", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "unknown policy 'no-such-bot'" in lines[0] and "simple" in lines[0]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "simple@3",
            "unknown version 'simple@3' of 'simple'; known versions: simple@1, simple@2",
        ),
        ("patient:knock_turns=-1", "bot 'patient': knock_turns must be in 0..100, got -1"),
        ("tempo:speed=2", "bot 'tempo': unknown option 'speed'"),
    ],
)
def test_cli_refuses_a_bad_version_or_option_by_name(name, message):
    """A bad bot version or option exits with status 2 and one line naming it."""
    proc = subprocess.run(
        [sys.executable, "evaluate.py", "random", name, "--series", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_cli_json_records_each_players_version(tmp_path):
    """``--json`` records the exact version of each bot: the newest for a bare name."""
    out = tmp_path / "pair.json"
    cli.main(["simple@1", "patient:knock_turns=4", "--series", "2", "--json", str(out),
              "--no-progress"])  # fmt: skip
    data = json.loads(out.read_text())
    assert (data["version_a"], data["version_b"]) == ("simple@1", "patient@1:knock_turns=4")
    cli.main(["simple", "random", "--series", "2", "--json", str(out), "--no-progress"])
    data = json.loads(out.read_text())
    assert (data["version_a"], data["version_b"]) == ("simple@2", "random@1")


def test_cli_rules_play_the_series_under_them_and_are_recorded(tmp_path, capsys):
    """``--rules undercut_bonus=25`` plays every pair (pair, --against, --workers) under them."""
    out = tmp_path / "r.json"
    args = ["simple", "random", "--series", "4", "--seed", "2", "--no-progress"]
    assert cli.main([*args, "--rules", "undercut_bonus=25,knock_limit=10", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["rules"]["undercut_bonus"] == 25 and data["rules"]["knock_limit"] == 10
    again = tmp_path / "w.json"
    assert (
        cli.main([*args, "--rules", "undercut_bonus=25", "--workers", "2", "--json", str(again)])
        == 0
    )
    assert json.loads(again.read_text())["rules"] == data["rules"]
    plain = tmp_path / "p.json"
    assert cli.main([*args, "--json", str(plain)]) == 0
    assert json.loads(plain.read_text())["rules"]["undercut_bonus"] == 10
    against = tmp_path / "a.json"
    assert cli.main(["simple", "--against", "random", *args[2:], "--rules", "gin_bonus=30",
                     "--json", str(against)]) == 0  # fmt: skip
    assert json.loads(against.read_text())["rules"]["gin_bonus"] == 30
    capsys.readouterr()
    assert cli.main([*args, "--rules", "undercut_bonus=-3"]) == 2
    assert "undercut_bonus must be in" in capsys.readouterr().err
    assert cli.main([*args, "--rules", "undercutt=3"]) == 2
    assert "--rules: unknown option 'undercutt'" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--json", "--transcript"])
def test_evaluate_checks_its_output_before_playing(option: str, capsys) -> None:
    """An unwritable --json or --transcript: status 2, one line, and no game played."""
    path = NOWHERE / "x.json"
    argv = ["random", "simple", "--series", "20", "--no-progress", option, str(path)]
    assert evaluate_cli.main(argv) == 2
    out, line = one_error_line(capsys)
    assert str(path.parent) in line and "No such file or directory" in line
    assert "series" not in out  # no results table: nothing was played


def test_against_resolves_every_opponent_first(capsys) -> None:
    """A typo in the last --against name fails before the first pairing is played."""
    argv = ["random", "--against", "simple", "nosuchbot", "--series", "5", "--no-progress"]
    assert evaluate_cli.main(argv) == 2
    out, line = one_error_line(capsys)
    assert "unknown policy 'nosuchbot'" in line
    assert out == ""  # no table for random vs simple


@pytest.mark.parametrize("form", ["pair", "against"])
def test_privileged_width_mlp_fails_the_load_check(tmp_path: Path, form: str, capsys) -> None:
    """A MaskablePPO MLP with 499 inputs is refused when loaded, not by a shape error later."""
    model = save_model(tmp_path / "wide.zip", OBS_DIM + PRIVILEGED_DIM, N_ACTIONS)
    extra = ["random"] if form == "pair" else ["--against", "random"]
    assert evaluate_cli.main([str(model), *extra, "--series", "2", "--no-progress"]) == 2
    out, line = one_error_line(capsys)
    assert f"cannot use model {model}" in line and f"{OBS_DIM}-entry observation" in line
    assert out == ""


def test_evaluate_help_shows_the_defaults(capsys) -> None:
    """evaluate.py --help says --series defaults to 1000 and --seed to 0."""
    with pytest.raises(SystemExit):
        evaluate_cli.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "per pair (default 1000)" in text and "the bots (default 0)" in text

"""The commands' shared habits: --rules, --list-policies, --version, epilogs, hints.

Also the install hint, provenance in the JSON and the default opponent.
"""

import hashlib
import json

import pytest

from hgin_cli import common
from hgin_cli import evaluate as evaluate_cli
from hgin_cli import play as play_cli
from hgin_cli import plot as plot_cli
from hgin_cli import train as train_cli
from hgin_cli import tune as tune_cli
from hgin_env import __version__


def test_rules_before_the_policies_do_not_swallow_them(tmp_path):
    """``--rules k=v A B`` and the repeated or comma forms all reach the rules, not A B."""
    out = tmp_path / "r.json"
    argv = ["--rules", "undercut_bonus=25", "--rules", "knock_limit=9,gin_bonus=30",
            "simple", "random", "--series", "2", "--no-progress", "--json", str(out)]  # fmt: skip
    assert evaluate_cli.main(argv) == 0
    rules = json.loads(out.read_text())["rules"]
    assert (rules["undercut_bonus"], rules["knock_limit"], rules["gin_bonus"]) == (25, 9, 30)
    args = play_cli.parse_args(["--rules", "knock_limit=7", "simple"])
    assert args.opponent == "simple" and args.rules.knock_limit == 7


@pytest.mark.parametrize("module", [evaluate_cli, play_cli])
def test_list_policies_prints_every_name_with_its_version(module, capsys):
    """--list-policies: each registered name, its version and a line on what it is."""
    with pytest.raises(SystemExit) as stop:
        module.parse_args(["--list-policies"])
    assert stop.value.code == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for name in ("random", "simple", "expert", "patient", "tempo", "pimc", "searcher"):
        assert name in lines
    assert "simple@2" in lines["simple"] and "searcher@" in lines["searcher"]
    assert "sha256:" in lines["ppo-taught"]
    assert len(lines["expert"].split(None, 2)[2]) > 10  # a description


@pytest.mark.parametrize(
    "parse",
    [evaluate_cli.parse_args, play_cli.parse_args, train_cli.parse_args,
     lambda argv: play_cli.parse_args(argv, web_only=True), plot_cli.parse_args,
     tune_cli.parse_args],
)  # fmt: skip
def test_every_command_has_version_and_examples(parse, capsys):
    """--version prints the package's version; --help ends with examples."""
    with pytest.raises(SystemExit) as stop:
        parse(["--version"])
    assert stop.value.code == 0 and __version__ in capsys.readouterr().out
    with pytest.raises(SystemExit):
        parse(["--help"])
    assert "examples:" in capsys.readouterr().out


def test_version_is_0_2_0_in_the_package_metadata():
    """The installed metadata and ``hgin_env.__version__`` agree."""
    from importlib import metadata

    assert __version__ == "0.2.0" == metadata.version("hollywood-gin")


def test_unknown_name_in_an_uninstalled_clone_says_make_setup(monkeypatch, capsys):
    """Without the installed package the error tells how to install; installed, it does not."""
    monkeypatch.setattr(common, "installed", lambda: False)
    assert evaluate_cli.main(["simpel", "random", "--series", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown policy 'simpel'" in err and "make setup" in err
    monkeypatch.setattr(common, "installed", lambda: True)
    assert evaluate_cli.main(["simpel", "random", "--series", "1", "--no-progress"]) == 2
    assert "make setup" not in capsys.readouterr().err


def test_results_json_carries_provenance(tmp_path):
    """Version, commit, each model file's sha256, rules and seeds, under one key."""
    from agents.evaluation.provenance import model_files

    out = tmp_path / "p.json"
    argv = ["ppo-cards", "random", "--series", "1", "--seed", "5", "--no-progress",
            "--rules", "undercut_bonus=25", "--json", str(out)]  # fmt: skip
    assert evaluate_cli.main(argv) == 0
    prov = json.loads(out.read_text())["provenance"]
    assert prov["version"] == __version__
    assert prov["git"] is None or len(prov["git"]["commit"]) == 40
    assert prov["seeds"]["seed"] == 5 and prov["rules"]["undercut_bonus"] == 25
    files = model_files("ppo-cards")
    assert files and list(prov["models"]) == ["ppo-cards"]
    hashes = prov["models"]["ppo-cards"]
    assert sorted(hashes.values()) == sorted(
        hashlib.sha256(f.read_bytes()).hexdigest() for f in files
    )


def test_play_defaults_to_the_strongest_shipped_network():
    """play.py and the web table start against ppo-taught (docs/results.md's strongest)."""
    assert play_cli.default_opponent() == "ppo-taught"


def test_every_shipped_model_has_a_fresh_generated_card():
    """models/<name>/README.md is what the generator writes from the folder's files."""
    from agents.policies.model import MODELS_DIR
    from hgin_cli import model_card

    folders = sorted(p for p in MODELS_DIR.iterdir() if p.is_dir())
    assert folders
    for folder in folders:
        card = (folder / "README.md").read_text()
        assert card == model_card.make_card(folder), f"{folder.name}: run make cards"
        for section in ("## How it was made", "## What it sees", "## Results",
                        "## Known weaknesses", "## Load it"):  # fmt: skip
            assert section in card, (folder.name, section)
        assert f'load_policy("{folder.name}")' in card and "sha256" in card
    for name in ("ppo-knock", "ppo-taught"):  # made by expert iteration, not by train.py
        card = (MODELS_DIR / name / "README.md").read_text()
        assert "Not trained by `train.py`" in card and "expert_iteration.json" in card
    assert model_card.main(["--check"]) == 0


def test_model_card_reads_results_and_weaknesses_from_the_files(tmp_path):
    """A copied folder with a changed result gives a changed card (nothing hard-coded)."""
    import shutil

    from agents.policies.model import MODELS_DIR
    from hgin_cli import model_card

    folder = tmp_path / "ppo-cards"
    shutil.copytree(MODELS_DIR / "ppo-cards", folder)
    data = json.loads((folder / "eval.json").read_text())
    data["results"]["simple"].update(series_win_rate=0.3, series_win_ci=[0.25, 0.35])
    (folder / "eval.json").write_text(json.dumps(data))
    card = model_card.make_card(folder)
    assert "30.0% [25.0%, 35.0%]" in card and "loses to `simple`" in card
    assert model_card.main([str(folder), "--check"]) == 1


@pytest.mark.parametrize("module", ["hgin_env.replay", "hgin_cli.model_card"])
def test_the_module_commands_have_version(module, capsys):
    """``python -m hgin_env.replay --version`` and the card writer's print the version."""
    import importlib

    with pytest.raises(SystemExit) as stop:
        importlib.import_module(module).main(["--version"])
    assert stop.value.code == 0 and __version__ in capsys.readouterr().out


@pytest.mark.parametrize("script", ["evaluate.py", "train.py", "play.py"])
def test_a_clone_without_its_dependencies_says_make_setup(script):
    """``python -S evaluate.py`` (no site-packages: numpy missing) names the fix, status 2."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-S", str(root / script), "simple", "random"],
        cwd=root, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "make setup" in proc.stderr and "Traceback" not in proc.stderr


def test_provenance_hashes_the_networks_a_search_uses():
    """A searcher's prior and rollout networks are hashed too (its fixed parameters name them)."""
    from agents.evaluation.provenance import model_hashes

    assert sorted(model_hashes(["searcher@1", "simple"])) == ["ppo-league2"]
    assert sorted(model_hashes(["searcher@3"])) == ["ppo-league2", "ppo-taught"]
    assert sorted(model_hashes(["pimc:worlds=8,rollout=ppo-cards"])) == ["ppo-cards"]

"""hgin-plot, train.py --track (offline) and hgin-tune (two tiny trials).

Plots of a tiny run folder and of results JSON; a resumable study, the best config as YAML.
"""

import json
import os
from pathlib import Path

import pytest
import yaml
from helpers.training import TINY, tiny_yaml

from hgin_cli import evaluate as evaluate_cli
from hgin_cli import plot as plot_cli
from hgin_cli import train as train_cli
from hgin_cli import tune as tune_cli

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A tiny training run folder, tracked with wandb offline (no network)."""
    pytest.importorskip("wandb", reason="the track extra (make setup installs it)")
    root = tmp_path_factory.mktemp("tracked")
    saved = dict(os.environ)
    os.environ.update(
        WANDB_MODE="offline", WANDB_SILENT="true", WANDB_DIR=str(root / "wandb-home"),
        WANDB_CACHE_DIR=str(root / "cache"), WANDB_DATA_DIR=str(root / "data"),
        WANDB_CONFIG_DIR=str(root / "config"),
    )  # fmt: skip
    try:
        config = tiny_yaml(root)
        assert train_cli.main(["--config", str(config), "--track", "--run-name", "tracked"]) == 0
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return root / "runs" / "tracked"


def test_track_offline_writes_a_wandb_run_with_synced_tensorboard(tiny_run):
    """--track: an offline wandb run holding the config, the TB scalars and the run folder."""
    (offline,) = (tiny_run.parent / "wandb").glob("offline-run-*")
    (record,) = offline.glob("run-*.wandb")
    data = record.read_bytes()
    assert b"eval/hand_win_rate" in data  # TensorBoard synced
    assert b"tiny" in data and b"total_timesteps" in data  # the config
    assert b"run-tracked" in data and b"final_model.zip" in data  # the run folder artifact
    assert b"final_model/hgin_policy.json" in data  # and the model as data


def test_a_training_run_folder_records_its_provenance(tiny_run):
    """provenance.json: version, commit, the run's own models' sha256, rules and seeds."""
    from hgin_env import __version__

    prov = json.loads((tiny_run / "provenance.json").read_text())
    assert prov["version"] == __version__ and prov["seeds"]["seed"] == 0
    assert prov["rules"]["knock_limit"] == 10 and prov["command"][0] == "train.py"
    hashed = [f for files in prov["models"].values() for f in files]
    assert any(f.endswith("final_model.zip") for f in hashed)


def test_plot_draws_learning_curves_of_a_run_folder(tiny_run, tmp_path):
    """hgin-plot RUN_DIR RUN_DIR -o x.png: a PNG of the overlaid curves."""
    out = tmp_path / "curves.png"
    assert plot_cli.main([str(tiny_run), str(tiny_run), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG
    fig = plot_cli.draw([tiny_run], "hand_win_rate")
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["vs random", "vs simple", "training return (TensorBoard)"]
    assert len(fig.axes[0].collections) == 1  # the Wilson band of the 16 hands


def test_plot_draws_league_heatmap_ratings_and_against_bars(tmp_path, capsys):
    """A league JSON gives a heatmap and rating bars; --against JSON gives bars with CIs."""
    league, against = tmp_path / "league.json", tmp_path / "against.json"
    common = ["--series", "2", "--seed", "1", "--no-progress"]
    assert evaluate_cli.main(["--league", "random", "simple", "tempo", *common,
                              "--json", str(league)]) == 0  # fmt: skip
    assert evaluate_cli.main(["simple", "--against", "random", "tempo", *common,
                              "--json", str(against)]) == 0  # fmt: skip
    fig = plot_cli.draw([league])
    assert len(fig.axes[0].images) == 1 and len(fig.axes[1].patches) == 3  # heatmap, 3 bars
    fig = plot_cli.draw([against])
    assert len(fig.axes[0].patches) == 2  # one bar per opponent
    for src in (league, against):
        out = tmp_path / f"{src.stem}.png"
        assert plot_cli.main([str(src), "-o", str(out)]) == 0
        assert out.read_bytes()[:8] == PNG
    capsys.readouterr()
    assert plot_cli.main([str(league), str(against), "-o", str(tmp_path / "x.png")]) == 2
    assert "one kind" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"x": 1}))
    assert plot_cli.main([str(bad), "-o", str(tmp_path / "y.png")]) == 2
    assert "bad.json" in capsys.readouterr().err


def test_two_tune_trials_resume_and_write_the_best_config(tmp_path, capsys):
    """hgin-tune: two tiny trials in SQLite, a rerun runs none, the best config as YAML."""
    pytest.importorskip("optuna", reason="the tune extra (make setup installs it)")
    config = tiny_yaml(
        tmp_path, ppo={**TINY["ppo"], "n_steps": 16}, opponents={"mix": {"random": 1}}
    )
    argv = [str(config), "--trials", "2", "--steps", "256", "--chunks", "2"]
    assert tune_cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "0 trials done, 2 to run" in out and out.count(": complete ") == 2
    tune_dir = tmp_path / "runs" / "tune"
    assert (tune_dir / "tiny.db").is_file()
    assert sorted(p.name for p in tune_dir.glob("tiny__t*")) == ["tiny__t0", "tiny__t1"]
    best = yaml.safe_load((tune_dir / "tiny_best.yaml").read_text())
    assert best["experiment"] == "tiny" and 1e-5 <= best["ppo"]["learning_rate"] <= 1e-3
    import optuna

    study = optuna.load_study(study_name="tiny", storage=f"sqlite:///{tune_dir / 'tiny.db'}")
    steps = [sorted(t.intermediate_values) for t in study.trials]
    assert steps == [[128, 256], [128, 256]]  # each chunk's evaluation reported for pruning
    assert tune_cli.main(argv) == 0  # the study is read back from SQLite: nothing to run
    assert "2 trials done, 0 to run" in capsys.readouterr().out

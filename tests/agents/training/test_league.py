"""League training: config checks, PFSP weights, a tiny league run with an exploiter, resume."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.training import TINY, scalars

from agents.training.checkpoint import latest_checkpoint, read_state
from agents.training.config import LeagueConfig, build_config
from agents.training.league import League
from agents.training.opponents import TrainingOpponents
from agents.training.sb3.runner import train
from agents.training.schema import ConfigError

ROOT = Path(__file__).resolve().parents[3]

#: a league of two bots, snapshots and one exploiter, on the tiny run's settings
LEAGUE = {
    **TINY,
    "experiment": "league",
    "opponents": {
        "mix": {},
        "league": {
            "enabled": True,
            "bots": {"random": 1.0, "simple": 2.0},
            "snapshot_every": 256,
            "snapshots": 2,
            "exploiter_every": 512,
            "exploiter_steps": 256,
            "exploiters": 1,
            "window": 50,
        },
    },
}


def league_config(tmp_path: Path, *overrides: str):
    """The tiny league config with its runs folder under ``tmp_path``."""
    return build_config(LEAGUE, [f"runs_dir={tmp_path}", *overrides])


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("opponents.league.bots={simple: 1, nobody: 1}", "opponents.league.bots.nobody"),
        ("opponents.league.bots={simple: -1}", "opponents.league.bots.simple must be >= 0"),
        ("opponents.league.snapshot_weight=-0.5", "opponents.league.snapshot_weight"),
        ("opponents.league.weighting=harsh", "opponents.league.weighting"),
        ("opponents.league.floor=2", "opponents.league.floor"),
        ("opponents.mix={simple: 1}", "opponents.league replaces opponents.mix"),
    ],
)
def test_bad_league_configs_are_refused_by_name(tmp_path: Path, override: str, message: str):
    """An unknown bot, a negative weight or a league next to a mix fails, naming the field."""
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        league_config(tmp_path, override)


def test_bad_league_config_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    """train.py refuses an unknown league bot with exit 2 and no run folder."""
    proc = subprocess.run(
        [sys.executable, "train.py", "--set", f"runs_dir={tmp_path}", "--set", "opponents.mix={}",
         "--set", "opponents.league={enabled: true, bots: {simple: 1, nobody: 2}}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "opponents.league.bots.nobody" in proc.stderr and "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())


def test_hard_weighting_prefers_the_opponents_that_beat_the_learner() -> None:
    """PFSP 'hard': an opponent the learner loses to is drawn more than one it beats."""
    league = League(LeagueConfig(prior_hands=0, floor=0.0), {"a": 1.0, "b": 1.0})
    for _ in range(10):
        league.record("a", 1.0)  # the learner beats a
        league.record("b", 0.0)  # b beats the learner
    league.record("a", 0.0)
    w = league.weights([("a", "bot"), ("b", "bot"), None])
    assert w[2] == 0.0 and w[1] == pytest.approx(1.0) and w[0] == pytest.approx((1 / 11) ** 2)


def test_floor_prior_and_variance_weighting() -> None:
    """No member falls below the floor; priors scale it; 'variance' peaks at an even score."""
    config = LeagueConfig(prior_hands=0, floor=0.1, snapshot_weight=3.0)
    league = League(config, {"a": 1.0})
    league.record("a", 1.0)
    league.record("self@5", 1.0)
    np.testing.assert_allclose(league.weights([("a", "bot"), ("self@5", "snapshot")]), [0.1, 0.3])
    even = League(LeagueConfig(weighting="variance", prior_hands=0, floor=0.0), {})
    for s in (1.0, 0.0):
        even.record("x", s)
    even.record("y", 1.0)
    assert even.priority("x") == pytest.approx(1.0) and even.priority("y") == 0.0


def test_league_opponents_reweight_from_the_records(tmp_path: Path) -> None:
    """TrainingOpponents with a league: the mixture's probabilities follow the records."""
    config = league_config(tmp_path)
    opponents = TrainingOpponents(config.opponents, 64, tmp_path / "pool", seed=0)
    assert [m and m[0] for m in opponents.members()] == ["random", "simple", None, None, None]
    np.testing.assert_allclose(opponents.mixture.probabilities[:2], [1 / 3, 2 / 3])
    assert opponents.league is not None
    for _ in range(50):
        opponents.league.record("random", 0.0)  # random "beats" the learner
        opponents.league.record("simple", 1.0)
    opponents.update_weights()
    p = opponents.mixture.probabilities
    lose = (1 - 10 / 70) ** 2  # 20 prior hands at 0.5, then 50 lost: score 10/70, hard f
    assert p[0] == pytest.approx(lose / (lose + 2 * 0.05)) and p[2:].sum() == 0.0  # simple: floor


@pytest.fixture(scope="module")
def league_run(tmp_path_factory):
    """One tiny league run (two bots, snapshots, an exploiter) shared by the tests below."""
    return train(league_config(tmp_path_factory.mktemp("runs")), run_name="league")


def test_league_run_logs_per_opponent_curves_and_trains_an_exploiter(league_run) -> None:
    """The run logs league/score and league/probability per member and adds an exploiter."""
    found = scalars(league_run.run_dir)
    for tag in ("league/score/random", "league/probability/simple", "league/members"):
        assert tag in found, sorted(t for t in found if t.startswith("league"))
    assert any(t.startswith("league/score/self@") for t in found)
    assert "league/score/exploiter@512" in found
    exploiter = league_run.run_dir / "exploiters" / "exploiter_000000000512"
    assert (exploiter / "final_model.zip").is_file()
    # none at the last rollout (step 1024, due but past total_timesteps): it would never play
    assert not (exploiter.parent / "exploiter_000000001024").exists()


def test_league_state_is_in_the_checkpoint_and_resume_restores_it(league_run, tmp_path) -> None:
    """The checkpoint keeps the records and the exploiter; a resumed run reloads both."""
    state = read_state(latest_checkpoint(league_run.run_dir / "checkpoints"))
    assert state.league["exploiters"] == ["exploiters/exploiter_000000000512/final_model.zip"]
    assert len(state.league["records"]["simple"]) > 0
    config = league_config(league_run.run_dir.parent)
    opponents = TrainingOpponents(config.opponents, 8, league_run.run_dir / "pool", seed=0)
    opponents.restore_pool(league_run.run_dir, state.pool, state.league)
    names = [m and m[0] for m in opponents.members()]
    assert names[-1] == "exploiter@512" and sum(n is not None for n in names) == 5
    assert opponents.league is not None
    assert list(opponents.league.records["simple"]) == state.league["records"]["simple"]
    resumed = train(resume=league_run.run_dir, overrides=["total_timesteps=1536"])
    assert resumed.steps >= 1536 and not resumed.interrupted

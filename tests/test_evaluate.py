"""The evaluator: reproducible results, consistent counts, duplicate mode, league, CLI, errors."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import agents.model_policy as model_policy
import evaluate as cli
from agents import EvalResult, PolicyLoadError, evaluate, league, load_policy
from agents.evaluation import bradley_terry, seating, wilson_interval
from hgin_env.engine import DRAW, KNOCK, N_ACTIONS, PASS, RulesConfig
from hgin_env.engine.cards import N_CARDS
from hgin_env.envs.observation import OBS_DIM, decode_observations

ROOT = Path(__file__).resolve().parent.parent

PAIR_KEYS = {
    "name_a", "name_b", "seed", "duplicate", "rules", "n_series", "deal_sequences",
    "series_won", "series_lost", "series_unfinished", "series_win_rate", "series_win_ci",
    "games_won", "games_lost", "hands", "hands_won", "hands_lost", "hands_drawn",
    "hands_truncated", "hand_win_rate", "hand_win_ci", "points_per_hand",
    "points_per_hand_ci", "mean_hands_per_series", "a", "b", "seconds", "series_per_second",
    "steps",
}  # fmt: skip
PLAYER_KEYS = {
    "knocks", "gins", "undercuts_given", "undercuts_suffered", "knock_rate", "gin_rate",
    "undercut_given_rate", "undercut_suffered_rate", "mean_deadwood_at_knock",
}  # fmt: skip
LEAGUE_KEYS = {
    "names", "n_series", "seed", "duplicate", "pairs", "series_win_rate", "hand_win_rate",
    "points_per_hand", "ratings", "rating_gaps", "rating_method", "seconds",
}  # fmt: skip


class GreedyPolicy:
    """Deterministic: knock when it can (least deadwood), else discard the least deadwood, draw."""

    name = "greedy"

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Pick the first best action, with no randomness at all."""
        dd = decode_observations(observations).discard_deadwood
        knock = action_masks[:, KNOCK : KNOCK + N_CARDS]
        discard = action_masks[:, :N_CARDS]
        best_knock = np.where(knock, dd, 10**6).argmin(axis=1)
        best_discard = np.where(discard, dd, 10**6).argmin(axis=1)
        pickup = np.where(action_masks[:, PASS], PASS, DRAW)
        out = np.where(discard.any(axis=1), best_discard, pickup)
        return np.where(knock.any(axis=1), KNOCK + best_knock, out)


def check_pair_schema(data: dict) -> None:
    """Assert the JSON form of one pair's result."""
    assert set(data) == PAIR_KEYS
    assert set(data["a"]) == PLAYER_KEYS and set(data["b"]) == PLAYER_KEYS
    for key in ("series_win_ci", "hand_win_ci", "points_per_hand_ci"):
        assert isinstance(data[key], list) and len(data[key]) == 2
        assert data[key][0] <= data[key][1]
    assert data["series_won"] + data["series_lost"] + data["series_unfinished"] == data["n_series"]
    assert data["hands_won"] + data["hands_lost"] + data["hands_drawn"] == data["hands"]


def test_same_seed_gives_identical_results():
    """Two evaluations with the same seed agree on every number but the timing."""
    runs = [evaluate("expert", "random", 6, seed=5, progress=False) for _ in range(2)]
    assert runs[0].same_play(runs[1])
    other = evaluate("expert", "random", 6, seed=6, progress=False)
    assert not runs[0].same_play(other)


def test_counts_are_consistent():
    """Series, hands and knocks add up, and rates are the counts over their denominators."""
    res = evaluate("simple", "random", 8, seed=0, progress=False)
    check_pair_schema(res.to_dict())
    assert res.series_won == 8 and res.games_won == 24 and res.games_lost == 0
    assert res.hand_win_rate == pytest.approx(res.hands_won / res.hands)
    assert res.a.knock_rate == pytest.approx(res.a.knocks / res.hands)
    assert res.a.undercuts_given == res.b.undercuts_suffered
    assert res.mean_hands_per_series == pytest.approx(res.hands / 8)
    lo, hi = res.points_per_hand_ci
    assert lo < res.points_per_hand < hi


def test_seats_and_first_dealers_are_balanced():
    """A sits in each seat and each seat deals first equally often; duplicate swaps A's seat."""
    a_seat, dealer, deal = seating(8)
    assert a_seat.tolist() == [0, 1] * 4
    assert sorted(zip(a_seat.tolist(), dealer.tolist(), strict=True)) == sorted(
        [(s, d) for s in (0, 1) for d in (0, 1)] * 2
    )
    a2, d2, deal2 = seating(4, duplicate=True)
    assert deal2.tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert (a2[:4] == 1 - a2[4:]).all() and (d2[:4] == d2[4:]).all()


def test_duplicate_mirrors_identical_deterministic_players():
    """One deterministic player on both sides: each deal replayed seat-swapped mirrors exactly."""
    res = evaluate(GreedyPolicy(), GreedyPolicy(), 6, seed=2, duplicate=True, progress=False)
    assert res.n_series == 12 and res.deal_sequences == 6
    assert res.series_won == res.series_lost == 6
    assert res.hands_won == res.hands_lost
    assert res.points_per_hand == 0
    assert res.a.knocks == res.b.knocks


def test_unfinished_series_are_capped():
    """A series still running after ``max_hands_per_series`` hands is counted unfinished."""
    res = evaluate(
        "random", "random", 2, seed=0, progress=False, max_hands_per_series=1,
        rules=RulesConfig(max_turns_per_hand=4),
    )  # fmt: skip
    assert res.series_unfinished == 2 and res.series_won == res.series_lost == 0
    assert res.hands == 2


def test_wilson_interval_and_bradley_terry():
    """Wilson bounds stay in [0, 1] for sweeps; Bradley-Terry orders players and stays finite."""
    assert wilson_interval(10, 10)[1] == 1.0 and 0.6 < wilson_interval(10, 10)[0] < 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    wins = np.array([[0, 30, 30], [0, 0, 20], [0, 10, 0]], dtype=float)
    rating = bradley_terry(wins)
    assert rating[0] > rating[1] > rating[2]
    assert np.isfinite(rating).all() and abs(rating.sum()) < 1e-6


def test_league_matrix_and_ratings():
    """A tiny league fills both halves of every matrix and rates simple above random."""
    res = league(["random", "simple"], n_series=4, seed=0, progress=False, n_rating_draws=50)
    assert res.names == ["random", "simple"]
    assert res.series_win_rate[1][0] == 1.0 and res.series_win_rate[0][1] == 0.0
    assert res.series_win_rate[0][0] is None
    assert res.points_per_hand[0][1] == -res.points_per_hand[1][0]
    random_rating, simple_rating = (r.rating for r in res.ratings)
    assert simple_rating > random_rating
    for r in res.ratings:
        assert r.ci_low <= r.rating <= r.ci_high
    gap, low, high = res.rating_gaps[1][0]
    assert gap == simple_rating - random_rating and 0 < low <= gap <= high
    assert res.rating_gaps[0][1][0] == -gap and res.rating_gaps[0][0] is None
    assert set(res.to_dict()) == LEAGUE_KEYS


def test_cli_pair_writes_json(tmp_path, capsys):
    """``evaluate.py A B --json`` prints a table and writes the pair's JSON schema."""
    out = tmp_path / "pair.json"
    code = cli.main(["simple", "random", "--series", "3", "--seed", "1", "--json", str(out)])
    assert code == 0
    assert "series won" in capsys.readouterr().out
    data = json.loads(out.read_text())
    check_pair_schema(data)
    assert data["name_a"] == "simple" and data["n_series"] == 3


def test_cli_league_writes_json(tmp_path, capsys):
    """``evaluate.py --league`` prints ratings and matrices and writes the league JSON schema."""
    out = tmp_path / "league.json"
    args = ["--league", "random", "simple", "expert", "--series", "2", "--json", str(out)]
    assert cli.main([*args, "--duplicate", "--no-progress"]) == 0
    assert "Ratings" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert set(data) == LEAGUE_KEYS
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


def test_bad_model_paths_give_clear_errors(tmp_path):
    """A missing file, a non-zip and a corrupt zip each raise one line naming path and problem."""
    missing = tmp_path / "missing.zip"
    not_zip = tmp_path / "notes.zip"
    not_zip.write_text("not a model")
    corrupt = tmp_path / "corrupt.zip"
    with zipfile.ZipFile(corrupt, "w") as z:
        z.writestr("data", "{not json")
    empty = tmp_path / "other.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("readme.txt", "hello")
    cases = [
        (missing, "no such file"),
        (not_zip, "not a zip file"),
        (corrupt, "corrupt or not a MaskablePPO model"),
        (empty, "not a Stable-Baselines3 model"),
    ]
    for path, problem in cases:
        with pytest.raises(PolicyLoadError) as err:
            load_policy(str(path))
        message = str(err.value)
        assert "\n" not in message and str(path) in message and problem in message


class SpaceEnv(gym.Env):
    """A dummy env with chosen spaces, only to build and save a MaskablePPO model."""

    def __init__(self, obs_dim: int, n_actions: int) -> None:
        self.observation_space = gym.spaces.Box(0.0, 1.0, (obs_dim,), np.float32)
        self.action_space = gym.spaces.Discrete(n_actions)

    def reset(self, *, seed=None, options=None):
        """Return a zero observation."""
        return np.zeros(self.observation_space.shape, np.float32), {}

    def step(self, action):
        """End at once."""
        return np.zeros(self.observation_space.shape, np.float32), 0.0, True, False, {}

    def action_masks(self) -> np.ndarray:
        """Every action is allowed."""
        return np.ones(self.action_space.n, dtype=bool)


def save_model(path: Path, obs_dim: int, n_actions: int) -> Path:
    """Save an untrained MaskablePPO with the given spaces."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", SpaceEnv(obs_dim, n_actions), n_steps=8, batch_size=8)
    model.save(path)
    return path


def test_model_policy_plays_and_mismatched_model_is_rejected(tmp_path, monkeypatch):
    """A matching model plays legal moves (by path and as models/<name>/model.zip); others fail."""
    good = save_model(tmp_path / "good.zip", OBS_DIM, N_ACTIONS)
    res = evaluate(str(good), "simple", 2, seed=0, progress=False, max_hands_per_series=3)
    assert res.name_a == str(good) and res.hands >= 2
    shipped = tmp_path / "models" / "tiny"
    shipped.mkdir(parents=True)
    (shipped / "model.zip").write_bytes(good.read_bytes())
    monkeypatch.setattr(model_policy, "MODELS_DIR", tmp_path / "models")
    assert load_policy("tiny").name == "tiny"
    bad_obs = save_model(tmp_path / "bad_obs.zip", 7, N_ACTIONS)
    with pytest.raises(PolicyLoadError, match=r"observation shape \(7,\) does not match"):
        load_policy(str(bad_obs))
    bad_actions = save_model(tmp_path / "bad_actions.zip", OBS_DIM, 5)
    with pytest.raises(PolicyLoadError, match="action space Discrete\\(5\\) does not match"):
        load_policy(str(bad_actions))


def test_evaluate_rejects_bad_arguments():
    """Zero series, a negative seed and a policy object without ``act`` raise ``ValueError``."""
    with pytest.raises(ValueError, match="n_series"):
        evaluate("simple", "random", 0)
    with pytest.raises(ValueError, match="seed"):
        evaluate("simple", "random", 1, seed=-1)
    with pytest.raises(ValueError, match="act"):
        evaluate(object(), "random", 1)
    assert isinstance(evaluate("simple", "random", 1, progress=False), EvalResult)

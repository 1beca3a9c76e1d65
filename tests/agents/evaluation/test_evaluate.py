"""The evaluator: reproducible results, consistent counts, duplicate mode, league, errors."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from helpers.policies import save_model
from helpers.reports import LEAGUE_KEYS, check_pair_schema

import agents.policies.model as model_policy
from agents import EvalResult, PolicyLoadError, evaluate, league, load_policy
from agents.evaluation import bradley_terry, seating, wilson_interval
from hgin_env.engine import DRAW, KNOCK, N_ACTIONS, PASS, RulesConfig
from hgin_env.engine.cards import N_CARDS
from hgin_env.envs.observation import OBS_DIM, decode_observations

ROOT = Path(__file__).resolve().parents[3]


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


def test_bad_model_paths_give_clear_errors(tmp_path):
    """A missing file, a non-zip and a corrupt zip each raise one line naming path and problem."""
    missing = tmp_path / "missing.zip"
    not_zip = tmp_path / "notes.zip"
    not_zip.write_text("not a model")
    corrupt = tmp_path / "corrupt.zip"
    with zipfile.ZipFile(corrupt, "w") as z:
        z.writestr("data", "{not json")
        z.writestr("policy.pth", "not weights")
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

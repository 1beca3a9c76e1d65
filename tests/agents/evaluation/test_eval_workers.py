"""Evaluations split across worker processes give exactly the one-process results."""

from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import pytest

import evaluate as cli
from agents.evaluation import (
    MatchPlan,
    MatchTally,
    evaluate,
    league,
    play_series,
    processes,
    shard_bounds,
)
from agents.evaluation.match import players
from agents.evaluation.transcript import TranscriptRecorder
from hgin_env.engine.actions import DRAW, KNOCK
from hgin_env.engine.config import RulesConfig
from hgin_env.envs.workers import EnvWorkerError

#: short series (easy knocks, low targets) so that a few dozen finish in seconds
RULES = RulesConfig(game_target=40, knock_limit=25)


class Greedy:
    """A deterministic numpy player: knock when it may, else draw, else its first legal action."""

    name = "greedy"

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One legal action per row."""
        masks = np.asarray(action_masks, bool)
        knocks = masks[:, KNOCK:DRAW]
        first = masks.argmax(axis=1)
        pick = np.where(masks[:, DRAW], DRAW, first)
        return np.where(knocks.any(axis=1), KNOCK + knocks.argmax(axis=1), pick)


def timeless(result) -> dict:
    """A result's JSON without its timing."""
    data = result.to_dict()
    for key in ("seconds", "series_per_second"):
        data.pop(key)
    return data


@pytest.mark.parametrize(
    ("a", "b", "duplicate"),
    [
        ("random", Greedy(), False),
        (Greedy(), "random", True),
        pytest.param("random", "ppo-cards", False, marks=pytest.mark.slow),
        pytest.param("simple", "random", False),
        pytest.param("expert", Greedy(), False),
    ],
    ids=["random-greedy", "greedy-random-duplicate", "random-ppo-cards", "simple-random",
         "expert-greedy"],
)  # fmt: skip
def test_workers_give_the_one_process_result(a, b, duplicate):
    """Every figure and interval of to_dict() is the one-process one (timing apart)."""
    kwargs = {"seed": 5, "rules": RULES, "duplicate": duplicate, "progress": False,
              "max_hands_per_series": 12}  # fmt: skip
    one = evaluate(a, b, 10, **kwargs)  # uneven parts: 4, 3 and 3 series
    split = evaluate(a, b, 10, runner=processes(3), **kwargs)
    assert timeless(split) == timeless(one)
    assert split.hands > 10 and 0 < split.hands_won < split.hands


def test_parts_of_a_plan_concatenate_into_the_whole_plans_tally():
    """Playing a plan in parts gives the per-series tallies of playing it whole."""
    plan = MatchPlan.make(9, seed=2, duplicate=True)
    whole, whole_steps = play_series(*players("random", Greedy(), 2), plan, RULES, 10)
    parts = [
        play_series(*players("random", Greedy(), 2), plan.shard(lo, hi), RULES, 10)
        for lo, hi in shard_bounds(len(plan), 4)
    ]
    merged = MatchTally.concat([tally for tally, _ in parts])
    for f in fields(MatchTally):
        np.testing.assert_array_equal(getattr(merged, f.name), getattr(whole, f.name))
    assert max(steps for _, steps in parts) == whole_steps


@pytest.mark.parametrize(
    ("n", "shards", "expected"),
    [(5, 2, [(0, 3), (3, 5)]), (4, 4, [(0, 1), (1, 2), (2, 3), (3, 4)]), (2, 8, [(0, 1), (1, 2)])],
)
def test_shard_bounds_cover_the_series_once(n, shards, expected):
    """Shards are contiguous, cover every series once, larger first, never more than n."""
    assert shard_bounds(n, shards) == expected


def test_processes_split_a_plan_as_every_runner_does():
    """5 series in 2 processes split (0, 3), (3, 5): a 3-hand transcript fits the first part.

    Before one shard_bounds served every runner, the processes split (0, 2), (2, 5) and
    the Ray tasks (0, 3), (3, 5); this transcript was refused.
    """
    kwargs = {"seed": 4, "rules": RULES, "progress": False, "max_hands_per_series": 5}
    one, split = TranscriptRecorder(3), TranscriptRecorder(3)
    a = evaluate(Greedy(), "random", 5, recorder=one, **kwargs)
    b = evaluate(Greedy(), "random", 5, recorder=split, runner=processes(2), **kwargs)
    assert split.records == one.records and len(split.records) == 3
    assert timeless(a) == timeless(b)
    with pytest.raises(ValueError, match="first part"):
        evaluate(Greedy(), "random", 5, recorder=TranscriptRecorder(4), runner=processes(2),
                 **kwargs)  # fmt: skip


def test_a_league_in_processes_equals_the_local_league():
    """league(..., runner=processes(2)) gives the local league's every figure."""
    kwargs = {"seed": 3, "rules": RULES, "progress": False}
    one = league(["random", "simple", Greedy()], 6, **kwargs).to_dict()
    split = league(["random", "simple", Greedy()], 6, runner=processes(2), **kwargs).to_dict()
    for data in (one, split):
        data.pop("seconds")
        data["pairs"] = [{k: v for k, v in p.items() if "second" not in k} for p in data["pairs"]]
    assert split == one


def test_cli_workers_prints_the_same_table_and_json(tmp_path, capsys):
    """evaluate.py A B --workers 2 prints the one-process table and writes the same JSON."""
    outputs = []
    for workers in (1, 2):
        path = tmp_path / f"w{workers}.json"
        args = ["ppo-cards", "random", "--series", "3", "--seed", "3", "--no-progress",
                "--json", str(path), "--workers", str(workers)]  # fmt: skip
        assert cli.main(args) == 0
        table = capsys.readouterr().out
        outputs.append(([line for line in table.splitlines() if "speed" not in line], path))
    (table_1, path_1), (table_2, path_2) = outputs
    assert table_1[:-1] == table_2[:-1]  # the last line names the JSON file
    data_1, data_2 = (json.loads(p.read_text()) for p in (path_1, path_2))
    for data in (data_1, data_2):
        data.pop("seconds")
        data.pop("series_per_second")
        data.pop("provenance")  # the command line (--workers K) and the time differ
    assert data_1 == data_2


def test_cli_against_with_workers_and_bad_worker_options(capsys):
    """--against and --league run with --workers; bad --workers uses exit with code 2."""
    assert cli.main(["simple", "--against", "expert", "--series", "4", "--no-progress",
                     "--workers", "2"]) == 0  # fmt: skip
    assert "| expert | 4 |" in capsys.readouterr().out
    assert cli.main(["--league", "random", "simple", "--series", "4", "--no-progress",
                     "--workers", "2"]) == 0  # fmt: skip
    assert "rating method" in capsys.readouterr().out
    for bad in (
        ["random", "random", "--workers", "0"],
        ["random", "random", "--series", "4", "--workers", "2", "--transcript", "t.jsonl",
         "--transcript-hands", "3"],
    ):  # fmt: skip
        with pytest.raises(SystemExit) as exit_info:
            cli.main(bad)
        assert exit_info.value.code == 2
        assert "--workers" in capsys.readouterr().err


def test_transcript_is_recorded_by_the_first_worker(tmp_path):
    """With workers the first worker records the transcript: the same hands as one process."""
    kwargs = {"seed": 1, "rules": RULES, "progress": False, "max_hands_per_series": 5}
    one, split = TranscriptRecorder(2), TranscriptRecorder(2)
    evaluate(Greedy(), "random", 6, recorder=one, **kwargs)
    evaluate(Greedy(), "random", 6, recorder=split, runner=processes(2), **kwargs)
    assert len(split.records) == 2 and split.records == one.records


def test_a_bad_policy_in_a_worker_gives_its_usual_error():
    """A policy the workers cannot load raises PolicyLoadError naming it, as in one process."""
    from agents.policies.model import PolicyLoadError

    with pytest.raises(PolicyLoadError, match="nobody"):
        evaluate("nobody", "random", 4, progress=False, runner=processes(2))


class Crashing:
    """A policy that kills its process on its 5th call (a worker dying mid-evaluation)."""

    name = "crashing"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The first legal action; exit the process abruptly at the 5th call."""
        self.calls += 1
        if self.calls == 5:
            import os

            os._exit(3)
        return action_masks.argmax(axis=1)


def test_a_dead_worker_is_named():
    """A worker that dies mid-evaluation raises EnvWorkerError with its index and exit code."""
    with pytest.raises(
        EnvWorkerError, match=r"evaluation worker \d \(pid \d+\) died with exit code 3"
    ):
        evaluate(Crashing(), "random", 4, rules=RULES, progress=False, runner=processes(2))

"""``research.experiments.expert_iteration``: the student plays, the teacher labels its knocks."""

from __future__ import annotations

import json

import numpy as np

from agents.policies.model import MODELS_DIR, load_policy
from hgin_env.engine.actions import KNOCK, knock_legal
from hgin_env.envs.observation import OBS_LAYOUT, decode_observations
from research.experiments import expert_iteration

#: the student's config: its env section (series mode, undercut bonus 10 and 25 mixed)
CONFIG = MODELS_DIR / "ppo-league2" / "config.yaml"


class NeverKnocks:
    """A teacher that takes the lowest legal action that is not a knock."""

    name = "never-knocks"

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The lowest legal non-knock action of each row."""
        masks = np.asarray(action_masks, dtype=bool).copy()
        masks[:, KNOCK:] = False
        return masks.argmax(axis=1)


def _gather(tmp_path, undercut, teach_share=0.0):
    env = expert_iteration.student_games(CONFIG, "{simple: 1}", 8, 11, tmp_path)
    try:
        return expert_iteration.gather(
            env, load_policy("simple"), NeverKnocks(), 30, 0.1, np.random.default_rng(0),
            undercut, teach_share,
        )  # fmt: skip
    finally:
        env.close()


def test_the_teacher_labels_only_the_knocks_of_the_games_it_is_given(tmp_path):
    """Undercut-25 knock rows carry the teacher's label; undercut-10 ones the student's knock."""
    demos, taught_rows, figures = _gather(tmp_path, frozenset({25}))
    knock = knock_legal(demos.masks)
    bonus = decode_observations(demos.obs).undercut_bonus
    taught, own = knock & (bonus == 25), knock & (bonus == 10)
    assert taught.sum() == figures["rows_taught"] >= 30 and own.any()
    assert (taught_rows == taught).all()
    assert (demos.actions[taught] < KNOCK).all()  # the teacher never knocks
    assert (demos.actions[own] >= KNOCK).all()  # simple knocks whenever it may
    assert figures["student_knock_share"] == 1.0 and figures["teacher_knock_share"] == 0.0
    assert figures["teacher_changed"] == 1.0
    assert demos.masks[np.arange(demos.actions.size), demos.actions].all()  # all legal
    # the other rows are a sample of the rest: some kept, far from all
    assert 0 < (~knock).sum() < figures["rows_seen"] - figures["knock_rows"]


def test_without_a_filter_the_teacher_labels_every_knock(tmp_path):
    """No ``undercut``: every kept knock row is the teacher's."""
    demos, taught_rows, figures = _gather(tmp_path, None)
    knock = knock_legal(demos.masks)
    assert figures["rows_taught"] == figures["knock_rows"] == knock.sum()
    assert (taught_rows == knock).all()
    assert (demos.actions[knock] < KNOCK).all()


def test_a_teach_share_labels_other_decisions_of_the_games_given(tmp_path):
    """``teach_share=1``: every undercut-10 row with a choice is the teacher's, none of 25's."""
    demos, taught_rows, figures = _gather(tmp_path, frozenset({10}), teach_share=1.0)
    bonus = decode_observations(demos.obs).undercut_bonus
    choice = demos.masks.sum(axis=1) > 1
    assert (taught_rows == (choice & (bonus == 10))).all()
    assert figures["rows_taught"] == taught_rows.sum() >= 30
    assert (~knock_legal(demos.masks) & taught_rows).any()  # not only the knocks
    # the teacher's label: its lowest legal non-knock action, on every taught row
    assert (
        demos.actions[taught_rows] == NeverKnocks().act(demos.obs, demos.masks)[taught_rows]
    ).all()
    assert not taught_rows[bonus == 25].any()


def test_an_iteration_writes_a_network_that_plays(tmp_path):
    """The command line fits the student and writes a model the registry loads and plays."""
    out = tmp_path / "ei"
    argv = ["--student", "ppo-league2", "--teacher", "simple", "--decisions", "10"]
    expert_iteration.main([*argv, "--games", "4", "--epochs", "1", "--out", str(out)])
    summary = json.loads((out / "expert_iteration.json").read_text())
    assert summary["rows_taught"] >= 10 and len(summary["epochs"]) == 1
    assert (out / "config.yaml").is_file()
    policy = load_policy(str(out))
    env = expert_iteration.student_games(CONFIG, "{simple: 1}", 4, 3, tmp_path)
    try:
        obs = env.reset()
        masks = np.array(env.action_masks(), dtype=bool)
        actions = policy.act(obs, masks)
        assert masks[np.arange(4), actions].all()
    finally:
        env.close()


def test_the_fit_repeats_taught_rows_and_gins(tmp_path):
    """``oversample``: each taught row ``times`` times, each gin label ``gin_times`` more."""
    demos, taught, _ = _gather(tmp_path, frozenset({25}))
    assert not expert_iteration.gin_rows(demos).any()  # a gin is rare in 30 decisions
    # make gins: two untaught knocks (simple's) and one taught row relabelled as a knock,
    # each leaving no deadwood in its observation
    own = np.flatnonzero(~taught & (demos.actions >= KNOCK) & (demos.actions < 2 * KNOCK))[:2]
    mine = np.flatnonzero(taught)[:1]
    assert own.size == 2
    deadwood = OBS_LAYOUT["discard_deadwood"].start
    for row in mine:
        demos.actions[row] = KNOCK + np.flatnonzero(demos.masks[row, KNOCK : 2 * KNOCK])[0]
    for row in np.concatenate([own, mine]):
        demos.obs[row, deadwood + demos.actions[row] - KNOCK] = 0.0
    gins = expert_iteration.gin_rows(demos)
    assert np.flatnonzero(gins).tolist() == sorted([*own, *mine])
    rows = expert_iteration.oversample(demos, taught, 3, 5)
    assert rows.actions.size == taught.size + 2 * taught.sum() + 4 * 3
    assert expert_iteration.gin_rows(rows).sum() == 5 * 3 + 2 * 1  # the taught gin: 3 + 4


def test_the_anchor_relabels_only_the_untaught_rows(tmp_path):
    """``relabel``: untaught rows take the anchor's choice, taught rows keep the teacher's."""
    demos, taught, _ = _gather(tmp_path, frozenset({25}))
    knock = knock_legal(demos.masks)
    assert (demos.actions[knock & ~taught] >= KNOCK).all()  # the student, simple, knocks
    out = expert_iteration.relabel(demos, taught, NeverKnocks())
    assert (out.actions[taught] == demos.actions[taught]).all()
    assert (out.actions[~taught] == NeverKnocks().act(demos.obs, demos.masks)[~taught]).all()
    assert (out.actions[knock] < KNOCK).all()


def test_the_fit_repeats_the_rows_where_the_teacher_changed_the_students_choice(tmp_path):
    """``oversample`` with ``changed``: those rows get ``changed_times - 1`` more copies."""
    demos, taught, _ = _gather(tmp_path, frozenset({25}))
    changed = np.zeros(taught.size, dtype=bool)
    changed[np.flatnonzero(taught)[:2]] = True  # two taught rows the teacher changed
    changed[np.flatnonzero(~taught)[:1]] = True  # any row marked is repeated, taught or not
    plain = expert_iteration.oversample(demos, taught, 2)
    rows = expert_iteration.oversample(demos, taught, 2, 1, changed, 4)
    assert rows.actions.size == plain.actions.size + 3 * 3
    first = np.flatnonzero(changed)
    for row in first:  # each changed row: its taught repeats and three more
        same = (rows.obs == demos.obs[row]).all(axis=1) & (rows.actions == demos.actions[row])
        twin = (demos.obs == demos.obs[row]).all(axis=1) & (demos.actions == demos.actions[row])
        expected = sum(2 if taught[i] else 1 for i in np.flatnonzero(twin)) + 3
        assert same.sum() == expected

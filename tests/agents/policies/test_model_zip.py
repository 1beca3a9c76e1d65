"""One model-zip loader: the policy and the checkpoint loaders check each entry the same way."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from helpers import one_error_line, save_model

from agents.policies.model import load_model
from agents.policies.model_zip import model_zip_problem
from agents.training.checkpoint import CheckpointError
from agents.training.sb3.runner import load_model as load_checkpoint
from hgin_cli import evaluate as evaluate_cli
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM
from hgin_env.envs.policy import PolicyLoadError


def rewrite(source: Path, target: Path, drop: str = "", damage: str = "") -> Path:
    """Copy a model zip without entry ``drop``, and with entry ``damage``'s CRC failing."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            if info.filename != drop:
                new.writestr(info, old.read(info))
    if damage:
        with zipfile.ZipFile(target) as archive:
            info = archive.getinfo(damage)
            start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
        data = bytearray(target.read_bytes())
        data[start + info.compress_size // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    return target


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """An untrained model with the environment's spaces."""
    return save_model(tmp_path_factory.mktemp("zip") / "good.zip", OBS_DIM, N_ACTIONS)


def test_both_loaders_give_one_text_for_each_bad_zip(good, tmp_path):
    """A corrupt entry, a missing entry or a foreign zip fail both loaders with one same line."""
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as z:
        z.writestr("readme.txt", "hello")
    cases = [
        (rewrite(good, tmp_path / "crc.zip", damage="policy.pth"), "policy.pth fails its CRC"),
        (rewrite(good, tmp_path / "nopolicy.zip", drop="policy.pth"), "no 'policy.pth' entry"),
        (foreign, "no 'data' entry, no 'policy.pth' entry"),
    ]
    for path, problem in cases:
        with pytest.raises(PolicyLoadError) as played:
            load_model(path)
        with pytest.raises(CheckpointError) as resumed:
            load_checkpoint(path, env=None)
        text = str(played.value)
        assert text == str(resumed.value) == f"cannot load model {path}: {model_zip_problem(path)}"
        assert problem in text and "\n" not in text


def test_a_good_zip_loads_through_both(good):
    """An intact model zip has no problem and loads as a policy model and as a checkpoint."""
    assert model_zip_problem(good) is None
    assert load_model(good).observation_space.shape == (OBS_DIM,)
    assert load_checkpoint(good, env=None).action_space.n == N_ACTIONS


def test_cli_names_a_zip_missing_an_entry_and_exits_2(good, tmp_path, capsys):
    """evaluate.py exits 2 with one line naming the missing entry (no traceback)."""
    broken = rewrite(good, tmp_path / "broken.zip", drop="policy.pth")
    assert evaluate_cli.main([str(broken), "simple", "--series", "1", "--no-progress"]) == 2
    _, line = one_error_line(capsys)
    assert line == f"error: cannot load model {broken}: {model_zip_problem(broken)}"
    assert "no 'policy.pth' entry" in line

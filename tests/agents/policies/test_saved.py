"""One model loader: saved-policy folders and MaskablePPO zips read as data, one error text."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from helpers.policies import save_model
from helpers.reports import one_error_line

from agents.policies.model import ModelPolicy, load_policy
from agents.policies.model_zip import model_zip_problem, trust_folder
from agents.policies.saved import (
    PICKLED_FORMAT,
    POLICY_FILE,
    TRUST_ENV,
    WEIGHTS_FILE,
    load_network,
    network_spec,
    save_policy,
)
from agents.policies.torch_policy import TorchPolicy
from agents.training.checkpoint import CheckpointError
from agents.training.sb3.runner import load_checkpoint
from hgin_cli import evaluate as evaluate_cli
from hgin_env.engine.actions import N_ACTIONS
from hgin_env.envs.observation import OBS_DIM
from hgin_env.envs.policy import PolicyLoadError
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv


def rewrite(
    source: Path, target: Path, drop: str = "", damage: str = "", put: dict | None = None
) -> Path:
    """Copy a model zip without ``drop``, with ``put``'s entries, ``damage``'s CRC failing."""
    put = put or {}
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            if info.filename != drop:
                new.writestr(info, put.get(info.filename, old.read(info)))
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
    """An untrained model with the environment's spaces (SB3's default MLP: tanh, 64x64)."""
    return save_model(tmp_path_factory.mktemp("zip") / "good.zip", OBS_DIM, N_ACTIONS)


@pytest.fixture(scope="module")
def observations() -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of 32 games of simple against random, 30 moves each."""
    env = HollywoodGinVecEnv(32, opponent="random", seed=4)
    player = load_policy("simple", seed=1)
    obs: Any = env.reset()
    rows, masks = [], []
    for _ in range(30):
        mask = env.action_masks()
        rows.append(obs)
        masks.append(mask)
        obs = env.step(player.act(obs, mask))[0]
    return np.concatenate(rows), np.concatenate(masks)


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
            load_network(path)
        with pytest.raises(CheckpointError) as resumed:
            load_checkpoint(path, env=None)
        text = str(played.value)
        assert text == str(resumed.value) == f"cannot load model {path}: {model_zip_problem(path)}"
        assert problem in text and "\n" not in text


def test_a_users_zip_plays_as_sb3s_own_network(good, observations):
    """A MaskablePPO zip read without SB3 gives the logits of the network SB3 loads, exactly."""
    from sb3_contrib import MaskablePPO

    obs, masks = observations
    torch.manual_seed(3)
    model = MaskablePPO.load(good, device="cpu")
    for p in model.policy.parameters():  # away from the near-uniform start
        p.data.normal_(0.0, 0.3)
    model.save(good.with_name("moved.zip"))
    ours = ModelPolicy(good.with_name("moved.zip"))
    assert ours.spec["network"] == network_spec("mlp", [64, 64], OBS_DIM, "tanh")
    assert ours.spec["versions"]["trained_with"].startswith("stable-baselines3 ")
    sb3 = TorchPolicy(model.policy, deterministic=True)
    np.testing.assert_array_equal(ours.logits(obs), sb3.logits(obs))
    np.testing.assert_array_equal(ours.act(obs, masks), sb3.act(obs, masks))
    assert load_checkpoint(good, env=None).action_space.n == N_ACTIONS


def test_a_zip_with_pickled_objects_is_refused_unless_trusted(good, tmp_path, monkeypatch):
    """policy.pth holding more than tensors is refused by default; trusted, it is unpickled."""
    buffer = io.BytesIO()
    torch.save({"w": torch.zeros(1), "note": Fraction(1, 3)}, buffer)
    path = rewrite(good, tmp_path / "pickled.zip", put={"policy.pth": buffer.getvalue()})
    monkeypatch.delenv(TRUST_ENV, raising=False)
    with pytest.raises(PolicyLoadError, match=f"pickled Python objects .*set {TRUST_ENV}=1"):
        load_network(path)  # untrusted: refused before any entry is read
    for trusted in ({"trust": True}, {}):
        if not trusted:
            monkeypatch.setenv(TRUST_ENV, "1")
        with pytest.raises(PolicyLoadError, match="not a network this package plays"):
            load_network(path, **trusted)  # read, then found to be no network of ours


def test_a_saved_policy_round_trips_and_names_its_problems(observations, tmp_path):
    """save_policy -> load_network plays the same network; a bad file names itself."""
    from agents.policies.saved import build_network

    obs, masks = observations
    network = network_spec("cards", [32], OBS_DIM, channels=8, blocks=1)
    torch.manual_seed(4)
    net = build_network(network, ortho_init=True).eval()
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    folder = save_policy(tmp_path / "p", network, weights, rules={"undercut_bonus": 25})
    spec = json.loads((folder / POLICY_FILE).read_text())
    assert spec["rules"] == {"undercut_bonus": 25} and spec["observation"]["layout"] == 2
    loaded = ModelPolicy(folder)
    with torch.inference_mode():
        np.testing.assert_array_equal(loaded.logits(obs), net.logits(torch.as_tensor(obs)).numpy())
    assert isinstance(load_policy(str(tmp_path / "p")), ModelPolicy)
    (folder / WEIGHTS_FILE).write_bytes(b"not safetensors")
    with pytest.raises(PolicyLoadError, match=f"cannot read .*{WEIGHTS_FILE}"):
        load_network(folder)
    (folder / POLICY_FILE).write_text(json.dumps({**spec, "format": "other"}))
    with pytest.raises(PolicyLoadError, match="unknown format 'other'"):
        load_network(folder)


def test_pickled_weights_of_the_first_rllib_format_need_trust(tmp_path, monkeypatch):
    """A folder of the first format (module_state.pkl) loads only when trusted."""
    network = network_spec("mlp", [16], OBS_DIM)
    from agents.policies.saved import build_network

    state = {f"net.{k}": v.numpy() for k, v in build_network(network).state_dict().items()}
    (tmp_path / "module_state.pkl").write_bytes(pickle.dumps(state))
    spec = {"format": PICKLED_FORMAT, "module_state": "module_state.pkl", **network}
    (tmp_path / POLICY_FILE).write_text(json.dumps(spec))
    monkeypatch.delenv(TRUST_ENV, raising=False)
    with pytest.raises(PolicyLoadError, match=f"pickled.*set {TRUST_ENV}=1"):
        load_network(tmp_path)
    assert ModelPolicy(tmp_path, trust=True).obs_dim == OBS_DIM


def test_cli_names_a_zip_missing_an_entry_and_exits_2(good, tmp_path, capsys):
    """evaluate.py exits 2 with one line naming the missing entry (no traceback)."""
    broken = rewrite(good, tmp_path / "broken.zip", drop="policy.pth")
    assert evaluate_cli.main([str(broken), "simple", "--series", "1", "--no-progress"]) == 2
    _, line = one_error_line(capsys)
    assert line == f"error: cannot load model {broken}: {model_zip_problem(broken)}"
    assert "no 'policy.pth' entry" in line


@pytest.mark.parametrize("kind", ["mlp", "cards"])
def test_a_snapshot_read_as_data_samples_as_the_live_network(kind, good, observations, tmp_path):
    """A self-play snapshot reloaded from its zip samples the live network's actions, key by key."""
    from agents.training.sb3.model import load_model, policy_to_zip
    from agents.training.selfplay import load_snapshot

    obs, masks = observations
    trust_folder(tmp_path)  # as a run trusts its own snapshots
    path = good if kind == "mlp" else policy_to_zip("ppo-cards", tmp_path / "cards.zip")
    live = load_model(path).policy
    keys = np.arange(len(obs), dtype=np.uint64) * np.uint64(7919)
    before = TorchPolicy(live, deterministic=False).act(obs, masks, keys)
    after = TorchPolicy(load_snapshot(path), deterministic=False)
    np.testing.assert_array_equal(after.logits(obs), TorchPolicy(live).logits(obs))
    np.testing.assert_array_equal(after.act(obs, masks, keys), before)
    assert after.obs_dim == TorchPolicy(live).obs_dim

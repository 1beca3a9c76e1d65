"""The policy registry: entry points name the bots in any process; one resolver, one error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from agents.policies.model import load_policy, policy_problem
from hgin_env.envs import policy as registry
from hgin_env.envs.policy import PolicyLoadError, registered_policies, resolve_policy
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

ROOT = Path(__file__).resolve().parents[2]

FAKE_BOT = '''
import numpy as np

class FirstLegal:
    """Plays the first legal action of each row."""

    def __init__(self, seed=None):
        self.seed = seed

    def act(self, observations, action_masks):
        return np.asarray(action_masks).argmax(axis=1)
'''


def run_fresh(code: str, path: Path | None = None) -> dict:
    """Run ``code`` in a fresh interpreter (``path`` first on sys.path); its last JSON line."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), str(ROOT)])
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def fake_distribution(folder: Path, entries: dict[str, str]) -> Path:
    """A tiny installed distribution ``fakebots`` in ``folder``: its module and entry points."""
    (folder / "fakebots.py").write_text(FAKE_BOT)
    info = folder / "fakebots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakebots\nVersion: 1.0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINT_GROUP}]\n{lines}")
    return folder


@pytest.fixture
def fresh_registry(monkeypatch):
    """The registry as a new process has it, with the entry points a test gives."""

    def install(entries: dict[str, str]) -> None:
        points = [
            metadata.EntryPoint(name, value, registry.ENTRY_POINT_GROUP)
            for name, value in entries.items()
        ]
        monkeypatch.setattr(registry.metadata, "entry_points", lambda group: points)
        monkeypatch.setattr(registry, "_REGISTRY", {"random": registry.RandomPolicy})
        monkeypatch.setattr(registry, "_PLUGINS", {})
        monkeypatch.setattr(registry, "_SOURCES", [])
        monkeypatch.setattr(registry, "_discovered", False)

    return install


def test_envs_resolve_the_bots_without_importing_agents_first() -> None:
    """A fresh process builds the VecEnv against simple and gym.make against expert."""
    result = run_fresh("""
        import json, sys
        import gymnasium as gym
        import hgin_env.envs
        from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
        assert "agents" not in sys.modules
        vec = HollywoodGinVecEnv(4, opponent="simple", seed=0)
        vec.reset()
        env = gym.make("HollywoodGin-v1", opponent="expert")
        env.reset(seed=0)
        print(json.dumps({"vec": type(vec.core.opponent).__name__,
                          "gym": type(env.unwrapped.core.opponent).__name__}))
    """)
    assert result == {"vec": "SimpleBot", "gym": "ExpertBot"}


def test_env_workers_find_the_names_in_their_own_processes() -> None:
    """Env worker processes resolve ``expert`` through the entry points, not an import hack."""
    result = run_fresh("""
        import json
        import numpy as np
        from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
        if __name__ == "__main__":
            env = HollywoodGinVecEnv(4, opponent="expert", seed=0, workers=2)
            env.reset()
            for _ in range(20):
                env.step(env.action_masks().argmax(axis=1))
            env.close()
            print(json.dumps({"ok": True}))
    """)
    assert result == {"ok": True}


def test_a_third_party_package_adds_a_bot(tmp_path: Path) -> None:
    """An installed distribution's entry point is a name everywhere, workers included."""
    folder = fake_distribution(tmp_path, {"first-legal": "fakebots:FirstLegal"})
    result = run_fresh(
        """
        import json
        from hgin_env.envs.policy import registered_policies, resolve_policy
        from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv
        if __name__ == "__main__":
            bot = resolve_policy("first-legal", seed=5)
            env = HollywoodGinVecEnv(4, opponent="first-legal", seed=0, workers=2)
            env.reset()
            env.step(env.action_masks().argmax(axis=1))
            env.close()
            print(json.dumps({"type": type(bot).__name__, "seed": bot.seed,
                              "listed": "first-legal" in registered_policies()}))
        """,
        folder,
    )
    assert result == {"type": "FirstLegal", "seed": 5, "listed": True}


def test_shipped_models_resolve_by_name_in_a_fresh_process() -> None:
    """``ppo-cards`` (models/ppo-cards/) is a name without importing agents."""
    result = run_fresh("""
        import json
        from hgin_env.envs.policy import registered_policies, resolve_policy
        print(json.dumps({"type": type(resolve_policy("ppo-cards")).__name__,
                          "listed": "ppo-cards" in registered_policies()}))
    """)
    assert result == {"type": "ModelPolicy", "listed": True}


def test_a_broken_plugin_is_one_clear_error_and_breaks_no_other_name(fresh_registry) -> None:
    """A plugin that cannot import names itself when used; a broken source is skipped."""
    fresh_registry(
        {
            "simple": "agents.bots:SimpleBot",
            "ghost": "no_such_module_hgin:Bot",
            "__ghosts__": "no_such_module_hgin:SOURCE",
        }
    )
    with pytest.warns(RuntimeWarning, match="'__ghosts__'"):
        names = registered_policies()
    assert {"ghost", "random", "simple"} <= set(names)
    with pytest.raises(PolicyLoadError, match=r"policy plugin 'ghost' \(no_such_module_hgin:Bot\)"):
        resolve_policy("ghost")
    assert type(resolve_policy("simple")).__name__ == "SimpleBot"


def test_an_explicit_registration_wins_over_an_entry_point(fresh_registry) -> None:
    """register_policy keeps its name even when a package's entry point gives it too."""
    fresh_registry({"simple": "agents.bots:SimpleBot"})
    mine = registry.RandomPolicy(3)
    registry.register_policy("simple", lambda seed: mine)
    assert resolve_policy("simple") is mine


@pytest.mark.parametrize("spec", ["no-such-bot", "nosuch-model"])
def test_every_resolver_gives_the_same_error_for_an_unknown_name(spec: str) -> None:
    """The env, load_policy and the config check word an unknown name the same way."""
    messages = []
    for make in (
        lambda: resolve_policy(spec),
        lambda: load_policy(spec),
        lambda: HollywoodGinVecEnv(2, opponent=spec),
        lambda: HollywoodGinVecEnv(2, opponent=spec, workers=2),
    ):
        with pytest.raises(PolicyLoadError) as info:
            make()
        messages.append(str(info.value))
    messages.append(str(policy_problem(spec)))
    assert len(set(messages)) == 1, messages
    assert messages[0].startswith(f"unknown policy {spec!r}: not a known name (")
    assert "simple" in messages[0] and "ppo-cards" in messages[0]


def test_every_resolver_refuses_a_non_policy_object_with_one_text() -> None:
    """An object without act() gets one message, from the env and from load_policy alike."""
    messages = set()
    for make in (lambda: resolve_policy(42), lambda: load_policy(42)):  # type: ignore[arg-type]
        with pytest.raises(PolicyLoadError) as info:
            make()
        messages.add(str(info.value))
    assert messages == {
        "a policy must be a name, a model path or an object with "
        "act(observations, action_masks); got int"
    }


def test_pyproject_registers_each_policy_name_once(fresh_registry) -> None:
    """No name is both a plain entry point and a source's; the sources alone serve the bots."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entries = project["project"]["entry-points"]["hgin_env.policies"]
    fresh_registry(entries)
    registry.discover_plugins()
    served = [n for s in registry._SOURCES for n in s.names()]
    plain = [name for name in entries if not name.startswith("__")]
    assert len(served) == len(set(served)) and not set(plain) & set(served)
    assert type(resolve_policy("simple", seed=1)).__name__ == "SimpleBot"
    assert {"simple", "expert", "patient", "tempo"} <= set(registered_policies())


class SpySource:
    """A source serving the name ``zzz`` that records every spec it is asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def names(self) -> list[str]:
        """The one name it lists."""
        return ["zzz"]

    def load(self, spec: str, seed: int | None) -> object:
        """Record the spec and serve the random policy."""
        self.asked.append(spec)
        return registry.RandomPolicy(seed)


def test_the_resolver_asks_only_the_source_that_lists_the_name(monkeypatch) -> None:
    """A spec is split once and goes to the source listing its name; no other is asked."""
    registered_policies()  # the entry points are read before the sources are patched
    spy = SpySource()
    monkeypatch.setattr(registry, "_SOURCES", [*registry._SOURCES, spy])
    with pytest.raises(PolicyLoadError, match="unknown policy 'qqq'"):
        resolve_policy("qqq")
    resolve_policy("simple@1")
    assert spy.asked == []
    assert isinstance(resolve_policy("zzz@2:k=1", seed=0), registry.RandomPolicy)
    assert spy.asked == ["zzz@2:k=1"]

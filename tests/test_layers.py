"""The layers: imports flow one way (engine -> envs -> agents -> CLIs), with no cycle.

Each import check runs in a fresh interpreter, so nothing an earlier test imported hides
a heavy import.
"""

from __future__ import annotations

import ast
import graphlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("hgin_env", "agents", "hgin_cli")
#: lower layers first; a module may import its own layer and the ones before it
LAYERS = ("hgin_env.engine", "hgin_env", "agents", "hgin_cli")

PROBE = """
import json, sys
at_start = set(sys.modules)
{code}
new = {{name.split(".")[0] for name in set(sys.modules) - at_start}}
third_party = sorted(new - set(sys.stdlib_module_names) - {{"hgin_env", "agents"}})
print(json.dumps({{"third_party": third_party, "modules": sorted(sys.modules)}}))
"""


def loaded_by(code: str) -> dict:
    """The modules a fresh interpreter holds after running ``code`` from the repo root."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def module_name(path: Path) -> str:
    """``hgin_env/envs/core.py`` -> ``hgin_env.envs.core`` (packages by their folder)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every project module -> the project modules its code imports (anywhere in the file)."""
    files = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets.add(node.module)
                targets.update(f"{node.module}.{alias.name}" for alias in node.names)
        resolved = set()
        for target in targets:
            while target and target not in files:
                target = target.rpartition(".")[0]
            if target and target != name:
                resolved.add(target)
        graph[name] = resolved
    return graph


def layer(module: str) -> int:
    """The index in ``LAYERS`` of the innermost (longest) layer prefix holding ``module``."""
    parts = module.split(".")
    holding = [p for p in LAYERS if parts[: len(p.split("."))] == p.split(".")]
    return LAYERS.index(max(holding, key=len))


def test_the_package_has_no_import_cycle():
    """No chain of imports (module level or inside functions) leads back to its start."""
    graph = import_graph()
    assert len(graph) > 30
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as err:
        pytest.fail(f"import cycle: {' -> '.join(err.args[1])}")


def test_no_module_imports_a_higher_layer():
    """The engine imports no env code, the envs no agents code (imports flow one way)."""
    upward = [
        f"{mod} imports {dep}"
        for mod, deps in import_graph().items()
        for dep in deps
        if layer(dep) > layer(mod)
    ]
    assert upward == []


def test_the_cycle_check_can_fail():
    """The cycle check sees a cycle when one is there (guards the two tests above)."""
    with pytest.raises(graphlib.CycleError):
        tuple(graphlib.TopologicalSorter({"a": {"b"}, "b": {"a"}}).static_order())


@pytest.mark.parametrize(
    "code",
    [
        "import hgin_env.engine",
        "import hgin_env.envs.observation",
        "import hgin_env.envs.render",
        "import hgin_env.envs.policy",
        "import hgin_env.replay",
        "import hgin_env.engine.checker",
    ],
)
def test_numpy_only_modules_load_numpy_only(code):
    """The engine, the observation encoder, text rendering and replay need numpy alone."""
    assert loaded_by(code)["third_party"] == ["numpy"]


@pytest.mark.parametrize(
    "code",
    ["import hgin_env.envs", "import agents", "from agents.bots import SimpleBot, ExpertBot"],
)
def test_envs_and_bots_load_neither_torch_tqdm_nor_the_evaluator(code):
    """Importing the envs package or a bot loads no torch, tqdm, SB3 or evaluation code."""
    loaded = loaded_by(code)
    assert not {"torch", "tqdm", "stable_baselines3", "sb3_contrib"} & set(loaded["third_party"])
    assert not [
        m for m in loaded["modules"] if m.startswith(("agents.evaluation", "agents.training"))
    ]


def test_parsing_a_config_does_not_import_torch():
    """``load_config`` on a shipped YAML needs PyYAML, not torch or SB3."""
    loaded = loaded_by(
        "from agents.training.config import load_config\n"
        "load_config('configs/hollywood_cards.yaml')"
    )
    assert not {"torch", "stable_baselines3", "sb3_contrib"} & set(loaded["third_party"])


def test_conftest_imports_no_torch():
    """The suite's conftest stays light: collecting engine tests never loads torch."""
    tree = ast.parse((ROOT / "tests" / "conftest.py").read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "torch" not in names
    assert (
        "torch"
        not in loaded_by("import sys; sys.path.insert(0, 'tests'); import conftest")["third_party"]
    )

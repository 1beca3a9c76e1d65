"""The layers: imports flow one way (engine -> envs -> agents -> front ends -> CLIs), no cycle.

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
PACKAGES = ("hgin_env", "agents", "hgin_ui", "hgin_cli")
#: lower layers first; a module may import its own layer and the ones before it
LAYERS = ("hgin_env.engine", "hgin_env", "agents", "hgin_ui", "hgin_cli")

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


def module_name(path: Path, root: Path = ROOT) -> str:
    """``hgin_env/envs/core.py`` -> ``hgin_env.envs.core`` (packages by their folder)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_from(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    """The absolute module a ``from ... import`` names, relative ones (``from .views``) too.

    Args:
        node: the import statement.
        name: the importing module's name.
        is_package: whether the importing module is a package's ``__init__``.
    """
    if node.level == 0:
        return node.module or ""
    package = name.split(".") if is_package else name.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def named_imports(path: Path, name: str) -> set[str]:
    """Every name module ``name`` (the file ``path``) imports, anywhere, as written.

    ``from a.b import c`` names ``a.b`` and ``a.b.c`` (``c`` may be a module or not).
    """
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = imported_from(node, name, path.name == "__init__.py")
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Every project module under ``root`` -> the project modules its code imports (anywhere)."""
    files = {module_name(p, root): p for pkg in PACKAGES for p in (root / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        resolved = set()
        for target in named_imports(path, name):
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


#: the SB3 side of training: a module under ``agents.training.sb3`` or a third-party one
SB3_SIDE = ("agents.training.sb3", "stable_baselines3", "sb3_contrib")


def imports_of(module: str, root: Path = ROOT) -> set[str]:
    """Every module a project module's code names in an import (anywhere), as written."""
    path = root / Path(*module.split("."))
    return named_imports(path / "__init__.py" if path.is_dir() else path.with_suffix(".py"), module)


def reachable(graph: dict[str, set[str]], starts: list[str]) -> set[str]:
    """The project modules ``starts`` import, directly or through others (``starts`` too)."""
    seen, todo = set(starts), list(starts)
    while todo:
        for dep in graph[todo.pop()] - seen:
            seen.add(dep)
            todo.append(dep)
    return seen


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    """Whether ``module`` is one of ``prefixes`` or inside one of them."""
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_evaluation_imports_nothing_from_training():
    """No module of agents.evaluation reaches agents.training (directly or through others)."""
    graph = import_graph()
    evaluation = [m for m in graph if within(m, ("agents.evaluation",))]
    assert evaluation
    found = sorted(m for m in reachable(graph, evaluation) if within(m, ("agents.training",)))
    assert found == []


def test_the_rllib_backend_imports_nothing_from_the_sb3_side():
    """agents.training.rllib, and the training modules it reaches, import nothing of SB3."""
    graph = import_graph()
    rllib = [m for m in graph if within(m, ("agents.training.rllib",))]
    assert rllib
    training = [m for m in reachable(graph, rllib) if within(m, ("agents.training",))]
    found = sorted(m for m in training if within(m, SB3_SIDE))
    found += sorted(
        f"{m} imports {name}" for m in training for name in imports_of(m) if within(name, SB3_SIDE)
    )
    assert found == []


def test_the_backend_checks_can_fail(tmp_path):
    """The reach and import checks see an SB3 import through a core module."""
    for folder in ("agents", "agents/training", "agents/training/rllib", "agents/training/sb3"):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "agents" / "training" / "core.py").write_text("from .sb3 import loop\n")
    (tmp_path / "agents" / "training" / "sb3" / "loop.py").write_text("")
    (tmp_path / "agents" / "training" / "rllib" / "b.py").write_text(
        "from agents.training import core\nimport stable_baselines3\n"
    )
    graph = import_graph(tmp_path)
    assert "agents.training.sb3.loop" in reachable(graph, ["agents.training.rllib.b"])
    assert "stable_baselines3" in imports_of("agents.training.rllib.b", tmp_path)


def test_the_cycle_check_can_fail():
    """The cycle check sees a cycle when one is there (guards the two tests above)."""
    with pytest.raises(graphlib.CycleError):
        tuple(graphlib.TopologicalSorter({"a": {"b"}, "b": {"a"}}).static_order())


def test_relative_imports_are_followed(tmp_path):
    """``from .b import x``, ``from . import b`` and ``from ..c import y`` are edges too."""
    pkg = tmp_path / "agents" / "sub"
    pkg.mkdir(parents=True)
    (tmp_path / "agents" / "__init__.py").write_text("from .sub import a\n")
    (tmp_path / "agents" / "c.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\nfrom ..c import y\n")
    (pkg / "b.py").write_text("from . import a\n")
    graph = import_graph(tmp_path)
    assert graph["agents"] == {"agents.sub", "agents.sub.a"}
    assert graph["agents.sub.a"] == {"agents.sub.b", "agents.c"}
    assert graph["agents.sub.b"] == {"agents.sub", "agents.sub.a"}
    with pytest.raises(graphlib.CycleError):
        tuple(graphlib.TopologicalSorter(graph).static_order())


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
    """The engine, the observation encoder, text rendering and replay need numpy alone.

    And numba, the engine's kernel compiler, with what numba itself loads.
    """
    allowed = {"numpy"} | set(loaded_by("import numba")["third_party"])
    loaded = set(loaded_by(code)["third_party"])
    assert "numpy" in loaded and loaded <= allowed, sorted(loaded - allowed)


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


#: apart from the product: the experiments, their tests, the lab log
RESEARCH = "research"


def research_imports(root: Path = ROOT) -> list[str]:
    """``module imports name`` for each import of ``research`` in the product's code."""
    found = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            name = module_name(path, root)
            found += [
                f"{name} imports {n}" for n in named_imports(path, name) if within(n, (RESEARCH,))
            ]
    return sorted(found)


def test_the_product_never_imports_research():
    """hgin_env, agents, hgin_ui and hgin_cli import nothing of ``research`` (anywhere)."""
    assert (ROOT / RESEARCH / "experiments").is_dir()
    assert research_imports() == []


def test_the_research_check_can_fail(tmp_path):
    """A product module importing ``research`` (plainly or lazily) is found."""
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "agents" / "a.py").write_text("def f():\n    from research.experiments import x\n")
    (tmp_path / "hgin_cli" / "b.py").write_text("import research\n")
    assert research_imports(tmp_path) == [
        "agents.a imports research.experiments",
        "agents.a imports research.experiments.x",
        "hgin_cli.b imports research",
    ]


SHIPPED = ("ppo-cards", "ppo-knock", "ppo-league", "ppo-league2", "ppo-taught")


def test_playing_a_shipped_model_imports_no_trainer():
    """``load_policy`` of each shipped network plays without agents.training, SB3 or sb3-contrib."""
    code = (
        "import numpy as np\n"
        "from agents.policies.model import load_policy\n"
        "from hgin_env.envs.gym_env import HollywoodGinEnv\n"
        "obs, info = HollywoodGinEnv(opponent='simple').reset(seed=1)\n"
        f"for name in {SHIPPED!r}:\n"
        "    assert type(load_policy(name)).__name__ == 'ModelPolicy'\n"
        "    load_policy(name).act(obs[None], info['action_mask'][None])\n"
    )
    loaded = loaded_by(code)
    assert not {"stable_baselines3", "sb3_contrib"} & set(loaded["third_party"])
    assert not [m for m in loaded["modules"] if within(m, ("agents.training",))]


def test_no_model_file_names_the_trainer():
    """No shipped model's files name ``agents.training`` (no pickle of the trainer's classes)."""
    files = [p for name in SHIPPED for p in sorted((ROOT / "models" / name).iterdir())]
    assert any(p.name == "weights.safetensors" for p in files)
    assert not [p for p in files if p.suffix in (".zip", ".pkl", ".pth")]
    assert [p.name for p in files if b"agents.training" in p.read_bytes()] == []


def test_no_test_module_imports_another():
    """A test module imports helpers (``tests/helpers*``, conftest), never another test module."""
    tests = {p.stem for folder in ("tests", RESEARCH) for p in (ROOT / folder).rglob("test_*.py")}
    found = []
    for folder in ("tests", RESEARCH):
        for path in sorted((ROOT / folder).rglob("test_*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                found += [
                    f"{path.relative_to(ROOT)} imports {n}"
                    for n in names
                    if n.split(".")[-1] in tests
                ]
    assert found == []

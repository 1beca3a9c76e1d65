"""The docs agree with the code: generated tables, links, README size, Decisions' tests."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
TESTS = ROOT / "tests"
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "research" / "experiments.md",
]
README_MAX_LINES = 250

_spec = importlib.util.spec_from_file_location("gen_tables", ROOT / "docs" / "gen_tables.py")
assert _spec is not None and _spec.loader is not None
gen_tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_tables)


def _without_fences(text: str) -> str:
    """Markdown without its fenced code blocks."""
    return re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.M | re.S)


def _prose(text: str) -> str:
    """Markdown without its fenced code blocks and inline code spans."""
    return re.sub(r"`[^`\n]*`", "", _without_fences(text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    """The heading anchors of a markdown page (a repeated heading gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    anchors = set()
    for m in re.finditer(r"^#{1,6} +(.+?) *#*$", _without_fences(page.read_text()), re.M):
        slug = _slug(m[1])
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _links(page: Path) -> list[str]:
    """The relative link targets of a markdown page (web and mail links left out)."""
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _prose(page.read_text()))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def _test_file(basename: str) -> Path | None:
    """The test file with this name anywhere under tests/ (files move between folders)."""
    found = sorted(TESTS.rglob(basename))
    return found[0] if found else None


def _test_docstrings(path: Path) -> dict[str, str]:
    """Test function name -> its docstring ('' when it has none), top level and in classes."""
    tree = ast.parse(path.read_text())
    return {
        node.name: ast.get_docstring(node) or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    }


def _rules_tables() -> tuple[str, list[list[str]]]:
    """docs/rules.md sections 1-5, and the rows of the tables of its section 6."""
    text = (ROOT / "docs" / "rules.md").read_text()
    rules, _, appendix = text.partition("\n## 6. ")
    assert appendix, "docs/rules.md has no section 6 listing the Decisions and their tests"
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in appendix.splitlines()
        if line.startswith("|") and not re.match(r"\|[-| ]+\|$", line)
    ]
    return rules, rows


#: the first header cell of the two tables of docs/rules.md section 6
_HEADERS = ("Decision", "checklist item (§5)")


def _named_tests(cell: str) -> list[str]:
    return re.findall(r"`([\w.]+\.py::\w+)`", cell)


def test_generated_tables_match_the_code():
    """Every generated block in docs/ equals what docs/gen_tables.py renders from the code."""
    assert gen_tables.problems() == []


def test_check_reports_a_stale_and_a_missing_block(tmp_path):
    """The check flags a block whose body was edited and a block no page holds any more."""
    for page in gen_tables.pages():
        (tmp_path / page.name).write_text(page.read_text())
    engine = tmp_path / "engine.md"
    text = engine.read_text()
    edited = text.replace("| `104` | draw", "| `104` | knock", 1)
    assert edited != text
    engine.write_text(edited)
    env = tmp_path / "environments.md"
    env.write_text(env.read_text().replace("GENERATED: privileged", "GENERATED: hidden"))
    problems = gen_tables.problems(tmp_path)
    assert "engine.md: block 'actions' is stale" in " ".join(problems)
    assert "block 'privileged' appears in no page" in problems
    assert any("unknown block 'hidden'" in p for p in problems)


def test_regenerate_restores_an_edited_block():
    """regenerate() puts the rendered table back between the markers of an edited block."""
    page = ROOT / "docs" / "engine.md"
    text = page.read_text()
    rendered = {name: render() for name, render in gen_tables.TABLES.items()}
    edited = text.replace("| `104` | draw", "| `104` | knock", 1)
    assert edited != text
    assert gen_tables.regenerate(edited, rendered) == text


def test_each_table_appears_once_in_the_docs():
    """The action and observation tables are written out in one page only (others link)."""
    pages = [p.read_text() for p in PAGES]
    for row in ("| `104` | draw the top card", "| 364 | `deadwood` |", "| 504 | `opponent_de"):
        assert sum(text.count(row) for text in pages) == 1, row


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    """Every relative link of README.md and docs/*.md names a file (and heading) that exists."""
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists() or (anchor and dest.suffix == ".md" and anchor not in _anchors(dest)):
            broken.append(target)
    assert not broken, f"{page.name}: broken links {broken}"


#: where a "PAGE (section NAME)" citation may stand: the code, configs and build files
CITING = [
    ROOT / "Makefile",
    ROOT / "pyproject.toml",
    *PAGES,
    *sorted((ROOT / "configs").glob("*.yaml")),
    *sorted(
        p
        for d in ("hgin_env", "agents", "hgin_cli", "benchmarks", "docs", "tests")
        for p in (ROOT / d).rglob("*.py")
    ),
    *sorted(ROOT.glob("*.py")),
]
#: a citation of a section: ``README (section Quick start)``, ``docs/training.md (section
#: Config reference)``; the page and name may be wrapped over comment lines
_CITATION = re.compile(r"\b(README(?:\.md)?|docs/[\w-]+\.md) \(section ([^()]+?)\)")


def _headings(page: Path) -> list[str]:
    """The heading texts of a markdown page, without the leading hashes."""
    return re.findall(r"^#{1,6} +(.+?) *#*$", _without_fences(page.read_text()), re.M)


def cited_sections(text: str) -> list[tuple[str, str]]:
    """The ``(page, section name)`` pairs that ``text`` cites, line wrapping undone."""
    flat = re.sub(r"\s*\n\s*(?:#+ *|// *)?", " ", text)
    return [(page, " ".join(name.split())) for page, name in _CITATION.findall(flat)]


def missing_sections(citations: list[tuple[str, str]], root: Path = ROOT) -> list[str]:
    """The citations whose page has no heading of that name (or ``name (...)``)."""
    missing = []
    for page, name in citations:
        path = root / ("README.md" if page.startswith("README") else page)
        heads = _headings(path) if path.exists() else []
        if not any(h == name or h.startswith(name + " (") for h in heads):
            missing.append(f"{page} (section {name})")
    return missing


def test_cited_sections_exist():
    """Every "README (section X)" / "docs/page.md (section X)" names an existing heading."""
    found = {
        path.relative_to(ROOT).as_posix(): missing_sections(cited_sections(path.read_text()))
        for path in CITING
        if path != Path(__file__).resolve()  # this file's examples cite on purpose
    }
    stale = {path: missing for path, missing in found.items() if missing}
    assert not stale, f"citations of sections that do not exist: {stale}"


def test_a_stale_section_citation_is_caught():
    """The citation check flags a cited heading that is gone, wrapped over comment lines too."""
    text = "# Every field is documented in the README (section\n# Training).\n"
    assert cited_sections(text) == [("README", "Training")]
    assert missing_sections(cited_sections(text)) == ["README (section Training)"]
    good = (
        "docs/training.md (section Config reference); docs/results.md (section The shipped agent)"
    )
    assert missing_sections(cited_sections(good)) == []


#: top-level folders whose paths, written as code in a page, must exist
_TREE = (
    "hgin_env/",
    "agents/",
    "hgin_cli/",
    "tests/",
    "configs/",
    "benchmarks/",
    "docs/",
    "models/",
    "research/",
)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_code_paths_in_the_docs_exist(page):
    """Every `path` of the tree a page names as code (globs allowed) exists."""
    missing = []
    for token in re.findall(r"`([^`\s]+)`", page.read_text()):
        path = token.split("::")[0].rstrip("/")
        concrete = path.startswith(_TREE) and not re.search(r"[<>{}$]", path)
        if concrete and not list(ROOT.glob(path)):
            missing.append(path)
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


def test_console_scripts_sit_where_the_layout_says():
    """A row of docs/index.md's layout that names a console script names its module's file."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    rows = [
        line
        for line in (ROOT / "docs" / "index.md").read_text().splitlines()
        if line.startswith("| `")
    ]
    wrong = []
    for name, target in scripts.items():
        module_file = target.split(":")[0].replace(".", "/") + ".py"
        for row in rows:
            if f"`{name}`" not in row:
                continue
            folder = re.match(r"\| `([^`]+)`", row)[1]
            if not (module_file.startswith(folder) or f"`{module_file}`" in row):
                wrong.append(f"{name} ({module_file}) in the row of {folder}")
    assert not wrong, f"docs/index.md places console scripts wrongly: {wrong}"


def test_env_registration_note_holds():
    """As hgin_env/__init__.py says: `import hgin_env.envs` alone registers nothing; adapters do."""
    code = (
        "import importlib, sys; importlib.import_module(sys.argv[1]); import gymnasium;"
        "print('HollywoodGin-v1' in gymnasium.registry)"
    )
    seen = {
        module: subprocess.run(
            [sys.executable, "-c", code, module], capture_output=True, text=True, check=True
        ).stdout.strip()
        for module in ("hgin_env.envs", "hgin_env.envs.sb3_vec_env")
    }
    assert seen == {"hgin_env.envs": "False", "hgin_env.envs.sb3_vec_env": "True"}
    note = (ROOT / "hgin_env" / "__init__.py").read_text()
    assert "``import hgin_env.envs`` always registers" not in note


def test_license_matches_pyproject():
    """pyproject.toml's MIT license comes with the MIT text in LICENSE."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "hollywood-gin contributors" in text


def test_readme_is_a_short_front_door():
    """README.md is at most 250 lines; the reference lives in docs/."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_each_decision_and_checklist_item_names_existing_tests():
    """docs/rules.md lists every Decision and section 5 item with tests that exist."""
    rules, rows = _rules_tables()
    rows = [row for row in rows if row[0] not in _HEADERS]
    decisions = [row for row in rows if row[0].startswith("Decision (")]
    stated = re.findall(r"^- \*\*Decision", rules, re.M)
    assert len(decisions) == len(stated), "a Decision is missing from the table"
    items = [line for line in rules.partition("\n## 5.")[2].splitlines() if line.startswith("- ")]
    assert len(rows) - len(decisions) == len(items), "a section 5 item is missing from the table"
    missing = []
    for row in rows:
        names = _named_tests(row[-1])
        assert names, f"no test named for {row[0]!r}"
        for name in names:
            basename, test = name.split("::")
            path = _test_file(basename)
            if path is None or test not in _test_docstrings(path):
                missing.append(name)
    assert not missing, f"docs/rules.md names tests that do not exist: {missing}"


def test_decision_tests_name_their_decision():
    """Each test listed for a Decision says 'Decision (<name>)' in its docstring."""
    _, rows = _rules_tables()
    wrong = []
    for row in rows:
        label = re.match(r"Decision \([^)]*\)", row[0])
        if not label:
            continue
        for name in _named_tests(row[-1]):
            basename, test = name.split("::")
            path = _test_file(basename)
            doc = _test_docstrings(path).get(test, "") if path else ""
            if not doc.startswith(label[0]):
                wrong.append(name)
    assert not wrong, f"these tests do not name their Decision in the docstring: {wrong}"


def _examples() -> list:
    params = []
    for page in (ROOT / "README.md", ROOT / "docs" / "environments.md"):
        blocks = re.findall(r"^```python\n(.*?)^```", page.read_text(), re.M | re.S)
        for i, code in enumerate(blocks):
            if "gymnasium.make(\n" in code:  # the signatures, not an example
                continue
            marks = [pytest.mark.slow] if "MaskablePPO" in code else []
            params.append(pytest.param(code, id=f"{page.stem}-{i}", marks=marks))
    return params


@pytest.mark.parametrize("code", _examples())
def test_examples_run(code, tmp_path):
    """Each python example of the README and docs/environments.md runs without error."""
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]


# ---------------------------------------------------------------- stray references
#: the texts a reader is shown: the pages, the configs, the build and package metadata
TEXTS = [
    *PAGES,
    *sorted((ROOT / "configs").glob("*.yaml")),
    *sorted((ROOT / "models").glob("*/config.yaml")),
    ROOT / "pyproject.toml",
    ROOT / "Makefile",
]
#: the Python sources whose docstrings are checked too (this file's examples are stray on purpose)
_FOLDERS = ("hgin_env", "agents", "hgin_ui", "hgin_cli", "research", "benchmarks", "tests")
SOURCES = [
    *(p for folder in _FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))),
    *(ROOT / name for name in ("train.py", "evaluate.py", "play.py", "setup.py")),
]
#: a development machine's absolute path, or its lock for heavy jobs named in prose (a reader
#: has no such lock: say what ran beside the job instead)
_MACHINE_PATH = re.compile(r"(?<![\w.~$-])/(?:work|tmp|root|home)/|\bheavy[ ._-]lock\b", re.I)
#: an issue number: "issue 23", "issues 6", "#23"
_ISSUE = re.compile(r"\bissues?\s+#?\d+|(?<![\w&#/])#\d+\b", re.I)
#: a repository path: a top-level folder of the tree, then anything path-like
_TOP = "|".join(map(re.escape, (*_TREE, "hgin_ui/", ".ci/", "runs/")))
_REPO_PATH = re.compile(rf"(?<![\w./-])((?:{_TOP})[\w./*-]*)")
#: paths that exist only once built or run (the run folders, the wheel's copy of the data)
_BUILT = ("runs", "agents/_shipped", "dist", "build")
#: ``python -m benchmarks.engine_speed``, ``python -m research.experiments.belief_table``
#: (not ``NAME``)
_MODULE = re.compile(r"python3? -m (benchmarks|research\.experiments)\.([a-z_]\w*)")


def stray_references(text: str, root: Path = ROOT) -> list[str]:
    """What ``text`` must not hold: machine paths, issue numbers, repository paths that are gone.

    >>> stray_references("see /work/x, issue 23 (#24) and docs/nothing.md")
    ['/work/', 'issue 23', '#24', 'docs/nothing.md']
    >>> stray_references("docs/index.md, runs/<name>/, `python -m benchmarks.env_speed`")
    []
    """
    found = [m[0] for m in _MACHINE_PATH.finditer(text)] + [m[0] for m in _ISSUE.finditer(text)]
    for m in _REPO_PATH.finditer(text):
        path = m[1].split("::")[0].rstrip(".,:;)'\"").rstrip("/")
        if text[m.end() : m.end() + 1] in "<{$" and text[m.end() : m.end() + 1]:
            continue  # a placeholder follows: runs/<name>, models/{name}
        built = path in _BUILT or path.startswith(tuple(f"{b}/" for b in _BUILT))
        if built and not path.endswith((".sh", ".py")):
            continue
        if not list(root.glob(path)):
            found.append(path)
    found += [
        m[0]
        for m in _MODULE.finditer(text)
        if not (root / m[1].replace(".", "/") / f"{m[2]}.py").exists()
    ]
    return found


def _docstrings(path: Path) -> str:
    """Every module, class and function docstring of a Python file, one after another."""
    nodes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    texts = (ast.get_docstring(n, clean=False) for n in ast.walk(tree) if isinstance(n, nodes))
    return "\n".join(t for t in texts if t)


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_texts_hold_no_stray_reference(path):
    """A page or config names no machine path, no issue number and no missing repository path."""
    assert stray_references(path.read_text(encoding="utf-8")) == []


def test_docstrings_hold_no_stray_reference():
    """No docstring names a machine path, an issue number or a missing repository path."""
    found = {}
    for path in SOURCES:
        if path == Path(__file__).resolve():
            continue
        stray = stray_references(_docstrings(path))
        if stray:
            found[str(path.relative_to(ROOT))] = stray
    assert found == {}


def test_a_stray_reference_is_caught(tmp_path):
    """Each kind is found: a lock file's path and name, an issue, a gone script, a module."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "here.md").write_text("")
    text = (
        "under flock /work/heavy.lock; see issue 23 and #7; run runs/exploit_all.sh, "
        "docs/here.md, docs/gone.md, python -m research.experiments.nothing; runs/x/ is output; "
        "measured under the heavy lock"
    )
    assert stray_references(text, tmp_path) == [
        "/work/",
        "heavy.lock",
        "heavy lock",
        "issue 23",
        "#7",
        "runs/exploit_all.sh",
        "docs/gone.md",
        "python -m research.experiments.nothing",
    ]

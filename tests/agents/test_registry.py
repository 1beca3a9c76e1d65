"""The one registry of versioned names: bots and searchers alike, each policy named exactly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agents.policies.model import PolicyLoadError, load_policy
from agents.registry import UNVERSIONED, VERSIONS, exact_name
from hgin_env.envs.policy import registered_policies


def test_every_versioned_name_resolves_and_carries_its_exact_name():
    """Each bot and searcher version builds a policy whose ``spec`` is its exact name."""
    assert set(VERSIONS) | set(UNVERSIONED) <= set(registered_policies())
    for name, versions in VERSIONS.items():
        assert exact_name(name) == f"{name}@{max(versions)}"
        for version in versions:
            exact = f"{name}@{version}"
            assert exact_name(exact) == exact
            if name != "searcher":  # a searcher loads two networks: one is enough below
                assert load_policy(exact, seed=0).spec == exact
    assert load_policy("searcher@1:worlds=2", seed=0).spec == "searcher@1:worlds=2"
    assert load_policy("patient:knock_turns=4", seed=0).spec == "patient@1:knock_turns=4"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("simple@9", "unknown version 'simple@9' of 'simple'; known versions: simple@1, simple@2"),
        ("searcher@9", "unknown version 'searcher@9' of 'searcher'; known versions: searcher@1"),
        ("tempo:", "name 'tempo:' ends with ':' but sets no option"),
        ("searcher:", "name 'searcher:' ends with ':' but sets no option"),
        ("pimc@1", "'pimc' has no versions"),
    ],
)
def test_a_bad_version_reads_the_same_for_bots_and_searchers(spec, message):
    """One registry, one text for an unknown version or an empty option list."""
    with pytest.raises(PolicyLoadError) as caught:
        load_policy(spec)
    assert str(caught.value).startswith(message)


def test_the_evaluator_imports_no_search_to_name_versions():
    """Importing the evaluator and naming a bot's version loads no ``agents.search`` module."""
    code = (
        "import sys\n"
        "from agents.evaluation.match import policy_version\n"
        "from agents.policies.model import load_policy\n"
        "assert policy_version(load_policy('simple')) == 'simple@2'\n"
        "print(sorted(m for m in sys.modules if m.startswith('agents.search')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout

"""Fuzz config YAML and ``--set`` values: a config or one bounded ConfigError line.

Seeded and small: YAML documents built from the real field names with random values,
raw texts, and ``--set`` items; none may raise anything but ``ConfigError``, and its
message is one line of bounded length (no value is expanded into it).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.training.config import ConfigError, TrainConfig, build_config, load_config

KEYS = [
    "experiment", "seed", "total_timesteps", "ppo", "eval", "env", "rules", "opponents",
    "n_envs", "n_steps", "net_arch", "learning_rate", "mix", "every_steps", "bogus",
]  # fmt: skip
DOTTED = [
    "seed", "ppo.n_envs", "ppo.net_arch", "ppo.learning_rate", "eval.opponents",
    "opponents.mix", "experiment", "rules.knock_limit", "a.b.c", "", "ppo",
]  # fmt: skip
SCALARS = (
    st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.floats()
    | st.text(max_size=10)
)  # fmt: skip
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=10,
)
RAW = st.text(alphabet="[]{}:,&*!|>-#'\" \nab1.e%@`\t", max_size=40)
FOLDER = tempfile.TemporaryDirectory(prefix="fuzz-config-")
SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def one_line(exc: ConfigError) -> None:
    """A ConfigError's message: one line, a few hundred characters at most."""
    text = str(exc)
    assert "\n" not in text and len(text) < 700, text[:300]


@SETTINGS
@given(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5))
def test_fuzzed_config_files(data: dict) -> None:
    """A YAML document of random values under real field names."""
    text = yaml.safe_dump(data)
    try:
        assert isinstance(build_config(yaml.safe_load(text)), TrainConfig)
    except ConfigError as exc:
        one_line(exc)


@SETTINGS
@given(RAW)
def test_fuzzed_raw_yaml_files(text: str) -> None:
    """Raw texts of YAML's punctuation (anchors, aliases, tags, flows) as a config file."""
    path = Path(FOLDER.name) / "c.yaml"
    path.write_text(text)
    try:
        load_config(path)
    except ConfigError as exc:
        one_line(exc)


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(DOTTED), RAW | st.text(max_size=12)), max_size=3))
def test_fuzzed_set_values(items: list) -> None:
    """``--set key=value`` items with random values (and bad keys)."""
    try:
        load_config(None, [f"{key}={value}" for key, value in items])
    except ConfigError as exc:
        one_line(exc)

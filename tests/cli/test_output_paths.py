"""The CLIs' output check: a file that cannot be written is refused first."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.reports import one_error_line

import hgin_cli.evaluate as evaluate_cli
from hgin_cli.output_paths import OutputPathError, check_writable


def test_the_output_check_leaves_nothing_behind(tmp_path: Path, capsys) -> None:
    """Checking a new path creates and removes its folders; an existing file is untouched."""
    target = tmp_path / "a" / "b" / "out.json"
    argv = ["random", "nosuchbot", "--series", "2", "--json", str(target)]
    assert evaluate_cli.main(argv) == 2  # fails on the policy, after the output check
    assert "nosuchbot" in one_error_line(capsys)[1]
    assert list(tmp_path.iterdir()) == []
    existing = tmp_path / "keep.json"
    existing.write_text("old")
    check_writable(existing)
    assert existing.read_text() == "old"
    with pytest.raises(OutputPathError, match="is a directory"):
        check_writable(tmp_path)

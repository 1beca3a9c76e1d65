"""The command lines refuse what the machine cannot do, in one line, before any work."""

from __future__ import annotations

import errno
import json
import stat
from pathlib import Path

import pytest
from helpers.reports import one_error_line

import hgin_cli.evaluate as evaluate_cli
from agents.training import checkpoint

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "models" / "ppo-cards"


def usage_error(argv: list[str], capsys) -> str:
    """The error line of an argparse refusal (exit status 2)."""
    with pytest.raises(SystemExit) as info:
        evaluate_cli.main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def test_series_past_the_memory_is_refused_with_the_limit(capsys) -> None:
    """--series 10,000,000,000 would allocate 74.5 GiB: refused, naming what fits."""
    line = usage_error(["random", "simple", "--series", "10000000000"], capsys)
    assert "--series 10,000,000,000 needs about" in line and "holds at most" in line


def test_a_duplicate_league_name_is_refused(capsys) -> None:
    """--league simple simple: one line."""
    line = usage_error(["--league", "simple", "simple", "--series", "2"], capsys)
    assert "--league lists 'simple' twice" in line


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_json_to_a_device_is_refused_before_any_game(capsys) -> None:
    """--json /dev/full: one line, exit 2, and the device is left as it is."""
    argv = ["random", "simple", "--series", "2", "--json", "/dev/full", "--no-progress"]
    assert evaluate_cli.main(argv) == 2
    out, line = one_error_line(capsys)
    assert line == (
        "error: cannot write /dev/full: not a regular file (--json writes a whole file, atomically)"
    )
    assert out == "" and stat.S_ISCHR(Path("/dev/full").stat().st_mode)


def test_a_json_write_that_fails_is_one_line_and_leaves_no_part(
    tmp_path, monkeypatch, capsys
) -> None:
    """A disk that fills while --json is written: exit 2, one line, no half file."""
    target = tmp_path / "out.json"
    target.write_text('{"old": true}\n')

    def full(file):
        file.write(b'{"partial')
        raise OSError(errno.ENOSPC, "No space left on device")

    real = checkpoint.atomic_write
    monkeypatch.setattr(checkpoint, "atomic_write", lambda path, write: real(path, full))
    argv = ["random", "simple", "--series", "2", "--json", str(target), "--no-progress"]
    assert evaluate_cli.main(argv) == 2
    _, line = one_error_line(capsys)
    assert line == f"error: cannot write {target}: No space left on device"
    assert json.loads(target.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_an_untrusted_model_zip_is_refused_unless_trusted(tmp_path, monkeypatch, capsys) -> None:
    """A model zip holds pickled objects (code): refused, saying why, unless --trust-model."""
    monkeypatch.delenv("HGIN_TRUST_MODEL", raising=False)
    from agents.training.sb3.model import policy_to_zip

    model = policy_to_zip(SHIPPED, tmp_path / "downloaded.zip")  # a MaskablePPO zip
    argv = [str(model), "random", "--series", "2", "--no-progress"]
    assert evaluate_cli.main(argv) == 2
    _, line = one_error_line(capsys)
    assert line.startswith(f"error: cannot load model {model}: its data holds pickled Python")
    assert "unpickling runs whatever code they name" in line and "--trust-model" in line
    assert evaluate_cli.main([*argv, "--trust-model"]) == 0
    assert "downloaded" in "".join(capsys.readouterr().out.split())  # the table may wrap it

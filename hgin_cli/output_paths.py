"""Check, before any work, that the files a command will write can be written.

``check_writable(path)`` creates the missing parent folders, opens the file for append
(which neither truncates an existing file nor changes it), and then removes what it
created, so a check leaves nothing behind. A failure raises ``OutputPathError`` with one
line naming the path and the operating system's reason.
"""

from __future__ import annotations

import contextlib
from pathlib import Path


class OutputPathError(ValueError):
    """An output path that cannot be written; the message names it and why."""


def check_writable(path: str | Path) -> None:
    """Raise ``OutputPathError`` unless ``path`` can be created or appended to.

    Args:
        path: a file the command will write later.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputPathError(f"cannot write {path}: it is a directory")
    missing = []  # parent folders that do not exist yet, deepest first
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with path.open("a"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        raise OutputPathError(f"cannot write {path}: {exc.strerror or exc}") from exc
    finally:
        for created in missing:
            with contextlib.suppress(OSError):
                created.rmdir()

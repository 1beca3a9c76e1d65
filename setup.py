"""The wheel carries the shipped models and named configs as package data of ``agents``.

``models/`` and ``configs/`` stay at the repository root; building copies them to
``agents/_shipped/`` in the wheel (no top-level ``models`` or ``configs`` package), where
``agents.shipped.shipped_dir`` reads them. Everything else is in ``pyproject.toml``.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("models", "configs")


class BuildWithShipped(build_py):
    """``build_py`` that also copies ``models/`` and ``configs/`` into ``agents/_shipped/``."""

    def run(self) -> None:
        """Build the packages, then copy the shipped folders (not for editable installs)."""
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's folders
        for folder in SHIPPED:
            self.copy_tree(folder, str(Path(self.build_lib) / "agents" / "_shipped" / folder))


setup(cmdclass={"build_py": BuildWithShipped})

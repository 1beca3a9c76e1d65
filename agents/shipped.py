"""Where the shipped models and the named configs are read: an installed wheel or a checkout.

A wheel carries the repository's ``models/`` and ``configs/`` as package data under
``agents/_shipped/`` (``setup.py`` copies them there when it builds), read through
``importlib.resources``; a checkout (or an editable install) reads the folders at its root.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

#: the checkout's root: the folder holding ``agents/``, ``models/`` and ``configs/``
CHECKOUT = Path(__file__).resolve().parents[1]


def shipped_dir(folder: Literal["models", "configs"]) -> Path:
    """The folder of shipped ``models`` or named ``configs``: the wheel's copy, else the checkout's.

    >>> shipped_dir("configs").joinpath("default.yaml").is_file()
    True
    """
    installed = Path(str(files("agents") / "_shipped" / folder))
    return installed if installed.is_dir() else CHECKOUT / folder

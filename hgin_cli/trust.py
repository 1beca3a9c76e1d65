"""``--trust-model``: load model zips that hold pickled Python objects (code).

A Stable-Baselines3 model zip stores pickled objects, and unpickling one runs whatever
code it names, so the loader (``agents.policies.model_zip``) refuses such a zip unless
it is shipped, written by the run itself, or trusted. This option trusts every model
the command loads, by setting ``HGIN_TRUST_MODEL=1``, which its worker processes
inherit.
"""

from __future__ import annotations

import argparse
import os

from agents.policies.model_zip import TRUST_ENV


def add_trust_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--trust-model`` to a command line."""
    parser.add_argument(
        "--trust-model",
        action="store_true",
        help="load model .zip files that hold pickled Python objects (they can run code: "
        f"only files you trust; the same as {TRUST_ENV}=1)",
    )


def apply_trust(args: argparse.Namespace) -> None:
    """With ``--trust-model``: trust every model zip, in this process and its workers."""
    if getattr(args, "trust_model", False):
        os.environ[TRUST_ENV] = "1"

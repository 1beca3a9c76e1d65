"""``python evaluate.py``: evaluate policies over full Hollywood series.

The command line lives in ``hgin_cli.evaluate`` (also the console script ``hgin-evaluate``);
``python evaluate.py --help`` lists its options.
"""

import sys

try:
    from hgin_cli.evaluate import main
except ModuleNotFoundError as exc:  # a clone whose dependencies were never installed
    print(
        f"error: {exc.name} is not installed in this Python ({sys.executable}): run "
        "`make setup` (or `pip install -e .`) in the clone, then use .venv/bin/python",
        file=sys.stderr,
    )
    sys.exit(2)

if __name__ == "__main__":
    sys.exit(main())

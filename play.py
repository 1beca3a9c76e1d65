"""``python play.py``: play Hollywood Gin in the terminal or the browser.

The command line lives in ``hgin_cli.play`` (also the console script ``hgin-play``);
``python play.py --help`` lists its options.
"""

import sys

try:
    from hgin_cli.play import main
except ModuleNotFoundError as exc:  # a clone whose dependencies were never installed
    print(
        f"error: {exc.name} is not installed in this Python ({sys.executable}): run "
        "`make setup` (or `pip install -e .`) in the clone, then use .venv/bin/python",
        file=sys.stderr,
    )
    sys.exit(2)

if __name__ == "__main__":
    sys.exit(main())

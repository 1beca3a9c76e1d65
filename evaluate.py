"""``python evaluate.py``: evaluate policies over full Hollywood series.

The command line lives in ``hgin_cli.evaluate`` (also the console script ``hgin-evaluate``);
``python evaluate.py --help`` lists its options.
"""

import sys

from hgin_cli.evaluate import main

if __name__ == "__main__":
    sys.exit(main())

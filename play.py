"""``python play.py``: play Hollywood Gin in the terminal or the browser.

The command line lives in ``hgin_cli.play`` (also the console script ``hgin-play``);
``python play.py --help`` lists its options.
"""

import sys

from hgin_cli.play import main

if __name__ == "__main__":
    sys.exit(main())

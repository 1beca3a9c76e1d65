"""``python train.py``: train a MaskablePPO agent from a YAML config.

The command line lives in ``hgin_cli.train`` (also the console script ``hgin-train``);
``python train.py --help`` lists its options.
"""

import sys

from hgin_cli.train import main

if __name__ == "__main__":
    sys.exit(main())

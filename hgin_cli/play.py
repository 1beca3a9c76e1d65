"""Play Hollywood Gin in the terminal or in the browser against a bot or a trained model.

Usage::

    python play.py [OPPONENT] [--seed S] [--seat 0|1] [--names YOU OPP] [--hands N]
                   [--rules knock_limit=7,gin_bonus=20] [--transcript hands.jsonl]
    python play.py --list-policies
    python play.py --web [--port 8000] [--models DIR ...] [OPPONENT] [--seed S] ...
    hgin-web [--port 8000] [--models DIR ...] [OPPONENT] [--seed S] ...

``--web`` (or the console script ``hgin-web``, the same options less ``--hands``) serves
the browser table (``hgin_ui.web``) on 127.0.0.1 instead: play a series, watch two
policies, replay a transcript; the options set the page's defaults, and ``--models``
adds the models found under those folders to the ones the page may name.

OPPONENT is a bot name (``random``, ``simple``, ``expert``), a MaskablePPO ``.zip``
path or a shipped model name; the default is the strongest shipped network
(``STRONGEST``, ``ppo-taught`` per docs/results.md), else the first shipped model, else
``expert``.
The game loop lives in ``hgin_ui.terminal``; type ``help`` at the prompt for the moves.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agents.policies.model import PolicyLoadError, load_policy, shipped_models
from hgin_cli.common import (
    add_list_policies,
    add_rules,
    add_version,
    epilog,
    help_formatter,
    policy_error,
    rules_items,
)
from hgin_cli.output_paths import OutputPathError, check_writable
from hgin_cli.trust import add_trust_option, apply_trust
from hgin_env.engine.keys import MAX_SEED
from hgin_env.envs.spec import parse_rules
from hgin_ui.terminal import GameSession, play

#: the strongest shipped network (docs/results.md: ``ppo-taught`` wins over every other
#: shipped network and the bots under both rule sets measured there)
STRONGEST = "ppo-taught"


def default_opponent() -> str:
    """The strongest shipped network when shipped, else the first shipped model, else ``expert``."""
    models = shipped_models()
    if STRONGEST in models:
        return STRONGEST
    return next(iter(models)) if models else "expert"


def build_parser(web_only: bool = False) -> argparse.ArgumentParser:
    """The command line of ``play.py`` (``web_only``: of ``hgin-web``, no terminal options)."""
    if web_only:
        parser = argparse.ArgumentParser(
            prog="hgin-web",
            description="Play, watch and replay Hollywood Gin in the browser.",
            formatter_class=help_formatter(),
            epilog=epilog(
                "hgin-web                      # the strongest shipped network, port 8000",
                "hgin-web expert --port 0 --seed 7",
                "hgin-web --models runs/       # also offer the models trained under runs/",
            ),
        )
    else:
        parser = argparse.ArgumentParser(
            description="Play a Hollywood Gin series in the terminal.",
            formatter_class=help_formatter(),
            epilog=epilog(
                "%(prog)s                       # against the strongest shipped network",
                "%(prog)s expert --seed 7 --hands 3",
                "%(prog)s simple --rules knock_limit=7,gin_bonus=20",
                "%(prog)s --web                 # the browser table on 127.0.0.1:8000",
                "%(prog)s --list-policies",
            ),
        )
    add_version(parser)
    add_list_policies(parser)
    parser.add_argument(
        "opponent", nargs="?", default=None, metavar="OPPONENT",
        help="bot name, model path or shipped model (default: the strongest shipped network, "
        f"{STRONGEST}, else expert)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the deals (default: random)"
    )
    parser.add_argument("--seat", type=int, choices=(0, 1), default=0, help="your seat")
    parser.add_argument(
        "--names", nargs=2, default=("You", "Opponent"), metavar=("YOU", "OPPONENT"),
        help="the two players' names",
    )  # fmt: skip
    if not web_only:
        parser.add_argument("--hands", type=int, metavar="N", help="stop after N hands")
    add_rules(parser)
    parser.add_argument(
        "--transcript", type=Path, metavar="PATH", help="append each hand to a JSON Lines file"
    )
    web = "" if web_only else "with --web: "
    if not web_only:
        parser.add_argument("--web", action="store_true", help="serve the browser table instead")
    parser.add_argument(
        "--port", type=int, default=8000, help=f"{web}the port on 127.0.0.1 (0: a free one)"
    )
    parser.add_argument(
        "--models", nargs="+", type=Path, default=[], metavar="DIR",
        help=f"{web}offer the models found under DIR (model folders such as a run's "
        "final_model/, *.zip files, folders holding model.zip)",
    )  # fmt: skip
    add_trust_option(parser)
    return parser


def parse_args(argv: list[str] | None = None, web_only: bool = False) -> argparse.Namespace:
    """Parse and check the command line (``web_only``: ``hgin-web``'s)."""
    parser = build_parser(web_only)
    args = parser.parse_args(argv)
    apply_trust(args)
    if web_only:
        args.web, args.hands = True, None
    if args.web and args.hands is not None:
        parser.error("--hands applies to the terminal game, not to --web")
    if not args.web and args.models:
        parser.error("--models applies to --web")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        parser.error(f"--seed must be in 0..2**64-1, got {args.seed}")
    if args.hands is not None and args.hands < 1:
        parser.error(f"--hands must be >= 1, got {args.hands}")
    for folder in args.models:
        if not folder.is_dir():
            parser.error(f"--models {folder}: not a directory")
    try:
        args.rules = parse_rules(rules_items(args.rules))
    except ValueError as exc:
        parser.error(str(exc))
    return args


def run(args: argparse.Namespace) -> int:
    """Check the transcript path and the opponent, then play or serve; the exit status."""
    opponent = args.opponent or default_opponent()
    if args.transcript is not None:  # before the game, not when the first hand ends
        try:
            check_writable(args.transcript)
        except OutputPathError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.web:
        return run_web(args, opponent)
    try:
        policy = load_policy(opponent, args.seed)
    except PolicyLoadError as exc:
        print(policy_error(exc), file=sys.stderr)
        return 2
    session = GameSession(policy, seed=args.seed, seat=args.seat, rules=args.rules)
    return play(session, tuple(args.names), args.hands, transcript=args.transcript)


def run_web(args: argparse.Namespace, opponent: str) -> int:
    """Serve the browser table: the opponent must load; the page may name it and the rest."""
    try:
        from hgin_ui.web.catalog import PolicyCatalog
        from hgin_ui.web.parsing import Defaults
        from hgin_ui.web.server import create_app, serve
    except ModuleNotFoundError as exc:
        print(f"error: --web needs {exc.name}: pip install -e '.[web]'", file=sys.stderr)
        return 2
    try:
        catalog = PolicyCatalog(args.models, extra={opponent: opponent})
        if opponent in catalog.bots:  # a model is checked by loading it; a bot by name
            load_policy(opponent, args.seed)
        else:
            catalog.load(opponent)
    except (ValueError, PolicyLoadError) as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, PolicyLoadError) else exc
        print(policy_error(cause), file=sys.stderr)
        return 2
    names = (args.names[0], args.names[1])
    defaults = Defaults(opponent, args.seat, names, args.rules, args.seed)
    return serve(create_app(defaults, args.transcript, catalog), args.port)


def main(argv: list[str] | None = None) -> int:
    """``play.py``: the terminal game, or the browser table with ``--web``."""
    return run(parse_args(argv))


def web_main(argv: list[str] | None = None) -> int:
    """``hgin-web``: ``play.py --web`` under its own name."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # one thread for a model's small batches
    return run(parse_args(argv, web_only=True))


if __name__ == "__main__":
    sys.exit(main())

"""Play Hollywood Gin in the terminal against a bot or a trained model.

Usage::

    python play.py [OPPONENT] [--seed S] [--seat 0|1] [--names YOU OPP] [--hands N]
                   [--rules knock_limit=7 gin_bonus=20] [--transcript hands.jsonl]
    python play.py --web [--port 8000] [OPPONENT] [--seed S] ...

``--web`` serves the browser table (``agents.web``) on 127.0.0.1 instead: play a series,
watch two policies, replay a transcript; the options set the page's defaults.

OPPONENT is a bot name (``random``, ``simple``, ``expert``), a MaskablePPO ``.zip``
path or a shipped model name; the default is the first shipped model, else ``expert``.
The game loop lives in ``agents.play``; type ``help`` at the prompt for the moves.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.play import GameSession, parse_rules, play
from agents.policies.model import PolicyLoadError, load_policy, shipped_models
from hgin_cli.output_paths import OutputPathError, check_writable


def default_opponent() -> str:
    """The first shipped model's name, else ``expert``."""
    models = shipped_models()
    return next(iter(models)) if models else "expert"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description="Play a Hollywood Gin series in the terminal.")
    parser.add_argument(
        "opponent", nargs="?", default=None, metavar="OPPONENT",
        help="bot name, model .zip path or shipped model (default: shipped model, else expert)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the deals (default: random)"
    )
    parser.add_argument("--seat", type=int, choices=(0, 1), default=0, help="your seat")
    parser.add_argument(
        "--names", nargs=2, default=("You", "Opponent"), metavar=("YOU", "OPPONENT"),
        help="the two players' names",
    )  # fmt: skip
    parser.add_argument("--hands", type=int, metavar="N", help="stop after N hands")
    parser.add_argument("--rules", nargs="+", default=[], metavar="KEY=VALUE", help="rules options")
    parser.add_argument(
        "--transcript", type=Path, metavar="PATH", help="append each hand to a JSON Lines file"
    )
    parser.add_argument("--web", action="store_true", help="serve the browser table instead")
    parser.add_argument(
        "--port", type=int, default=8000, help="with --web: the port on 127.0.0.1 (0: a free one)"
    )
    args = parser.parse_args(argv)
    if args.web and args.hands is not None:
        parser.error("--hands applies to the terminal game, not to --web")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.hands is not None and args.hands < 1:
        parser.error(f"--hands must be >= 1, got {args.hands}")
    try:
        args.rules = parse_rules(args.rules)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the game; return the exit status."""
    args = parse_args(argv)
    opponent = args.opponent or default_opponent()
    if args.transcript is not None:  # before the game, not when the first hand ends
        try:
            check_writable(args.transcript)
        except OutputPathError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.web:
        try:
            from agents.web.server import run_table
        except ModuleNotFoundError as exc:
            print(f"error: --web needs {exc.name}: pip install -e '.[web]'", file=sys.stderr)
            return 2
        web = (args.port, args.seed, args.seat, tuple(args.names), args.rules, args.transcript)
        return run_table(opponent, *web)
    try:
        policy = load_policy(opponent, args.seed)
    except PolicyLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    session = GameSession(policy, seed=args.seed, seat=args.seat, rules=args.rules)
    return play(session, tuple(args.names), args.hands, transcript=args.transcript)


if __name__ == "__main__":
    sys.exit(main())

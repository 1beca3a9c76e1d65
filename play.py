"""Play Hollywood Gin in the terminal against a bot or a trained model.

Usage::

    python play.py [OPPONENT] [--seed S] [--seat 0|1] [--names YOU OPP] [--hands N]
                   [--rules knock_limit=7 gin_bonus=20] [--transcript hands.jsonl]

OPPONENT is a bot name (``random``, ``simple``, ``expert``), a MaskablePPO ``.zip``
path or a shipped model name; the default is the first shipped model, else ``expert``.
The game loop lives in ``agents.play``; type ``help`` at the prompt for the moves.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# One intra-op thread for torch and numpy: a model plays small batches between engine
# steps, and with several OpenMP threads its forward passes ran ~30x slower whenever
# another process held the other core (threads spin-waiting).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from agents.model_policy import PolicyLoadError, load_policy, shipped_models  # noqa: E402
from agents.output_paths import OutputPathError, check_writable  # noqa: E402
from agents.play import GameSession, play  # noqa: E402
from hgin_env.engine.config import RulesConfig  # noqa: E402


def default_opponent() -> str:
    """The first shipped model's name, else ``expert``."""
    models = shipped_models()
    return next(iter(models)) if models else "expert"


def parse_rules(items: list[str]) -> RulesConfig:
    """Build the rules from ``key=value`` items (ints, ``true``/``false``, ``none``)."""
    data: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--rules expects key=value, got {item!r}")
        low = value.strip().lower()
        if low in ("true", "false"):
            data[key.strip()] = low == "true"
        elif low in ("none", "null", "off"):
            data[key.strip()] = None
        else:
            try:
                data[key.strip()] = int(value)
            except ValueError as exc:
                raise ValueError(f"--rules {key}: expected an integer, got {value!r}") from exc
    return RulesConfig.from_dict(data)


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
    args = parser.parse_args(argv)
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
    try:
        if args.transcript is not None:  # before the game, not when the first hand ends
            check_writable(args.transcript)
        policy = load_policy(opponent, args.seed)
    except (OutputPathError, PolicyLoadError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    session = GameSession(policy, seed=args.seed, seat=args.seat, rules=args.rules)
    return play(session, tuple(args.names), args.hands, transcript=args.transcript)


if __name__ == "__main__":
    sys.exit(main())

"""Test helpers: deck orders from card strings, and drivers that play actions written as text.

Deck order contract of ``GinEngine.reset(decks=...)``: ``deck[0:10]`` is the non-dealer's
hand, ``deck[10:20]`` the dealer's, ``deck[20]`` the upcard, ``deck[21]`` the top of the
stock, then ``deck[22]`` and so on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import yaml

from agents.training.config import build_config
from hgin_env.engine.actions import DRAW, KNOCK, action_text, is_knock, parse_action
from hgin_env.engine.cards import N_CARDS, card_text, parse_card_list
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import HAND_SIZE, STOCK_START, GinEngine
from hgin_env.engine.series import SeriesEngine, SeriesStep

#: the seats used by ``deal`` unless told otherwise: seat 0 deals, seat 1 plays first
DEALER, NON_DEALER = 0, 1

#: non-dealer's hand: runs AC-3C, 4D-6D, 7H-9H and KS; deadwood 10
RUNS_AND_KS = "AC 2C 3C 4D 5D 6D 7H 8H 9H KS"
#: a dealer hand with one run (5S-7S) and 47 deadwood that touches nothing above
LOOSE = "JH 4C 5S 6S 7S 9C 9D 2H 3H KD"
#: the dealer's hand for swapping: JD is the card it passes on
SWAP_DEALER = "JD 4C 5S 6S 7S 9C 9D 2H 3H KD"


def swap_actions(turns: int) -> list[str]:
    """Actions for ``turns`` turns that pass QH (the upcard), KS and JD back and forth.

    Each turn takes the top discard and discards the card taken the turn before, so no
    turn rediscards its own take and the stock is never touched.
    """
    return (["take", "KS", "take", "JD", "take", "QH"] * turns)[: 2 * turns]


def draw_discard(stock: list[str], count: int, start: int = 0) -> list[str]:
    """Actions for ``count`` turns that each draw the stock's top card and discard it."""
    actions = []
    for card in stock[start : start + count]:
        actions += ["draw", f"discard {card}"]
    return actions


def make_deck(non_dealer: str, dealer: str, upcard: str, stock: str = "") -> np.ndarray:
    """Build a deck order (``int8[52]``) from card strings.

    Args:
        non_dealer: the non-dealer's 10 cards (``deck[0:10]``).
        dealer: the dealer's 10 cards (``deck[10:20]``).
        upcard: the upcard (``deck[20]``).
        stock: the top of the stock, first card drawn first (``deck[21]``, ``deck[22]``...).
            The cards not named anywhere follow in ascending card id, so the deck is
            deterministic.

    Raises:
        ValueError: if a hand does not hold 10 cards, the upcard is not one card, or a
            card is named twice.
    """
    parts = {
        "non_dealer": parse_card_list(non_dealer),
        "dealer": parse_card_list(dealer),
        "upcard": parse_card_list(upcard),
        "stock": parse_card_list(stock),
    }
    for who in ("non_dealer", "dealer"):
        if len(parts[who]) != HAND_SIZE:
            raise ValueError(f"{who} must hold {HAND_SIZE} cards, got {len(parts[who])}")
    if len(parts["upcard"]) != 1:
        raise ValueError(f"upcard must be one card, got {upcard!r}")
    named = [c for cards in parts.values() for c in cards]
    seen: set[int] = set()
    for c in named:
        if c in seen:
            raise ValueError(f"card {card_text(c)} is named twice")
        seen.add(c)
    rest = [c for c in range(N_CARDS) if c not in seen]
    return np.array(named + rest, dtype=np.int8)


def stock_cards(deck: np.ndarray) -> list[str]:
    """The stock of a deck order as card texts, top first."""
    return [card_text(c) for c in deck[STOCK_START:]]


def deal(
    non_dealer: str,
    dealer: str,
    upcard: str,
    stock: str = "",
    rules: RulesConfig | None = None,
    dealer_seat: int = DEALER,
) -> GinEngine:
    """A one-game engine dealt from card strings (``make_deck``); seat ``dealer_seat`` deals."""
    eng = GinEngine(1, rules, seed=0)
    eng.reset(decks=make_deck(non_dealer, dealer, upcard, stock)[None], dealers=dealer_seat)
    return eng


def step_one(engine: GinEngine, action: str | int, game: int = 0) -> bool:
    """Apply one action in ``game``: text (``"take"``, ``"discard 7H"``, ``"knock KS"``) or an id.

    The other live games of the batch take their lowest legal action id.

    Returns:
        Whether the hand of ``game`` ended with this step.
    """
    mask = engine.legal_action_mask()
    actions = np.where(mask.any(axis=1), mask.argmax(axis=1), 0).astype(np.int64)
    actions[game] = parse_action(action) if isinstance(action, str) else int(action)
    return bool(engine.step(actions)[game])


def play(engine: GinEngine, *actions: str | int, game: int = 0) -> list[bool]:
    """Apply actions one after another in ``game`` (``step_one``); return each step's ended flag."""
    return [step_one(engine, a, game) for a in actions]


def legal(engine: GinEngine, game: int = 0) -> set[str]:
    """The legal actions of ``game`` as texts (``{"take", "pass"}``, ``{"discard 7H", ...}``)."""
    return {action_text(a) for a in np.flatnonzero(engine.legal_action_mask()[game])}


def knocks(engine: GinEngine, game: int = 0) -> set[str]:
    """The cards ``game``'s player may knock with, as card texts."""
    return {t.split()[1] for t in legal(engine, game) if t.startswith("knock")}


def hand(engine: GinEngine, seat: int, game: int = 0) -> set[str]:
    """The cards a seat holds, as card texts."""
    return {card_text(c) for c in np.flatnonzero(engine.state.hands[game, seat])}


def top(engine: GinEngine, game: int = 0) -> str | None:
    """The top of the discard pile as card text, None when the pile is empty."""
    card = int(engine.top_discard[game])
    return card_text(card) if card >= 0 else None


def cards(text: str) -> set[str]:
    """A card string as a set of normalised card texts (``"ac 7d" -> {"AC", "7D"}``)."""
    return {card_text(c) for c in parse_card_list(text)}


def play_series(series: SeriesEngine, *actions: str | int, game: int = 0) -> list[SeriesStep]:
    """Apply actions one after another in ``game`` of a ``SeriesEngine`` (others: lowest legal)."""
    steps = []
    for action in actions:
        mask = series.engine.legal_action_mask()
        ids = np.where(mask.any(axis=1), mask.argmax(axis=1), 0).astype(np.int64)
        ids[game] = parse_action(action) if isinstance(action, str) else int(action)
        steps.append(series.step(ids))
    return steps


def random_legal(mask: np.ndarray, rng: np.random.Generator, knock_prob: float = 0.0) -> np.ndarray:
    """One random legal action per row of a ``bool[N, 107]`` mask (0 for a row with none).

    With probability ``knock_prob`` a row that may knock picks among its knock actions only,
    so that random play ends hands by knocking as well as by exhausting the stock.
    """
    mask = np.asarray(mask, dtype=bool)
    knock_part = mask[:, KNOCK:DRAW]
    prefer = knock_part.any(axis=1) & (rng.random(mask.shape[0]) < knock_prob)
    pool = mask.copy()
    pool[prefer] = False
    pool[prefer, KNOCK:DRAW] = knock_part[prefer]
    counts = pool.sum(axis=1)
    pick = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    action = (np.cumsum(pool, axis=1) > pick[:, None]).argmax(axis=1)
    return np.where(counts > 0, action, 0).astype(np.int64)


def mixed_actions(
    mask: np.ndarray,
    dead: np.ndarray,
    rng: np.random.Generator,
    greedy_prob: float,
    knock_prob: float = 1.0,
) -> np.ndarray:
    """Random legal actions, mixed with greedy play in the discard phase.

    With probability ``greedy_prob`` a row in its discard phase plays greedily: gin when it
    can; else, with probability ``knock_prob``, the knock leaving the least deadwood when it
    may knock; else the discard leaving the least deadwood. Greedy play makes hands end by
    knocks, gin and undercuts, not only by the stock.

    Args:
        mask: bool[N, 107] legal actions.
        dead: int[N, 52] deadwood left by each discard (``GinEngine.discard_deadwood()``).
        rng: the random source. It draws a fixed count of numbers per row, so one call for
            N rows differs from N calls for one row: per-game streams call it row by row.
        greedy_prob: chance that a row in its discard phase plays greedily.
        knock_prob: chance that a greedy row knocks when it may (gin is always taken).
    """
    n = mask.shape[0]
    action = random_legal(mask, rng)
    dead = np.where(mask[:, :KNOCK], np.asarray(dead, dtype=np.float64), np.inf)
    knock_dead = np.where(mask[:, KNOCK:DRAW], dead, np.inf)
    best_discard, best_knock = dead.argmin(axis=1), KNOCK + knock_dead.argmin(axis=1)
    can_knock = np.isfinite(knock_dead.min(axis=1))
    gin = can_knock & (knock_dead.min(axis=1) == 0)
    knock = gin | (can_knock & (rng.random(n) < knock_prob))
    greedy = mask[:, :KNOCK].any(axis=1) & (rng.random(n) < greedy_prob)
    return np.where(greedy, np.where(knock, best_knock, best_discard), action)


def mixed_policy(
    engine: GinEngine, rng: np.random.Generator, greedy_prob: float, knock_prob: float = 1.0
) -> np.ndarray:
    """``mixed_actions`` for every game of an engine, from one random stream."""
    mask, dead = engine.legal_action_mask(), engine.discard_deadwood()
    return mixed_actions(mask, dead, rng, greedy_prob, knock_prob)


def assert_plays_legally(policy, env, steps: int) -> None:
    """Drive a batched VecEnv with ``policy`` for ``steps`` steps; every action must be legal."""
    obs = env.reset()
    rows = np.arange(env.num_envs)
    for _ in range(steps):
        masks = env.action_masks()
        actions = policy.act(obs, masks)
        assert masks[rows, actions].all()
        obs, _, _, _ = env.step(actions)


def knock_decisions(name: str, undercut: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the decisions with a legal knock met by shipped model ``name``.

    The model plays the agent's seat of 64 series against ``patient`` (seed 77) for 300
    steps under undercut bonus ``undercut``.
    """
    from agents.policies.model import load_policy
    from hgin_env.engine.actions import knock_legal
    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    env = HollywoodGinVecEnv(
        64, opponent="patient", mode="series", seed=77, rules=RulesConfig(undercut_bonus=undercut)
    )
    policy = load_policy(name)
    obs = np.asarray(env.reset())
    rows, masks_kept = [], []
    for _ in range(300):
        masks = np.array(env.action_masks(), dtype=bool)
        knock = knock_legal(masks)
        rows.append(obs[knock])
        masks_kept.append(masks[knock])
        obs = np.asarray(env.step(policy.act(obs, masks))[0])
    return np.concatenate(rows), np.concatenate(masks_kept)


def gin_and_knocks(
    names: list[str], obs: np.ndarray, masks: np.ndarray
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """bool[rows]: a gin is legal; and, per policy name, bool[rows]: it knocks there."""
    from agents.policies.model import load_policy
    from hgin_env.envs.observation import decode_observations

    deadwood = decode_observations(obs).discard_deadwood
    least = np.where(masks[:, KNOCK : KNOCK + N_CARDS], deadwood, 999).min(axis=1)
    knocks = {}
    for name in names:
        actions = load_policy(name).act(obs, masks)
        knocks[name] = is_knock(actions)
    return least == 0, knocks


def assert_model_plays_legally(name: str, undercut: int) -> None:
    """A few hundred batched decisions of model ``name`` against patient (series) are legal."""
    from agents.policies.model import load_policy
    from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

    env = HollywoodGinVecEnv(
        16, opponent="patient", mode="series", seed=31, rules=RulesConfig(undercut_bonus=undercut)
    )
    assert_plays_legally(load_policy(name), env, 150)


# ------------------------------------------------------------------ evaluation JSON
PAIR_KEYS = {
    "name_a", "name_b", "seed", "duplicate", "rules", "n_series", "deal_sequences",
    "series_won", "series_lost", "series_unfinished", "series_win_rate", "series_win_ci",
    "games_won", "games_lost", "hands", "hands_won", "hands_lost", "hands_drawn",
    "hands_truncated", "hand_win_rate", "hand_win_ci", "points_per_hand",
    "points_per_hand_ci", "mean_hands_per_series", "a", "b", "seconds", "series_per_second",
    "steps", "version_a", "version_b",
}  # fmt: skip


PLAYER_KEYS = {
    "knocks", "gins", "undercuts_given", "undercuts_suffered", "knock_rate", "gin_rate",
    "undercut_given_rate", "undercut_suffered_rate", "mean_deadwood_at_knock",
}  # fmt: skip


LEAGUE_KEYS = {
    "names", "n_series", "seed", "duplicate", "rules", "pairs", "series_win_rate",
    "hand_win_rate",
    "points_per_hand", "ratings", "rating_gaps", "rating_method", "seconds",
}  # fmt: skip


def check_pair_schema(data: dict) -> None:
    """Assert the JSON form of one pair's result."""
    assert set(data) == PAIR_KEYS
    assert set(data["a"]) == PLAYER_KEYS and set(data["b"]) == PLAYER_KEYS
    for key in ("series_win_ci", "hand_win_ci", "points_per_hand_ci"):
        assert isinstance(data[key], list) and len(data[key]) == 2
        assert data[key][0] <= data[key][1]
    assert data["series_won"] + data["series_lost"] + data["series_unfinished"] == data["n_series"]
    assert data["hands_won"] + data["hands_lost"] + data["hands_drawn"] == data["hands"]


# ------------------------------------------------------------------ tiny training runs
#: a run of a few seconds: 8 games, 256-step rollouts, evaluation and checkpoints every 512
TINY: dict[str, Any] = {
    "experiment": "tiny",
    "total_timesteps": 1024,
    "progress_bar": False,
    "ppo": {"n_envs": 8, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [32, 32]},
    "eval": {
        "every_steps": 512,
        "n_series": 1,
        "n_hands": 16,
        "max_hands_per_series": 2,
        "opponents": ["random", "simple"],
    },
    "checkpoint": {"every_steps": 512, "keep": 2},
    "opponents": {
        "mix": {"random": 1, "simple": 1},
        "selfplay": {"enabled": True, "snapshot_every": 256, "pool_size": 2, "weight": 0.5},
    },
}


def tiny_yaml(tmp_path: Path, **changes) -> Path:
    """A config file of the ``TINY`` run (with ``changes``) whose runs go under ``tmp_path``."""
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({**TINY, "runs_dir": str(tmp_path / "runs"), **changes}))
    return path


def tiny_config(tmp_path: Path, *overrides: str):
    """The tiny config with its runs folder under ``tmp_path``."""
    return build_config(TINY, [f"runs_dir={tmp_path}", *overrides])


def scalars(run_dir: Path) -> dict[str, list[int]]:
    """Tag -> steps of every scalar in the run's TensorBoard event files."""
    found: dict[str, list[int]] = {}
    for path in sorted((run_dir / "tb").glob("events.out.tfevents.*")):
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        events = EventAccumulator(str(path))
        events.Reload()
        for tag in events.Tags()["scalars"]:
            found.setdefault(tag, []).extend(e.step for e in events.Scalars(tag))
    return found


# ------------------------------------------------------------------ models with chosen spaces
class SpaceEnv(gym.Env):
    """A dummy env with chosen spaces, only to build and save a MaskablePPO model."""

    def __init__(self, obs_dim: int, n_actions: int) -> None:
        self.observation_space = gym.spaces.Box(0.0, 1.0, (obs_dim,), np.float32)
        self.action_space = gym.spaces.Discrete(n_actions)
        self.n_actions = n_actions

    def reset(self, *, seed=None, options=None):
        """Return a zero observation."""
        return np.zeros(self.observation_space.shape, np.float32), {}

    def step(self, action):
        """End at once."""
        return np.zeros(self.observation_space.shape, np.float32), 0.0, True, False, {}

    def action_masks(self) -> np.ndarray:
        """Every action is allowed."""
        return np.ones(self.n_actions, dtype=bool)


def save_model(path: Path, obs_dim: int, n_actions: int) -> Path:
    """Save an untrained MaskablePPO with the given spaces (its folder trusted: our own)."""
    from sb3_contrib import MaskablePPO

    from agents.policies.model_zip import trust_folder

    model = MaskablePPO("MlpPolicy", SpaceEnv(obs_dim, n_actions), n_steps=8, batch_size=8)
    model.save(path)
    trust_folder(Path(path).parent)
    return path


def one_error_line(capsys) -> tuple[str, str]:
    """(stdout, the single stderr line); fails unless stderr holds exactly one line."""
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    return out.out, lines[0]


#: a folder no one can create files in (mkdir there fails with ENOENT, even for root)
NOWHERE = Path("/proc/nope")


def redeal_hidden(series: SeriesEngine, rng: np.random.Generator) -> int:
    """Redeal each live game's hidden cards (the opponent's unknown ones and the stock).

    The opponent of the seat to act gets a random new set of its hidden cards from the
    pool of those and the stock, the stock the rest in a random order: what the seat to
    act sees is unchanged. Returns the number of games whose opponent hand changed.
    """
    eng = series.engine
    s = eng.state
    changed = 0
    for g in np.flatnonzero(~eng.over):
        opp = 1 - int(s.current[g])
        hidden = np.flatnonzero(s.hands[g, opp] & ~s.known[g, opp])
        stock = s.deck[g, s.stock_pos[g] :].astype(np.int64)
        pool = rng.permutation(np.concatenate([hidden, stock]))
        s.hands[g, opp, hidden] = False
        s.hands[g, opp, pool[: hidden.size]] = True
        s.deck[g, s.stock_pos[g] :] = pool[hidden.size :]
        changed += int(not np.array_equal(np.sort(pool[: hidden.size]), hidden))
    eng.invalidate()
    eng.check_invariants()
    return changed


def search_decision(series: SeriesEngine) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seats to act of ``series``: observations, legal masks and per-game decision keys."""
    from hgin_env.engine.keys import hash_stream
    from hgin_env.envs.observation import encode_observations

    eng = series.engine
    obs = encode_observations(eng, eng.current_player, series.sheets)
    keys = hash_stream(eng.seeds, np.zeros(eng.n, np.int64), 5)
    return obs, eng.legal_action_mask(), keys


def simple_positions(n: int, plies: int, seed: int) -> SeriesEngine:
    """``n`` series after ``plies`` decisions of ``simple`` on both sides (mid-hand positions)."""
    from agents.bots import SimpleBot
    from hgin_env.envs.observation import encode_observations

    series = SeriesEngine(n, seed=seed)
    series.reset()
    bot = SimpleBot(seed)
    for _ in range(plies):
        eng = series.engine
        obs = encode_observations(eng, eng.current_player, series.sheets)
        series.step(bot.act(obs, eng.legal_action_mask()))
    return series

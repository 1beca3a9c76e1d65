"""The evaluator's JSON schema, and the command lines' one-line errors."""

from __future__ import annotations

from pathlib import Path

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


def one_error_line(capsys) -> tuple[str, str]:
    """(stdout, the single stderr line); fails unless stderr holds exactly one line."""
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    return out.out, lines[0]


#: a folder no one can create files in (mkdir there fails with ENOENT, even for root)
NOWHERE = Path("/proc/nope")

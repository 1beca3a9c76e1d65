"""Hollywood scoring: three games on one score sheet, for a batch of series.

docs/rules.md §4 "Hollywood scoring". Each winning hand's points are entered in several games at
once: a player's first win goes to game 1, the second to games 1 and 2, the third
and later ones to all three. The general rule, which also covers games that
have already ended (**Decision** "which games a win enters"):

    a win is entered in every *open* game ``j`` such that ``j`` is the first open
    game, or the winner already had a score entered in game ``j - 1`` before
    this hand.

A game ends as soon as one player's total in it reaches ``game_target``; that
player wins it and nothing more is entered in it. The series ends when all three
games have ended, or (``stop_when_decided``) as soon as one player has won two.

"Has a score entered" is tracked by a flag per player and game (``entered``),
not by ``points > 0``, so a hand worth 0 points still opens the next game.

Classic bonuses (all off by default) are applied only by
:meth:`ScoreSheets.final_totals`, never to the raw ``scores``:

* ``box_bonus`` per hand a player has entered in a game (its *boxes*);
* ``game_bonus`` to the winner of each ended game;
* ``shutout_multiplier`` multiplies the game winner's whole total in that game
  (points, box bonuses and game bonus) when the loser has no entry in it.
"""

from __future__ import annotations

import numpy as np

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.jit import kernel

N_GAMES = 3
N_SEATS = 2
#: mark printed after a game winner's total by :meth:`ScoreSheet.format`
WON_MARK = "*"
#: text printed by :meth:`ScoreSheet.format` where a player has no entry in a game
NO_ENTRY = "-"


@kernel
def _entry_games_row(
    game_winners: np.ndarray,
    entered: np.ndarray,
    finished: np.ndarray,
    r: int,
    seat: int,
    enters: np.ndarray,
) -> None:
    """Fill ``enters`` (bool[3]) with the games a win by ``seat`` enters on sheet r.

    The entry rule: the first open game, and each open game after one in which the winner
    already had an entry before this hand; nothing once the series is over.
    """
    seen_open = 0
    for g in range(N_GAMES):
        enters[g] = False
        if finished[r] or game_winners[r, g] >= 0:
            continue
        seen_open += 1
        if seen_open == 1 or (g > 0 and entered[r, seat, g - 1]):
            enters[g] = True


@kernel
def _next_entry_rows(
    game_winners: np.ndarray,
    entered: np.ndarray,
    finished: np.ndarray,
    seats: np.ndarray,
    out: np.ndarray,
) -> None:
    """``ScoreSheets.next_entry_games`` of every sheet (a negative seat enters nothing)."""
    for r in range(seats.shape[0]):
        if seats[r] >= 0:
            _entry_games_row(game_winners, entered, finished, r, seats[r], out[r])


@kernel
def _record_rows(
    scores: np.ndarray,
    entered: np.ndarray,
    boxes: np.ndarray,
    game_winners: np.ndarray,
    finished: np.ndarray,
    series_winner: np.ndarray,
    winners: np.ndarray,
    points: np.ndarray,
    considered: np.ndarray,
    game_target: int,
    stop_when_decided: bool,
    newly_finished: np.ndarray,
) -> bool:
    """Enter one hand's result on each considered sheet (``ScoreSheets.record``).

    Returns:
        True, changing nothing, when an active row has a winner above 1 or negative
        points; else False.
    """
    n = winners.shape[0]
    enters = np.zeros(N_GAMES, np.bool_)
    for r in range(n):
        active = considered[r] and winners[r] >= 0 and not finished[r]
        if active and (winners[r] >= N_SEATS or points[r] < 0):
            return True
    for r in range(n):
        seat = winners[r]
        if not considered[r] or seat < 0 or finished[r]:
            continue
        _entry_games_row(game_winners, entered, finished, r, seat, enters)
        for g in range(N_GAMES):
            if enters[g]:
                scores[r, seat, g] += points[r]
                boxes[r, seat, g] += 1
                entered[r, seat, g] = True
                if scores[r, seat, g] >= game_target:
                    game_winners[r, g] = seat
        won0, won1, ended = 0, 0, 0
        for g in range(N_GAMES):
            if game_winners[r, g] == 0:
                won0 += 1
            elif game_winners[r, g] == 1:
                won1 += 1
            if game_winners[r, g] >= 0:
                ended += 1
        decided = max(won0, won1) >= 2
        if ended == N_GAMES or (stop_when_decided and decided):
            newly_finished[r] = True
            finished[r] = True
            series_winner[r] = (0 if won0 >= won1 else 1) if decided else -1
    return False


class ScoreSheets:
    """A batch of ``N`` independent Hollywood score sheets (one series each).

    All state lives in numpy arrays with a leading batch axis; seats are 0 and 1,
    games are indexed 0, 1, 2 (game 1, 2, 3 of the rules).

    Attributes:
        n: number of sheets in the batch.
        rules: the rules options (``game_target``, ``stop_when_decided`` and the
            classic bonuses are used here).
        scores: ``int64[N, 2, 3]`` raw points entered per seat and game.
        entered: ``bool[N, 2, 3]`` whether the seat has had a winning hand entered
            in the game (tells an entry of 0 from no entry).
        boxes: ``int64[N, 2, 3]`` number of winning hands entered per seat and game.
        game_winners: ``int64[N, 3]`` seat that won each game, -1 while it is open.
        finished: ``bool[N]`` whether the series is over (nothing more is recorded).
        series_winner: ``int64[N]`` seat that won two or more games, -1 until the
            series is finished (or if it finished without such a seat).
    """

    def __init__(self, n: int, rules: RulesConfig | None = None) -> None:
        """Create ``n`` empty score sheets.

        Args:
            n: batch size (>= 1).
            rules: rules options; ``RulesConfig()`` defaults when ``None``.
        """
        if n < 1:
            raise ValueError(f"ScoreSheets needs n >= 1, got {n}")
        self.n = int(n)
        self.rules = rules if rules is not None else RulesConfig()
        # int64[N, 2, 3]: raw points entered, per sheet, seat, game
        self.scores = np.zeros((self.n, N_SEATS, N_GAMES), dtype=np.int64)
        # bool[N, 2, 3]: seat has had a winning hand entered in the game
        self.entered = np.zeros((self.n, N_SEATS, N_GAMES), dtype=bool)
        # int64[N, 2, 3]: winning hands entered per seat and game (for box_bonus)
        self.boxes = np.zeros((self.n, N_SEATS, N_GAMES), dtype=np.int64)
        # int64[N, 3]: seat that won each game, -1 while the game is open
        self.game_winners = np.full((self.n, N_GAMES), -1, dtype=np.int64)
        # bool[N]: the series is over; later records are ignored
        self.finished = np.zeros(self.n, dtype=bool)
        # int64[N]: seat that won two or more games, -1 until finished
        self.series_winner = np.full(self.n, -1, dtype=np.int64)

    # ------------------------------------------------------------------ state

    def rows(self, rows: np.ndarray) -> ScoreSheets:
        """A copy of the selected sheets (``rows``: int[M], repeats allowed)."""
        out = ScoreSheets(rows.size, self.rules)
        for name in ("scores", "entered", "boxes", "game_winners", "finished", "series_winner"):
            setattr(out, name, getattr(self, name)[rows].copy())
        return out

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Clear the sheets selected by ``mask`` (``bool[N]``; all when ``None``)."""
        rows = self._mask(mask)
        self.scores[rows] = 0
        self.entered[rows] = False
        self.boxes[rows] = 0
        self.game_winners[rows] = -1
        self.finished[rows] = False
        self.series_winner[rows] = -1

    @property
    def games_won(self) -> np.ndarray:
        """``int64[N, 2]``: number of games each seat has won."""
        seats = np.arange(N_SEATS)
        return (self.game_winners[:, None, :] == seats[None, :, None]).sum(axis=-1)

    @property
    def open_games(self) -> np.ndarray:
        """``bool[N, 3]``: games still accepting entries (not ended, series not over)."""
        return (self.game_winners < 0) & ~self.finished[:, None]

    def next_entry_games(self, seat: np.ndarray) -> np.ndarray:
        """Return which games a win by ``seat`` would be entered in now.

        Args:
            seat: ``int[N]`` seat 0/1 per sheet (a scalar is broadcast); a
                negative seat means no winner and gives no games.

        Returns:
            ``bool[N, 3]``: for each sheet, the games the win would enter
            (all False once the series is finished).
        """
        seat = np.broadcast_to(np.asarray(seat, dtype=np.int64), (self.n,))
        if np.any(seat >= N_SEATS):
            raise ValueError(f"seat must be 0, 1 or negative (none), got {seat.max()}")
        out = np.zeros((self.n, N_GAMES), dtype=bool)
        _next_entry_rows(
            self.game_winners, self.entered, self.finished, np.ascontiguousarray(seat), out
        )
        return out

    # --------------------------------------------------------------- recording

    def record(
        self,
        winners: np.ndarray,
        points: np.ndarray,
        mask: np.ndarray | None = None,
    ) -> np.ndarray:
        """Enter one hand's result on each selected sheet.

        A row is recorded when ``mask`` is true, its winner is a seat (>= 0) and
        its series is not finished; a drawn hand (winner -1) records nothing.

        Args:
            winners: ``int[N]`` seat 0/1 that won the hand, or -1 for a drawn hand.
            points: ``int[N]`` points the winner scores (>= 0).
            mask: ``bool[N]`` rows to consider; all when ``None``.

        Returns:
            ``bool[N]``: sheets whose series finished with this call.
        """
        winners = np.ascontiguousarray(np.broadcast_to(np.asarray(winners, np.int64), (self.n,)))
        points = np.ascontiguousarray(np.broadcast_to(np.asarray(points, np.int64), (self.n,)))
        considered = self._mask(mask)
        newly_finished = np.zeros(self.n, dtype=bool)
        bad = _record_rows(
            self.scores, self.entered, self.boxes, self.game_winners, self.finished,
            self.series_winner, winners, points, considered, self.rules.game_target,
            self.rules.stop_when_decided, newly_finished,
        )  # fmt: skip
        if bad:
            active = considered & (winners >= 0) & ~self.finished
            if np.any(winners[active] >= N_SEATS):
                raise ValueError(f"winner must be 0, 1 or -1 (drawn), got {winners[active].max()}")
            raise ValueError(f"points must be >= 0, got {points[active].min()}")
        return newly_finished

    # ----------------------------------------------------------------- totals

    def final_totals(self) -> np.ndarray:
        """Return each seat's total per game with the classic bonuses applied.

        ``box_bonus`` is added per hand entered in a game, ``game_bonus`` to the
        winner of each ended game, and the winner's resulting total is multiplied by
        ``shutout_multiplier`` when the loser has no entry in that game. With the
        default options (0, 0, 1) this equals :attr:`scores`.

        Returns:
            ``int64[N, 2, 3]`` totals per sheet, seat and game.
        """
        rules = self.rules
        totals = self.scores + rules.box_bonus * self.boxes
        seats = np.arange(N_SEATS)[None, :, None]
        is_game_winner = self.game_winners[:, None, :] == seats  # bool[N, 2, 3]
        totals = totals + np.where(is_game_winner, rules.game_bonus, 0)
        # the loser of a game is the other seat: its entry flags, seen from the winner's row
        loser_entered = self.entered[:, ::-1, :]
        is_shutout = is_game_winner & ~loser_entered
        return np.where(is_shutout, totals * rules.shutout_multiplier, totals)

    # ---------------------------------------------------------------- helpers

    def _mask(self, mask: np.ndarray | None) -> np.ndarray:
        """Return ``mask`` as ``bool[N]`` (all True when ``None``)."""
        if mask is None:
            return np.ones(self.n, dtype=bool)
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (self.n,):
            raise ValueError(f"mask must have shape ({self.n},), got {mask.shape}")
        return mask


class ScoreSheet:
    """One Hollywood series: a convenience wrapper over :class:`ScoreSheets` with ``n = 1``.

    Example:
        >>> sheet = ScoreSheet()
        >>> sheet.record(0, 10)
        False
        >>> sheet.scores.tolist()
        [[10, 0, 0], [0, 0, 0]]
    """

    def __init__(self, rules: RulesConfig | None = None) -> None:
        """Create an empty sheet with the given rules options (defaults when ``None``)."""
        self.sheets = ScoreSheets(1, rules)

    @property
    def rules(self) -> RulesConfig:
        """The rules options of this sheet."""
        return self.sheets.rules

    def reset(self) -> None:
        """Clear the sheet for a new series."""
        self.sheets.reset()

    def record(self, winner_seat: int, points: int) -> bool:
        """Enter one hand won by ``winner_seat`` (0/1; -1 = drawn hand) worth ``points``.

        Returns:
            True when the series finished with this hand.
        """
        return bool(self.sheets.record(np.array([winner_seat]), np.array([points]))[0])

    @property
    def scores(self) -> np.ndarray:
        """``int64[2, 3]`` raw points entered per seat and game (a copy)."""
        return self.sheets.scores[0].copy()

    @property
    def entered(self) -> np.ndarray:
        """``bool[2, 3]`` whether each seat has an entry in each game (a copy)."""
        return self.sheets.entered[0].copy()

    @property
    def boxes(self) -> np.ndarray:
        """``int64[2, 3]`` winning hands entered per seat and game (a copy)."""
        return self.sheets.boxes[0].copy()

    @property
    def game_winners(self) -> np.ndarray:
        """``int64[3]`` seat that won each game, -1 while open (a copy)."""
        return self.sheets.game_winners[0].copy()

    @property
    def games_won(self) -> np.ndarray:
        """``int64[2]`` number of games each seat has won."""
        return self.sheets.games_won[0]

    @property
    def open_games(self) -> np.ndarray:
        """``bool[3]`` games still accepting entries."""
        return self.sheets.open_games[0]

    @property
    def finished(self) -> bool:
        """Whether the series is over."""
        return bool(self.sheets.finished[0])

    @property
    def series_winner(self) -> int:
        """Seat that won the series, -1 until it is finished."""
        return int(self.sheets.series_winner[0])

    def next_entry_games(self, seat: int) -> np.ndarray:
        """``bool[3]``: the games a win by ``seat`` would be entered in now."""
        return self.sheets.next_entry_games(np.array([seat]))[0]

    def final_totals(self) -> np.ndarray:
        """``int64[2, 3]`` totals with the classic bonuses (see ScoreSheets.final_totals)."""
        return self.sheets.final_totals()[0]

    def format(self, names: tuple[str, str] | list[str] | None = None) -> str:
        """Return the sheet as a text table: players as rows, games 1/2/3 as columns.

        A game where the player has no entry shows ``-``; a game winner's total is
        followed by ``*``. The last line tells the series state.

        Args:
            names: the two players' names; ``("P0", "P1")`` when ``None``.
        """
        names = list(names) if names is not None else [f"P{s}" for s in range(N_SEATS)]
        if len(names) != N_SEATS:
            raise ValueError(f"format needs {N_SEATS} names, got {len(names)}")
        scores, entered, winners = self.scores, self.entered, self.game_winners
        name_width = max(len("Player"), *(len(name) for name in names))
        cell_width = 8  # right-aligned number, then one column for the won-game mark
        header = "Player".ljust(name_width) + "".join(
            f"Game {game + 1}".rjust(cell_width) + " " for game in range(N_GAMES)
        )
        lines = [header.rstrip()]
        for seat, name in enumerate(names):
            cells = []
            for game in range(N_GAMES):
                text = str(scores[seat, game]) if entered[seat, game] else NO_ENTRY
                mark = WON_MARK if winners[game] == seat else " "
                cells.append(text.rjust(cell_width) + mark)
            lines.append((name.ljust(name_width) + "".join(cells)).rstrip())
        if self.finished:
            winner = self.series_winner
            status = f"series won by {names[winner]}" if winner >= 0 else "series over, no winner"
        else:
            status = "series in progress"
        lines.append(f"({WON_MARK} game won, {NO_ENTRY} no entry) {status}")
        return "\n".join(lines)

"""Record a few hands of a batched evaluation as a transcript (``hgin_env.replay`` format).

``TranscriptRecorder(hands=K)`` follows the first hand of the first ``K`` series of the
batch (series indices ``0..K-1``): their deal, every action with the acting seat, and
the engine's final state of the hand. ``evaluate(..., recorder=rec)`` calls ``begin``
once after dealing, ``before_step`` with each step's actions and ``after_step`` with each
``SeriesStep``; only the sampled rows are touched, so the cost does not grow with the
batch. ``write(path)`` saves the hands as JSON Lines (replayable with
``python -m hgin_env.replay PATH``) and a readable ``.txt`` rendering next to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hgin_env.engine.config import RulesConfig
from hgin_env.engine.series import SeriesEngine, SeriesStep
from hgin_env.replay import format_record, hand_record, record_line


def transcript_paths(path: str | Path) -> tuple[Path, Path]:
    """``(jsonl, txt)`` paths of a transcript: ``x.jsonl`` and ``x.txt`` for ``x.jsonl``."""
    path = Path(path)
    jsonl = path.with_suffix(".jsonl") if path.suffix == ".txt" else path
    return jsonl, jsonl.with_suffix(".txt")


class TranscriptRecorder:
    """Records the first hand of the first ``hands`` series of a batch.

    Args:
        hands: how many series (hence hands) to record.

    Attributes:
        records: the finished hands' records, in the order they ended.
    """

    def __init__(self, hands: int = 5) -> None:
        if hands < 1:
            raise ValueError(f"a transcript needs at least one hand, got {hands}")
        self.hands = hands
        self.records: list[dict[str, Any]] = []
        self._rows = np.zeros(0, dtype=np.int64)
        self._actions: dict[int, list[tuple[int, int]]] = {}

    def begin(
        self,
        series: SeriesEngine,
        names: tuple[str, str],
        a_seat: np.ndarray,
        info: dict[str, Any] | None = None,
        versions: tuple[str | None, str | None] = (None, None),
    ) -> None:
        """Note the deals of the sampled series (call right after ``series.reset``).

        Args:
            series: the batch, just reset.
            names: the names of players A and B.
            a_seat: int[N], A's seat in each series.
            info: context stored with every record (e.g. the evaluation seed).
            versions: the exact versions of A and B (``policy_version``), stored in
                each record's ``info["versions"]``, seat 0 first as ``names``.
        """
        self._versions = versions
        self._rows = np.arange(min(self.hands, series.n))
        self._rules: RulesConfig = series.rules
        self._names = names
        self._a_seat = np.asarray(a_seat)
        self._info = dict(info or {})
        s = series.engine.state
        self._decks = {int(i): s.deck[i].copy() for i in self._rows}
        self._dealers = {int(i): int(s.dealer[i]) for i in self._rows}
        self._actions = {int(i): [] for i in self._rows}

    def before_step(self, series: SeriesEngine, actions: np.ndarray) -> None:
        """Note the action of every sampled series still in its first hand."""
        if not self._actions:
            return
        seats = series.engine.current_player
        for i, moves in self._actions.items():
            moves.append((int(seats[i]), int(actions[i])))

    def after_step(self, step: SeriesStep) -> None:
        """Close the sampled hands that ended in ``step``."""
        if not self._actions or step.rows.size == 0:
            return
        for j, i in enumerate(step.rows.tolist()):
            moves = self._actions.pop(i, None)
            if moves is None:
                continue
            a = int(self._a_seat[i])
            names, versions = self._names, list(self._versions)
            if a == 1:
                names, versions = (names[1], names[0]), versions[::-1]
            self.records.append(
                hand_record(
                    self._decks[i], self._dealers[i], moves, step.hands, j, self._rules,
                    names, {**self._info, "series": i, "hand": 1, "versions": versions},
                )
            )  # fmt: skip

    @property
    def done(self) -> bool:
        """Whether every sampled hand has ended."""
        return not self._actions

    def write(self, path: str | Path) -> tuple[Path, Path]:
        """Write the records as JSON Lines and as text; return ``(jsonl, txt)`` paths."""
        jsonl, txt = transcript_paths(path)
        jsonl.parent.mkdir(parents=True, exist_ok=True)
        records = sorted(self.records, key=lambda r: r["info"].get("series", 0))
        jsonl.write_text("".join(record_line(r) for r in records), encoding="utf-8")
        texts = [
            format_record(r, f"Hand {k} of {len(records)}, series {r['info'].get('series')}")
            for k, r in enumerate(records, start=1)
        ]
        txt.write_text("\n\n".join(texts) + "\n", encoding="utf-8", errors="replace")
        return jsonl, txt

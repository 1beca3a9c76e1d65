"""Evaluation during training, done and kept the same way by both training backends.

``evaluate_opponent`` plays the trainer's evaluation against one opponent;
``EvalRecord`` turns one evaluation (its per-opponent results) into the ``eval/``
scalars, the run's best model and ``eval.json``: the latest evaluation in full, the best
one and the history. The SB3 ``EvalCallback`` and the rllib backend's session both write
through it, so their ``eval.json`` files and curves mean the same.

On resume (a run continued from its checkpoint at step S), the history keeps only its
entries up to S: later ones come from the part of the stopped session that the resumed
run trains again, so the history stays one increasing record of the run that continues.
The recorded best (``eval.json``'s ``best``, which describes the best model on disk) is
kept even when it came from that lost part (it is then marked
``"from_stopped_session": true``): the best model is replaced only by one that scores
better than it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation import evaluate
from agents.evaluation.hand_eval import evaluate_hands
from agents.training.checkpoint import TrainState, atomic_write_text
from agents.training.config import EvalConfig
from hgin_env.engine.config import RulesConfig

#: where a backend logs one scalar of the current step: ``record(tag, value)``
Record = Callable[[str, float], None]


class EvalRecord:
    """The ``eval.json`` of a run folder, its best model and the ``eval/`` scalars.

    Args:
        run_dir: the run folder.
        metric: ``eval.best_metric``.
        best_model: the best model's name in the run folder (``best_model.zip`` for SB3,
            the ``best_model`` folder for rllib).
        state: the run's ``TrainState``; its best metric, best step and last evaluation
            step are kept up to date.
    """

    def __init__(self, run_dir: Path, metric: str, best_model: str, state: TrainState) -> None:
        self.run_dir, self.metric, self.best_model, self.state = run_dir, metric, best_model, state
        self.recorded_best: dict[str, Any] | None = None
        self.history: list[dict[str, Any]] = self._read_history()

    def _read_history(self) -> list[dict[str, Any]]:
        """The history up to the checkpoint's step; adopts the recorded best (see above)."""
        try:
            data = json.loads((self.run_dir / "eval.json").read_text())
        except (OSError, ValueError):
            return []
        steps = self.state.steps
        history = [e for e in data.get("history", []) if e.get("steps", 0) <= steps]
        best = data.get("best")
        value = best.get("value") if isinstance(best, dict) else None
        if (
            isinstance(value, int | float)
            and data.get("metric") == self.metric
            and (self.run_dir / self.best_model).exists()
            and (self.state.best_metric is None or value > self.state.best_metric)
        ):
            self.state.best_metric, self.state.best_steps = value, int(best.get("steps", 0))
            self.recorded_best = {k: v for k, v in best.items() if k != "model"}
            if self.state.best_steps > steps:
                self.recorded_best["from_stopped_session"] = True
        return history

    def add(
        self,
        results: dict[str, dict[str, Any]],
        steps: int,
        start: float,
        record: Record,
        save_best: Callable[[], object],
    ) -> dict[str, Any]:
        """Log one evaluation, keep the best model and rewrite ``eval.json``.

        Args:
            results: opponent name -> ``{"summary": {...}, ...}`` (``evaluate_opponent``).
            steps: the training step of the evaluation.
            start: ``time.perf_counter()`` when the evaluation began.
            record: logs ``eval/<metric>/<opponent>``, ``eval/<best_metric>``,
                ``eval/best_<best_metric>`` and ``eval/seconds`` at this step.
            save_best: writes the evaluated model as the best one; called when it is.

        Returns:
            The history entry (steps, time, seconds, metric, value, opponents).
        """
        for name, entry in results.items():
            for key, value in entry["summary"].items():
                record(f"eval/{key}/{name}", value)
        metric, state = self.metric, self.state
        mean = float(np.mean([r["summary"][metric] for r in results.values()]))
        if state.best_metric is None or mean > state.best_metric:
            state.best_metric, state.best_steps = mean, steps
            save_best()
        state.last_eval_steps = steps
        seconds = time.perf_counter() - start
        record(f"eval/{metric}", mean)
        record(f"eval/best_{metric}", state.best_metric)
        record("eval/seconds", seconds)
        entry = {
            "steps": steps,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "seconds": round(seconds, 3),
            "metric": metric,
            "value": mean,
            "opponents": {name: r["summary"] for name, r in results.items()},
        }
        self.history.append(entry)
        kept = [self.recorded_best] if self.recorded_best is not None else []
        best = max(kept + self.history, key=lambda e: e["value"])
        data = {
            "metric": metric,
            "latest": {**entry, "details": results},
            "best": {**best, "model": self.best_model},
            "history": self.history,
        }
        atomic_write_text(self.run_dir / "eval.json", json.dumps(data, indent=2, default=float))
        return entry


def evaluate_opponent(
    agent: Any, name: str, opponent: Any, cfg: EvalConfig, rules: RulesConfig, seed: int
) -> dict[str, Any]:
    """The trainer's evaluation against one opponent: full results and a flat summary.

    ``cfg.n_series`` full series (``agents.evaluation.evaluate``) and ``cfg.n_hands``
    single hands (``hand_eval``), both on the deals of ``seed``, with every random stream
    restarted first, so each evaluation of a run plays the same deals the same way. Both
    training backends use it.

    The summary holds the numbers of the ``eval/`` TensorBoard tags, each kind under its
    own names: the series' as ``series_win_rate``, ``series_points_per_hand``,
    ``series_hand_win_rate``, ``series_gin_rate``, ``series_knock_rate`` and
    ``series_undercut_rate``; the single hands' as ``hand_win_rate``,
    ``points_per_hand``, ``gin_rate``, ``knock_rate`` and ``undercut_rate``. With
    ``n_hands`` 0 those five plain names hold the series' hand figures instead (so
    ``eval.best_metric`` always has a value).

    Returns:
        ``{"summary": {...}, "series": <EvalResult dict>, "hands": <HandEvalResult dict>}``.
    """
    out: dict[str, Any] = {"summary": {}}
    summary = out["summary"]
    if cfg.n_series:
        _reseed(agent, seed)
        series = evaluate(
            agent, opponent, cfg.n_series, seed=seed, rules=rules, progress=False,
            max_hands_per_series=cfg.max_hands_per_series, name_a="agent", name_b=name,
        )  # fmt: skip
        out["series"] = series.to_dict()
        hand_figures = {
            "hand_win_rate": series.hand_win_rate,
            "points_per_hand": series.points_per_hand,
            "gin_rate": series.a.gin_rate,
            "knock_rate": series.a.knock_rate,
            "undercut_rate": series.a.undercut_suffered_rate,
        }
        summary["series_win_rate"] = series.series_win_rate
        summary.update({f"series_{key}": value for key, value in hand_figures.items()})
        if not cfg.n_hands:
            summary.update(hand_figures)
    if cfg.n_hands:
        _reseed(agent, seed)
        _reseed(opponent, seed)
        hands = evaluate_hands(agent, opponent, cfg.n_hands, seed=seed, rules=rules)
        out["hands"] = hands.to_dict()
        summary.update(
            hand_win_rate=hands.hand_win_rate,
            points_per_hand=hands.points_per_hand,
            gin_rate=hands.gin_rate,
            knock_rate=hands.knock_rate,
            undercut_rate=hands.undercut_rate,
        )
    return out


def _reseed(policy: Any, seed: int) -> None:
    """Restart a policy's random stream when it has one (same play at every evaluation)."""
    reseed = getattr(policy, "seed", None)
    if callable(reseed):
        reseed(seed)

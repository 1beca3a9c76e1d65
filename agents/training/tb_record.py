"""A consistent TensorBoard record: one point per step and tag, steps that never go back.

Two things would break it, and this module handles both:

1. **A resumed run after a kill.** A session killed (SIGKILL, a crash) after its last
   checkpoint at step S has already logged events past S; the resumed session starts
   again at S and logs those steps anew, so a reader of ``tb/`` would see the steps go
   back. ``truncate_events`` rewrites each event file without its events past S (they
   belong to the lost part of the run), record by record and atomically per file, so
   every reader (TensorBoard's ``EventAccumulator``, per-file readers, ``tbparse``) sees
   one increasing record. The ``pretrain/`` curves are kept: their step axis counts
   imitation epochs, not environment steps.
2. **SB3 logs an update's ``train/*`` losses with the next rollout** (it dumps the logs
   after collecting a rollout, then trains), so the last update landed on the final step
   next to the previous update's values: two points at one step.
   ``agents.training.sb3.callbacks.TrainLogFlushCallback`` writes each update's
   ``train/*`` at the step it ran (at the start of the next rollout), and the SB3 runner
   writes the last one after its loop.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto import event_pb2
from tensorboard.summary.writer.record_writer import RecordWriter

from agents.training.checkpoint import atomic_write

#: tags whose step is not an environment step (kept whatever their step)
EPOCH_TAGS = ("pretrain/",)


def _epoch_axis(event: event_pb2.Event) -> bool:
    """Whether every value of an event belongs to a tag stepped by epochs."""
    values = event.summary.value
    return bool(values) and all(v.tag.startswith(EPOCH_TAGS) for v in values)


def truncate_events(tb_dir: Path, steps: int) -> int:
    """Drop the events logged past ``steps`` from every event file in ``tb_dir``.

    Args:
        tb_dir: the run's ``tb/`` folder.
        steps: the step of the checkpoint the run resumes from.

    Returns:
        The number of events dropped (files without any are left untouched).
    """
    dropped = 0
    for path in sorted(Path(tb_dir).glob("events.out.tfevents.*")):
        kept: list[bytes] = []
        n = 0
        for raw in RawEventFileLoader(str(path)).Load():  # stops at a truncated record
            event = event_pb2.Event.FromString(raw)
            if event.step > steps and not _epoch_axis(event):
                n += 1
            else:
                kept.append(raw)
        if n:

            def write(f: IO[bytes], records: tuple[bytes, ...] = tuple(kept)) -> None:
                writer = RecordWriter(f)
                for record in records:
                    writer.write(record)

            atomic_write(path, write)
            dropped += n
    return dropped

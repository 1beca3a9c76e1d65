"""``train.py --track``: the run in Weights & Biases, as CleanRL's ``--track`` does it.

``tracking(...)`` starts a wandb run before training (so that its TensorBoard patch sees
the run's event writer: every scalar logged to ``tb/`` is synced), with the resolved
config as the run's config; ``attach(...)`` adds the run folder's small files (config,
evaluations, the final model's folder and zip) as an artifact and the final evaluation
to the summary.

It works offline: with ``WANDB_MODE=offline`` the run is written under
``<runs_dir>/wandb/offline-run-*`` and can be uploaded later with ``wandb sync``. wandb
is the ``track`` extra (``pip install -e '.[track]'``; ``make setup`` installs it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: the wandb project a run goes to unless ``--wandb-project`` names another
PROJECT = "hollywood-gin"
#: the run folder's files attached to the wandb run (the checkpoints and tb/ stay out)
ATTACHED = (
    "config.yaml", "eval.json", "pretrain.json", "provenance.json", "final_model.zip",
    "best_model.zip",
)  # fmt: skip
#: the run folder's model folders attached with their files (``hgin_policy.json`` and
#: ``weights.safetensors``: the format that loads without unpickling)
ATTACHED_FOLDERS = ("final_model", "best_model")


class TrackingError(RuntimeError):
    """wandb is missing or could not start a run (the message says which)."""


@contextlib.contextmanager
def tracking(
    config: dict[str, Any], runs_dir: Path, run_name: str | None, project: str | None = None
) -> Iterator[Any]:
    """A wandb run around training: yields it, finishes it (failed if training raised).

    Raises:
        TrackingError: wandb is not installed, or its run cannot start.
    """
    try:
        import wandb
    except ModuleNotFoundError as exc:
        raise TrackingError(
            f"--track needs wandb ({exc.name} is missing): pip install -e '.[track]'"
        ) from None
    runs_dir.mkdir(parents=True, exist_ok=True)
    try:
        run = wandb.init(
            project=project or PROJECT,
            name=run_name,
            config=config,
            dir=str(runs_dir),
            sync_tensorboard=True,
            job_type="train",
            save_code=False,
        )
    except Exception as exc:  # noqa: BLE001 - wandb raises many kinds (network, login)
        raise TrackingError(f"--track: wandb could not start a run: {exc}") from exc
    code = 1
    try:
        yield run
        code = 0
    finally:
        run.finish(exit_code=code)
        wandb.teardown()  # waits until the run's records are written (offline: on disk)


def attach(run: Any, run_dir: Path, final_eval: dict[str, Any] | None) -> None:
    """Attach the run folder's small files as an artifact, the final evaluation as summary."""
    import wandb

    run.config.update({"run_dir": run_dir.name}, allow_val_change=True)
    artifact = wandb.Artifact(f"run-{run_dir.name}", type="run-folder")
    for name in ATTACHED:
        if (run_dir / name).is_file():
            artifact.add_file(str(run_dir / name), name=name)
    for folder in ATTACHED_FOLDERS:
        for path in sorted((run_dir / folder).glob("*")):
            if path.is_file():
                artifact.add_file(str(path), name=f"{folder}/{path.name}")
    run.log_artifact(artifact)
    if final_eval:
        run.summary.update({"final_eval": final_eval})

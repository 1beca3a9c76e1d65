r"""Expert iteration of the knock: a network learns the search's knock from its own play.

Not part of the toolkit: the runs behind research/experiments.md (``ei1``, ``ei2``) and the
shipped ``ppo-knock`` model. One iteration:

1. **States from the student's own play (DAgger).** The student (a saved network,
   playing greedily) plays the agent's seat of ``games`` series against a fixed mix of
   bots and networks under the student's training rules mix (undercut bonus 10 and 25).
   The student's actions are the ones played, so the states are those it meets.
2. **Labels from the teacher.** At every decision where a knock is legal the teacher
   (by default ``searcher@1``, whose prior and rollouts are ``ppo-league2``) chooses;
   that choice is the policy target. With ``--teach-share P`` it also labels a share ``P``
   of the other decisions with a choice (draws, pickups, discards: a teacher that searches
   them, ``searcher@1:decisions=all``). ``--undercut`` limits the teaching to games of
   those undercut bonuses. Of the untaught decisions a share ``other`` is kept with the
   student's own choice as the target, so the rest of its play stays as it was. Ctrl-C
   ends the gathering early and keeps the rows labelled so far.
3. **Imitation** (``agents.training.sb3.pretrain.imitate``, the same masked
   cross-entropy as ``pretrain.teacher``) for ``epochs`` passes from the student's
   weights; the value head is not fitted (``value_coef`` 0: no returns are recorded),
   though it moves with the layers it shares with the policy.

The new network is written as a saved policy in ``OUT/`` (``hgin_policy.json``,
``weights.safetensors``) with the student's ``config.yaml`` (the
same network shape) and ``OUT/expert_iteration.json`` (the command's figures). The next
iteration takes ``--student OUT`` (the same teacher), and its fit ``--demos`` with the
rows of every iteration so far.

Usage::

    python -m research.experiments.expert_iteration --student ppo-league2 --teacher searcher \
        --decisions 20000 --out runs/ei1
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from agents.policies.model import load_policy, model_file
from agents.policies.torch_policy import TorchPolicy
from agents.training.config import PretrainConfig, load_config, save_config
from agents.training.opponents import TrainingOpponents
from agents.training.sb3.model import load_model, save_policy_of
from agents.training.sb3.pretrain import Demonstrations, imitate
from agents.training.sb3.runner import make_env
from hgin_env.engine.actions import KNOCK, is_knock, knock_legal
from hgin_env.envs.observation import decode_observations, plain_observations

#: the opponents of the student's games: the league's reference players, ``patient``
#: (the strongest bot under undercut 25) most often, and the student's own start
OPPONENTS = "{patient: 4, simple: 1, expert: 1, tempo: 1, ppo-league2: 2}"


#: the arrays of a ``Demonstrations``
DEMO_FIELDS = ("obs", "masks", "actions", "returns")


def gather(
    env: Any,
    student: TorchPolicy,
    teacher: Any,
    decisions: int,
    other: float,
    rng: np.random.Generator,
    undercut: frozenset[int] | None = None,
    teach_share: float = 0.0,
) -> tuple[Demonstrations, np.ndarray, dict[str, float]]:
    """Step ``env`` with the student's actions until the teacher has labelled ``decisions`` rows.

    The teacher labels the rows where a knock is legal and, with chance ``teach_share``, each
    other row with a choice (of the games whose undercut bonus is in ``undercut``, when
    given); every knock row and every taught row is kept, the others with chance
    ``other``, each labelled with the student's own choice.

    Returns:
        The kept rows, bool[rows]: those the teacher labelled, and figures: rows seen,
        knock rows, rows the teacher labelled, the share of those where it left the
        student's choice, and how often the student and the teacher knocked there.
    """
    obs = env.reset()
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    seen = knocks = taught = changed = student_knocks = teacher_knocks = 0
    bar = tqdm(total=decisions, desc="decisions labelled")
    try:
        while taught < decisions:
            masks = np.array(env.action_masks(), dtype=bool)
            plain = plain_observations(obs)
            actions = np.asarray(student.act(plain, masks), dtype=np.int64)
            labels = actions.copy()
            knock = knock_legal(masks)
            teach = knock.copy()
            if teach_share > 0:  # no extra draw otherwise: the knock-only runs replay as they were
                teach |= (rng.random(knock.size) < teach_share) & (masks.sum(axis=1) > 1)
            if undercut is not None and teach.any():
                bonus = decode_observations(plain[teach]).undercut_bonus
                teach[teach] = np.isin(bonus, sorted(undercut))
            if teach.any():
                labels[teach] = np.asarray(teacher.act(plain[teach], masks[teach]), dtype=np.int64)
            keep = knock | teach | (rng.random(knock.size) < other)
            kept.append((plain[keep], masks[keep], labels[keep], teach[keep]))
            seen += knock.size
            knocks += int(knock.sum())
            taught += int(teach.sum())
            changed += int((labels[teach] != actions[teach]).sum())
            student_knocks += int(is_knock(actions[teach]).sum())
            teacher_knocks += int(is_knock(labels[teach]).sum())
            bar.update(min(int(teach.sum()), decisions - bar.n))
            obs, _, _, _ = env.step(actions)
    except KeyboardInterrupt:  # Ctrl-C: stop early, keep every row labelled so far
        bar.write(f"interrupted: keeping the {taught} rows labelled so far")
    bar.close()
    parts = [np.concatenate([k[i] for k in kept]) for i in range(4)]
    demos = Demonstrations(parts[0], parts[1], parts[2], np.zeros(parts[2].size, np.float32))
    figures = {
        "rows_seen": seen,
        "knock_rows": knocks,
        "rows_taught": int(parts[3].sum()),  # every taught row is kept
        "rows_kept": int(parts[2].size),
        "teacher_changed": changed / max(taught, 1),
        "student_knock_share": student_knocks / max(taught, 1),
        "teacher_knock_share": teacher_knocks / max(taught, 1),
    }
    return demos, parts[3], figures


def save_demos(path: Path, demos: Demonstrations, taught: np.ndarray, figures: dict) -> None:
    """Write the gathered rows (compressed) with their figures, for ``--demos``."""
    np.savez_compressed(
        path, obs=demos.obs, masks=demos.masks, actions=demos.actions, taught=taught,
        figures=json.dumps(figures),
    )  # fmt: skip


def load_demos(path: Path) -> tuple[Demonstrations, np.ndarray, dict]:
    """The rows ``save_demos`` wrote."""
    with np.load(path) as data:
        n = data["actions"].size
        demos = Demonstrations(data["obs"], data["masks"], data["actions"], np.zeros(n, np.float32))
        return demos, data["taught"], json.loads(str(data["figures"]))


def gin_rows(demos: Demonstrations) -> np.ndarray:
    """bool[rows]: the label is a knock that leaves no deadwood (a gin)."""
    knock = is_knock(demos.actions)
    card = np.where(knock, demos.actions - KNOCK, 0)
    left = decode_observations(demos.obs).discard_deadwood[np.arange(card.size), card]
    return knock & (left == 0)


def oversample(
    demos: Demonstrations,
    taught: np.ndarray,
    times: int,
    gin_times: int = 1,
    changed: np.ndarray | None = None,
    changed_times: int = 1,
) -> Demonstrations:
    """The rows with each taught row ``times`` times, each gin ``gin_times`` (the others once).

    With ``changed`` (bool[rows]: the rows where the teacher's label differs from what the
    student played), each of those rows gets ``changed_times - 1`` more copies on top of
    its taught repeats.
    """
    gins = np.flatnonzero(gin_rows(demos))
    extra = [] if changed is None else [np.flatnonzero(changed)] * (changed_times - 1)
    index = np.concatenate(
        [np.arange(taught.size)]
        + [np.flatnonzero(taught)] * (times - 1)
        + [gins] * (gin_times - 1)
        + extra
    )
    return Demonstrations(
        demos.obs[index], demos.masks[index], demos.actions[index], demos.returns[index]
    )


def greedy(policy: Any, demos: Demonstrations, rows: np.ndarray) -> np.ndarray:
    """int64[len(rows)]: ``policy``'s choice in each of ``rows``, acted in chunks of 4096."""
    return np.concatenate(
        [np.zeros(0, np.int64)]
        + [
            np.asarray(policy.act(demos.obs[chunk], demos.masks[chunk]), dtype=np.int64)
            for chunk in (rows[i : i + 4096] for i in range(0, rows.size, 4096))
        ]
    )


def relabel(demos: Demonstrations, taught: np.ndarray, anchor: Any) -> Demonstrations:
    """The rows with every untaught label replaced by the greedy choice of ``anchor``.

    Each iteration's untaught labels are its own student's choices, so without this the
    play outside the taught decisions drifts a little further every iteration; with
    the teacher's prior as the anchor they are what the teacher itself plays there.
    """
    rows = np.flatnonzero(~taught)
    actions = demos.actions.copy()
    actions[rows] = greedy(anchor, demos, rows)
    return Demonstrations(demos.obs, demos.masks, actions, demos.returns)


def agreement(policy: TorchPolicy, demos: Demonstrations, taught: np.ndarray) -> dict[str, float]:
    """How often the greedy ``policy`` plays the label (taught rows, others, gins); its knocks."""
    played = greedy(policy, demos, np.arange(taught.size))
    same = played == demos.actions
    gins = gin_rows(demos)
    return {
        "taught_agreement": float(same[taught].mean()) if taught.any() else float("nan"),
        "other_agreement": float(same[~taught].mean()) if (~taught).any() else float("nan"),
        "taught_knock_share": float(is_knock(played[taught]).mean()) if taught.any() else 0.0,
        "gin_agreement": float(same[gins].mean()) if gins.any() else 0.0,
    }


def student_games(config_path: Path, opponents: str, games: int, seed: int, tmp: Path) -> Any:
    """The student's training env (its ``config.yaml``) against a fixed mix, seeded.

    Args:
        config_path: the student's config (its env section: mode, rules mix).
        opponents: a YAML mapping of opponent names to weights.
        games: games played at once.
        seed: seeds the deals, the opponents and their assignment.
        tmp: a scratch folder (the unused self-play pool's).
    """
    config = load_config(
        config_path,
        [
            "opponents.league.enabled=false",
            "opponents.selfplay.enabled=false",
            f"opponents.mix={opponents}",
            f"ppo.n_envs={games}",
            "ppo.batch_size=64",  # only the check against n_envs * n_steps reads it
            "ppo.env_workers=1",
            f"seed={seed}",
        ],
    )
    env = make_env(config, TrainingOpponents(config.opponents, games, tmp / "pool", seed))
    env.seed(seed)
    return env


def main(argv: list[str] | None = None) -> None:
    """Run one iteration (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--student", required=True, help="a shipped model name or a folder")
    parser.add_argument("--teacher", default="searcher@1", help="a search spec (or any policy)")
    parser.add_argument("--decisions", type=int, default=20_000, help="knock rows to label")
    parser.add_argument("--other", type=float, default=0.2, help="share of other rows kept")
    parser.add_argument(
        "--teach-share",
        type=float,
        default=0.0,
        help="share of the rows with a choice and no legal knock the teacher also labels",
    )
    parser.add_argument("--games", type=int, default=128, help="series played at once")
    parser.add_argument("--opponents", default=OPPONENTS, help="YAML mapping name: weight")
    parser.add_argument(
        "--undercut",
        type=int,
        nargs="+",
        default=None,
        help="the teacher labels only games with these undercut bonuses (default: all)",
    )
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument(
        "--repeat-taught", type=int, default=1, help="each taught row this many times in the fit"
    )
    parser.add_argument(
        "--repeat-gin", type=int, default=1, help="each row labelled gin this many times"
    )
    parser.add_argument(
        "--repeat-changed",
        type=int,
        default=1,
        help="N: each taught row whose label differs from the student's own choice gets "
        "N - 1 more copies (1: none)",
    )
    parser.add_argument(
        "--anchor",
        default=None,
        help="label the untaught rows with this policy's choice (default: as gathered)",
    )
    parser.add_argument(
        "--demos", type=Path, nargs="+", default=None, help="fit the rows of these demos.npz"
    )
    parser.add_argument("--seed", type=int, default=3101)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    path = model_file(args.student)
    if path is None or not path.exists():
        parser.error(f"--student {args.student}: no such model")
    config_path = (path if path.is_dir() else path.parent) / "config.yaml"
    args.out.mkdir(parents=True, exist_ok=True)
    model = load_model(path)
    model.policy.set_training_mode(False)
    student = TorchPolicy(model.policy, deterministic=True, name=args.student)
    t0 = time.perf_counter()
    if args.demos is not None:  # DAgger: the rows of every earlier iteration together
        loaded = [load_demos(file) for file in args.demos]
        demos = Demonstrations(
            *(np.concatenate([getattr(d, f) for d, _, _ in loaded]) for f in DEMO_FIELDS)
        )
        taught = np.concatenate([t for _, t, _ in loaded])
        figures: dict[str, Any] = {"rows_kept": int(taught.size), "rows_taught": int(taught.sum())}
    else:
        with tempfile.TemporaryDirectory() as tmp:
            env = student_games(config_path, args.opponents, args.games, args.seed, Path(tmp))
            teacher = load_policy(args.teacher, seed=args.seed + 1)
            rng = np.random.default_rng(args.seed)
            undercut = None if args.undercut is None else frozenset(args.undercut)
            demos, taught, figures = gather(
                env, student, teacher, args.decisions, args.other, rng, undercut,
                args.teach_share,
            )  # fmt: skip
            env.close()
        save_demos(args.out / "demos.npz", demos, taught, figures)
    t_gather = time.perf_counter() - t0
    print(json.dumps(figures, indent=2), flush=True)
    pretrain = PretrainConfig(
        epochs=args.epochs, learning_rate=args.learning_rate, value_coef=0.0, samples=1
    )
    t1 = time.perf_counter()
    if args.anchor is not None:
        demos = relabel(demos, taught, load_policy(args.anchor, seed=args.seed))
    changed = None
    if args.repeat_changed > 1:  # the student's own choice, before the fit moves it
        rows_taught = np.flatnonzero(taught)
        changed = np.zeros(taught.size, dtype=bool)
        changed[rows_taught] = greedy(student, demos, rows_taught) != demos.actions[rows_taught]
        figures["rows_changed"] = int(changed.sum())
    rows = oversample(
        demos, taught, args.repeat_taught, args.repeat_gin, changed, args.repeat_changed
    )
    history = imitate(model, rows, pretrain, args.seed)
    t_fit = time.perf_counter() - t1
    model.policy.set_training_mode(False)
    figures = {**figures, **agreement(student, demos, taught)}
    print(json.dumps(figures, indent=2), flush=True)
    config = load_config(config_path)
    save_policy_of(model, args.out, config.to_dict()["rules"], replace=False)
    save_config(config, args.out / "config.yaml")
    gathered = args.demos is None  # the gathering's options only matter when it ran
    summary = {
        "student": args.student,
        "teacher": args.teacher if gathered else None,
        "opponents": args.opponents if gathered else None,
        "seed": args.seed,
        "games": args.games if gathered else None,
        "other": args.other if gathered else None,
        "teach_share": args.teach_share if gathered else None,
        "undercut": args.undercut if gathered else None,
        "demos": None if args.demos is None else [str(file) for file in args.demos],
        "learning_rate": args.learning_rate,
        "repeat_taught": args.repeat_taught,
        "repeat_gin": args.repeat_gin,
        "repeat_changed": args.repeat_changed,
        "anchor": args.anchor,
        "epochs": history,
        "gather_s": round(t_gather, 1),
        "fit_s": round(t_fit, 1),
        **figures,
    }
    (args.out / "expert_iteration.json").write_text(json.dumps(summary, indent=2))
    print(f"wrote the model {args.out} (gather {t_gather:.0f} s, fit {t_fit:.0f} s)")


if __name__ == "__main__":
    main()

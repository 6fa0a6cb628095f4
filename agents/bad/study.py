"""BAD against its baseline on one of HLE's small presets, over seeds (docs/bad.md §2).

:func:`hanabi_study` trains every (learner, seed) run with :func:`agents.bad.train.train` in
``out/<learner>-seed<k>/`` (each resumable), then writes ``out/summary.json`` (per learner: the
greedy score of every seed and their mean ± s.e.m. over seeds, the training score at the end,
steps, wall time, throughput) and ``out/learning_curves.png`` (training score against moves,
mean ± s.e.m. over seeds).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from agents.bad._io import write_json
from agents.bad.train import EVAL_SEED, LEARNERS, TrainSettings, train
from hanabi_env import stats
from hanabi_env.validate import check_choice, check_int_sequence, type_error

__all__ = ["LEARNER_LABELS", "hanabi_study", "run_folder"]

LEARNER_LABELS = {
    "bad": "BAD (V2 Bayesian belief, partial policies)",
    "baseline": "independent actor-critic (V1 belief)",
}
"""Words for the learners in figures and tables."""


def run_folder(out: str | Path, learner: str, seed: int) -> Path:
    """The folder of one run of a study: ``out/<learner>-seed<seed>``."""
    return Path(out) / f"{learner}-seed{seed}"


def hanabi_study(
    out: str | Path,
    settings: TrainSettings,
    seeds: tuple[int, ...] = (0, 1, 2),
    learners: tuple[str, ...] = LEARNERS,
    device: str | None = None,
    progress: bool = False,
    torch_threads: int | None = 1,
) -> dict:
    """Train and evaluate every learner on every seed; write the summary and the figure.

    Args:
        out: The study's folder (rerun with the same folder to resume).
        settings: Settings of every run (its ``learner`` is replaced by each of ``learners``).
        seeds: Run seeds.
        learners: Learners to compare (:data:`agents.bad.train.LEARNERS`).
        device: ``None``/``"auto"``, ``"cpu"`` or ``"cuda"``.
        progress: Show progress bars.
        torch_threads: Torch's CPU threads.

    Returns:
        The summary (the content of ``out/summary.json``).

    Raises:
        TypeError, ValueError: A bad argument; a run folder holding another run.
    """
    if not isinstance(settings, TrainSettings):
        raise type_error("settings", "a TrainSettings", settings)
    seeds = check_int_sequence("seeds", seeds, 0, 2**32 - 1)
    for learner in learners:
        check_choice("learners", learner, LEARNERS)
    results: dict[str, list[dict]] = {}
    for learner in learners:
        s = dataclasses.replace(settings, learner=learner)
        results[learner] = [
            train(s, run_folder(out, learner, seed), seed, device, progress, torch_threads)
            for seed in seeds
        ]
    summary = {
        "preset": settings.preset,
        "seeds": list(seeds),
        "settings": {k: v for k, v in dataclasses.asdict(settings).items() if k != "learner"},
        "eval_seed": EVAL_SEED,
        "learners": {name: _learner_summary(name, runs) for name, runs in results.items()},
    }
    write_json(Path(out) / "summary.json", summary)
    from agents.bad.plot import learning_curves

    learning_curves(
        Path(out) / "learning_curves.png",
        {LEARNER_LABELS[k]: _curve(v) for k, v in results.items()},
        xlabel="moves played in training (all games)",
        ylabel="mean score of the training games",
        title=f"{settings.preset}, 2 players: mean ± s.e.m. over {len(seeds)} seeds "
        f"(hidden {settings.layers}x{settings.hidden})",
    )
    return summary


def _curve(runs: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    steps = np.array([row["steps"] for row in runs[0]["curve"]])
    scores = np.array([[row["mean_score"] for row in r["curve"]] for r in runs])
    return steps, scores


def _learner_summary(name: str, runs: list[dict]) -> dict:
    greedy = np.array([r["greedy"]["mean"] for r in runs])
    final = np.array([r["curve"][-1]["mean_score"] for r in runs])
    wall = np.array([r["train_wall_seconds"] for r in runs])
    return {
        "label": LEARNER_LABELS[name],
        "greedy_per_seed": greedy.tolist(),
        "greedy_mean": float(greedy.mean()),
        "greedy_sem": stats.sem(greedy) if len(greedy) > 1 else float("nan"),
        "greedy_games_per_seed": runs[0]["greedy"]["games"],
        "perfect_per_seed": [r["greedy"]["perfect"] for r in runs],
        "training_final_mean": float(final.mean()),
        "training_final_sem": stats.sem(final) if len(final) > 1 else float("nan"),
        "steps": runs[0]["steps"],
        "train_wall_seconds_per_seed": wall.round(1).tolist(),
        "steps_per_second": float(np.mean([r["steps_per_second"] for r in runs])),
    }

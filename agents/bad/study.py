"""BAD against its baseline on one of HLE's small presets, over seeds (docs/bad.md §2).

:func:`hanabi_study` trains every (learner, seed) run with :func:`agents.bad.train.train` in
``out/<learner>-seed<k>/`` (each resumable), then writes ``out/summary.json`` (per learner: the
greedy and sampled self-play scores of every seed and their mean ± s.e.m. over seeds, the
training score at the end, steps, wall time, throughput) and ``out/learning_curves.png``
(training score against moves, mean ± s.e.m. over seeds).

:func:`belief_cross_entropy` measures how much each belief knows about the real hands while an
agent plays ([BAD19] Figure 4c).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from agents.bad._io import run_lock, write_json
from agents.bad.train import EVAL_SEED, EVALUATIONS, LEARNERS, TrainSettings, train
from hanabi_env import stats
from hanabi_env.seeding import MASTER_SEED_LIMIT
from hanabi_env.validate import check_choice, check_int_sequence, type_error

__all__ = ["LEARNER_LABELS", "belief_cross_entropy", "hanabi_study", "run_folder"]

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
    seeds = check_int_sequence("seeds", seeds, 0, MASTER_SEED_LIMIT - 1)
    for learner in learners:
        check_choice("learners", learner, LEARNERS)
    with run_lock(out):
        return _study(Path(out), settings, seeds, learners, device, progress, torch_threads)


def _study(out: Path, settings, seeds, learners, device, progress, torch_threads) -> dict:
    """:func:`hanabi_study` with the study folder's lock held."""
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
    final = np.array([r["curve"][-1]["mean_score"] for r in runs])
    wall = np.array([r["train_wall_seconds"] for r in runs])
    out: dict = {"label": LEARNER_LABELS[name], "games_per_seed": runs[0]["greedy"]["games"]}
    for kind in EVALUATIONS:
        per_seed = np.array([r[kind]["mean"] for r in runs])
        out[f"{kind}_per_seed"] = per_seed.tolist()
        out[f"{kind}_mean"] = float(per_seed.mean())
        out[f"{kind}_sem"] = stats.sem(per_seed) if len(per_seed) > 1 else float("nan")
        out[f"{kind}_perfect_per_seed"] = [r[kind]["perfect"] for r in runs]
    return {
        **out,
        "training_final_mean": float(final.mean()),
        "training_final_sem": stats.sem(final) if len(final) > 1 else float("nan"),
        "steps": runs[0]["steps"],
        "train_wall_seconds_per_seed": wall.round(1).tolist(),
        "steps_per_second": float(np.mean([r["steps_per_second"] for r in runs])),
    }


def belief_cross_entropy(agent, games: int = 200, seed: int = 0) -> dict:
    """Per-card cross entropy of the V0, V1 and V2 beliefs with the real hands, in self-play.

    ``agent`` (a :class:`agents.bad.policy.BADPolicy`) plays greedy self-play games; before
    every move, each occupied slot of both hands contributes ``-ln B(real card)`` for each
    belief ([BAD19] Figure 4c: the lower, the more the belief knows; V2's gain over V1 is what
    the partners' moves convey beyond the hints). The self-consistent iteration can give the
    real card probability 0 (its counts are clipped at 0); such cards are counted apart and
    left out of the mean.

    Returns:
        ``{"cards": n, "V0": {"nats": mean, "ruled_out": fraction}, "V1": ..., "V2": ...}``.
    """
    from agents.bad.belief import ALPHA, ITERATIONS, belief_v0, self_consistent
    from agents.bad.runner import Games, decide
    from hanabi_env import engine as E
    from hanabi_env.seeding import derive_seed

    table = Games(agent.layout, 1)
    probs: dict[str, list[float]] = {"V0": [], "V1": [], "V2": []}
    for g in range(games):
        table.deal(0, derive_seed(seed, g))
        state = table.states[0]
        while not state.scal[E.S_DONE]:
            ps = table.public
            counts, hm = ps.unseen_counts(), ps.hint_masks()
            v1 = self_consistent(counts, hm, None, ITERATIONS)
            bb = self_consistent(counts, hm, ps.likelihood, ITERATIONS)
            beliefs = {"V0": belief_v0(ps), "V1": v1, "V2": (1 - ALPHA) * bb + ALPHA * v1}
            for p in range(2):
                for k in range(int(state.public.hand_len[p])):
                    card = E.card_of(state, p, k)
                    for name, b in beliefs.items():
                        probs[name].append(float(b[0, p, k, card]))
            actor = table.actors()
            d = decide(ps, actor, agent.net, agent.bayesian, table.partner_combos(actor))
            assert d.action is not None
            table.play(actor, d, d.action)
    out: dict = {"cards": len(probs["V0"])}
    for name, values in probs.items():
        v = np.array(values)
        kept = v[v > 1e-12]
        out[name] = {"nats": float(-np.log(kept).mean()), "ruled_out": float(np.mean(v <= 1e-12))}
    return out

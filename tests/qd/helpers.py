"""Helpers shared by the qd tests."""

from __future__ import annotations

from qd.config import get_config
from qd.ga import GAConfig


def toy_config(candidates: int, random: int, *, games: int, batch: int, every: int, seed: int):
    """The ``quick`` MAP-Elites configuration at toy scale, without re-evaluation.

    ``random`` random candidates first, ``batch`` candidates per batch, a checkpoint every
    ``every`` candidates.
    """
    return get_config(
        "quick",
        candidates=candidates,
        random_candidates=random,
        games=games,
        reeval_games=0,
        batch_size=batch,
        checkpoint_every=every,
        seed=seed,
    )


def tiny_ga(**kw) -> GAConfig:
    """A GA small enough for a unit test; ``kw`` overrides."""
    base = {"population": 4, "generations": 1, "elitism": 1, "tournament": 2, "games": 1}
    return GAConfig(**{**base, "final_top": 1, "final_games": 1, **kw})

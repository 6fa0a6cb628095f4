"""Helpers shared by the qd tests."""

from __future__ import annotations

from qd.config import get_config


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

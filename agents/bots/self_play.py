"""Self-play of one reference bot in the compiled loop, for the evaluation's batches.

docs/bots.md §4. :func:`agents.evaluate.play_games` (and so ``evaluate("smartbot")``,
``hanabi-adhoc evaluate smartbot`` and every batch of games of one bot) asks
:func:`compiled_self_play` whether a batch's policies are all one bot of
:data:`agents.bots.COMPILED_SELF_PLAY`; if so, :func:`play_compiled_self_play` plays the batch in
that bot's compiled loop instead of one Python ``act`` per move: the same moves, scores and
behaviour counters on the same deal seeds (the bots are deterministic, so the seats' seeds do
not matter; ``tests/agents/test_bots_self_play.py`` compares both paths).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

import numpy as np

from agents.bots import BOTS, COMPILED_SELF_PLAY
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig

__all__ = ["compiled_self_play", "play_compiled_self_play"]


def _load(spec: str) -> object:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def compiled_self_play(policies: Sequence[object], config: HanabiConfig) -> str | None:
    """The :data:`~agents.bots.COMPILED_SELF_PLAY` key of a batch of one bot, or None.

    A key when every policy is an instance of exactly one bot class with a compiled loop (not a
    subclass, which may decide otherwise), the game deals seat 0 first
    (``random_start_player`` off, as the loops play) and the bot accepts the game (its
    ``check_game``; when it refuses, the Python path raises the bot's own error).
    """
    if not policies:
        return None
    cls = type(policies[0])
    if any(type(p) is not cls for p in policies) or config.random_start_player:
        return None
    name = f"{cls.__module__}:{cls.__qualname__}"
    key = next((k for k in COMPILED_SELF_PLAY if BOTS.get(k) == name), None)
    if key is None:
        return None
    try:
        policies[0].check_game(config)  # type: ignore[attr-defined]
    except ValueError:
        return None
    return key


def play_compiled_self_play(
    key: str,
    config: HanabiConfig,
    deal_seeds: np.ndarray,
    record_actions: bool = False,
    chunk_size: int = 200,
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray | None]:
    """Play bot ``key`` in every seat, one game per deal seed, in its compiled loop.

    Args:
        key: A :data:`~agents.bots.COMPILED_SELF_PLAY` key (:func:`compiled_self_play`).
        config: The game (one the bot accepts; seat 0 starts).
        deal_seeds: ``(n_games,)`` int64 deal seeds (checked by the caller): the decks
            ``HanabiGame(config).reset(seed)`` deals.
        record_actions: Also return the move uids.
        chunk_size: Games per call of the loop; ``progress`` is called after each.
        progress: Called with the number of games finished after each chunk, or None.

    Returns:
        ``(scores, counters, moves, actions)``: ``(n_games,)`` int64 scores under the
        configuration's scoring, ``(n_games, players, N_COUNTERS)`` float64 behaviour
        counters (docs/rules.md §5), the total number of moves and, when ``record_actions``,
        ``(n_games, max_moves)`` int16 move uids (-1 padded), else None.
    """
    from agents.bots import _games as G

    play = _load(COMPILED_SELF_PLAY[key])
    n = len(deal_seeds)
    scores = np.zeros(n, dtype=np.int64)
    counters = np.zeros((n, config.players, E.N_COUNTERS), dtype=np.float64)
    width = E.max_moves_of(
        config.players, config.colors, config.ranks, config.max_information_tokens
    )
    actions = np.full((n, width), -1, dtype=np.int16)
    moves = 0
    for start in range(0, n, chunk_size):
        c = slice(start, min(n, start + chunk_size))
        decks = G.decks_of_seeds(config, deal_seeds[c])
        sc, ac = play(config, decks, record=True)  # type: ignore[operator]
        actions[c, : ac.shape[1]] = ac
        replayed, counters[c], mv = G.replay_counters(config, decks, actions[c])
        if not np.array_equal(replayed, sc):  # pragma: no cover - a broken loop, not input
            raise RuntimeError(f"{key}'s compiled loop and its replay disagree on a score")
        scores[c] = sc
        moves += mv
        if progress is not None:
            progress(c.stop - c.start)
    return scores, counters, moves, (actions if record_actions else None)

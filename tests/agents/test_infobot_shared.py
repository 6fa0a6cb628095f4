"""InfoBot's self-play loop keeps one shared copy of the knowledge (docs/bots_infobot.md §5).

Every seat holds the same public tables as long as each hat hint encodes the true answers, so
the loop (:func:`agents.bots.infobot_games.play_infobot_games_kernel`) starts each game with one
copy and gives every seat its own from the first move that encodes another sum. These tests
play the same decks with one copy per seat from the deal (``per_seat=True``, the C++ bots' way)
and require the same moves and scores. (No deal of 6,000 per size split the copies during play
in a search on 2026-11-28: only a move that encodes another sum can, such as an empty hint
replaced by another move, docs/bots_infobot.md §4; ``per_seat=True`` plays the per-seat path
from the deal.)
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.infobot_games import infobot_config, play_infobot_games_kernel
from hanabi_env import engine as E
from tests.agents.helpers import oracle as _oracle

DEALS = 300


def _play(players: int, decks: np.ndarray, per_seat: bool):
    """(scores, move uids, games whose copies were split) of the loop on ``decks``."""
    config = infobot_config(players)
    s = E.new_state(config)
    scores = np.zeros(decks.shape[0], dtype=np.int64)
    actions = np.zeros((decks.shape[0], int(s.cfg[E.CFG_MAX_MOVES])), dtype=np.int16)
    decks = np.ascontiguousarray(decks, dtype=np.int32)
    moves, split = play_infobot_games_kernel(s, decks, scores, actions, per_seat)
    assert moves == int((actions >= 0).sum())
    return scores, actions, int(split)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_shared_copy_makes_the_per_seat_moves(players):
    """On the same deals, the shared copy and one copy per seat make every same move."""
    Q = _oracle()
    decks = np.stack([Q.deal(players, seed) for seed in range(DEALS)])
    shared_scores, shared_moves, split = _play(players, decks, per_seat=False)
    seat_scores, seat_moves, all_split = _play(players, decks, per_seat=True)
    assert all_split == DEALS
    assert split < DEALS  # most games never need a copy per seat
    for k in range(DEALS):
        assert shared_moves[k].tolist() == seat_moves[k].tolist(), f"{players}p deal {k}"
    assert shared_scores.tolist() == seat_scores.tolist()

"""The compiled random-game loop (``engine.play_random_games``) plays the games of its docstring.

It is compiled without reference counting (``_nrt=False``): a game replayed from Python with
the same kernels, one move per call, must end with the same score after the same moves.
"""

from __future__ import annotations

import numpy as np
import pytest

from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.rng import rng_seed


def _replay(config: HanabiConfig, seed: int) -> tuple[int, int]:
    """One game of :func:`E.play_random_games`, move by move from Python: (score, moves)."""
    s = E.new_state(config)
    E.reset_state(s, seed, False)
    rng = np.zeros(4, dtype=np.int64)
    rng_seed(rng, seed + 0x5EED)
    mask = np.zeros(int(s.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
    moves = 0
    while not s.scal[E.S_DONE]:
        E.apply_move(s, E.random_legal_action(s, rng, mask))
        moves += 1
    return int(E.score(s)), moves


@pytest.mark.parametrize(
    "config",
    [
        HanabiConfig(players=2),
        HanabiConfig(players=4, hand_size=4, scoring="lenient", hand_order="fixed"),
        HanabiConfig(colors=3, ranks=2, players=3, hand_size=2, max_information_tokens=1),
    ],
)
def test_compiled_loop_plays_the_replayed_games(config):
    s = E.new_state(config)
    n, seed = 25, 1000
    scores = np.full(n, -1, dtype=np.int64)
    moves = E.play_random_games(s, n, seed, scores)
    replays = [_replay(config, seed + g) for g in range(n)]
    assert scores.tolist() == [score for score, _ in replays]
    assert moves == sum(m for _, m in replays)
    assert moves > n  # games of more than one move
    again = np.full(n, -1, dtype=np.int64)
    assert E.play_random_games(E.new_state(config), n, seed, again) == moves
    assert np.array_equal(again, scores)

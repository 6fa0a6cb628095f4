"""Helpers shared by the meta tests: one scripted game, result checks."""

from __future__ import annotations

import numpy as np

import meta.evaluate as ME
from agents.evaluate import game_seeds, play_games
from agents.registry import make
from hanabi_env import HanabiConfig, HanabiGame

CFG = HanabiConfig(players=2, hand_size=5, scoring="lenient")
FIELDS = ("scores", "responses", "beliefs", "partner_counters", "niches")


def play_game(agent, partner, deal, seeds, pid="p", *, end=False, **start):
    """One 2-player game of a meta-agent (seat 0) with a partner on a given deal and seeds.

    Every move must be legal; ``end``: tell the agent the game ended (``end_game``).
    """
    game = HanabiGame(CFG)
    agent.start_game(pid, **start)
    game.reset(int(deal))
    agent.reset(int(seeds[0]))
    partner.reset(int(seeds[1]))
    while not game.is_terminal:
        cur = game.current_player
        a = int((agent, partner)[cur].act(game.view(cur)))
        assert game.legal_mask()[a] == 1
        game.step(a)
    if end:
        agent.end_game(game.view(0))
    return game


def assert_identical(a, b, variants):
    """Two :class:`meta.MetaEvaluation` agree exactly (values and dtypes) for ``variants``."""
    for v in variants:
        for f in FIELDS:
            x, y = getattr(a, f).get(v), getattr(b, f).get(v)
            assert (x is None) == (y is None), (v, f)
            if x is not None:
                assert x.dtype == y.dtype, (v, f)
                np.testing.assert_array_equal(x, y, err_msg=f"{v} {f}")


def forbid(monkeypatch, name):
    """Make ``meta.evaluate.<name>`` raise if called (to prove which path a call takes)."""

    def boom(*args, **kwargs):
        raise AssertionError(f"{name} must not be called")

    monkeypatch.setattr(ME, name, boom)


def generalist_games(table, pool, partner="iggi", games=3, seed=8):
    """The table's generalist response and ``partner`` played directly on seeded deals.

    Returns ``(deals, seeds, generalist index, play_games result)``.
    """
    _, deals, seeds = game_seeds(seed, games, 2, random_seat=False)
    r = table.generalist()
    direct = play_games([pool[r], make(partner)], np.tile([0, 1], (games, 1)), deals, seeds, CFG)
    return deals, seeds, r, direct

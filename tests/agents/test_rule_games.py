"""agents.rule_games: the compiled rule-game loop's Python entries (table, chunks, early stop)."""

from __future__ import annotations

import numpy as np

from agents.evaluate import game_seeds
from agents.rule_games import kernel_scratch, play_rule_chunk, play_rule_table, rule_table
from agents.rulebase import BASELINES
from agents.rules import reference as RR
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig

CFG = HanabiConfig(players=2, scoring="lenient")


def _games(n: int):
    _, deals, agent_seeds = game_seeds(11, n, 2, random_seat=False)
    table, lens, modes = rule_table([np.array(BASELINES["Piers"]), np.array(BASELINES["IGGI"])])
    seats = np.tile([0, 1], (n, 1)).astype(np.int64)
    return table, lens, modes, seats, deals, agent_seeds


def test_rule_table_drops_repeats_and_pads():
    table, lens, modes = rule_table([[8, 22, 8, 13, 22], [5]])
    assert table.tolist() == [[8, 22, 13], [5, 0, 0]]
    assert lens.tolist() == [3, 1]
    assert modes.tolist() == [RR.MODE_FALLBACK] * 2
    _, _, given = rule_table([[8], [5]], [RR.MODE_END_GAME, RR.MODE_FALLBACK])
    assert given.tolist() == [RR.MODE_END_GAME, RR.MODE_FALLBACK]


def test_kernel_scratch_fits_the_configuration():
    s, mask, tab, rngs = kernel_scratch(CFG)
    assert mask.shape == (int(s.cfg[E.CFG_N_ACTIONS]),)
    assert mask.dtype == np.int8
    assert rngs.shape == (2, 4)
    assert tab.dtype == np.int64


def test_chunk_records_what_the_table_entry_plays():
    table, lens, modes, seats, deals, agent_seeds = _games(6)
    scores, counters, moves = play_rule_table(CFG, table, lens, modes, seats, deals, agent_seeds)
    sc, cn, mv, actions = play_rule_chunk(
        CFG, table, lens, modes, seats, deals, agent_seeds, True, None
    )
    np.testing.assert_array_equal(sc, scores)
    np.testing.assert_array_equal(cn, counters)
    assert mv == moves == int((actions >= 0).sum())
    assert actions.dtype == np.int16
    assert actions.shape[0] == 6
    _, _, _, none = play_rule_chunk(CFG, table, lens, modes, seats, deals, agent_seeds, False, None)
    assert none.shape == (0, 0)


def test_stop_skips_a_group_once_its_answer_is_certain():
    table, lens, modes, seats, deals, agent_seeds = _games(6)
    full, _, full_moves = play_rule_table(CFG, table, lens, modes, seats, deals, agent_seeds)
    group = np.repeat(np.arange(2, dtype=np.int64), 3)  # two groups of three games
    left = np.tile(25 * np.arange(3, 0, -1, dtype=np.int64), 2)
    # group 0 needs nothing (certain before any game); group 1 needs its true total (certain
    # only after its last game)
    need = np.array([0, full[3:].sum()], dtype=np.int64)
    sc, cn, moves = play_rule_table(
        CFG, table, lens, modes, seats, deals, agent_seeds, (group, need, left)
    )
    assert sc[:3].tolist() == [-1, -1, -1]
    assert not cn[:3].any()
    np.testing.assert_array_equal(sc[3:], full[3:])
    assert 0 < moves < full_moves

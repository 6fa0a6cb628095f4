"""No rule writes to the view it decides from.

The compiled evaluator lets the rules read the game state's own public buffer as their packed
view (no per-move copy), so a rule that wrote to its view would change the game. Every rule of
the alphabet (and X1, X2) runs here on packed views of random positions; they must be
unchanged.
"""

from __future__ import annotations

import numpy as np

from agents import rulebase
from agents import rules as R
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame
from hanabi_env.jit import njit
from hanabi_env.rng import new_rng


@njit
def _expanded(packed):
    """The expanded packed view (``expand_view`` is inlined into kernels: call it compiled)."""
    return V.expand_view(packed)


def _unpacked(packed):
    """Copies of the 13 arrays of the expanded packed view (in ``View`` field order)."""
    v = _expanded(packed)
    return tuple(getattr(v, name).copy() for name in V.View._fields)


def test_no_rule_writes_to_its_view():
    rng = np.random.default_rng(7)
    checked = 0
    for players in (2, 3, 4, 5):
        game = HanabiGame(HanabiConfig(players=players, hand_size=5 if players < 4 else 4))
        for g in range(6):
            game.reset(100 * players + g)
            while not game.is_terminal:
                cur = game.current_player
                raw = game.view(cur).raw
                packed = V.pack_view(V.View(*(np.array(a, copy=True) for a in raw)))
                before = packed.copy()
                mask = np.zeros(int(raw.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
                tab = np.zeros(R.scratch_shape(raw.cfg), dtype=np.int64)
                for rule in range(rulebase.N_RULE_IDS):
                    rules = np.array([rule], dtype=np.int64)
                    # the evaluator's entry point, on a packed view as the evaluator's
                    R.choose_action_table(rules, 1, packed, new_rng(rule), mask, tab)
                    checked += 1
                np.testing.assert_array_equal(packed, before)
                # the packed view holds the view: unpacking gives its arrays back
                for name, a in zip(V.View._fields, _unpacked(packed), strict=True):
                    np.testing.assert_array_equal(a, getattr(raw, name))
                game.step(int(rng.choice(game.legal_actions())))
    assert checked > 10_000

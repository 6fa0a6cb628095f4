"""The reference ruleset: rule agents as the Java reference ran them (docs/rules.md §12).

``ruleset="reference"`` plays the papers' agents bug for bug: the fossgalaxy framework v0.2.1
with the Hanabi-Map-Elites rules, as recorded in ``tests/data/reference_traces/``. Most genes
behave in the reference exactly as their corrected kernels (:mod:`agents.rules`) once two
global conventions are in place, which the evaluator sets for reference agents:

* **fixed hand slots** (``CFG_HAND_ORDER = HAND_FIXED``): a new card takes the emptied slot;
* **the Java colour numbering** RED, BLUE, GREEN, ORANGE, WHITE = 0..4, so that the rules'
  ascending colour scans break ties in the Java order. Colours are symmetric in the game, so a
  shuffled deck needs no relabelling; only a recorded Java deck does (the differential tests).

The genes whose reference behaviour differs have their own kernels:
:mod:`agents.rules.ref_play` (the finesse rules 0 and 16, 9, HailMary 41/42, PlayJustHinted
50–66), :mod:`agents.rules.ref_tell` (12, 14, TellUnambiguous 67–77, TellAtLeastNUseless
78–82) and :mod:`agents.rules.ref_mistake` (TellHighProbabilityMistake 83–104). Each
difference is one row of docs/rules.md §12.1.

**Return codes of a reference rule** (beyond a move uid ``>= 0`` and -1, "does not fire"):
:data:`RULE_RAISED` (-2) the Java rule throws; :data:`RULE_NULL` (-3) it fires (``canFire``)
but gives no move; :data:`RULE_REJECTED` (-4) it gives a tell the Java game runner rejects
(a colour tell with a null colour), which ends the game; :data:`RULE_REJECTED_PLAY` (-5) a
play of an emptied slot (rule 9), which ends the game too.

**Agent wrappers** (how a rule list becomes a move, docs/rules.md §12.2):

* :data:`MODE_HISTOGRAM`, Hanabi-Map-Elites' ``HistogramAgent`` (every chromosome agent of the
  papers): the first rule that fires gives the move, even a null one (the game then ends);
  a rule that throws is skipped; when no rule fires, one uniformly random legal move.
* :data:`MODE_PRODUCTION`, the framework's ``ProductionRuleAgent`` (the baselines): a rule
  that gives no move is skipped; when no rule fires, or a rule throws, the agent raises and the
  game ends at the current score.

The choosers return a legal move uid, or an ``END_*`` code telling the game loop to end the
game: :data:`END_RAISED` (nothing of the turn is counted: the reference's ``ReportAgent`` never
saw a move), :data:`END_NULL` and :data:`END_REJECTED_PLAY` (the turn counts as a hint
opportunity when tokens remain), :data:`END_REJECTED` (it counts as a hint given too). See
:func:`count_final_turn`.
"""

from __future__ import annotations

import numpy as np

from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import ref_mistake, ref_play, ref_tell
from agents.rules.dispatch import apply_rule_view, choose_action_table, first_firing_table
from agents.rules.other import draw_legal
from agents.rules.table import (
    N_REF_IDS,
    RULE_DPU_1,
    RULE_NULL,
    RULE_RAISED,
    RULE_REJECTED,
    RULE_REJECTED_PLAY,
)
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel, njit

MODE_FALLBACK = 0
"""Corrected rules; no rule fires: a random legal move (the default, docs/rules.md §2.9)."""
MODE_END_GAME = 1
"""Corrected rules; no rule fires: the game ends (the strict-era emulation)."""
MODE_HISTOGRAM = 2
"""Reference rules in Hanabi-Map-Elites' HistogramAgent (chromosome agents)."""
MODE_PRODUCTION = 3
"""Reference rules in the framework's ProductionRuleAgent (baselines)."""

END_RAISED = -2
END_NULL = -3
END_REJECTED = -4
END_REJECTED_PLAY = -5

_OWNER_PLAY = 1
_OWNER_TELL = 2
_OWNER_MISTAKE = 3


def _owner_table() -> np.ndarray:
    owner = np.zeros(N_REF_IDS, dtype=np.int64)
    for mod, code in (
        (ref_play, _OWNER_PLAY),
        (ref_tell, _OWNER_TELL),
        (ref_mistake, _OWNER_MISTAKE),
    ):
        for g in mod.GENES:
            if owner[g]:
                raise RuntimeError(f"gene {g} has two reference kernels")
            owner[g] = code
    return owner


_OWNER = _owner_table()
REFERENCE_GENES = tuple(int(g) for g in np.flatnonzero(_OWNER))
"""Genes with a reference kernel of their own (the others run their corrected kernel)."""


@inline
def _apply_reference(rule_id, v, rng, tab):
    if rule_id < 0 or rule_id >= N_REF_IDS or v.scal[V.V_DONE] != 0:
        return -1
    owner = _OWNER[rule_id]
    if owner == _OWNER_PLAY:
        a = ref_play.ref_apply(rule_id, v.packed, rng, tab)
        # rule 9's play of an emptied slot: the runner rejects a play, not a tell
        return RULE_REJECTED_PLAY if a == RULE_REJECTED else a
    if owner == _OWNER_TELL:
        return ref_tell.ref_apply(rule_id, v.packed, rng, tab)
    if owner == _OWNER_MISTAKE:
        return ref_mistake.ref_apply(rule_id, v.packed, rng, tab)
    if rule_id == RULE_DPU_1:
        if v.scal[V.V_INFO] >= v.cfg[E.CFG_MAX_INFO]:
            return -1
        if tab[P.TAB_META, 1] == 0:
            P.fill_card_table(v.packed, tab)
        return P.best_own_move(v.packed, tab, P.STAT_USELESS, K.FALSE, K.ONE, K.ONE)
    return apply_rule_view(rule_id, v, rng, tab)


@kernel
def _apply_reference_call(rule_id, pv, rng, tab):
    v = V.expand_view(pv)
    return _apply_reference(rule_id, v, rng, tab)


@kernel
def _choose_reference(rules, n_rules, pv, rng, mask, tab, mode):
    v = V.expand_view(pv)
    tab[P.TAB_META, 1] = 0  # the card table is filled when a rule first needs it
    production = mode == MODE_PRODUCTION
    for i in range(n_rules):
        a = _apply_reference(rules[i], v, rng, tab)
        if a >= 0:
            return a
        if a == RULE_RAISED:
            if production:
                return END_RAISED
        elif a == RULE_NULL:
            if not production:
                return END_NULL
        elif a == RULE_REJECTED:
            return END_REJECTED
        elif a == RULE_REJECTED_PLAY:
            return END_REJECTED_PLAY
    if production:
        return END_RAISED
    a = draw_legal(v, rng, mask)
    return a if a >= 0 else END_RAISED


@njit(inline="always")
def choose_reference_table(rules, n_rules, v, rng, mask, tab, mode):
    """Run a reference rule list in a compiled loop.

    Arguments as :func:`agents.rules.choose_action_table`, plus ``mode``:
    :data:`MODE_HISTOGRAM` or :data:`MODE_PRODUCTION`.

    Returns:
        A legal move uid, or an ``END_*`` code (< 0): the game ends (:func:`count_final_turn`).
    """
    return _choose_reference(rules, n_rules, v, rng, mask, tab, mode)


@njit
def choose_reference(rules, n_rules, v, rng, mask, mode):
    """:func:`choose_reference_table` on a :class:`~hanabi_env.view.View` (allocates a table)."""
    v = K.expanded(v)
    return _choose_reference(rules, n_rules, v.packed, rng, mask, P.new_table(v), mode)


@njit
def apply_reference_gene(rule_id, v, rng):
    """Evaluate one rule in reference mode on a :class:`~hanabi_env.view.View`.

    Returns:
        A legal move uid, -1 (does not fire), or :data:`RULE_RAISED`, :data:`RULE_NULL`,
        :data:`RULE_REJECTED`.
    """
    v = K.expanded(v)
    return _apply_reference_call(rule_id, v.packed, rng, P.new_table(v))


@njit(inline="always")
def count_final_turn(s, code):
    """Count the turn that ended the game with ``code`` as the reference's ReportAgent did.

    :data:`END_NULL`, :data:`END_REJECTED` and :data:`END_REJECTED_PLAY` count a hint
    opportunity when information tokens remain; :data:`END_REJECTED` (a rejected tell) also
    counts a hint given. :data:`END_RAISED` counts nothing. (A rejected play, rule 9 playing an
    emptied slot, never occurred in the recorded games; its play is not counted.)
    """
    if code == END_NULL or code == END_REJECTED or code == END_REJECTED_PLAY:
        cnt = s.counters[s.scal[E.S_CUR]]
        if s.scal[E.S_INFO] > 0:
            cnt[E.C_HINT_OPPORTUNITIES] += 1.0
            if code == END_REJECTED:
                cnt[E.C_HINTS_GIVEN] += 1.0


@njit(inline="always")
def choose_by_mode(rules, n_rules, v, rng, mask, tab, mode):
    """One decision of a rule agent of any mode (``MODE_*``), for compiled game loops.

    Arguments as :func:`agents.rules.choose_action_table`, plus ``mode``. Returns a legal
    move uid, or a negative code when the game ends here: -1 (:data:`MODE_END_GAME`, no rule
    fired) or an ``END_*`` code (reference modes); pass it to :func:`count_final_turn`, then
    end the game.
    """
    if mode == MODE_FALLBACK:
        return choose_action_table(rules, n_rules, v, rng, mask, tab)
    if mode == MODE_END_GAME:
        a = first_firing_table(rules, n_rules, v, rng, tab)
        return a if a >= 0 else -1
    return _choose_reference(rules, n_rules, v, rng, mask, tab, mode)


__all__ = [
    "END_NULL",
    "END_RAISED",
    "END_REJECTED",
    "END_REJECTED_PLAY",
    "MODE_END_GAME",
    "MODE_FALLBACK",
    "MODE_HISTOGRAM",
    "MODE_PRODUCTION",
    "REFERENCE_GENES",
    "RULE_DPU_1",
    "RULE_NULL",
    "RULE_RAISED",
    "RULE_REJECTED",
    "RULE_REJECTED_PLAY",
    "apply_reference_gene",
    "choose_by_mode",
    "choose_reference",
    "choose_reference_table",
    "count_final_turn",
]

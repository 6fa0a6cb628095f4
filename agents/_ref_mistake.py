"""TellHighProbabilityMistake (genes 83–104) as the Java reference ran it (``ruleset="reference"``).

The corrected rule is :func:`agents._rules.rule_tell_high_probability_mistake` (docs/rules.md
§3.2). The reference differs in two ways; the choice of the card (scan order, probabilities,
thresholds, tie-breaks) is the same:

* **Hand size below 5** (4 and 5 players): the playable probabilities are padded to 5 entries
  while the playable mask has one entry per slot, so the slot loop reads past the mask at slot
  4 and throws, on the first scanned player, on every turn with an information token. The rule
  is skipped (:data:`RAISED`).
* **Target.** The hint goes to seat ``i``, the loop *offset* (1..N−1), not to the scanned seat
  ``p = me + i``, about the card in seat ``i``'s hand at the (fixed, Java) slot index chosen in
  ``p``'s hand. Only seat 0 is unaffected. When ``i`` is the actor's own seat, the own card is
  unknown (null): the rule throws unless the owner knows both attributes of that slot, in
  which case it returns nothing; either way it is skipped and later players are not scanned.
  When seat ``i``'s slot is empty (deck exhausted) the rule throws as well.

Once the deck is empty the engine compacts the hands while Java leaves empty slots; a slot
index chosen in one hand is carried to another hand through the cards' Java slots
(:func:`agents._ref_play._java_slot`), reconstructed from the deal and the public history.

Return codes (as every reference kernel): a legal move uid; -1 the rule does not fire; -2 the
Java rule throws (skipped).
"""

from __future__ import annotations

import numpy as np

from agents import _rules as R
from agents._ref_play import _java_slot
from agents._rules import (
    R_P0,
    R_P1,
    R_P2,
    RULE_TABLE,
    TAB_META,
    _card_table,
    _expanded,
    _hand_len,
    _known_colour,
    _known_rank,
    _mistake_slot,
    _new_table,
    _partner_pack,
    _tell_missing,
)
from hanabi_env._engine import CFG_HAND, CFG_PLAYERS
from hanabi_env._jit import njit
from hanabi_env._view import V_DECK, V_DONE, V_INFO, V_SEAT, expand_view

_kernel = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy", _nrt=False)
_inline = njit(inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")

GENES: tuple[int, ...] = tuple(range(83, 105))
FIRST_GENE = 83
LAST_GENE = 104
RAISED = -2
_TRUE = np.bool_(True)
_NO = np.int64(-1)


@_inline
def _slot_at_java(v, p, js):
    """``p``'s (compacted) slot holding Java slot ``js``, or -1 if that Java slot is empty."""
    n = _hand_len(v, p)
    if n == v.cfg[CFG_HAND] or v.scal[V_DECK] > 0:
        return js if js < n else _NO  # no gap yet: slots are the Java slots
    for k in range(n):
        if _java_slot(v, v.uids[p, k]) == js:
            return np.int64(k)
    return _NO


@_kernel
def ref_mistake(pv, tab, false_positive, num, den):
    """TellHighProbabilityMistake(falsePositive, num/den) as the reference ran it."""
    v = expand_view(pv)
    if v.scal[V_DONE] != 0 or v.scal[V_INFO] <= 0:
        return -1  # AbstractTellRule.canFire: no information token
    if v.cfg[CFG_HAND] < 5:
        return RAISED  # the slot loop reads past the playable mask (slot 4)
    if tab[TAB_META, 1] == 0:
        _card_table(v.packed, tab)
    me = v.scal[V_SEAT]
    n_players = v.cfg[CFG_PLAYERS]
    for i in range(1, n_players):
        p = (me + i) % n_players
        tab_t, pack_t = _partner_pack(v, p, tab)
        k = _mistake_slot(v.packed, tab_t, pack_t, p, false_positive != 0, num, den)
        if k < 0:
            continue
        # the hint is about seat i's card at the Java slot chosen in p's hand
        js = k if p == i or v.scal[V_DECK] > 0 else _java_slot(v, v.uids[p, k])
        kk = k if p == i else _slot_at_java(v, i, js)
        if kk < 0:
            return RAISED  # empty slot: null card
        if i == me:  # own card: null, unless both attributes are known (then no move)
            if _known_rank(v, i, kk) < 0 or _known_colour(v, i, kk) < 0:
                return RAISED
            return -1
        return _tell_missing(v, i, kk, _TRUE)
    return -1


@_kernel
def ref_apply(g, pv, rng, tab):
    """The reference behaviour of gene ``g`` (83–104) on the packed view ``pv``."""
    if g < FIRST_GENE or g > LAST_GENE:
        return -1
    row = RULE_TABLE[g]
    return ref_mistake(pv, tab, row[R_P0], row[R_P1], row[R_P2])


@njit
def _apply_dev(g, v, rng):
    v = _expanded(v)
    tab = _new_table(v)
    return ref_apply(g, v.packed, rng, tab)


def apply_rule_dev(rule_id, view, rng) -> int:
    """``compare.py --apply`` entry: the reference genes of this file, else the corrected rules."""
    if FIRST_GENE <= rule_id <= LAST_GENE:
        return int(_apply_dev(np.int64(rule_id), view, rng))
    return int(R.apply_rule(rule_id, view, rng))

"""Tell rules 12, 14 and 67–82 as the Java reference ran them (``ruleset="reference"``).

The corrected rules are in :mod:`agents.rules.tell` (docs/rules.md §3.2). Every rule here is a
framework *tell* rule: it cannot fire without an information token, and its ``canFire`` is
"``execute`` gives a move", so it never fires without a move. Differences from the corrected
rules:

* **TellAnyoneAboutOldestUsefulCard (12).** The running "oldest" age is never updated, so each
  player's *last* playable card (highest slot) is the candidate, told colour first; when its
  owner knows it fully, that player is passed over (even if an earlier playable card is not
  fully known).
* **TellAnyoneAboutUselessCard (14).** The scan stops at the first useless card; when its
  owner knows it fully the rule gives nothing (compiled rule X3).
* **TellUnambiguous (67, 68).** Same choice as the corrected rule, but the collision scans
  read every slot of the target's hand: once the deck is empty the hand has an empty (null)
  slot, and reading its card throws unless the owner's knowledge of that empty slot already
  pins the attribute (the slot keeps receiving negative information from later hints).
* **TellUnambiguous2 (69–71).** Target: the first player holding a playable card. It throws
  with 4-card hands (the padded probability list is indexed against a 4-entry weight array)
  and when the target has an empty slot (the hint enumeration reads every slot's card).
  Scores are the Java doubles ``Σ w_s · (n_s / N_s)`` in slot order, compared strictly from
  an initial best of −100 (no tolerance).
* **TellUnambiguous3 (72–77).** The best score is never updated: every candidate replaces the
  previous one, so the last playable card of the target with an unknown attribute is told,
  its colour if the colour is unknown, else its value; the weights play no part. The colour
  collision scan has no null check: it throws when the target has an empty slot whose colour
  its owner does not know and some playable card's colour is unknown.
* **TellAtLeastNUseless (78–82).** The best count is never raised: the last qualifying
  value hint is kept and any qualifying colour hint replaces it (the last one wins). When no
  hint qualifies the rule still returns a colour hint with a null colour: the runner's
  legality check throws and the game ends (``RULE_REJECTED``). It throws when the target has
  an empty slot.

Return codes as every reference kernel (:mod:`agents.rules.reference`).
"""

from __future__ import annotations

import numpy as np

from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import table as T
from agents.rules.tell import (
    at_least_n_target,
    count_sure_useless,
    rule_tell_first_unknown,
    rule_tell_unambiguous,
    unambiguous2_hint,
)
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel

GENES: tuple[int, ...] = (12, 14, *range(67, 83))
"""The alphabet indices implemented here."""


# =============================================================================================
# Empty (null) slots of the Java hands
# =============================================================================================


@inline
def _gap_unknown(v, p):
    """``(colour unknown, value unknown)`` of ``p``'s empty Java slot, or (False, False).

    Once the deck is empty, a play or discard leaves a null slot (our hand closes it). Each
    player moves once after the last draw, so a hand has at most one such slot, emptied by its
    owner's latest play or discard; its knowledge was reset then (every colour and value
    possible) and every later hint to ``p`` removed the named colour or value from it (the
    empty slot is never touched). An attribute is unknown unless exactly one value remains.
    """
    if not K.has_gap(v, p):
        return False, False
    told_c = K.ZERO
    told_r = K.ZERO
    m = np.int64(v.scal[V.V_N_MOVES]) - 1
    while m >= 0:
        kind = v.hist[m, E.H_KIND]
        if v.hist[m, E.H_ACTOR] == p and (kind == E.PLAY or kind == E.DISCARD):
            break
        if v.hist[m, E.H_TARGET] == p:
            if kind == E.REVEAL_COLOR:
                told_c |= K.ONE << v.hist[m, E.H_COLOR]
            elif kind == E.REVEAL_RANK:
                told_r |= K.ONE << v.hist[m, E.H_RANK]
        m -= 1
    full_c = (K.ONE << v.cfg[E.CFG_COLORS]) - 1
    full_r = (K.ONE << v.cfg[E.CFG_RANKS]) - 1
    return E.popcount(full_c & ~told_c) != 1, E.popcount(full_r & ~told_r) != 1


@inline
def _playable_slots(v, p):
    """Bitmask of ``p``'s slots holding a playable card."""
    out = K.ZERO
    for k in range(K.hand_len(v, p)):
        x = K.card(v, p, k)
        if x >= 0 and K.is_playable(v, x):
            out |= K.ONE << k
    return out


@inline
def _top_slot(slots):
    """The highest slot of the bitmask ``slots`` (-1 if empty)."""
    k = K.NO
    while slots:
        slots >>= 1
        k += 1
    return k


# =============================================================================================
# The rules
# =============================================================================================


@kernel
def ref_oldest_useful(pv):
    """TellAnyoneAboutOldestUsefulCard (12): each player's last playable card, colour first."""
    v = V.expand_view(pv)
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        last = _top_slot(_playable_slots(v, p))
        if last >= 0:
            a = K.tell_missing(v, p, last, K.FALSE)
            if a >= 0:
                return a
    return -1


@kernel
def _unambiguous_target(pv):
    """The first player in turn order holding a playable card not fully known, or -1.

    Also returns whether one of its playable cards has an unknown value / colour.
    """
    v = V.expand_view(pv)
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        slots = _playable_slots(v, p)
        val_unknown = False
        col_unknown = False
        for k in range(K.hand_len(v, p)):
            if (slots >> k) & 1:
                val_unknown |= K.known_rank(v, p, k) < 0
                col_unknown |= K.known_colour(v, p, k) < 0
        if val_unknown or col_unknown:
            return np.int64(p), val_unknown, col_unknown
    return K.NO, False, False


@kernel
def ref_unambiguous(pv, mode):
    """TellUnambiguous (67: ``mode`` 0, 68: 1), raising on a null slot of the target."""
    v = V.expand_view(pv)
    p, val_unknown, col_unknown = _unambiguous_target(v.packed)
    if p < 0:
        return -1
    g_col, g_val = _gap_unknown(v, p)
    if (val_unknown and g_val) or (col_unknown and g_col):
        return T.RULE_RAISED  # a collision scan reads the null card
    return rule_tell_unambiguous(v.packed, mode, K.ZERO, K.ZERO)


@kernel
def ref_unambiguous3(pv):
    """TellUnambiguous3 (72–77): the last candidate of the target (weights unused)."""
    v = V.expand_view(pv)
    p, _, col_unknown = _unambiguous_target(v.packed)
    if p < 0:
        return -1
    g_col, _ = _gap_unknown(v, p)
    if col_unknown and g_col:
        return T.RULE_RAISED  # the colour collision scan reads the null card
    slots = _playable_slots(v, p)
    last = K.NO
    for k in range(K.hand_len(v, p)):
        if (slots >> k) & 1 and not K.fully_known(v, p, k):
            last = np.int64(k)
    return K.tell_missing(v, p, last, K.FALSE)  # colour if unknown, else value


@kernel
def ref_unambiguous2(pv, tab, w_p, w_u):
    """TellUnambiguous2(wP, wU) (69–71) as the reference ran it."""
    v = V.expand_view(pv)
    cm, rm = P.mask_buffers(v, tab)
    t = P.first_holding(v, tab, np.int64(P.CLS_PLAYABLE))
    if t < 0:
        return -1
    if v.cfg[E.CFG_HAND] < 5 or K.has_gap(v, t):
        return T.RULE_RAISED  # weight array overrun (4-card hands) / null card in the scan
    tab_t, pack_t = P.partner_pack(v, t, tab)
    best = unambiguous2_hint(v.packed, tab_t, pack_t, t, cm, rm, w_p, w_u, K.TRUE)
    return K.hint_action(v, t, best) if best >= 0 else -1


@kernel
def ref_at_least_n_useless(pv, tab, n_min):
    """TellAtLeastNUseless(N) (78–82) as the reference ran it (the corrected rule's target)."""
    v = V.expand_view(pv)
    cm, rm = P.mask_buffers(v, tab)
    t = at_least_n_target(v.packed, tab, cm, rm)
    if t < 0:
        return -1
    if K.has_gap(v, t):
        return T.RULE_RAISED  # the hint scan reads the null card
    pack_t = tab[P.TAB_PACK_T]
    n = K.hand_len(v, t)
    n_ranks = v.cfg[E.CFG_RANKS]
    last_value = K.NO
    last_colour = K.NO
    for j in range(n_ranks + v.cfg[E.CFG_COLORS]):
        if K.simulate_hint_masks(v.packed, t, j, cm, rm) == 0:
            continue
        if count_sure_useless(pack_t, cm, rm, n) >= n_min:
            if j < n_ranks:
                last_value = np.int64(j)
            else:
                last_colour = np.int64(j - n_ranks)
    if last_colour >= 0:
        return K.tell_colour(v, t, last_colour)
    if last_value >= 0:
        return K.tell_value(v, t, last_value)
    return T.RULE_REJECTED  # a colour hint with a null colour


@kernel
def ref_apply(g, pv, rng, tab):
    """The reference behaviour of gene ``g`` (one of :data:`GENES`) on the packed view ``pv``."""
    v = V.expand_view(pv)
    if v.scal[V.V_DONE] != 0 or v.scal[V.V_INFO] <= 0:
        return -1  # AbstractTellRule.canFire: no information token
    if g == 12:
        return ref_oldest_useful(v.packed)
    if g == 14:  # X3: stops at the first useless card
        return rule_tell_first_unknown(v.packed, K.ZERO, K.ONE)
    if g < 67 or g > 82:
        return -1
    row = T.RULE_TABLE[g]
    cls = row[T.R_CLASS]
    if cls == T.C_UNAMBIGUOUS and g <= 68:
        return ref_unambiguous(v.packed, row[T.R_P0])
    if cls == T.C_UNAMBIGUOUS:
        return ref_unambiguous3(v.packed)
    if tab[P.TAB_META, 1] == 0:
        P.fill_card_table(v.packed, tab)
    if cls == T.C_UNAMBIGUOUS2:
        return ref_unambiguous2(v.packed, tab, np.float64(row[T.R_P0]), np.float64(row[T.R_P1]))
    if cls == T.C_AT_LEAST_N_USELESS:
        return ref_at_least_n_useless(v.packed, tab, row[T.R_P0])
    return -1

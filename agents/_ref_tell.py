"""Tell rules 12, 14 and 67–82 as the Java reference ran them (``ruleset="reference"``).

The corrected rules are in :mod:`agents._rules` (docs/rules.md §3.2). Every rule here is a
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
  legality check throws and the game ends (:data:`REJECTED`). It throws when the target has an
  empty slot.

Return codes (as every reference kernel): a legal move uid; -1 the rule does not fire; -2 the
Java rule throws (skipped, :data:`RAISED`); -4 a move the Java runner rejects
(:data:`REJECTED`).
"""

from __future__ import annotations

import numpy as np

from agents import _rules as R
from agents._rules import (
    C_AT_LEAST_N_USELESS,
    C_UNAMBIGUOUS,
    C_UNAMBIGUOUS2,
    CLS_PLAYABLE,
    CLS_USELESS,
    R_CLASS,
    R_P0,
    R_P1,
    RULE_TABLE,
    TAB_CLASS,
    TAB_META,
    _card,
    _card_table,
    _count_sure_useless,
    _expanded,
    _fully_known,
    _hand_len,
    _has_class,
    _is_playable,
    _known_colour,
    _known_rank,
    _mask_buffers,
    _new_table,
    _packed_counts,
    _partner_pack,
    _simulate_hint,
    _tell_colour,
    _tell_hint,
    _tell_missing,
    _tell_value,
    rule_tell_unambiguous,
    rule_tell_useless,
)
from hanabi_env._engine import (
    CFG_COLORS,
    CFG_HAND,
    CFG_PLAYERS,
    CFG_RANKS,
    DISCARD,
    H_ACTOR,
    H_COLOR,
    H_KIND,
    H_RANK,
    H_TARGET,
    PLAY,
    REVEAL_COLOR,
    REVEAL_RANK,
    popcount,
)
from hanabi_env._jit import njit
from hanabi_env._view import V_DECK, V_DONE, V_INFO, V_N_MOVES, V_SEAT, expand_view

_kernel = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy", _nrt=False)
_inline = njit(inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")

GENES: tuple[int, ...] = (12, 14, *range(67, 83))
RAISED = -2
REJECTED = -4
_NO = np.int64(-1)
_ZERO = np.int64(0)
_FALSE = np.bool_(False)
_JAVA = np.int64(1)


# =============================================================================================
# Empty (null) slots of the Java hands
# =============================================================================================


@_inline
def _gap_unknown(v, p):
    """``(colour unknown, value unknown)`` of ``p``'s empty Java slot, or (False, False).

    Once the deck is empty, a play or discard leaves a null slot (our hand closes it). Each
    player moves once after the last draw, so a hand has at most one such slot, emptied by its
    owner's latest play or discard; its knowledge was reset then (every colour and value
    possible) and every later hint to ``p`` removed the named colour or value from it (the
    empty slot is never touched). An attribute is unknown unless exactly one value remains.
    """
    if v.scal[V_DECK] > 0 or _hand_len(v, p) >= v.cfg[CFG_HAND]:
        return False, False
    told_c = _ZERO
    told_r = _ZERO
    m = np.int64(v.scal[V_N_MOVES]) - 1
    while m >= 0:
        kind = v.hist[m, H_KIND]
        if v.hist[m, H_ACTOR] == p and (kind == PLAY or kind == DISCARD):
            break
        if v.hist[m, H_TARGET] == p:
            if kind == REVEAL_COLOR:
                told_c |= np.int64(1) << v.hist[m, H_COLOR]
            elif kind == REVEAL_RANK:
                told_r |= np.int64(1) << v.hist[m, H_RANK]
        m -= 1
    full_c = (np.int64(1) << v.cfg[CFG_COLORS]) - 1
    full_r = (np.int64(1) << v.cfg[CFG_RANKS]) - 1
    return popcount(full_c & ~told_c) != 1, popcount(full_r & ~told_r) != 1


@_inline
def _has_gap(v, p):
    return v.scal[V_DECK] == 0 and _hand_len(v, p) < v.cfg[CFG_HAND]


# =============================================================================================
# The rules
# =============================================================================================


@_kernel
def ref_oldest_useful(pv):
    """TellAnyoneAboutOldestUsefulCard (12): each player's last playable card, colour first."""
    v = expand_view(pv)
    n_players = v.cfg[CFG_PLAYERS]
    me = v.scal[V_SEAT]
    for i in range(1, n_players):
        p = (me + i) % n_players
        last = _NO
        for k in range(_hand_len(v, p)):
            card = _card(v, p, k)
            if card >= 0 and _is_playable(v, card):
                last = np.int64(k)
        if last >= 0:
            a = _tell_missing(v, p, last, _FALSE)
            if a >= 0:
                return a
    return -1


@_kernel
def _unambiguous_target(pv):
    """The first player in turn order holding a playable card not fully known, or -1.

    Also returns whether one of its playable cards has an unknown value / colour.
    """
    v = expand_view(pv)
    n_players = v.cfg[CFG_PLAYERS]
    me = v.scal[V_SEAT]
    for i in range(1, n_players):
        p = (me + i) % n_players
        val_unknown = False
        col_unknown = False
        for k in range(_hand_len(v, p)):
            card = _card(v, p, k)
            if card >= 0 and _is_playable(v, card):
                if _known_rank(v, p, k) < 0:
                    val_unknown = True
                if _known_colour(v, p, k) < 0:
                    col_unknown = True
        if val_unknown or col_unknown:
            return np.int64(p), val_unknown, col_unknown
    return _NO, False, False


@_kernel
def ref_unambiguous(pv, mode):
    """TellUnambiguous (67: ``mode`` 0, 68: 1), raising on a null slot of the target."""
    v = expand_view(pv)
    p, val_unknown, col_unknown = _unambiguous_target(v.packed)
    if p < 0:
        return -1
    g_col, g_val = _gap_unknown(v, p)
    if (val_unknown and g_val) or (col_unknown and g_col):
        return RAISED  # a collision scan reads the null card
    return rule_tell_unambiguous(v.packed, mode, _ZERO, _ZERO)


@_kernel
def ref_unambiguous3(pv):
    """TellUnambiguous3 (72–77): the last candidate of the target (weights unused)."""
    v = expand_view(pv)
    p, _, col_unknown = _unambiguous_target(v.packed)
    if p < 0:
        return -1
    g_col, _ = _gap_unknown(v, p)
    if col_unknown and g_col:
        return RAISED  # the colour collision scan reads the null card
    last = _NO
    for k in range(_hand_len(v, p)):
        card = _card(v, p, k)
        if card >= 0 and _is_playable(v, card) and not _fully_known(v, p, k):
            last = np.int64(k)
    return _tell_missing(v, p, last, _FALSE)  # colour if unknown, else value


@_kernel
def _java_score(pv, tab_t, pack_t, t, cm, rm, w_p, w_u):
    """TellUnambiguous2's double score Σ_s w_s · (n_play / n) in slot order, as Java sums it."""
    v = expand_view(pv)
    score = 0.0
    for k in range(_hand_len(v, t)):
        card = _card(v, t, k)
        total, n_play, _, _ = _packed_counts(pack_t, cm[k], rm[k])
        w = w_p if tab_t[TAB_CLASS, card] & CLS_PLAYABLE else w_u
        prob = np.float64(n_play) / np.float64(total)
        score += w * prob
    return score


@_kernel
def ref_unambiguous2(pv, tab, w_p, w_u):
    """TellUnambiguous2(wP, wU) (69–71) as the reference ran it."""
    v = expand_view(pv)
    cm, rm = _mask_buffers(v, tab)
    n_players = v.cfg[CFG_PLAYERS]
    me = v.scal[V_SEAT]
    for i in range(1, n_players):
        t = (me + i) % n_players
        if not _has_class(v, tab, t, np.int64(CLS_PLAYABLE)):
            continue
        if v.cfg[CFG_HAND] < 5 or _has_gap(v, t):
            return RAISED  # weight array overrun (4-card hands) / null card in the hint scan
        tab_t, pack_t = _partner_pack(v, t, tab)
        best = _NO
        best_score = -100.0
        for j in range(v.cfg[CFG_RANKS] + v.cfg[CFG_COLORS]):
            if _simulate_hint(v.packed, t, j, cm, rm) == 0:
                continue
            score = _java_score(v.packed, tab_t, pack_t, t, cm, rm, w_p, w_u)
            if score > best_score:
                best = j
                best_score = score
        if best < 0:
            return -1
        return _tell_hint(v, t, best)
    return -1


@_kernel
def ref_at_least_n_useless(pv, tab, n_min):
    """TellAtLeastNUseless(N) (78–82) as the reference ran it."""
    v = expand_view(pv)
    cm, rm = _mask_buffers(v, tab)
    n_players = v.cfg[CFG_PLAYERS]
    n_ranks = v.cfg[CFG_RANKS]
    me = v.scal[V_SEAT]
    for i in range(1, n_players):
        t = (me + i) % n_players
        n = _hand_len(v, t)
        if not _has_class(v, tab, t, np.int64(CLS_USELESS)):
            continue
        _, pack_t = _partner_pack(v, t, tab)
        for k in range(n):
            cm[k] = v.col_plaus[t, k]
            rm[k] = v.rank_plaus[t, k]
        if _count_sure_useless(pack_t, cm, rm, n) > 0:
            continue  # the player already knows a useless card
        if _has_gap(v, t):
            return RAISED  # the hint scan reads the null card
        last_value = _NO
        last_colour = _NO
        for j in range(n_ranks + v.cfg[CFG_COLORS]):
            if _simulate_hint(v.packed, t, j, cm, rm) == 0:
                continue
            if _count_sure_useless(pack_t, cm, rm, n) >= n_min:
                if j < n_ranks:
                    last_value = np.int64(j)
                else:
                    last_colour = np.int64(j - n_ranks)
        if last_colour >= 0:
            return _tell_colour(v, t, last_colour)
        if last_value >= 0:
            return _tell_value(v, t, last_value)
        return REJECTED  # a colour hint with a null colour
    return -1


@_kernel
def ref_apply(g, pv, rng, tab):
    """The reference behaviour of gene ``g`` (one of :data:`GENES`) on the packed view ``pv``."""
    v = expand_view(pv)
    if v.scal[V_DONE] != 0 or v.scal[V_INFO] <= 0:
        return -1  # AbstractTellRule.canFire: no information token
    if g == 12:
        return ref_oldest_useful(v.packed)
    if g == 14:
        return rule_tell_useless(v.packed, _JAVA)  # X3: stops at the first useless card
    if g < 67 or g > 82:
        return -1
    row = RULE_TABLE[g]
    cls = row[R_CLASS]
    if cls == C_UNAMBIGUOUS and g <= 68:
        return ref_unambiguous(v.packed, row[R_P0])
    if cls == C_UNAMBIGUOUS:
        return ref_unambiguous3(v.packed)
    if tab[TAB_META, 1] == 0:
        _card_table(v.packed, tab)
    if cls == C_UNAMBIGUOUS2:
        return ref_unambiguous2(v.packed, tab, np.float64(row[R_P0]), np.float64(row[R_P1]))
    if cls == C_AT_LEAST_N_USELESS:
        return ref_at_least_n_useless(v.packed, tab, row[R_P0])
    return -1


@njit
def _apply_dev(g, v, rng):
    v = _expanded(v)
    tab = _new_table(v)
    return ref_apply(g, v.packed, rng, tab)


_GENE_SET = frozenset(GENES)


def apply_rule_dev(rule_id, view, rng) -> int:
    """``compare.py --apply`` entry: the reference genes of this file, else the corrected rules."""
    if rule_id in _GENE_SET:
        return int(_apply_dev(np.int64(rule_id), view, rng))
    return int(R.apply_rule(rule_id, view, rng))

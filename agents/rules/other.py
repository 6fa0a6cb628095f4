"""The other rules (docs/rules.md §3.4): LegalRandom and TryToUnBlock; the random legal move."""

from __future__ import annotations

from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import table as T
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel
from hanabi_env.rng import rng_below


@inline
def draw_legal(v, rng, mask):
    """One uniformly random legal move of the viewer, or -1 (and no draw) if it has none.

    One draw over the ascending legal-move list (docs/rules.md §0.3.3, §2.9): LegalRandom
    and the fallback of a rule list. ``mask``: ``(n_actions,)`` scratch, left holding the
    legal-move mask (:func:`hanabi_env.view.view_legal_mask`).
    """
    n = V.view_legal_mask(v.packed, mask)
    if n == 0:
        return -1
    return E.nth_legal(mask, rng_below(rng, n))


@kernel
def rule_legal_random(pv, rng, tab):
    """LegalRandom (39): one draw over the ascending legal-move list; -1 (no draw) if empty."""
    v = V.expand_view(pv)
    return draw_legal(v, rng, tab[P.TAB_MASK, : v.cfg[E.CFG_N_ACTIONS]])


@kernel
def _unblocking_slot(pv, p):
    """Step 1 of TryToUnBlock from ``p``'s knowledge (docs/rules.md §3.4).

    Returns the slot to discard (>= 0), ``-2 - slot`` to play (a known 5 whose colour is at 4),
    or -1 if none.
    """
    v = V.expand_view(pv)
    top = v.cfg[E.CFG_RANKS] - 1
    for k in range(K.hand_len(v, p)):
        if K.knows_safe(v, p, k):
            return k
        c = K.known_colour(v, p, k)
        if c >= 0 and K.known_rank(v, p, k) == top and v.fireworks[c] == top:
            return -2 - k
    return -1


@kernel
def _is_blocked(pv, p):
    """Whether ``p`` knows no card safe to discard (with T < T_max) nor playable."""
    v = V.expand_view(pv)
    can_discard = v.scal[V.V_INFO] < v.cfg[E.CFG_MAX_INFO]
    for k in range(K.hand_len(v, p)):
        if can_discard and K.knows_safe(v, p, k):
            return False
        c = K.known_colour(v, p, k)
        if c >= 0 and K.known_rank(v, p, k) == v.fireworks[c]:
            return False
    return True


@kernel
def rule_try_to_unblock(pv):
    """TryToUnBlock (40): only at T = 0 (docs/rules.md §3.4)."""
    v = V.expand_view(pv)
    if v.scal[V.V_INFO] != 0:
        return -1
    mine = _unblocking_slot(v.packed, v.scal[V.V_SEAT])
    if mine == -1:
        return -1
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        if _is_blocked(v.packed, p):
            return K.discard(v, mine) if mine >= 0 else K.play(v, -2 - mine)
        if _unblocking_slot(v.packed, p) != -1:
            return -1
    return -1


@inline
def apply_other(v, rng, tab, row):
    """Run the rule of kind "other" of rule-table row ``row`` for the view ``v``."""
    if row[T.R_CLASS] == T.C_LEGAL_RANDOM:
        return rule_legal_random(v.packed, rng, tab)
    return rule_try_to_unblock(v.packed)  # C_UNBLOCK

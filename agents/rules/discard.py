"""The discard rules (docs/rules.md §3.3) and their dispatch by rule class."""

from __future__ import annotations

import numpy as np

from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import table as T
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel
from hanabi_env.rng import rng_below

_KNOWN_SAFE = np.int64(T.KNOWN_SAFE)


@kernel
def rule_discard_known(pv, test):
    """Discard my lowest slot whose knowledge passes ``test`` (``table.KNOWN_*``).

    DiscardSafeCard (35): knowsSafe; DiscardIfCertain (25): both attributes known and the
    value at most the height (already played); DiscardOldestNoInfoFirst (28) ≡
    DiscardUnidentifiedCard (36): neither attribute known (docs/rules.md §3.3).
    """
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    for k in range(K.hand_len(v, me)):
        c = K.known_colour(v, me, k)
        r = K.known_rank(v, me, k)
        if test == T.KNOWN_SAFE:
            hit = K.safe_to_discard(v, c, r)
        elif test == T.KNOWN_PLAYED:
            hit = c >= 0 and r >= 0 and r < v.fireworks[c]
        else:
            hit = c < 0 and r < 0
        if hit:
            return K.discard(v, k)
    return -1


@kernel
def _least_candidate_rank(pv, tab, c, rm):
    """The lowest rank ``r`` in mask ``rm`` with (c, r) in the pool of ``tab``; -1 if none."""
    v = V.expand_view(pv)
    n_ranks = v.cfg[E.CFG_RANKS]
    for r in range(n_ranks):
        if (rm >> r) & 1 and tab[P.TAB_COUNT, c * n_ranks + r] > 0:
            return r
    return -1


@kernel
def rule_discard_useless(pv, tab):
    """DiscardUselessCard (37): discard a known-colour slot that is out of reach.

    The slot's value (known, or else the least candidate value) is beyond maxReachable of
    its colour (docs/rules.md §3.3).
    """
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    for k in range(K.hand_len(v, me)):
        c = K.known_colour(v, me, k)
        if c < 0:
            continue
        r = K.known_rank(v, me, k)
        if r < 0:
            r = _least_candidate_rank(v.packed, tab, c, np.int64(v.rank_plaus[me, k]))
        if r >= 0 and r >= K.max_reachable(v, c):
            return K.discard(v, k)
    return -1


@kernel
def rule_discard_highest(pv):
    """DiscardHighest (24): the highest known value, ties → lowest slot."""
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    best = K.NO
    best_r = K.NO
    for k in range(K.hand_len(v, me)):
        if K.own_slot_end(v, k):
            break
        r = K.known_rank(v, me, k)
        if r > best_r:
            best = k
            best_r = r
    return K.discard(v, best) if best >= 0 else -1


@kernel
def rule_discard_randomly(pv, rng):
    """DiscardRandomly (34, random): Discard(x), x uniform in [0, |hand|) (docs/rules.md §2.9)."""
    v = V.expand_view(pv)
    h = K.hand_len(v, v.scal[V.V_SEAT])
    if h == 0:
        return -1
    return K.discard(v, rng_below(rng, h))


@inline
def apply_discard(v, rng, tab, row):
    """Run the discard rule of rule-table row ``row`` for the view ``v`` (gates already open)."""
    # An if-chain over the classes: a compiled kernel cannot call through a table of functions.
    cls = row[T.R_CLASS]
    if cls == T.C_DISCARD_KNOWN:
        return rule_discard_known(v.packed, row[T.R_P0])
    if cls == T.C_DISCARD_OLDEST:
        k = K.age_slot(v, v.scal[V.V_SEAT], K.FALSE)
        return K.discard(v, k) if k >= 0 else -1
    if cls == T.C_DISCARD_HIGHEST:
        return rule_discard_highest(v.packed)
    if cls == T.C_DISCARD_LEAST_NECESSARY:
        return P.best_own_move(v.packed, tab, P.STAT_NECESSARY, K.TRUE, K.ZERO, K.ONE)
    if cls == T.C_DISCARD_PROBABLY_USELESS:
        return P.best_own_move(v.packed, tab, P.STAT_USELESS, K.FALSE, row[T.R_P0], row[T.R_P1])
    if cls == T.C_DISCARD_RANDOMLY:
        return rule_discard_randomly(v.packed, rng)
    if cls == T.C_OSAWA_DISCARD:
        a = rule_discard_known(v.packed, _KNOWN_SAFE)
        if a >= 0:
            return a
    return rule_discard_useless(v.packed, tab)  # C_DISCARD_USELESS, OsawaDiscard's second step

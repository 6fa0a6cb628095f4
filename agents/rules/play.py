"""The play rules (docs/rules.md §3.1) and their dispatch by rule class."""

from __future__ import annotations

from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import table as T
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel


@kernel
def rule_play_finesse(pv):
    """PlayFinesse (0), v0.2.4 semantics (docs/rules.md §3.1)."""
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    m = v.scal[V.V_N_MOVES] - 1
    nxt = K.next_player(v)
    if v.cfg[E.CFG_PLAYERS] == 2 or m < 0 or K.hand_len(v, me) == 0:
        return -1
    if not K.is_hint_to(v, m, nxt):
        return -1
    if finesse_target(v, nxt, K.touched_slots(v, m, nxt, K.FALSE)):
        return K.play(v, K.hand_len(v, me) - 1)
    return -1


@inline
def finesse_target(v, p, slots):
    """Whether a card in ``p``'s slots of bitmask ``slots`` is one rank above playable."""
    n_ranks = v.cfg[E.CFG_RANKS]
    for k in range(K.hand_len(v, p)):
        if (slots >> k) & 1:
            x = K.card(v, p, k)
            if x % n_ranks == v.fireworks[x // n_ranks] + 1:
                return True
    return False


@kernel
def rule_play_finesse_told(pv):
    """PlayFinesseTold (1), v0.2.4 semantics (docs/rules.md §3.1)."""
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    m = v.scal[V.V_N_MOVES] - 1
    if v.cfg[E.CFG_PLAYERS] == 2 or m < 1 or v.hist[m, E.H_KIND] != E.PLAY:
        return -1
    if not K.is_hint_to(v, m - 1, me) or E.popcount(v.hist[m - 1, E.H_TOUCHED]) != 1:
        return -1
    k = K.slot_of_uid(v, me, v.hist_uids[m - 1, 0])
    return K.play(v, k) if k >= 0 else -1


@kernel
def rule_play_sure(pv, tab, counting):
    """Play my lowest slot known to be playable (docs/rules.md §3.1).

    PlayIfCertain (2, ``counting`` false): known playable by colour and value. PlaySafeCard
    (8, and X1 with L <= 1; ``counting`` true): by card counting, P_me(playable) = 1 (``tab``:
    the viewer's scratch table, card table filled).
    """
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    for k in range(K.hand_len(v, me)):
        if counting:
            total, n_play, _, _ = P.own_counts(v, tab, k)
            sure = total > 0 and n_play == total
        else:
            c = K.known_colour(v, me, k)
            sure = c >= 0 and K.known_rank(v, me, k) == v.fireworks[c]
        if sure:
            return K.play(v, k)
    return -1


@kernel
def rule_play_unique_possible(pv, tab):
    """PlayUniquePossibleCard (9), with height + 1 and card identity (docs/rules.md §3.1)."""
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    n_ranks = v.cfg[E.CFG_RANKS]
    for m in range(v.scal[V.V_N_MOVES] - 1, -1, -1):
        if not K.is_hint_to(v, m, me) or E.popcount(v.hist[m, E.H_TOUCHED]) != 1:
            continue
        k = K.slot_of_uid(v, me, v.hist_uids[m, 0])
        if k < 0:
            continue
        if v.hist[m, E.H_KIND] == E.REVEAL_COLOR:
            c = v.hist[m, E.H_COLOR]
            h = v.fireworks[c]
            if h < n_ranks and tab[P.TAB_COUNT, c * n_ranks + h] > 0:
                return K.play(v, k)
            continue
        r = v.hist[m, E.H_RANK]
        for c in range(v.cfg[E.CFG_COLORS]):
            if v.fireworks[c] == r and tab[P.TAB_COUNT, c * n_ranks + r] > 0:
                return K.play(v, k)
    return -1


@inline
def mark_recent_hints(v, singled_out, java):
    """Bitmask of my slots touched by a recent hint (PlayJustHinted steps 1–2).

    The hints to me since my previous move (hints touching one card only if
    ``singled_out``); ``java``: their Java slots (:func:`~agents.rules.knowledge.java_slot`),
    else my current slots still holding the touched cards.
    """
    me = v.scal[V.V_SEAT]
    out = K.ZERO
    for m in range(v.scal[V.V_N_MOVES] - 1, -1, -1):
        to_me = K.is_hint_to(v, m, me)
        if v.hist[m, E.H_ACTOR] != me and not to_me:
            break
        if not to_me or (singled_out and E.popcount(v.hist[m, E.H_TOUCHED]) != 1):
            continue
        out |= K.touched_slots(v, m, me, java)
    return out


@inline
def just_hinted_play(v, tab, eligible, newest_only, min_lives, num, den):
    """PlayJustHinted's decision among my slots of bitmask ``eligible`` (the hinted ones).

    The slot with the highest P_me(playable) (only the newest card if ``newest_only``), ties
    → the highest slot; played if certainly playable, or if P >= num/den and L > minLives.
    """
    if newest_only != 0:
        newest = K.age_slot(v, v.scal[V.V_SEAT], K.TRUE)
        eligible = eligible & (K.ONE << newest) if newest >= 0 else K.ZERO
    best, bg, bt = P.best_own_slot(v.packed, tab, P.STAT_PLAYABLE, K.FALSE, K.ZERO, K.ONE, eligible)
    if best < 0:
        return -1
    if bg == bt or (bg * den >= num * bt and v.scal[V.V_LIFE] > min_lives):
        return K.play(v, best)
    return -1


@kernel
def rule_play_just_hinted(pv, tab, singled_out, newest_only, min_lives, num, den):
    """PlayJustHinted(singledOut, newestOnly, minLives, num/den) (50–66) (docs/rules.md §3.1)."""
    v = V.expand_view(pv)
    eligible = mark_recent_hints(v, singled_out != 0, K.FALSE)
    return just_hinted_play(v, tab, eligible, newest_only, min_lives, num, den)


@inline
def apply_play(v, tab, row):
    """Run the play rule of rule-table row ``row`` for the view ``v`` (gates already open)."""
    # An if-chain over the classes: a compiled kernel cannot call through a table of functions.
    cls = row[T.R_CLASS]
    if cls == T.C_FINESSE:
        return rule_play_finesse(v.packed)
    if cls == T.C_FINESSE_TOLD:
        return rule_play_finesse_told(v.packed)
    # X1 is IF(L>1) PlayProbablySafeCard(0.6) ELSE PlaySafeCard (§4)
    if cls == T.C_IF_CERTAIN or cls == T.C_SAFE or (cls == T.C_X1 and v.scal[V.V_LIFE] <= 1):
        return rule_play_sure(v.packed, tab, cls != T.C_IF_CERTAIN)
    if cls == T.C_UNIQUE_POSSIBLE:
        return rule_play_unique_possible(v.packed, tab)
    if cls == T.C_JUST_HINTED:
        return rule_play_just_hinted(
            v.packed, tab, row[T.R_P0], row[T.R_P1], row[T.R_P2], row[T.R_P3], row[T.R_P4]
        )
    # C_PROBABLY_SAFE, and X1 with L > 1: PlayProbablySafeCard(P0/P1)
    return P.best_own_move(v.packed, tab, P.STAT_PLAYABLE, K.FALSE, row[T.R_P0], row[T.R_P1])

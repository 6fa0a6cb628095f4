"""The tell (hint) rules (docs/rules.md §3.2) and their dispatch by rule class."""

from __future__ import annotations

import numpy as np

from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import table as T
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel
from hanabi_env.rng import rng_below

TOL = 1e-9  # "strictly better" margin for TellUnambiguous2's float scores (docs/rules.md §2.10)


@kernel
def rule_tell_useful(pv, value_first):
    """TellAnyoneAboutUsefulCard (13, value first) / ...OldestUsefulCard (12, colour first).

    A playable card not fully known to its owner, players in turn order (docs/rules.md §3.2): 13
    takes the first such card in slot order, 12 the oldest (smallest uid). Under the shift
    hand order both pick the same card; under the fixed-slot order (the Java framework's)
    they may not.
    """
    v = V.expand_view(pv)
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        best = K.NO
        for k in range(K.hand_len(v, p)):
            if K.is_playable(v, K.card(v, p, k)) and not K.fully_known(v, p, k):
                if value_first != 0 or v.cfg[E.CFG_HAND_ORDER] == E.HAND_SHIFT:
                    return K.tell_missing(v, p, k, value_first != 0)
                if best < 0 or v.uids[p, k] < v.uids[p, best]:
                    best = k
        if best >= 0:
            return K.tell_missing(v, p, best, False)
    return -1


@kernel
def rule_complete_tell_useful(pv):
    """CompleteTellUsefulCard (10): a playable card with exactly one attribute known."""
    v = V.expand_view(pv)
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        for k in range(K.hand_len(v, p)):
            one_known = (K.known_colour(v, p, k) >= 0) != (K.known_rank(v, p, k) >= 0)
            if one_known and K.is_playable(v, K.card(v, p, k)):
                return K.tell_missing(v, p, k, one_known)
    return -1


@kernel
def rule_tell_playable(pv, rng):
    """TellPlayableCard (20, random): hint the next player's lowest-slot playable card.

    One draw (docs/rules.md §2.9): 0 → its value, 1 → its colour (docs/rules.md §3.2).
    """
    v = V.expand_view(pv)
    p = K.next_player(v)
    n_ranks = v.cfg[E.CFG_RANKS]
    for k in range(K.hand_len(v, p)):
        card = K.card(v, p, k)
        if K.is_playable(v, card):
            if rng_below(rng, np.int64(2)) == 0:
                return K.tell_value(v, p, card % n_ranks)
            return K.tell_colour(v, p, card // n_ranks)
    return -1


@kernel
def rule_tell_next_unknown(pv, playable_only, rank, value_first):
    """The next player's lowest card it does not fully know, told by tellMissing (§3.2).

    TellAboutOnes (11: a card of rank 0, value first), TellPlayableCardOuter (21: a playable
    card, value first) and TellUnknown (23: any card, colour first).

    Args:
        pv: the viewer's packed view.
        playable_only: nonzero: only playable cards.
        rank: only cards of this rank (-1: any).
        value_first: tellMissing's order.
    """
    v = V.expand_view(pv)
    p = K.next_player(v)
    n_ranks = v.cfg[E.CFG_RANKS]
    for k in range(K.hand_len(v, p)):
        card = K.card(v, p, k)
        if playable_only != 0 and not K.is_playable(v, card):
            continue
        if (rank < 0 or card % n_ranks == rank) and not K.fully_known(v, p, k):
            return K.tell_missing(v, p, k, value_first != 0)
    return -1


@kernel
def rule_tell_fives(pv):
    """TellFives (17): TellValue(5) to the first player holding a 5 of unknown value."""
    v = V.expand_view(pv)
    top = v.cfg[E.CFG_RANKS] - 1
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        for k in range(K.hand_len(v, p)):
            if K.card(v, p, k) % v.cfg[E.CFG_RANKS] == top and K.known_rank(v, p, k) < 0:
                return K.tell_value(v, p, top)
    return -1


@kernel
def rule_tell_randomly(pv, rng):
    """TellRandomly (22, random): draw x in [0, 2h); slot x // 2, even → value, odd → colour."""
    v = V.expand_view(pv)
    p = K.next_player(v)
    h = K.hand_len(v, p)
    if h == 0:
        return -1
    x = rng_below(rng, 2 * h)
    card = K.card(v, p, x // 2)
    if x % 2 == 0:
        return K.tell_value(v, p, card % v.cfg[E.CFG_RANKS])
    return K.tell_colour(v, p, card // v.cfg[E.CFG_RANKS])


@kernel
def rule_tell_most_information(pv, java):
    """TellMostInformation (19, "in total"): the hint touching most cards, absolute order.

    ``java``: raise (:data:`~agents.rules.table.RULE_RAISED`) if another hand has a gap (X6,
    docs/rules.md §12).
    """
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    if java:
        for p in range(v.cfg[E.CFG_PLAYERS]):
            if p != me and K.has_gap(v, p):
                return T.RULE_RAISED
    best = K.NO
    best_t = K.NO
    best_score = K.ZERO
    for p in range(v.cfg[E.CFG_PLAYERS]):
        if p == me:
            continue
        for i in range(v.cfg[E.CFG_RANKS] + v.cfg[E.CFG_COLORS]):
            score = K.count_touched(v.packed, p, i)
            if score > best_score:
                best_score = score
                best = i
                best_t = p
    return K.hint_action(v, best_t, best) if best >= 0 else -1


@kernel
def rule_tell_first_unknown(pv, usable_test, stop_at_first):
    """TellAnyoneAboutUselessCard (14) and TellIllInformed (18), docs/rules.md §3.2.

    Players in turn order, slots ascending: at the first card that is useless (``usable_test``
    zero) or usable (nonzero) by its actual identity and not fully known to its owner,
    tellMissing(value first); -1 if none. With ``stop_at_first`` (the Java reference's rule
    14, X3) the scan ends at the first useless card, fully known or not.
    """
    v = V.expand_view(pv)
    n_ranks = v.cfg[E.CFG_RANKS]
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        for k in range(K.hand_len(v, p)):
            card = K.card(v, p, k)
            c = card // n_ranks
            r = card % n_ranks
            hit = K.usable(v, c, r) if usable_test != 0 else K.safe_to_discard(v, c, r)
            if hit and not K.fully_known(v, p, k):
                return K.tell_missing(v, p, k, K.TRUE)
            if hit and stop_at_first != 0:
                return -1
    return -1


@kernel
def rule_tell_dispensable(pv, java):
    """TellDispensable (15; 48 under its predicate), absolute order (docs/rules.md §3.2).

    ``java``: raise (:data:`~agents.rules.table.RULE_RAISED`) when the scan reaches another
    player whose hand has a gap (X4/X5, docs/rules.md §12).
    """
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    n_ranks = v.cfg[E.CFG_RANKS]
    low = K.min_height(v)
    for p in range(v.cfg[E.CFG_PLAYERS]):
        if java and p != me and K.has_gap(v, p):
            return T.RULE_RAISED
        for k in range(K.hand_len(v, p)):
            card = K.card(v, p, k)
            if p == me or card < 0:
                break
            c = card // n_ranks
            r = card % n_ranks
            kc = K.known_colour(v, p, k) >= 0
            kr = K.known_rank(v, p, k) >= 0
            if not kc and v.fireworks[c] == n_ranks:
                return K.tell_colour(v, p, c)  # (i)
            if not kr and r < low:
                return K.tell_value(v, p, r)  # (ii)
            if kc != kr and r < v.fireworks[c]:
                return K.tell_missing(v, p, k, kc)  # (iii) the missing attribute
    return -1


@kernel
def _finesse_hint(pv, f, k, n_colour, n_value):
    """Steps (1)–(3) of TellFinesse for ``f``'s slot ``k`` (docs/rules.md §3.2); -1 if none."""
    v = V.expand_view(pv)
    n_ranks = v.cfg[E.CFG_RANKS]
    card = K.card(v, f, k)
    if n_colour == 1 and n_value == 1:
        if K.known_rank(v, f, k) >= 0:
            return K.tell_colour(v, f, card // n_ranks)
        if K.known_colour(v, f, k) >= 0:
            return K.tell_value(v, f, card % n_ranks)
    if n_value == 1:
        return K.tell_value(v, f, card % n_ranks)
    if n_colour == 1:
        return K.tell_colour(v, f, card // n_ranks)
    return -1


@inline
def finesse_tell(v, f, wanted):
    """TellFinesse's hint to seat ``f`` about its card ``wanted`` (steps (1)–(3)), or -1.

    ``f``'s slots holding ``wanted`` in ascending order; the first that gives a hint.
    """
    n_ranks = v.cfg[E.CFG_RANKS]
    n_colour = K.count_touched(v.packed, f, n_ranks + wanted // n_ranks)
    n_value = K.count_touched(v.packed, f, wanted % n_ranks)
    for k in range(K.hand_len(v, f)):
        if K.card(v, f, k) == wanted:
            a = _finesse_hint(v.packed, f, k, n_colour, n_value)
            if a >= 0:
                return a
    return -1


@kernel
def rule_tell_finesse(pv):
    """TellFinesse (16), v0.2.4 semantics (docs/rules.md §3.2)."""
    v = V.expand_view(pv)
    n_ranks = v.cfg[E.CFG_RANKS]
    nxt = K.next_player(v)
    if v.cfg[E.CFG_PLAYERS] == 2 or K.hand_len(v, nxt) == 0:
        return -1
    x = K.card(v, nxt, K.age_slot(v, nxt, K.TRUE))
    if not K.is_playable(v, x) or x % n_ranks == n_ranks - 1:
        return -1
    # the card one rank above, (x.colour, x.value + 1), to the player after next
    return finesse_tell(v, (v.scal[V.V_SEAT] + 2) % v.cfg[E.CFG_PLAYERS], x + 1)


@kernel
def _collisions(pv, p, k, is_colour):
    """(cP, cU) of a TellUnambiguous candidate (docs/rules.md §3.2).

    The other cards of ``p`` the same hint touches and whose same attribute ``p`` does not
    know yet, split into actually playable (cP) and unplayable (cU).
    """
    v = V.expand_view(pv)
    n_ranks = v.cfg[E.CFG_RANKS]
    card = K.card(v, p, k)
    i = n_ranks + card // n_ranks if is_colour else card % n_ranks
    c_play = K.ZERO
    c_unplay = K.ZERO
    for j in range(K.seen_len(v, p)):
        other = K.card(v, p, j)
        known = K.known_colour(v, p, j) if is_colour else K.known_rank(v, p, j)
        if j != k and known < 0 and K.touches(v, other, i):
            if K.is_playable(v, other):
                c_play += 1
            else:
                c_unplay += 1
    return c_play, c_unplay


@kernel
def _unambiguous_better(mode, w_p, w_u, cp, cu, bp, bu):
    """Whether candidate (cp, cu) strictly beats the best so far (bp, bu).

    ``mode`` 0: maximise cP then minimise cU; 1: minimise cU then maximise cP; 2: maximise
    ``w_p * cP + w_u * cU`` (docs/rules.md §3.2, TellUnambiguous / TellUnambiguous3).
    """
    if mode == 0:
        return cp > bp or (cp == bp and cu < bu)
    if mode == 1:
        return cu < bu or (cu == bu and cp > bp)
    return w_p * cp + w_u * cu > w_p * bp + w_u * bu


@kernel
def rule_tell_unambiguous(pv, mode, w_p, w_u):
    """TellUnambiguous (67/68: ``mode`` 0/1) and TellUnambiguous3(wP, wU) (72–77: ``mode`` 2).

    docs/rules.md §3.2. The target is the first player in turn order holding a playable card it
    does not fully know. Candidates, per playable card in ascending slots: its value hint (if
    the value is unknown), then its colour hint (if the colour is unknown). The first
    candidate is accepted; later ones replace it only if strictly better.
    """
    v = V.expand_view(pv)
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        best_k = K.NO
        best_colour = False
        bp = K.ZERO
        bu = K.ZERO
        for k in range(K.hand_len(v, p)):
            if not K.is_playable(v, K.card(v, p, k)):
                continue
            for a in range(2):
                is_colour = a == 1
                known = K.known_colour(v, p, k) if is_colour else K.known_rank(v, p, k)
                if known >= 0:
                    continue
                cp, cu = _collisions(v.packed, p, k, is_colour)
                if best_k < 0 or _unambiguous_better(mode, w_p, w_u, cp, cu, bp, bu):
                    best_k = k
                    best_colour = is_colour
                    bp = cp
                    bu = cu
        if best_k >= 0:
            return K.tell_missing(v, p, best_k, not best_colour)
    return -1


@kernel
def _unambiguous2_score(pv, tab_t, pack_t, t, cm, rm, w_p, w_u, java):
    """Σ_s w(s) · P_{me→t}(playable | s) under the simulated masks (TellUnambiguous2).

    ``java``: the reference's double sum ``Σ w_s · (n_s / N_s)``, every slot read.
    """
    v = V.expand_view(pv)
    score = 0.0
    for k in range(K.hand_len(v, t)):
        card = K.card(v, t, k)
        if card < 0 and not java:
            break
        total, n_play, _, _ = P.packed_counts(pack_t, cm[k], rm[k])
        w = w_p if tab_t[P.TAB_CLASS, card] & P.CLS_PLAYABLE else w_u
        if java:
            prob = np.float64(n_play) / np.float64(total)
            score += w * prob
        elif total > 0:
            score += w * n_play / total
    return score


@kernel
def unambiguous2_hint(pv, tab_t, pack_t, t, cm, rm, w_p, w_u, java):
    """TellUnambiguous2's hint number (docs/rules.md §2.5) for seat ``t``, or -1.

    Every hint that touches a card of ``t`` is simulated (into ``cm``, ``rm``) and scored
    Σ_s w(s) · P_{me→t}(playable | s) with w(s) = wP on actually playable cards, wU otherwise
    (``tab_t``, ``pack_t``: the partner pool U_{me→t}); the first is accepted, later ones only
    if better by more than 1e-9. ``java``: the reference's Java doubles, compared strictly
    from an initial best of −100 (docs/rules.md §12.1).
    """
    v = V.expand_view(pv)
    best = K.NO
    best_score = -100.0 if java else 0.0
    for j in range(v.cfg[E.CFG_RANKS] + v.cfg[E.CFG_COLORS]):
        if K.simulate_hint_masks(v.packed, t, j, cm, rm) == 0:
            continue
        score = _unambiguous2_score(v.packed, tab_t, pack_t, t, cm, rm, w_p, w_u, java)
        if java:
            better = score > best_score
        else:
            better = best < 0 or score > best_score + TOL
        if better:
            best = j
            best_score = score
    return best


@kernel
def rule_tell_unambiguous2(pv, tab, w_p, w_u):
    """TellUnambiguous2(wP, wU) (69–71), any hand size (docs/rules.md §3.2).

    Target: the first player in turn order holding a playable card; its hint of
    :func:`unambiguous2_hint`.
    """
    v = V.expand_view(pv)
    cm, rm = P.mask_buffers(v, tab)
    t = P.first_holding(v, tab, np.int64(P.CLS_PLAYABLE))
    if t < 0:
        return -1
    tab_t, pack_t = P.partner_pack(v, t, tab)
    return K.hint_action(
        v, t, unambiguous2_hint(v.packed, tab_t, pack_t, t, cm, rm, w_p, w_u, K.FALSE)
    )


@kernel
def count_sure_useless(pack_t, cm, rm, n):
    """Number of slots ``< n`` whose P(useless) under ``cm`` / ``rm`` exceeds 0.99."""
    cnt = K.ZERO
    for k in range(n):
        total, _, n_useless, _ = P.packed_counts(pack_t, cm[k], rm[k])
        if total > 0 and n_useless * 100 > 99 * total:
            cnt += 1
    return cnt


@kernel
def at_least_n_target(pv, tab, cm, rm):
    """TellAtLeastNUseless' target (docs/rules.md §3.2), or -1; leaves its packed pool in ``tab``.

    The first player in turn order holding an actually useless card and no slot with
    P_{me→t}(useless) > 0.99 under its current knowledge.
    """
    v = V.expand_view(pv)
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        t = K.turn_order(v, i)
        n = K.hand_len(v, t)
        if not P.has_class(v, tab, t, np.int64(P.CLS_USELESS)):
            continue
        _, pack_t = P.partner_pack(v, t, tab)
        for k in range(n):
            cm[k] = v.col_plaus[t, k]
            rm[k] = v.rank_plaus[t, k]
        if count_sure_useless(pack_t, cm, rm, n) == 0:
            return t
    return -1


@kernel
def rule_tell_at_least_n_useless(pv, tab, n_min):
    """TellAtLeastNUseless(N) (78–82) (docs/rules.md §3.2).

    The hint to the target leaving the most slots with P_{me→t}(useless) > 0.99 is told if
    that number is at least ``n_min`` (first wins ties); otherwise the rule does not fire.
    """
    v = V.expand_view(pv)
    cm, rm = P.mask_buffers(v, tab)
    t = at_least_n_target(v.packed, tab, cm, rm)
    if t < 0:
        return -1
    pack_t = tab[P.TAB_PACK_T]
    best = K.NO
    best_cnt = K.ZERO
    for j in range(v.cfg[E.CFG_RANKS] + v.cfg[E.CFG_COLORS]):
        if K.simulate_hint_masks(v.packed, t, j, cm, rm) == 0:
            continue
        cnt = count_sure_useless(pack_t, cm, rm, K.hand_len(v, t))
        if cnt >= n_min and cnt > best_cnt:
            best = j
            best_cnt = cnt
    return K.hint_action(v, t, best) if best >= 0 else -1


@kernel
def mistake_slot(pv, tab_t, pack_t, p, false_positive, num, den):
    """The slot TellHighProbabilityMistake picks in ``p``'s hand, or -1 (docs/rules.md §3.2)."""
    v = V.expand_view(pv)
    best = K.NO
    bg = K.ZERO
    bt = K.ONE
    for k in range(K.seen_len(v, p)):
        card = K.card(v, p, k)
        t, g, _, _ = P.packed_counts(
            pack_t, np.int64(v.col_plaus[p, k]), np.int64(v.rank_plaus[p, k])
        )
        if t == 0 or (tab_t[P.TAB_CLASS, card] & P.CLS_PLAYABLE != 0) == false_positive:
            continue
        if false_positive:  # P >= num/den, highest P, ties → highest slot
            ok = g * den >= num * t and (best < 0 or K.ge(g, t, bg, bt))
        else:  # P <= num/den, lowest P, ties → highest slot
            ok = g * den <= num * t and (best < 0 or K.ge(bg, bt, g, t))
        if ok:
            best = k
            bg = g
            bt = t
    return best


@kernel
def rule_tell_high_probability_mistake(pv, tab, false_positive, num, den):
    """TellHighProbabilityMistake(falsePositive, num/den) (83–104) (docs/rules.md §3.2).

    Hints the scanned player (not the loop offset), with any hand size. Stops without firing
    if the chosen card is already fully known to its owner.
    """
    v = V.expand_view(pv)
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        p = K.turn_order(v, i)
        tab_t, pack_t = P.partner_pack(v, p, tab)
        k = mistake_slot(v.packed, tab_t, pack_t, p, false_positive != 0, num, den)
        if k >= 0:
            return K.tell_missing(v, p, k, K.TRUE)
    return -1


@inline
def apply_tell(v, rng, tab, row):
    """Run the tell rule of rule-table row ``row`` for the view ``v`` (gates already open)."""
    # An if-chain over the classes: a compiled kernel cannot call through a table of functions,
    # and the chain is inlined into the decision loop, where a call per level would cost more
    # than most rules.
    cls = row[T.R_CLASS]
    p0 = row[T.R_P0]
    p1 = row[T.R_P1]
    p2 = row[T.R_P2]
    if cls == T.C_COMPLETE_USEFUL:
        return rule_complete_tell_useful(v.packed)
    if cls == T.C_TELL_NEXT:
        return rule_tell_next_unknown(v.packed, p0, p1, p2)
    if cls == T.C_USEFUL:
        return rule_tell_useful(v.packed, p0)
    if cls == T.C_FIRST_UNKNOWN:
        return rule_tell_first_unknown(v.packed, p0, p1)
    if cls == T.C_DISPENSABLE:
        return rule_tell_dispensable(v.packed, p0)
    if cls == T.C_TELL_FINESSE:
        return rule_tell_finesse(v.packed)
    if cls == T.C_FIVES:
        return rule_tell_fives(v.packed)
    if cls == T.C_MOST_INFORMATION:
        return rule_tell_most_information(v.packed, p0)
    if cls == T.C_PLAYABLE_RANDOM:
        return rule_tell_playable(v.packed, rng)
    if cls == T.C_TELL_RANDOMLY:
        return rule_tell_randomly(v.packed, rng)
    if cls == T.C_UNAMBIGUOUS:
        return rule_tell_unambiguous(v.packed, p0, p1, p2)
    if cls == T.C_UNAMBIGUOUS2:
        return rule_tell_unambiguous2(v.packed, tab, float(p0), float(p1))
    if cls == T.C_AT_LEAST_N_USELESS:
        return rule_tell_at_least_n_useless(v.packed, tab, p0)
    return rule_tell_high_probability_mistake(v.packed, tab, p0, p1, p2)  # C_MISTAKE

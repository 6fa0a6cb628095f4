"""Compiled kernels of InfoBot, the hat-guessing strategy (docs/bots_infobot.md).

Everything here works on plain integer arrays so that numba compiles it, and the Python policy
(:class:`agents.bots.infobot.InfoBot`) and the compiled self-play loop
(:mod:`agents.bots.infobot_games`) share one implementation.

Cards are ``colour * 5 + rank`` with 0-based ranks (the engine's card ids at 5 colours and 5
ranks). One bot's knowledge is three arrays:

* ``info``: ``(n_players, hand_size, 5, 5)`` int64, the *public* possibility table of every
  card in every hand: how many copies of each card the card may still be (0 = ruled out);
* ``hl``: ``(n_players,)`` int64, the number of cards in each hand;
* ``pcounts``: ``(5, 5)`` int64, the cards played or discarded so far (what a newly drawn card
  can no longer be).

A game position as the bot sees it (the "view") is ``fw`` (``(5,)`` firework heights),
``disc`` (``(5, 5)`` copies in the discard pile, failed plays included) and ``sc``
(``(N_SC,)`` scalars: ``SC_DECK``, ``SC_DSIZE``, ``SC_HINTS``, ``SC_LIVES``, ``SC_PLAYER``),
plus ``hands`` (``(n_players, hand_size)`` card ids, -1 where unseen).
"""

from __future__ import annotations

import numpy as np

from hanabi_env.jit import inline, kernel, njit

NC = 5
NV = 5
#: Copies of each rank in the deck (rank 0-based).
COUNT = (3, 2, 2, 2, 1)
TOTAL_CARDS = 50
MAX_HINTS = 8

SC_DECK = 0
SC_DSIZE = 1
SC_HINTS = 2
SC_LIVES = 3
SC_PLAYER = 4
N_SC = 5

#: Move kinds returned by :func:`decide` (``out[0]``).
M_PLAY = 0
M_DISCARD = 1
M_COLOR = 2
M_RANK = 3

#: Hint strategies (``strategy``'s kind).
HS3 = 0
HS4 = 1
HSP = 2

MAXQ = 10


@inline
def _copy_table(dst, src):
    """``dst[:, :] = src`` for one ``(NC, NV)`` table, without numba's allocating copy."""
    for k in range(NC):
        for v in range(NV):
            dst[k, v] = src[k, v]


@inline
def _copy_tables(dst, src, h):
    """``dst[:h] = src[:h]`` for ``(hand, NC, NV)`` tables."""
    for i in range(h):
        _copy_table(dst[i], src[i])


@kernel
def is_dead(c, v, fw, disc):
    """Whether card (c, v) can never be played, from the fireworks and the discards."""
    if v < fw[c]:
        return True
    for w in range(fw[c], v):  # noqa: SIM110 - a loop compiles to plain code
        if COUNT[w] - disc[c, w] == 0:
            return True
    return False


@kernel
def is_dispensable(c, v, fw, disc):
    """Whether card (c, v) may be discarded without lowering the best reachable score."""
    return COUNT[v] - disc[c, v] != 1 or is_dead(c, v, fw, disc)


@kernel
def prob_dead(t, fw, disc):
    """Probability (weighted by copies) that the card of table ``t`` is dead."""
    dead = 0
    live = 0
    for k in range(NC):
        v = 0
        while v < fw[k]:
            dead += t[k, v]
            v += 1
        while v < NV and COUNT[v] - disc[k, v] != 0:
            live += t[k, v]
            v += 1
        while v < NV:
            dead += t[k, v]
            v += 1
    if dead + live == 0:
        return np.nan
    return dead / float(dead + live)


@kernel
def total_weight(t):
    """Sum of the table's counts."""
    s = 0
    for k in range(NC):
        for v in range(NV):
            s += t[k, v]
    return s


@kernel
def n_possible(t):
    """How many distinct cards the table still allows."""
    n = 0
    for k in range(NC):
        for v in range(NV):
            if t[k, v] != 0:
                n += 1
    return n


@kernel
def prob_pred(t, fw, disc, which):
    """Weighted probability of a predicate: 0 playable, 1 dispensable, 2 playable or dead."""
    score = 0.0
    weight = 0
    for k in range(NC):
        for v in range(NV):
            w = t[k, v]
            if w != 0:
                if which == 0:
                    ok = v == fw[k]
                elif which == 1:
                    ok = is_dispensable(k, v, fw, disc)
                else:
                    ok = v == fw[k] or is_dead(k, v, fw, disc)
                weight += w
                score += w * (1.0 if ok else 0.0)
    return score / weight


@kernel
def average_value(t):
    """Weighted mean rank (1-based) of the table."""
    score = 0.0
    weight = 0
    for k in range(NC):
        for v in range(NV):
            w = t[k, v]
            if w != 0:
                weight += w
                score += w * float(v + 1)
    return score / weight


@kernel
def has_card(hands, hl, p, card):
    """Whether player ``p`` holds ``card``."""
    for i in range(hl[p]):  # noqa: SIM110 - a loop compiles to plain code
        if hands[p, i] == card:
            return True
    return False


@kernel
def prob_seen(t, hands, hl, me):
    """Weighted probability that another player holds a copy of the card."""
    score = 0.0
    weight = 0
    for k in range(NC):
        for v in range(NV):
            w = t[k, v]
            if w != 0:
                seen = False
                for p in range(hl.shape[0]):
                    if p != me and has_card(hands, hl, p, k * NV + v):
                        seen = True
                        break
                weight += w
                score += w * (1.0 if seen else 0.0)
    return score / weight


@kernel
def average_play_score(t, hands, hl, me, deck):
    """Weighted mean of ``(10 - rank) / (1 + players holding a copy)`` (copies only with a deck)."""
    score = 0.0
    weight = 0
    for k in range(NC):
        for v in range(NV):
            w = t[k, v]
            if w != 0:
                num_with = 1
                if deck > 0:
                    for p in range(hl.shape[0]):
                        if p != me and has_card(hands, hl, p, k * NV + v):
                            num_with += 1
                weight += w
                score += w * ((10.0 - (v + 1)) / num_with)
    return score / weight


# --- questions --------------------------------------------------------------------------------


@kernel
def _partition(t, max_n, fw, disc, qmap):
    """Fill ``qmap`` (5, 5) with a partition of the table's cards; returns its block count."""
    for k in range(NC):
        for v in range(NV):
            qmap[k, v] = 0
    has_dead = prob_dead(t, fw, disc) != 0.0
    eff = max_n - 1 if has_dead else max_n
    cur = 0
    n = 0
    for k in range(NC):
        for v in range(NV):
            if t[k, v] != 0 and not is_dead(k, v, fw, disc):
                qmap[k, v] = cur
                cur = (cur + 1) % eff
                if n < eff:
                    n += 1
    if has_dead:
        for k in range(NC):
            for v in range(NV):
                if t[k, v] != 0 and is_dead(k, v, fw, disc):
                    qmap[k, v] = n
        n += 1
    return n


@kernel
def _sort_by_play(idx, pplay, n):
    """Insertion sort of ``idx[:n]``: higher ``pplay`` first, then lower index."""
    for a in range(1, n):
        x = idx[a]
        b = a - 1
        while b >= 0 and (pplay[idx[b]] < pplay[x] or (pplay[idx[b]] == pplay[x] and idx[b] > x)):
            idx[b + 1] = idx[b]
            b -= 1
        idx[b + 1] = x


@kernel
def _augment(tab, hl, fw, disc, pplay, pdead, det):
    """Per card of a hand: probability playable, probability dead, determined.

    Returns whether some card is known playable.
    """
    any_known = False
    for i in range(hl):
        n_play = 0
        n_dead = 0
        n_unique = 0
        n_total = 0
        for k in range(NC):
            for v in range(NV):
                w = tab[i, k, v]
                if w != 0:
                    n_unique += 1
                    n_total += w
                    if v == fw[k]:
                        n_play += w
                    elif is_dead(k, v, fw, disc):
                        n_dead += w
        pplay[i] = n_play / float(n_total) if n_total else np.nan
        pdead[i] = n_dead / float(n_total) if n_total else np.nan
        det[i] = 1 if n_unique == 1 else 0
        if pplay[i] == 1.0:
            any_known = True
    return any_known


@kernel
def get_questions(total, fw, disc, tab, hl, ws):
    """The questions asked about one hand, with ``total`` answers to share.

    ``tab`` is the hand's public table (``hl`` cards). Fills the workspace's (``ws``,
    :func:`new_workspace`) question arrays: kinds (0: is it playable?, 1: which block of a
    partition?), the card asked about, how many answers, a partition's blocks; returns how
    many questions there are.
    """
    rem = total
    nq = 0
    qi = ws[0]
    qkind = qi[0]
    qidx = qi[1]
    qamt = qi[2]
    idx = qi[3]
    det = qi[4]
    qmap = ws[1]
    pplay = ws[2][0]
    pdead = ws[2][1]
    if not _augment(tab, hl, fw, disc, pplay, pdead, det):
        n = 0
        for i in range(hl):
            if det[i] != 0 or pdead[i] == 1.0 or pplay[i] == 1.0 or pplay[i] < 0.2:
                continue
            idx[n] = i
            n += 1
        _sort_by_play(idx, pplay, n)
        for a in range(n):
            qkind[nq] = 0
            qidx[nq] = idx[a]
            qamt[nq] = 2
            nq += 1
            rem //= 2
            if rem <= 1:
                return nq
    n = 0
    for i in range(hl):
        if det[i] != 0 or pdead[i] == 1.0:
            continue
        idx[n] = i
        n += 1
    _sort_by_play(idx, pplay, n)
    for a in range(n):
        i = idx[a]
        amt = _partition(tab[i], rem, fw, disc, qmap[nq])
        qkind[nq] = 1
        qidx[nq] = i
        qamt[nq] = amt
        nq += 1
        rem //= amt
        if rem <= 1:
            return nq
    return nq


@kernel
def answer(q, card, fw, qkind, qmap):
    """The answer of question ``q`` for the true ``card``."""
    c = card // NV
    v = card % NV
    if qkind[q] == 0:
        return 1 if v == fw[c] else 0
    return qmap[q, c, v]


@kernel
def acknowledge(q, ans, t, fw, qkind, qamt, qmap):
    """Rule out of table ``t`` every card whose answer to question ``q`` is not ``ans``."""
    if ans < 0 or ans >= qamt[q]:
        return  # an answer no InfoBot gives: a partner playing another convention
    for k in range(NC):
        for v in range(NV):
            if t[k, v] != 0:
                if qkind[q] == 0:
                    a = 1 if v == fw[k] else 0
                else:
                    a = qmap[q, k, v]
                if a != ans:
                    t[k, v] = 0


@kernel
def answers_value(nq, hand, fw, qkind, qidx, qamt, qmap):
    """The answers of a hand (true cards ``hand``) to ``nq`` questions, packed mixed-radix."""
    value = 0
    for q in range(nq):
        value = value * qamt[q] + answer(q, hand[qidx[q]], fw, qkind, qmap)
    return value


@kernel
def hint_sum(total, me, info, hl, fw, disc, hands, ws):
    """Sum modulo ``total`` of every other player's answers (what a hat hint encodes)."""
    qkind = ws[0][0]
    qidx = ws[0][1]
    qamt = ws[0][2]
    qmap = ws[1]
    s = 0
    for p in range(hl.shape[0]):
        if p == me:
            continue
        nq = get_questions(total, fw, disc, info[p], hl[p], ws)
        s = (s + answers_value(nq, hands[p], fw, qkind, qidx, qamt, qmap)) % total
    return s


@kernel
def update_from_hint_sum(total, value, hinter, me, info, hl, fw, disc, hands, ws):
    """Apply a hat hint (``value`` modulo ``total``) to every hand but the hinter's."""
    qkind = ws[0][0]
    qidx = ws[0][1]
    qamt = ws[0][2]
    qmap = ws[1]
    for p in range(hl.shape[0]):
        if p == hinter or p == me:
            continue
        nq = get_questions(total, fw, disc, info[p], hl[p], ws)
        hv = answers_value(nq, hands[p], fw, qkind, qidx, qamt, qmap)
        value = (total + value - hv) % total
        for q in range(nq):
            acknowledge(q, answer(q, hands[p, qidx[q]], fw, qkind, qmap), info[p, qidx[q]], fw,
                        qkind, qamt, qmap)  # fmt: skip
    if me == hinter:
        return
    nq = get_questions(total, fw, disc, info[me], hl[me], ws)
    mod = 1
    for q in range(nq):
        mod *= qamt[q]
    if value >= mod:
        return  # a hint no InfoBot gives (another convention): learn nothing from it
    for q in range(nq):
        mod //= qamt[q]
        a = value // mod
        value -= a * mod
        acknowledge(q, a, info[me, qidx[q]], fw, qkind, qamt, qmap)


# --- hint strategies --------------------------------------------------------------------------


@kernel
def _hint_index_score(t, fw, disc):
    if prob_dead(t, fw, disc) == 1.0:
        return 0
    if n_possible(t) == 1:
        return 0
    bits = 0
    for k in range(NC):
        for v in range(NV):
            if t[k, v] != 0:
                bits |= 1 << k
                bits |= 1 << (v + 6)
    n = 0
    while bits:
        n += bits & 1
        bits >>= 1
    return n


@kernel
def _disjoint_rowset(tab, hl, colour, ws):
    """Largest set of rows no two of whose possibilities share a colour (or a rank).

    A row whose possibilities hold one colour twice (two ranks of it) clashes with itself and
    joins no set of two or more rows; row 0 alone is the answer when no two rows fit. Of the
    sets of equal size, the lowest bit pattern wins.
    """
    masks = ws[0][5]
    for i in range(hl):
        m = 0
        for k in range(NC):
            for v in range(NV):
                if tab[i, k, v] != 0:
                    bit = 1 << (k if colour else v)
                    if m & bit:
                        m = -1  # clashes with itself
                        break
                    m |= bit
            if m < 0:
                break
        masks[i] = m
    best_set = 1
    best_card = 1
    for rowset in range(3, 1 << hl):
        card = 0
        x = rowset
        while x:
            card += x & 1
            x >>= 1
        if card <= best_card:
            continue
        ok = True
        mask = 0
        for i in range(hl):
            if rowset & (1 << i):
                if masks[i] < 0 or mask & masks[i]:
                    ok = False
                    break
                mask |= masks[i]
        if ok:
            best_card = card
            best_set = rowset
    return best_set


@kernel
def _packing_maps(tab, hl, strat, ws):
    """Set-packing hint types: ``strat[3:8]`` per colour, ``strat[8:13]`` per rank.

    Returns how many hint types there are.
    """
    cset = _disjoint_rowset(tab, hl, True, ws)
    vset = _disjoint_rowset(tab, hl, False, ws)
    for j in range(3, 13):
        strat[j] = -1
    count = 0
    for i in range(hl):
        if cset & (1 << i):
            for k in range(NC):
                for v in range(NV):
                    if tab[i, k, v] != 0:
                        strat[3 + k] = count
            count += 1
        if vset & (1 << i):
            for k in range(NC):
                for v in range(NV):
                    if tab[i, k, v] != 0:
                        strat[8 + v] = count
            count += 1
    cur = 0
    for j in range(3, 13):
        if strat[j] == -1:
            strat[j] = cur
            cur = (cur + 1) % count
    return count


@kernel
def _may_be_all_one(tab, hl, colour):
    """Whether every card of the hand may be of one same colour (or rank)."""
    for x in range(NC if colour else NV):
        every = True
        for i in range(hl):
            can = False
            for y in range(NV if colour else NC):
                if (tab[i, x, y] if colour else tab[i, y, x]) != 0:
                    can = True
            if not can:
                every = False
                break
        if every:
            return True
    return False


@kernel
def hint_strategy(tab, hl, fw, disc, strat, ws):
    """Choose the hint strategy for a hand and return its count of hint types.

    ``strat`` (``(13,)`` int64) receives the kind (``HS3``, ``HS4``, ``HSP``), the count, the
    card a 3- or 4-way strategy is about, and the set-packing maps (:func:`_packing_maps`).
    """
    count = _packing_maps(tab, hl, strat, ws)
    if count > 4:
        strat[0] = HSP
        strat[1] = count
        strat[2] = -1
        return count
    best = -1
    best_i = 0
    for i in range(hl):
        s = _hint_index_score(tab[i], fw, disc)
        if s > best:
            best = s
            best_i = i
    strat[2] = best_i
    if not _may_be_all_one(tab, hl, True) and not _may_be_all_one(tab, hl, False):
        strat[0] = HS4
        strat[1] = 4
    else:
        strat[0] = HS3
        strat[1] = 3
    return strat[1]


@kernel
def decode_hint(strat, is_colour, val, touched):
    """The hint type a hint (colour or rank ``val``, touching bit set ``touched``) stands for."""
    if strat[0] == HSP:
        return strat[3 + val] if is_colour else strat[8 + val]
    if touched & (1 << strat[2]):
        return 1 if is_colour else 0
    if strat[0] == HS3:
        return 2
    return 3 if is_colour else 2


@kernel
def encode_hints(strat, hand, hl, hint_type, out):
    """The hints (``out[j] = (is_colour, value)``) that stand for ``hint_type``; returns count."""
    n = 0
    if strat[0] == HSP:
        for i in range(hl):
            c = hand[i] // NV
            v = hand[i] % NV
            if strat[3 + c] == hint_type:
                out[n, 0] = 1
                out[n, 1] = c
                n += 1
            if strat[8 + v] == hint_type:
                out[n, 0] = 0
                out[n, 1] = v
                n += 1
        return n
    hc = hand[strat[2]] // NV
    hv = hand[strat[2]] % NV
    if hint_type == 0:
        out[0, 0] = 0
        out[0, 1] = hv
        return 1
    if hint_type == 1:
        out[0, 0] = 1
        out[0, 1] = hc
        return 1
    for i in range(hl):
        c = hand[i] // NV
        v = hand[i] % NV
        if strat[0] == HS3:
            if c != hc:
                out[n, 0] = 1
                out[n, 1] = c
                n += 1
            if v != hv:
                out[n, 0] = 0
                out[n, 1] = v
                n += 1
        elif hint_type == 2:
            if v != hv:
                out[n, 0] = 0
                out[n, 1] = v
                n += 1
        else:
            if c != hc:
                out[n, 0] = 1
                out[n, 1] = c
                n += 1
    return n


# --- observing moves --------------------------------------------------------------------------


@kernel
def hint_value(hinter, to, is_colour, val, touched, info, hl, fw, disc, ws):
    """The hat hint a hint of ``hinter`` to ``to`` stands for: ``(total, value)``.

    ``value`` is the sum of the hand answers it encodes, modulo ``total`` (the count of hint
    types of every other hand, :func:`hint_strategy`); :func:`observe_hint` applies it.
    """
    n = hl.shape[0]
    strat = ws[3][0]
    total = 0
    prev = 0
    ptype = 0
    player_amt = (n + to - hinter - 1) % n
    for j in range(n - 1):
        p = (hinter + 1 + j) % n
        cnt = hint_strategy(info[p], hl[p], fw, disc, strat, ws)
        if j < player_amt:
            prev += cnt
        elif j == player_amt:
            ptype = decode_hint(strat, is_colour, val, touched)
        total += cnt
    return total, prev + ptype


@kernel
def observe_hint(me, hinter, to, is_colour, val, touched, info, hl, fw, disc, hands, ws):
    """Update the knowledge for a hint of ``hinter`` to ``to`` (seen before the hint's effect)."""
    total, value = hint_value(hinter, to, is_colour, val, touched, info, hl, fw, disc, ws)
    apply_hint(total, value, me, hinter, to, is_colour, val, touched, info, hl, fw, disc,
               hands, ws)  # fmt: skip


@kernel
def apply_hint(total, value, me, hinter, to, is_colour, val, touched, info, hl, fw, disc, hands,
               ws):  # fmt: skip
    """:func:`observe_hint` past its :func:`hint_value`: the hat hint, then what it touched."""
    update_from_hint_sum(total, value, hinter, me, info, hl, fw, disc, hands, ws)
    for i in range(hl[to]):
        yes = (touched >> i) & 1
        for k in range(NC):
            for v in range(NV):
                if ((k if is_colour else v) == val) != yes:
                    info[to, i, k, v] = 0


@kernel
def find_useless(tab, hl, fw, disc, out, ws):
    """Indices (ascending, into ``out``) of cards known useless: dead, or a known duplicate."""
    useless = ws[0][6]
    seen = ws[4]
    for i in range(hl):
        useless[i] = 0
    for k in range(NC):
        for v in range(NV):
            seen[k, v] = 0
    for i in range(hl):
        if prob_dead(tab[i], fw, disc) == 1.0:
            useless[i] = 1
        elif n_possible(tab[i]) == 1:
            for k in range(NC):
                for v in range(NV):
                    if tab[i, k, v] != 0:
                        if seen[k, v] != 0:
                            useless[i] = 1
                            useless[seen[k, v] - 1] = 1
                        else:
                            seen[k, v] = i + 1
    n = 0
    for i in range(hl):
        if useless[i] != 0:
            out[n] = i
            n += 1
    return n


@kernel
def observe_discard_or_play(
    me, actor, slot, card, is_discard, info, hl, pcounts, fw, disc, sc, hands, ws
):
    """Update the knowledge for ``actor`` playing or discarding the card in ``slot``.

    ``fw``, ``disc``, ``sc`` and ``hands`` are the position before the move.
    """
    if is_discard:
        useless = ws[0][7]
        nu = find_useless(info[actor], hl[actor], fw, disc, useless, ws)
        if nu > 1:
            value = -1
            for j in range(nu):
                if useless[j] == slot:
                    value = j
                    break
            if value >= 0:
                update_from_hint_sum(nu, value, actor, me, info, hl, fw, disc, hands, ws)
    h = hl[actor]
    for i in range(slot, h - 1):
        _copy_table(info[actor, i], info[actor, i + 1])
    if sc[SC_DECK] != 0:
        for k in range(NC):
            for v in range(NV):
                info[actor, h - 1, k, v] = COUNT[v] - pcounts[k, v]
    else:
        hl[actor] = h - 1
    c = card // NV
    v = card % NV
    for p in range(hl.shape[0]):
        for i in range(hl[p]):
            if info[p, i, c, v] != 0:
                info[p, i, c, v] -= 1
    pcounts[c, v] += 1


# --- deciding ---------------------------------------------------------------------------------


@kernel
def _choose_hint(me, info, hl, fw, disc, sc, hands, out, ws):
    n = hl.shape[0]
    strats = ws[3]
    total = 0
    for j in range(n - 1):
        p = (me + 1 + j) % n
        total += hint_strategy(info[p], hl[p], fw, disc, strats[j], ws)
    hint_type = hint_sum(total, me, info, hl, fw, disc, hands, ws)
    amt = 0
    while hint_type >= strats[amt, 1]:
        hint_type -= strats[amt, 1]
        amt += 1
    target = (me + 1 + amt) % n
    h = hl[target]
    hand = hands[target]
    hand_info = ws[6]
    _copy_tables(hand_info, info[target], h)
    qkind = ws[0][0]
    qidx = ws[0][1]
    qamt = ws[0][2]
    qmap = ws[1]
    nq = get_questions(3 * (n - 1), fw, disc, hand_info, h, ws)
    for q in range(nq):
        acknowledge(q, answer(q, hand[qidx[q]], fw, qkind, qmap), hand_info[qidx[q]], fw,
                    qkind, qamt, qmap)  # fmt: skip
    cand = ws[7]
    nc = encode_hints(strats[amt], hand, h, hint_type, cand)
    best_colour = 1
    best_val = 0
    best_good = -1.0
    t = ws[8]
    for j in range(nc):
        is_colour = cand[j, 0]
        val = cand[j, 1]
        good = 1.0
        for i in range(h):
            _copy_table(t, hand_info[i])
            if prob_dead(t, fw, disc) == 1.0 or n_possible(t) == 1:
                continue
            old = total_weight(t)
            true_attr = hand[i] // NV if is_colour else hand[i] % NV
            yes = val == true_attr
            for k in range(NC):
                for v in range(NV):
                    if ((k if is_colour else v) == val) != yes:
                        t[k, v] = 0
            new = total_weight(t)
            bonus = 2.0 if n_possible(t) == 1 or prob_dead(t, fw, disc) == 1.0 else 1.0
            good *= bonus * float(old) / new
        if good > best_good:
            best_good = good
            best_colour = is_colour
            best_val = val
    out[0] = M_COLOR if best_colour else M_RANK
    out[1] = target
    out[2] = best_val


@kernel
def _private(me, info, hl, hands, priv):
    """Write into ``priv`` the seat's own public tables less the copies it sees elsewhere."""
    h = hl[me]
    _copy_tables(priv, info[me], h)
    for i in range(h):
        for p in range(hl.shape[0]):
            if p == me:
                continue
            for j in range(hl[p]):
                c = hands[p, j] // NV
                v = hands[p, j] % NV
                if priv[i, c, v] != 0:
                    priv[i, c, v] -= 1


@kernel
def _play_choice(me, priv, hl, fw, disc, sc, hands, threshold):
    """The card to play: a sure one (the most urgent), else a risky one; -1 for none."""
    best_score = -1.0
    best = -1
    h = hl[me]
    for i in range(h):
        if prob_pred(priv[i], fw, disc, 0) == 1.0:
            s = average_play_score(priv[i], hands, hl, me, sc[SC_DECK])
            if s > best_score:
                best_score = s
                best = i
    if best >= 0:
        return best
    if sc[SC_LIVES] > 1 and sc[SC_DSIZE] <= threshold:
        for i in range(h):
            if prob_pred(priv[i], fw, disc, 2) != 1.0:
                continue
            p = prob_pred(priv[i], fw, disc, 0)
            if p > 0.75 and p > best_score:
                best_score = p
                best = i
    return best


@kernel
def _someone_else_can_play(me, hl, fw, hands):
    for p in range(hl.shape[0]):
        if p == me:
            continue
        for j in range(hl[p]):
            card = hands[p, j]
            if card % NV == fw[card // NV]:
                return True
    return False


@kernel
def _useless_discard(me, info, hl, fw, disc, hands, priv, ws):
    """A known useless card to discard (the hat-chosen one of several public ones); -1: none."""
    h = hl[me]
    useless = ws[0][7]
    npu = find_useless(info[me], h, fw, disc, useless, ws)
    if npu > 1:
        return useless[hint_sum(npu, me, info, hl, fw, disc, hands, ws)]
    if find_useless(priv, h, fw, disc, useless, ws) > 0:
        return useless[0]
    return -1


@kernel
def decide(me, info, hl, fw, disc, sc, hands, out, ws):
    """InfoBot's move for seat ``me`` on turn: ``out = (kind, slot or target, colour/rank)``.

    ``out[0]`` is ``M_PLAY``, ``M_DISCARD`` (``out[1]``: the slot), ``M_COLOR`` or ``M_RANK``
    (``out[1]``: the target seat, ``out[2]``: the colour or 0-based rank).
    """
    h = hl[me]
    threshold = TOTAL_CARDS - NC * NV - hl.shape[0] * hands.shape[1]
    priv = ws[5]
    _private(me, info, hl, hands, priv)
    out[2] = -1
    best = _play_choice(me, priv, hl, fw, disc, sc, hands, threshold)
    if best >= 0:
        out[0] = M_PLAY
        out[1] = best
        return
    if sc[SC_HINTS] == MAX_HINTS:
        _choose_hint(me, info, hl, fw, disc, sc, hands, out, ws)
        return
    out[0] = M_DISCARD
    if sc[SC_DSIZE] <= threshold:
        out[1] = _useless_discard(me, info, hl, fw, disc, hands, priv, ws)
        if out[1] >= 0:
            return
    if sc[SC_HINTS] > 0 and _someone_else_can_play(me, hl, fw, hands):
        _choose_hint(me, info, hl, fw, disc, sc, hands, out, ws)
        return
    out[1] = _useless_discard(me, info, hl, fw, disc, hands, priv, ws)
    if out[1] >= 0:
        return
    best_score = -1.0
    for i in range(h):
        val = (
            20.0 * prob_seen(priv[i], hands, hl, me)
            + 10.0 * prob_pred(priv[i], fw, disc, 1)
            + average_value(priv[i])
        )
        if val > best_score:
            best_score = val
            best = i
    out[1] = best if best >= 0 else 0


@njit(error_model="numpy")
def decide_from_python(me, info, hl, fw, disc, sc, hands, out, ws):
    """:func:`decide` for a caller in Python (the policy); compiled code calls :func:`decide`."""
    decide(me, info, hl, fw, disc, sc, hands, out, ws)


@njit(error_model="numpy")
def new_knowledge(n_players, hand_size):
    """Fresh knowledge for a game: (info, hl, pcounts)."""
    info = np.empty((n_players, hand_size, NC, NV), dtype=np.int64)
    for p in range(n_players):
        for i in range(hand_size):
            for k in range(NC):
                for v in range(NV):
                    info[p, i, k, v] = COUNT[v]
    hl = np.full(n_players, hand_size, dtype=np.int64)
    pcounts = np.zeros((NC, NV), dtype=np.int64)
    return info, hl, pcounts


@njit(error_model="numpy")
def new_workspace():
    """Scratch arrays every kernel here shares, so that none allocates per move.

    A tuple: question ints (kinds, cards, answer counts, sort order, flags, row masks, useless
    flags, useless list), partition blocks, question floats, hint strategies, a card table of
    counts, two copies of a hand's tables, hint candidates and one card table.
    """
    return (
        np.zeros((8, MAXQ), dtype=np.int64),
        np.zeros((MAXQ, NC, NV), dtype=np.int64),
        np.zeros((2, MAXQ)),
        np.zeros((5, 13), dtype=np.int64),
        np.zeros((NC, NV), dtype=np.int64),
        np.zeros((5, NC, NV), dtype=np.int64),
        np.zeros((5, NC, NV), dtype=np.int64),
        np.zeros((2 * MAXQ, 2), dtype=np.int64),
        np.zeros((NC, NV), dtype=np.int64),
    )


# --- catching up with the public history (the policy's entry) ---------------------------------

H_ACTOR = 0
H_KIND = 1
H_TARGET = 2
H_COLOR = 3
H_RANK = 4
H_SLOT = 5
H_CARD = 6
H_SCORED = 8
H_TOKEN = 9
H_TOUCHED = 10


@njit(error_model="numpy")
def _replay_positions(hist, start, n, fw, disc, sc, fws, discs, scs, drew):
    """Advance ``fw``, ``disc``, ``sc`` over the moves, keeping each move's position before it.

    Returns 0, or 1 + the index of a move whose actor is no seat.
    """
    for j in range(fws.shape[0]):
        rec = hist[start + j]
        if rec[H_ACTOR] < 0 or rec[H_ACTOR] >= n:
            return start + j + 1
        sc[SC_PLAYER] = rec[H_ACTOR]
        fws[j] = fw
        discs[j] = disc
        scs[j] = sc
        kind = rec[H_KIND]
        c = rec[H_COLOR]
        v = rec[H_RANK]
        if kind == 0 or kind == 1:
            if kind == 0 and rec[H_SCORED] == 1:
                fw[c] += 1
            else:
                disc[c, v] += 1
                sc[SC_DSIZE] += 1
                if kind == 0:
                    sc[SC_LIVES] -= 1
            if rec[H_TOKEN] == 1:
                sc[SC_HINTS] += 1
            if sc[SC_DECK] > 0 and sc[SC_LIVES] > 0:
                sc[SC_DECK] -= 1
                drew[j] = True
        else:
            sc[SC_HINTS] -= 1
    return 0


@njit(error_model="numpy")
def _rebuild_hands(me, hist, start, drew, hands_now, hl_now, hands_at):
    """The other hands before each move, rebuilt backwards from the hands now.

    Returns 0, or 1 + the index of a move that cannot have been made from such hands.
    """
    hs = hands_now.shape[1]
    cur = hands_now.copy()
    curlen = hl_now.copy()
    for j in range(hands_at.shape[0] - 1, -1, -1):
        rec = hist[start + j]
        a = rec[H_ACTOR]
        if a != me and (rec[H_KIND] == 0 or rec[H_KIND] == 1):
            if drew[j]:
                if curlen[a] <= 0:
                    return start + j + 1
                curlen[a] -= 1
                cur[a, curlen[a]] = -1
            slot = rec[H_SLOT]
            if slot < 0 or slot > curlen[a] or curlen[a] >= hs:
                return start + j + 1
            for i in range(curlen[a], slot, -1):
                cur[a, i] = cur[a, i - 1]
            cur[a, slot] = rec[H_CARD]
            curlen[a] += 1
        hands_at[j] = cur
    return 0


@njit(error_model="numpy")
def catch_up(me, hist, start, stop, hands_now, hl_now, info, hl, pcounts, fw, disc, sc, ws):
    """Observe moves ``start:stop`` of ``hist`` (the engine's move records) as InfoBot does.

    ``fw``, ``disc`` and ``sc`` hold the position before move ``start`` and are advanced to
    the position after move ``stop - 1``. The other players' hands at each move are rebuilt
    backwards from ``hands_now`` (``hl_now`` cards each), the hands at move ``stop``.

    Returns:
        0, or 1 + the index of the first move that does not follow from what was seen (a slot
        or seat out of range: views of another game), for the caller to report.
    """
    n = hl.shape[0]
    m = stop - start
    fws = np.empty((m, NC), dtype=np.int64)
    discs = np.empty((m, NC, NV), dtype=np.int64)
    scs = np.empty((m, N_SC), dtype=np.int64)
    drew = np.zeros(m, dtype=np.bool_)
    bad = _replay_positions(hist, start, n, fw, disc, sc, fws, discs, scs, drew)
    if bad:
        return bad
    hands_at = np.empty((m, n, hands_now.shape[1]), dtype=np.int64)
    bad = _rebuild_hands(me, hist, start, drew, hands_now, hl_now, hands_at)
    if bad:
        return bad
    for j in range(m):
        rec = hist[start + j]
        kind = rec[H_KIND]
        a = rec[H_ACTOR]
        if kind == 0 or kind == 1:
            if rec[H_SLOT] < 0 or rec[H_SLOT] >= hl[a]:
                return start + j + 1
            observe_discard_or_play(me, a, rec[H_SLOT], rec[H_CARD], kind == 1, info, hl,
                                    pcounts, fws[j], discs[j], scs[j], hands_at[j], ws)  # fmt: skip
        else:
            if rec[H_TARGET] < 0 or rec[H_TARGET] >= n or rec[H_TARGET] == a:
                return start + j + 1
            is_colour = kind == 2
            val = rec[H_COLOR] if is_colour else rec[H_RANK]
            observe_hint(me, a, rec[H_TARGET], is_colour, val, rec[H_TOUCHED], info, hl,
                         fws[j], discs[j], hands_at[j], ws)  # fmt: skip
    return 0

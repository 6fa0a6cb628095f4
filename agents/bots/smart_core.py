"""SmartBot's beliefs and decisions as numba kernels: the same moves as ``agents.bots.smart``.

docs/bots.md §1.4 and §4. The Python bot (:mod:`agents.bots.smart`) is the specification; these
kernels are the same steps in the same order, on arrays instead of objects, so that its cached
summaries are computed at the same moments and the moves are identical (a golden test,
``tests/agents/test_smart_core.py``, plays both on the same deals move for move).

Layout (one game; ``n`` seats, hand size ``h``; the first axis of the knowledge arrays is the
observing seat, the second the holder):

* ``ki``: ``(n, n, h, 7)`` int64 per card: ``CANT`` (25-bit mask of ruled-out identities, bit
  ``5 * colour + value - 1``), ``POSS`` (-1 not computed), ``COL``/``VAL`` (-2 not computed,
  -1 ambiguous), ``PLAY``/``VALU``/``WORTH`` (NO/MAYBE/YES);
* ``kf``: ``(n, n, h, 3)`` float64: the summaries' probabilities (float32 quotients; -1 stale);
* ``g``: int64 public state: fireworks ``g[0:5]``, ``G_HINTS``, ``G_LIVES``, ``G_DECK``;
* ``played``: ``(5, 6)`` int64 copies played or discarded per colour and value (1–5);
* ``hands``: ``(n, h)`` int64 engine card ids (``colour * 5 + rank``), ``hl``: ``(n,)`` lengths;
* ``m``: ``(3,)`` int64 identity masks of the playable, valuable and worthless cards now.
"""

from __future__ import annotations

import numpy as np

from hanabi_env import engine as E
from hanabi_env.jit import inline, kernel, njit

NO, MAYBE, YES = 0, 1, 2
CANT, POSS, COL, VAL, PLAY, VALU, WORTH = 0, 1, 2, 3, 4, 5, 6
PP, PV, PW = 0, 1, 2
G_HINTS, G_LIVES, G_DECK = 5, 6, 7
G_NEXT, G_DECIDED = 8, 9  # the policy's table: next card identity, own move decided
M_PLAY, M_DISCARD, M_COLOUR, M_VALUE = 0, 1, 2, 3
FULL = (1 << 25) - 1
COLOUR_MASK = np.array([31 << (5 * k) for k in range(5)], dtype=np.int64)
VALUE_MASK = np.array(
    [0] + [sum(1 << (5 * k + v - 1) for k in range(5)) for v in range(1, 6)], dtype=np.int64
)
COUNTS = np.array([0, 3, 2, 2, 2, 1], dtype=np.int64)  # copies of value v (index v)
BLANK_I = np.array([0, -1, -2, -2, MAYBE, MAYBE, MAYBE], dtype=np.int64)
"""A card's ``ki`` row as :func:`blank` writes it."""
P32 = np.array(
    [[float(np.float32(y) / np.float32(t)) if t else 0.0 for t in range(26)] for y in range(26)],
    dtype=np.float64,
)
"""``P32[yes, total]``: the float32 quotient the reference computes, as float64."""


@inline
def _popcount(x):
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@kernel
def blank(ki, kf):
    """A card nobody knows anything about (``ki``: ``(7,)``, ``kf``: ``(3,)``)."""
    ki[CANT] = 0
    ki[POSS] = -1
    ki[COL] = -2
    ki[VAL] = -2
    ki[PLAY] = MAYBE
    ki[VALU] = MAYBE
    ki[WORTH] = MAYBE
    kf[PP] = -1.0
    kf[PV] = -1.0
    kf[PW] = -1.0


@inline
def copy_card(ti, tf, ki, kf):
    """Copy one card's knowledge ``ki``/``kf`` into ``ti``/``tf`` (no allocation)."""
    for j in range(7):
        ti[j] = ki[j]
    for j in range(3):
        tf[j] = kf[j]


@kernel
def identity(ki):
    """Compute the colour and value of a card if not cached."""
    if ki[COL] != -2 and ki[VAL] != -2:
        return
    possible = FULL & ~ki[CANT]
    if possible == 0:
        ki[COL] = -2
        ki[VAL] = -2
        return
    colour = -2
    value = -2
    for k in range(5):
        if possible & COLOUR_MASK[k]:
            colour = k if colour == -2 else -1
    for v in range(1, 6):
        if possible & VALUE_MASK[v]:
            value = v if value == -2 else -1
    ki[COL] = colour
    ki[VAL] = value


@kernel
def known(ki):
    """Whether the holder knows the card (colour and value)."""
    identity(ki)
    return ki[COL] != -1 and ki[VAL] != -1


@kernel
def get_value(ki):
    """The card's value as its holder knows it (-1 ambiguous, -2 impossible)."""
    identity(ki)
    return ki[VAL]


@kernel
def possibilities(ki):
    """Identities not ruled out."""
    if ki[POSS] == -1:
        ki[POSS] = _popcount(FULL & ~ki[CANT])
    return ki[POSS]


@kernel
def _summarise(ki, kf, mask, which, level):
    possible = FULL & ~ki[CANT]
    total = _popcount(possible)
    yes = _popcount(possible & mask)
    kf[which] = P32[yes, total]
    ki[level] = YES if yes == total else (MAYBE if yes else NO)


@kernel
def playable(ki, kf, m):
    """NO/MAYBE/YES, cached."""
    if kf[PP] == -1.0:
        _summarise(ki, kf, m[0], PP, PLAY)
    return ki[PLAY]


@kernel
def valuable(ki, kf, m):
    """NO/MAYBE/YES, cached."""
    if kf[PV] == -1.0:
        _summarise(ki, kf, m[1], PV, VALU)
    return ki[VALU]


@kernel
def worthless(ki, kf, m):
    """NO/MAYBE/YES, cached."""
    if kf[PW] == -1.0:
        _summarise(ki, kf, m[2], PW, WORTH)
    return ki[WORTH]


@kernel
def _narrowed(ki, kf):
    if ki[PLAY] == MAYBE:
        kf[PP] = -1.0
    if ki[VALU] == MAYBE:
        kf[PV] = -1.0
    if ki[WORTH] == MAYBE:
        kf[PW] = -1.0


@kernel
def _ruled_out(ki):
    ki[POSS] = -1
    if ki[COL] == -1:
        ki[COL] = -2
    if ki[VAL] == -1:
        ki[VAL] = -2


@kernel
def set_colour(ki, kf, colour):
    """A hint says the card is ``colour``."""
    ki[CANT] |= FULL & ~COLOUR_MASK[colour]
    ki[POSS] = -1
    ki[COL] = colour
    if ki[VAL] == -1:
        ki[VAL] = -2
    _narrowed(ki, kf)


@kernel
def set_value(ki, kf, value):
    """A hint says the card has ``value`` (1–5)."""
    ki[CANT] |= FULL & ~VALUE_MASK[value]
    ki[POSS] = -1
    if ki[COL] == -1:
        ki[COL] = -2
    ki[VAL] = value
    _narrowed(ki, kf)


@kernel
def set_not_colour(ki, kf, colour):
    """A hint says the card is not ``colour``."""
    ki[CANT] |= COLOUR_MASK[colour]
    _ruled_out(ki)
    _narrowed(ki, kf)


@kernel
def set_not_value(ki, kf, value):
    """A hint says the card does not have ``value``."""
    ki[CANT] |= VALUE_MASK[value]
    _ruled_out(ki)
    _narrowed(ki, kf)


@kernel
def set_playable(ki, kf, m, yes):
    """A convention says the card is (not) playable."""
    mask = m[0]
    ki[CANT] |= (FULL & ~mask) if yes else mask
    _ruled_out(ki)
    ki[PLAY] = YES if yes else NO
    kf[PP] = 1.0 if yes else 0.0
    if ki[VALU] == MAYBE:
        kf[PV] = -1.0
    if ki[WORTH] == MAYBE:
        kf[PW] = -1.0
    if yes:
        ki[WORTH] = NO
        kf[PW] = 0.0


@kernel
def set_valuable(ki, kf, m, yes):
    """A convention says the card is (not) valuable."""
    mask = m[1]
    ki[CANT] |= (FULL & ~mask) if yes else mask
    _ruled_out(ki)
    if ki[PLAY] == MAYBE:
        kf[PP] = -1.0
    ki[VALU] = YES if yes else NO
    kf[PV] = 1.0 if yes else 0.0
    if ki[WORTH] == MAYBE:
        kf[PW] = -1.0
    if yes:
        ki[WORTH] = NO
        kf[PW] = 0.0


@kernel
def befuddle_by_discard(ki, kf):
    """A discard may have made valuable or worthless cards."""
    if ki[WORTH] != YES:
        ki[VALU] = MAYBE
        kf[PV] = -1.0
        ki[WORTH] = MAYBE
        kf[PW] = -1.0


@kernel
def befuddle_by_play(ki, kf, success):
    """A play changed the fireworks (success) or the public cards."""
    if success:
        ki[PLAY] = MAYBE
        kf[PP] = -1.0
    else:
        ki[VALU] = MAYBE
        kf[PV] = -1.0
    if ki[WORTH] != YES:
        ki[WORTH] = MAYBE
        kf[PW] = -1.0


@kernel
def update(ki, kf, exhausted):
    """Rule out ``exhausted`` identities (all copies public, located or seen)."""
    if known(ki):
        return
    if exhausted & ~ki[CANT]:
        ki[CANT] |= exhausted
        ki[POSS] = -1
        ki[COL] = -2
        ki[VAL] = -2
        ki[PLAY] = MAYBE
        ki[VALU] = MAYBE
        ki[WORTH] = MAYBE
        kf[PP] = -1.0
        kf[PV] = -1.0
        kf[PW] = -1.0


@kernel
def could_be_valuable_with(ki, kf, m, value, ti, tf):
    """Whether a value hint of ``value`` could make the card valuable (``ti``/``tf`` scratch)."""
    if value < 1 or value > 5:
        return False
    if ki[VAL] >= 0:
        if ki[VAL] != value:
            return False
    elif not (VALUE_MASK[value] & ~ki[CANT]):
        return False
    if valuable(ki, kf, m) != MAYBE:
        return False
    copy_card(ti, tf, ki, kf)
    set_value(ti, tf, value)
    return valuable(ti, tf, m) != NO


# --- the public position ---
@kernel
def is_worthless(g, played, k, v):
    """Whether card (k, v) can never be played."""
    nxt = g[k] + 1
    if v < nxt:
        return True
    while v > nxt:
        v -= 1
        if played[k, v] == COUNTS[v]:
            return True
    return False


@kernel
def is_valuable(g, played, k, v):
    """Whether card (k, v) is the last copy of a card still needed."""
    if played[k, v] != COUNTS[v] - 1:
        return False
    return not is_worthless(g, played, k, v)


@kernel
def compute_masks(g, played, m):
    """Write the playable, valuable and worthless identity masks into ``m``."""
    play = 0
    val = 0
    worth = 0
    for k in range(5):
        for v in range(1, 6):
            bit = 1 << (5 * k + v - 1)
            if v == g[k] + 1:
                play |= bit
            if is_valuable(g, played, k, v):
                val |= bit
            if is_worthless(g, played, k, v):
                worth |= bit
    m[0] = play
    m[1] = val
    m[2] = worth


@kernel
def exhausted(played, held):
    """Identities all of whose copies are public or in ``held`` (``(5, 6)``)."""
    mask = 0
    for k in range(5):
        for v in range(1, 6):
            if played[k, v] + held[k, v] == COUNTS[v]:
                mask |= 1 << (5 * k + v - 1)
    return mask


@kernel
def _count_known(ki, hl, out):
    """Count the known cards of every hand into ``out`` (Python's index wrap for -2)."""
    out[:] = 0
    for p in range(ki.shape[0]):
        for i in range(hl[p]):
            if known(ki[p, i]):
                c = ki[p, i, COL]
                v = ki[p, i, VAL]
                out[c if c >= 0 else c + 5, v if v >= 0 else v + 6] += 1


@kernel
def next_discard(ki, kf, m, n_cards):
    """The slot the holder would discard next (-1: it has a card to play or throw)."""
    best_fitness = 0.0
    best = -1
    for i in range(n_cards):
        if playable(ki[i], kf[i], m) == YES or worthless(ki[i], kf[i], m) == YES:
            return -1
        if valuable(ki[i], kf[i], m) == YES:
            continue
        fitness = 100 + kf[i, PW]
        if fitness > best_fitness:
            best_fitness = fitness
            best = i
    return best


@kernel
def no_warning_given(ki, kf, m, g, hl, frm):
    """Seat ``frm`` gave no warning: the left seat's next discard is not valuable."""
    if g[G_DECK] == 0 or g[G_HINTS] == 0:
        return
    n = ki.shape[0]
    expecting = (frm + 1) % n
    i = next_discard(ki[expecting], kf[expecting], m, hl[expecting])
    if i != -1:
        set_valuable(ki[expecting, i], kf[expecting, i], m, False)


@kernel
def remove(ki, kf, g, hl, p, i):
    """Card ``i`` leaves seat ``p``'s hand; a new blank one arrives if the deck has cards."""
    last = hl[p] - 1
    for j in range(i, last):
        copy_card(ki[p, j], kf[p, j], ki[p, j + 1], kf[p, j + 1])
    if g[G_DECK] != 0:
        blank(ki[p, last], kf[p, last])


@kernel
def before_move(me, ki, kf, m, played, hands, hl, loc, eye):
    """Before every move: deductions from the located cards until nothing changes.

    Returns:
        The mask of the identities all of whose copies this seat can account for.
    """
    n = ki.shape[0]
    _count_known(ki, hl, loc)
    while True:
        ex = exhausted(played, loc)
        for p in range(n):
            for i in range(hl[p]):
                update(ki[p, i], kf[p, i], ex)
        _count_known(ki, hl, eye)
        changed = False
        for k in range(5):
            for v in range(6):
                if eye[k, v] != loc[k, v]:
                    changed = True
        if not changed:
            break
        for k in range(5):
            for v in range(6):
                loc[k, v] = eye[k, v]
    eye[:] = 0
    for p in range(n):
        if p == me:
            for i in range(hl[p]):
                if known(ki[p, i]):
                    c = ki[p, i, COL]
                    v = ki[p, i, VAL]
                    eye[c if c >= 0 else c + 5, v if v >= 0 else v + 6] += 1
        else:
            for i in range(hl[p]):
                card = hands[p, i]
                eye[card // 5, card % 5 + 1] += 1
    return exhausted(played, eye)


# --- observing a move (the seat's arrays ``ki``/``kf`` are ``(n, h, 7)``/``(n, h, 3)``) ---
@kernel
def before_discard(me, ki, kf, m, g, hands, hl, frm, slot, card):
    """Seat ``frm`` discards ``card`` (engine id) from ``slot``."""
    n = ki.shape[0]
    no_warning_given(ki, kf, m, g, hl, frm)
    if known(ki[frm, slot]) and playable(ki[frm, slot], kf[frm, slot], m) == YES:
        holder = me  # a discard finesse: the first partner whose newest card it is
        for p in range(n):
            if p != frm and p != me and hands[p, hl[p] - 1] == card:
                holder = p
                break
        last = hl[holder] - 1
        set_colour(ki[holder, last], kf[holder, last], card // 5)
        set_value(ki[holder, last], kf[holder, last], card % 5 + 1)
    for p in range(n):
        for i in range(hl[p]):
            befuddle_by_discard(ki[p, i], kf[p, i])
    remove(ki, kf, g, hl, frm, slot)


@kernel
def before_play(ki, kf, m, g, hl, frm, slot, card):
    """Seat ``frm`` plays ``card`` (engine id) from ``slot``."""
    success = card % 5 + 1 == g[card // 5] + 1
    no_warning_given(ki, kf, m, g, hl, frm)
    for p in range(ki.shape[0]):
        for i in range(hl[p]):
            befuddle_by_play(ki[p, i], kf[p, i], success)
    remove(ki, kf, g, hl, frm, slot)


@kernel
def _read_hint(ki, kf, m, n_cards, touched, is_colour, x):
    """A hint's narrowing, newest first: (identified a playable card, newest still maybe)."""
    identified = False
    inferred = -1
    for i in range(n_cards - 1, -1, -1):
        a = ki[i]
        b = kf[i]
        was_maybe = playable(a, b, m) == MAYBE
        if touched >> i & 1:
            if is_colour:
                set_colour(a, b, x)
            else:
                set_value(a, b, x)
            if was_maybe:
                now = playable(a, b, m)
                if now == YES:
                    identified = True
                elif now == MAYBE and inferred == -1:
                    inferred = i
        else:
            if is_colour:
                set_not_colour(a, b, x)
            else:
                set_not_value(a, b, x)
            if was_maybe and playable(a, b, m) == YES:
                identified = True
    return identified, inferred


@kernel
def colour_hint(ki, kf, m, g, hl, frm, to, colour, touched):
    """Seat ``frm`` tells seat ``to`` the cards in ``touched`` (bit per slot) are ``colour``."""
    identified, inferred = _read_hint(ki[to], kf[to], m, hl[to], touched, True, colour)
    if not identified and inferred >= 0:
        set_playable(ki[to, inferred], kf[to, inferred], m, True)
    if to != (frm + 1) % ki.shape[0]:
        no_warning_given(ki, kf, m, g, hl, frm)


@kernel
def value_hint(ki, kf, m, g, hl, frm, to, value, touched, ti, tf):
    """Seat ``frm`` tells seat ``to`` the cards in ``touched`` have ``value`` (1–5)."""
    n = ki.shape[0]
    expecting = (frm + 1) % n
    discard = next_discard(ki[expecting], kf[expecting], m, hl[expecting])
    reclaim = g[G_HINTS] == 8 and frm == (to + 1) % n and (touched & 1) != 0
    warning = (
        not reclaim
        and to == expecting
        and discard >= 0
        and (touched >> discard & 1) != 0
        and could_be_valuable_with(ki[to, discard], kf[to, discard], m, value, ti, tf)
    )
    if warning:
        set_valuable(ki[to, discard], kf[to, discard], m, True)
    identified, inferred = _read_hint(ki[to], kf[to], m, hl[to], touched, False, value)
    if not warning and not reclaim and not identified and inferred >= 0:
        set_playable(ki[to, inferred], kf[to, inferred], m, True)
    if to != expecting:
        no_warning_given(ki, kf, m, g, hl, frm)


# --- deciding ---
@kernel
def _play_best(me, ki, kf, m, hl, eyex, ti, tf):
    best = -1
    best_fitness = 0.0
    for i in range(hl[me]):
        if playable(ki[me, i], kf[me, i], m) == NO:
            continue
        copy_card(ti, tf, ki[me, i], kf[me, i])
        update(ti, tf, eyex)
        if playable(ti, tf, m) != YES:
            continue
        fitness = 6.0 - get_value(ti)
        if playable(ki[me, i], kf[me, i], m) != YES:
            fitness += 100
        if fitness > best_fitness:
            best = i
            best_fitness = fitness
    return best


@kernel
def _discard_worthless(me, ki, kf, m, hl, eyex, ti, tf):
    best = -1
    best_fitness = 0.0
    for i in range(hl[me]):
        w = worthless(ki[me, i], kf[me, i], m)
        if w == NO:
            continue
        if w == MAYBE:
            copy_card(ti, tf, ki[me, i], kf[me, i])
            update(ti, tf, eyex)
            if worthless(ti, tf, m) != YES:
                continue
        fitness = 2.0 - kf[me, i, PW]
        if fitness > best_fitness:
            best = i
            best_fitness = fitness
    return best


@kernel
def _play_mystery(me, ki, kf, m, g, hl, eyex, ti, tf):
    lives = g[G_LIVES]
    limit = 3 if lives == 3 else (1 if lives >= 1 else -99)
    if g[G_DECK] > limit:
        return -1
    best = -1
    best_fitness = 0.0
    for i in range(hl[me] - 1, -1, -1):
        copy_card(ti, tf, ki[me, i], kf[me, i])
        update(ti, tf, eyex)
        if playable(ti, tf, m) == MAYBE:
            fitness = tf[PP]
            if fitness > best_fitness:
                best = i
                best_fitness = fitness
    return best


@kernel
def _hint_okay(old_i, old_f, new_i, new_f, m, g, hands, to, n_cards, is_colour, x, avoid):
    if not is_colour and x == avoid:
        return False  # it would read as a warning
    reveals = False
    misleading = MAYBE
    for c in range(n_cards - 1, -1, -1):
        if playable(old_i[c], old_f[c], m) != MAYBE:
            continue
        now = playable(new_i[c], new_f[c], m)
        card = hands[to, c]
        if now == YES:
            reveals = True
        elif now == MAYBE and misleading == MAYBE:
            includes = card // 5 == x if is_colour else card % 5 + 1 == x
            if includes:
                misleading = NO if card % 5 + 1 == g[card // 5] + 1 else YES
    return reveals or misleading == NO


@kernel
def best_hint_for(me, ki, kf, m, g, hands, hl, to, si, sf, out):  # noqa: C901
    """The best hint to seat ``to``: ``out`` = (fitness, is_colour, colour or value).

    One function as the reference's: the hint loop, its test and its fitness share the
    scratch copies ``si``/``sf`` (``(h + 1, 7)``/``(h + 1, 3)``), hence its length.
    """
    n = ki.shape[0]
    n_cards = hl[to]
    avoid = -1
    if to == (me + 1) % n:
        i = next_discard(ki[to], kf[to], m, n_cards)
        if i != -1:
            avoid = hands[to, i] % 5 + 1
            last = si.shape[0] - 1
            if not could_be_valuable_with(ki[to, i], kf[to, i], m, avoid, si[last], sf[last]):
                avoid = -1
    out[0] = -1
    out[1] = 0
    out[2] = -1
    old_i = ki[to]
    old_f = kf[to]
    for attr in range(2):
        for x in range(5) if attr == 0 else range(1, 6):
            present = False
            for c in range(n_cards):
                card = hands[to, c]
                if (card // 5 if attr == 0 else card % 5 + 1) == x:
                    present = True
            if not present:
                continue
            for c in range(n_cards):
                copy_card(si[c], sf[c], old_i[c], old_f[c])
                card = hands[to, c]
                if attr == 0:
                    if card // 5 == x:
                        set_colour(si[c], sf[c], x)
                    else:
                        set_not_colour(si[c], sf[c], x)
                elif card % 5 + 1 == x:
                    set_value(si[c], sf[c], x)
                else:
                    set_not_value(si[c], sf[c], x)
            if _hint_okay(old_i, old_f, si, sf, m, g, hands, to, n_cards, attr == 0, x, avoid):
                fitness = 0
                for c in range(n_cards):
                    fitness += possibilities(old_i[c]) - possibilities(si[c])
                if fitness > out[0]:
                    out[0] = fitness
                    out[1] = 1 if attr == 0 else 0
                    out[2] = x


@kernel
def _discard_finesse(me, ki, kf, m, g, hands, hl):
    n = ki.shape[0]
    if g[G_HINTS] == 8:
        return -1
    for i in range(hl[me]):
        a = ki[me, i]
        b = kf[me, i]
        if known(a) and valuable(a, b, m) == NO and playable(a, b, m) == YES:
            c = a[COL]
            v = a[VAL]
            count = 0
            for off in range(1, n):
                p = (me + off) % n
                card = hands[p, hl[p] - 1]
                if card // 5 == c and card % 5 + 1 == v:
                    count += 1
            if count == 1:
                return i
    return -1


@kernel
def decide(me, ki, kf, m, g, played, hands, hl, eyex, si, sf, out):  # noqa: C901
    """Seat ``me``'s move into ``out``: (kind M_*, slot or target, colour or value 1–5).

    The reference's chain of "maybe" steps (docs/bots.md §1.4), one branch each, in order.
    """
    n = ki.shape[0]
    last = si.shape[0] - 1
    ti = si[last]
    tf = sf[last]
    if g[G_DECK] == 0:
        i = _play_best(me, ki, kf, m, hl, eyex, ti, tf)
        if i == -1:
            i = _play_mystery(me, ki, kf, m, g, hl, eyex, ti, tf)
        if i != -1:
            out[0] = M_PLAY
            out[1] = i
            return
    if g[G_HINTS] != 0:  # warn the left partner of a valuable card about to go
        left = (me + 1) % n
        i = next_discard(ki[left], kf[left], m, hl[left])
        if i != -1:
            card = hands[left, i]
            if is_valuable(g, played, card // 5, card % 5 + 1):
                best_hint_for(me, ki, kf, m, g, hands, hl, left, si, sf, out)
                if out[0] > 0:
                    out[0] = M_COLOUR if out[1] == 1 else M_VALUE
                    out[1] = left
                    return
                out[0] = M_VALUE
                out[1] = left
                out[2] = card % 5 + 1
                return
    i = _discard_finesse(me, ki, kf, m, g, hands, hl)
    if i != -1:
        out[0] = M_DISCARD
        out[1] = i
        return
    i = _play_best(me, ki, kf, m, hl, eyex, ti, tf)
    if i != -1:
        out[0] = M_PLAY
        out[1] = i
        return
    if g[G_HINTS] != 0:
        best_fit = -1
        best_to = -1
        best_colour = 0
        best_x = -1
        for off in range(1, n):
            to = (me + off) % n
            best_hint_for(me, ki, kf, m, g, hands, hl, to, si, sf, out)
            if out[0] > best_fit:
                best_fit = out[0]
                best_to = to
                best_colour = out[1]
                best_x = out[2]
        if best_fit > 0:
            out[0] = M_COLOUR if best_colour == 1 else M_VALUE
            out[1] = best_to
            out[2] = best_x
            return
    i = _play_mystery(me, ki, kf, m, g, hl, eyex, ti, tf)
    if i != -1:
        out[0] = M_PLAY
        out[1] = i
        return
    if g[G_HINTS] == 8:
        right = (me + n - 1) % n
        out[0] = M_VALUE
        out[1] = right
        out[2] = hands[right, 0] % 5 + 1
        return
    out[0] = M_DISCARD
    i = _discard_worthless(me, ki, kf, m, hl, eyex, ti, tf)
    if i == -1:
        i = next_discard(ki[me], kf[me], m, hl[me])
    if i == -1:
        i = 0
        for j in range(hl[me]):
            if get_value(ki[me, j]) > get_value(ki[me, i]):
                i = j
    out[1] = i


# --- one seat of the policy: replaying its view's history, then deciding ---
def new_seat(players, hand_size):
    """A seat's arrays at the deal: ``(ki, kf, g, played, uids, hl, cards)`` (module docstring).

    ``uids``: ``(n, h)`` card identities (deck positions) per hand, oldest first; ``cards``:
    ``(n_cards,)`` the card id of every identity the seat has seen (-1 unseen).
    """
    n, h = players, hand_size
    ki = np.empty((n, h, 7), dtype=np.int64)
    ki[...] = BLANK_I  # every card as blank() leaves it
    kf = np.full((n, h, 3), -1.0, dtype=np.float64)
    g = np.zeros(10, dtype=np.int64)
    g[G_HINTS], g[G_LIVES], g[G_DECK], g[G_NEXT] = 8, 3, 50 - n * h, n * h
    uids = np.arange(n * h, dtype=np.int64).reshape(n, h)
    hl = np.full(n, h, dtype=np.int64)
    return ki, kf, g, np.zeros((5, 6), dtype=np.int64), uids, hl, np.full(50, -1, dtype=np.int64)


@kernel
def _apply(g, played, uids, hl, kind, actor, slot, card):
    """Advance the seat's table past a move (the card's engine id for plays and discards)."""
    if kind > E.DISCARD:
        g[G_HINTS] -= 1
        return
    c = card // 5
    v = card % 5 + 1
    for j in range(slot, hl[actor] - 1):
        uids[actor, j] = uids[actor, j + 1]
    hl[actor] -= 1
    played[c, v] += 1
    if kind == E.PLAY and v == g[c] + 1:
        g[c] += 1
        if v == 5 and g[G_HINTS] < 8:
            g[G_HINTS] += 1
    elif kind == E.PLAY:
        g[G_LIVES] -= 1
    else:
        g[G_HINTS] += 1
    if g[G_DECK] > 0:
        uids[actor, hl[actor]] = g[G_NEXT]
        hl[actor] += 1
        g[G_NEXT] += 1
        g[G_DECK] -= 1


@kernel
def _fill_hands(me, uids, hl, cards, hands):
    for p in range(hands.shape[0]):
        for i in range(hands.shape[1]):
            hands[p, i] = cards[uids[p, i]] if p != me and i < hl[p] else -1


@njit
def replay_and_decide(me, seat, view_cards, view_uids, view_len, hist, start, stop, out):
    """Replay history rows ``start:stop`` as seat ``me`` saw them, then decide into ``out``.

    The compiled form of ``BotPolicy.act`` with SmartBot's hooks (docs/bots.md §2): every move
    since the seat's last turn on the seat's table as it was, then the decision, as
    :func:`decide` writes it. One loop over the moves with one branch per move kind.

    Args:
        me: The seat.
        seat: The seat's arrays (:func:`new_seat`), updated in place.
        view_cards: ``(n, h)`` the view's card ids (own row unused).
        view_uids: ``(n, h)`` the view's card identities (own row unused).
        view_len: ``(n,)`` the view's hand lengths.
        hist: The view's ``(max_moves, fields)`` move records (``hanabi_env.engine.H_*``).
        start: The first row to replay.
        stop: The row after the last to replay.
        out: ``(3,)`` int64, the decision, written.
    """
    ki, kf, g, played, uids, hl, cards = seat
    n = ki.shape[0]
    h = ki.shape[1]
    for p in range(n):
        if p != me:
            for k in range(view_len[p]):
                cards[view_uids[p, k]] = view_cards[p, k]
    for r in range(start, stop):
        if hist[r, E.H_KIND] <= E.DISCARD:
            cards[hist[r, E.H_UID]] = hist[r, E.H_COLOR] * 5 + hist[r, E.H_RANK]
    si = np.empty((h + 1, 7), dtype=np.int64)
    sf = np.empty((h + 1, 3), dtype=np.float64)
    hands = np.empty((n, h), dtype=np.int64)
    loc = np.zeros((5, 6), dtype=np.int64)
    eye = np.zeros((5, 6), dtype=np.int64)
    m = np.zeros(3, dtype=np.int64)
    for r in range(start, stop):
        _fill_hands(me, uids, hl, cards, hands)
        compute_masks(g, played, m)
        if g[G_DECIDED]:  # this seat's own move: its before_move ran when it decided
            g[G_DECIDED] = 0
        else:
            before_move(me, ki, kf, m, played, hands, hl, loc, eye)
        kind = hist[r, E.H_KIND]
        actor = hist[r, E.H_ACTOR]
        slot = hist[r, E.H_SLOT]
        card = hist[r, E.H_COLOR] * 5 + hist[r, E.H_RANK]
        if kind == E.PLAY:
            before_play(ki, kf, m, g, hl, actor, slot, card)
        elif kind == E.DISCARD:
            before_discard(me, ki, kf, m, g, hands, hl, actor, slot, card)
        elif kind == E.REVEAL_COLOR:
            touched = hist[r, E.H_TOUCHED]
            colour_hint(ki, kf, m, g, hl, actor, hist[r, E.H_TARGET], hist[r, E.H_COLOR], touched)
        else:
            touched = hist[r, E.H_TOUCHED]
            value_hint(
                ki, kf, m, g, hl, actor, hist[r, E.H_TARGET], hist[r, E.H_RANK] + 1, touched,
                si[h], sf[h],
            )  # fmt: skip
        _apply(g, played, uids, hl, kind, actor, slot, card)
    _fill_hands(me, uids, hl, cards, hands)
    compute_masks(g, played, m)
    g[G_DECIDED] = 1
    eyex = before_move(me, ki, kf, m, played, hands, hl, loc, eye)
    decide(me, ki, kf, m, g, played, hands, hl, eyex, si, sf, out)

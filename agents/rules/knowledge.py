"""Card knowledge and view queries shared by the rules (docs/rules.md §2.2, §2.3, §2.5–§2.7).

The vocabulary every rule kernel is written in: the kernel decorators, what a player knows
about a slot, the card predicates of §2.3, hint enumeration and simulation (§2.5), the move
builders (§2.6), turn order and history queries (§2.7), and the Java (fixed) slots that the
reference rules reconstruct. Helpers take the *expanded* view ``v``
(:class:`hanabi_env.view.ExpandedView`); the few kernels (:data:`hanabi_env.jit.kernel`)
take a packed view ``pv``. The inlined helpers (:data:`hanabi_env.jit.inline`) are also
callable from Python with a :class:`hanabi_env.view.View` (their fields are the same): several
are public functions of :mod:`agents.rules`.
"""

from __future__ import annotations

import numpy as np

from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel, njit

# Non-literal constants. numba compiles one specialisation of a kernel per *literal* argument
# value, and also for the literal a variable starts with (``best = -1``) while types are still
# being inferred. NumPy scalars are typed int64 / bool, never literal, so the constants passed to
# kernels and the initial values of such variables are written with these.
NO = np.int64(-1)
ZERO = np.int64(0)
ONE = np.int64(1)
ALL = np.int64(-1)
"""Every bit set: the slot bitmask of a whole hand."""
TRUE = np.bool_(True)
FALSE = np.bool_(False)
_PLAY = np.int64(E.PLAY)
_DISCARD = np.int64(E.DISCARD)
_REVEAL_COLOR = np.int64(E.REVEAL_COLOR)
_REVEAL_RANK = np.int64(E.REVEAL_RANK)


# =============================================================================================
# Hands and knowledge (docs/rules.md §2.2)
# =============================================================================================


@inline
def hand_len(v, p):
    """|hand(p)| as an int64."""
    return np.int64(v.hand_len[p])


@inline
def card(v, p, k):
    """The card in ``p``'s slot ``k`` as an int64 (-1 for empty slots and the viewer's own)."""
    return np.int64(v.cards[p, k])


@inline
def seen_len(v, p):
    """How many of ``p``'s slots, from slot 0, hold a card the viewer sees, as an int64.

    |hand(p)| for another player's hand, 0 for the viewer's own hand (unless the view is a seer
    view): hands have no gaps, and a view hides all of the viewer's cards or none.
    """
    n = hand_len(v, p)
    return n if n == 0 or v.cards[p, 0] >= 0 else ZERO


@inline
def age_slot(v, p, newest):
    """``p``'s newest (largest uid) or else oldest (smallest uid) card's slot; -1 if empty.

    Under the shift hand order the oldest card is in slot 0 and the newest in the last slot.
    """
    n = hand_len(v, p)
    if n == 0:
        return NO
    if v.cfg[E.CFG_HAND_ORDER] == E.HAND_SHIFT:
        return n - 1 if newest else ZERO
    sign = 1 if newest else -1
    best = ZERO
    for k in range(1, n):
        if sign * v.uids[p, k] > sign * v.uids[p, best]:
            best = np.int64(k)
    return best


@inline
def _single(mask):
    """The value a plausibility bitmask pins down (exactly one bit set), else -1."""
    if E.popcount(mask) == 1:
        return E.lowest_bit(mask)
    return -1


@inline
def known_colour(v, p, k):
    """Colour ``p`` knows for its slot ``k`` (|Col| = 1, docs/rules.md §2.2), or -1 if unknown."""
    return _single(v.col_plaus[p, k])


@inline
def known_rank(v, p, k):
    """Rank ``p`` knows for its slot ``k`` (|Val| = 1, docs/rules.md §2.2), or -1 if unknown."""
    return _single(v.rank_plaus[p, k])


@inline
def fully_known(v, p, k):
    """Whether ``p`` knows both attributes of its slot ``k``."""
    return known_colour(v, p, k) >= 0 and known_rank(v, p, k) >= 0


@inline
def own_slot_end(v, k):
    """Whether my slot ``k`` is past the end of my hand (loop guard)."""
    return v.uids[v.scal[V.V_SEAT], k] < 0


@inline
def has_gap(v, p):
    """Whether ``p``'s hand has a gap: the deck is empty and ``p`` played or discarded since.

    The Java framework then left ``p``'s slot empty (null); our hands close the gap.
    """
    return v.scal[V.V_DECK] == 0 and hand_len(v, p) < v.cfg[E.CFG_HAND]


# =============================================================================================
# Card predicates (docs/rules.md §2.3)
# =============================================================================================


@inline
def min_height(v):
    """The lowest firework height."""
    m = v.cfg[E.CFG_RANKS]
    for c in range(v.cfg[E.CFG_COLORS]):
        m = min(m, v.fireworks[c])
    return m


@inline
def max_reachable(v, c):
    """maxReachable(c): the highest value still reachable for colour ``c`` (docs/rules.md §2.3).

    Returns the value (0..n_ranks) just below the lowest rank ``>= height(c)`` whose copies
    are all in the discard pile, else ``n_ranks``. A card of rank ``r`` (value ``r + 1``) is
    out of reach iff ``r >= max_reachable(v, c)``.
    """
    n_ranks = v.cfg[E.CFG_RANKS]
    for r in range(v.fireworks[c], n_ranks):
        if v.discards[c * n_ranks + r] >= E.copies_of_rank(n_ranks, r):
            return r
    return n_ranks


@inline
def safe_to_discard(v, c, r):
    """safeToDiscard(c?, v?) of docs/rules.md §2.3, with ``c`` or ``r`` = -1 for unknown."""
    n_ranks = v.cfg[E.CFG_RANKS]
    if c >= 0 and v.fireworks[c] >= n_ranks:
        return True  # (a) the colour is complete
    if c >= 0 and r >= 0 and r < v.fireworks[c]:
        return True  # (b) already played
    if r >= 0 and r < min_height(v):
        return True  # (c) played in every colour
    return c >= 0 and r >= 0 and r >= max_reachable(v, c)  # (d) out of reach


@inline
def is_playable(v, card):
    """playable(x): x.value = height(x.colour) + 1 (docs/rules.md §2.3)."""
    n_ranks = v.cfg[E.CFG_RANKS]
    return v.fireworks[card // n_ranks] == card % n_ranks


@inline
def usable(v, c, r):
    """Predicate *usable*(c?, v?) of docs/rules.md §2.3, with ``c`` or ``r`` = -1 for unknown."""
    if v.scal[V.V_INFO] < v.cfg[E.CFG_MAX_INFO] and safe_to_discard(v, c, r):
        return True
    return c >= 0 and r >= 0 and r == v.fireworks[c]


@inline
def knows_safe(v, p, k):
    """knowsSafe(p, k): safeToDiscard on ``p``'s knowledge of slot ``k`` (docs/rules.md §2.3)."""
    return safe_to_discard(v, known_colour(v, p, k), known_rank(v, p, k))


# =============================================================================================
# Hints (docs/rules.md §2.5) and moves (docs/rules.md §2.6)
# =============================================================================================


@inline
def n_hints(v):
    """Number of hints in the enumeration of docs/rules.md §2.5 (``n_ranks + n_colors``)."""
    return v.cfg[E.CFG_RANKS] + v.cfg[E.CFG_COLORS]


@inline
def hint_of(v, i):
    """Hint number ``i`` of the enumeration (docs/rules.md §2.5) as ``(is_colour, value)``.

    Values 1..5 first (``i < n_ranks`` → rank ``i``), then colours R..B (``n_ranks + c``).
    """
    n_ranks = v.cfg[E.CFG_RANKS]
    if i < n_ranks:
        return False, i
    return True, i - n_ranks


@inline
def touches(v, card, i):
    """Whether hint number ``i`` touches ``card`` (docs/rules.md §2.5 enumeration)."""
    n_ranks = v.cfg[E.CFG_RANKS]
    c = card // n_ranks
    if i < n_ranks:
        return card - c * n_ranks == i
    return c == i - n_ranks


@kernel
def simulate_hint_masks(pv, t, i, cm, rm):
    """:func:`simulate_hint` on the packed view ``pv``."""
    v = V.expand_view(pv)
    is_colour, value = hint_of(v, i)
    touched = ZERO
    for k in range(seen_len(v, t)):
        x = card(v, t, k)
        cm[k] = v.col_plaus[t, k]
        rm[k] = v.rank_plaus[t, k]
        hit = touches(v, x, i)
        if hit:
            touched += 1
        if is_colour:
            cm[k] = 1 << value if hit else cm[k] & ~(1 << value)
        else:
            rm[k] = 1 << value if hit else rm[k] & ~(1 << value)
    return touched


@kernel
def count_touched(pv, p, i):
    """Number of ``p``'s cards hint number ``i`` touches (known attributes included)."""
    v = V.expand_view(pv)
    n = ZERO
    for k in range(seen_len(v, p)):
        x = card(v, p, k)
        if touches(v, x, i):
            n += 1
    return n


@inline
def play(v, k):
    """Move uid of the viewer playing slot ``k``."""
    return E.encode_action(v.cfg, v.scal[V.V_SEAT], _PLAY, k, NO, NO)


@inline
def discard(v, k):
    """Move uid of the viewer discarding slot ``k``."""
    return E.encode_action(v.cfg, v.scal[V.V_SEAT], _DISCARD, k, NO, NO)


@inline
def tell_value(v, t, rank):
    """Move uid of the viewer revealing ``rank`` (0-based) to seat ``t``."""
    return E.encode_action(v.cfg, v.scal[V.V_SEAT], _REVEAL_RANK, NO, t, rank)


@inline
def tell_colour(v, t, colour):
    """Move uid of the viewer revealing ``colour`` to seat ``t``."""
    return E.encode_action(v.cfg, v.scal[V.V_SEAT], _REVEAL_COLOR, NO, t, colour)


@inline
def hint_action(v, t, i):
    """Move uid of hint number ``i`` (:func:`hint_of`) from the viewer to seat ``t``."""
    is_colour, value = hint_of(v, i)
    if is_colour:
        return tell_colour(v, t, value)
    return tell_value(v, t, value)


@inline
def tell_missing(v, t, k, value_first):
    """The tellMissing helper (docs/rules.md §2.6) about ``t``'s slot ``k``.

    Args:
        v: the viewer's view.
        t: the target seat.
        k: the slot.
        value_first: check the value before the colour (else the colour first).

    Returns:
        The hint's move uid, or -1 if ``t`` knows both attributes.
    """
    n_ranks = v.cfg[E.CFG_RANKS]
    x = card(v, t, k)
    rank_known = known_rank(v, t, k) >= 0
    if value_first and not rank_known:
        return tell_value(v, t, x % n_ranks)
    if known_colour(v, t, k) < 0:
        return tell_colour(v, t, x // n_ranks)
    if not rank_known:
        return tell_value(v, t, x % n_ranks)
    return -1


# =============================================================================================
# Turn order and history (docs/rules.md §2.7)
# =============================================================================================


@inline
def turn_order(v, i):
    """The ``i``-th other player in turn order (``i`` = 0..N−2): me+1, me+2, ... (docs/rules.md).

    Absolute order (docs/rules.md §2.7) is simply ``0..N−1`` skipping the viewer.
    """
    return (v.scal[V.V_SEAT] + 1 + i) % v.cfg[E.CFG_PLAYERS]


@inline
def next_player(v):
    """The seat after the viewer's."""
    return (v.scal[V.V_SEAT] + 1) % v.cfg[E.CFG_PLAYERS]


@inline
def slot_of_uid(v, p, uid):
    """Current slot of the card ``uid`` in ``p``'s hand, or -1 if it is no longer there."""
    if uid < 0:
        return -1
    for k in range(hand_len(v, p)):
        if v.uids[p, k] == uid:
            return k
    return -1


@inline
def is_hint_to(v, m, p):
    """Whether history record ``m`` is a hint (colour or value) whose target is ``p``."""
    kind = v.hist[m, E.H_KIND]
    return (kind == E.REVEAL_COLOR or kind == E.REVEAL_RANK) and v.hist[m, E.H_TARGET] == p


@inline
def touched_slots(v, m, p, java):
    """Bitmask of the slots holding the cards hint record ``m`` touched.

    ``java`` false: ``p``'s current slots still holding them; true: their Java slots
    (:func:`java_slot`, whether or not the cards are still held).
    """
    out = ZERO
    for j in range(v.hist_uids.shape[1]):
        uid = v.hist_uids[m, j]
        if uid < 0:
            break
        k = java_slot(v, np.int64(uid)) if java else slot_of_uid(v, p, uid)
        if k >= 0:
            out |= ONE << k
    return out


@inline
def ge(g, t, bg, bt):
    """Whether ``g/t >= bg/bt`` (cross-multiplied, docs/rules.md §2.10; ``t, bt > 0``)."""
    return g * bt >= bg * t


# =============================================================================================
# Java (fixed) slots, for the reference rules (docs/rules.md §12)
# =============================================================================================


@inline
def java_slot(v, uid):
    """The Java (fixed) slot of card ``uid`` in its owner's hand, or -1.

    Java cards never move and hints name slots; our engine compacts a hand once the deck is
    empty, so the Java slot is recovered from the card's identity. The deal puts deck position
    ``p * H + k`` in seat ``p``'s slot ``k``; a later card takes the slot of the card whose
    play or discard drew it: the last move made with at least ``n_cards - uid`` cards in the
    deck (the deck size before each move never increases). Draws only happen while the deck
    is not empty, before any hand is compacted, so the slot recorded for that move is the Java
    slot.
    """
    h = np.int64(v.cfg[E.CFG_HAND])
    if uid < np.int64(v.cfg[E.CFG_PLAYERS]) * h:
        return np.int64(uid % h)
    left = np.int64(v.cfg[E.CFG_N_CARDS]) - uid
    lo = ZERO
    hi = np.int64(v.scal[V.V_N_MOVES])
    while lo < hi:  # the first move with fewer than `left` cards in the deck
        mid = (lo + hi) >> 1
        if v.hist[mid, E.H_DECK_BEFORE] >= left:
            lo = mid + 1
        else:
            hi = mid
    m = lo - 1
    if m < 0:
        return NO
    kind = v.hist[m, E.H_KIND]
    if kind != E.PLAY and kind != E.DISCARD:
        return NO
    return np.int64(v.hist[m, E.H_SLOT])


@inline
def slot_of_java(v, p, js):
    """``p``'s current slot holding Java slot ``js``, or -1 when that Java slot is empty.

    A hand shorter than the nominal size has been compacted (the deck is empty): its Java
    slots are looked up card by card; a full hand never was.
    """
    if hand_len(v, p) == v.cfg[E.CFG_HAND]:
        return js
    for k in range(hand_len(v, p)):
        if java_slot(v, np.int64(v.uids[p, k])) == js:
            return np.int64(k)
    return NO


# =============================================================================================
# Views from Python
# =============================================================================================


@njit(inline="always")
def expanded(v):
    """The :class:`~hanabi_env.view.ExpandedView` of a :class:`~hanabi_env.view.View` (copies).

    The public functions take a ``View`` and expand it once; the kernels take packed views.
    """
    return V.expand_view(V.pack_view(v))


@njit
def simulate_hint(v, t, i, cm, rm):
    """Apply hint number ``i`` to a COPY of ``t``'s knowledge (docs/rules.md §2.5).

    Args:
        v: the viewer's view.
        t: the target seat (its cards are visible to the viewer).
        i: the hint number (:func:`hint_of`).
        cm: ``(hand_size,)`` int64 output, ``t``'s colour masks after the hint (positive and
            negative information), for slots ``< hand_len[t]``.
        rm: the same for the rank masks.

    Returns:
        The number of ``t``'s cards the hint touches (0: not a legal hint).
    """
    return simulate_hint_masks(expanded(v).packed, t, i, cm, rm)

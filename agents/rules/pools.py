"""Candidate pools, probabilities and the rules' scratch table (docs/rules.md §2.3–§2.5, §2.10).

* **Card table.** A ``(2, n_colors * n_ranks)`` int64 array: row :data:`TAB_COUNT` holds a
  candidate pool (U_me of docs/rules.md §2.4, or U_{me→t} of §2.5) and row :data:`TAB_CLASS`
  the public class bits of every card (:data:`CLS_PLAYABLE`, :data:`CLS_USELESS`,
  :data:`CLS_NECESSARY`, docs/rules.md §2.3). It is computed once per decision.
* **Scratch table.** ``(TAB_ROWS, W)`` int64 (:func:`scratch_shape`): the card table, then the
  rules' work buffers and per-decision caches (the rule kernels never allocate).
* **Probabilities** are integer pairs (candidates with the property, all candidates), compared
  with thresholds ``num / den`` and with each other by cross-multiplication (docs/rules.md
  §2.10); a slot without candidates is never selected.
"""

from __future__ import annotations

import numpy as np

from agents.rules import knowledge as K
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import alloc, inline, kernel, njit

# --- card table rows and class bits (docs/rules.md §2.3, §2.4) ------------------------------------
TAB_COUNT = 0
TAB_CLASS = 1
# A *scratch* table (:func:`scratch_shape`) has TAB_ROWS rows: the card table, then the rules'
# work buffers and per-decision caches.
TAB_PARTNER = 2  # rows 2-3: a partner table U_{me->t}
TAB_CM = 4  # a row of colour masks for hint simulation
TAB_RM = 5  # a row of rank masks
TAB_OWN = 6  # rows 6-9: the viewer's candidate counts per own slot (the STAT_* order),
# filled at the first use in a decision (:func:`own_counts`)
TAB_PACK = 10  # the card table's counts packed per colour (:func:`pack_table`)
TAB_META = 11  # column 0: 1 once the own-slot counts of the current decision are filled;
# column 1: 1 once the card table (rows 0-1) of the current decision is filled
TAB_MASK = 12  # a legal-move mask (LegalRandom)
TAB_PACK_T = 13  # the packed counts of the partner table in rows 2-3 (:func:`partner_pack`)
TAB_ROWS = 14
N_STATS = 4  # the candidate statistics: total, playable, useless, necessary
STAT_PLAYABLE = np.int64(1)
STAT_USELESS = np.int64(2)
STAT_NECESSARY = np.int64(3)
CLS_PLAYABLE = 1
CLS_USELESS = 2
CLS_NECESSARY = 4


# =============================================================================================
# Card classes and the card table (docs/rules.md §2.3, §2.4)
# =============================================================================================


@inline
def card_class(v, card):
    """The class bits of an actual card (``CLS_*``, docs/rules.md §2.3)."""
    n_ranks = v.cfg[E.CFG_RANKS]
    c = card // n_ranks
    r = card - c * n_ranks
    bits = CLS_PLAYABLE if v.fireworks[c] == r else 0
    if K.safe_to_discard(v, c, r):
        return bits | CLS_USELESS
    if r == n_ranks - 1 or v.discards[card] == E.copies_of_rank(n_ranks, r) - 1:
        bits |= CLS_NECESSARY
    return bits


@inline
def is_useless(v, card):
    """useless(x) = safeToDiscard(x.colour, x.value) for an actual card (docs/rules.md §2.3)."""
    return card_class(v, card) & CLS_USELESS != 0


@inline
def is_necessary(v, card):
    """necessary(x): not useless; a 5 or the last copy outside the discards (docs/rules.md §2.3)."""
    return card_class(v, card) & CLS_NECESSARY != 0


@kernel
def fill_card_table(pv, out):
    """Fill the viewer's card table ``out`` (see :func:`card_table`) from the packed view."""
    # The hot path of every decision: the per-card class is computed here in one pass per
    # colour (same conditions as card_class; a test checks that they agree). With h the
    # height: useless iff r < h (played; this covers "played in every colour", as the lowest
    # height is <= h) or r >= maxReachable (some rank in [h, r] has every copy discarded).
    # Written without data-dependent branches (0/1 arithmetic): they were mispredicted.
    v = V.expand_view(pv)
    n_ranks = np.int64(v.cfg[E.CFG_RANKS])
    top = n_ranks - 1
    card = 0
    for c in range(v.cfg[E.CFG_COLORS]):
        h = np.int64(v.fireworks[c])
        dead = K.ZERO
        for r in range(n_ranks):
            copies = E.copies_of_rank(n_ranks, r)
            dis = np.int64(v.discards[card])
            below = np.int64(r < h)
            dead |= np.int64(r >= h) & np.int64(dis >= copies)  # maxReachable <= r
            useless = below | dead
            necessary = (1 - useless) & (np.int64(r == top) | np.int64(dis == copies - 1))
            out[TAB_COUNT, card] = copies - dis - below
            out[TAB_CLASS, card] = (
                useless * CLS_USELESS + necessary * CLS_NECESSARY + np.int64(h == r) * CLS_PLAYABLE
            )
            card += 1
    me = v.scal[V.V_SEAT]
    for p in range(v.cfg[E.CFG_PLAYERS]):
        for k in range(v.hand_len[p]):
            card = v.cards[p, k]
            if p == me or card < 0:
                break
            out[TAB_COUNT, card] -= 1
    if out.shape[0] >= TAB_ROWS:
        out[TAB_META, 0] = 0  # the own-slot counts of the previous decision are stale
        out[TAB_META, 1] = 1


@kernel
def fill_partner_table(pv, t, tab, out):
    """Write U_{me→t} (see :func:`partner_table`) to ``out``, from the packed view."""
    v = V.expand_view(pv)
    for card in range(v.cfg[E.CFG_COLORS] * v.cfg[E.CFG_RANKS]):
        out[TAB_COUNT, card] = tab[TAB_COUNT, card]
        out[TAB_CLASS, card] = tab[TAB_CLASS, card]
    for k in range(K.seen_len(v, t)):
        card = K.card(v, t, k)
        out[TAB_COUNT, card] += 1


@inline
def partner_pack(v, t, tab):
    """Fill the partner table U_{me->t} (rows 2-3 of scratch ``tab``) and its packed row.

    Returns ``(tab_t, pack_t)``, for :func:`packed_counts`.
    """
    tab_t = tab[TAB_PARTNER : TAB_PARTNER + 2]
    pack_t = tab[TAB_PACK_T]
    fill_partner_table(v.packed, t, tab, tab_t)
    pack_table(v, tab_t, pack_t)
    return tab_t, pack_t


# =============================================================================================
# Candidate counts (docs/rules.md §2.4, §2.5)
# =============================================================================================


@inline
def cand_counts(v, tab, cm, rm):
    """Candidate counts of a slot with colour / rank knowledge bitmasks ``cm`` / ``rm``.

    Args:
        v: the view.
        tab: a card table (its count row is the pool: U_me or U_{me→t}).
        cm: int64 bitmask of the plausible colours.
        rm: int64 bitmask of the plausible ranks.

    Returns:
        ``(total, playable, useless, necessary)``: |cand(s)| (pool cards possible under the
        masks, with multiplicity) and how many have each property (docs/rules.md §2.4). A
        probability P(φ | s) is ``count / total``.
    """
    n_ranks = v.cfg[E.CFG_RANKS]
    total = K.ZERO
    n_play = K.ZERO
    n_useless = K.ZERO
    n_nec = K.ZERO
    for c in range(v.cfg[E.CFG_COLORS]):
        if not (cm >> c) & 1:
            continue
        bits = rm
        card = c * n_ranks
        while bits > 0:  # the set ranks, lowest first
            n = tab[TAB_COUNT, card]
            if bits & 1 and n > 0:
                cls = tab[TAB_CLASS, card]
                total += n
                n_play += n * (cls & CLS_PLAYABLE)
                n_useless += n * ((cls & CLS_USELESS) >> 1)
                n_nec += n * ((cls & CLS_NECESSARY) >> 2)
            bits >>= 1
            card += 1
    return total, n_play, n_useless, n_nec


@inline
def slot_counts(v, tab, p, k):
    """:func:`cand_counts` of ``p``'s slot ``k`` under ``p``'s current knowledge.

    With the viewer's table and ``p`` = viewer this is cand_me(k) (docs/rules.md §2.4); with a
    :func:`partner_table` for ``p`` it is cand_{me→p}(k) (docs/rules.md §2.5).
    """
    return cand_counts(v, tab, np.int64(v.col_plaus[p, k]), np.int64(v.rank_plaus[p, k]))


# Packed counts. A candidate count is a sum of table entries over the cards a slot's colour and
# rank masks allow. Packing a colour's ranks into the bytes of one int64 (rank r in byte r, at
# most 50 cards in any sum, so no byte ever carries) turns the sum over ranks into a mask and a
# byte sum, and the sum over colours into adds: 5 steps instead of up to 25. Every statistic of
# cand_counts gets its own packed value; the results are the same integers.
_RANK_BYTES = np.array(
    [sum(0xFF << (8 * r) for r in range(5) if (m >> r) & 1) for m in range(32)], dtype=np.int64
)
"""Rank bitmask (5 bits) -> the byte mask of those ranks in a packed colour."""


@inline
def _byte_sum(x):
    """Sum of the 5 low bytes of ``x`` (each sum below 256)."""
    x = x + (x >> 16)
    x = x + (x >> 8)
    return (x + (x >> 32)) & 0xFF


@inline
def pack_table(v, tab, out):
    """Pack the count row of ``tab`` per colour into ``out[N_STATS * c + stat]``.

    ``stat``: 0 all candidates, 1 playable, 2 useless, 3 necessary (class bits of ``tab``);
    negative counts (impossible positions) count as 0, as in :func:`cand_counts`.
    """
    n_ranks = v.cfg[E.CFG_RANKS]
    for c in range(v.cfg[E.CFG_COLORS]):
        p_all = K.ZERO
        p_play = K.ZERO
        p_useless = K.ZERO
        p_nec = K.ZERO
        card = c * n_ranks
        for r in range(n_ranks):  # branch-free
            x = max(tab[TAB_COUNT, card], K.ZERO) << (8 * r)
            cls = tab[TAB_CLASS, card]
            p_all += x
            p_play += x * (cls & CLS_PLAYABLE)
            p_useless += x * ((cls >> 1) & 1)
            p_nec += x * ((cls >> 2) & 1)
            card += 1
        out[N_STATS * c] = p_all
        out[N_STATS * c + 1] = p_play
        out[N_STATS * c + 2] = p_useless
        out[N_STATS * c + 3] = p_nec


@inline
def packed_counts(pack, cm, rm):
    """:func:`cand_counts` from a packed row (:func:`pack_table`)."""
    a_all = K.ZERO
    a_play = K.ZERO
    a_useless = K.ZERO
    a_nec = K.ZERO
    i = 0
    while cm > 0:  # the colour bit as a 0/1 factor (a branch here was mispredicted)
        bit = cm & 1
        a_all += pack[i] * bit
        a_play += pack[i + 1] * bit
        a_useless += pack[i + 2] * bit
        a_nec += pack[i + 3] * bit
        cm >>= 1
        i += N_STATS
    rb = _RANK_BYTES[rm]
    return (
        _byte_sum(a_all & rb),
        _byte_sum(a_play & rb),
        _byte_sum(a_useless & rb),
        _byte_sum(a_nec & rb),
    )


@inline
def cand_counts_packed(v, tab, cm, rm):
    """:func:`cand_counts` computed from counts packed per colour (the rules' fast path).

    Same arguments and results; ``tab`` must be a scratch table (:func:`new_card_table`), whose
    packed row this call refreshes from its count and class rows.
    """
    pack_table(v, tab, tab[TAB_PACK])
    return packed_counts(tab[TAB_PACK], np.int64(cm), np.int64(rm))


@kernel
def _fill_own_counts(pv, tab):
    """Fill the own-slot count rows of a scratch table (see :data:`TAB_OWN`)."""
    v = V.expand_view(pv)
    pack = tab[TAB_PACK]
    pack_table(v, tab, pack)
    me = v.scal[V.V_SEAT]
    for k in range(K.hand_len(v, me)):
        total, n_play, n_useless, n_nec = packed_counts(
            pack, np.int64(v.col_plaus[me, k]), np.int64(v.rank_plaus[me, k])
        )
        tab[TAB_OWN, k] = total
        tab[TAB_OWN + 1, k] = n_play
        tab[TAB_OWN + 2, k] = n_useless
        tab[TAB_OWN + 3, k] = n_nec
    tab[TAB_META, 0] = 1


@inline
def own_counts(v, tab, k):
    """:func:`slot_counts` of the viewer's slot ``k`` with the viewer's table ``tab``.

    The counts of every own slot are computed once per decision (``tab`` is the scratch).
    """
    if tab[TAB_META, 0] == 0:
        _fill_own_counts(v.packed, tab)
    return tab[TAB_OWN, k], tab[TAB_OWN + 1, k], tab[TAB_OWN + 2, k], tab[TAB_OWN + 3, k]


@kernel
def best_own_slot(pv, tab, stat, lowest, num, den, eligible):
    """My slot with the highest P_me(``stat``) >= num/den (docs/rules.md §3.1, §3.3).

    ``lowest``: the lowest probability instead (the threshold still applies). Only my slots
    in the bitmask ``eligible`` (:data:`~agents.rules.knowledge.ALL`: every slot) with
    candidates count; ties → the highest slot.

    Args:
        pv: the viewer's packed view.
        tab: the viewer's scratch table, card table filled.
        stat: :data:`STAT_PLAYABLE`, :data:`STAT_USELESS` or :data:`STAT_NECESSARY`.
        lowest: np.bool_.
        num: the threshold's numerator (with ``den = 1``, 0: no threshold).
        den: its denominator.
        eligible: int64 slot bitmask.

    Returns:
        ``(slot, count, total)``: the slot (-1 if none) and its probability as a pair.
    """
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    best = K.NO
    bg = K.ZERO
    bt = K.ONE
    for k in range(K.hand_len(v, me)):
        if K.own_slot_end(v, k):
            break
        if not (eligible >> k) & 1:
            continue
        t = own_counts(v, tab, k)[0]
        g = tab[TAB_OWN + stat, k]
        better = K.ge(bg, bt, g, t) if lowest else K.ge(g, t, bg, bt)
        if t > 0 and g * den >= num * t and (best < 0 or better):
            best = k
            bg = g
            bt = t
    return best, bg, bt


@kernel
def best_own_move(pv, tab, stat, lowest, num, den):
    """Play (``stat`` :data:`STAT_PLAYABLE`) or else discard the slot of :func:`best_own_slot`.

    PlayProbablySafeCard(num/den) (3–7, 49; inside 41–47 and X1): the highest
    P_me(playable) >= num/den; DiscardProbablyUselessCard(num/den) (29–33, X2): the highest
    P_me(useless) >= num/den; DiscardLeastLikelyToBeNecessary (26): the lowest
    P_me(necessary). Ties → the highest slot (docs/rules.md §3.1, §3.3). -1 if no slot
    qualifies. Arguments as :func:`best_own_slot`.
    """
    v = V.expand_view(pv)
    k, _, _ = best_own_slot(pv, tab, stat, lowest, num, den, K.ALL)
    if k < 0:
        return -1
    return K.play(v, k) if stat == STAT_PLAYABLE else K.discard(v, k)


@inline
def mask_buffers(v, tab):
    """Zeroed ``(cm, rm)`` masks (at least ``hand_size`` long): rows of a scratch ``tab``."""
    cm = tab[TAB_CM]
    rm = tab[TAB_RM]
    for k in range(v.cfg[E.CFG_HAND]):
        cm[k] = 0
        rm[k] = 0
    return cm, rm


@inline
def has_class(v, tab, p, cls):
    """Whether ``p`` holds an actual card of class ``cls`` (playable / useless bit)."""
    for k in range(K.hand_len(v, p)):
        card = K.card(v, p, k)
        if card >= 0 and tab[TAB_CLASS, card] & cls:
            return True
    return False


@inline
def first_holding(v, tab, cls):
    """The first other player in turn order holding an actual card of class ``cls``, or -1."""
    for i in range(v.cfg[E.CFG_PLAYERS] - 1):
        t = K.turn_order(v, i)
        if has_class(v, tab, t, cls):
            return t
    return -1


# =============================================================================================
# Scratch tables
# =============================================================================================


@njit(inline="always")
def scratch_width(cfg):
    """Columns of a scratch table: a card table row, a packed row, a slot row, a move mask."""
    n_colors = cfg[E.CFG_COLORS]
    return max(
        n_colors * cfg[E.CFG_RANKS], N_STATS * n_colors, cfg[E.CFG_HAND], cfg[E.CFG_N_ACTIONS]
    )


def scratch_shape(cfg) -> tuple[int, int]:
    """Shape of a scratch table for a configuration vector (``State.cfg`` / ``View.cfg``).

    ``(TAB_ROWS, max(n_colors * n_ranks, 4 * n_colors, hand_size, n_actions))``: the rows
    hold the card table, work buffers and per-decision caches of the rules.
    """
    return TAB_ROWS, int(scratch_width(np.asarray(cfg, dtype=np.int64)))


@alloc
def empty_table(v):
    """A new, unfilled scratch table for the view ``v``."""
    return np.empty((TAB_ROWS, scratch_width(v.cfg)), dtype=np.int64)


@alloc
def new_table(v):
    """A new scratch table holding the viewer's card table."""
    tab = empty_table(v)
    fill_card_table(v.packed, tab)
    return tab


@alloc
def as_scratch(v, tab):
    """``tab`` if it is a scratch table, else a new scratch table with its first two rows."""
    if tab.shape[0] >= TAB_ROWS and tab.shape[1] >= scratch_width(v.cfg):
        return tab
    out = empty_table(v)
    n = v.cfg[E.CFG_COLORS] * v.cfg[E.CFG_RANKS]
    out[:2, :n] = tab[:2, :n]
    out[TAB_META, 0] = 0
    out[TAB_META, 1] = 1
    return out


# =============================================================================================
# Public functions on a View
# =============================================================================================


@njit
def card_table(v, out):
    """Fill the viewer's card table ``out`` (U_me counts and class bits, docs/rules.md §2.3–§2.4).

    Args:
        v: the viewer's view.
        out: ``(2, n_colors * n_ranks)`` int64. Row ``TAB_COUNT`` gets U_me, the cards the
            viewer cannot see (full deck minus the discards, the fireworks and every other
            player's hand = draw pile + own hand); row ``TAB_CLASS`` the class bits
            (``CLS_PLAYABLE | CLS_USELESS | CLS_NECESSARY``) of every card.
    """
    fill_card_table(K.expanded(v).packed, out)


@njit
def new_card_table(v):
    """Allocate a scratch table holding the viewer's card table (see :func:`card_table`).

    Returns:
        ``(TAB_ROWS, W)`` int64 (``W >= n_colors * n_ranks``); rows ``TAB_COUNT`` and
        ``TAB_CLASS`` (first ``n_colors * n_ranks`` columns) are the card table, the other
        rows are work buffers for :func:`agents.rules.apply_rule_table`.
    """
    return new_table(K.expanded(v))


@njit
def partner_table(v, t, tab, out):
    """Write the card table of U_{me→t} = U_me + hand(t) (docs/rules.md §2.5) to ``out``.

    The documented approximation of docs/rules.md §2.5: the pool keeps the viewer's own hand,
    which ``t`` can see.

    Args:
        v: the viewer's view.
        t: the target seat (not the viewer).
        tab: the viewer's table from :func:`card_table`.
        out: ``(2, n_colors * n_ranks)`` int64, overwritten.
    """
    fill_partner_table(K.expanded(v).packed, t, tab, out)


@njit
def own_slot_counts(v, tab, k):
    """:func:`slot_counts` of the viewer's slot ``k``, from the per-decision cache of ``tab``.

    ``tab``: the viewer's scratch table (:func:`new_card_table`); the first call after the
    card table was filled computes every own slot at once.
    """
    return own_counts(K.expanded(v), tab, k)


@inline
def _probability(counts, cls):
    """``count / total`` of the class bit ``cls`` from :func:`cand_counts`' result; 0.0 if none."""
    total, n_play, n_useless, n_nec = counts
    good = n_play if cls == CLS_PLAYABLE else (n_useless if cls == CLS_USELESS else n_nec)
    return good / total if total > 0 else 0.0


@njit
def own_probability(v, k, cls):
    """P_me(φ | k) for the viewer's slot ``k`` (docs/rules.md §2.4), as a float.

    Args:
        v: the viewer's view.
        k: the viewer's slot.
        cls: φ as a class bit: ``CLS_PLAYABLE``, ``CLS_USELESS`` or ``CLS_NECESSARY``.

    Returns:
        The probability; 0.0 if the slot has no candidate.
    """
    v = K.expanded(v)
    return _probability(slot_counts(v, new_table(v), v.scal[V.V_SEAT], k), cls)


@njit
def partner_probability(v, t, k, cls, hint):
    """P_{me→t}(φ | k) (docs/rules.md §2.5), optionally after a simulated hint.

    Args:
        v: the viewer's view.
        t: another seat.
        k: ``t``'s slot.
        cls: φ as a class bit: ``CLS_PLAYABLE``, ``CLS_USELESS`` or ``CLS_NECESSARY``.
        hint: -1 for ``t``'s current knowledge, else a hint number
            (:func:`~agents.rules.knowledge.hint_of`) applied to a copy of ``t``'s knowledge
            first.

    Returns:
        The probability; 0.0 if the slot has no candidate (impossible for a held card).
    """
    v = K.expanded(v)
    tab = new_table(v)
    tab_t = np.empty_like(tab)
    fill_partner_table(v.packed, t, tab, tab_t)
    cm, rm = mask_buffers(v, tab)
    for j in range(K.hand_len(v, t)):
        cm[j] = v.col_plaus[t, j]
        rm[j] = v.rank_plaus[t, j]
    if hint >= 0:
        K.simulate_hint_masks(v.packed, t, hint, cm, rm)
    return _probability(cand_counts(v, tab_t, cm[k], rm[k]), cls)

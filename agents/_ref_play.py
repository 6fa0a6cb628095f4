"""Play rules 0, 9, 41, 42, 50–66 and the tell rule 16 as the Java reference ran them.

``ruleset="reference"``; the corrected rules are in :mod:`agents._rules` (docs/rules.md §3.1,
§3.2). The reference is the framework v0.2.1 (finesse rules, PlayUniquePossibleCard,
PlayProbablySafeCard under IfRule) and Hanabi-Map-Elites' PlayJustHinted. The Java agent
decides on its *own* game state, rebuilt from the events it was sent; several differences come
from that state:

* **Hand ages.** Ages (``TimedHand``) are only updated for the agent's own hand (the
  "card received" events are private); in every other hand all ages stay 0, so the "newest
  card" of another player is its first non-empty slot.
* **The agent's deck** holds every card it has not seen: its own hand plus the real deck. It is
  never empty while the agent holds a card.
* **Fixed slots.** Java cards never move; hints name slots. Our engine compacts a hand once the
  deck is empty, so Java slots are recovered from card identities (:func:`_java_slot`).

Differences from the corrected rules:

* **PlayFinesse (0).** Fires when the previous move was a hint that was *not* given to the next
  player (v0.2.4 requires the opposite). A hint given to the agent itself makes it read its own
  (unknown, null) card: it throws, so in 2-player games it throws after every hint received. A
  touched card one rank above playable makes the agent play its newest card.
* **PlayUniquePossibleCard (9).** Scans the hints to the agent that touched one card, newest
  first, stopping when every slot has been refilled since (a draw "invalidates" its slot). A
  colour hint (slot not refilled since) fires when a copy of the card *on top* of that
  firework (not the next one) is unseen; a colour with nothing played never fires. A value hint
  fires when a playable card of that value is unseen, even if its slot was refilled since (the
  new card is played) or is now empty (an illegal play: the game ends).
* **TellFinesse (16).** The next player's "newest" card is its first non-empty slot (ages of
  other hands are never updated). It throws when the player after holds an empty slot.
* **IF(HailMary) PlayProbablySafeCard (41, 42).** HailMary asks whether the agent's deck is
  empty, which needs the agent's own hand to be empty: never at a decision. They never fire.
* **PlayJustHinted (50–66).** Hints mark *slots*, not cards: a slot touched by a collected
  hint stays marked after its card was played or discarded and replaced, so the new card is a
  candidate (the corrected rule follows the touched card).

Return codes (as every reference kernel): a legal move uid; -1 the rule does not fire; -2 the
Java rule throws (skipped, :data:`RAISED`); -4 a move the Java runner rejects
(:data:`REJECTED`).
"""

from __future__ import annotations

import numpy as np

from agents import _rules as R
from agents._rules import (
    R_P0,
    R_P1,
    R_P2,
    R_P3,
    R_P4,
    RULE_TABLE,
    TAB_COUNT,
    TAB_META,
    _card,
    _card_table,
    _count_touched,
    _expanded,
    _finesse_hint,
    _hand_len,
    _is_hint_to,
    _is_playable,
    _new_table,
    _newest_slot,
    _next_player,
    _own_counts,
    _play,
    _slot_of_uid,
)
from hanabi_env._engine import (
    CFG_COLORS,
    CFG_HAND,
    CFG_N_CARDS,
    CFG_PLAYERS,
    CFG_RANKS,
    DISCARD,
    H_ACTOR,
    H_COLOR,
    H_DECK_BEFORE,
    H_KIND,
    H_RANK,
    H_SLOT,
    H_TARGET,
    H_TOUCHED,
    PLAY,
    REVEAL_COLOR,
    REVEAL_RANK,
    popcount,
)
from hanabi_env._jit import njit
from hanabi_env._view import V_DONE, V_INFO, V_LIFE, V_N_MOVES, V_SEAT, expand_view

_kernel = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy", _nrt=False)
_inline = njit(inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")

GENES: tuple[int, ...] = (0, 9, 16, 41, 42, *range(50, 67))
"""The alphabet indices implemented here."""

RAISED = -2
REJECTED = -4
_NO = np.int64(-1)
_ZERO = np.int64(0)
_ONE = np.int64(1)


# =============================================================================================
# Java slots
# =============================================================================================


@_inline
def _java_slot(v, uid):
    """The Java (fixed) slot of card ``uid`` in its owner's hand, or -1.

    The deal puts deck position ``p * H + k`` in seat ``p``'s slot ``k``; a later card takes the
    slot of the card whose play or discard drew it: the last move made with at least
    ``n_cards - uid`` cards in the deck (the deck size before each move never increases). Draws
    only happen while the deck is not empty, before any hand is compacted, so the slot
    recorded for that move is the Java slot.
    """
    h = np.int64(v.cfg[CFG_HAND])
    if uid < np.int64(v.cfg[CFG_PLAYERS]) * h:
        return np.int64(uid % h)
    left = np.int64(v.cfg[CFG_N_CARDS]) - uid
    lo = _ZERO
    hi = np.int64(v.scal[V_N_MOVES])
    while lo < hi:  # the first move with fewer than `left` cards in the deck
        mid = (lo + hi) >> 1
        if v.hist[mid, H_DECK_BEFORE] >= left:
            lo = mid + 1
        else:
            hi = mid
    m = lo - 1
    if m < 0:
        return _NO
    kind = v.hist[m, H_KIND]
    if kind != PLAY and kind != DISCARD:
        return _NO
    return np.int64(v.hist[m, H_SLOT])


@_inline
def _slot_of_java(v, p, js):
    """``p``'s current slot holding Java slot ``js``, or -1 when that Java slot is empty."""
    if _hand_len(v, p) == v.cfg[CFG_HAND]:
        return js  # a full hand has never been compacted
    for k in range(_hand_len(v, p)):
        if _java_slot(v, np.int64(v.uids[p, k])) == js:
            return np.int64(k)
    return _NO


# =============================================================================================
# Rules
# =============================================================================================


@_kernel
def ref_play_finesse(pv):
    """PlayFinesse (0), framework v0.2.1."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    m = v.scal[V_N_MOVES] - 1
    if m < 0:
        return -1
    kind = v.hist[m, H_KIND]
    if kind != REVEAL_COLOR and kind != REVEAL_RANK:
        return -1  # the last event is not a hint
    t = v.hist[m, H_TARGET]
    if t == _next_player(v):
        return -1
    if t == me:
        return RAISED  # reads the card of its own (unknown) slot: null
    n_ranks = v.cfg[CFG_RANKS]
    for j in range(v.hist_uids.shape[1]):
        uid = v.hist_uids[m, j]
        if uid < 0:
            break
        k = _slot_of_uid(v, t, uid)
        if k < 0:
            continue
        card = _card(v, t, k)
        if card % n_ranks == v.fireworks[card // n_ranks] + 1:
            newest = _newest_slot(v, me)
            return _play(v, newest) if newest >= 0 else -1
    return -1


@_kernel
def ref_tell_finesse(pv):
    """TellFinesse (16), framework v0.2.1 (token gating included)."""
    v = expand_view(pv)
    n_players = v.cfg[CFG_PLAYERS]
    if v.scal[V_INFO] <= 0 or n_players == 2:
        return -1
    n_ranks = v.cfg[CFG_RANKS]
    nxt = _next_player(v)
    if _hand_len(v, nxt) == 0:
        return -1
    x = _card(v, nxt, _ZERO)  # "newest": the first non-empty slot (ages are all 0)
    if not _is_playable(v, x):
        return -1
    f = (v.scal[V_SEAT] + 2) % n_players
    if _hand_len(v, f) < v.cfg[CFG_HAND]:
        return RAISED  # counting the hand reads the colour of an empty slot's null card
    if x % n_ranks == n_ranks - 1:
        return -1  # no card of value 6
    wanted = x + 1
    n_colour = _count_touched(v.packed, f, n_ranks + wanted // n_ranks)
    n_value = _count_touched(v.packed, f, wanted % n_ranks)
    for k in range(_hand_len(v, f)):
        if _card(v, f, k) == wanted:
            a = _finesse_hint(v.packed, f, k, n_colour, n_value)
            if a >= 0:
                return a
    return -1


@_kernel
def ref_play_unique_possible(pv, tab):
    """PlayUniquePossibleCard (9), framework v0.2.1."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    n_ranks = v.cfg[CFG_RANKS]
    full = (_ONE << np.int64(v.cfg[CFG_HAND])) - 1
    invalid = _ZERO  # Java slots refilled since (the "card received" events, newest first)
    for m in range(v.scal[V_N_MOVES] - 1, -1, -1):
        kind = v.hist[m, H_KIND]
        if v.hist[m, H_ACTOR] == me and (kind == PLAY or kind == DISCARD):
            if v.hist[m, H_DECK_BEFORE] > 0:
                invalid |= _ONE << np.int64(v.hist[m, H_SLOT])
                if invalid == full:
                    return -1
            continue
        if not _is_hint_to(v, m, me) or popcount(v.hist[m, H_TOUCHED]) != 1:
            continue
        js = _java_slot(v, np.int64(v.hist_uids[m, 0]))
        if js < 0:
            continue
        fire = False
        if kind == REVEAL_COLOR:
            c = v.hist[m, H_COLOR]
            top = v.fireworks[c]  # the card on top of the firework, not the next one
            fire = not (invalid >> js) & 1 and top > 0 and tab[TAB_COUNT, c * n_ranks + top - 1] > 0
        else:
            r = v.hist[m, H_RANK]
            for c in range(v.cfg[CFG_COLORS]):
                if v.fireworks[c] == r and tab[TAB_COUNT, c * n_ranks + r] > 0:
                    fire = True
                    break
        if fire:
            k = _slot_of_java(v, me, js)
            return _play(v, k) if k >= 0 else REJECTED
    return -1


@_kernel
def ref_play_just_hinted(pv, tab, singled_out, newest_only, min_lives, num, den):
    """PlayJustHinted(singledOut, newestOnly, minLives, num/den) (50–66), Hanabi-Map-Elites."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    marked = _ZERO  # Java slots touched by a collected hint
    for m in range(v.scal[V_N_MOVES] - 1, -1, -1):
        to_me = _is_hint_to(v, m, me)
        if v.hist[m, H_ACTOR] != me and not to_me:
            break
        if not to_me or (singled_out != 0 and popcount(v.hist[m, H_TOUCHED]) != 1):
            continue
        for j in range(v.hist_uids.shape[1]):
            uid = v.hist_uids[m, j]
            if uid < 0:
                break
            js = _java_slot(v, np.int64(uid))
            if js >= 0:
                marked |= _ONE << js
    if marked == 0:
        return -1
    newest = _newest_slot(v, me)
    best = _NO
    bg = _ZERO
    bt = _ONE
    for k in range(_hand_len(v, me)):
        js = _java_slot(v, np.int64(v.uids[me, k]))
        if js < 0 or not (marked >> js) & 1:
            continue
        if newest_only != 0 and k != newest:
            continue
        t, g, _, _ = _own_counts(v, tab, k)
        if t > 0 and (best < 0 or g * bt >= bg * t):
            best = np.int64(k)
            bg = g
            bt = t
    if best < 0:
        return -1
    if bg == bt or (bg * den >= num * bt and v.scal[V_LIFE] > min_lives):
        return _play(v, best)
    return -1


@_kernel
def ref_apply(g, pv, rng, tab):
    """The reference behaviour of gene ``g`` (one of :data:`GENES`, or 65/66) on ``pv``."""
    v = expand_view(pv)
    if v.scal[V_DONE] != 0:
        return -1
    if g == 0:
        return ref_play_finesse(v.packed)
    if g == 16:
        return ref_tell_finesse(v.packed)
    if g != 9 and (g < 50 or g > 66):
        return -1  # 41, 42: the HailMary predicate is never true at a decision
    if tab[TAB_META, 1] == 0:
        _card_table(v.packed, tab)
    if g == 9:
        return ref_play_unique_possible(v.packed, tab)
    row = RULE_TABLE[g]
    return ref_play_just_hinted(
        v.packed, tab, row[R_P0], row[R_P1], row[R_P2], row[R_P3], row[R_P4]
    )


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

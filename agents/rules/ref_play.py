"""Play rules 0, 9, 41, 42, 50–66 and the tell rule 16 as the Java reference ran them.

``ruleset="reference"`` (:mod:`agents.rules.reference`); the corrected rules are in
:mod:`agents.rules.play` and :mod:`agents.rules.tell` (docs/rules.md §3.1, §3.2). The
reference is the framework v0.2.1 (finesse rules, PlayUniquePossibleCard,
PlayProbablySafeCard under IfRule) and Hanabi-Map-Elites' PlayJustHinted. The Java agent
decides on its *own* game state, rebuilt from the events it was sent; several differences come
from that state:

* **Hand ages.** Ages (``TimedHand``) are only updated for the agent's own hand (the
  "card received" events are private); in every other hand all ages stay 0, so the "newest
  card" of another player is its first non-empty slot.
* **The agent's deck** holds every card it has not seen: its own hand plus the real deck. It is
  never empty while the agent holds a card.
* **Fixed slots.** Java cards never move; hints name slots. Our engine compacts a hand once the
  deck is empty, so Java slots are recovered from card identities
  (:func:`~agents.rules.knowledge.java_slot`).

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

Return codes as every reference kernel (:mod:`agents.rules.reference`).
"""

from __future__ import annotations

import numpy as np

from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import table as T
from agents.rules.play import finesse_target, just_hinted_play, mark_recent_hints
from agents.rules.tell import finesse_tell
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel

GENES: tuple[int, ...] = (0, 9, 16, 41, 42, *range(50, 67))
"""The alphabet indices implemented here."""


@kernel
def ref_play_finesse(pv):
    """PlayFinesse (0), framework v0.2.1."""
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    m = v.scal[V.V_N_MOVES] - 1
    if m < 0:
        return -1
    kind = v.hist[m, E.H_KIND]
    if kind != E.REVEAL_COLOR and kind != E.REVEAL_RANK:
        return -1  # the last event is not a hint
    t = v.hist[m, E.H_TARGET]
    if t == K.next_player(v):
        return -1
    if t == me:
        return T.RULE_RAISED  # reads the card of its own (unknown) slot: null
    if finesse_target(v, t, K.touched_slots(v, m, t, K.FALSE)):
        newest = K.age_slot(v, me, K.TRUE)
        return K.play(v, newest) if newest >= 0 else -1
    return -1


@kernel
def ref_tell_finesse(pv):
    """TellFinesse (16), framework v0.2.1 (token gating included)."""
    v = V.expand_view(pv)
    n_players = v.cfg[E.CFG_PLAYERS]
    if v.scal[V.V_INFO] <= 0 or n_players == 2:
        return -1
    n_ranks = v.cfg[E.CFG_RANKS]
    nxt = K.next_player(v)
    if K.hand_len(v, nxt) == 0:
        return -1
    x = K.card(v, nxt, K.ZERO)  # "newest": the first non-empty slot (ages are all 0)
    if not K.is_playable(v, x):
        return -1
    f = (v.scal[V.V_SEAT] + 2) % n_players
    if K.hand_len(v, f) < v.cfg[E.CFG_HAND]:
        return T.RULE_RAISED  # counting the hand reads the colour of an empty slot's null card
    if x % n_ranks == n_ranks - 1:
        return -1  # no card of value 6
    return finesse_tell(v, f, x + 1)


@kernel
def ref_play_unique_possible(pv, tab):
    """PlayUniquePossibleCard (9), framework v0.2.1."""
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    full = (K.ONE << np.int64(v.cfg[E.CFG_HAND])) - 1
    invalid = K.ZERO  # Java slots refilled since (the "card received" events, newest first)
    for m in range(v.scal[V.V_N_MOVES] - 1, -1, -1):
        kind = v.hist[m, E.H_KIND]
        if v.hist[m, E.H_ACTOR] == me and (kind == E.PLAY or kind == E.DISCARD):
            if v.hist[m, E.H_DECK_BEFORE] > 0:
                invalid |= K.ONE << np.int64(v.hist[m, E.H_SLOT])
                if invalid == full:
                    return -1
            continue
        if not K.is_hint_to(v, m, me) or E.popcount(v.hist[m, E.H_TOUCHED]) != 1:
            continue
        js = K.java_slot(v, np.int64(v.hist_uids[m, 0]))
        if js >= 0 and _unique_hint_fires(v, tab, m, (invalid >> js) & 1):
            k = K.slot_of_java(v, me, js)
            return K.play(v, k) if k >= 0 else T.RULE_REJECTED
    return -1


@inline
def _unique_hint_fires(v, tab, m, refilled):
    """Whether PlayUniquePossibleCard (9, framework v0.2.1) fires on hint record ``m``.

    A colour hint whose Java slot was not ``refilled`` since: a copy of the card on top of
    that firework (not the next one) is unseen. A value hint: a playable card of that value
    is unseen.
    """
    n_ranks = v.cfg[E.CFG_RANKS]
    if v.hist[m, E.H_KIND] == E.REVEAL_COLOR:
        c = v.hist[m, E.H_COLOR]
        top = v.fireworks[c]
        return not refilled and top > 0 and tab[P.TAB_COUNT, c * n_ranks + top - 1] > 0
    r = v.hist[m, E.H_RANK]
    for c in range(v.cfg[E.CFG_COLORS]):
        if v.fireworks[c] == r and tab[P.TAB_COUNT, c * n_ranks + r] > 0:
            return True
    return False


@kernel
def ref_play_just_hinted(pv, tab, singled_out, newest_only, min_lives, num, den):
    """PlayJustHinted(singledOut, newestOnly, minLives, num/den) (50–66), Hanabi-Map-Elites."""
    v = V.expand_view(pv)
    me = v.scal[V.V_SEAT]
    marked = mark_recent_hints(v, singled_out != 0, K.TRUE)  # Java slots
    if marked == 0:
        return -1
    eligible = K.ZERO  # my current slots whose Java slot is marked
    for k in range(K.hand_len(v, me)):
        js = K.java_slot(v, np.int64(v.uids[me, k]))
        if js >= 0 and (marked >> js) & 1:
            eligible |= K.ONE << k
    return just_hinted_play(v, tab, eligible, newest_only, min_lives, num, den)


@kernel
def ref_apply(g, pv, rng, tab):
    """The reference behaviour of gene ``g`` (one of :data:`GENES`, or 65/66) on ``pv``."""
    v = V.expand_view(pv)
    if v.scal[V.V_DONE] != 0:
        return -1
    if g == 0:
        return ref_play_finesse(v.packed)
    if g == 16:
        return ref_tell_finesse(v.packed)
    if g != 9 and (g < 50 or g > 66):
        return -1  # 41, 42: the HailMary predicate is never true at a decision
    if tab[P.TAB_META, 1] == 0:
        P.fill_card_table(v.packed, tab)
    if g == 9:
        return ref_play_unique_possible(v.packed, tab)
    row = T.RULE_TABLE[g]
    return ref_play_just_hinted(
        v.packed, tab, row[T.R_P0], row[T.R_P1], row[T.R_P2], row[T.R_P3], row[T.R_P4]
    )

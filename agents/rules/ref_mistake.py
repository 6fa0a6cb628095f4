"""TellHighProbabilityMistake (genes 83–104) as the Java reference ran it (``ruleset="reference"``).

The corrected rule is :func:`agents.rules.tell.rule_tell_high_probability_mistake`
(docs/rules.md §3.2). The reference differs in two ways; the choice of the card (scan order,
probabilities, thresholds, tie-breaks) is the same:

* **Hand size below 5** (4 and 5 players): the playable probabilities are padded to 5 entries
  while the playable mask has one entry per slot, so the slot loop reads past the mask at slot
  4 and throws, on the first scanned player, on every turn with an information token. The rule
  is skipped (``RULE_RAISED``).
* **Target.** The hint goes to seat ``i``, the loop *offset* (1..N−1), not to the scanned seat
  ``p = me + i``, about the card in seat ``i``'s hand at the (fixed, Java) slot index chosen in
  ``p``'s hand. Only seat 0 is unaffected. When ``i`` is the actor's own seat, the own card is
  unknown (null): the rule throws unless the owner knows both attributes of that slot, in
  which case it returns nothing; either way it is skipped and later players are not scanned.
  When seat ``i``'s slot is empty (deck exhausted) the rule throws as well.

Once the deck is empty the engine compacts the hands while Java leaves empty slots; a slot
index chosen in one hand is carried to another hand through the cards' Java slots
(:func:`agents.rules.knowledge.java_slot`), reconstructed from the deal and the public history.

Return codes as every reference kernel (:mod:`agents.rules.reference`).
"""

from __future__ import annotations

from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import table as T
from agents.rules.tell import mistake_slot
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import kernel

GENES: tuple[int, ...] = tuple(range(83, 105))
"""The alphabet indices implemented here."""
_FIRST, _LAST = GENES[0], GENES[-1]


@kernel
def ref_mistake(pv, tab, false_positive, num, den):
    """TellHighProbabilityMistake(falsePositive, num/den) as the reference ran it."""
    v = V.expand_view(pv)
    if v.scal[V.V_DONE] != 0 or v.scal[V.V_INFO] <= 0:
        return -1  # AbstractTellRule.canFire: no information token
    if v.cfg[E.CFG_HAND] < 5:
        return T.RULE_RAISED  # the slot loop reads past the playable mask (slot 4)
    if tab[P.TAB_META, 1] == 0:
        P.fill_card_table(v.packed, tab)
    me = v.scal[V.V_SEAT]
    n_players = v.cfg[E.CFG_PLAYERS]
    for i in range(1, n_players):
        p = (me + i) % n_players
        tab_t, pack_t = P.partner_pack(v, p, tab)
        k = mistake_slot(v.packed, tab_t, pack_t, p, false_positive != 0, num, den)
        if k < 0:
            continue
        # the hint is about seat i's card at the Java slot chosen in p's hand
        js = k if p == i or v.scal[V.V_DECK] > 0 else K.java_slot(v, v.uids[p, k])
        kk = k if p == i else K.slot_of_java(v, i, js)
        if kk < 0:
            return T.RULE_RAISED  # empty slot: null card
        if i == me:  # own card: null, unless both attributes are known (then no move)
            if K.known_rank(v, i, kk) < 0 or K.known_colour(v, i, kk) < 0:
                return T.RULE_RAISED
            return -1
        return K.tell_missing(v, i, kk, K.TRUE)
    return -1


@kernel
def ref_apply(g, pv, rng, tab):
    """The reference behaviour of gene ``g`` (83–104) on the packed view ``pv``."""
    if g < _FIRST or g > _LAST:
        return -1
    row = T.RULE_TABLE[g]
    return ref_mistake(pv, tab, row[T.R_P0], row[T.R_P1], row[T.R_P2])

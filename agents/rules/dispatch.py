"""Rule dispatch, rule lists and the fallback (docs/rules.md §1, §2.8, §2.9).

:func:`apply_rule_view` evaluates one compiled rule id: bounds, token gating and
IF-predicate (§2.8), the card table on first need, then the kernel of the rule's kind
(:mod:`~agents.rules.play`, :mod:`~agents.rules.tell`, :mod:`~agents.rules.discard`,
:mod:`~agents.rules.other`) by its class. :func:`choose_action` runs a rule list with the
random legal fallback; :func:`first_firing` without it (the strict era).
"""

from __future__ import annotations

from agents.rulebase import N_RULE_IDS
from agents.rules import knowledge as K
from agents.rules import pools as P
from agents.rules import table as T
from agents.rules.discard import apply_discard
from agents.rules.other import apply_other, draw_legal
from agents.rules.play import apply_play
from agents.rules.tell import apply_tell
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.jit import inline, kernel, njit


@inline
def gate_open(v, kind, pred):
    """Token gating of ``kind`` and the IF-predicate ``pred`` (docs/rules.md §2.8)."""
    info = v.scal[V.V_INFO]
    life = v.scal[V.V_LIFE]
    if kind == T.KIND_TELL and info <= 0:
        return False
    if kind == T.KIND_DISCARD and info >= v.cfg[E.CFG_MAX_INFO]:
        return False
    if pred == T.PRED_MORE_THAN_ONE_LIFE:
        return life > 1
    if pred == T.PRED_HAIL_MARY:
        return life > 1 and v.scal[V.V_DECK] == 0
    if pred == T.PRED_INFO_LESS_THAN_4:
        return info < 4
    return True


@inline
def apply_rule_view(rule_id, v, rng, tab):
    """One rule on the expanded view ``v`` with the scratch table ``tab`` (see :func:`apply_rule`).

    Inlined into the decision loops: every call level re-optimises all its callees, so the
    dispatch is one flat function once inlined (the kinds' chains are inlined into it).
    """
    if rule_id < 0 or rule_id >= N_RULE_IDS or v.scal[V.V_DONE] != 0:
        return -1
    row = T.RULE_TABLE[rule_id]
    kind = row[T.R_KIND]
    if not gate_open(v, kind, row[T.R_PRED]):
        return -1
    if T.NEEDS_TABLE[row[T.R_CLASS]] and tab[P.TAB_META, 1] == 0:
        P.fill_card_table(v.packed, tab)  # computed once per decision, only if a rule needs it
    if kind == T.KIND_PLAY:
        return apply_play(v, tab, row)
    if kind == T.KIND_TELL:
        return apply_tell(v, rng, tab, row)
    if kind == T.KIND_DISCARD:
        return apply_discard(v, rng, tab, row)
    return apply_other(v, rng, tab, row)


@kernel
def _apply_rule_call(rule_id, pv, rng, tab):
    """:func:`apply_rule_view` as a call (the dispatch is inlined only into the hot loop)."""
    return apply_rule_view(rule_id, V.expand_view(pv), rng, tab)


@kernel
def _first_firing(rules, n_rules, pv, rng, tab):
    tab[P.TAB_META, 1] = 0  # the card table is filled when a rule first needs it
    for i in range(n_rules):
        a = _apply_rule_call(rules[i], pv, rng, tab)
        if a >= 0 or a == T.RULE_RAISED:
            return a
    return -1


@kernel
def _choose_action(rules, n_rules, pv, rng, mask, tab):
    v = V.expand_view(pv)
    tab[P.TAB_META, 1] = 0  # the card table is filled when a rule first needs it
    for i in range(n_rules):
        a = apply_rule_view(rules[i], v, rng, tab)
        if a >= 0:
            return a
        if a == T.RULE_RAISED:
            break  # the reference took a random legal move after an exception
    return draw_legal(v, rng, mask)


# =============================================================================================
# Public API (callable from Python and from compiled code)
# =============================================================================================


@njit
def apply_rule(rule_id, v, rng):
    """Evaluate one rule for the viewer of ``v`` (docs/rules.md §1–§4).

    Args:
        rule_id: an alphabet index ``0..104`` or an extra rule id (``RULE_X1``–``RULE_X6``
            of :mod:`agents.rulebase`).
        v: the acting seat's view (:class:`hanabi_env.view.View`).
        rng: the agent's generator (int64[4]); drawn from exactly once iff a randomised rule
            fires.

    Returns:
        A move uid legal for the viewer, or -1 if the rule does not fire (also for unknown
        ids and once the game is over); :data:`~agents.rules.table.RULE_RAISED` (-2) where a
        Java-exception rule (X4–X6) raises.
    """
    v = K.expanded(v)
    return _apply_rule_call(rule_id, v.packed, rng, P.new_table(v))


@njit
def apply_rule_table(rule_id, v, rng, tab):
    """:func:`apply_rule` with the viewer's card table precomputed (:func:`new_card_table`).

    For compiled loops that evaluate several rules on one view. ``tab`` should be a scratch
    table (:func:`new_card_table`); a ``(2, n_colors * n_ranks)`` card table is copied into one.
    """
    v = K.expanded(v)
    return _apply_rule_call(rule_id, v.packed, rng, P.as_scratch(v, tab))


@njit
def first_firing(rules, n_rules, v, rng):
    """The first firing rule's move, or -1 if no rule fires (no fallback, no draw).

    Used to emulate the reference's "strict era" (docs/rules.md §2.9), where a turn on which no
    rule fired, or on which a rule raised, ended the game at the current score. A Java-exception
    rule (X4–X6) that raises ends the scan with :data:`~agents.rules.table.RULE_RAISED`.
    """
    v = K.expanded(v)
    return _first_firing(rules, n_rules, v.packed, rng, P.empty_table(v))


@njit(inline="always")
def first_firing_table(rules, n_rules, v, rng, tab):
    """:func:`first_firing` for compiled loops (arguments as :func:`choose_action_table`)."""
    return _first_firing(rules, n_rules, v, rng, tab)


@njit
def choose_action(rules, n_rules, v, rng, mask):
    """Run a rule list: the first rule that fires wins, else the fallback (docs/rules.md §2.9).

    Args:
        rules: int64 array of rule ids, tried in order.
        n_rules: how many entries of ``rules`` to use.
        v: the acting seat's view.
        rng: the agent's generator (int64[4]).
        mask: ``(n_actions,)`` int8 scratch buffer; holds the legal-move mask on return if
            the fallback was used.

    Returns:
        A legal move uid: the first firing rule's move, or else one uniformly random legal
        move (one draw over the ascending legal-move list, docs/rules.md §0.3.3); -1 only once the
        game is over.
    """
    v = K.expanded(v)
    return _choose_action(rules, n_rules, v.packed, rng, mask, P.empty_table(v))


@njit(inline="always")
def choose_action_table(rules, n_rules, v, rng, mask, tab):
    """:func:`choose_action` for compiled loops: a packed view and a caller-owned scratch table.

    ``v``: the acting seat's packed view (:class:`~hanabi_env.view.ExpandedView`; e.g. a
    :func:`~hanabi_env.view.live_view`; :func:`~hanabi_env.view.pack_view` packs a ``View``).

    ``tab``: ``(TAB_ROWS, max(n_colors * n_ranks, 4 * n_colors, hand_size))`` int64 scratch
    (rows 0–1 get the card table, the others are the rules' work buffers and per-decision
    caches), so that compiled loops allocate nothing per decision; a
    ``(2, n_colors * n_ranks)`` table works too (the rules then allocate and cache nothing).
    """
    return _choose_action(rules, n_rules, v, rng, mask, tab)


@njit
def legal_mask_view(v, out):
    """Fill ``out`` with the viewer's legal moves, computed from the view.

    :func:`hanabi_env.view.view_legal_mask` on a :class:`~hanabi_env.view.View`: the
    engine's legality kernel, for the viewer as if it were to move; all zeros once the game
    is over.

    Args:
        v: the viewer's view.
        out: ``(n_actions,)`` int8, overwritten with 0/1.

    Returns:
        The number of legal moves.
    """
    return V.view_legal_mask(K.expanded(v).packed, out)

"""The compiled rule alphabet of the rule-based agents (docs/rules.md §0–§4), on a player's view.

Every rule reads a player's view (the acting seat is ``v.scal[V_SEAT]``) and returns an HLE
move uid, or -1 when the rule does not fire. A rule never raises and only returns moves that
are legal for the viewer (docs/rules.md §0.3.2, §0.3.4). The compiled kernels take the view
*packed* into one int32 array and expand it on entry (:func:`hanabi_env._view.expand_view`,
fields as :class:`hanabi_env._view.View`); the public functions take a ``View`` and pack it.

Conventions:

* **Rule ids.** ``0..104`` are the alphabet indices of docs/rules.md §1 (parameters per index);
  :data:`RULE_X1` (105) and :data:`RULE_X2` (106) are VanDenBergh's extra rules (docs/rules.md §4);
  :data:`RULE_X3` (107) is rule 14 as the Java reference ran it, :data:`RULE_X4` to
  :data:`RULE_X6` (108–110) rules 15, 48 and 19 raising as the early Java code did (for
  comparisons only; they return :data:`RULE_RAISED` where the reference raised).
  They are never chromosome genes; :data:`N_ALPHABET` is 105. Unknown ids never fire.
  :data:`RULE_TABLE` maps each id to its rule class, gating kind, IF-predicate and parameters.
* **Cards** are ``colour * n_ranks + rank``, colours in the order R, Y, G, W, B, ranks 0-based
  (docs/rules.md value ``v`` = rank + 1). Knowledge is the engine's per-slot plausibility bitmasks
  (docs/rules.md §2.2): an attribute is *known* when exactly one value remains plausible.
* **Card table.** A ``(2, n_colors * n_ranks)`` int64 array: row :data:`TAB_COUNT` holds a
  candidate pool (U_me of docs/rules.md §2.4, or U_{me→t} of §2.5) and row :data:`TAB_CLASS` the
  public class bits of every card (:data:`CLS_PLAYABLE`, :data:`CLS_USELESS`,
  :data:`CLS_NECESSARY`, docs/rules.md §2.3). It is computed once per decision.
* **Probabilities** are integer pairs (candidates with the property, all candidates), compared
  with thresholds ``num / den`` and with each other by cross-multiplication (docs/rules.md §2.10);
  a slot without candidates is never selected. TellUnambiguous2's weighted sums use floats
  with a 1e-9 tolerance (docs/rules.md §2.10).
* **Hint enumeration** (docs/rules.md §2.5): hint ``i < n_ranks`` is the value hint ``rank = i``,
  hint ``n_ranks + c`` the colour hint ``c``.
* **RNG** (docs/rules.md §0.3.5, §2.9): the randomised rules (TellPlayableCard, TellRandomly,
  DiscardRandomly, LegalRandom) and the fallback of :func:`choose_action` make exactly one
  :func:`hanabi_env._rng.rng_below` draw when they fire and none otherwise; no other rule
  touches the generator.

Compile-time notes (numba re-optimises every callee inside each caller, so code size matters):
internal kernels (``_``-prefixed and ``rule_*``) are compiled without Python wrappers; the
public helpers at the end of the module are thin wrappers around them. Rule parameters reach
the kernels as array entries, never as literal arguments (numba would compile one
specialisation per literal value). Loops over hands stop at the first empty slot; besides
being defensive, the early exit keeps LLVM from vectorising these 4–5-iteration loops into
very large code.
"""

from __future__ import annotations

import numpy as np

from agents.rulebase import (
    ALPHABET,
    EXTRA_RULES,
    N_ALPHABET,
    N_RULE_IDS,
    RULE_X1,
    RULE_X2,
    RULE_X3,
    RULE_X4,
    RULE_X5,
    RULE_X6,
)
from hanabi_env._engine import (
    CFG_COLORS,
    CFG_HAND,
    CFG_HAND_ORDER,
    CFG_MAX_INFO,
    CFG_N_ACTIONS,
    CFG_PLAYERS,
    CFG_RANKS,
    DISCARD,
    H_ACTOR,
    H_COLOR,
    H_KIND,
    H_RANK,
    H_TARGET,
    H_TOUCHED,
    HAND_SHIFT,
    PLAY,
    REVEAL_COLOR,
    REVEAL_RANK,
    copies_of_rank,
    encode_action,
    lowest_bit,
    popcount,
)
from hanabi_env._jit import njit
from hanabi_env._rng import rng_below
from hanabi_env._view import (
    V_DECK,
    V_DONE,
    V_INFO,
    V_LIFE,
    V_N_MOVES,
    V_SEAT,
    expand_view,
    pack_view,
)

_kernel = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy", _nrt=False)
"""Decorator of the internal kernels: compiled without Python wrappers (not callable from
Python, only from compiled code) and without numba's reference counting (``_nrt=False``).

Without NRT a kernel cannot allocate, and none needs to: every buffer is a row of the
caller's scratch table. With NRT, numba surrounds each call that passes a view (13 arrays)
with 26 reference-count calls, which cost more than most rules (measured: a third of the
time of a decision)."""

_alloc = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")
"""Decorator of the few internal helpers that allocate (used by the public entry points)."""

_inline = njit(inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")
"""Decorator of the small internal helpers: inlined into their callers by numba (they take
the expanded view, whose arrays are free to pass only inside one function)."""

# --- card table rows and class bits (docs/rules.md §2.3, §2.4) ------------------------------------
TAB_COUNT = 0
TAB_CLASS = 1
# A *scratch* table (:func:`choose_action_table`, :func:`new_scratch_table`) has TAB_ROWS rows:
# the card table, then the rules' work buffers and per-decision caches (the rule kernels never
# allocate).
TAB_PARTNER = 2  # rows 2-3: a partner table U_{me->t}
TAB_CM = 4  # a row of colour masks for hint simulation
TAB_RM = 5  # a row of rank masks
TAB_OWN = 6  # rows 6-9: the viewer's candidate counts per own slot (total, playable, useless,
# necessary), filled at the first use in a decision (:func:`_own_counts`)
TAB_PACK = 10  # the card table's counts packed per colour (:func:`_pack_table`)
TAB_META = 11  # column 0: 1 once the own-slot counts of the current decision are filled;
# column 1: 1 once the card table (rows 0-1) of the current decision is filled
TAB_MASK = 12  # a legal-move mask (LegalRandom)
TAB_PACK_T = 13  # the packed counts of the partner table in rows 2-3 (:func:`_partner_pack`)
TAB_ROWS = 14
N_STATS = 4  # the candidate statistics: total, playable, useless, necessary
CLS_PLAYABLE = 1
CLS_USELESS = 2
CLS_NECESSARY = 4

# --- rule kinds, the token-gating classes (docs/rules.md §2.8) ------------------------------------
KIND_PLAY = 0
KIND_TELL = 1
KIND_DISCARD = 2
KIND_OTHER = 3
_KIND_CODES = {"play": KIND_PLAY, "tell": KIND_TELL, "discard": KIND_DISCARD, "other": KIND_OTHER}

# --- IF-predicates (docs/rules.md §2.8) -----------------------------------------------------------
PRED_NONE = 0
PRED_MORE_THAN_ONE_LIFE = 1  # L > 1
PRED_HAIL_MARY = 2  # L > 1 and D = 0
PRED_INFO_LESS_THAN_4 = 3  # T < 4

RULE_RAISED = -2
"""Result of the Java-exception rules X4–X6 where the reference raised (an exception ended a
strict-era game at the current score; docs/rules.md §2.9): :func:`first_firing` returns it, and
:func:`choose_action` takes the fallback move, as the reference did after 2020-11-16."""

TOL = 1e-9  # "strictly better" margin for TellUnambiguous2's float scores (docs/rules.md §2.10)

# Non-literal constants. numba compiles one specialisation of a kernel per *literal* argument
# value, and also for the literal a variable starts with (``best = -1``) while types are still
# being inferred. NumPy scalars are typed int64 / bool, never literal, so the constants passed to
# kernels and the initial values of such variables are written with these.
_NO = np.int64(-1)
_ZERO = np.int64(0)
_ONE = np.int64(1)
_TRUE = np.bool_(True)
_FALSE = np.bool_(False)
_PLAY = np.int64(PLAY)
_DISCARD = np.int64(DISCARD)
_REVEAL_COLOR = np.int64(REVEAL_COLOR)
_REVEAL_RANK = np.int64(REVEAL_RANK)

# =============================================================================================
# Rule table: id -> (class, kind, predicate, p0..p4) (docs/rules.md §1, §4)
# =============================================================================================

# fmt: off
(
    C_FINESSE, C_FINESSE_TOLD, C_IF_CERTAIN, C_PROBABLY_SAFE, C_SAFE, C_UNIQUE_POSSIBLE,
    C_COMPLETE_USEFUL, C_ONES, C_USEFUL, C_USELESS, C_DISPENSABLE, C_TELL_FINESSE, C_FIVES,
    C_ILL_INFORMED, C_MOST_INFORMATION, C_PLAYABLE_RANDOM, C_PLAYABLE_OUTER, C_TELL_RANDOMLY,
    C_UNKNOWN, C_DISCARD_HIGHEST, C_DISCARD_IF_CERTAIN, C_DISCARD_LEAST_NECESSARY,
    C_DISCARD_OLDEST, C_DISCARD_NO_INFO, C_DISCARD_PROBABLY_USELESS, C_DISCARD_RANDOMLY,
    C_DISCARD_SAFE, C_DISCARD_USELESS, C_OSAWA_DISCARD, C_LEGAL_RANDOM, C_UNBLOCK,
    C_JUST_HINTED, C_UNAMBIGUOUS, C_UNAMBIGUOUS2, C_AT_LEAST_N_USELESS, C_MISTAKE, C_X1,
) = range(37)
# fmt: on

R_CLASS, R_KIND, R_PRED, R_P0, R_P1, R_P2, R_P3, R_P4 = range(8)

_NEEDS_TABLE = np.zeros(37, dtype=np.int64)
"""Per rule class: 1 if its rules read the card table (the dispatch fills it at first need)."""
for _cls in (
    C_PROBABLY_SAFE, C_SAFE, C_UNIQUE_POSSIBLE, C_JUST_HINTED, C_X1, C_UNAMBIGUOUS2,
    C_AT_LEAST_N_USELESS, C_MISTAKE, C_DISCARD_LEAST_NECESSARY, C_DISCARD_PROBABLY_USELESS,
    C_DISCARD_USELESS, C_OSAWA_DISCARD,
):  # fmt: skip
    _NEEDS_TABLE[_cls] = 1


def _rule_rows() -> dict[int, tuple[int, ...]]:
    """``(class[, predicate, p0, ...])`` per rule id (docs/rules.md §1 parameters, §4 extras)."""
    # fmt: off
    rows: dict[int, tuple[int, ...]] = {
        0: (C_FINESSE,), 1: (C_FINESSE_TOLD,), 2: (C_IF_CERTAIN,), 8: (C_SAFE,),
        9: (C_UNIQUE_POSSIBLE,), 10: (C_COMPLETE_USEFUL,), 11: (C_ONES,),
        12: (C_USEFUL, PRED_NONE, 0), 13: (C_USEFUL, PRED_NONE, 1), 14: (C_USELESS,),
        15: (C_DISPENSABLE,), 16: (C_TELL_FINESSE,), 17: (C_FIVES,), 18: (C_ILL_INFORMED,),
        19: (C_MOST_INFORMATION,), 20: (C_PLAYABLE_RANDOM,), 21: (C_PLAYABLE_OUTER,),
        22: (C_TELL_RANDOMLY,), 23: (C_UNKNOWN,), 24: (C_DISCARD_HIGHEST,),
        25: (C_DISCARD_IF_CERTAIN,), 26: (C_DISCARD_LEAST_NECESSARY,), 27: (C_DISCARD_OLDEST,),
        28: (C_DISCARD_NO_INFO,), 34: (C_DISCARD_RANDOMLY,), 35: (C_DISCARD_SAFE,),
        36: (C_DISCARD_NO_INFO,), 37: (C_DISCARD_USELESS,), 38: (C_OSAWA_DISCARD,),
        39: (C_LEGAL_RANDOM,), 40: (C_UNBLOCK,), 41: (C_PROBABLY_SAFE, PRED_HAIL_MARY, 0, 1),
        42: (C_PROBABLY_SAFE, PRED_HAIL_MARY, 1, 10), 48: (C_DISPENSABLE, PRED_INFO_LESS_THAN_4),
        49: (C_PROBABLY_SAFE, PRED_NONE, 1, 4), 50: (C_JUST_HINTED, PRED_NONE, 0, 0, 0, 0, 1),
        67: (C_UNAMBIGUOUS, PRED_NONE, 0), 68: (C_UNAMBIGUOUS, PRED_NONE, 1),
        RULE_X1: (C_X1, PRED_NONE, 3, 5),
        RULE_X2: (C_DISCARD_PROBABLY_USELESS, PRED_NONE, 99, 100),
        RULE_X3: (C_USELESS, PRED_NONE, 1),
        RULE_X4: (C_DISPENSABLE, PRED_NONE, 1),
        RULE_X5: (C_DISPENSABLE, PRED_INFO_LESS_THAN_4, 1),
        RULE_X6: (C_MOST_INFORMATION, PRED_NONE, 1),
    }
    # fmt: on
    for i in range(5):  # thresholds 0.0, 0.2, 0.4, 0.6, 0.8 = i/5
        rows[3 + i] = (C_PROBABLY_SAFE, PRED_NONE, i, 5)
        rows[43 + i] = (C_PROBABLY_SAFE, PRED_MORE_THAN_ONE_LIFE, i, 5)
        rows[29 + i] = (C_DISCARD_PROBABLY_USELESS, PRED_NONE, i, 5)
    for i, (num, den) in enumerate(((0, 1), (3, 5), (4, 5), (1, 1))):  # 0, 0.6, 0.8, 1
        for j, (single, newest) in enumerate(((1, 1), (1, 0), (0, 1), (0, 0))):
            rows[51 + 4 * i + j] = (C_JUST_HINTED, PRED_NONE, single, newest, 2, num, den)
    for i, (w_p, w_u) in enumerate(((1, 0), (10, -1), (2, -1))):
        rows[69 + i] = (C_UNAMBIGUOUS2, PRED_NONE, w_p, w_u)
    for i, (w_p, w_u) in enumerate(((1, 0), (0, -1), (2, -1), (1, -2), (10, -1), (1, -10))):
        rows[72 + i] = (C_UNAMBIGUOUS, PRED_NONE, 2, w_p, w_u)
    for n in range(1, 6):
        rows[77 + n] = (C_AT_LEAST_N_USELESS, PRED_NONE, n)
    for i in range(11):  # thresholds i/10
        rows[83 + i] = (C_MISTAKE, PRED_NONE, 1, i, 10)
        rows[94 + i] = (C_MISTAKE, PRED_NONE, 0, i, 10)
    return rows


def _build_rule_table() -> np.ndarray:
    kinds = [_KIND_CODES[r.kind] for r in ALPHABET]
    kinds += [_KIND_CODES[r.kind] for r in sorted(EXTRA_RULES.values())]
    rows = _rule_rows()
    if sorted(rows) != list(range(N_RULE_IDS)):
        raise AssertionError("the rule table must cover every rule id exactly once")
    table = np.zeros((N_RULE_IDS, 8), dtype=np.int64)
    for rule_id, (cls, *rest) in rows.items():
        params = rest[1:]
        table[rule_id, R_CLASS] = cls
        table[rule_id, R_KIND] = kinds[rule_id]
        table[rule_id, R_PRED] = rest[0] if rest else PRED_NONE
        table[rule_id, R_P0 : R_P0 + len(params)] = params
    return table


RULE_TABLE = _build_rule_table()
"""``(N_RULE_IDS, 8)`` int64: per rule id its class ``C_*``, kind ``KIND_*``, IF-predicate
``PRED_*`` and parameters ``p0..p4`` (thresholds as ``num, den`` pairs)."""


# =============================================================================================
# Basic knowledge and card predicates (docs/rules.md §2.2, §2.3)
# =============================================================================================


@_inline
def _hand_len(v, p):
    """|hand(p)| as an int64."""
    return np.int64(v.hand_len[p])


@_inline
def _oldest_slot(v, p):
    """``p``'s oldest card (smallest uid): slot 0 under the shift hand order; -1 if empty."""
    n = _hand_len(v, p)
    if n == 0 or v.cfg[CFG_HAND_ORDER] == HAND_SHIFT:
        return np.int64(0) if n > 0 else np.int64(-1)
    best = np.int64(0)
    for k in range(1, n):
        if v.uids[p, k] < v.uids[p, best]:
            best = np.int64(k)
    return best


@_inline
def _newest_slot(v, p):
    """``p``'s newest card (largest uid): the last slot under the shift order; -1 if empty."""
    n = _hand_len(v, p)
    if n == 0 or v.cfg[CFG_HAND_ORDER] == HAND_SHIFT:
        return n - 1
    best = np.int64(0)
    for k in range(1, n):
        if v.uids[p, k] > v.uids[p, best]:
            best = np.int64(k)
    return best


@_inline
def _card(v, p, k):
    """The card in ``p``'s slot ``k`` as an int64 (-1 for empty slots and the viewer's own)."""
    return np.int64(v.cards[p, k])


@_inline
def _known_colour(v, p, k):
    m = v.col_plaus[p, k]
    if popcount(m) == 1:
        return lowest_bit(m)
    return -1


@_inline
def _known_rank(v, p, k):
    m = v.rank_plaus[p, k]
    if popcount(m) == 1:
        return lowest_bit(m)
    return -1


@_inline
def _fully_known(v, p, k):
    return _known_colour(v, p, k) >= 0 and _known_rank(v, p, k) >= 0


@_inline
def _min_height(v):
    m = v.cfg[CFG_RANKS]
    for c in range(v.cfg[CFG_COLORS]):
        m = min(m, v.fireworks[c])
    return m


@_inline
def _max_reachable(v, c):
    n_ranks = v.cfg[CFG_RANKS]
    for r in range(v.fireworks[c], n_ranks):
        if v.discards[c * n_ranks + r] >= copies_of_rank(n_ranks, r):
            return r
    return n_ranks


@_inline
def _safe_to_discard(v, c, r):
    n_ranks = v.cfg[CFG_RANKS]
    if c >= 0 and v.fireworks[c] >= n_ranks:
        return True  # (a) the colour is complete
    if c >= 0 and r >= 0 and r < v.fireworks[c]:
        return True  # (b) already played
    if r >= 0 and r < _min_height(v):
        return True  # (c) played in every colour
    return c >= 0 and r >= 0 and r >= _max_reachable(v, c)  # (d) out of reach


@_inline
def _card_class(v, card):
    n_ranks = v.cfg[CFG_RANKS]
    c = card // n_ranks
    r = card - c * n_ranks
    bits = CLS_PLAYABLE if v.fireworks[c] == r else 0
    if _safe_to_discard(v, c, r):
        return bits | CLS_USELESS
    if r == n_ranks - 1 or v.discards[card] == copies_of_rank(n_ranks, r) - 1:
        bits |= CLS_NECESSARY
    return bits


@_inline
def _is_playable(v, card):
    n_ranks = v.cfg[CFG_RANKS]
    return v.fireworks[card // n_ranks] == card % n_ranks


@_inline
def _usable(v, c, r):
    if v.scal[V_INFO] < v.cfg[CFG_MAX_INFO] and _safe_to_discard(v, c, r):
        return True
    return c >= 0 and r >= 0 and r == v.fireworks[c]


@_inline
def _knows_safe(v, p, k):
    return _safe_to_discard(v, _known_colour(v, p, k), _known_rank(v, p, k))


# =============================================================================================
# Candidate pools and probabilities (docs/rules.md §2.4, §2.5)
# =============================================================================================


@_kernel
def _card_table(pv, out):
    # The hot path of every decision: the per-card class is computed here in one pass per
    # colour (same conditions as _card_class; a test checks that they agree). With h the
    # height: useless iff r < h (played; this covers "played in every colour", as the lowest
    # height is <= h) or r >= maxReachable (some rank in [h, r] has every copy discarded).
    # Written without data-dependent branches (0/1 arithmetic): they were mispredicted.
    v = expand_view(pv)
    n_ranks = np.int64(v.cfg[CFG_RANKS])
    top = n_ranks - 1
    card = 0
    for c in range(v.cfg[CFG_COLORS]):
        h = np.int64(v.fireworks[c])
        dead = _ZERO
        for r in range(n_ranks):
            copies = copies_of_rank(n_ranks, r)
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
    me = v.scal[V_SEAT]
    for p in range(v.cfg[CFG_PLAYERS]):
        for k in range(v.hand_len[p]):
            card = v.cards[p, k]
            if p == me or card < 0:
                break
            out[TAB_COUNT, card] -= 1
    if out.shape[0] >= TAB_ROWS:
        out[TAB_META, 0] = 0  # the own-slot counts of the previous decision are stale
        out[TAB_META, 1] = 1


@njit(inline="always")
def _scratch_width(cfg):
    """Columns of a scratch table: a card table row, a packed row, a slot row, a move mask."""
    n_colors = cfg[CFG_COLORS]
    return max(n_colors * cfg[CFG_RANKS], N_STATS * n_colors, cfg[CFG_HAND], cfg[CFG_N_ACTIONS])


def scratch_shape(cfg) -> tuple[int, int]:
    """Shape of a scratch table for a configuration vector (``State.cfg`` / ``View.cfg``).

    ``(TAB_ROWS, max(n_colors * n_ranks, 4 * n_colors, hand_size, n_actions))``: the rows
    hold the card table, work buffers and per-decision caches of the rules.
    """
    return TAB_ROWS, int(_scratch_width(np.asarray(cfg, dtype=np.int64)))


@njit(inline="always")
def _expanded(v):
    """The :class:`~hanabi_env._view.ExpandedView` of a :class:`~hanabi_env._view.View` (copies).

    The public functions take a ``View`` and expand it once; the kernels take packed views.
    """
    return expand_view(pack_view(v))


@_alloc
def _empty_table(v):
    return np.empty((TAB_ROWS, _scratch_width(v.cfg)), dtype=np.int64)


@_alloc
def _new_table(v):
    """A new scratch table holding the viewer's card table."""
    tab = _empty_table(v)
    _card_table(v.packed, tab)
    return tab


@_alloc
def _as_scratch(v, tab):
    """``tab`` if it is a scratch table, else a new scratch table with its first two rows."""
    if tab.shape[0] >= TAB_ROWS and tab.shape[1] >= _scratch_width(v.cfg):
        return tab
    out = _empty_table(v)
    n = v.cfg[CFG_COLORS] * v.cfg[CFG_RANKS]
    out[:2, :n] = tab[:2, :n]
    out[TAB_META, 0] = 0
    out[TAB_META, 1] = 1
    return out


@_kernel
def _partner_table(pv, t, tab, out):
    v = expand_view(pv)
    for card in range(v.cfg[CFG_COLORS] * v.cfg[CFG_RANKS]):
        out[TAB_COUNT, card] = tab[TAB_COUNT, card]
        out[TAB_CLASS, card] = tab[TAB_CLASS, card]
    for k in range(_hand_len(v, t)):
        card = _card(v, t, k)
        if card < 0:
            break
        out[TAB_COUNT, card] += 1


@_inline
def _partner_pack(v, t, tab):
    """Fill the partner table U_{me->t} (rows 2-3 of scratch ``tab``) and its packed row.

    Returns ``(tab_t, pack_t)``, for :func:`_packed_counts`.
    """
    tab_t = tab[TAB_PARTNER : TAB_PARTNER + 2]
    pack_t = tab[TAB_PACK_T]
    _partner_table(v.packed, t, tab, tab_t)
    _pack_table(v, tab_t, pack_t)
    return tab_t, pack_t


@_inline
def _cand_counts(v, tab, cm, rm):
    n_ranks = v.cfg[CFG_RANKS]
    total = _ZERO
    n_play = _ZERO
    n_useless = _ZERO
    n_nec = _ZERO
    for c in range(v.cfg[CFG_COLORS]):
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


@_inline
def _slot_counts(v, tab, p, k):
    return _cand_counts(v, tab, np.int64(v.col_plaus[p, k]), np.int64(v.rank_plaus[p, k]))


# Packed counts. A candidate count is a sum of table entries over the cards a slot's colour and
# rank masks allow. Packing a colour's ranks into the bytes of one int64 (rank r in byte r, at
# most 50 cards in any sum, so no byte ever carries) turns the sum over ranks into a mask and a
# byte sum, and the sum over colours into adds: 5 steps instead of up to 25. Every statistic of
# _cand_counts gets its own packed value; the results are the same integers.
_RANK_BYTES = np.array(
    [sum(0xFF << (8 * r) for r in range(5) if (m >> r) & 1) for m in range(32)], dtype=np.int64
)
"""Rank bitmask (5 bits) -> the byte mask of those ranks in a packed colour."""


@_inline
def _byte_sum(x):
    """Sum of the 5 low bytes of ``x`` (each sum below 256)."""
    x = x + (x >> 16)
    x = x + (x >> 8)
    return (x + (x >> 32)) & 0xFF


@_inline
def _pack_table(v, tab, out):
    """Pack the count row of ``tab`` per colour into ``out[N_STATS * c + stat]``.

    ``stat``: 0 all candidates, 1 playable, 2 useless, 3 necessary (class bits of ``tab``);
    negative counts (impossible positions) count as 0, as in :func:`_cand_counts`.
    """
    n_ranks = v.cfg[CFG_RANKS]
    for c in range(v.cfg[CFG_COLORS]):
        p_all = _ZERO
        p_play = _ZERO
        p_useless = _ZERO
        p_nec = _ZERO
        card = c * n_ranks
        for r in range(n_ranks):  # branch-free
            x = max(tab[TAB_COUNT, card], _ZERO) << (8 * r)
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


@_inline
def _packed_counts(pack, cm, rm):
    """:func:`_cand_counts` from a packed row (:func:`_pack_table`)."""
    a_all = _ZERO
    a_play = _ZERO
    a_useless = _ZERO
    a_nec = _ZERO
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


@_kernel
def _fill_own_counts(pv, tab):
    """Fill the own-slot count rows of a scratch table (see :data:`TAB_OWN`)."""
    v = expand_view(pv)
    pack = tab[TAB_PACK]
    _pack_table(v, tab, pack)
    me = v.scal[V_SEAT]
    for k in range(_hand_len(v, me)):
        total, n_play, n_useless, n_nec = _packed_counts(
            pack, np.int64(v.col_plaus[me, k]), np.int64(v.rank_plaus[me, k])
        )
        tab[TAB_OWN, k] = total
        tab[TAB_OWN + 1, k] = n_play
        tab[TAB_OWN + 2, k] = n_useless
        tab[TAB_OWN + 3, k] = n_nec
    tab[TAB_META, 0] = 1


@_inline
def _own_counts(v, tab, k):
    """:func:`_slot_counts` of the viewer's slot ``k`` with the viewer's table ``tab``.

    The counts of every own slot are computed once per decision (``tab`` is the scratch).
    """
    if tab[TAB_META, 0] == 0:
        _fill_own_counts(v.packed, tab)
    return tab[TAB_OWN, k], tab[TAB_OWN + 1, k], tab[TAB_OWN + 2, k], tab[TAB_OWN + 3, k]


@_inline
def _hint_of(v, i):
    n_ranks = v.cfg[CFG_RANKS]
    if i < n_ranks:
        return False, i
    return True, i - n_ranks


@_inline
def _touches(v, card, i):
    """Whether hint number ``i`` touches ``card`` (docs/rules.md §2.5 enumeration)."""
    n_ranks = v.cfg[CFG_RANKS]
    c = card // n_ranks
    if i < n_ranks:
        return card - c * n_ranks == i
    return c == i - n_ranks


@_kernel
def _simulate_hint(pv, t, i, cm, rm):
    v = expand_view(pv)
    is_colour, value = _hint_of(v, i)
    touched = _ZERO
    for k in range(_hand_len(v, t)):
        card = _card(v, t, k)
        if card < 0:
            break
        cm[k] = v.col_plaus[t, k]
        rm[k] = v.rank_plaus[t, k]
        hit = _touches(v, card, i)
        if hit:
            touched += 1
        if is_colour:
            cm[k] = 1 << value if hit else cm[k] & ~(1 << value)
        else:
            rm[k] = 1 << value if hit else rm[k] & ~(1 << value)
    return touched


@_kernel
def _count_touched(pv, p, i):
    """Number of ``p``'s cards hint number ``i`` touches (known attributes included)."""
    v = expand_view(pv)
    n = _ZERO
    for k in range(_hand_len(v, p)):
        card = _card(v, p, k)
        if card < 0:
            break
        if _touches(v, card, i):
            n += 1
    return n


# =============================================================================================
# Actions, hint helpers, history helpers (docs/rules.md §2.6, §2.7)
# =============================================================================================


@_inline
def _play(v, k):
    return encode_action(v.cfg, v.scal[V_SEAT], _PLAY, k, _NO, _NO)


@_inline
def _discard(v, k):
    return encode_action(v.cfg, v.scal[V_SEAT], _DISCARD, k, _NO, _NO)


@_inline
def _tell_value(v, t, rank):
    return encode_action(v.cfg, v.scal[V_SEAT], _REVEAL_RANK, _NO, t, rank)


@_inline
def _tell_colour(v, t, colour):
    return encode_action(v.cfg, v.scal[V_SEAT], _REVEAL_COLOR, _NO, t, colour)


@_inline
def _tell_hint(v, t, i):
    is_colour, value = _hint_of(v, i)
    if is_colour:
        return _tell_colour(v, t, value)
    return _tell_value(v, t, value)


@_inline
def _tell_missing(v, t, k, value_first):
    n_ranks = v.cfg[CFG_RANKS]
    card = _card(v, t, k)
    rank_known = _known_rank(v, t, k) >= 0
    if value_first and not rank_known:
        return _tell_value(v, t, card % n_ranks)
    if _known_colour(v, t, k) < 0:
        return _tell_colour(v, t, card // n_ranks)
    if not rank_known:
        return _tell_value(v, t, card % n_ranks)
    return -1


@_inline
def _turn_order(v, i):
    return (v.scal[V_SEAT] + 1 + i) % v.cfg[CFG_PLAYERS]


@_inline
def _next_player(v):
    return (v.scal[V_SEAT] + 1) % v.cfg[CFG_PLAYERS]


@_inline
def _slot_of_uid(v, p, uid):
    """Current slot of the card ``uid`` in ``p``'s hand, or -1 if it is no longer there."""
    if uid < 0:
        return -1
    for k in range(_hand_len(v, p)):
        if v.uids[p, k] == uid:
            return k
    return -1


@_inline
def _is_hint_to(v, m, p):
    """Whether history record ``m`` is a hint (colour or value) whose target is ``p``."""
    kind = v.hist[m, H_KIND]
    return (kind == REVEAL_COLOR or kind == REVEAL_RANK) and v.hist[m, H_TARGET] == p


@_inline
def _ge(g, t, bg, bt):
    """Whether ``g/t >= bg/bt`` (cross-multiplied, docs/rules.md §2.10; ``t, bt > 0``)."""
    return g * bt >= bg * t


@_inline
def _own_slot_end(v, k):
    """Whether my slot ``k`` is past the end of my hand (loop guard)."""
    return v.uids[v.scal[V_SEAT], k] < 0


# =============================================================================================
# Play rules (docs/rules.md §3.1)
# =============================================================================================


@_kernel
def rule_play_finesse(pv):
    """PlayFinesse (0), v0.2.4 semantics (docs/rules.md §3.1)."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    m = v.scal[V_N_MOVES] - 1
    nxt = _next_player(v)
    if v.cfg[CFG_PLAYERS] == 2 or m < 0 or _hand_len(v, me) == 0 or not _is_hint_to(v, m, nxt):
        return -1
    n_ranks = v.cfg[CFG_RANKS]
    for j in range(v.hist_uids.shape[1]):
        uid = v.hist_uids[m, j]
        if uid < 0:
            break
        k = _slot_of_uid(v, nxt, uid)
        if k >= 0:
            card = _card(v, nxt, k)
            if card % n_ranks == v.fireworks[card // n_ranks] + 1:
                return _play(v, _hand_len(v, me) - 1)
    return -1


@_kernel
def rule_play_finesse_told(pv):
    """PlayFinesseTold (1), v0.2.4 semantics (docs/rules.md §3.1)."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    m = v.scal[V_N_MOVES] - 1
    if v.cfg[CFG_PLAYERS] == 2 or m < 1 or v.hist[m, H_KIND] != PLAY:
        return -1
    if not _is_hint_to(v, m - 1, me) or popcount(v.hist[m - 1, H_TOUCHED]) != 1:
        return -1
    k = _slot_of_uid(v, me, v.hist_uids[m - 1, 0])
    return _play(v, k) if k >= 0 else -1


@_kernel
def rule_play_if_certain(pv):
    """PlayIfCertain (2): lowest slot known playable by colour and value (docs/rules.md §3.1)."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    for k in range(_hand_len(v, me)):
        c = _known_colour(v, me, k)
        if c >= 0 and _known_rank(v, me, k) == v.fireworks[c]:
            return _play(v, k)
    return -1


@_kernel
def rule_play_safe_card(pv, tab):
    """PlaySafeCard (8): lowest slot with P_me(playable) = 1 (docs/rules.md §3.1)."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    for k in range(_hand_len(v, me)):
        total, n_play, _, _ = _own_counts(v, tab, k)
        if total > 0 and n_play == total:
            return _play(v, k)
    return -1


@_kernel
def _best_own_slot(pv, tab, useless, num, den):
    """My slot with the highest P_me(playable, or useless) >= num/den, ties → highest slot."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    best = _NO
    bg = _ZERO
    bt = _ONE
    for k in range(_hand_len(v, me)):
        if _own_slot_end(v, k):
            break
        t, n_play, n_useless, _ = _own_counts(v, tab, k)
        g = n_useless if useless else n_play
        if t > 0 and g * den >= num * t and (best < 0 or _ge(g, t, bg, bt)):
            best = k
            bg = g
            bt = t
    return best


@_kernel
def rule_play_probably_safe(pv, tab, num, den):
    """PlayProbablySafeCard(num/den) (3–7, 49; inside 41–47 and X1) (docs/rules.md §3.1)."""
    v = expand_view(pv)
    k = _best_own_slot(v.packed, tab, _FALSE, num, den)
    return _play(v, k) if k >= 0 else -1


@_kernel
def rule_play_unique_possible(pv, tab):
    """PlayUniquePossibleCard (9), with height + 1 and card identity (docs/rules.md §3.1)."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    n_ranks = v.cfg[CFG_RANKS]
    for m in range(v.scal[V_N_MOVES] - 1, -1, -1):
        if not _is_hint_to(v, m, me) or popcount(v.hist[m, H_TOUCHED]) != 1:
            continue
        k = _slot_of_uid(v, me, v.hist_uids[m, 0])
        if k < 0:
            continue
        if v.hist[m, H_KIND] == REVEAL_COLOR:
            c = v.hist[m, H_COLOR]
            h = v.fireworks[c]
            if h < n_ranks and tab[TAB_COUNT, c * n_ranks + h] > 0:
                return _play(v, k)
            continue
        r = v.hist[m, H_RANK]
        for c in range(v.cfg[CFG_COLORS]):
            if v.fireworks[c] == r and tab[TAB_COUNT, c * n_ranks + r] > 0:
                return _play(v, k)
    return -1


@_inline
def _mark_recent_hints(v, singled_out):
    """Bitmask of my slots touched by a recent hint (PlayJustHinted steps 1–2)."""
    me = v.scal[V_SEAT]
    out = _ZERO
    for m in range(v.scal[V_N_MOVES] - 1, -1, -1):
        to_me = _is_hint_to(v, m, me)
        if v.hist[m, H_ACTOR] != me and not to_me:
            break
        if not to_me or (singled_out and popcount(v.hist[m, H_TOUCHED]) != 1):
            continue
        for j in range(v.hist_uids.shape[1]):
            uid = v.hist_uids[m, j]
            if uid < 0:
                break
            k = _slot_of_uid(v, me, uid)
            if k >= 0:
                out |= _ONE << k
    return out


@_kernel
def rule_play_just_hinted(pv, tab, singled_out, newest_only, min_lives, num, den):
    """PlayJustHinted(singledOut, newestOnly, minLives, num/den) (50–66) (docs/rules.md §3.1)."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    n = _hand_len(v, me)
    eligible = _mark_recent_hints(v, singled_out != 0)
    newest = _newest_slot(v, me)
    best = _NO
    bg = _ZERO
    bt = _ONE
    for k in range(n):
        if _own_slot_end(v, k):
            break
        if not (eligible >> k) & 1 or (newest_only != 0 and k != newest):
            continue
        t, g, _, _ = _own_counts(v, tab, k)
        if t > 0 and (best < 0 or _ge(g, t, bg, bt)):
            best = k
            bg = g
            bt = t
    if best < 0:
        return -1
    if bg == bt or (bg * den >= num * bt and v.scal[V_LIFE] > min_lives):
        return _play(v, best)
    return -1


# =============================================================================================
# Tell rules (docs/rules.md §3.2)
# =============================================================================================


@_kernel
def rule_tell_useful(pv, value_first):
    """TellAnyoneAboutUsefulCard (13, value first) / ...OldestUsefulCard (12, colour first).

    A playable card not fully known to its owner, players in turn order (docs/rules.md §3.2): 13
    takes the first such card in slot order, 12 the oldest (smallest uid). Under the shift
    hand order both pick the same card; under the fixed-slot order (the Java framework's)
    they may not.
    """
    v = expand_view(pv)
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        p = _turn_order(v, i)
        best = _NO
        for k in range(_hand_len(v, p)):
            if _is_playable(v, _card(v, p, k)) and not _fully_known(v, p, k):
                if value_first != 0 or v.cfg[CFG_HAND_ORDER] == HAND_SHIFT:
                    return _tell_missing(v, p, k, value_first != 0)
                if best < 0 or v.uids[p, k] < v.uids[p, best]:
                    best = k
        if best >= 0:
            return _tell_missing(v, p, best, False)
    return -1


@_kernel
def rule_complete_tell_useful(pv):
    """CompleteTellUsefulCard (10): a playable card with exactly one attribute known."""
    v = expand_view(pv)
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        p = _turn_order(v, i)
        for k in range(_hand_len(v, p)):
            one_known = (_known_colour(v, p, k) >= 0) != (_known_rank(v, p, k) >= 0)
            if one_known and _is_playable(v, _card(v, p, k)):
                return _tell_missing(v, p, k, one_known)
    return -1


@_kernel
def rule_tell_playable(pv, rng):
    """TellPlayableCard (20, random): hint the next player's lowest-slot playable card.

    One draw (docs/rules.md §2.9): 0 → its value, 1 → its colour (docs/rules.md §3.2).
    """
    v = expand_view(pv)
    p = _next_player(v)
    n_ranks = v.cfg[CFG_RANKS]
    for k in range(_hand_len(v, p)):
        card = _card(v, p, k)
        if _is_playable(v, card):
            if rng_below(rng, np.int64(2)) == 0:
                return _tell_value(v, p, card % n_ranks)
            return _tell_colour(v, p, card // n_ranks)
    return -1


@_kernel
def rule_tell_playable_outer(pv):
    """TellPlayableCardOuter (21): next player's lowest playable, not fully known card."""
    v = expand_view(pv)
    p = _next_player(v)
    for k in range(_hand_len(v, p)):
        if _is_playable(v, _card(v, p, k)) and not _fully_known(v, p, k):
            return _tell_missing(v, p, k, _TRUE)
    return -1


@_kernel
def rule_tell_about_ones(pv):
    """TellAboutOnes (11): next player's lowest 1 that is not fully known (docs/rules.md §3.2)."""
    v = expand_view(pv)
    p = _next_player(v)
    for k in range(_hand_len(v, p)):
        if _card(v, p, k) % v.cfg[CFG_RANKS] == 0 and not _fully_known(v, p, k):
            return _tell_missing(v, p, k, _TRUE)
    return -1


@_kernel
def rule_tell_fives(pv):
    """TellFives (17): TellValue(5) to the first player holding a 5 of unknown value."""
    v = expand_view(pv)
    top = v.cfg[CFG_RANKS] - 1
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        p = _turn_order(v, i)
        for k in range(_hand_len(v, p)):
            if _card(v, p, k) % v.cfg[CFG_RANKS] == top and _known_rank(v, p, k) < 0:
                return _tell_value(v, p, top)
    return -1


@_kernel
def rule_tell_unknown(pv):
    """TellUnknown (23): next player's lowest not fully known card, colour first."""
    v = expand_view(pv)
    p = _next_player(v)
    for k in range(_hand_len(v, p)):
        if not _fully_known(v, p, k):
            return _tell_missing(v, p, k, _FALSE)
    return -1


@_kernel
def rule_tell_randomly(pv, rng):
    """TellRandomly (22, random): draw x in [0, 2h); slot x // 2, even → value, odd → colour."""
    v = expand_view(pv)
    p = _next_player(v)
    h = _hand_len(v, p)
    if h == 0:
        return -1
    x = rng_below(rng, 2 * h)
    card = _card(v, p, x // 2)
    if x % 2 == 0:
        return _tell_value(v, p, card % v.cfg[CFG_RANKS])
    return _tell_colour(v, p, card // v.cfg[CFG_RANKS])


@_inline
def _has_gap(v, p):
    """Whether ``p``'s hand has a gap: the deck is empty and ``p`` played or discarded since.

    The Java framework then left ``p``'s slot empty (null); our hands close the gap.
    """
    return v.scal[V_DECK] == 0 and _hand_len(v, p) < v.cfg[CFG_HAND]


@_kernel
def rule_tell_most_information(pv, java):
    """TellMostInformation (19, "in total"): the hint touching most cards, absolute order.

    ``java``: raise (:data:`RULE_RAISED`) if another hand has a gap (X6, docs/rules.md §12).
    """
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    if java:
        for p in range(v.cfg[CFG_PLAYERS]):
            if p != me and _has_gap(v, p):
                return RULE_RAISED
    best = _NO
    best_t = _NO
    best_score = _ZERO
    for p in range(v.cfg[CFG_PLAYERS]):
        if p == me:
            continue
        for i in range(v.cfg[CFG_RANKS] + v.cfg[CFG_COLORS]):
            score = _count_touched(v.packed, p, i)
            if score > best_score:
                best_score = score
                best = i
                best_t = p
    return _tell_hint(v, best_t, best) if best >= 0 else -1


@_kernel
def _tell_first_not_fully_known(pv, usable_test, stop_at_first):
    """Shared scan of TellAnyoneAboutUselessCard (14) and TellIllInformed (18), docs/rules.md §3.2.

    Players in turn order, slots ascending: at the first card that is useless (``usable_test``
    false) or usable (true) by its actual identity and not fully known to its owner,
    tellMissing(value first); -1 if none. With ``stop_at_first`` (the Java reference's rule
    14, X3) the scan ends at the first useless card, fully known or not.
    """
    v = expand_view(pv)
    n_ranks = v.cfg[CFG_RANKS]
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        p = _turn_order(v, i)
        for k in range(_hand_len(v, p)):
            card = _card(v, p, k)
            c = card // n_ranks
            r = card % n_ranks
            hit = _usable(v, c, r) if usable_test else _safe_to_discard(v, c, r)
            if hit and not _fully_known(v, p, k):
                return _tell_missing(v, p, k, _TRUE)
            if hit and stop_at_first:
                return -1
    return -1


@_kernel
def rule_tell_useless(pv, java):
    """TellAnyoneAboutUselessCard (14): first useless card not fully known to its owner.

    ``java`` nonzero: the Java reference's scan (X3), which stops at the first useless card.
    """
    v = expand_view(pv)
    return _tell_first_not_fully_known(v.packed, _FALSE, java != 0)


@_kernel
def rule_tell_dispensable(pv, java):
    """TellDispensable (15; 48 under its predicate), absolute order (docs/rules.md §3.2).

    ``java``: raise (:data:`RULE_RAISED`) when the scan reaches another player whose hand has
    a gap (X4/X5, docs/rules.md §12).
    """
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    n_ranks = v.cfg[CFG_RANKS]
    low = _min_height(v)
    for p in range(v.cfg[CFG_PLAYERS]):
        if java and p != me and _has_gap(v, p):
            return RULE_RAISED
        for k in range(_hand_len(v, p)):
            card = _card(v, p, k)
            if p == me or card < 0:
                break
            c = card // n_ranks
            r = card % n_ranks
            kc = _known_colour(v, p, k) >= 0
            kr = _known_rank(v, p, k) >= 0
            if not kc and v.fireworks[c] == n_ranks:
                return _tell_colour(v, p, c)  # (i)
            if not kr and r < low:
                return _tell_value(v, p, r)  # (ii)
            if kc != kr and r < v.fireworks[c]:
                return _tell_missing(v, p, k, kc)  # (iii) the missing attribute
    return -1


@_kernel
def rule_tell_ill_informed(pv):
    """TellIllInformed (18): first usable card (actual identity) not fully known."""
    v = expand_view(pv)
    return _tell_first_not_fully_known(v.packed, _TRUE, _FALSE)


@_kernel
def _finesse_hint(pv, f, k, n_colour, n_value):
    """Steps (1)–(3) of TellFinesse for ``f``'s slot ``k`` (docs/rules.md §3.2); -1 if none."""
    v = expand_view(pv)
    n_ranks = v.cfg[CFG_RANKS]
    card = _card(v, f, k)
    if n_colour == 1 and n_value == 1:
        if _known_rank(v, f, k) >= 0:
            return _tell_colour(v, f, card // n_ranks)
        if _known_colour(v, f, k) >= 0:
            return _tell_value(v, f, card % n_ranks)
    if n_value == 1:
        return _tell_value(v, f, card % n_ranks)
    if n_colour == 1:
        return _tell_colour(v, f, card // n_ranks)
    return -1


@_kernel
def rule_tell_finesse(pv):
    """TellFinesse (16), v0.2.4 semantics (docs/rules.md §3.2)."""
    v = expand_view(pv)
    n_ranks = v.cfg[CFG_RANKS]
    nxt = _next_player(v)
    if v.cfg[CFG_PLAYERS] == 2 or _hand_len(v, nxt) == 0:
        return -1
    x = _card(v, nxt, _newest_slot(v, nxt))
    if not _is_playable(v, x) or x % n_ranks == n_ranks - 1:
        return -1
    wanted = x + 1  # (x.colour, x.value + 1)
    f = (v.scal[V_SEAT] + 2) % v.cfg[CFG_PLAYERS]
    n_colour = _count_touched(v.packed, f, n_ranks + wanted // n_ranks)
    n_value = _count_touched(v.packed, f, wanted % n_ranks)
    for k in range(_hand_len(v, f)):
        if _card(v, f, k) == wanted:
            a = _finesse_hint(v.packed, f, k, n_colour, n_value)
            if a >= 0:
                return a
    return -1


@_kernel
def _collisions(pv, p, k, is_colour):
    """(cP, cU) of a TellUnambiguous candidate (docs/rules.md §3.2).

    The other cards of ``p`` the same hint touches and whose same attribute ``p`` does not
    know yet, split into actually playable (cP) and unplayable (cU).
    """
    v = expand_view(pv)
    n_ranks = v.cfg[CFG_RANKS]
    card = _card(v, p, k)
    i = n_ranks + card // n_ranks if is_colour else card % n_ranks
    c_play = _ZERO
    c_unplay = _ZERO
    for j in range(_hand_len(v, p)):
        other = _card(v, p, j)
        if other < 0:
            break
        known = _known_colour(v, p, j) if is_colour else _known_rank(v, p, j)
        if j != k and known < 0 and _touches(v, other, i):
            if _is_playable(v, other):
                c_play += 1
            else:
                c_unplay += 1
    return c_play, c_unplay


@_kernel
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


@_kernel
def rule_tell_unambiguous(pv, mode, w_p, w_u):
    """TellUnambiguous (67/68: ``mode`` 0/1) and TellUnambiguous3(wP, wU) (72–77: ``mode`` 2).

    docs/rules.md §3.2. The target is the first player in turn order holding a playable card it
    does not fully know. Candidates, per playable card in ascending slots: its value hint (if
    the value is unknown), then its colour hint (if the colour is unknown). The first
    candidate is accepted; later ones replace it only if strictly better.
    """
    v = expand_view(pv)
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        p = _turn_order(v, i)
        best_k = _NO
        best_colour = False
        bp = _ZERO
        bu = _ZERO
        for k in range(_hand_len(v, p)):
            if not _is_playable(v, _card(v, p, k)):
                continue
            for a in range(2):
                is_colour = a == 1
                known = _known_colour(v, p, k) if is_colour else _known_rank(v, p, k)
                if known >= 0:
                    continue
                cp, cu = _collisions(v.packed, p, k, is_colour)
                if best_k < 0 or _unambiguous_better(mode, w_p, w_u, cp, cu, bp, bu):
                    best_k = k
                    best_colour = is_colour
                    bp = cp
                    bu = cu
        if best_k >= 0:
            return _tell_missing(v, p, best_k, not best_colour)
    return -1


@_inline
def _has_class(v, tab, p, cls):
    """Whether ``p`` holds an actual card of class ``cls`` (playable / useless bit)."""
    for k in range(_hand_len(v, p)):
        card = _card(v, p, k)
        if card >= 0 and tab[TAB_CLASS, card] & cls:
            return True
    return False


@_inline
def _mask_buffers(v, tab):
    """Zeroed ``(cm, rm)`` masks (at least ``hand_size`` long): rows of a scratch ``tab``."""
    cm = tab[TAB_CM]
    rm = tab[TAB_RM]
    for k in range(v.cfg[CFG_HAND]):
        cm[k] = 0
        rm[k] = 0
    return cm, rm


@_kernel
def _unambiguous2_score(pv, tab_t, pack_t, t, cm, rm, w_p, w_u):
    """Σ_s w(s) · P_{me→t}(playable | s) under the simulated masks (TellUnambiguous2)."""
    v = expand_view(pv)
    score = 0.0
    for k in range(_hand_len(v, t)):
        card = _card(v, t, k)
        if card < 0:
            break
        total, n_play, _, _ = _packed_counts(pack_t, cm[k], rm[k])
        w = w_p if tab_t[TAB_CLASS, card] & CLS_PLAYABLE else w_u
        if total > 0:
            score += w * n_play / total
    return score


@_kernel
def rule_tell_unambiguous2(pv, tab, w_p, w_u):
    """TellUnambiguous2(wP, wU) (69–71), any hand size (docs/rules.md §3.2).

    Target: the first player in turn order holding a playable card. Every hint of §2.5 is
    simulated and scored Σ_s w(s) · P_{me→t}(playable | s) with w(s) = wP on actually playable
    cards, wU otherwise; the first is accepted, later ones only if better by more than 1e-9.
    """
    v = expand_view(pv)
    cm, rm = _mask_buffers(v, tab)
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        t = _turn_order(v, i)
        if not _has_class(v, tab, t, np.int64(CLS_PLAYABLE)):
            continue
        tab_t, pack_t = _partner_pack(v, t, tab)
        best = _NO
        best_score = 0.0
        for j in range(v.cfg[CFG_RANKS] + v.cfg[CFG_COLORS]):
            if _simulate_hint(v.packed, t, j, cm, rm) == 0:
                continue
            score = _unambiguous2_score(v.packed, tab_t, pack_t, t, cm, rm, w_p, w_u)
            if best < 0 or score > best_score + TOL:
                best = j
                best_score = score
        return _tell_hint(v, t, best)
    return -1


@_kernel
def _count_sure_useless(pack_t, cm, rm, n):
    """Number of slots ``< n`` whose P(useless) under ``cm`` / ``rm`` exceeds 0.99."""
    cnt = _ZERO
    for k in range(n):
        total, _, n_useless, _ = _packed_counts(pack_t, cm[k], rm[k])
        if total > 0 and n_useless * 100 > 99 * total:
            cnt += 1
    return cnt


@_kernel
def _at_least_n_target(pv, tab, cm, rm):
    """TellAtLeastNUseless' target (docs/rules.md §3.2), or -1; leaves its packed pool in ``tab``.

    The first player in turn order holding an actually useless card and no slot with
    P_{me→t}(useless) > 0.99 under its current knowledge.
    """
    v = expand_view(pv)
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        t = _turn_order(v, i)
        n = _hand_len(v, t)
        if not _has_class(v, tab, t, np.int64(CLS_USELESS)):
            continue
        _, pack_t = _partner_pack(v, t, tab)
        for k in range(n):
            cm[k] = v.col_plaus[t, k]
            rm[k] = v.rank_plaus[t, k]
        if _count_sure_useless(pack_t, cm, rm, n) == 0:
            return t
    return -1


@_kernel
def rule_tell_at_least_n_useless(pv, tab, n_min):
    """TellAtLeastNUseless(N) (78–82) (docs/rules.md §3.2).

    The hint to the target leaving the most slots with P_{me→t}(useless) > 0.99 is told if
    that number is at least ``n_min`` (first wins ties); otherwise the rule does not fire.
    """
    v = expand_view(pv)
    cm, rm = _mask_buffers(v, tab)
    t = _at_least_n_target(v.packed, tab, cm, rm)
    if t < 0:
        return -1
    pack_t = tab[TAB_PACK_T]
    best = _NO
    best_cnt = _ZERO
    for j in range(v.cfg[CFG_RANKS] + v.cfg[CFG_COLORS]):
        if _simulate_hint(v.packed, t, j, cm, rm) == 0:
            continue
        cnt = _count_sure_useless(pack_t, cm, rm, _hand_len(v, t))
        if cnt >= n_min and cnt > best_cnt:
            best = j
            best_cnt = cnt
    return _tell_hint(v, t, best) if best >= 0 else -1


@_kernel
def _mistake_slot(pv, tab_t, pack_t, p, false_positive, num, den):
    """The slot TellHighProbabilityMistake picks in ``p``'s hand, or -1 (docs/rules.md §3.2)."""
    v = expand_view(pv)
    best = _NO
    bg = _ZERO
    bt = _ONE
    for k in range(_hand_len(v, p)):
        card = _card(v, p, k)
        if card < 0:
            break
        t, g, _, _ = _packed_counts(
            pack_t, np.int64(v.col_plaus[p, k]), np.int64(v.rank_plaus[p, k])
        )
        if t == 0 or (tab_t[TAB_CLASS, card] & CLS_PLAYABLE != 0) == false_positive:
            continue
        if false_positive:  # P >= num/den, highest P, ties → highest slot
            ok = g * den >= num * t and (best < 0 or _ge(g, t, bg, bt))
        else:  # P <= num/den, lowest P, ties → highest slot
            ok = g * den <= num * t and (best < 0 or _ge(bg, bt, g, t))
        if ok:
            best = k
            bg = g
            bt = t
    return best


@_kernel
def rule_tell_high_probability_mistake(pv, tab, false_positive, num, den):
    """TellHighProbabilityMistake(falsePositive, num/den) (83–104) (docs/rules.md §3.2).

    Hints the scanned player (not the loop offset), with any hand size. Stops without firing
    if the chosen card is already fully known to its owner.
    """
    v = expand_view(pv)
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        p = _turn_order(v, i)
        tab_t, pack_t = _partner_pack(v, p, tab)
        k = _mistake_slot(v.packed, tab_t, pack_t, p, false_positive != 0, num, den)
        if k >= 0:
            return _tell_missing(v, p, k, _TRUE)
    return -1


# =============================================================================================
# Discard rules (docs/rules.md §3.3)
# =============================================================================================


@_kernel
def rule_discard_safe(pv):
    """DiscardSafeCard (35): lowest slot with knowsSafe(me, s)."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    for k in range(_hand_len(v, me)):
        if _knows_safe(v, me, k):
            return _discard(v, k)
    return -1


@_kernel
def _least_candidate_rank(pv, tab, c, rm):
    """The lowest rank ``r`` in mask ``rm`` with (c, r) in the pool of ``tab``; -1 if none."""
    v = expand_view(pv)
    n_ranks = v.cfg[CFG_RANKS]
    for r in range(n_ranks):
        if (rm >> r) & 1 and tab[TAB_COUNT, c * n_ranks + r] > 0:
            return r
    return -1


@_kernel
def rule_discard_useless(pv, tab):
    """DiscardUselessCard (37): discard a known-colour slot that is out of reach.

    The slot's value (known, or else the least candidate value) is beyond maxReachable of
    its colour (docs/rules.md §3.3).
    """
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    for k in range(_hand_len(v, me)):
        c = _known_colour(v, me, k)
        if c < 0:
            continue
        r = _known_rank(v, me, k)
        if r < 0:
            r = _least_candidate_rank(v.packed, tab, c, np.int64(v.rank_plaus[me, k]))
        if r >= 0 and r >= _max_reachable(v, c):
            return _discard(v, k)
    return -1


@_kernel
def rule_discard_if_certain(pv):
    """DiscardIfCertain (25): lowest fully known slot with value <= height(colour)."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    for k in range(_hand_len(v, me)):
        c = _known_colour(v, me, k)
        r = _known_rank(v, me, k)
        if c >= 0 and r >= 0 and r < v.fireworks[c]:
            return _discard(v, k)
    return -1


@_kernel
def rule_discard_highest(pv):
    """DiscardHighest (24): the highest known value, ties → lowest slot."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    best = _NO
    best_r = _NO
    for k in range(_hand_len(v, me)):
        if _own_slot_end(v, k):
            break
        r = _known_rank(v, me, k)
        if r > best_r:
            best = k
            best_r = r
    return _discard(v, best) if best >= 0 else -1


@_kernel
def rule_discard_unidentified(pv):
    """DiscardUnidentifiedCard (36) ≡ DiscardOldestNoInfoFirst (28): lowest no-info slot."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    for k in range(_hand_len(v, me)):
        if _known_colour(v, me, k) < 0 and _known_rank(v, me, k) < 0:
            return _discard(v, k)
    return -1


@_kernel
def rule_discard_probably_useless(pv, tab, num, den):
    """DiscardProbablyUselessCard(num/den) (29–33, X2): highest P_me(useless), ties → highest."""
    v = expand_view(pv)
    k = _best_own_slot(v.packed, tab, _TRUE, num, den)
    return _discard(v, k) if k >= 0 else -1


@_kernel
def rule_discard_least_necessary(pv, tab):
    """DiscardLeastLikelyToBeNecessary (26): lowest P_me(necessary), ties → highest slot."""
    v = expand_view(pv)
    me = v.scal[V_SEAT]
    best = _NO
    bg = _ZERO
    bt = _ONE
    for k in range(_hand_len(v, me)):
        if _own_slot_end(v, k):
            break
        t, _, _, g = _own_counts(v, tab, k)
        if t > 0 and (best < 0 or _ge(bg, bt, g, t)):
            best = k
            bg = g
            bt = t
    return _discard(v, best) if best >= 0 else -1


@_kernel
def rule_discard_randomly(pv, rng):
    """DiscardRandomly (34, random): Discard(x), x uniform in [0, |hand|) (docs/rules.md §2.9)."""
    v = expand_view(pv)
    h = _hand_len(v, v.scal[V_SEAT])
    if h == 0:
        return -1
    return _discard(v, rng_below(rng, h))


# =============================================================================================
# Legal moves and the other rules (docs/rules.md §3.4)
# =============================================================================================


@_kernel
def _is_legal(pv, a):
    """Whether move uid ``a`` is legal for the viewer (``_engine.is_legal``, from the view)."""
    v = expand_view(pv)
    if v.scal[V_DONE] != 0 or a < 0 or a >= v.cfg[CFG_N_ACTIONS]:
        return False
    n = v.cfg[CFG_PLAYERS]
    n_colors = v.cfg[CFG_COLORS]
    n_ranks = v.cfg[CFG_RANKS]
    h = v.cfg[CFG_HAND]
    me = v.scal[V_SEAT]
    info = v.scal[V_INFO]
    if a < h:
        return a < _hand_len(v, me) and info < v.cfg[CFG_MAX_INFO]
    if a < 2 * h:
        return a - h < _hand_len(v, me)
    if info <= 0:
        return False
    x = a - 2 * h
    if x < (n - 1) * n_colors:  # colour hints, by target offset then colour
        return _count_touched(v.packed, (me + 1 + x // n_colors) % n, n_ranks + x % n_colors) > 0
    x -= (n - 1) * n_colors  # rank hints, by target offset then rank
    return _count_touched(v.packed, (me + 1 + x // n_ranks) % n, x % n_ranks) > 0


@_kernel
def _legal_mask(pv, out):
    """One pass over the viewer's moves (same semantics as :func:`_is_legal` for every uid)."""
    v = expand_view(pv)
    for a in range(out.shape[0]):
        out[a] = 0
    if v.scal[V_DONE] != 0:
        return _ZERO
    n_players = v.cfg[CFG_PLAYERS]
    n_colors = v.cfg[CFG_COLORS]
    n_ranks = v.cfg[CFG_RANKS]
    h = v.cfg[CFG_HAND]
    me = v.scal[V_SEAT]
    info = v.scal[V_INFO]
    n = _ZERO
    for k in range(_hand_len(v, me)):
        if info < v.cfg[CFG_MAX_INFO]:
            out[k] = 1
            n += 1
        out[h + k] = 1
        n += 1
    if info <= 0:
        return n
    rank_base = 2 * h + (n_players - 1) * n_colors
    for off in range(1, n_players):
        t = (me + off) % n_players
        cm = _ZERO
        rm = _ZERO
        for k in range(_hand_len(v, t)):
            card = _card(v, t, k)
            if card < 0:
                break
            cm |= 1 << (card // n_ranks)
            rm |= 1 << (card % n_ranks)
        for c in range(n_colors):
            if (cm >> c) & 1:
                out[2 * h + (off - 1) * n_colors + c] = 1
                n += 1
        for r in range(n_ranks):
            if (rm >> r) & 1:
                out[rank_base + (off - 1) * n_ranks + r] = 1
                n += 1
    return n


@_kernel
def _random_legal(pv, rng, tab):
    """LegalRandom (39): one draw over the ascending legal-move list; -1 (no draw) if empty."""
    v = expand_view(pv)
    mask = tab[TAB_MASK, : v.cfg[CFG_N_ACTIONS]]
    n = _legal_mask(v.packed, mask)
    if n == 0:
        return -1
    x = rng_below(rng, n)
    for a in range(mask.shape[0]):
        if mask[a]:
            if x == 0:
                return a
            x -= 1
    return -1


@_kernel
def _unblocking_slot(pv, p):
    """Step 1 of TryToUnBlock from ``p``'s knowledge (docs/rules.md §3.4).

    Returns the slot to discard (>= 0), ``-2 - slot`` to play (a known 5 whose colour is at 4),
    or -1 if none.
    """
    v = expand_view(pv)
    top = v.cfg[CFG_RANKS] - 1
    for k in range(_hand_len(v, p)):
        if _knows_safe(v, p, k):
            return k
        c = _known_colour(v, p, k)
        if c >= 0 and _known_rank(v, p, k) == top and v.fireworks[c] == top:
            return -2 - k
    return -1


@_kernel
def _is_blocked(pv, p):
    """Whether ``p`` knows no card safe to discard (with T < T_max) nor playable."""
    v = expand_view(pv)
    can_discard = v.scal[V_INFO] < v.cfg[CFG_MAX_INFO]
    for k in range(_hand_len(v, p)):
        if can_discard and _knows_safe(v, p, k):
            return False
        c = _known_colour(v, p, k)
        if c >= 0 and _known_rank(v, p, k) == v.fireworks[c]:
            return False
    return True


@_kernel
def rule_try_to_unblock(pv):
    """TryToUnBlock (40): only at T = 0 (docs/rules.md §3.4)."""
    v = expand_view(pv)
    if v.scal[V_INFO] != 0:
        return -1
    mine = _unblocking_slot(v.packed, v.scal[V_SEAT])
    if mine == -1:
        return -1
    for i in range(v.cfg[CFG_PLAYERS] - 1):
        p = _turn_order(v, i)
        if _is_blocked(v.packed, p):
            return _discard(v, mine) if mine >= 0 else _play(v, -2 - mine)
        if _unblocking_slot(v.packed, p) != -1:
            return -1
    return -1


# =============================================================================================
# Dispatch (docs/rules.md §1 parameters, §2.8 gating and IF-predicates)
# =============================================================================================


@_inline
def _gate_open(v, kind, pred):
    """Token gating of ``kind`` and the IF-predicate ``pred`` (docs/rules.md §2.8)."""
    info = v.scal[V_INFO]
    life = v.scal[V_LIFE]
    if kind == KIND_TELL and info <= 0:
        return False
    if kind == KIND_DISCARD and info >= v.cfg[CFG_MAX_INFO]:
        return False
    if pred == PRED_MORE_THAN_ONE_LIFE:
        return life > 1
    if pred == PRED_HAIL_MARY:
        return life > 1 and v.scal[V_DECK] == 0
    if pred == PRED_INFO_LESS_THAN_4:
        return info < 4
    return True


@_inline
def _apply_rule_table(rule_id, v, rng, tab):
    # One flat dispatch: every call level re-optimises all callees (see the module docstring).
    if rule_id < 0 or rule_id >= N_RULE_IDS or v.scal[V_DONE] != 0:
        return -1
    row = RULE_TABLE[rule_id]
    if not _gate_open(v, row[R_KIND], row[R_PRED]):
        return -1
    cls = row[R_CLASS]
    if _NEEDS_TABLE[cls] and tab[TAB_META, 1] == 0:
        _card_table(v.packed, tab)  # computed once per decision, only if a rule needs it
    p0 = row[R_P0]
    p1 = row[R_P1]
    p2 = row[R_P2]
    # play rules (docs/rules.md §3.1)
    if cls == C_FINESSE:
        return rule_play_finesse(v.packed)
    if cls == C_FINESSE_TOLD:
        return rule_play_finesse_told(v.packed)
    if cls == C_IF_CERTAIN:
        return rule_play_if_certain(v.packed)
    if cls == C_PROBABLY_SAFE:
        return rule_play_probably_safe(v.packed, tab, p0, p1)
    if cls == C_SAFE:
        return rule_play_safe_card(v.packed, tab)
    if cls == C_UNIQUE_POSSIBLE:
        return rule_play_unique_possible(v.packed, tab)
    if cls == C_JUST_HINTED:
        return rule_play_just_hinted(v.packed, tab, p0, p1, p2, row[R_P3], row[R_P4])
    if cls == C_X1:  # IF(L>1) PlayProbablySafeCard(0.6) ELSE PlaySafeCard (docs/rules.md §4)
        if v.scal[V_LIFE] > 1:
            return rule_play_probably_safe(v.packed, tab, p0, p1)
        return rule_play_safe_card(v.packed, tab)
    # tell rules (docs/rules.md §3.2)
    if cls == C_COMPLETE_USEFUL:
        return rule_complete_tell_useful(v.packed)
    if cls == C_ONES:
        return rule_tell_about_ones(v.packed)
    if cls == C_USEFUL:
        return rule_tell_useful(v.packed, p0)
    if cls == C_USELESS:
        return rule_tell_useless(v.packed, p0)
    if cls == C_DISPENSABLE:
        return rule_tell_dispensable(v.packed, p0)
    if cls == C_TELL_FINESSE:
        return rule_tell_finesse(v.packed)
    if cls == C_FIVES:
        return rule_tell_fives(v.packed)
    if cls == C_ILL_INFORMED:
        return rule_tell_ill_informed(v.packed)
    if cls == C_MOST_INFORMATION:
        return rule_tell_most_information(v.packed, p0)
    if cls == C_PLAYABLE_RANDOM:
        return rule_tell_playable(v.packed, rng)
    if cls == C_PLAYABLE_OUTER:
        return rule_tell_playable_outer(v.packed)
    if cls == C_TELL_RANDOMLY:
        return rule_tell_randomly(v.packed, rng)
    if cls == C_UNKNOWN:
        return rule_tell_unknown(v.packed)
    if cls == C_UNAMBIGUOUS:
        return rule_tell_unambiguous(v.packed, p0, p1, p2)
    if cls == C_UNAMBIGUOUS2:
        return rule_tell_unambiguous2(v.packed, tab, float(p0), float(p1))
    if cls == C_AT_LEAST_N_USELESS:
        return rule_tell_at_least_n_useless(v.packed, tab, p0)
    if cls == C_MISTAKE:
        return rule_tell_high_probability_mistake(v.packed, tab, p0, p1, p2)
    # discard rules (docs/rules.md §3.3)
    if cls == C_DISCARD_HIGHEST:
        return rule_discard_highest(v.packed)
    if cls == C_DISCARD_IF_CERTAIN:
        return rule_discard_if_certain(v.packed)
    if cls == C_DISCARD_LEAST_NECESSARY:
        return rule_discard_least_necessary(v.packed, tab)
    if cls == C_DISCARD_OLDEST:
        k = _oldest_slot(v, v.scal[V_SEAT])
        return _discard(v, k) if k >= 0 else -1
    if cls == C_DISCARD_NO_INFO:
        return rule_discard_unidentified(v.packed)
    if cls == C_DISCARD_PROBABLY_USELESS:
        return rule_discard_probably_useless(v.packed, tab, p0, p1)
    if cls == C_DISCARD_RANDOMLY:
        return rule_discard_randomly(v.packed, rng)
    if cls == C_DISCARD_SAFE:
        return rule_discard_safe(v.packed)
    if cls == C_DISCARD_USELESS:
        return rule_discard_useless(v.packed, tab)
    if cls == C_OSAWA_DISCARD:
        a = rule_discard_safe(v.packed)
        return a if a >= 0 else rule_discard_useless(v.packed, tab)
    # other rules (docs/rules.md §3.4)
    if cls == C_LEGAL_RANDOM:
        return _random_legal(v.packed, rng, tab)
    if cls == C_UNBLOCK:
        return rule_try_to_unblock(v.packed)
    return -1


@_kernel
def _apply_rule_call(rule_id, pv, rng, tab):
    """:func:`_apply_rule_table` as a call (the dispatch is inlined only into the hot loop)."""
    v = expand_view(pv)
    return _apply_rule_table(rule_id, v, rng, tab)


# =============================================================================================
# Public API (callable from Python and from compiled code)
# =============================================================================================


@njit
def known_colour(v, p, k):
    """Colour ``p`` knows for its slot ``k`` (|Col| = 1, docs/rules.md §2.2), or -1 if unknown."""
    v = _expanded(v)
    return _known_colour(v, p, k)


@njit
def known_rank(v, p, k):
    """Rank ``p`` knows for its slot ``k`` (|Val| = 1, docs/rules.md §2.2), or -1 if unknown."""
    v = _expanded(v)
    return _known_rank(v, p, k)


@njit
def max_reachable(v, c):
    """maxReachable(c): the highest value still reachable for colour ``c`` (docs/rules.md §2.3).

    Returns the value (0..n_ranks) just below the lowest rank ``>= height(c)`` whose copies
    are all in the discard pile, else ``n_ranks``. A card of rank ``r`` (value ``r + 1``) is
    out of reach iff ``r >= max_reachable(v, c)``.
    """
    v = _expanded(v)
    return _max_reachable(v, c)


@njit
def safe_to_discard(v, c, r):
    """safeToDiscard(c?, v?) of docs/rules.md §2.3, with ``c`` or ``r`` = -1 for unknown."""
    v = _expanded(v)
    return _safe_to_discard(v, c, r)


@njit
def is_playable(v, card):
    """playable(x): x.value = height(x.colour) + 1 (docs/rules.md §2.3)."""
    v = _expanded(v)
    return _is_playable(v, card)


@njit
def is_useless(v, card):
    """useless(x) = safeToDiscard(x.colour, x.value) for an actual card (docs/rules.md §2.3)."""
    v = _expanded(v)
    return _card_class(v, card) & CLS_USELESS != 0


@njit
def is_necessary(v, card):
    """necessary(x): not useless; a 5 or the last copy outside the discards (docs/rules.md §2.3)."""
    v = _expanded(v)
    return _card_class(v, card) & CLS_NECESSARY != 0


@njit
def usable(v, c, r):
    """Predicate *usable*(c?, v?) of docs/rules.md §2.3, with ``c`` or ``r`` = -1 for unknown."""
    v = _expanded(v)
    return _usable(v, c, r)


@njit
def knows_safe(v, p, k):
    """knowsSafe(p, k): safeToDiscard on ``p``'s knowledge of slot ``k`` (docs/rules.md §2.3)."""
    v = _expanded(v)
    return _knows_safe(v, p, k)


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
    v = _expanded(v)
    _card_table(v.packed, out)


@njit
def new_card_table(v):
    """Allocate a scratch table holding the viewer's card table (see :func:`card_table`).

    Returns:
        ``(TAB_ROWS, W)`` int64 (``W >= n_colors * n_ranks``); rows ``TAB_COUNT`` and
        ``TAB_CLASS`` (first ``n_colors * n_ranks`` columns) are the card table, the other
        rows are work buffers for :func:`apply_rule_table`.
    """
    v = _expanded(v)
    return _new_table(v)


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
    v = _expanded(v)
    _partner_table(v.packed, t, tab, out)


@njit
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
    v = _expanded(v)
    return _cand_counts(v, tab, cm, rm)


@njit
def slot_counts(v, tab, p, k):
    """:func:`cand_counts` of ``p``'s slot ``k`` under ``p``'s current knowledge.

    With the viewer's table and ``p`` = viewer this is cand_me(k) (docs/rules.md §2.4); with a
    :func:`partner_table` for ``p`` it is cand_{me→p}(k) (docs/rules.md §2.5).
    """
    v = _expanded(v)
    return _slot_counts(v, tab, p, k)


@njit
def cand_counts_packed(v, tab, cm, rm):
    """:func:`cand_counts` computed from counts packed per colour (the rules' fast path).

    Same arguments and results; ``tab`` must be a scratch table (:func:`new_card_table`), whose
    packed row this call refreshes from its count and class rows.
    """
    v = _expanded(v)
    _pack_table(v, tab, tab[TAB_PACK])
    return _packed_counts(tab[TAB_PACK], np.int64(cm), np.int64(rm))


@njit
def own_slot_counts(v, tab, k):
    """:func:`slot_counts` of the viewer's slot ``k``, from the per-decision cache of ``tab``.

    ``tab``: the viewer's scratch table (:func:`new_card_table`); the first call after the
    card table was filled computes every own slot at once.
    """
    v = _expanded(v)
    return _own_counts(v, tab, k)


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
    v = _expanded(v)
    total, n_play, n_useless, n_nec = _slot_counts(v, _new_table(v), v.scal[V_SEAT], k)
    good = n_play if cls == CLS_PLAYABLE else (n_useless if cls == CLS_USELESS else n_nec)
    return good / total if total > 0 else 0.0


@njit
def partner_probability(v, t, k, cls, hint):
    """P_{me→t}(φ | k) (docs/rules.md §2.5), optionally after a simulated hint.

    Args:
        v: the viewer's view.
        t: another seat.
        k: ``t``'s slot.
        cls: φ as a class bit: ``CLS_PLAYABLE``, ``CLS_USELESS`` or ``CLS_NECESSARY``.
        hint: -1 for ``t``'s current knowledge, else a hint number (:func:`hint_of`) applied
            to a copy of ``t``'s knowledge first.

    Returns:
        The probability; 0.0 if the slot has no candidate (impossible for a held card).
    """
    v = _expanded(v)
    tab = _new_table(v)
    tab_t = np.empty_like(tab)
    _partner_table(v.packed, t, tab, tab_t)
    cm, rm = _mask_buffers(v, tab)
    for j in range(_hand_len(v, t)):
        cm[j] = v.col_plaus[t, j]
        rm[j] = v.rank_plaus[t, j]
    if hint >= 0:
        _simulate_hint(v.packed, t, hint, cm, rm)
    total, n_play, n_useless, n_nec = _cand_counts(v, tab_t, cm[k], rm[k])
    good = n_play if cls == CLS_PLAYABLE else (n_useless if cls == CLS_USELESS else n_nec)
    return good / total if total > 0 else 0.0


@njit
def n_hints(v):
    """Number of hints in the enumeration of docs/rules.md §2.5 (``n_ranks + n_colors``)."""
    v = _expanded(v)
    return v.cfg[CFG_RANKS] + v.cfg[CFG_COLORS]


@njit
def hint_of(v, i):
    """Hint number ``i`` of the enumeration (docs/rules.md §2.5) as ``(is_colour, value)``.

    Values 1..5 first (``i < n_ranks`` → rank ``i``), then colours R..B (``n_ranks + c``).
    """
    v = _expanded(v)
    return _hint_of(v, i)


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
    v = _expanded(v)
    return _simulate_hint(v.packed, t, i, cm, rm)


@njit
def hint_action(v, t, i):
    """Move uid of hint number ``i`` (:func:`hint_of`) from the viewer to seat ``t``."""
    v = _expanded(v)
    return _tell_hint(v, t, i)


@njit
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
    v = _expanded(v)
    return _tell_missing(v, t, k, value_first)


@njit
def turn_order(v, i):
    """The ``i``-th other player in turn order (``i`` = 0..N−2): me+1, me+2, ... (docs/rules.md).

    Absolute order (docs/rules.md §2.7) is simply ``0..N−1`` skipping the viewer.
    """
    v = _expanded(v)
    return _turn_order(v, i)


@njit
def is_legal_view(v, a):
    """Whether move uid ``a`` is legal for the viewer (``_engine.is_legal``, from the view)."""
    v = _expanded(v)
    return _is_legal(v.packed, a)


@njit
def legal_mask_view(v, out):
    """Fill ``out`` with the viewer's legal moves, computed from the view.

    Same semantics as :func:`hanabi_env._engine.legal_mask` for the seat to move: every play,
    every discard if T < T_max, every hint that touches a card if T > 0; all zeros once the
    game is over.

    Args:
        v: the viewer's view.
        out: ``(n_actions,)`` int8, overwritten with 0/1.

    Returns:
        The number of legal moves.
    """
    v = _expanded(v)
    return _legal_mask(v.packed, out)


@njit
def rule_kind(rule_id):
    """Gating kind ``KIND_*`` of a compiled rule id (docs/rules.md §1, §2.8); -1 if unknown."""
    if rule_id < 0 or rule_id >= N_RULE_IDS:
        return -1
    return RULE_TABLE[rule_id, R_KIND]


@njit
def apply_rule_table(rule_id, v, rng, tab):
    """:func:`apply_rule` with the viewer's card table precomputed (:func:`new_card_table`).

    For compiled loops that evaluate several rules on one view. ``tab`` should be a scratch
    table (:func:`new_card_table`); a ``(2, n_colors * n_ranks)`` card table is copied into one.
    """
    v = _expanded(v)
    return _apply_rule_call(rule_id, v.packed, rng, _as_scratch(v, tab))


@njit
def apply_rule(rule_id, v, rng):
    """Evaluate one rule for the viewer of ``v`` (docs/rules.md §1–§4).

    Args:
        rule_id: an alphabet index ``0..104`` or an extra rule id (:data:`RULE_X1`–:data:`RULE_X6`).
        v: the acting seat's view (:class:`hanabi_env._view.View`).
        rng: the agent's generator (int64[4]); drawn from exactly once iff a randomised rule
            fires.

    Returns:
        A move uid legal for the viewer, or -1 if the rule does not fire (also for unknown
        ids and once the game is over); :data:`RULE_RAISED` (-2) where a Java-exception rule
        (X4–X6) raises.
    """
    v = _expanded(v)
    return _apply_rule_call(rule_id, v.packed, rng, _new_table(v))


@njit
def first_firing(rules, n_rules, v, rng):
    """The first firing rule's move, or -1 if no rule fires (no fallback, no draw).

    Used to emulate the reference's "strict era" (docs/rules.md §2.9), where a turn on which no
    rule fired, or on which a rule raised, ended the game at the current score. A Java-exception
    rule (X4–X6) that raises ends the scan with :data:`RULE_RAISED`.
    """
    v = _expanded(v)
    return _first_firing(rules, n_rules, v.packed, rng, _empty_table(v))


@_kernel
def _first_firing(rules, n_rules, pv, rng, tab):
    tab[TAB_META, 1] = 0  # the card table is filled when a rule first needs it
    for i in range(n_rules):
        a = _apply_rule_call(rules[i], pv, rng, tab)
        if a >= 0 or a == RULE_RAISED:
            return a
    return -1


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
    v = _expanded(v)
    return _choose_action(rules, n_rules, v.packed, rng, mask, _empty_table(v))


@_kernel
def _choose_action(rules, n_rules, pv, rng, mask, tab):
    v = expand_view(pv)
    tab[TAB_META, 1] = 0  # the card table is filled when a rule first needs it
    for i in range(n_rules):
        a = _apply_rule_table(rules[i], v, rng, tab)
        if a >= 0:
            return a
        if a == RULE_RAISED:
            break  # the reference took a random legal move after an exception
    n = _legal_mask(v.packed, mask)
    if n == 0:
        return -1
    x = rng_below(rng, n)
    for a in range(mask.shape[0]):
        if mask[a]:
            if x == 0:
                return a
            x -= 1
    return -1


@njit(inline="always")
def choose_action_table(rules, n_rules, v, rng, mask, tab):
    """:func:`choose_action` for compiled loops: a packed view and a caller-owned scratch table.

    ``v``: the acting seat's :class:`~hanabi_env._view.PackedView` (e.g. a
    :func:`~hanabi_env._view.live_view`; :func:`~hanabi_env._view.pack_view` packs a ``View``).

    ``tab``: ``(TAB_ROWS, max(n_colors * n_ranks, 4 * n_colors, hand_size))`` int64 scratch
    (rows 0–1 get the card table, the others are the rules' work buffers and per-decision
    caches), so that compiled loops allocate nothing per decision; a
    ``(2, n_colors * n_ranks)`` table works too (the rules then allocate and cache nothing).
    """
    return _choose_action(rules, n_rules, v, rng, mask, tab)


__all__ = [
    "CLS_NECESSARY",
    "CLS_PLAYABLE",
    "CLS_USELESS",
    "KIND_DISCARD",
    "KIND_OTHER",
    "KIND_PLAY",
    "KIND_TELL",
    "N_ALPHABET",
    "RULE_RAISED",
    "RULE_TABLE",
    "RULE_X1",
    "RULE_X2",
    "RULE_X3",
    "RULE_X4",
    "RULE_X5",
    "RULE_X6",
    "TAB_CLASS",
    "TAB_COUNT",
    "TAB_ROWS",
    "apply_rule",
    "apply_rule_table",
    "cand_counts",
    "cand_counts_packed",
    "card_table",
    "choose_action",
    "choose_action_table",
    "first_firing",
    "first_firing_table",
    "hint_action",
    "hint_of",
    "is_legal_view",
    "is_necessary",
    "is_playable",
    "is_useless",
    "known_colour",
    "known_rank",
    "knows_safe",
    "legal_mask_view",
    "max_reachable",
    "n_hints",
    "new_card_table",
    "own_probability",
    "own_slot_counts",
    "partner_probability",
    "partner_table",
    "rule_kind",
    "safe_to_discard",
    "scratch_shape",
    "simulate_hint",
    "slot_counts",
    "tell_missing",
    "turn_order",
    "usable",
]

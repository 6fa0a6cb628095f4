"""The rule table: compiled rule id → rule class, gating kind, IF-predicate, parameters.

docs/rules.md §1 (parameters per alphabet index), §2.8 (gating kinds, IF-predicates) and §4
(the extra rules X1–X6). The dispatch (:mod:`agents.rules.dispatch`) reads one row per rule;
rules of one class share a kernel and differ only in their parameters. The reference-only id
:data:`RULE_DPU_1` and the result codes of a rule live here too.
"""

# kernel-source: constants read by compiled kernels (RULE_TABLE and NEEDS_TABLE are frozen
# into the machine code of the dispatch)

from __future__ import annotations

import numpy as np

from agents.rulebase import (
    ALPHABET,
    EXTRA_RULES,
    N_RULE_IDS,
    RULE_X1,
    RULE_X2,
    RULE_X3,
    RULE_X4,
    RULE_X5,
    RULE_X6,
)
from hanabi_env.jit import njit

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

# --- results of a rule besides a move uid (and -1: the rule does not fire) -----------------------
RULE_RAISED = -2
"""The rule raises, as the Java code did: the Java-exception rules X4–X6 (an exception ended a
strict-era game at the current score; docs/rules.md §2.9), and reference rules
(:mod:`agents.rules.reference`). :func:`agents.rules.first_firing` returns it, and
:func:`agents.rules.choose_action` takes the fallback move, as the reference did after
2020-11-16."""
RULE_NULL = -3
"""A reference rule fires (``canFire``) but gives no move."""
RULE_REJECTED = -4
"""A reference rule gives a tell the Java game runner rejects (a colour tell with a null
colour), which ends the game."""
RULE_REJECTED_PLAY = -5
"""A reference rule plays an emptied slot (rule 9), which ends the game too."""

RULE_DPU_1 = N_RULE_IDS
"""Reference-only id: DiscardProbablyUselessCard(1.0), the 2018 VanDenBergh's second rule."""
N_REF_IDS = N_RULE_IDS + 1

# =============================================================================================
# Rule table: id -> (class, kind, predicate, p0..p4) (docs/rules.md §1, §4)
# =============================================================================================

# fmt: off
(
    C_FINESSE, C_FINESSE_TOLD, C_IF_CERTAIN, C_PROBABLY_SAFE, C_SAFE, C_UNIQUE_POSSIBLE,
    C_JUST_HINTED, C_X1,
    C_COMPLETE_USEFUL, C_TELL_NEXT, C_USEFUL, C_FIRST_UNKNOWN, C_DISPENSABLE, C_TELL_FINESSE,
    C_FIVES, C_MOST_INFORMATION, C_PLAYABLE_RANDOM, C_TELL_RANDOMLY, C_UNAMBIGUOUS,
    C_UNAMBIGUOUS2, C_AT_LEAST_N_USELESS, C_MISTAKE,
    C_DISCARD_HIGHEST, C_DISCARD_KNOWN, C_DISCARD_LEAST_NECESSARY, C_DISCARD_OLDEST,
    C_DISCARD_PROBABLY_USELESS, C_DISCARD_RANDOMLY, C_DISCARD_USELESS, C_OSAWA_DISCARD,
    C_LEGAL_RANDOM, C_UNBLOCK,
) = range(32)
N_CLASSES = 32
# fmt: on

R_CLASS, R_KIND, R_PRED, R_P0, R_P1, R_P2, R_P3, R_P4 = range(8)

# Parameters of C_DISCARD_KNOWN: which knowledge of a slot makes the rule discard it.
KNOWN_SAFE = 0  # knowsSafe (DiscardSafeCard)
KNOWN_PLAYED = 1  # both attributes known, already played (DiscardIfCertain)
KNOWN_NOTHING = 2  # neither attribute known (DiscardOldestNoInfoFirst, DiscardUnidentifiedCard)

NEEDS_TABLE = np.zeros(N_CLASSES, dtype=np.int64)
"""Per rule class: 1 if its rules read the card table (the dispatch fills it at first need)."""
for _cls in (
    C_PROBABLY_SAFE, C_SAFE, C_UNIQUE_POSSIBLE, C_JUST_HINTED, C_X1, C_UNAMBIGUOUS2,
    C_AT_LEAST_N_USELESS, C_MISTAKE, C_DISCARD_LEAST_NECESSARY, C_DISCARD_PROBABLY_USELESS,
    C_DISCARD_USELESS, C_OSAWA_DISCARD,
):  # fmt: skip
    NEEDS_TABLE[_cls] = 1


def _rule_rows() -> dict[int, tuple[int, ...]]:
    """``(class[, predicate, p0, ...])`` per rule id (docs/rules.md §1 parameters, §4 extras)."""
    # TellAboutOnes (11), TellPlayableCardOuter (21) and TellUnknown (23) scan the next
    # player's hand: (playable only, rank (-1: any), value first).
    # fmt: off
    rows: dict[int, tuple[int, ...]] = {
        0: (C_FINESSE,), 1: (C_FINESSE_TOLD,), 2: (C_IF_CERTAIN,), 8: (C_SAFE,),
        9: (C_UNIQUE_POSSIBLE,), 10: (C_COMPLETE_USEFUL,), 11: (C_TELL_NEXT, PRED_NONE, 0, 0, 1),
        12: (C_USEFUL, PRED_NONE, 0), 13: (C_USEFUL, PRED_NONE, 1),
        14: (C_FIRST_UNKNOWN, PRED_NONE, 0, 0), 15: (C_DISPENSABLE,), 16: (C_TELL_FINESSE,),
        17: (C_FIVES,), 18: (C_FIRST_UNKNOWN, PRED_NONE, 1, 0), 19: (C_MOST_INFORMATION,),
        20: (C_PLAYABLE_RANDOM,), 21: (C_TELL_NEXT, PRED_NONE, 1, -1, 1),
        22: (C_TELL_RANDOMLY,), 23: (C_TELL_NEXT, PRED_NONE, 0, -1, 0),
        24: (C_DISCARD_HIGHEST,), 25: (C_DISCARD_KNOWN, PRED_NONE, KNOWN_PLAYED),
        26: (C_DISCARD_LEAST_NECESSARY,), 27: (C_DISCARD_OLDEST,),
        28: (C_DISCARD_KNOWN, PRED_NONE, KNOWN_NOTHING), 34: (C_DISCARD_RANDOMLY,),
        35: (C_DISCARD_KNOWN, PRED_NONE, KNOWN_SAFE),
        36: (C_DISCARD_KNOWN, PRED_NONE, KNOWN_NOTHING), 37: (C_DISCARD_USELESS,),
        38: (C_OSAWA_DISCARD,), 39: (C_LEGAL_RANDOM,), 40: (C_UNBLOCK,),
        41: (C_PROBABLY_SAFE, PRED_HAIL_MARY, 0, 1), 42: (C_PROBABLY_SAFE, PRED_HAIL_MARY, 1, 10),
        48: (C_DISPENSABLE, PRED_INFO_LESS_THAN_4), 49: (C_PROBABLY_SAFE, PRED_NONE, 1, 4),
        50: (C_JUST_HINTED, PRED_NONE, 0, 0, 0, 0, 1),
        67: (C_UNAMBIGUOUS, PRED_NONE, 0), 68: (C_UNAMBIGUOUS, PRED_NONE, 1),
        RULE_X1: (C_X1, PRED_NONE, 3, 5),
        RULE_X2: (C_DISCARD_PROBABLY_USELESS, PRED_NONE, 99, 100),
        RULE_X3: (C_FIRST_UNKNOWN, PRED_NONE, 0, 1),
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
    for cls in range(N_CLASSES):  # the dispatch finds a class's kernel under its kind
        if len(set(table[table[:, R_CLASS] == cls, R_KIND].tolist())) != 1:
            raise AssertionError(f"rule class {cls} must have rules, all of one kind")
    return table


RULE_TABLE = _build_rule_table()
"""``(N_RULE_IDS, 8)`` int64: per rule id its class ``C_*``, kind ``KIND_*``, IF-predicate
``PRED_*`` and parameters ``p0..p4`` (thresholds as ``num, den`` pairs)."""


@njit
def rule_kind(rule_id):
    """Gating kind ``KIND_*`` of a compiled rule id (docs/rules.md §1, §2.8); -1 if unknown."""
    if rule_id < 0 or rule_id >= N_RULE_IDS:
        return -1
    return RULE_TABLE[rule_id, R_KIND]

"""The compiled rule alphabet of the rule-based agents (docs/rules.md §0–§4), on a player's view.

Every rule reads a player's view (the acting seat is ``v.scal[V_SEAT]``) and returns an HLE
move uid, or -1 when the rule does not fire. A rule never raises and only returns moves that
are legal for the viewer (docs/rules.md §0.3.2, §0.3.4). The compiled kernels take the view
*packed* into one int32 array and expand it on entry (:func:`hanabi_env.view.expand_view`,
fields as :class:`hanabi_env.view.View`); the public functions take a ``View``.

Modules, by the seams of the alphabet:

* :mod:`~agents.rules.knowledge` — the kernel decorators, card knowledge and the card
  predicates, hints, move builders, turn order and history (docs/rules.md §2.2–§2.7);
* :mod:`~agents.rules.pools` — candidate pools and probabilities, the scratch table (§2.4,
  §2.5, §2.10);
* :mod:`~agents.rules.table` — compiled rule id → class, gating kind, predicate, parameters;
* :mod:`~agents.rules.play`, :mod:`~agents.rules.tell`, :mod:`~agents.rules.discard`,
  :mod:`~agents.rules.other` — the rules (§3.1–§3.4);
* :mod:`~agents.rules.dispatch` — one rule, rule lists and the fallback (§2.8, §2.9);
* :mod:`~agents.rules.reference` and ``ref_play``, ``ref_tell``, ``ref_mistake`` — the rules as
  the Java reference ran them (``ruleset="reference"``, docs/rules.md §12).

Conventions:

* **Rule ids.** ``0..104`` are the alphabet indices of docs/rules.md §1 (parameters per index);
  ``RULE_X1`` (105) and ``RULE_X2`` (106) of :mod:`agents.rulebase` are VanDenBergh's extra
  rules (docs/rules.md §4); ``RULE_X3`` (107) is rule 14 as the Java reference ran it,
  ``RULE_X4`` to ``RULE_X6`` (108–110) rules 15, 48 and 19 raising as the early Java code did
  (for comparisons only; they return :data:`RULE_RAISED` where the reference raised). They are
  never chromosome genes. Unknown ids never fire. :data:`RULE_TABLE` maps each id to its rule
  class, gating kind, IF-predicate and parameters.
* **Cards** are ``colour * n_ranks + rank``, colours in the order R, Y, G, W, B, ranks 0-based
  (docs/rules.md value ``v`` = rank + 1). Knowledge is the engine's per-slot plausibility bitmasks
  (docs/rules.md §2.2): an attribute is *known* when exactly one value remains plausible.
* **Card table** (:mod:`~agents.rules.pools`): the candidate pool and the class bits of every
  card, computed once per decision.
* **Probabilities** are integer pairs compared by cross-multiplication (docs/rules.md §2.10);
  TellUnambiguous2's weighted sums use floats with a 1e-9 tolerance.
* **Hint enumeration** (docs/rules.md §2.5): hint ``i < n_ranks`` is the value hint ``rank = i``,
  hint ``n_ranks + c`` the colour hint ``c``.
* **RNG** (docs/rules.md §0.3.5, §2.9): the randomised rules (TellPlayableCard, TellRandomly,
  DiscardRandomly, LegalRandom) and the fallback of :func:`choose_action` make exactly one
  :func:`hanabi_env.rng.rng_below` draw when they fire and none otherwise; no other rule
  touches the generator.

Compile-time notes (numba re-optimises every callee inside each caller, so code size matters):
the rule kernels are compiled without Python wrappers; the small helpers are inlined. Rule
parameters reach the kernels as array entries, never as literal arguments (numba would compile
one specialisation per literal value). Loops over hands stop at the first empty slot; besides
being defensive, the early exit keeps LLVM from vectorising these 4–5-iteration loops into
very large code.
"""

from agents.rules.dispatch import (
    apply_rule,
    apply_rule_table,
    choose_action,
    choose_action_table,
    first_firing,
    first_firing_table,
    legal_mask_view,
)
from agents.rules.knowledge import (
    hint_action,
    hint_of,
    is_playable,
    known_colour,
    known_rank,
    knows_safe,
    max_reachable,
    n_hints,
    safe_to_discard,
    simulate_hint,
    tell_missing,
    turn_order,
    usable,
)
from agents.rules.pools import (
    CLS_NECESSARY,
    CLS_PLAYABLE,
    CLS_USELESS,
    TAB_CLASS,
    TAB_COUNT,
    TAB_ROWS,
    cand_counts,
    cand_counts_packed,
    card_table,
    is_necessary,
    is_useless,
    new_card_table,
    own_probability,
    own_slot_counts,
    partner_probability,
    partner_table,
    scratch_shape,
    slot_counts,
)
from agents.rules.table import (
    KIND_DISCARD,
    KIND_OTHER,
    KIND_PLAY,
    KIND_TELL,
    RULE_RAISED,
    RULE_TABLE,
    rule_kind,
)

__all__ = [
    "CLS_NECESSARY",
    "CLS_PLAYABLE",
    "CLS_USELESS",
    "KIND_DISCARD",
    "KIND_OTHER",
    "KIND_PLAY",
    "KIND_TELL",
    "RULE_RAISED",
    "RULE_TABLE",
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

"""The two rulesets, the reference's agent lists and its conventions (docs/rules.md §12).

* ``ruleset="corrected"`` (the default): the rule semantics of docs/rules.md §1–§4, with every
  bug of the Java reference fixed, in an HLE-style engine.
* ``ruleset="reference"``: the agents as the papers ran them — the fossgalaxy framework v0.2.1
  with the Hanabi-Map-Elites rules — bug for bug, checked move for move against recorded Java
  games (``tests/agents/test_reference_traces.py``). Reference agents need the framework's
  fixed hand slots (``HanabiConfig(hand_order="fixed")``; the evaluators set it) and score
  leniently as the framework did.

This module is pure Python (no kernels): the vocabulary, the baseline lists of each era, the
[CIG18] pool (:data:`CIG18_POOL`) and the reference's MAP-Elites binning (:func:`reference_bin`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from agents import rulebase
from agents.rulebase import RULE_X1, RULE_X2
from hanabi_env.config import hand_order_of
from hanabi_env.validate import check_choice

RULESETS = ("corrected", "reference")
"""The rule semantics a rule agent can run (docs/rules.md §12)."""

WRAPPERS = ("histogram", "production")
"""How a reference rule list becomes a move: Hanabi-Map-Elites' ``HistogramAgent`` (chromosome
agents; the default) or the framework's ``ProductionRuleAgent`` (the baselines); see
:mod:`agents.rules.reference`."""

RULE_DPU_1 = rulebase.N_RULE_IDS
"""Reference-only rule id: DiscardProbablyUselessCard(1.0) (the 2018 VanDenBergh's second rule);
equal to :data:`agents.rules.reference.RULE_DPU_1`."""

REFERENCE_BASELINES: dict[str, tuple[int, ...]] = {
    "IGGI": rulebase.IGGI,
    "Internal": rulebase.INTERNAL,
    "Outer": rulebase.OUTER,
    "LegalRandom": rulebase.LEGAL_RANDOM,
    "VanDenBergh": (RULE_X1, RULE_X2, 13, 14, 19, 29),
    "Flawed": rulebase.FLAWED,
    # Piers starts with IF(HailMary) PlayProbablySafeCard(0.0), which never fires in the reference
    "Piers": (41, *rulebase.PIERS),
    "Cautious": rulebase.CAUTIOUS,
}
"""The baselines as Hanabi-Map-Elites registers them at its last commit (8e55f9e), each run as
a ``ProductionRuleAgent`` (docs/rules.md §4, §12.2)."""

CIG18_POOL: dict[str, tuple[int, ...]] = {
    # RuleBasedIGGI with its final LegalRandom (added 2018-05-06, before the paper's runs: the
    # list without it gives 10.44 here and in the Java reference, the paper 10.98)
    "IGGI": rulebase.IGGI,
    # the name "Internal" resolved to the starter kit's SampleRuleBased until 2019-11-12
    "Internal": (8, 22, 34),
    # the name "Outer" was on the class holding the Internal list in 2018
    "Outer": rulebase.INTERNAL,
    "LegalRandom": rulebase.LEGAL_RANDOM,
    # 2018: DiscardProbablyUselessCard(1.0) instead of 0.99
    "VanDenBergh": (RULE_X1, RULE_DPU_1, 13, 14, 19, 29),
    "Flawed": rulebase.FLAWED,
    "Piers": (41, *rulebase.PIERS),
}
"""[CIG18] Table III's agents as the 2018 framework instantiated them (docs/rules.md §12.3)."""

PRESETS = ("cig18",)
"""Named evaluation settings: ``"cig18"`` is [CIG18] Table III's (docs/rules.md §12.3)."""


def check_preset(preset: str, mode: str, scoring: str, ruleset: str | None = None) -> None:
    """Check that ``mode``, ``scoring`` and ``ruleset`` fit the evaluation setting ``preset``.

    ``"cig18"`` is [CIG18] Table III's mixed evaluation with the reference rules, scored
    leniently as the 2018 framework did (docs/rules.md §12.3). ``ruleset=None`` skips the
    ruleset check (for callers that switch to the reference rules themselves).

    Raises:
        TypeError, ValueError: ``preset`` not in :data:`PRESETS`, or a ``mode``, ``scoring`` or
            ``ruleset`` the preset does not allow (the message names the allowed value).
    """
    check_choice("preset", preset, PRESETS)
    if mode != "mixed":
        raise ValueError(
            f"preset={preset!r} is a mixed evaluation, not mode={mode!r}; allowed: mode='mixed'"
        )
    if scoring != "lenient":
        raise ValueError(
            f"preset={preset!r} scores leniently, as the 2018 framework did, not "
            f"scoring={scoring!r}; allowed: scoring='lenient'"
        )
    if ruleset is not None and ruleset != "reference":
        raise ValueError(
            f"preset={preset!r} runs the reference rules, not ruleset={ruleset!r}; allowed: "
            "ruleset='reference'"
        )


# project colour index (R, Y, G, W, B) <-> the Java framework's (RED, BLUE, GREEN, ORANGE, WHITE)
TO_JAVA_COLOUR = (0, 3, 2, 4, 1)
FROM_JAVA_COLOUR = (0, 4, 2, 1, 3)


def to_java_card(card: int, ranks: int = 5) -> int:
    """A project card id (colours R, Y, G, W, B) in the Java colour numbering.

    Reference agents number colours RED, BLUE, GREEN, ORANGE, WHITE = 0..4; ranks unchanged.
    """
    return TO_JAVA_COLOUR[card // ranks] * ranks + card % ranks


def baseline_rules(name: str, preset: str | None = None) -> tuple[int, ...]:
    """The reference rule list of baseline ``name``.

    ``name`` is a key of :data:`REFERENCE_BASELINES`, or of :data:`CIG18_POOL` with
    ``preset="cig18"``.

    Raises:
        ValueError: Unknown name or preset.
    """
    if preset is not None and preset not in PRESETS:
        raise ValueError(f"preset must be one of {PRESETS} or None, got {preset!r}")
    table = CIG18_POOL if preset == "cig18" else REFERENCE_BASELINES
    if name not in table:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(table)}")
    return table[name]


def reference_rule_list(spec: str | Sequence[int], ruleset: str = "reference") -> list[int]:
    """Compiled rule ids for a baseline name or a chromosome, in ``ruleset``."""
    if isinstance(spec, str):
        table = REFERENCE_BASELINES if ruleset == "reference" else rulebase.BASELINES
        return list(table[spec])
    return [int(g) for g in spec]


def reference_bin(value: float, bins: int) -> int:
    """The reference MAP-Elites bin of a measure in [0, 1] (docs/rules.md §12.2).

    ``floor(value / (1 / bins))`` in double precision, clipped to the last bin.

    It differs from ``floor(value * bins)`` on some bin edges: 0.6 falls in bin 2 of 5 (not
    3), and 0.15, 0.3, 0.35, 0.6, 0.7, 0.95 one bin lower on 20 bins. NaN goes to bin 0.
    """
    if math.isnan(value):
        return 0
    return min(bins - 1, max(0, math.floor(value / (1.0 / bins))))


__all__ = [
    "CIG18_POOL",
    "PRESETS",
    "REFERENCE_BASELINES",
    "RULESETS",
    "RULE_DPU_1",
    "WRAPPERS",
    "baseline_rules",
    "check_preset",
    "hand_order_for",
    "reference_bin",
    "reference_rule_list",
    "to_java_card",
]


def hand_order_for(policies, ruleset: str | None = None) -> str:
    """The hand order a game of ``policies`` needs.

    ``"fixed"`` if ``ruleset`` or any of the policies' ``ruleset`` is ``"reference"`` (the
    Java framework's fixed hand slots), else ``"shift"`` (HLE's order, the default); the rule
    itself is :func:`hanabi_env.config.hand_order_of`.

    Args:
        policies: The policies of the game (any objects; a ``ruleset`` attribute counts).
        ruleset: A ruleset the game's rule agents play besides the policies', or None.

    Returns:
        ``"fixed"`` or ``"shift"``.
    """
    rulesets = {ruleset, *(getattr(p, "ruleset", None) for p in policies)}
    return "fixed" if "fixed" in {hand_order_of(r) for r in rulesets} else "shift"

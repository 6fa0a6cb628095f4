"""The rule alphabet as a pure-Python registry, and the baseline agents (docs/rules.md §1, §4).

A chromosome is a tuple of indices into :data:`ALPHABET` (0..104). The index → rule mapping is
fixed (docs/rules.md §1) so that published chromosomes load unchanged. Each entry records its kind
(the token-gating class of docs/rules.md §2.8: ``"play"``, ``"tell"``, ``"discard"`` or
``"other"``), its canonical name (docs/rules.md §1, ", " between parameters) and the reference's
published label (``Analyses/Chromosomes/Rulebase.html``).

Two extra rules of the VanDenBergh baseline (docs/rules.md §4) are registered **by name only**:
they run as compiled rule ids :data:`RULE_X1` and :data:`RULE_X2` (>= :data:`N_ALPHABET`), which
are never valid chromosome genes. :data:`RULE_X3` to :data:`RULE_X6` reproduce behaviours of the
Java reference (docs/rules.md §3.2, §12), for comparisons with the reference only: rule 14's scan,
and the exceptions TellDispensable and TellMostInformation raised in its final round.

The compiled kernels live in :mod:`agents.rules`; this module imports nothing compiled.
"""

# kernel-source: constants read by compiled kernels (rule ids, through agents.rules.table)

from __future__ import annotations

import re
from typing import NamedTuple

N_ALPHABET = 105
"""Number of rules in the alphabet (valid genes are ``0 <= g < N_ALPHABET``)."""
RULE_X1 = 105
"""Compiled id of ``IF(L>1) PlayProbablySafeCard(0.6) ELSE PlaySafeCard`` (not a gene)."""
RULE_X2 = 106
"""Compiled id of ``DiscardProbablyUselessCard(0.99)`` (not a gene)."""
RULE_X3 = 107
"""Compiled id of rule 14 as the Java reference ran it (stops at the first useless card)."""
RULE_X4 = 108
"""Compiled id of TellDispensable (15) as the early Java reference ran it (raises at a gap)."""
RULE_X5 = 109
"""Compiled id of ``IF(I<4)`` :data:`RULE_X4` (Piers' rule 48 in the early Java reference)."""
RULE_X6 = 110
"""Compiled id of TellMostInformation (19) as the early Java reference ran it (raises at a gap)."""
N_RULE_IDS = 111
"""Number of compiled rule ids (alphabet plus the extra rules)."""

KINDS = ("play", "tell", "discard", "other")


class RuleInfo(NamedTuple):
    """One registered rule.

    Attributes:
        rule_id: compiled rule id (the alphabet index for genes, 105–110 for X1–X6).
        kind: ``"play"``, ``"tell"``, ``"discard"`` or ``"other"`` (docs/rules.md §2.8).
        name: canonical name (docs/rules.md §1 / §4).
        label: the reference's published label (empty for X1–X3, which have none).
    """

    rule_id: int
    kind: str
    name: str
    label: str


def _ppsc(t: str) -> tuple[str, str]:
    return f"PlayProbablySafeCard({t})", f"PlayProbablySafeCard({t})"


# (kind, canonical name, published label), in index order (docs/rules.md §1).
_TABLE: tuple[tuple[str, str, str], ...] = (
    ("play", "PlayFinesse", "PlayFinesse()"),
    ("play", "PlayFinesseTold", "PlayFinesseTold()"),
    ("play", "PlayIfCertain", "PlayIfCertain()"),
    ("play", *_ppsc("0.0")),
    ("play", *_ppsc("0.2")),
    ("play", *_ppsc("0.4")),
    ("play", *_ppsc("0.6")),
    ("play", *_ppsc("0.8")),
    ("play", "PlaySafeCard", "PlaySafeCard()"),
    ("play", "PlayUniquePossibleCard", "PlayUniquePossibleCard()"),
    ("tell", "CompleteTellUsefulCard", "CompleteTellUsefulCard()"),
    ("tell", "TellAboutOnes", "TellAboutOnes()"),
    ("tell", "TellAnyoneAboutOldestUsefulCard", "TellAnyoneAboutOldestUsefulCard()"),
    ("tell", "TellAnyoneAboutUsefulCard", "TellAnyoneAboutUsefulCard()"),
    ("tell", "TellAnyoneAboutUselessCard", "TellAnyoneAboutUselessCard()"),
    ("tell", "TellDispensable", "TellDispensable()"),
    ("tell", "TellFinesse", "TellFinesse()"),
    ("tell", "TellFives", "TellFives()"),
    ("tell", "TellIllInformed", "TellIllInformed()"),
    ("tell", "TellMostInformation", "TellMostInformation()"),
    ("tell", "TellPlayableCard", "TellPlayableCard()"),
    ("tell", "TellPlayableCardOuter", "TellPlayableCardOuter()"),
    ("tell", "TellRandomly", "TellRandomly()"),
    ("tell", "TellUnknown", "TellUnknown()"),
    ("discard", "DiscardHighest", "DiscardHighest()"),
    ("discard", "DiscardIfCertain", "DiscardIfCertain()"),
    ("discard", "DiscardLeastLikelyToBeNecessary", "DiscardLeastLikelyToBeNecessary()"),
    ("discard", "DiscardOldestFirst", "DiscardOldestFirst()"),
    ("discard", "DiscardOldestNoInfoFirst", "DiscardOldestNoInfoFirst()"),
    *(
        ("discard", f"DiscardProbablyUselessCard({t})", f"DiscardProbablyUselessCard({t})")
        for t in ("0.0", "0.2", "0.4", "0.6", "0.8")
    ),
    ("discard", "DiscardRandomly", "DiscardRandomly()"),
    ("discard", "DiscardSafeCard", "DiscardSafeCard()"),
    ("discard", "DiscardUnidentifiedCard", "DiscardUnidentifiedCard()"),
    ("discard", "DiscardUselessCard", "DiscardUselessCard()"),
    ("discard", "OsawaDiscard", "OsawaDiscard()"),
    ("other", "LegalRandom", "LegalRandom()"),
    ("other", "TryToUnBlock", "TryToUnBlock()"),
    *(
        (
            "play",
            f"IF(HailMary) PlayProbablySafeCard({t})",
            f"IfRule(hailMary PlayProbablySafeCard({t}))",
        )
        for t in ("0.0", "0.1")
    ),
    *(
        (
            "play",
            f"IF(L>1) PlayProbablySafeCard({t})",
            f"IfRule(hasMoreThanOneLife PlayProbablySafeCard({t}))",
        )
        for t in ("0.0", "0.2", "0.4", "0.6", "0.8")
    ),
    ("tell", "IF(I<4) TellDispensable", "IfRule(informationLessThan4 TellDispensable())"),
    ("play", *_ppsc("0.25")),
    ("play", "PlayJustHinted", "PlayJustHinted()"),
    *(
        ("play", f"PlayJustHinted({s}, {n}, 2, {t})", f"PlayJustHinted({s} {n} 2 {t})")
        for t in ("0", "0.6", "0.8", "1")
        for s, n in (("true", "true"), ("true", "false"), ("false", "true"), ("false", "false"))
    ),
    ("tell", "TellUnambiguous(true)", "TellUnambiguous(true)"),
    ("tell", "TellUnambiguous(false)", "TellUnambiguous(false)"),
    *(
        ("tell", f"TellUnambiguous2({p}, {u})", f"TellUnambiguous2({p} {u})")
        for p, u in ((1, 0), (10, -1), (2, -1))
    ),
    *(
        ("tell", f"TellUnambiguous3({p}, {u})", f"TellUnambiguous3({p}{u})")
        for p, u in ((1, 0), (0, -1), (2, -1), (1, -2), (10, -1), (1, -10))
    ),
    *(("tell", f"TellAtLeastNUseless({n})", f"TellAtLeastNUseless({n})") for n in range(1, 6)),
    *(
        ("tell", f"TellHighProbabilityMistake({fp}, {t})", f"TellHighProbabilityMistake({fp} {t})")
        for fp in ("true", "false")
        for t in ("0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1")
    ),
)

ALPHABET: tuple[RuleInfo, ...] = tuple(
    RuleInfo(i, kind, name, label) for i, (kind, name, label) in enumerate(_TABLE)
)
"""The 105 rules, ``ALPHABET[i].rule_id == i`` (docs/rules.md §1)."""

X1 = RuleInfo(RULE_X1, "play", "IF(L>1) PlayProbablySafeCard(0.6) ELSE PlaySafeCard", "")
"""VanDenBergh's first rule (docs/rules.md §4); not part of the alphabet."""
X2 = RuleInfo(RULE_X2, "discard", "DiscardProbablyUselessCard(0.99)", "")
"""VanDenBergh's second rule (docs/rules.md §4); not part of the alphabet."""
X3 = RuleInfo(RULE_X3, "tell", "TellAnyoneAboutUselessCard(java)", "")
"""Rule 14 as the Java reference ran it (docs/rules.md §3.2): the scan stops at the first useless
card, and if that card is fully known to its owner the rule does not fire. Not a gene; for
comparisons with the reference (``benchmarks/reproduce_agents.py``)."""
X4 = RuleInfo(RULE_X4, "tell", "TellDispensable(java)", "")
"""TellDispensable (15) as the early Java code ran it (``hand.getCard(slot).colour`` without a
null check, hanabiEngine ``rule/TellDispensable.java``): it *raises* (compiled result
:data:`agents.rules.RULE_RAISED`) when its scan, in absolute seat order, reaches another
player whose hand has a gap before it fires. Our engine closes gaps, so the gap is modelled at
the start of that player's hand (the most raises the Java slot order allows). Not a gene."""
X5 = RuleInfo(RULE_X5, "tell", "IF(I<4) TellDispensable(java)", "")
"""``IF(I<4)`` :data:`X4`: Piers' rule 48 in the early Java code. Not a gene."""
X6 = RuleInfo(RULE_X6, "tell", "TellMostInformation(java)", "")
"""TellMostInformation (19) as the early Java code ran it: with the framework's stale
``hasCard`` flag it read every slot of every other hand, so it *raises* whenever it is
evaluated (T > 0) while another player's hand has a gap. Not a gene."""
EXTRA_RULES: dict[str, RuleInfo] = {"X1": X1, "X2": X2, "X3": X3, "X4": X4, "X5": X5, "X6": X6}
"""The extra named rules, by short name."""


def normalize_label(label: str) -> str:
    """Normalise a rule label for matching: delete all whitespace and commas (docs/rules.md §1).

    Args:
        label: a published label, canonical name or population-file rule name.

    Returns:
        The label without whitespace and commas.
    """
    return re.sub(r"[\s,]", "", label)


def _build_lookup() -> dict[str, int]:
    lookup: dict[str, int] = {}
    aliases = [(r.label, r.rule_id) for r in ALPHABET] + [(r.name, r.rule_id) for r in ALPHABET]
    # Index 50 is also written with its default parameters (fixtures' catalogue_name).
    aliases.append(("PlayJustHinted(false, false, 0, 0.0)", 50))
    for text, idx in aliases:
        key = normalize_label(text)
        if lookup.setdefault(key, idx) != idx:
            raise AssertionError(f"label collision: {text!r}")
    return lookup


_LOOKUP = _build_lookup()


def index_of(label: str) -> int:
    """Alphabet index of a rule given by published label or canonical name (docs/rules.md §1).

    Labels are compared after :func:`normalize_label`, so ``"TellUnambiguous3(1-10)"``,
    ``"TellUnambiguous3(1, -10)"`` and ``"TellUnambiguous3( 1 -10 )"`` all give 77. The extra
    rules X1/X2 are deliberately not found here (they are not genes).

    Args:
        label: the rule's label or name.

    Returns:
        The index in ``0..104``.

    Raises:
        KeyError: if the label names no alphabet rule.
    """
    try:
        return _LOOKUP[normalize_label(label)]
    except KeyError:
        raise KeyError(f"unknown rule label: {label!r}") from None


def name_of(rule_id: int) -> str:
    """Canonical name of a compiled rule id (alphabet index, or an extra rule's id).

    Args:
        rule_id: ``0..104`` or an extra rule id (:data:`RULE_X1` to :data:`RULE_X6`).

    Returns:
        The canonical name (docs/rules.md §1, §4).

    Raises:
        KeyError: for any other id.
    """
    return rule_info(rule_id).name


def rule_info(rule_id: int) -> RuleInfo:
    """The :class:`RuleInfo` of a compiled rule id (alphabet index, or an extra rule's id).

    Args:
        rule_id: ``0..104`` or an extra rule id (:data:`RULE_X1` to :data:`RULE_X6`).

    Returns:
        The registry entry.

    Raises:
        KeyError: for any other id.
    """
    if 0 <= rule_id < N_ALPHABET:
        return ALPHABET[rule_id]
    for info in EXTRA_RULES.values():
        if info.rule_id == rule_id:
            return info
    raise KeyError(f"unknown rule id: {rule_id!r}")


def is_gene(rule_id: int) -> bool:
    """Whether ``rule_id`` may appear in a chromosome (an alphabet index, not X1/X2)."""
    return 0 <= rule_id < N_ALPHABET


def chromosome_from_labels(labels: list[str] | tuple[str, ...]) -> tuple[int, ...]:
    """Map a list of rule labels or names to a chromosome (tuple of alphabet indices).

    Args:
        labels: rule labels, e.g. the names of a published population cell.

    Returns:
        The indices, in order.

    Raises:
        KeyError: if some label names no alphabet rule.
    """
    return tuple(index_of(label) for label in labels)


# --- baseline agents (docs/rules.md §4) ---------------------------------------------------------
IGGI = (2, 8, 13, 38, 27, 39)
INTERNAL = (8, 38, 20, 22, 34)
OUTER = (8, 38, 21, 23, 34)
LEGAL_RANDOM = (39,)
VAN_DEN_BERGH = (RULE_X1, RULE_X2, 13, 14, 19, 29)
FLAWED = (8, 49, 22, 38, 27, 34)
PIERS = (8, 46, 13, 48, 38, 27, 22, 34)
CAUTIOUS = (2, 8, 13, 38, 34)

BASELINES: dict[str, tuple[int, ...]] = {
    "IGGI": IGGI,
    "Internal": INTERNAL,
    "Outer": OUTER,
    "LegalRandom": LEGAL_RANDOM,
    "VanDenBergh": VAN_DEN_BERGH,
    "Flawed": FLAWED,
    "Piers": PIERS,
    "Cautious": CAUTIOUS,
}
"""Baseline agents as rule-id tuples (docs/rules.md §4); VanDenBergh uses X1/X2's compiled ids."""

TEST_POOL: tuple[str, ...] = (
    "IGGI",
    "Internal",
    "Outer",
    "LegalRandom",
    "VanDenBergh",
    "Flawed",
    "Piers",
)
"""The test pool / gauntlet, in order (docs/rules.md §4). Cautious is not in it."""

__all__ = [
    "ALPHABET",
    "BASELINES",
    "CAUTIOUS",
    "EXTRA_RULES",
    "FLAWED",
    "IGGI",
    "INTERNAL",
    "KINDS",
    "LEGAL_RANDOM",
    "N_ALPHABET",
    "N_RULE_IDS",
    "OUTER",
    "PIERS",
    "RULE_X1",
    "RULE_X2",
    "RULE_X3",
    "RULE_X4",
    "RULE_X5",
    "RULE_X6",
    "TEST_POOL",
    "VAN_DEN_BERGH",
    "X1",
    "X2",
    "X3",
    "X4",
    "X5",
    "X6",
    "RuleInfo",
    "chromosome_from_labels",
    "index_of",
    "is_gene",
    "name_of",
    "normalize_label",
    "rule_info",
]

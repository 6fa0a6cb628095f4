"""Meta-agents that adapt to an unknown Hanabi partner ([ToG20], [Bayes21]; PAPERS.md §4).

* :mod:`meta.table` — offline training: the match-up table I(r, h) of responses R against
  hypotheses H (mean score, s.e.m., h's communicativeness and IPP), CSV, resumable.
* :mod:`meta.bayes` — the Bayesian meta-agent of [Bayes21] (RULES.md §9.1) and its Generalist,
  Oracle and Random-Response variants.
* :mod:`meta.evaluate` — the papers' protocol (k episodes × g games per partner), mean ± s.e.m.
  per variant and Welch's t-tests.
"""

from meta.bayes import (
    VARIANTS,
    BayesianMetaAgent,
    PartnerRecord,
    Window,
    bayes_update,
    log_normal_pdf,
)
from meta.evaluate import TTESTS, MetaEvaluation, derive_seed, evaluate_meta
from meta.table import TABLE_COLUMNS, ResponseTable, build_table, policy_ids

__all__ = [
    "TABLE_COLUMNS",
    "TTESTS",
    "VARIANTS",
    "BayesianMetaAgent",
    "MetaEvaluation",
    "PartnerRecord",
    "ResponseTable",
    "Window",
    "bayes_update",
    "build_table",
    "derive_seed",
    "evaluate_meta",
    "log_normal_pdf",
    "policy_ids",
]

"""Meta-agents that adapt to an unknown Hanabi partner ([ToG20], [Bayes21]; docs/papers.md §4).

* :mod:`meta.table` — offline training: the match-up table I(r, h) of responses R against
  hypotheses H (mean score, s.e.m., h's communicativeness and IPP), CSV, resumable.
* :mod:`meta.bayes` — the Bayesian meta-agent of [Bayes21] (docs/rules.md §9.1) and its Generalist,
  Oracle and Random-Response variants.
* :mod:`meta.response` — the response-table meta-agent of [ToG20] (docs/papers.md §4.1): Generalist
  until a confidence threshold, then the specialised response of the estimated niche.
* :mod:`meta.evaluate` — the papers' protocol (k episodes × g games per partner), the partners'
  self-play measures and the niche-estimate error of an offline table.
* :mod:`meta.results` — its results (:class:`MetaEvaluation`): mean ± s.e.m. per variant, Welch's
  t-tests, the niche-estimate error of [ToG20], and the JSON and CSV files.
* :mod:`meta.compiled` — the same protocol in compiled kernels for pools of rule agents
  (chosen automatically by :func:`meta.evaluate.evaluate_meta`; identical results).
* :mod:`meta.pools` — pools of partners and responses from a SOURCE string (a population,
  an archive, a run folder or ``baselines:...``): :func:`load_pool`.
* :mod:`meta.plot` — belief evolution, variant scores and niche-estimate figures (PNG).
"""

from meta.bayes import (
    VARIANTS,
    BayesianMetaAgent,
    PartnerRecord,
    Window,
    bayes_update,
    bayes_update_batch,
    log_normal_pdf,
)
from meta.evaluate import (
    ALL_VARIANTS,
    COUNTER_NAMES,
    RESPONSE_VARIANT_NAMES,
    TTESTS,
    VARIANT_ORDER,
    MetaEvaluation,
    derive_seed,
    evaluate_meta,
    self_play_measures,
    table_niche_mae,
    variant_pairs,
)
from meta.pools import archive_pool, load_pool
from meta.protocol import MetaProtocol
from meta.response import (
    EMPTY_NICHE,
    RESPONSE_VARIANTS,
    NicheRecord,
    ResponseMetaAgent,
    niche_of,
    niche_responses,
    parse_cell_id,
)
from meta.table import TABLE_COLUMNS, ResponseTable, TableProtocol, build_table, policy_ids

__all__ = [
    "ALL_VARIANTS",
    "COUNTER_NAMES",
    "EMPTY_NICHE",
    "RESPONSE_VARIANTS",
    "RESPONSE_VARIANT_NAMES",
    "TABLE_COLUMNS",
    "TTESTS",
    "VARIANTS",
    "VARIANT_ORDER",
    "BayesianMetaAgent",
    "MetaEvaluation",
    "MetaProtocol",
    "NicheRecord",
    "PartnerRecord",
    "ResponseMetaAgent",
    "ResponseTable",
    "TableProtocol",
    "Window",
    "archive_pool",
    "bayes_update",
    "bayes_update_batch",
    "build_table",
    "derive_seed",
    "evaluate_meta",
    "load_pool",
    "log_normal_pdf",
    "niche_of",
    "niche_responses",
    "parse_cell_id",
    "policy_ids",
    "self_play_measures",
    "table_niche_mae",
    "variant_pairs",
]

"""The meta-agent variants an evaluation plays, and the seed of each (:mod:`meta.evaluate`).

Both paths of the evaluation protocol, the Python one (:mod:`meta.evaluate`) and the compiled
one (:mod:`meta.compiled`), seed a variant's agent here, so that they give identical results
(docs/architecture.md §5). Also importable from :mod:`meta.evaluate`.
"""

from __future__ import annotations

from hanabi_env import validate
from hanabi_env.seeding import derive_seed
from meta.bayes import VARIANTS
from meta.response import RESPONSE_VARIANTS

__all__ = ["ALL_VARIANTS", "RESPONSE_VARIANT_NAMES", "variant_seed"]

RESPONSE_VARIANT_NAMES = tuple(f"response-{v}" for v in RESPONSE_VARIANTS)
"""Names of the [ToG20] response-table variants in an evaluation."""

ALL_VARIANTS = (*VARIANTS, *RESPONSE_VARIANT_NAMES)
"""Every variant :func:`evaluate_meta` accepts."""


def variant_seed(seed: int, variant: str, partner: int) -> int:
    """The meta-agent's seed for ``variant`` against partner number ``partner``.

    ``derive_seed(seed, 2, ALL_VARIANTS.index(variant), partner)``: it depends on the variant's
    name, never on which other variants an evaluation plays or in what order (so Random's draws
    are the same whatever ``variants`` holds). Both paths (:mod:`meta.compiled` too) use it.

    Raises:
        ValueError: An unknown variant.
    """
    validate.check_choice("variant", variant, ALL_VARIANTS)
    return derive_seed(seed, 2, ALL_VARIANTS.index(variant), partner)

"""Results ready for strict JSON: the one NaN-to-null conversion every writer uses.

Results hold NaN where a quantity is undefined (the s.e.m. of one value, a ratio over 0), and
numpy arrays and scalars. JSON has neither, so every writer of the project
(:meth:`agents.evaluate.EvaluationResult.to_dict`, :meth:`meta.results.MetaEvaluation.to_dict`,
:func:`qd.io.atomic_write_json`) passes its document through :func:`json_ready` first: NaN
becomes ``null``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["json_ready"]


def json_ready(x, finite: bool = False):
    """``x`` with every NaN float replaced by None, through nested dicts, lists and tuples.

    Tuples become lists, numpy arrays nested lists and numpy scalars Python numbers; anything
    else is returned as it is.

    Args:
        x: The value.
        finite: Replace infinite floats by None too.

    Returns:
        The converted value (a new container; ``x`` is not changed).
    """
    if isinstance(x, float) and (math.isnan(x) or (finite and math.isinf(x))):
        return None
    if isinstance(x, dict):
        return {k: json_ready(v, finite) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_ready(v, finite) for v in x]
    if isinstance(x, np.ndarray):
        return json_ready(x.tolist(), finite)
    if isinstance(x, np.generic):
        return json_ready(x.item(), finite)
    return x

"""The statistics every report uses: the standard error of a mean and the NaN-aware mean.

Scores are reported as mean ± s.e.m. (docs/rules.md §6); the s.e.m. is
``scipy.stats.sem(x, ddof=1)``, i.e. the sample standard deviation over √n, and NaN for fewer
than two values. Welch's t-tests are ``scipy.stats.ttest_ind(equal_var=False)``, called where
they are reported (:mod:`meta.results`).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["nanmean", "sem"]


def sem(x, axis: int | None = None):
    """Standard error of the mean: ``std(x, ddof=1) / sqrt(n)`` (``scipy.stats.sem``).

    Args:
        x: Values (array-like; flattened when ``axis`` is None).
        axis: Axis to reduce, or None for all values.

    Returns:
        A float (``axis=None``) or a float64 array; NaN where fewer than 2 values.
    """
    from scipy import stats as _scipy_stats  # imported on use: keeps ``import hanabi_env`` light

    a = np.asarray(x, dtype=np.float64)
    if axis is None:
        a = a.ravel()
        return float(_scipy_stats.sem(a, ddof=1)) if a.size > 1 else math.nan
    if a.shape[axis] < 2:
        return np.full(np.delete(a.shape, axis), np.nan)
    return _scipy_stats.sem(a, axis=axis, ddof=1)


def nanmean(x) -> float:
    """Mean of the non-NaN values of ``x`` (NaN when there are none), without a warning."""
    a = np.asarray(x, dtype=np.float64)
    a = a[~np.isnan(a)]
    return float(a.mean()) if a.size else math.nan

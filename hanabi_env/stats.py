"""The statistics every report uses: the standard error of a mean and the NaN-aware mean.

Scores are reported as mean ± s.e.m. (docs/rules.md §6); the s.e.m. is
``scipy.stats.sem(x, ddof=1)``, i.e. the sample standard deviation over √n, and NaN for fewer
than two values. Welch's t-tests are ``scipy.stats.ttest_ind(equal_var=False)``, called where
they are reported (:mod:`meta.results`).

A report that tests several pairs at once corrects their p-values for multiple comparisons
(:func:`adjust_pvalues`: Benjamini–Hochberg through ``scipy.stats.false_discovery_control``, or
Holm), and says how many observations a test that was not significant would need
(:func:`samples_needed`, the normal approximation of a two-sample test's power).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["adjust_pvalues", "nanmean", "samples_needed", "sem"]


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


P_ADJUST_METHODS = ("bh", "holm")
"""Corrections of :func:`adjust_pvalues`: Benjamini–Hochberg (false discovery rate) and Holm
(family-wise error rate)."""


def adjust_pvalues(p, method: str = "bh") -> np.ndarray:
    """p-values adjusted for testing them together (compare each with the level α).

    Args:
        p: The tests' p-values (array-like of floats in [0, 1]; NaN stays NaN and is not
            counted as a test).
        method: ``"bh"``: Benjamini–Hochberg (``scipy.stats.false_discovery_control``),
            controls the false discovery rate; ``"holm"``: Holm's step-down correction,
            controls the family-wise error rate.

    Returns:
        float64 array of the same shape, each in [0, 1] and never below its raw p-value.

    Raises:
        ValueError: Unknown ``method``, or a p-value outside [0, 1].
    """
    if method not in P_ADJUST_METHODS:
        raise ValueError(f"method={method!r} is not allowed; allowed: {P_ADJUST_METHODS}")
    a = np.asarray(p, dtype=np.float64)
    out = np.full(a.shape, np.nan)
    ok = ~np.isnan(a)
    if not ok.any():
        return out
    values = a[ok]
    if ((values < 0) | (values > 1)).any():
        raise ValueError("p: p-values must lie in [0, 1]")
    if method == "bh":
        from scipy import stats as _scipy_stats

        out[ok] = _scipy_stats.false_discovery_control(values, method="bh")
    else:
        order = np.argsort(values, kind="stable")
        m = values.size
        stepped = np.maximum.accumulate((m - np.arange(m)) * values[order])
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(stepped, 1.0)
        out[ok] = adjusted
    return out


def samples_needed(
    diff: float, sd_a: float, sd_b: float, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Observations per group for a two-sided two-sample test to detect ``diff`` (power).

    The normal approximation of Welch's test: ``n = (z(1 − α/2) + z(power))² (sd_a² + sd_b²)
    / diff²`` per group, rounded up.

    Args:
        diff: The difference of means to detect (units of the data, e.g. points).
        sd_a: Standard deviation of one group's observations.
        sd_b: The other group's.
        alpha: Two-sided level of the test (after any correction), in (0, 1).
        power: Probability of detecting ``diff`` when it is real, in (0, 1).

    Returns:
        The number of observations per group (a float; ``inf`` when ``diff`` is 0, NaN when
        an input is NaN).

    Raises:
        ValueError: ``alpha`` or ``power`` outside (0, 1).
    """
    for name, x in (("alpha", alpha), ("power", power)):
        if not 0 < x < 1:
            raise ValueError(f"{name}={x!r} is not allowed; allowed: a probability in (0, 1)")
    if any(math.isnan(float(x)) for x in (diff, sd_a, sd_b)):
        return math.nan
    if diff == 0:
        return math.inf
    from scipy import stats as _scipy_stats

    z = _scipy_stats.norm.ppf(1 - alpha / 2) + _scipy_stats.norm.ppf(power)
    return float(math.ceil(z * z * (sd_a**2 + sd_b**2) / diff**2))

"""Behaviour descriptors ("measures" in pyribs' vocabulary) and grid binning.

A measure maps the **summed** behaviour counters of an evaluation (docs/rules.md §5: summed over all
games and over every seat the evaluated agent occupies; in mirror self-play that is every seat)
to one number. The result is a ratio of sums, not a mean of per-game ratios, and 0/0 gives NaN.

Built-in measures (docs/papers.md §3, docs/rules.md §5), each in [0, 1]:

| name | formula over the summed counters |
|---|---|
| ``communicativeness`` | hints_given / hint_opportunities |
| ``ipp`` | sum_known_attrs / (2 · plays) |
| ``risk_aversion`` | sum_p_playable / plays |
| ``discard_position`` | sum_discard_pos / discards |

Any callable of the ``(N_COUNTERS,)`` counter sums can serve as a measure too
(:func:`get_measure`); the counter columns are :data:`hanabi_env.metrics.COUNTER_NAMES`.

Binning (docs/rules.md §7.1): ``bin(v) = floor((v - low) / (high - low) · d)`` clipped to
``[0, d - 1]`` (so ``v = high`` goes to ``d - 1``), and NaN goes to bin 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from hanabi_env import metrics

__all__ = [
    "MEASURES",
    "Measure",
    "bin_index",
    "get_measure",
    "measures_from_counters",
]


@dataclass(frozen=True)
class Measure:
    """One behaviour descriptor.

    Attributes:
        name: Identifier (used in files and on plot axes).
        fn: Maps counter sums ``(..., N_COUNTERS)`` float64 to values ``(...)`` float64 (NaN
            where undefined). Built-ins are vectorised; see :func:`get_measure` for callables
            of one ``(N_COUNTERS,)`` vector.
        low: Lower bound of the measure's grid range.
        high: Upper bound of the measure's grid range.
    """

    name: str
    fn: Callable[[np.ndarray], np.ndarray]
    low: float = 0.0
    high: float = 1.0

    def __call__(self, sums: np.ndarray) -> np.ndarray:
        """Values of the measure for counter sums ``(..., N_COUNTERS)``; shape ``(...)``."""
        return np.asarray(self.fn(np.asarray(sums, dtype=np.float64)), dtype=np.float64)


def _ratio(num: int, den: int, factor: float = 1.0) -> Callable[[np.ndarray], np.ndarray]:
    def fn(sums: np.ndarray) -> np.ndarray:
        return metrics.ratio(sums[..., num], sums[..., den], factor)

    return fn


MEASURES: dict[str, Measure] = {
    name: Measure(name, _ratio(*metrics.RATIOS[name]))
    for name in ("communicativeness", "ipp", "risk_aversion", "discard_position")
}
"""The built-in measures by name (docs/rules.md §5)."""


def get_measure(
    measure: str | Measure | Callable[[np.ndarray], float],
    low: float = 0.0,
    high: float = 1.0,
) -> Measure:
    """Resolve a measure given by name, as a :class:`Measure`, or as a plain callable.

    Args:
        measure: A name of :data:`MEASURES`, a :class:`Measure`, or a callable taking one
            ``(N_COUNTERS,)`` float64 vector of counter sums and returning a float (it is
            applied row by row).
        low: Range lower bound for a plain callable.
        high: Range upper bound for a plain callable.

    Returns:
        The :class:`Measure`.

    Raises:
        ValueError: Unknown name, or ``low >= high``.
    """
    if isinstance(measure, Measure):
        return measure
    if isinstance(measure, str):
        if measure not in MEASURES:
            raise ValueError(
                f"measure={measure!r} is not allowed; allowed: {', '.join(MEASURES)} or a callable"
            )
        return MEASURES[measure]
    if not callable(measure):
        raise ValueError(f"measure={measure!r} must be a name, a Measure or a callable")
    if not low < high:
        raise ValueError(f"low={low} and high={high}: need low < high")
    scalar = measure

    def fn(sums: np.ndarray) -> np.ndarray:
        flat = sums.reshape(-1, sums.shape[-1])
        out = np.array([float(scalar(row)) for row in flat], dtype=np.float64)
        return out.reshape(sums.shape[:-1])

    return Measure(getattr(measure, "__name__", "measure"), fn, float(low), float(high))


def measures_from_counters(sums: np.ndarray, measures: Sequence[Measure]) -> np.ndarray:
    """Measure values for counter sums.

    Args:
        sums: ``(n, N_COUNTERS)`` float64 counter sums, one row per evaluation.
        measures: The measures (one per archive dimension).

    Returns:
        ``(n, len(measures))`` float64 values (NaN where undefined).
    """
    sums = np.asarray(sums, dtype=np.float64)
    return np.stack([m(sums) for m in measures], axis=-1)


def bin_index(
    values: np.ndarray,
    dims: Sequence[int],
    ranges: Sequence[tuple[float, float]],
    binning: str = "floor",
) -> np.ndarray:
    """Grid bins of measure values (docs/rules.md §7.1).

    ``bin = floor((v - low) / (high - low) · d)``, clipped to ``[0, d - 1]``; NaN → 0. With the
    default range [0, 1] this is exactly ``floor(v · d)``, and ``v = 1.0`` goes to ``d - 1``.

    Args:
        values: ``(n, k)`` or ``(k,)`` float64 measure values.
        dims: Bins per dimension, length ``k``.
        ranges: ``(low, high)`` per dimension, length ``k``.
        binning: ``"floor"`` (default, the formula above) or ``"reference"``: the Java
            reference's ``floor((v - low) / ((high - low) / d))`` in double precision, which
            puts some values lying exactly on a bin edge one bin lower (0.6 on 5 bins, for
            example; docs/rules.md §12.2).

    Returns:
        ``(n, k)`` (or ``(k,)``) int64 bin indices.

    Raises:
        ValueError: ``values`` does not have ``len(dims)`` columns.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.shape[-1] != len(dims):
        raise ValueError(f"values has {v.shape[-1]} columns, dims has {len(dims)} entries")
    if binning not in ("floor", "reference"):
        raise ValueError(f"binning must be 'floor' or 'reference', got {binning!r}")
    d = np.asarray(dims, dtype=np.float64)
    lo = np.array([r[0] for r in ranges], dtype=np.float64)
    hi = np.array([r[1] for r in ranges], dtype=np.float64)
    with np.errstate(invalid="ignore"):
        if binning == "reference":
            scaled = np.floor((v - lo) / ((hi - lo) / d))
        else:
            scaled = np.floor((v - lo) / (hi - lo) * d)
    scaled = np.where(np.isnan(scaled), 0.0, scaled)
    return np.clip(scaled, 0, d - 1).astype(np.int64)

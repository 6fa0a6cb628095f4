"""The behaviour metrics of a seat: the counter layout and the formulas, in one place.

The engine keeps, for every seat of every game, ``N_COUNTERS`` float64 counters, updated on
each of the seat's moves at decision time (docs/rules.md §5):

=====  ==========================  ===================================================
index  name                        update on each move of the seat
=====  ==========================  ===================================================
0      ``hint_opportunities``      +1 if an information token is left
1      ``hints_given``             +1 on a hint (reveal colour or rank)
2      ``plays``                   +1 on a play
3      ``sum_known_attrs``         on a play: + [colour known] + [rank known] (0, 1 or 2)
4      ``sum_p_playable``          on a play: + P(playable) as the mover saw it
5      ``discards``                +1 on a discard
6      ``sum_discard_pos``         on a discard: + slot / (hand size − 1)
7      ``turns``                   +1 on every move
=====  ==========================  ===================================================

and every metric is a **ratio of sums** ([CoG19], [Bayes21]; docs/papers.md §3): sum the
counters over the games and seats that count, then divide. :data:`RATIOS` names each metric's
numerator, denominator and factor; every module that needs a metric (the AEC env's ``infos``,
MAP-Elites measures, response tables, meta-agent beliefs and their niche estimates) computes it
here, with :func:`ratio`.

* **communicativeness** = hints_given / hint_opportunities;
* **IPP** (information per play) = sum_known_attrs / (2 · plays);
* **risk aversion** = sum_p_playable / plays;
* **discard position** = sum_discard_pos / discards.

Each is in [0, 1], and undefined (NaN, or ``None`` in :func:`metrics_from_counters`) where the
denominator is 0.
"""

from __future__ import annotations

import numpy as np

from hanabi_env._engine import (
    C_DISCARDS,
    C_HINT_OPPORTUNITIES,
    C_HINTS_GIVEN,
    C_PLAYS,
    C_SUM_DISCARD_POS,
    C_SUM_KNOWN_ATTRS,
    C_SUM_P_PLAYABLE,
    C_TURNS,
    COUNTER_NAMES,
    N_COUNTERS,
)

__all__ = [
    "COUNTER_NAMES",
    "C_DISCARDS",
    "C_HINTS_GIVEN",
    "C_HINT_OPPORTUNITIES",
    "C_PLAYS",
    "C_SUM_DISCARD_POS",
    "C_SUM_KNOWN_ATTRS",
    "C_SUM_P_PLAYABLE",
    "C_TURNS",
    "N_COUNTERS",
    "RATIOS",
    "metric_ratios",
    "metrics_from_counters",
    "ratio",
]

RATIOS: dict[str, tuple[int, int, float]] = {
    "communicativeness": (C_HINTS_GIVEN, C_HINT_OPPORTUNITIES, 1.0),
    "ipp": (C_SUM_KNOWN_ATTRS, C_PLAYS, 2.0),
    "risk_aversion": (C_SUM_P_PLAYABLE, C_PLAYS, 1.0),
    "discard_position": (C_SUM_DISCARD_POS, C_DISCARDS, 1.0),
}
"""Metric name → ``(numerator counter, denominator counter, factor)``: the metric is
``counters[num] / (factor * counters[den])``."""

_INT_COUNTERS = ("hint_opportunities", "hints_given", "plays", "discards", "turns")


def ratio(num, den, factor: float = 1.0) -> np.ndarray:
    """``num / (factor * den)`` element-wise in float64, NaN where the denominator is 0.

    Args:
        num: Numerators (any real array-like; counters or sums of counters).
        den: Denominators, broadcastable with ``num`` (counts, >= 0).
        factor: Constant factor of the denominator (2 for IPP).

    Returns:
        float64 array of the broadcast shape.
    """
    n = np.asarray(num, dtype=np.float64)
    d = np.asarray(den, dtype=np.float64) * factor
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(d != 0, n / np.where(d != 0, d, 1.0), np.nan)


def metric_ratios(counters) -> dict[str, np.ndarray]:
    """Communicativeness, IPP and risk aversion from behaviour counters, vectorised.

    Counters are summed by the caller first, so aggregates are ratios of sums.

    Args:
        counters: ``(..., N_COUNTERS)`` counters or counter sums.

    Returns:
        ``communicativeness``, ``ipp``, ``risk_aversion``: float64 arrays of shape ``(...)``
        in [0, 1], NaN where the denominator is 0.
    """
    c = np.asarray(counters, dtype=np.float64)
    names = ("communicativeness", "ipp", "risk_aversion")
    return {m: ratio(c[..., RATIOS[m][0]], c[..., RATIOS[m][1]], RATIOS[m][2]) for m in names}


def metrics_from_counters(counters) -> dict:
    """Behaviour metrics of one seat from its counters, as plain Python values.

    The scalar counterpart of :func:`metric_ratios` (the AEC env calls it on every step).

    Args:
        counters: ``(N_COUNTERS,)`` float64 counters of one seat.

    Returns:
        The raw counts by name (:data:`COUNTER_NAMES`; the integer ones as ``int``) and
        ``communicativeness``, ``ipp`` and ``risk_aversion``, each a float in [0, 1] or
        ``None`` where the denominator is 0.
    """
    values = np.asarray(counters, dtype=np.float64).tolist()
    d: dict = dict(zip(COUNTER_NAMES, values, strict=True))
    for key in _INT_COUNTERS:
        d[key] = int(d[key])
    for name in ("communicativeness", "ipp", "risk_aversion"):
        num, den, factor = RATIOS[name]
        d[name] = None if values[den] == 0 else float(values[num]) / float(factor * values[den])
    return d

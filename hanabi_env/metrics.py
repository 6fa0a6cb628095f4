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

Each is in [0, 1], and undefined where the denominator is 0: NaN in :func:`ratio` and
:func:`metric_ratios` (for aggregates, where NaN propagates honestly), and ``0.0`` with a
``False`` flag in :func:`info_metrics`, the contract of the envs' ``infos``.

## The ``infos`` contract

:func:`info_metrics` builds the behaviour part of every seat's ``infos`` entry, in the AEC env
(one seat's counters, plain Python values) and in the vectorised env (arrays of counters,
arrays of values), so both give the same keys with the same meaning (docs/marl.md §3):

===============================  =============================  ================================
key                              one seat ``(N_COUNTERS,)``     vectorised ``(..., N_COUNTERS)``
===============================  =============================  ================================
the 8 counter names              ``int`` (counts) or ``float``   int64 (counts) or float64 arrays
                                 (``sum_*``)
``communicativeness``, ``ipp``,  ``float`` in [0, 1], ``0.0``   float64 arrays, ``0.0`` where
``risk_aversion``                where undefined                 undefined
``<metric>_defined``             ``bool``: the denominator > 0   bool arrays
===============================  =============================  ================================

Every value is finite and never ``None``: MARL libraries store ``infos`` as arrays and treat
``None`` or NaN as corrupt data (Tianshou's replay buffer refuses NaN; TorchRL infers one
tensor spec per key from the first ``infos``). A metric is read as
``info["ipp"] if info["ipp_defined"] else None``.
"""

from __future__ import annotations

import numpy as np

from hanabi_env.engine import (
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
    "INFO_KEYS",
    "INFO_METRICS",
    "N_COUNTERS",
    "RATIOS",
    "info_metrics",
    "metric_ratios",
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

INFO_METRICS = ("communicativeness", "ipp", "risk_aversion")
"""The metrics in the envs' ``infos`` (each with a ``<metric>_defined`` flag)."""

INFO_KEYS: tuple[str, ...] = (
    *COUNTER_NAMES,
    *(key for m in INFO_METRICS for key in (m, f"{m}_defined")),
)
"""Every key of :func:`info_metrics`, in order: the counters, then each metric and its flag."""


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


def info_metrics(counters) -> dict:
    """The behaviour part of a seat's ``infos``: counters, metrics and defined flags.

    The one implementation of the ``infos`` contract (module docstring, "The ``infos``
    contract"; docs/marl.md §3). Undefined metrics (denominator 0) are ``0.0`` with the
    flag ``False``; nothing is ``None`` or NaN.

    Args:
        counters: ``(N_COUNTERS,)`` counters of one seat, or ``(..., N_COUNTERS)`` counters of
            many (any real array-like, e.g. the engine's float64 counters).

    Returns:
        A dict with the keys :data:`INFO_KEYS`. For one seat (a 1-d input): plain Python values,
        ``int`` for the counts (``hint_opportunities``, ``hints_given``, ``plays``,
        ``discards``, ``turns``), ``float`` for the sums and metrics, ``bool`` for the flags.
        Otherwise arrays of shape ``counters.shape[:-1]``: int64 counts, float64 sums and
        metrics, bool flags.

    Raises:
        ValueError: The last axis of ``counters`` is not ``N_COUNTERS`` long.
    """
    c = np.asarray(counters, dtype=np.float64)
    if c.ndim == 0 or c.shape[-1] != N_COUNTERS:
        raise ValueError(
            f"counters has shape {c.shape}; allowed: (..., {N_COUNTERS}) (the engine's "
            "behaviour counters, hanabi_env.metrics.COUNTER_NAMES)"
        )
    if c.ndim == 1:  # one seat: plain Python values (the AEC env's hot path)
        values = c.tolist()
        d: dict = dict(zip(COUNTER_NAMES, values, strict=True))
        for key in _INT_COUNTERS:
            d[key] = int(d[key])
        for name in INFO_METRICS:
            num, den, factor = RATIOS[name]
            defined = values[den] != 0
            d[name] = values[num] / (factor * values[den]) if defined else 0.0
            d[f"{name}_defined"] = defined
        return d
    out: dict = {}
    for k, key in enumerate(COUNTER_NAMES):
        out[key] = c[..., k].astype(np.int64) if key in _INT_COUNTERS else c[..., k].copy()
    for name in INFO_METRICS:
        num, den, factor = RATIOS[name]
        defined = c[..., den] != 0
        out[name] = np.where(defined, ratio(c[..., num], c[..., den], factor), 0.0)
        out[f"{name}_defined"] = defined
    return out

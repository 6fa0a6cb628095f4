"""Every number of a benchmark report, computed from the flat results table.

docs/benchmark.md §3–4. Each function takes a :class:`~hanabi_adhoc.benchmark.results.Results`
(one agent) and the suite's groups, and plays no game:

* :func:`partner_rows` — per partner, game size and seat (and over all seats): games, mean
  score ± s.e.m., the normalised score ``min(1, R / R_BR)`` ([ZSC-Eval]'s BR-proximity against
  the best known response shipped with the suite), the agent's and the partner's behaviour;
* :func:`bootstrap_ci` — mean or interquartile mean (IQM) over partners with a **stratified**
  bootstrap 95% confidence interval (``scipy.stats.bootstrap``, percentile method: partners
  are resampled within their group, so each population keeps its size; rliable's scheme);
* :func:`suite_summary` — those aggregates per suite, per group and per game size;
* :func:`seat_table`, :func:`niche_grids`, :func:`behaviour`, :func:`adaptation` — the
  per-seat breakdown, the niche heatmaps, the agent's own behaviour and the adaptation curve.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from hanabi_adhoc.benchmark.results import Results
from hanabi_adhoc.benchmark.suites import Group, Suite
from hanabi_env.metrics import metric_ratios
from hanabi_env.stats import sem

__all__ = [
    "adaptation",
    "behaviour",
    "bootstrap_ci",
    "iqm",
    "niche_grids",
    "normalised",
    "partner_rows",
    "pooled_curve",
    "seat_table",
    "self_play",
    "suite_summary",
]

CONFIDENCE = 0.95
"""Level of every confidence interval."""
RESAMPLES = 2000
"""Bootstrap resamples."""


def normalised(mean: float, br: float | None) -> float:
    """``min(1, mean / br)``; NaN when the best response is unknown or not positive."""
    if br is None or not math.isfinite(br) or br <= 0 or not math.isfinite(mean):
        return math.nan
    return min(1.0, mean / br)


def iqm(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Interquartile mean: the mean of the middle 50% (``scipy.stats.trim_mean(x, 0.25)``)."""
    from scipy.stats import trim_mean

    return trim_mean(x, 0.25, axis=axis)


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def bootstrap_ci(
    strata: Sequence[np.ndarray], stat: str = "mean", seed: int = 0
) -> tuple[float, float, float]:
    """A statistic over the pooled values with a stratified bootstrap 95% CI.

    Args:
        strata: One array of values per stratum (a group, or a group at one game size); NaN
            values are left out.
        stat: ``"mean"`` or ``"iqm"``.
        seed: Seed of the resampling.

    Returns:
        ``(value, low, high)``; the interval is ``(value, value)`` when there is nothing to
        resample (fewer than 2 values, or all equal), NaN without values.
    """
    fn = {"mean": _mean, "iqm": iqm}[stat]
    clean = [np.asarray(s, dtype=np.float64) for s in strata]
    clean = [s[np.isfinite(s)] for s in clean]
    clean = [s for s in clean if len(s)]
    if not clean:
        return math.nan, math.nan, math.nan
    pooled = np.concatenate(clean)
    value = float(fn(pooled))
    free = [s for s in clean if len(s) > 1 and np.ptp(s) > 0]
    fixed = [s for s in clean if not (len(s) > 1 and np.ptp(s) > 0)]
    if not free:
        return value, value, value
    from scipy.stats import bootstrap

    def statistic(*samples, axis=-1):
        parts = list(samples)
        if fixed:
            shape = np.shape(samples[0])[:-1]
            parts += [np.broadcast_to(f, (*shape, len(f))) for f in fixed]
        return fn(np.concatenate(parts, axis=-1), axis=-1)

    import inspect

    # scipy >= 1.15 names the generator ``rng``; older versions ``random_state``
    gen = "rng" if "rng" in inspect.signature(bootstrap).parameters else "random_state"
    res = bootstrap(
        tuple(free),
        statistic,
        n_resamples=RESAMPLES,
        confidence_level=CONFIDENCE,
        method="percentile",
        vectorized=True,
        **{gen: np.random.default_rng(seed)},
    )
    return value, float(res.confidence_interval.low), float(res.confidence_interval.high)


def _sem(x: np.ndarray) -> float:
    """:func:`hanabi_env.stats.sem` (std with ddof=1 over √n; NaN below 2 values) in numpy.

    The same formula without scipy's per-call overhead (milliseconds), for thousands of rows.
    """
    n = len(x)
    return float(np.std(x, ddof=1) / math.sqrt(n)) if n > 1 else math.nan


def _metrics(counters: np.ndarray) -> dict[str, float]:
    m = metric_ratios(counters.sum(axis=0))
    return {k: float(m[k]) for k in ("communicativeness", "ipp", "risk_aversion")}


def partner_rows(
    results: Results, groups: Mapping[str, Group], rulebook_hands: bool = True
) -> list[dict]:
    """One row per (group, partner, game size, seat), and per seat ``"all"``.

    Args:
        results: One agent's table.
        groups: Group name → :class:`Group` (the groups of ``results``).
        rulebook_hands: Whether the games dealt the rulebook's hand sizes, those the
            best-response scores were measured with; if not, ``normalised`` is NaN.

    Returns:
        Rows with ``group``, ``partner`` (the partner's id), ``cell``, ``players``, ``seat``,
        ``games``, ``mean_score``, ``sem``, ``normalised``, ``br``, ``self_play`` and the
        agent's (``communicativeness``, ``ipp``, ``risk_aversion``) and the partner's
        (``partner_communicativeness``, ``partner_ipp``) behaviour in those games.
    """
    rows = []
    d = results.data
    live = np.flatnonzero(d["partner"] >= 0)
    cols = ("group", "partner", "players", "seat")
    order = live[np.lexsort(tuple(d[c][live] for c in reversed(cols)))]
    key = np.stack([d[c][order] for c in cols[:3]], axis=1)
    starts: list[int] = []
    if len(key):
        starts = np.flatnonzero(np.r_[True, (key[1:] != key[:-1]).any(axis=1)]).tolist()
    ac, pc = results.counters("agent"), results.counters("partner")
    for a, b in zip(starts, [*starts[1:], len(order)], strict=True):
        idx = order[a:b]
        gi, e, p = (int(x) for x in key[a])
        group = groups[results.groups[gi]]
        partner = group.partners[e]
        br = partner.br.get(p) if rulebook_hands else None
        seats = d["seat"][idx]
        for seat in [*range(p), "all"]:
            sel = idx if seat == "all" else idx[seats == seat]
            scores = d["score"][sel]
            mean = float(scores.mean()) if len(scores) else math.nan
            mine, theirs = _metrics(ac[sel]), _metrics(pc[sel])
            rows.append(
                {
                    "group": group.name,
                    "partner": partner.id,
                    "cell": ""
                    if partner.cell is None
                    else f"[{partner.cell[0]},{partner.cell[1]}]",
                    "players": p,
                    "seat": seat,
                    "games": len(scores),
                    "mean_score": mean,
                    "sem": _sem(scores),
                    "normalised": normalised(mean, br),
                    "br": math.nan if br is None else br,
                    "self_play": partner.self_play.get(p, math.nan),
                    **mine,
                    "partner_communicativeness": theirs["communicativeness"],
                    "partner_ipp": theirs["ipp"],
                }
            )
    return rows


def _units(rows: Sequence[dict], groups: Sequence[str], key: str) -> list[np.ndarray]:
    """``key`` of the all-seat rows, one array per stratum (group × game size)."""
    strata: dict[tuple[str, int], list[float]] = {}
    for r in rows:
        if r["seat"] == "all" and r["group"] in groups:
            strata.setdefault((r["group"], r["players"]), []).append(r[key])
    return [np.array(v, dtype=np.float64) for _, v in sorted(strata.items())]


def _aggregate(rows, groups, seed: int) -> dict:
    norm = _units(rows, groups, "normalised")
    score = _units(rows, groups, "mean_score")
    out: dict = {"units": int(sum(len(s) for s in score))}
    for name, strata in (("normalised", norm), ("score", score)):
        for stat in ("mean", "iqm"):
            v, lo, hi = bootstrap_ci(strata, stat, seed)
            out[f"{name}_{stat}"] = {"value": v, "low": lo, "high": hi}
    return out


def suite_summary(rows: Sequence[dict], suite: Suite, seed: int = 0) -> dict:
    """Aggregates of one suite: over all its partners, per group, per game size.

    Every aggregate is over partners (each partner at each game size counts once, its value
    the mean over its seats' games): mean and IQM of the normalised score and of the score,
    each with a stratified bootstrap 95% CI (strata: group × game size).

    Returns:
        ``{"suite", "all", "groups": {name: ...}, "players": {p: ...}}``.
    """
    names = [g.name for g in suite.groups]
    sizes = sorted({p for g in suite.groups for p in g.players})
    by_size = {}
    for p in sizes:
        sub = [r for r in rows if r["players"] == p]
        if any(r["group"] in names for r in sub):
            by_size[str(p)] = _aggregate(sub, names, seed)
    return {
        "suite": suite.key,
        "all": _aggregate(rows, names, seed),
        "groups": {
            n: _aggregate(rows, [n], seed) for n in names if any(r["group"] == n for r in rows)
        },
        "players": by_size,
    }


def seat_table(rows: Sequence[dict]) -> list[dict]:
    """Per group, game size and seat: mean over partners of the score and normalised score."""
    cells: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["seat"] != "all":
            cells.setdefault((r["group"], r["players"], r["seat"]), []).append(r)
    out = []
    for (g, p, s), rs in sorted(cells.items()):
        out.append(
            {
                "group": g,
                "players": p,
                "seat": s,
                "partners": len(rs),
                "mean_score": float(np.mean([r["mean_score"] for r in rs])),
                "normalised": _nanmean([r["normalised"] for r in rs]),
            }
        )
    return out


def _nanmean(x) -> float:
    a = np.asarray(x, dtype=np.float64)
    a = a[np.isfinite(a)]
    return float(a.mean()) if len(a) else math.nan


def family(name: str) -> str:
    """A population's name without its run: ``"published-5x5-run2"`` → ``"published-5x5"``."""
    return re.sub(r"-run\d+$", "", name)


def niche_grids(rows: Sequence[dict], groups: Mapping[str, Group]) -> dict[str, dict]:
    """Per population (runs merged), ``(d1, d2)`` grids over (communicativeness, IPP) cells.

    Returns:
        Family → ``{"grid", "groups", "score", "normalised", "self_play", "br"}``: float64
        arrays, each cell the mean over the runs with a partner there (NaN where none);
        ``score`` is the agent's mean score with the cell's partner (all seats), ``self_play``
        the partner's own.
    """
    out: dict[str, dict] = {}
    for r in rows:
        g = groups[r["group"]]
        if r["seat"] != "all" or g.grid is None or not r["cell"]:
            continue
        fam = out.setdefault(family(g.name), {"grid": g.grid, "groups": [], "cells": {}})
        if g.name not in fam["groups"]:
            fam["groups"].append(g.name)
        i, j = (int(x) for x in r["cell"].strip("[]").split(","))
        fam["cells"].setdefault((i, j), []).append(r)
    for fam in out.values():
        d1, d2 = fam["grid"]
        for key in ("score", "normalised", "self_play", "br"):
            col = "mean_score" if key == "score" else key
            a = np.full((d1, d2), np.nan)
            for (i, j), rs in fam["cells"].items():
                a[i, j] = _nanmean([r[col] for r in rs])
            fam[key] = a
        del fam["cells"]
    return out


def weakest_cells(grid: dict, k: int = 3) -> list[tuple[int, int, float]]:
    """The ``k`` cells with the lowest normalised score (score if none): ``(i, j, value)``."""
    a = grid["normalised"] if np.isfinite(grid["normalised"]).any() else grid["score"]
    idx = [(i, j) for i in range(a.shape[0]) for j in range(a.shape[1]) if np.isfinite(a[i, j])]
    idx.sort(key=lambda c: (a[c], c))
    return [(i, j, float(a[i, j])) for i, j in idx[:k]]


def cell_of(comm: float, ipp: float, grid: Sequence[int]) -> tuple[int, int] | None:
    """The cell of (communicativeness, IPP) on a grid (``floor(v · d)``, 1.0 in the last bin)."""
    if not (math.isfinite(comm) and math.isfinite(ipp)):
        return None
    return tuple(min(int(v * d), d - 1) for v, d in zip((comm, ipp), grid, strict=True))  # type: ignore[return-value]


def behaviour(results: Results) -> dict:
    """The agent's communicativeness, IPP and risk aversion, in self-play and with partners.

    Returns:
        ``{"self_play": {p: metrics}, "with_partners": {group: {p: metrics}}, "cell":
        {"5x5": [i, j], "20x20": [i, j]}}``; the cells are those of its 2-player self-play
        (None when it did not play 2-player self-play or a measure is undefined).
    """
    d = results.data
    ac = results.counters("agent")
    out: dict = {"self_play": {}, "with_partners": {}, "cell": {}}
    selfp = d["partner"] < 0
    for p in sorted(set(d["players"][selfp].tolist())):
        out["self_play"][str(p)] = _metrics(ac[selfp & (d["players"] == p)])
    for gi, name in enumerate(results.groups):
        for p in sorted(set(d["players"][~selfp & (d["group"] == gi)].tolist())):
            m = ~selfp & (d["group"] == gi) & (d["players"] == p)
            out["with_partners"].setdefault(name, {})[str(p)] = _metrics(ac[m])
    two = out["self_play"].get("2")
    for grid in ((5, 5), (20, 20)):
        c = None if two is None else cell_of(two["communicativeness"], two["ipp"], grid)
        out["cell"][f"{grid[0]}x{grid[1]}"] = None if c is None else list(c)
    return out


def self_play(results: Results) -> dict[str, dict]:
    """The agent's own self-play score (every seat the agent), per game size.

    Self-play is played on every group's deals at each size it plays (docs/benchmark.md §3); a
    size pools the games of every group played at it, and ``groups`` splits them.

    Returns:
        ``{"2": {"games": n, "mean_score": points, "sem": points, "groups": {group: {"games",
        "mean_score", "sem"}}}, ...}``: scores in points (0–25), s.e.m. NaN below 2 games;
        empty when no self-play was played.
    """
    d = results.data
    selfp = d["partner"] < 0
    out: dict[str, dict] = {}

    def stat(m: np.ndarray) -> dict:
        x = d["score"][m].astype(np.float64)
        return {"games": len(x), "mean_score": float(x.mean()), "sem": _sem(x)}

    for p in sorted(set(d["players"][selfp].tolist())):
        at = selfp & (d["players"] == p)
        groups = {
            name: stat(at & (d["group"] == gi))
            for gi, name in enumerate(results.groups)
            if (at & (d["group"] == gi)).any()
        }
        out[str(p)] = {**stat(at), "groups": groups}
    return out


def pooled_curve(curves: Mapping[str, Mapping], players: int = 2) -> list[float]:
    """One curve from :func:`adaptation`'s: the episode-weighted mean over groups.

    Over the groups at ``players``, cut to the shortest episode; empty without such groups.
    """
    picked = [c for k, c in curves.items() if k.endswith(f"/{players}") and c["mean"]]
    if not picked:
        return []
    n = min(len(c["mean"]) for c in picked)
    w = np.array([c["episodes"] for c in picked], dtype=np.float64)
    m = np.array([c["mean"][:n] for c in picked], dtype=np.float64)
    return [float(x) for x in (w[:, None] * m).sum(axis=0) / w.sum()]


def adaptation(results: Results) -> dict[str, dict]:
    """Mean score by game index within an episode, per group and game size (partners only).

    Returns:
        ``"group/p"`` → ``{"mean": [...], "sem": [...], "episodes": n}`` (one entry per game
        index; n = episodes × partners × seats averaged at each index).
    """
    d = results.data
    out = {}
    live = d["partner"] >= 0
    for gi, name in enumerate(results.groups):
        for p in sorted(set(d["players"][live & (d["group"] == gi)].tolist())):
            m = live & (d["group"] == gi) & (d["players"] == p)
            games = int(d["game"][m].max()) + 1
            per = [d["score"][m & (d["game"] == i)] for i in range(games)]
            out[f"{name}/{p}"] = {
                "mean": [float(x.mean()) for x in per],
                "sem": [sem(x) for x in per],
                "episodes": len(per[0]),
            }
    return out

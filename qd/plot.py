"""Figures of populations (matplotlib, Agg backend).

* :func:`heatmap` — objective per archive cell through ``ribs.visualize.grid_archive_heatmap``;
* :func:`matchup_heatmap` — the mean score of every ordered pair of a match-up table;
* :func:`cell_label` — a readable name of a niche from its bin ranges
  (``"C 0.2–0.4 / IPP 0.6–0.8"``, compact ``"c.2–.4 i.6–.8"``), used for tick labels instead of
  the grid index ``"[1,3]"``.

Titles, axis and colour-bar labels use words (:data:`FIELD_LABELS`, :data:`MEASURE_LABELS`),
never internal field names.

Requires the ``qd`` extra: ``pip install "ribs[visualize]>=0.7" "matplotlib>=3.7"``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hanabi_env.outputs import atomic_path
from qd.archive import Archive

__all__ = ["FIELD_LABELS", "MEASURE_LABELS", "cell_label", "heatmap", "matchup_heatmap"]

FIELD_LABELS = {
    "objective": "self-play score during the search",
    "reeval_objective": "re-evaluated self-play score",
}
"""Words for the archive fields a heatmap can show (others: underscores become spaces)."""

MEASURE_LABELS = {
    "communicativeness": ("communicativeness", "C", "c"),
    "ipp": ("IPP (information per play)", "IPP", "i"),
    "risk_aversion": ("risk aversion", "RA", "r"),
}
"""Measure name → (axis label, short name, one-letter name) (docs/rules.md §5)."""

_CELL_RE = re.compile(r"\[(\d+(?:,\s*\d+)*)\]\s*$")


def _field_label(field: str) -> str:
    return FIELD_LABELS.get(field, field.replace("_", " "))


def _measure_label(name: str, which: int = 0) -> str:
    return MEASURE_LABELS.get(name, (name.replace("_", " "),) * 3)[which]


def _bound(x: float, compact: bool) -> str:
    text = f"{x:.3g}"
    if compact and text.startswith("0."):
        return text[1:]
    if compact and text.startswith("-0."):
        return "-" + text[2:]
    return text if compact or "." in text or "e" in text else f"{x:.1f}"


def cell_label(
    cell: str | Sequence[int],
    dims: Sequence[int],
    ranges: Sequence[tuple[float, float]] | None = None,
    measures: Sequence[str] = ("communicativeness", "ipp"),
    compact: bool = False,
) -> str:
    """A niche named by its bin ranges, e.g. ``"C 0.2–0.4 / IPP 0.6–0.8"``.

    Bin ``i`` of a dimension with ``d`` bins over ``[lo, hi]`` covers
    ``[lo + i·w, lo + (i+1)·w)`` with ``w = (hi − lo) / d`` (docs/rules.md §7.1).

    Args:
        cell: Grid index ``(i, j)`` or an id ending with one (``"run0:[1,3]"``).
        dims: Bins per dimension.
        ranges: ``(lo, hi)`` per dimension (default ``(0, 1)`` each).
        measures: Measure names, one per dimension (short names from :data:`MEASURE_LABELS`).
        compact: One-letter names and no leading zeros: ``"c.2–.4 i.6–.8"``.

    Returns:
        The label; ``cell`` unchanged (as a string) when it is not a cell of this grid.
    """
    if isinstance(cell, str):
        m = _CELL_RE.search(cell)
        if m is None:
            return cell
        index = [int(x) for x in m.group(1).split(",")]
    else:
        index = [int(x) for x in cell]
    ranges = list(ranges) if ranges is not None else [(0.0, 1.0)] * len(dims)
    if not (len(index) == len(dims) == len(ranges) == len(measures)) or any(
        not 0 <= i < d for i, d in zip(index, dims, strict=True)
    ):
        return str(cell)
    parts = []
    for i, d, (lo, hi), name in zip(index, dims, ranges, measures, strict=True):
        w = (hi - lo) / d
        a, b = _bound(lo + i * w, compact), _bound(lo + (i + 1) * w, compact)
        parts.append(f"{_measure_label(name, 2 if compact else 1)}{'' if compact else ' '}{a}–{b}")
    return (" " if compact else " / ").join(parts)


def _tick_fontsize(n: int) -> float:
    """Tick label size (points) for ``n`` labels on an axis of a figure scaled with ``n``."""
    return 9.0 if n <= 12 else 8.0 if n <= 30 else 7.0


def _save(fig, path: str | Path, dpi: int) -> None:
    """Write ``fig`` to ``path`` atomically (:func:`hanabi_env.outputs.atomic_path`)."""
    fig.tight_layout()
    with atomic_path(path) as tmp:  # a unique temporary file, then the rename
        fig.savefig(tmp, dpi=dpi)


def heatmap(
    archive: Archive,
    path: str | Path,
    objective: str = "objective",
    title: str | None = None,
    annotate: bool | None = None,
    vmin: float = 0.0,
    vmax: float = 25.0,
) -> None:
    """Save a PNG heatmap of the objective per cell.

    The x axis is the first measure and the y axis the second (pyribs' convention), each
    labelled with its name (in words) and range; empty cells are left blank. The title gives
    coverage, best and mean objective; the colour bar is labelled with the field in words
    (:data:`FIELD_LABELS`).

    Args:
        archive: A 2-D archive.
        path: Output PNG path.
        objective: ``"objective"`` or an extra field such as ``"reeval_objective"``.
        title: Title prefix (default: the field in words).
        annotate: Print the value in each cell (default: when the grid has <= 100 cells).
        vmin: Colour scale minimum (points).
        vmax: Colour scale maximum (points).

    Raises:
        ValueError: The archive is not 2-D, or ``objective`` is unknown or NaN somewhere.
    """
    from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone
    from ribs.visualize import grid_archive_heatmap

    if archive.measure_dim != 2:
        raise ValueError(f"archive has {archive.measure_dim} measure dimensions; need 2")
    ribs_archive = archive.to_ribs(objective)
    stats = archive.stats(objective)
    words = _field_label(objective)
    fig = Figure(figsize=(6.6, 5.4))
    ax = fig.subplots()
    grid_archive_heatmap(
        ribs_archive, ax=ax, vmin=vmin, vmax=vmax, cbar_kwargs={"label": f"{words} (points)"}
    )
    (lo0, hi0), (lo1, hi1) = archive.ranges
    m0, m1 = archive.measure_names
    ax.set_xlabel(f"{_measure_label(m0)}, {archive.dims[0]} bins over [{lo0:g}, {hi0:g}]")
    ax.set_ylabel(f"{_measure_label(m1)}, {archive.dims[1]} bins over [{lo1:g}, {hi1:g}]")
    head = title or words
    ax.set_title(
        f"{head}\ncoverage {stats.num_elites}/{archive.cells} niches, best {stats.obj_max:.2f}, "
        f"mean {stats.obj_mean:.2f}",
        fontsize=10,
    )
    if annotate is None:
        annotate = archive.cells <= 100
    if annotate:
        data = archive.data()
        values = data[objective]
        centres = archive.cell_centers(data["cell"])
        for (x, y), v in zip(centres, values, strict=True):
            if np.isfinite(v):
                colour = "black" if v > vmin + 0.6 * (vmax - vmin) else "white"
                ax.text(x, y, f"{v:.1f}", ha="center", va="center", fontsize=9, color=colour)
    _save(fig, path, dpi=120)


def matchup_heatmap(
    table,
    path: str | Path,
    title: str | None = None,
    vmin: float = 0.0,
    vmax: float = 25.0,
    dims: Sequence[int] | None = None,
    ranges: Sequence[tuple[float, float]] | None = None,
    measures: Sequence[str] = ("communicativeness", "ipp"),
    max_labels: int = 60,
) -> None:
    """Save a PNG of a match-up table's mean scores (row agent seat 0, column agent seat 1).

    Agents are sorted by intra-population score ([ToG20] eq. 1: an agent's mean score over its
    ``2n − 1`` match-ups), best first, so that the Generalist is the top row and the left
    column; the diagonal is mirror self-play. The title gives the **mean pairwise score**
    (:meth:`~qd.analysis.MatchupTable.population_score`: the mean over all ``n²`` ordered pairs,
    self-play included). The figure grows with ``n`` so that tick labels stay readable.

    Args:
        table: A :class:`qd.analysis.MatchupTable` (``n × n`` scores, points).
        path: Output PNG path.
        title: Title prefix.
        vmin: Colour scale minimum (points).
        vmax: Colour scale maximum (points).
        dims: Grid of the archive the ids are cells of; when given, agents are named by their
            niche's bin ranges (:func:`cell_label`, ``"C 0.2–0.4 / IPP 0.6–0.8"``) instead of
            ``"[1,3]"``.
        ranges: ``(lo, hi)`` per measure (default ``(0, 1)``).
        measures: Measure names of the grid dimensions.
        max_labels: Above this many agents, tick labels are left out.

    Raises:
        ValueError: An empty table.
    """
    from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone

    n = len(table.ids)
    if n == 0:
        raise ValueError("table has no agents")
    order = np.argsort(-table.intra_population_scores(), kind="stable")
    scores = table.scores[np.ix_(order, order)]
    if dims is not None:
        labels = [cell_label(table.ids[i], dims, ranges, measures) for i in order]
    else:
        labels = [table.ids[i].split(":")[-1] for i in order]
    show = n <= max_labels
    font = _tick_fontsize(n)
    # ~0.3 in per agent (>= 2 lines of tick text), plus room for the labels themselves
    side = min(22.0, max(4.0, 0.3 * n))
    label_in = (max(len(lab) for lab in labels) * font * 0.55 / 72 + 0.3) if show else 0.3
    fig = Figure(figsize=(side + label_in + 1.8, side + label_in + 1.2))
    ax = fig.subplots()
    im = ax.imshow(scores, vmin=vmin, vmax=vmax, cmap="magma")
    fig.colorbar(im, ax=ax, label="mean score of the pair (points)", shrink=0.8)
    if show:
        ax.set_xticks(range(n), labels, rotation=90, fontsize=font)
        ax.set_yticks(range(n), labels, fontsize=font)
    else:
        ax.set_xticks([])
        ax.set_yticks([])
    ax.set_xlabel("partner in seat 1 (same order as the rows)")
    ax.set_ylabel("agent in seat 0 (best intra-population score first)")
    head = title or "match-up scores"
    ax.set_title(
        f"{head}\n{n} agents, {table.games} games per ordered pair, mean pairwise score "
        f"{table.population_score():.2f}",
        fontsize=11,
    )
    _save(fig, path, dpi=110)

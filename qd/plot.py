"""Figures of populations (matplotlib, Agg backend).

* :func:`heatmap` — objective per archive cell through ``ribs.visualize.grid_archive_heatmap``;
* :func:`matchup_heatmap` — the mean score of every ordered pair of a match-up table.

Requires the ``qd`` extra: ``pip install "ribs[visualize]>=0.7" "matplotlib>=3.7"``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from qd.archive import Archive

__all__ = ["heatmap", "matchup_heatmap"]


def _save(fig, path: str | Path, dpi: int) -> None:
    """Write ``fig`` to ``path`` atomically (temporary file, then rename) and close it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(path).with_name(f".{Path(path).name}.tmp.png")
    fig.savefig(tmp, dpi=dpi)
    plt.close(fig)
    tmp.replace(path)


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
    labelled with its name and range; empty cells are left blank. The title gives coverage,
    best and mean objective.

    Args:
        archive: A 2-D archive.
        path: Output PNG path.
        objective: ``"objective"`` or an extra field such as ``"reeval_objective"``.
        title: Title prefix (default: the measure names).
        annotate: Print the value in each cell (default: when the grid has <= 100 cells).
        vmin: Colour scale minimum (points).
        vmax: Colour scale maximum (points).

    Raises:
        ValueError: The archive is not 2-D, or ``objective`` is unknown or NaN somewhere.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from ribs.visualize import grid_archive_heatmap

    if archive.measure_dim != 2:
        raise ValueError(f"archive has {archive.measure_dim} measure dimensions; need 2")
    ribs_archive = archive.to_ribs(objective)
    stats = archive.stats(objective)
    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    grid_archive_heatmap(
        ribs_archive, ax=ax, vmin=vmin, vmax=vmax, cbar_kwargs={"label": f"{objective} (points)"}
    )
    (lo0, hi0), (lo1, hi1) = archive.ranges
    m0, m1 = archive.measure_names
    ax.set_xlabel(f"{m0} [{lo0:g}, {hi0:g}] ({archive.dims[0]} bins)")
    ax.set_ylabel(f"{m1} [{lo1:g}, {hi1:g}] ({archive.dims[1]} bins)")
    head = title or f"{m0} × {m1}"
    ax.set_title(
        f"{head}\ncoverage {stats.num_elites}/{archive.cells}, best {stats.obj_max:.2f}, "
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
                ax.text(x, y, f"{v:.1f}", ha="center", va="center", fontsize=8, color=colour)
    _save(fig, path, dpi=120)


def matchup_heatmap(
    table,
    path: str | Path,
    title: str | None = None,
    vmin: float = 0.0,
    vmax: float = 25.0,
) -> None:
    """Save a PNG of a match-up table's mean scores (row agent seat 0, column agent seat 1).

    Agents are sorted by intra-population score ([ToG20] eq. 1), best first, so that the
    generalist is the top row; the diagonal is mirror self-play.

    Args:
        table: A :class:`qd.analysis.MatchupTable` (``n × n`` scores, points).
        path: Output PNG path.
        title: Title prefix.
        vmin: Colour scale minimum (points).
        vmax: Colour scale maximum (points).

    Raises:
        ValueError: An empty table.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    n = len(table.ids)
    if n == 0:
        raise ValueError("table has no agents")
    order = np.argsort(-table.intra_population_scores(), kind="stable")
    scores = table.scores[np.ix_(order, order)]
    labels = [table.ids[i].split(":")[-1] for i in order]
    size = min(12.0, 3.0 + 0.28 * n)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    im = ax.imshow(scores, vmin=vmin, vmax=vmax, cmap="magma")
    fig.colorbar(im, ax=ax, label="mean score (points)", shrink=0.8)
    if n <= 40:
        ax.set_xticks(range(n), labels, rotation=90, fontsize=6)
        ax.set_yticks(range(n), labels, fontsize=6)
    ax.set_xlabel("seat 1 (partner)")
    ax.set_ylabel("seat 0 (sorted by intra-population score)")
    head = title or "match-up scores"
    ax.set_title(
        f"{head}\n{n} agents, {table.games} games per pair, population score "
        f"{table.population_score():.2f}",
        fontsize=10,
    )
    _save(fig, path, dpi=110)

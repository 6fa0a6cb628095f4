"""The benchmark report's PNG figures (matplotlib without pyplot, Agg canvas; the ``qd`` extra).

Each function draws from the aggregates of :mod:`hanabi_adhoc.benchmark.aggregate` and returns
one PNG image as bytes; the report writes it into its folder
(:func:`hanabi_adhoc.benchmark.report.write_report`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["plot_adaptation", "plot_groups", "plot_niches"]


def _figure(width: float, height: float, cols: int = 1):
    from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone

    fig = Figure(figsize=(width, height))
    axes = fig.subplots(1, cols, squeeze=False)[0]
    return fig, axes


def _png(fig) -> bytes:
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def plot_niches(grid: Mapping, title: str) -> bytes:
    """Three heatmaps over the (communicativeness, IPP) cells of a population.

    The agent's score with each cell's partner, its normalised score, and the partner's own
    self-play score.

    Args:
        grid: One family of :func:`hanabi_adhoc.benchmark.aggregate.niche_grids`.
        title: Figure title.

    Returns:
        The PNG image.
    """
    d1, d2 = grid["grid"]
    fig, axes = _figure(13.5, 4.6, 3)
    panels = (
        ("score", "agent's mean score with the cell's partner", 0.0, 25.0),
        ("normalised", "normalised score min(1, R / R_BR)", 0.0, 1.0),
        ("self_play", "partner's own self-play score", 0.0, 25.0),
    )
    for ax, (key, label, lo, hi) in zip(axes, panels, strict=True):
        a = np.asarray(grid[key], dtype=np.float64)
        im = ax.imshow(
            a.T,
            origin="lower",
            vmin=lo,
            vmax=hi,
            cmap="viridis",
            extent=(0, 1, 0, 1),
            aspect="equal",
        )
        fig.colorbar(im, ax=ax, shrink=0.8)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel(f"communicativeness ({d1} bins)")
        ax.set_ylabel(f"IPP ({d2} bins)")
        if d1 * d2 <= 25:
            for i in range(d1):
                for j in range(d2):
                    if np.isfinite(a[i, j]):
                        ax.text(
                            (i + 0.5) / d1,
                            (j + 0.5) / d2,
                            f"{a[i, j]:.2g}",
                            ha="center",
                            va="center",
                            fontsize=7,
                            color="white",
                        )
    fig.suptitle(title, fontsize=10)
    return _png(fig)


def plot_adaptation(curves: Mapping[str, list], episodic: Sequence[str]) -> bytes:
    """Score by game index within an episode, per agent; and the episodic agents' change.

    The right panel removes the deals' difficulty (game i is the same deal for every agent):
    each episodic agent's curve minus the mean curve of the memoryless agents, shifted to 0 at
    game 1, so it shows what the agent's memory gains or loses over the episode.

    Args:
        curves: Agent → mean score per game index
            (:func:`hanabi_adhoc.benchmark.aggregate.pooled_curve`).
        episodic: The agents that keep state between games (drawn bold).

    Returns:
        The PNG image.
    """
    fig, (left, right) = _figure(11.0, 4.2, 2)
    others = [np.asarray(c, dtype=np.float64) for k, c in curves.items() if k not in episodic and c]
    n = min((len(c) for c in curves.values() if c), default=0)
    ref = np.mean([c[:n] for c in others], axis=0) if others else None
    for k, (label, c) in enumerate(curves.items()):
        if not c:
            continue
        m = np.asarray(c[:n], dtype=np.float64)
        x = np.arange(1, n + 1)
        bold = label in episodic
        left.plot(
            x,
            m,
            marker="o" if bold else None,
            lw=2 if bold else 0.8,
            color=f"C{k % 10}" if bold else "0.6",
            label=label if bold else None,
        )
        if bold and ref is not None:
            gain = m - ref
            right.plot(x, gain - gain[0], marker="o", lw=2, color=f"C{k % 10}", label=label)
    left.set_xlabel("game of the episode (same partner)")
    left.set_ylabel("mean score (points)")
    left.set_title("episodic agents (colour) and the others (grey)", fontsize=9)
    right.axhline(0.0, color="0.5", lw=0.8)
    right.set_xlabel("game of the episode (same partner)")
    right.set_ylabel("change since game 1 (points)")
    right.set_title("minus the memoryless agents' mean on the same deals", fontsize=9)
    for ax in (left, right):
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    return _png(fig)


def plot_groups(entries: Sequence[tuple[str, str, dict]]) -> bytes:
    """Normalised IQM with its 95% CI per group (rows) and agent (colours).

    Args:
        entries: ``(agent, group, aggregate)`` with the aggregate of
            :func:`hanabi_adhoc.benchmark.aggregate.suite_summary` for one group.

    Returns:
        The PNG image.
    """
    groups = list(dict.fromkeys(g for _, g, _ in entries))
    agents = list(dict.fromkeys(a for a, _, _ in entries))
    fig, (ax,) = _figure(10.0, 1.2 + 0.45 * len(groups) * max(1, len(agents)) ** 0.5)
    h = 0.8 / max(1, len(agents))
    import matplotlib

    cmap = matplotlib.colormaps["tab10" if len(agents) <= 10 else "tab20"]
    labelled: set[str] = set()
    for k, agent in enumerate(agents):
        for i, g in enumerate(groups):
            agg = next((a for a2, g2, a in entries if a2 == agent and g2 == g), None)
            if agg is None:
                continue
            v = agg["normalised_iqm"]
            if v["value"] is None or not np.isfinite(v["value"]):
                continue
            y = i + (k - (len(agents) - 1) / 2) * h
            label = None if agent in labelled else agent
            labelled.add(agent)
            ax.barh(y, v["value"], height=h * 0.9, color=cmap(k % cmap.N), label=label)
            ax.plot([v["low"], v["high"]], [y, y], color="black", lw=1)
    ax.set_yticks(range(len(groups)), groups, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("IQM of the normalised score (95% CI, stratified bootstrap)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(fig)

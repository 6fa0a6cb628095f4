"""Learning-curve figures of BAD (matplotlib's object API, no pyplot: the caller's backend stays).

Requires matplotlib (the ``qd`` extra: ``pip install "matplotlib>=3.7"``).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from agents.bad._io import write_bytes
from hanabi_env import stats

__all__ = ["learning_curves"]


def learning_curves(
    path: str | Path,
    curves: Mapping[str, tuple[np.ndarray, np.ndarray]],
    xlabel: str,
    ylabel: str,
    title: str,
    hlines: Mapping[str, float] | None = None,
    dpi: int = 130,
) -> None:
    """Mean ± s.e.m. curves over runs, one line and shaded band per label, written as a PNG.

    Args:
        path: The PNG to write (atomically).
        curves: ``{label: (x, y)}`` with ``x`` ``(points,)`` and ``y`` ``(runs, points)``.
        xlabel: Words for the x axis (with units).
        ylabel: Words for the y axis (with units).
        title: The title.
        hlines: ``{label: y}`` reference levels drawn as dashed lines.
        dpi: Resolution.
    """
    from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone

    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    for label, (x, y) in curves.items():
        y = np.asarray(y, dtype=np.float64)
        mean = y.mean(axis=0)
        sem = stats.sem(y, axis=0) if y.shape[0] > 1 else np.zeros_like(mean)
        (line,) = ax.plot(x, mean, label=label, lw=1.6)
        ax.fill_between(x, mean - sem, mean + sem, color=line.get_color(), alpha=0.25, lw=0)
    for k, (label, level) in enumerate((hlines or {}).items()):
        ax.axhline(level, ls="--", lw=1.0, color=f"{0.25 + 0.3 * k:.2f}", label=label)
    if hlines:
        ax.set_ylim(top=max(ax.get_ylim()[1], max(hlines.values()) + 0.02 * np.ptp(ax.get_ylim())))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    write_bytes(path, buf.getvalue())

"""Figures of meta-agent evaluations (matplotlib, Agg backend; PNG).

* :func:`plot_belief_evolution` — the Bayesian agent's belief over H at each game of one
  episode with one partner ([Bayes21], docs/papers.md §4.2), with the response it played;
* :func:`plot_belief_grid` — the same beliefs drawn on the MAP-Elites grid, one panel per game;
* :func:`plot_variant_scores` — mean ± s.e.m. of the episode scores per variant, for one or
  several (H, E) pool pairs ([Bayes21] Table IV as bars);
* :func:`plot_niche_estimates` — where the partners' behaviour was observed while the
  meta-agent played, against their self-play behaviour ([ToG20]'s niche-estimate error,
  docs/papers.md §4.1).

Hypotheses, responses and partners whose ids end with a grid cell (``"run0:[1,3]"``) are named
by their niche's bin ranges (:func:`qd.plot.cell_label`: ``"C 0.2–0.4 / IPP 0.6–0.8"``, or
``"c.2–.4 i.6–.8"`` where space is tight).

Requires matplotlib (the ``qd`` extra). Every function writes the file atomically and returns
its path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from hanabi_env.outputs import atomic_path
from meta.evaluate import MetaEvaluation
from meta.response import parse_cell_id

__all__ = [
    "plot_belief_evolution",
    "plot_belief_grid",
    "plot_niche_estimates",
    "plot_variant_scores",
]


class _NoPyplot:
    """The few pyplot calls this module makes, without pyplot's global state.

    Figures are plain :class:`matplotlib.figure.Figure` objects saved by their own canvas, so
    plotting never switches the caller's backend (e.g. a notebook's inline backend).
    """

    @staticmethod
    def subplots(*args, figsize=None, **kwargs):
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize)
        return fig, fig.subplots(*args, **kwargs)

    @staticmethod
    def Rectangle(*args, **kwargs):
        from matplotlib.patches import Rectangle

        return Rectangle(*args, **kwargs)

    @staticmethod
    def get_cmap(name: str):
        import matplotlib

        return matplotlib.colormaps[name]

    @staticmethod
    def close(fig) -> None:
        """Nothing to release: the figure is not registered with pyplot."""


def _plt() -> type[_NoPyplot]:
    return _NoPyplot


def _save(fig, path: str | Path, dpi: int = 120) -> Path:
    plt = _plt()
    path = Path(path)
    try:
        with atomic_path(path) as tmp:  # a unique temporary file, then the rename
            fig.savefig(tmp, dpi=dpi)
    finally:
        plt.close(fig)
    return path


def _partner_index(ev: MetaEvaluation, partner: int | str) -> int:
    if isinstance(partner, str):
        if partner not in ev.partner_ids:
            raise ValueError(f"partner={partner!r} is not allowed; allowed: {ev.partner_ids}")
        return ev.partner_ids.index(partner)
    e = int(partner)
    if not 0 <= e < len(ev.partner_ids):
        raise ValueError(f"partner={partner} is out of range; allowed: [0, {len(ev.partner_ids)})")
    return e


def _labels(ids: Sequence[str], dims: Sequence[int], compact: bool = False) -> list[str]:
    """Niche names of cell ids (:func:`qd.plot.cell_label`); other ids unchanged but shortened."""
    from qd.plot import cell_label

    short = _short(ids)
    return [
        s if (lab := cell_label(i, dims, compact=compact)) == i else lab
        for i, s in zip(ids, short, strict=True)
    ]


def _short(ids: Sequence[str]) -> list[str]:
    """Ids without a common prefix in front of their cell (``"runA[1,3]"`` → ``"[1,3]"``)."""
    heads = {i[: i.rfind("[")] for i in ids if "[" in i}
    if len(heads) == 1 and all("[" in i for i in ids):
        return [i[i.rfind("[") :] for i in ids]
    return list(ids)


def _belief_variant(ev: MetaEvaluation, variant: str) -> np.ndarray:
    if variant not in ev.beliefs or np.all(np.isnan(ev.beliefs[variant])):
        have = [v for v in ev.variants if not np.all(np.isnan(ev.beliefs.get(v, np.nan)))]
        raise ValueError(f"variant={variant!r} has no beliefs; allowed: {have}")
    return ev.beliefs[variant]


def plot_belief_evolution(
    evaluation: MetaEvaluation,
    path: str | Path,
    partner: int | str = 0,
    variant: str = "adaptive",
    title: str | None = None,
) -> Path:
    """Belief over H per game of the first episode with one partner ([Bayes21]).

    Top panel: a heatmap, hypotheses (rows) × games (columns), of the belief in force during
    each game (:attr:`MetaEvaluation.beliefs`; the update of game i happens at its start). The
    partner's own hypothesis, when it is in H, is outlined, and each column is labelled with
    the response played and the score. Bottom panel: the belief of the true hypothesis and the
    largest belief, per game.

    Args:
        evaluation: An evaluation holding ``variant``.
        path: Output PNG path.
        partner: Partner index in E or partner id.
        variant: A Bayesian variant with beliefs (``adaptive``, ``generalist``, ``oracle``,
            ``random``).
        title: Title prefix.

    Returns:
        ``Path(path)``.

    Raises:
        ValueError: Unknown partner, or a variant without beliefs.
    """
    plt = _plt()
    ev = evaluation
    e = _partner_index(ev, partner)
    b = _belief_variant(ev, variant)[e]  # (g, nH)
    g, nh = b.shape
    pid = ev.partner_ids[e]
    true = ev.hypothesis_ids.index(pid) if pid in ev.hypothesis_ids else None
    resp = ev.responses[variant][e, 0]
    score = ev.scores[variant][e, 0]
    dims = ev.niche_dims
    h_labels = _labels(ev.hypothesis_ids, dims)
    p_label = _labels([pid], dims)[0]
    show = nh <= 60
    font = 9.0 if nh <= 12 else 8.0 if nh <= 30 else 7.0
    label_in = max(len(h) for h in h_labels) * font * 0.55 / 72 if show else 0.0
    top_in = max(3.0, 0.26 * nh)
    fig, (ax, ax2) = plt.subplots(
        2,
        1,
        figsize=(max(6.5, 2.5 + label_in + 1.1 * g), top_in + 3.2),
        gridspec_kw={"height_ratios": [top_in, 1.8]},
        sharex=True,
    )
    im = ax.imshow(b.T, aspect="auto", cmap="viridis", vmin=0.0, vmax=1.0, origin="lower")
    fig.colorbar(im, ax=ax, label="belief in h (0–1)", shrink=0.9)
    # the same (hidden) colorbar space beside the line plot: its games sit under the columns
    fig.colorbar(im, ax=ax2, shrink=0.9).ax.set_visible(False)
    if show:
        ax.set_yticks(range(nh), h_labels, fontsize=font)
    ax.set_ylabel("hypothesis h ∈ H (elite's niche)")
    if true is not None:
        ax.add_patch(
            plt.Rectangle((-0.5, true - 0.5), g, 1, fill=False, edgecolor="red", linewidth=1.5)
        )
    r_labels = _labels(ev.response_ids, dims, compact=True)
    for j in range(g):
        ax.text(
            j,
            nh - 0.5,
            f"{r_labels[int(resp[j])]}\n{int(score[j])} pts",
            ha="center",
            va="bottom",
            fontsize=8,
            clip_on=False,
        )
    _belief_lines(ax2, b, true, p_label)
    head = title or "belief evolution"
    ax.set_title(f"{head}\n{variant} meta-agent, partner {p_label}, episode 0\n\n\n", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def _belief_lines(ax2, b: np.ndarray, true: int | None, p_label: str) -> None:
    """The bottom panel of :func:`plot_belief_evolution`: true and largest belief per game.

    Args:
        ax2: The panel's matplotlib ``Axes``.
        b: ``(g, n_H)`` beliefs in force during each game of the episode.
        true: The partner's own hypothesis (a column of ``b``), or None when it is not in H.
        p_label: The partner's label.
    """
    g = b.shape[0]
    if true is not None:
        ax2.plot(range(g), b[:, true], "o-", color="red", label=f"true h: {p_label}")
    ax2.plot(range(g), b.max(axis=1), "s--", color="gray", label="max belief")
    ax2.set_ylim(-0.02, 1.02)
    ax2.set_xlabel("game of the episode (above the heatmap: response played, score)")
    ax2.set_ylabel("belief")
    ax2.set_xticks(range(g))
    ax2.legend(fontsize=8, loc="upper left")


def plot_belief_grid(
    evaluation: MetaEvaluation,
    path: str | Path,
    partner: int | str = 0,
    variant: str = "adaptive",
    hypothesis_cells: Sequence[Sequence[int]] | None = None,
    dims: Sequence[int] | None = None,
    title: str | None = None,
) -> Path:
    """The belief of each game of the first episode drawn on the MAP-Elites grid.

    One panel per game: the belief mass of each hypothesis in its niche (communicativeness
    bin on the x axis, IPP bin on the y axis, like :func:`qd.plot.heatmap`); the partner's own
    niche, when known, is outlined.

    Args:
        evaluation: An evaluation holding ``variant``.
        path: Output PNG path.
        partner: Partner index in E or partner id.
        variant: A Bayesian variant with beliefs.
        hypothesis_cells: ``nH`` niches ``(i, j)`` (default: parsed from the hypothesis ids).
        dims: Grid ``(d1, d2)`` (default: :attr:`MetaEvaluation.niche_dims`).
        title: Title prefix.

    Returns:
        ``Path(path)``.

    Raises:
        ValueError: Unknown partner, a variant without beliefs, or ids that are not cells.
    """
    plt = _plt()
    ev = evaluation
    e = _partner_index(ev, partner)
    b = _belief_variant(ev, variant)[e]
    g = b.shape[0]
    cells = hypothesis_cells or [parse_cell_id(h) for h in ev.hypothesis_ids]
    d1, d2 = (int(d) for d in (dims or ev.niche_dims))
    try:
        own = parse_cell_id(ev.partner_ids[e])
    except ValueError:
        own = None
    cols = min(g, 5)
    rows = -(-g // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.2 * cols + 1.0, 2.2 * rows + 0.6))
    axes = np.atleast_1d(axes).ravel()
    im = None
    for j in range(len(axes)):
        ax = axes[j]
        if j >= g:
            ax.axis("off")
            continue
        grid = np.zeros((d1, d2))
        for h, c in enumerate(cells):
            grid[c[0], c[1]] += b[j, h]
        im = ax.imshow(grid.T, origin="lower", cmap="viridis", vmin=0.0, vmax=1.0)
        if own is not None and len(own) == 2:
            ax.add_patch(
                plt.Rectangle(
                    (own[0] - 0.5, own[1] - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=1.5
                )
            )
        r = _labels(ev.response_ids, (d1, d2), compact=True)[int(ev.responses[variant][e, 0, j])]
        ax.set_title(f"game {j}: {r}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
        if j % cols == 0:
            ax.set_ylabel("IPP →", fontsize=7)
        if j >= g - cols:
            ax.set_xlabel("communicativeness →", fontsize=7)
    if im is not None:
        fig.colorbar(im, ax=axes.tolist(), label="belief mass", shrink=0.8)
    head = title or "belief on the grid"
    p_label = _labels([ev.partner_ids[e]], (d1, d2))[0]
    fig.suptitle(f"{head}: {variant}, partner {p_label} (red), episode 0", fontsize=9)
    return _save(fig, path)


def plot_variant_scores(
    results: MetaEvaluation | Mapping[str, MetaEvaluation],
    path: str | Path,
    variants: Sequence[str] | None = None,
    title: str | None = None,
) -> Path:
    """Bar chart of the mean ± s.e.m. episode score per variant ([Bayes21] Table IV).

    Args:
        results: One evaluation, or label (e.g. ``"H=A, E=B"``) → evaluation for grouped bars.
        path: Output PNG path.
        variants: Variants to show, in order (default: every variant of the first evaluation;
            missing ones are skipped per group).
        title: Figure title.

    Returns:
        ``Path(path)``.

    Raises:
        ValueError: No evaluations.
    """
    plt = _plt()
    groups = {"": results} if isinstance(results, MetaEvaluation) else dict(results)
    if not groups:
        raise ValueError("results holds no evaluation")
    first = next(iter(groups.values()))
    variants = list(variants or first.variants)
    width = 0.8 / max(1, len(variants))
    width_in = min(16.0, max(5.0, 1.5 + 0.35 * len(groups) * len(variants)))
    fig, ax = plt.subplots(figsize=(width_in, 4.5))
    cmap = plt.get_cmap("tab10")
    for k, v in enumerate(variants):
        xs, ms, ss = [], [], []
        for gi, ev in enumerate(groups.values()):
            if v in ev.scores:
                s = ev.summary()[v]
                xs.append(gi + (k - (len(variants) - 1) / 2) * width)
                ms.append(s["mean"])
                ss.append(0.0 if np.isnan(s["sem"]) else s["sem"])
        ax.bar(xs, ms, width, yerr=ss, capsize=3, label=v, color=cmap(k % 10))
        for x, m, se in zip(xs, ms, ss, strict=True):
            ax.text(x, m + se + 0.2, f"{m:.1f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(groups)), list(groups), fontsize=9)
    ax.set_ylabel("mean episode score (points) ± s.e.m.")
    ax.set_ylim(0, 25)
    ax.legend(fontsize=8, ncol=2, loc="upper right")
    ax.set_title(title or "meta-agent variants", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def plot_niche_estimates(
    evaluation: MetaEvaluation,
    path: str | Path,
    variant: str = "generalist",
    self_play: np.ndarray | None = None,
    title: str | None = None,
) -> Path:
    """Observed vs self-play behaviour of each partner ([ToG20]'s niche-estimate error).

    For each partner an arrow goes from its self-play (communicativeness, IPP) to the
    behaviour observed while ``variant`` played (pooled over responses); grid lines show the
    niches of :attr:`MetaEvaluation.niche_dims`. The title gives the MAE of
    :meth:`MetaEvaluation.niche_mae`.

    Args:
        evaluation: An evaluation holding ``variant``.
        path: Output PNG path.
        variant: Any evaluated variant.
        self_play: ``(nE, 2)`` reference (default: :attr:`MetaEvaluation.self_play`).
        title: Title prefix.

    Returns:
        ``Path(path)``.

    Raises:
        ValueError: No self-play reference, or ``variant`` not evaluated.
    """
    plt = _plt()
    ev = evaluation
    ref = ev.self_play if self_play is None else np.asarray(self_play, dtype=np.float64)
    if ref is None:
        raise ValueError("self_play is needed (pass it or set evaluation.self_play)")
    if variant not in ev.partner_counters:
        raise ValueError(f"variant={variant!r} is not allowed; allowed: {ev.variants}")
    obs = ev.observed_measures(variant, by_response=False)
    mae = ev.niche_mae(ref)[variant]
    fig, ax = plt.subplots(figsize=(5.2, 5.4))
    d1, d2 = ev.niche_dims
    for x in np.linspace(0, 1, d1 + 1):
        ax.axvline(x, color="0.85", linewidth=0.8)
    for y in np.linspace(0, 1, d2 + 1):
        ax.axhline(y, color="0.85", linewidth=0.8)
    ax.scatter(ref[:, 0], ref[:, 1], s=18, color="black", label="partner in self-play", zorder=3)
    ax.scatter(
        obs[:, 0], obs[:, 1], s=18, color="tab:orange", label=f"partner with {variant}", zorder=3
    )
    for (x0, y0), (x1, y1) in zip(ref, obs, strict=True):
        if np.all(np.isfinite([x0, y0, x1, y1])):
            ax.annotate(
                "",
                (x1, y1),
                (x0, y0),
                arrowprops={"arrowstyle": "->", "color": "tab:orange", "alpha": 0.6},
            )
    pad = 0.03  # a margin, so that points at 0 or 1 are drawn whole inside the frame
    ax.set_xlim(-pad, 1 + pad)
    ax.set_ylim(-pad, 1 + pad)
    ax.set_xlabel("communicativeness")
    ax.set_ylabel("IPP (information per play)")
    # below the frame, where it hides no partner
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    head = title or "niche estimates"
    ax.set_title(
        f"{head}\nmean absolute error: communicativeness {mae['comm']:.3f}, IPP {mae['ipp']:.3f}"
        f"\n(over {mae['n_pairs']} partner × response pairs)",
        fontsize=9,
    )
    fig.tight_layout()
    return _save(fig, path)

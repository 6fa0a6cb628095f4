"""Readable figures for the report: niche names, tick labels, words instead of field names.

The figures are drawn for real (Agg) and their text is read back from the matplotlib figure
before it is saved; no game is played here (the pipeline's report is tested in
tests/hanabi_adhoc/test_pipeline.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from qd.plot import cell_label

NICHE = re.compile(r"C \d\.\d+–\d\.\d+ / IPP \d\.\d+–\d\.\d+")
INTERNAL = ("reeval_", "_objective", "objective", "population_score", "intra_population", "ipp [")


def test_cell_label_names_the_bin_ranges():
    assert cell_label((1, 3), (5, 5)) == "C 0.2–0.4 / IPP 0.6–0.8"
    assert cell_label("run0:[1,3]", (5, 5)) == "C 0.2–0.4 / IPP 0.6–0.8"
    assert cell_label("[1, 3]", (5, 5), compact=True) == "c.2–.4 i.6–.8"
    assert cell_label("[0,4]", (5, 5)) == "C 0.0–0.2 / IPP 0.8–1.0"
    assert cell_label("[0,4]", (5, 5), compact=True) == "c0–.2 i.8–1"
    assert cell_label((1, 19), (20, 20)) == "C 0.05–0.1 / IPP 0.95–1.0"
    assert cell_label((2, 0), (5, 5), measures=("communicativeness", "risk_aversion")) == (
        "C 0.4–0.6 / RA 0.0–0.2"
    )
    assert cell_label((1, 1), (2, 2), ranges=[(0, 10), (-1, 1)]) == "C 5.0–10.0 / IPP 0.0–1.0"
    # not a cell of this grid: unchanged
    assert cell_label("generalist", (5, 5)) == "generalist"
    assert cell_label("[5,0]", (5, 5)) == "[5,0]"
    assert cell_label("[1,2,3]", (5, 5)) == "[1,2,3]"


@pytest.fixture
def captured(monkeypatch):
    """Figures passed to the modules' ``_save``: every text on them, and the figure size."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import meta.plot
    import qd.plot

    figures = []

    def grab(fig):
        texts = list(fig.texts)  # suptitle included
        for ax in fig.axes:
            texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
            texts += ax.get_xticklabels() + ax.get_yticklabels()
        figures.append(
            {
                "texts": [t for t in texts if t.get_text()],
                "size": tuple(fig.get_size_inches()),
                "axes": fig.axes,
            }
        )

    real_qd, real_meta = qd.plot._save, meta.plot._save

    def save_qd(fig, path, dpi):
        grab(fig)
        real_qd(fig, path, dpi)

    def save_meta(fig, path, dpi=120):
        grab(fig)
        return real_meta(fig, path, dpi)

    monkeypatch.setattr(qd.plot, "_save", save_qd)
    monkeypatch.setattr(meta.plot, "_save", save_meta)
    return figures


def _all_text(fig) -> str:
    return "\n".join(t.get_text() for t in fig["texts"])


def _table(n: int):
    from qd.analysis import MatchupTable

    rng = np.random.default_rng(0)
    cells = (
        [(i % 5, i // 5) for i in range(n)] if n <= 25 else [(i % 20, i // 20) for i in range(n)]
    )
    ids = [f"run0:[{a},{b}]" for a, b in cells]
    return MatchupTable(
        ids,
        np.zeros((0, 0), np.int64),
        10,
        rng.uniform(0, 25, (n, n)),
        np.zeros((n, n)),
        np.zeros((n, n, 2)),
        np.zeros((n, n, 2)),
        np.zeros((n, n, 2)),
    )


def test_matchup_heatmap_names_elites_by_niche_and_scales(tmp_path, captured):
    from qd.plot import matchup_heatmap

    small, large = _table(6), _table(25)
    matchup_heatmap(small, tmp_path / "s.png", title="run0", dims=(5, 5))
    matchup_heatmap(large, tmp_path / "l.png", title="run0", dims=(5, 5))
    matchup_heatmap(_table(100), tmp_path / "h.png", dims=(20, 20))
    (s, lg, huge) = captured
    for fig, table in ((s, small), (lg, large)):
        n = len(table.ids)
        ax = fig["axes"][0]
        ticks = [t for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
        assert len(ticks) == 2 * n
        for t in ticks:
            assert NICHE.fullmatch(t.get_text()), t.get_text()
            assert t.get_fontsize() >= 7.0
        # the Generalist (best intra-population score) labels the first row
        best = table.ids[table.generalist()]
        assert ax.get_yticklabels()[0].get_text() == cell_label(best, (5, 5))
        text = _all_text(fig)
        assert "mean pairwise score" in text
        assert not re.search(r"(?<!intra-)population score", text)
        for name in INTERNAL:
            assert name not in text
    # the figure grows with the number of elites: at least ~0.25 in per row of the heatmap
    assert lg["size"][1] > s["size"][1]
    assert lg["size"][1] >= 0.25 * 25
    # beyond max_labels, no unreadable tick labels at all
    assert not [t for t in huge["axes"][0].get_xticklabels() if t.get_text()]
    assert "100 agents" in _all_text(huge)


def test_archive_heatmap_uses_words(tmp_path, captured):
    pytest.importorskip("ribs")
    from qd.archive import Archive
    from qd.plot import heatmap

    rng = np.random.default_rng(1)
    a = Archive((5, 5))
    a.add_field("reeval_objective")
    for cell in rng.choice(25, 10, replace=False):
        centre = a.cell_centers(np.array([cell]))[0]
        a.insert(int(cell), rng.integers(0, 105, 15), float(rng.uniform(0, 25)), centre)
    a.fields["reeval_objective"][a.occupied] = 12.5
    heatmap(a, tmp_path / "a.png", "reeval_objective", title="run0")
    text = _all_text(captured[0])
    assert "re-evaluated self-play score (points)" in text
    assert "IPP (information per play)" in text
    for name in INTERNAL:
        assert name not in text


def _evaluation():
    from meta.evaluate import MetaEvaluation

    ids = [f"run0:[{a},{b}]" for a, b in ((0, 0), (1, 3), (2, 4), (4, 4))]
    n, g = len(ids), 4
    rng = np.random.default_rng(2)
    b = rng.dirichlet(np.ones(n), size=(n, g))
    return MetaEvaluation(
        variants=["adaptive"],
        partner_ids=ids,
        hypothesis_ids=ids,
        response_ids=ids,
        episodes=1,
        games=g,
        seed=0,
        scores={"adaptive": rng.integers(0, 25, (n, 1, g))},
        responses={"adaptive": rng.integers(0, n, (n, 1, g))},
        beliefs={"adaptive": b},
        partner_counters={"adaptive": np.ones((n, n, 4), np.int64)},
    )


def test_belief_figures_name_niches(tmp_path, captured):
    from meta.plot import plot_belief_evolution, plot_belief_grid

    ev = _evaluation()
    plot_belief_evolution(ev, tmp_path / "b.png", partner="run0:[1,3]", title="run0")
    plot_belief_grid(ev, tmp_path / "g.png", partner=1)
    evolution, grid = captured
    ax = evolution["axes"][0]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    assert rows == [cell_label(i, (5, 5)) for i in ev.hypothesis_ids]
    assert all(t.get_fontsize() >= 7.0 for t in ax.get_yticklabels())
    text = _all_text(evolution)
    assert "partner C 0.2–0.4 / IPP 0.6–0.8" in text
    # responses above the columns in the compact form, explained in the report's caption
    assert re.search(r"c[.\d]+–[.\d]+ i[.\d]+–[.\d]+\n\d+ pts", text)
    assert "[1,3]" not in text
    assert "[1,3]" not in _all_text(grid)
    assert "C 0.2–0.4 / IPP 0.6–0.8" in _all_text(grid)

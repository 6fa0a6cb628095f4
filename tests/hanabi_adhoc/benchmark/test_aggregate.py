"""Aggregates of the benchmark, computed from the flat table alone."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import trim_mean

from hanabi_adhoc.benchmark import aggregate as A
from hanabi_adhoc.benchmark.protocol import plan, play_unit
from hanabi_adhoc.benchmark.results import Results
from hanabi_adhoc.benchmark.suites import load_suite
from hanabi_env.stats import sem
from tests.hanabi_adhoc.benchmark.helpers import tiny_suite


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    suite = load_suite(tiny_suite(tmp_path_factory.mktemp("s") / "tiny.json"))
    from agents import make

    agent = make("Flawed", seed=2)
    res = Results.concat([play_unit(agent, u) for u in plan(suite.groups, [2, 3])])
    return suite, res


def test_normalised_is_capped_at_one_and_undefined_without_a_best_response():
    assert A.normalised(9.0, 18.0) == 0.5
    assert A.normalised(20.0, 18.0) == 1.0
    assert math.isnan(A.normalised(5.0, None))
    assert math.isnan(A.normalised(5.0, 0.0))


def test_iqm_is_the_25_percent_trimmed_mean():
    x = np.array([0.0, 1, 2, 3, 4, 5, 6, 100])
    assert A.iqm(x) == pytest.approx(trim_mean(x, 0.25))
    assert A.iqm(x) == pytest.approx(np.mean([2, 3, 4, 5]))


def test_bootstrap_is_stratified():
    # two strata of constant values: resampling within strata keeps the mean at exactly 0.5,
    # a pooled bootstrap would not
    v, lo, hi = A.bootstrap_ci([np.zeros(6), np.ones(6)])
    assert (v, lo, hi) == (0.5, 0.5, 0.5)
    rng = np.random.default_rng(0)
    strata = [rng.normal(0.3, 0.1, 20), rng.normal(0.8, 0.1, 30)]
    v, lo, hi = A.bootstrap_ci(strata, "iqm", seed=1)
    assert lo < v < hi
    assert A.bootstrap_ci(strata, "iqm", seed=1) == (v, lo, hi)  # seeded
    assert math.isnan(A.bootstrap_ci([np.array([np.nan])])[0])


def test_partner_rows_are_the_tables_means(played):
    suite, res = played
    groups = {g.name: g for g in suite.groups}
    rows = A.partner_rows(res, groups)
    d = res.data
    for r in rows:
        g = res.groups.index(r["group"])
        e = [p.id for p in groups[r["group"]].partners].index(r["partner"])
        m = (d["group"] == g) & (d["partner"] == e) & (d["players"] == r["players"])
        if r["seat"] != "all":
            m &= d["seat"] == r["seat"]
        assert r["games"] == m.sum() > 0
        assert r["mean_score"] == pytest.approx(d["score"][m].mean())
        assert r["sem"] == pytest.approx(sem(d["score"][m]))
        br = groups[r["group"]].partners[e].br[r["players"]]
        assert r["normalised"] == pytest.approx(min(1.0, r["mean_score"] / br))
    assert {r["seat"] for r in rows} == {0, 1, 2, "all"}
    no_br = A.partner_rows(res, groups, rulebook_hands=False)
    assert all(math.isnan(r["normalised"]) for r in no_br)


def test_summary_strata_and_units(played):
    suite, res = played
    rows = A.partner_rows(res, {g.name: g for g in suite.groups})
    s = A.suite_summary(rows, suite)
    # tiny-pool: 2 partners at 2 and 3 players; tiny-pop: 3 partners at 2 players
    assert s["all"]["units"] == 7
    assert s["groups"]["tiny-pool"]["units"] == 4
    assert set(s["players"]) == {"2", "3"}
    allrows = [r for r in rows if r["seat"] == "all"]
    assert s["all"]["score_mean"]["value"] == pytest.approx(
        np.mean([r["mean_score"] for r in allrows])
    )


def test_niches_behaviour_and_adaptation(played):
    suite, res = played
    groups = {g.name: g for g in suite.groups}
    rows = A.partner_rows(res, groups)
    grids = A.niche_grids(rows, groups)
    assert list(grids) == ["tiny-pop"]
    g = grids["tiny-pop"]
    assert np.isfinite(g["score"]).sum() == 3
    assert np.isfinite(g["score"][2, 3])
    assert g["self_play"][4, 4] == 10.0
    weak = A.weakest_cells(g, k=2)
    assert len(weak) == 2
    assert weak[0][2] <= weak[1][2]
    b = A.behaviour(res)
    assert set(b["self_play"]) == {"2", "3"}
    assert b["cell"]["5x5"] == list(
        A.cell_of(b["self_play"]["2"]["communicativeness"], b["self_play"]["2"]["ipp"], (5, 5))
    )
    curves = A.adaptation(res)
    curve = curves["tiny-pop-run1/2"]
    assert len(curve["mean"]) == 3  # games per episode
    assert curve["episodes"] == 2 * 3 * 2  # episodes x partners x seats
    pool = curves["tiny-pool/2"]
    w = np.array([curve["episodes"], pool["episodes"]])
    both = (w[0] * np.array(curve["mean"]) + w[1] * np.array(pool["mean"])) / w.sum()
    assert A.pooled_curve(curves) == pytest.approx(both)
    assert A.pooled_curve(curves, players=5) == []


def test_a_saved_table_reloads_unchanged(played):
    _, res = played
    back = Results.from_bytes(res.to_bytes())
    assert back.groups == res.groups
    for k, v in res.data.items():
        assert np.array_equal(back.data[k], v), k
    with pytest.raises(ValueError, match="not a benchmark results table"):
        Results.from_bytes(b"not a table")

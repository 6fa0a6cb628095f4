"""qd: re-evaluation, match-up tables, cross-run metrics, backends."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.evaluate import evaluate
from agents.policy import RuleAgent
from qd import MatchupTable, action_agreement, archive_matchups, cross_run_metrics, reevaluate
from qd.analysis import MATCHUP_COLUMNS, matchup_table
from qd.archive import Archive
from qd.evaluator import SerialBackend, derive_seed, evaluate_solutions
from qd.io import load_population

NYU = [67, 103, 7, 35, 101, 52, 77, 53, 16, 28, 23, 27, 37, 43, 101]


def _archive(n: int = 4, seed: int = 0) -> Archive:
    rng = np.random.default_rng(seed)
    a = Archive((3, 3))
    for k, cell in enumerate(rng.choice(9, n, replace=False)):
        sol = NYU if k == 0 else rng.choice(105, 15, replace=False)
        a.insert(int(cell), sol, 1.0, a.cell_centers(np.array([cell]))[0])
    return a


def test_evaluator_matches_agents_evaluate_mirror():
    ev = evaluate_solutions([NYU], [5], games=8, players=(2, 3))
    ref = evaluate(RuleAgent(NYU), "mirror", (2, 3), 8, seed=5, workers=1)
    assert ev.objective[0] == pytest.approx(ref.mean, abs=1e-12)
    got = ev.counters[0]
    from hanabi_env import engine as E

    comm = got[E.C_HINTS_GIVEN] / got[E.C_HINT_OPPORTUNITIES]
    assert comm == pytest.approx(ref.metrics["communicativeness"])


def test_derive_seed_is_stable_and_in_range():
    assert derive_seed(1, 2, 3) == derive_seed(1, 2, 3)
    assert derive_seed(1, 2, 3) != derive_seed(1, 2, 4)
    assert 0 <= derive_seed(2**40, 7) < 2**62


def test_reevaluate_adds_fields_on_common_deals():
    a = _archive()
    reevaluate(a, games=6, seed=1)
    cells = a.occupied_cells()
    for name in ("reeval_objective", "reeval_sem", "reeval_communicativeness", "reeval_ipp"):
        assert np.isfinite(a.fields[name][cells]).all(), name
    ev = evaluate_solutions(a.solution[cells[:1]], [derive_seed(1, 2)], 6)
    assert a.fields["reeval_objective"][cells[0]] == ev.objective[0]
    assert a.stats("reeval_objective").num_elites == 4


def test_matchup_table_shape_csv_and_intra_population(tmp_path):
    a = _archive(3)
    t = archive_matchups(a, games=4, seed=2)
    n = 3
    assert t.scores.shape == (n, n)
    assert t.ipp.shape == (n, n, 2)
    assert t.ids == [a.cell_name(int(c)) for c in a.occupied_cells()]
    rows = t.rows()
    assert len(rows) == n * n
    assert set(rows[0]) == set(MATCHUP_COLUMNS)
    # the diagonal is mirror self-play on the same deals for every pair
    _, _, _ = t.self_play(), t.population_score(), t.generalist()
    intra = t.intra_population_scores()
    i = 1
    expected = (t.scores[i].sum() + t.scores[:, i].sum() - t.scores[i, i]) / (2 * n - 1)
    assert intra[i] == pytest.approx(expected)
    t.to_csv(tmp_path / "m.csv")
    back = MatchupTable.from_csv(tmp_path / "m.csv")
    assert back.ids == t.ids
    assert np.allclose(back.scores, t.scores)
    assert np.allclose(back.communicativeness, t.communicativeness, equal_nan=True)


def test_matchup_pairs_share_deals_and_blocks_do_not_matter():
    rng = np.random.default_rng(4)
    sols = rng.choice(105, (3, 15))
    one = matchup_table(sols, games=3, seed=1)
    split = matchup_table(sols, games=3, seed=1, max_games_per_call=4)
    assert np.array_equal(one.scores, split.scores)
    assert np.array_equal(one.ipp, split.ipp, equal_nan=True)
    with pytest.raises(ValueError, match="games"):
        matchup_table(sols, games=0)


def test_action_agreement_of_an_agent_with_itself_is_one():
    same = action_agreement(NYU, NYU, games=2, seed=0)
    assert same["fraction"] == 1.0
    assert same["states"] > 40
    assert 2 <= same["mean_legal"] <= 25
    other = action_agreement(NYU, list(range(15)), games=2, seed=0)
    assert 0.0 <= other["fraction"] < 1.0


def test_cross_run_metrics_self_comparison():
    a = _archive(3)
    rows, summary = cross_run_metrics(a, a.copy(), games=4, seed=0, action_games=1)
    assert summary["cells"] == 3
    assert len(rows) == 3
    assert summary["hamming"] == 0
    assert summary["same_action"] == 1.0
    assert all(r["self_a"] == r["self_b"] for r in rows)
    b = _archive(3, seed=1)
    rows, summary = cross_run_metrics(a, b, games=2, seed=0, action_games=0)
    assert summary["cells"] == len(rows)
    assert all(math.isnan(r["same_action"]) for r in rows)


def test_published_population_reevaluates_into_the_same_archive_type():
    a = load_population("5x5")
    reevaluate(a, games=2, seed=0)
    assert a.stats("reeval_objective").num_elites == 22


def test_dask_backend_matches_serial():
    distributed = pytest.importorskip("dask.distributed")
    from qd.evaluator import DaskBackend

    sols = np.random.default_rng(5).choice(105, (3, 15))
    ref = evaluate_solutions(sols, [1, 2, 3], games=4, backend=SerialBackend())
    with DaskBackend(workers=1, min_chunk=3) as backend:  # its own LocalCluster
        got = evaluate_solutions(sols, [1, 2, 3], games=4, backend=backend)
    assert np.array_equal(ref.scores, got.scores)
    assert np.array_equal(ref.counters, got.counters)
    # an existing cluster, reached by its address
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as c,
        DaskBackend(scheduler_address=c.scheduler_address, min_chunk=3) as backend,
    ):
        assert backend.workers == 2
        got = evaluate_solutions(sols, [1, 2, 3], games=4, backend=backend)
    assert np.array_equal(ref.counters, got.counters)


def test_cli_population(tmp_path, capsys):
    pytest.importorskip("ribs")
    import json

    from hanabi_adhoc.cli import main

    args = ["population", "5x5", "--reeval", "2", "--matchups", "1", "--workers", "1"]
    assert main([*args, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "published" in out
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["reeval_stats"]["num_elites"] == 22
    assert len((tmp_path / "matchups.csv").read_text().splitlines()) == 1 + 22 * 22
    assert (tmp_path / "heatmap.png").exists()
    compare = ["population", str(tmp_path / "archive.json"), "--compare", "5x5"]
    compare += ["--cross-games", "1", "--action-games", "0", "--workers", "1"]
    assert main([*compare, "--out", str(tmp_path / "cmp")]) == 0
    cross = json.loads((tmp_path / "cmp" / "cross_run.json").read_text())
    assert cross["summary"]["cells"] == 22
    assert cross["summary"]["hamming"] == 0

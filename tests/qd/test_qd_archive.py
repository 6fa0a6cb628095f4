"""qd: measures, binning, the archive, its ribs export and the published populations."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from hanabi_env import engine as E
from qd.archive import Archive
from qd.io import data_dir, load_archive, load_population, save_archive
from qd.measures import MEASURES, bin_index, get_measure, measures_from_counters


def _sums(**kw) -> np.ndarray:
    out = np.zeros(E.N_COUNTERS)
    for name, value in kw.items():
        out[E.COUNTER_NAMES.index(name)] = value
    return out


# ---- binning (docs/rules.md §7.1) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "d", "expected"),
    [
        (0.0, 5, 0),
        (0.19999, 5, 0),
        (0.2, 5, 1),
        (0.5, 5, 2),
        (0.99, 5, 4),
        (1.0, 5, 4),  # v = 1.0 goes to d - 1
        (1.0, 20, 19),
        (0.05, 20, 1),
        (0.049, 20, 0),
        (math.nan, 5, 0),  # NaN goes to bin 0
        (math.nan, 20, 0),
        (-0.1, 5, 0),  # clipped
        (1.7, 5, 4),
    ],
)
def test_bin_index_floor_clip_and_nan(value, d, expected):
    assert bin_index(np.array([[value, value]]), (d, d), [(0, 1), (0, 1)]).tolist() == [
        [expected, expected]
    ]


def test_bin_index_is_floor_v_times_d_on_a_grid_of_values():
    v = np.linspace(0, 1, 1001)
    got = bin_index(np.stack([v, v], axis=1), (20, 20), [(0, 1), (0, 1)])[:, 0]
    assert np.array_equal(got, np.minimum(np.floor(v * 20), 19).astype(int))


def test_archive_index_of_is_row_major():
    a = Archive((5, 5))
    cells = a.index_of(np.array([[0.0, 0.0], [0.0, 0.99], [0.2, 0.0], [1.0, 1.0], [np.nan, 0.5]]))
    assert cells.tolist() == [0, 4, 5, 24, 2]
    assert a.int_to_grid_index(7).tolist() == [1, 2]
    assert a.cell_name(7) == "[1,2]"


# ---- measures (docs/rules.md §5) -----------------------------------------------------------------


def test_builtin_measures_are_ratios_of_sums_and_nan_on_zero():
    s = _sums(hint_opportunities=10, hints_given=4, plays=5, sum_known_attrs=6, sum_p_playable=4.5)
    m = measures_from_counters(
        np.stack([s, np.zeros(E.N_COUNTERS)]),
        [MEASURES["communicativeness"], MEASURES["ipp"], MEASURES["risk_aversion"]],
    )
    assert m[0].tolist() == pytest.approx([0.4, 0.6, 0.9])
    assert np.isnan(m[1]).all()


def test_callable_measure_and_bad_names():
    def hints_per_turn(sums):
        return sums[E.C_HINTS_GIVEN] / max(1.0, sums[E.C_TURNS])

    m = get_measure(hints_per_turn)
    assert m.name == "hints_per_turn"
    assert m(np.stack([_sums(hints_given=2, turns=8)]))[0] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="measure"):
        get_measure("nonsense")
    with pytest.raises(ValueError, match="low"):
        get_measure(hints_per_turn, low=1.0, high=0.0)


# ---- archive ----------------------------------------------------------------------------------


def _filled(rng_seed: int = 0) -> Archive:
    rng = np.random.default_rng(rng_seed)
    a = Archive((5, 5), fields=("extra",))
    for cell in rng.choice(25, 12, replace=False):
        center = a.cell_centers(np.array([cell]))[0]
        a.insert(int(cell), rng.integers(0, 105, 15), float(rng.uniform(0, 25)), center, 7)
    a.fields["extra"][a.occupied] = 1.5
    return a


def test_archive_stats_and_insert_overwrites():
    a = Archive((2, 2))
    assert a.stats().num_elites == 0
    assert math.isnan(a.stats().obj_max)
    a.insert(0, range(15), 10.0, [0.1, 0.1])
    a.insert(3, range(15), 20.0, [0.9, 0.9])
    a.insert(3, range(15), 5.0, [0.9, 0.9])  # unconditional (the scheduler decides)
    s = a.stats()
    assert (s.num_elites, s.coverage, s.qd_score, s.obj_max, s.obj_mean) == (
        2,
        0.5,
        15.0,
        10.0,
        7.5,
    )
    with pytest.raises(ValueError, match="cell"):
        a.insert(4, range(15), 1.0, [0, 0])
    with pytest.raises(ValueError, match="solution"):
        a.insert(0, range(14), 1.0, [0, 0])


def test_archive_json_round_trip_is_exact(tmp_path):
    a = _filled()
    a.insert(24, range(15), 1 / 3, [math.nan, 0.95])
    save_archive(a, tmp_path / "a.json", metadata={"k": 1})
    b = load_archive(tmp_path / "a.json")
    assert a.equals(b)
    assert b.metadata == {"k": 1}
    json.loads((tmp_path / "a.json").read_text())  # strict JSON (no NaN literal)
    assert "NaN" not in (tmp_path / "a.json").read_text()


def test_archive_csv_has_one_row_per_elite(tmp_path):
    a = _filled()
    a.to_csv(tmp_path / "e.csv")
    lines = (tmp_path / "e.csv").read_text().splitlines()
    assert len(lines) == 1 + len(a)
    header = lines[0].split(",")
    assert header[:4] == ["cell", "name", "communicativeness_index", "ipp_index"]
    assert header[-1] == "gene_14"


def test_ribs_export_has_the_same_cells_coverage_and_qd_score():
    pytest.importorskip("ribs")
    a = _filled()
    # a measure on a bin edge and a NaN measure still land in our cell
    a.insert(5, range(15), 3.0, [0.2, 0.0])
    a.insert(2, range(15), 4.0, [math.nan, 0.5])
    r = a.to_ribs()
    ours, theirs = a.stats(), r.stats
    assert theirs.num_elites == ours.num_elites
    assert theirs.coverage == pytest.approx(ours.coverage)
    assert theirs.qd_score == pytest.approx(ours.qd_score)
    assert theirs.obj_max == pytest.approx(ours.obj_max)
    assert theirs.obj_mean == pytest.approx(ours.obj_mean)
    data = r.data()
    assert sorted(np.asarray(data["index"]).tolist()) == a.occupied_cells().tolist()


def test_heatmap_png(tmp_path):
    pytest.importorskip("ribs")
    pytest.importorskip("matplotlib")
    from qd.plot import heatmap

    heatmap(_filled(), tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- published populations (docs/rules.md §10) ---------------------------------------------------


def test_load_5x5_population():
    a = load_population("5x5")
    assert a.dims == (5, 5)
    assert a.measure_names == ("communicativeness", "ipp")
    assert len(a) == 22
    empty = [a.int_to_grid_index(c).tolist() for c in np.flatnonzero(~a.occupied)]
    assert empty == [[0, 2], [0, 3], [0, 4]]
    assert a.solution.max() <= 104
    d = a.data()
    assert np.isfinite(d["objective"]).all()
    assert np.isfinite(d["published_fitness"]).all()
    assert 19.5 <= np.nanmax(d["published_fitness"]) <= 20.2
    # same archive type as a run: stats and ribs export work
    assert a.stats().num_elites == 22
    pytest.importorskip("ribs")
    assert a.to_ribs().stats.num_elites == 22


def test_load_20x20_population_by_path():
    a = load_population(data_dir() / "population_20x20_run1.json")
    assert a.dims == (20, 20)
    assert len(a) == 311
    assert np.isnan(a.objective[a.occupied]).all()  # the file stores no fitness
    d = a.data()
    assert np.array_equal(d["line_index"], d["cell"])  # line k = cell (k div 20, k mod 20)
    with pytest.raises(ValueError, match="NaN"):
        a.to_ribs()


def test_load_population_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_population(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"grid": [5, 5]}')
    with pytest.raises(ValueError, match="population"):
        load_population(tmp_path / "bad.json")


def test_load_reference_text_and_json_formats(tmp_path):
    lines = ["0," * 14 + "0"] * 25
    lines[7] = ",".join(str(g) for g in range(15))
    lines[24] = ",".join(["104"] * 15)
    (tmp_path / "5by5").write_text("\n".join(lines) + "\n")
    a = load_population(tmp_path / "5by5")
    assert a.occupied_cells().tolist() == [7, 24]
    assert a.solution[24].tolist() == [104] * 15
    assert a.fields["line_index"][7] == 7
    doc = {
        "info": {"Iteration": 999999, "Map Dimensions": "{5,5}"},
        "population": [
            {
                "Communicativeness_index": 1,
                "IPP_index": 3,
                "Name": "[1,3]",
                "Fitness": 17.5,
                "valid": True,
                "Chromosome": "[" + ", ".join(str(g) for g in range(15)) + "]",
            },
            {
                "Communicativeness_index": 0,
                "IPP_index": 4,
                "Name": "[0,4]",
                "Fitness": 0.0,
                "valid": False,
                "Chromosome": "[" + ", ".join(["0"] * 15) + "]",
            },
        ],
    }
    (tmp_path / "iteration999999.json").write_text(json.dumps(doc))
    b = load_population(tmp_path / "iteration999999.json")
    assert b.occupied_cells().tolist() == [8]
    assert b.objective[8] == 17.5
    assert b.solution[8].tolist() == list(range(15))


def test_archive_parquet_table_matches_the_csv(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    a = _filled()
    a.insert(24, range(15), 1 / 3, [math.nan, 0.95])
    a.to_csv(tmp_path / "e.csv")
    a.to_parquet(tmp_path / "e.parquet")
    table = pd.read_parquet(tmp_path / "e.parquet")
    from_csv = pd.read_csv(tmp_path / "e.csv")
    assert list(table.columns) == list(from_csv.columns)
    assert len(table) == len(a)
    assert table["cell"].dtype == "int64"
    assert table["gene_0"].dtype == "int64"
    assert table["objective"].dtype == "float64"
    assert np.isnan(table.loc[table["cell"] == 24, "communicativeness"]).all()
    pd.testing.assert_frame_equal(table, from_csv, check_dtype=False)
    # an extra float field whose name ends in "_index" stays float (NaN where unknown)
    pub = load_population("5x5")
    pub.to_parquet(tmp_path / "p.parquet")
    p = pd.read_parquet(tmp_path / "p.parquet")
    assert p["line_index"].dtype == "float64"
    assert len(p) == len(pub)


def test_elite_by_cell_and_retrieve_single_by_measures_as_pyribs():
    a = Archive((5, 5))
    a.insert(7, range(15), 12.0, [0.25, 0.45], candidate=31)
    assert a.elite(6) is None
    e = a.elite(7)
    assert (e["cell"], e["candidate"], e["objective"]) == (7, 31, 12.0)
    occupied, found = a.retrieve_single([0.3, 0.5])  # falls in cell (1, 2) = 7
    assert occupied
    assert found["candidate"] == 31
    assert a.retrieve_single([0.9, 0.9]) == (False, None)


def test_archive_files_before_the_candidate_rename_still_load():
    a = Archive((5, 5))
    a.insert(3, range(15), 9.0, [0.1, 0.7], candidate=12)
    doc = a.as_dict()
    for e in doc["elites"]:
        e["index"] = e.pop("candidate")  # the key older versions wrote
    assert Archive.from_dict(doc).candidate[3] == 12

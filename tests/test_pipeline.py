"""The whole-study pipeline (meta.pipeline) at toy scale: outputs, report, resume, errors."""

from __future__ import annotations

import csv
import json

import pytest

from meta.pipeline import PIPELINE_CONFIGS, get_pipeline_config, run_pipeline

TINY = {
    "candidates": 120,
    "me_games": 4,
    "runs": 2,
    "matchup_games": 3,
    "train_games": 3,
    "episodes": 1,
    "games": 2,
}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("pipeline")
    cfg = get_pipeline_config("quick", **TINY)
    report = run_pipeline(cfg, out, workers=1, quiet=True)
    return cfg, out, report


def test_report_and_files(study):
    cfg, out, report = study
    assert report == out / "report" / "summary.md"
    text = report.read_text()
    for heading in ("## MAP-Elites populations", "## Meta-agents", "Welch's t-tests", "## Figures"):
        assert heading in text
    for r in range(cfg.runs):
        assert (out / "runs" / f"run{r}" / "archive.json").exists()
        assert (out / "report" / "figures" / f"archive_run{r}.png").exists()
        assert (out / "report" / "figures" / f"matchups_run{r}.png").exists()
    assert (out / "report" / "figures" / "score_distributions.png").exists()
    assert (out / "report" / "figures" / "belief_run0.png").exists()
    # in distribution for each run, and run i against run i+1 out of distribution
    pairs = sorted(p.name for p in (out / "meta").iterdir())
    assert pairs == ["run0__run0", "run0__run1", "run1__run0", "run1__run1"]
    with open(out / "report" / "tables" / "meta_agents.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["variant"] for r in rows} == set(cfg.variants)
    assert {r["distribution"] for r in rows} == {"in", "out"}
    for r in rows:
        assert 0.0 <= float(r["mean"]) <= 25.0


def test_ids_are_prefixed_by_run(study):
    _, out, _ = study
    doc = json.loads((out / "meta" / "run0__run1" / "evaluation.json").read_text())
    assert all(p.startswith("run1:") for p in doc["partner_ids"])
    assert all(h.startswith("run0:") for h in doc["hypothesis_ids"])


def test_rerun_resumes_without_recomputing(study):
    cfg, out, report = study
    before = {p: p.stat().st_mtime_ns for p in (out / "meta").rglob("evaluation.json")}
    table = (out / "tables" / "matchups_run0.csv").read_text()
    again = run_pipeline(cfg, out, workers=1, quiet=True)
    assert again == report
    after = {p: p.stat().st_mtime_ns for p in (out / "meta").rglob("evaluation.json")}
    assert before == after
    assert (out / "tables" / "matchups_run0.csv").read_text() == table


def test_other_configuration_in_same_folder_is_refused(study):
    _, out, _ = study
    other = get_pipeline_config("quick", **{**TINY, "episodes": 2})
    with pytest.raises(ValueError, match="another configuration"):
        run_pipeline(other, out, workers=1, quiet=True)


def test_bad_configurations():
    with pytest.raises(ValueError, match="runs"):
        get_pipeline_config("quick", runs=0)
    with pytest.raises(ValueError, match="variants"):
        get_pipeline_config("quick", variants=("adaptive", "psychic"))
    with pytest.raises(ValueError, match="config"):
        get_pipeline_config("huge")
    with pytest.raises(ValueError, match="stop_after"):
        run_pipeline(get_pipeline_config("quick", **TINY), "/nonexistent/x", stop_after="all")
    assert PIPELINE_CONFIGS["paper"].map_elites == "paper"
    assert PIPELINE_CONFIGS["paper"].episodes == 200

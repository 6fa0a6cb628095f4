"""The whole-study pipeline (hanabi_adhoc.study.pipeline) at toy scale: outputs, report, resume,
errors."""

from __future__ import annotations

import csv
import json
import re

import pytest

from hanabi_adhoc.study.pipeline import PIPELINE_CONFIGS, get_pipeline_config, run_pipeline

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
        assert 0.0 <= float(r["mean_episode_score"]) <= 25.0


def _compute_time(text: str) -> float:
    """Seconds of the report's "Compute time of the study" line."""
    m = re.search(r"Compute time of the study: ([0-9.]+) (s|min)\*\*", text)
    assert m, "the summary states the compute time of the study"
    return float(m.group(1)) * (60.0 if m.group(2) == "min" else 1.0)


def _body(text: str) -> str:
    """The summary without its settings line and its Files section (which lists CSV columns)."""
    text = text.split("## Files")[0]
    return "\n".join(line for line in text.splitlines() if "Settings:" not in line)


def test_every_figure_has_a_caption(study):
    _, out, report = study
    lines = report.read_text().splitlines()
    images = [k for k, line in enumerate(lines) if line.startswith("![")]
    pngs = sorted(p.name for p in (out / "report" / "figures").glob("*.png"))
    assert len(images) == len(pngs) >= 8
    referenced = []
    for n, k in enumerate(images, 1):
        m = re.fullmatch(r"!\[(.+)\]\((figures/[^)]+\.png)\)", lines[k])
        assert m, lines[k]
        assert m.group(1).startswith(f"Figure {n}: ")  # alt text: a title, not a file stem
        referenced.append(m.group(2).removeprefix("figures/"))
        assert (out / "report" / m.group(2)).exists()
        caption = next(line for line in lines[k + 1 :] if line.strip())
        assert caption.startswith(f"*Figure {n} — "), caption
        assert len(caption) > 200, "a caption says what is shown and how to read it"
    assert sorted(referenced) == pngs
    text = report.read_text()
    # the caption of the match-up heatmaps explains the niche names of the tick labels
    assert "`C 0.2–0.4 / IPP 0.6–0.8`" in text
    assert "`c.2–.4 i.6–.8`" in text


def test_no_internal_names_in_the_report(study):
    _, _, report = study
    body = _body(report.read_text())
    for name in ("reeval_", "_objective", "intra_population", "population_score", "self_play",
                 "qd_score", "niche_mae"):  # fmt: skip
        assert name not in body, name
    assert not re.search(r"\[\d+,\d+\]", body), "grid indices are explained as bin ranges"
    # niche names, not grid indices, in the populations table
    assert re.search(r"\| C \d\.\d–\d\.\d / IPP \d\.\d–\d\.\d \(\d+\.\d\d\) \|", body)


def test_each_statistic_has_one_name_and_one_definition(study):
    _, out, report = study
    text = report.read_text()
    body = _body(text)
    # "population score" alone was ambiguous: only "intra-population score" remains
    assert not re.search(r"(?<!intra-)population score", text)
    for term in ("self-play score", "re-evaluated self-play score", "intra-population score",
                 "mean pairwise score", "episode score"):  # fmt: skip
        assert text.count(f"**{term}**") == 1, f"{term} is defined exactly once"
        first = body.find(term)
        assert first == body.index(f"**{term}**") + 2, f"{term} is defined where first used"
    # the CSV columns documented under the same names
    with open(out / "report" / "tables" / "populations.csv") as fh:
        cols = next(csv.reader(fh))
    assert "mean_pairwise_score" in cols
    assert "generalist_intra_population_score" in cols
    assert "intra_population_mean" not in cols
    files = text.split("## Files")[1]
    for col in cols:
        assert f"`{col}`" in files, col
    with open(out / "report" / "tables" / "meta_agents.csv") as fh:
        for col in next(csv.reader(fh)):
            assert f"`{col}`" in files, col


def test_ids_are_prefixed_by_run(study):
    _, out, _ = study
    doc = json.loads((out / "meta" / "run0__run1" / "evaluation.json").read_text())
    assert all(p.startswith("run1:") for p in doc["partner_ids"])
    assert all(h.startswith("run0:") for h in doc["hypothesis_ids"])


def test_rerun_resumes_without_recomputing(study):
    cfg, out, report = study
    before = {p: p.stat().st_mtime_ns for p in (out / "meta").rglob("evaluation.json")}
    table = (out / "tables" / "matchups_run0.csv").read_text()
    first = report.read_text()
    assert "Everything was computed by this invocation" in first
    again = run_pipeline(cfg, out, workers=1, quiet=True)
    assert again == report
    after = {p: p.stat().st_mtime_ns for p in (out / "meta").rglob("evaluation.json")}
    assert before == after
    assert (out / "tables" / "matchups_run0.csv").read_text() == table
    # the rerun reports the study's compute time, not its own (near-zero) wall time
    second = report.read_text()
    assert _compute_time(first) > 0.0
    assert _compute_time(second) == _compute_time(first)
    assert "This invocation resumed the study" in second
    assert "computed 0." in second


def test_interrupted_study_counts_the_time_of_every_invocation(tmp_path):
    cfg = get_pipeline_config("quick", **{**TINY, "runs": 1})
    assert run_pipeline(cfg, tmp_path, workers=1, quiet=True, stop_after="populations") == tmp_path
    doc = json.loads((tmp_path / "timing.json").read_text())
    populations = doc["units"]["populations/run0"]["seconds"]
    assert populations > 0.0
    assert doc["invocations"] == 1
    report = run_pipeline(cfg, tmp_path, workers=1, quiet=True)
    doc = json.loads((tmp_path / "timing.json").read_text())
    assert doc["invocations"] == 2
    assert doc["units"]["populations/run0"]["seconds"] == populations  # kept, not re-measured
    assert set(doc["units"]) == {"populations/run0", "matchups/run0", "meta/run0__run0"}
    total = sum(u["seconds"] for u in doc["units"].values())
    text = report.read_text()
    assert _compute_time(text) == pytest.approx(total, abs=0.06 if total < 60 else 3.1)
    assert _compute_time(text) >= populations - 0.06
    assert "reused 1 unit(s) finished earlier and computed 2" in text


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
    with pytest.raises(ValueError, match="ruleset"):
        get_pipeline_config("quick", ruleset="java")
    with pytest.raises(ValueError, match="stop_after"):
        run_pipeline(get_pipeline_config("quick", **TINY), "/nonexistent/x", stop_after="all")
    assert PIPELINE_CONFIGS["paper"].map_elites == "paper"
    assert PIPELINE_CONFIGS["paper"].episodes == 200
    assert PIPELINE_CONFIGS["paper"].ruleset == "corrected"


def _numbers(out) -> dict[str, str]:
    """Every table and result file of a study, and its report without the timing lines."""
    files = {}
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out).as_posix()
        if p.suffix == ".csv" or p.name == "evaluation.json":
            files[rel] = p.read_text()
    report = (out / "report" / "summary.md").read_text().replace(str(out), "OUT")
    timing = re.compile(r"\d+(\.\d+)? ?(s|min|h)\b|second|minute|hour|compute time|wall", re.I)
    files["report"] = "\n".join(ln for ln in report.splitlines() if not timing.search(ln))
    return files


def test_a_dask_cluster_plays_every_stage_with_the_local_numbers(study, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    cfg, out, _ = study
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        run_pipeline(cfg, tmp_path, scheduler_address=cluster.scheduler_address, quiet=True)
        ran = set(cluster.scheduler.task_prefixes)
    # the cluster played every stage: rule-agent batches (MAP-Elites, match-ups, response
    # tables) and the compiled meta-agent evaluation
    assert {"play_chunk", "meta_chunk"} <= ran, ran  # Dask drops the leading underscore
    local, dask = _numbers(out), _numbers(tmp_path)
    assert sorted(local) == sorted(dask)
    assert len(local) >= 6
    for name in local:
        assert dask[name] == local[name], name

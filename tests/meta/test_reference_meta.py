"""The reference ruleset through the meta commands and the pipeline (docs/rules.md §12).

* the pool loaders build reference agents, and the ruleset of a meta command is the one asked
  for, else the one the pools record, else ``corrected`` (:func:`meta.pools.resolve_ruleset`);
* the compiled meta-agent evaluation plays reference pools (it is the path taken) and gives
  the Python path's numbers game for game;
* ``meta-eval --ruleset reference`` runs and differs from the corrected evaluation; a table or
  a pipeline folder made in one ruleset is never resumed in the other;
* bad ``--ruleset`` values end in one ``error:`` line with exit code 2, and the option has a
  help text on every command that takes it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
from pathlib import Path

import numpy as np
import pytest

from agents.evaluate import game_seeds, play_games
from agents.policy import RuleAgent
from agents.registry import make
from hanabi_adhoc.cli import build_parser, main
from hanabi_adhoc.study.pipeline import (
    _check_manifest,
    get_pipeline_config,
    run_pipeline,
)
from hanabi_env import HanabiConfig
from meta import ALL_VARIANTS, build_table, evaluate_meta
from meta.pools import load_pool, recorded_ruleset, resolve_ruleset
from tests.meta.helpers import assert_identical, forbid

CELLS = ["[1,3]", "[2,2]", "[3,4]", "[4,1]"]


def elites(ruleset: str) -> list[RuleAgent]:
    """Four elites of the published 5x5 population (HistogramAgent in reference).

    Cell [1,3] scores 2.6 points more in the corrected ruleset than in the reference.
    """
    pols, ids = load_pool("5x5", ruleset=ruleset)
    return [pols[ids.index(c)] for c in CELLS]


def mixed_pool(ruleset: str) -> list[RuleAgent]:
    """Elites and two baselines (ProductionRuleAgent in reference: they may end a game)."""
    return [*elites(ruleset), make("piers", ruleset=ruleset), make("vandenbergh", ruleset=ruleset)]


IDS = [*CELLS, "[0,0]", "[0,4]"]


# ------------------------------------------------------------------------------ pool loaders


def test_load_pool_builds_agents_of_the_ruleset():
    pols, ids = load_pool("5x5", ruleset="reference")
    assert len(pols) == 22
    assert ids[0].startswith("[")
    assert all(p.ruleset == "reference" and p.wrapper == "histogram" for p in pols)
    base, names = load_pool("baselines:piers,iggi", prefix="B", ruleset="reference")
    assert names == ["BPiers", "BIGGI"]
    assert all(p.ruleset == "reference" and p.wrapper == "production" for p in base)
    assert base[0].chromosome == make("piers", ruleset="reference").chromosome
    corrected, _ = load_pool("5x5")
    assert all(p.ruleset == "corrected" for p in corrected)
    assert [p.chromosome for p in corrected] == [p.chromosome for p in pols]
    with pytest.raises(ValueError, match="ruleset"):
        load_pool("5x5", ruleset="java")


def test_recorded_ruleset(tmp_path):
    from qd.io import load_population, save_archive

    archive = load_population("5x5")
    save_archive(archive, tmp_path / "corrected.json")
    archive.binning = "reference"  # what a MapElitesConfig(ruleset="reference") run writes
    save_archive(archive, tmp_path / "reference.json")
    (tmp_path / "run").mkdir()
    save_archive(archive, tmp_path / "run" / "archive.json")
    assert recorded_ruleset(tmp_path / "reference.json") == "reference"
    assert recorded_ruleset(tmp_path / "run") == "reference"
    assert recorded_ruleset(tmp_path / "corrected.json") == "corrected"
    assert recorded_ruleset("5x5") is None  # published: the papers' code, but not recorded
    assert recorded_ruleset("baselines:piers") is None


def test_resolve_ruleset():
    assert resolve_ruleset(None, {"--responses": None})[0] == "corrected"
    ruleset, why, notes = resolve_ruleset(None, {"--responses": "reference", "--partners": None})
    assert (ruleset, notes) == ("reference", [])
    assert "--responses" in why
    ruleset, why, notes = resolve_ruleset("corrected", {"--responses": "reference"})
    assert (ruleset, why) == ("corrected", "--ruleset")
    assert notes
    assert "--responses" in notes[0]
    assert "reference" in notes[0]
    with pytest.raises(ValueError, match="different rulesets"):
        resolve_ruleset(None, {"--responses": "reference", "--partners": "corrected"})
    assert resolve_ruleset("reference", {"a": "reference", "b": "corrected"})[0] == "reference"
    with pytest.raises(ValueError, match="ruleset"):
        resolve_ruleset("java", {})


# ------------------------------------------------------------------- evaluation, both paths


@pytest.fixture(scope="module")
def ref_table():
    pool = mixed_pool("reference")
    return build_table(pool, pool, games=6, seed=2, response_ids=IDS, hypothesis_ids=IDS)


def test_compiled_path_plays_reference_pools_as_the_python_path(ref_table, monkeypatch):
    kw = {"variants": ALL_VARIANTS, "episodes": 2, "games": 4, "seed": 7, "response_threshold": 5}
    py = evaluate_meta(ref_table, mixed_pool("reference"), mixed_pool("reference"), IDS,
                       compiled=False, **kw)  # fmt: skip
    forbid(monkeypatch, "_run_tasks")  # reference pools must take the compiled path
    fast = evaluate_meta(ref_table, mixed_pool("reference"), mixed_pool("reference"), IDS, **kw)
    assert_identical(py, fast, ALL_VARIANTS)
    # the case exercises the meta-agents' decisions, not one fixed response
    assert len(np.unique(fast.responses["adaptive"])) > 1
    assert len(np.unique(fast.responses["random"])) > 1
    # and it is the reference that played: the corrected pool scores otherwise
    pool = mixed_pool("corrected")
    table = build_table(pool, pool, games=6, seed=2, response_ids=IDS, hypothesis_ids=IDS)
    assert not np.allclose(table.scores, ref_table.scores)
    other = evaluate_meta(table, pool, mixed_pool("corrected"), IDS, **kw)
    assert not np.array_equal(other.scores["generalist"], fast.scores["generalist"])


def test_reference_table_is_the_reference_agents_games(ref_table):
    """I(r, h) of a reference pool is what play_games gives the same reference agents."""
    pool = mixed_pool("reference")
    _, deals, seeds = game_seeds(2, 6, 2, random_seat=False)
    cfg = HanabiConfig(players=2, hand_size=5, scoring="lenient", hand_order="fixed")
    for r, h in ((0, 1), (4, 2), (3, 5)):
        batch = play_games([pool[r], pool[h]], np.tile([0, 1], (6, 1)), deals, seeds, cfg)
        assert ref_table.scores[r, h] == pytest.approx(batch.scores.mean())


# ---------------------------------------------------------------------------- command line


def _run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        return exc.code


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


SMALL = ["--train-games", "2", "--episodes", "1", "--games", "2", "--self-play-games", "2"]


def test_meta_eval_reference_runs_and_differs_from_corrected(tmp_path, capsys):
    docs = {}
    for ruleset in ("corrected", "reference"):
        out = tmp_path / ruleset
        argv = ["meta-eval", "--responses", "5x5", "--ruleset", ruleset, "--out", str(out)]
        assert main([*argv, *SMALL, "--workers", "1", "--json"]) == 0
        captured = capsys.readouterr()
        report = json.loads(captured.out)
        assert report["ruleset"] == ruleset
        assert f"ruleset: {ruleset} (--ruleset)" in captured.err
        docs[ruleset] = json.loads((out / "evaluation.json").read_text())
        assert docs[ruleset]["ruleset"] == ruleset
        assert (out / "table.csv.ruleset").read_text().strip() == ruleset
    games = {k: (tmp_path / k / "games.csv").read_text() for k in ("corrected", "reference")}
    assert games["corrected"] != games["reference"]
    assert docs["corrected"]["summary"] != docs["reference"]["summary"]
    # the default on the published population: corrected, saying how to get the reference
    assert main(["meta-eval", "--out", str(tmp_path / "default"), *SMALL, "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert "ruleset: corrected (the default;" in err
    assert "--ruleset reference" in err


def test_meta_table_reference(tmp_path, capsys):
    out = tmp_path / "t.csv"
    argv = ["meta-table", "--responses", "baselines:piers,iggi", "--train-games", "2"]
    assert main([*argv, "--ruleset", "reference", "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ruleset"] == "reference"
    ref = out.read_text()
    # the same command resumes (nothing to add); the corrected one is refused
    assert main([*argv, "--ruleset", "reference", "--out", str(out)]) == 0
    assert out.read_text() == ref
    capsys.readouterr()
    before = _snapshot(tmp_path)
    assert _run([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("error: argument --out")
    assert "reference ruleset" in err[0]
    assert _snapshot(tmp_path) == before
    # a table made before rulesets were recorded is a corrected one
    (tmp_path / "t.csv.ruleset").unlink()
    assert _run([*argv, "--ruleset", "reference", "--out", str(out)]) == 2
    assert "corrected ruleset" in capsys.readouterr().err


def test_meta_eval_takes_the_ruleset_the_run_recorded(tmp_path, capsys):
    from qd.io import load_population, save_archive

    archive = load_population("5x5")
    archive.binning = "reference"
    (tmp_path / "run").mkdir()
    save_archive(archive, tmp_path / "run" / "archive.json")
    out = tmp_path / "out"
    argv = ["meta-eval", "--responses", str(tmp_path / "run"), "--out", str(out), *SMALL]
    assert main([*argv, "--workers", "1", "--variants", "generalist"]) == 0
    err = capsys.readouterr().err
    assert "ruleset: reference (recorded by the MAP-Elites run of --responses)" in err
    assert json.loads((out / "evaluation.json").read_text())["ruleset"] == "reference"


BAD_LINES = [  # (the command line, text that names the offending option)
    ("meta-eval --ruleset java", "--ruleset"),
    ("meta-eval --ruleset ''", "--ruleset"),
    ("meta-evaluate --ruleset Reference", "--ruleset"),
    ("meta-table --ruleset java", "--ruleset"),
    ("pipeline --ruleset java", "--ruleset"),
    ("pipeline --ruleset ''", "--ruleset"),
    ("meta-eval --responses ref.json --partners cor.json", "--ruleset"),
]
BAD = [(shlex.split(line), option) for line, option in BAD_LINES]


@pytest.mark.parametrize(("argv", "option"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_ruleset_is_refused_in_one_line(argv, option, tmp_path, capsys, monkeypatch):
    from qd.io import load_population, save_archive

    archive = load_population("5x5")
    save_archive(archive, tmp_path / "cor.json")
    archive.binning = "reference"
    save_archive(archive, tmp_path / "ref.json")
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    capsys.readouterr()
    assert _run(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error:"), lines
    assert option in lines[0]
    assert _snapshot(tmp_path) == before
    assert not (tmp_path / "runs").exists()


def test_ruleset_option_has_help_on_every_meta_command_and_pipeline():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("meta-table", "meta-eval", "meta-evaluate", "pipeline"):
        action = next(a for a in sub.choices[name]._actions if "--ruleset" in a.option_strings)
        assert list(action.choices) == ["corrected", "reference"], name
        assert action.help, name
        assert "docs/rules.md §12" in action.help, name
        assert action.default is None, name  # the command decides (and says) what it uses


# -------------------------------------------------------------------------------- pipeline

TINY = {
    "candidates": 40,
    "me_games": 2,
    "runs": 1,
    "matchup_games": 2,
    "train_games": 1,
    "episodes": 1,
    "games": 2,
    "variants": ("adaptive", "generalist"),
}


def test_pipeline_config_ruleset():
    cfg = get_pipeline_config("quick", ruleset="reference")
    assert cfg.ruleset == "reference"
    assert cfg.map_elites_config(1).ruleset == "reference"
    assert get_pipeline_config("paper").map_elites_config(0).ruleset == "corrected"
    with pytest.raises(ValueError, match="ruleset"):
        get_pipeline_config("quick", ruleset="java")


def test_reference_pipeline_and_its_resume(tmp_path):
    cfg = get_pipeline_config("quick", ruleset="reference", **TINY)
    report = run_pipeline(cfg, tmp_path, workers=1, quiet=True)
    from qd.io import load_archive

    assert load_archive(tmp_path / "runs" / "run0" / "archive.json").binning == "reference"
    doc = json.loads((tmp_path / "meta" / "run0__run0" / "evaluation.json").read_text())
    assert doc["ruleset"] == "reference"
    assert "Ruleset: **reference**" in report.read_text()
    assert json.loads((tmp_path / "pipeline.json").read_text())["config"]["ruleset"] == "reference"
    # the same configuration resumes; the corrected one is refused, naming both rulesets
    assert run_pipeline(cfg, tmp_path, workers=1, quiet=True) == report
    with pytest.raises(ValueError, match="'reference' ruleset, not 'corrected'"):
        run_pipeline(get_pipeline_config("quick", **TINY), tmp_path, workers=1, quiet=True)
    # and from the command line: one error line, exit 2
    argv = ["pipeline", "--out", str(tmp_path), "--runs", "1", "--candidates", "40",
            "--me-games", "2", "--matchup-games", "2", "--train-games", "1", "--episodes", "1",
            "--games", "2", "--workers", "1", "--quiet"]  # fmt: skip
    assert _run(argv) == 2


def test_old_manifests_resume_as_corrected(tmp_path):
    cfg = get_pipeline_config("quick", **TINY)
    old = {k: v for k, v in cfg.as_dict().items() if k != "ruleset"}
    (tmp_path / "pipeline.json").write_text(
        json.dumps({"format": "hanabi-adhoc/pipeline", "version": 1, "config": old})
    )
    with pytest.raises(ValueError, match="another configuration"):
        _check_manifest(tmp_path, cfg.__class__(**{**cfg.as_dict(), "runs": 2}))
    _check_manifest(tmp_path, cfg)  # the same study: accepted
    with pytest.raises(ValueError, match="'corrected' ruleset, not 'reference'"):
        _check_manifest(tmp_path, get_pipeline_config("quick", ruleset="reference", **TINY))


def test_reference_matchups_are_the_reference_agents_games():
    from qd.analysis import archive_matchups
    from qd.evaluator import SerialBackend, derive_seed
    from qd.io import load_population

    archive = load_population("5x5")
    backend = SerialBackend()
    ref = archive_matchups(archive, games=3, seed=4, backend=backend, ruleset="reference")
    cor = archive_matchups(archive, games=3, seed=4, backend=backend, ruleset="corrected")
    assert not np.allclose(ref.scores, cor.scores)
    pols, ids = load_pool("5x5", ruleset="reference")
    _, deals, seeds = game_seeds(derive_seed(4, 3), 3, 2, random_seat=False)
    cfg = HanabiConfig(players=2, hand_size=5, scoring="lenient", hand_order="fixed")
    for i, j in ((0, 0), (ids.index("[1,3]"), 5), (7, ids.index("[1,3]"))):
        batch = play_games([pols[i], pols[j]], np.tile([0, 1], (3, 1)), deals, seeds, cfg)
        assert ref.scores[i, j] == pytest.approx(batch.scores.mean())


def test_meta_commands_on_a_dask_cluster_match_the_local_run(tmp_path, capsys):
    distributed = pytest.importorskip("dask.distributed")
    base = ["--responses", "5x5", "--ruleset", "reference", *SMALL[:2]]
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert main(["meta-eval", *base, *SMALL[2:], "--workers", "1", "--out", str(local)]) == 0
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        addr = ["--scheduler-address", cluster.scheduler_address]
        assert main(["meta-eval", *base, *SMALL[2:], *addr, "--out", str(dask)]) == 0
        table = tmp_path / "t.csv"
        assert main(["meta-table", *base, *addr, "--out", str(table)]) == 0
        ran = set(cluster.scheduler.task_prefixes)
    capsys.readouterr()
    assert {"play_chunk", "meta_chunk"} <= ran, ran
    for name in ("games.csv", "table.csv", "evaluation.json", "observed.csv"):
        assert (dask / name).read_text() == (local / name).read_text(), name
    assert table.read_text() == (local / "table.csv").read_text()

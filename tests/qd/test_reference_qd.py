"""The reference ruleset in ``qd``: the 2018 GA, population analysis and their commands.

``qd.ga`` with ``ruleset="reference"`` (and ``preset="cig18"``, [CIG18]'s mixed fitness against
the 2018 pool) and ``qd.analysis`` with ``ruleset=`` (docs/rules.md §12); ``hanabi-adhoc ga
--ruleset/--preset``, ``matchups --ruleset`` and ``population --ruleset``. Everything runs at
tiny scale.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from agents.evaluate import evaluate
from agents.policy import RuleAgent
from agents.reference import CIG18_POOL
from hanabi_adhoc.cli import main as cli_main
from qd.analysis import (
    action_agreement,
    archive_matchups,
    archive_ruleset,
    cross_run_metrics,
    matchup_table,
    reevaluate,
)
from qd.archive import Archive
from qd.evaluator import SerialBackend, ThreadBackend, derive_seed, evaluate_solutions
from qd.ga import GAConfig, population_fitness, read_ga_checkpoint, run_ga
from qd.scheduler import CheckpointError
from qd.situational import SituationalAgent, evaluate_situational, evolve_situational

NYU = [67, 103, 7, 35, 101, 52, 77, 53, 16, 28, 23, 27, 37, 43, 101]
# chromosomes whose reference and corrected games differ (rules 9, 12, 14, 50-66, 67-104)
POP = np.array(
    [
        [9, 50, 12, 14, 8, 69, 83, 20, 39, 34],
        [67, 103, 7, 35, 101, 52, 77, 53, 16, 28],
        [72, 9, 14, 12, 60, 38, 27, 22, 39, 13],
    ],
    dtype=np.int64,
)
TINY = {
    "population": 6,
    "generations": 3,
    "elitism": 2,
    "tournament": 2,
    "games": 2,
    "players": (2, 3),
    "final_top": 2,
    "final_games": 3,
    "seed": 3,
}


# --------------------------------------------------------------------------------------------
# GA configuration
# --------------------------------------------------------------------------------------------


def test_ga_config_keeps_ruleset_and_preset():
    cfg = GAConfig(mode="mixed", ruleset="reference", preset="cig18")
    assert cfg.as_dict()["ruleset"] == "reference"
    assert cfg.as_dict()["preset"] == "cig18"
    assert GAConfig().as_dict()["ruleset"] == "corrected"
    assert GAConfig().as_dict()["preset"] is None


@pytest.mark.parametrize(
    ("kwargs", "kind", "match"),
    [
        ({"ruleset": "java"}, ValueError, "ruleset"),
        ({"ruleset": 1}, TypeError, "ruleset"),
        ({"preset": "cig19", "mode": "mixed"}, ValueError, "preset"),
        ({"preset": 18}, TypeError, "preset"),
        ({"preset": "cig18", "ruleset": "reference"}, ValueError, "mode='mixed'"),
        ({"preset": "cig18", "mode": "mixed"}, ValueError, "ruleset='reference'"),
        (
            {"preset": "cig18", "mode": "mixed", "ruleset": "reference", "scoring": "strict"},
            ValueError,
            "lenient",
        ),
        (
            {"preset": "cig18", "mode": "mixed", "ruleset": "reference", "pool": ("Cautious",)},
            ValueError,
            "pool",
        ),
    ],
)
def test_ga_config_refuses_bad_ruleset_and_preset(kwargs, kind, match):
    with pytest.raises(kind, match=match):
        GAConfig(**kwargs)


# --------------------------------------------------------------------------------------------
# fitness
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "kwargs"),
    [
        ("mirror", {"ruleset": "reference"}),
        ("mixed", {"ruleset": "reference", "pool": ("Piers", "Internal")}),
        ("mixed", {"preset": "cig18"}),
        ("mixed", {"preset": "cig18", "pool": ("Internal", "VanDenBergh")}),
    ],
)
def test_population_fitness_equals_agents_evaluate_in_reference_mode(mode, kwargs):
    fit = population_fitness(POP, mode, (2, 4), 3, seed=9, **kwargs)
    for k, genes in enumerate(POP):
        agent = RuleAgent(genes, ruleset="reference")
        ref = evaluate(agent, mode, (2, 4), 3, seed=9, workers=1, **kwargs)
        assert fit[k] == pytest.approx(ref.mean, abs=1e-12)
    if kwargs.get("ruleset") == "reference":
        corrected = population_fitness(POP, mode, (2, 4), 3, seed=9, pool=kwargs.get("pool", ()))
        assert not np.array_equal(fit, corrected)


def test_cig18_pool_is_the_2018_one():
    fit = population_fitness(POP[:1], "mixed", (2,), 4, seed=2, preset="cig18")
    by_name = population_fitness(
        POP[:1], "mixed", (2,), 4, seed=2, preset="cig18", pool=tuple(CIG18_POOL)
    )
    assert fit[0] == by_name[0]
    plain = population_fitness(POP[:1], "mixed", (2,), 4, seed=2, ruleset="reference")
    assert fit[0] != plain[0]  # "Internal" is SampleRuleBased in 2018, VanDenBergh differs too


def test_mixed_modes_do_not_depend_on_the_backend():
    serial = population_fitness(POP, "mixed", (2, 3), 4, seed=1, preset="cig18")
    with ThreadBackend(2, min_chunk=1) as backend:
        threads = population_fitness(
            POP, "mixed", (2, 3), 4, seed=1, preset="cig18", backend=backend
        )
    assert np.array_equal(serial, threads)


# --------------------------------------------------------------------------------------------
# runs and checkpoints
# --------------------------------------------------------------------------------------------


def test_reference_ga_differs_from_corrected_and_is_deterministic():
    ref = run_ga(GAConfig(ruleset="reference", **TINY), progress=False)
    again = run_ga(GAConfig(ruleset="reference", **TINY), progress=False)
    corrected = run_ga(GAConfig(**TINY), progress=False)
    assert ref.as_dict() == again.as_dict()
    assert ref.history != corrected.history
    assert ref.as_dict()["config"]["ruleset"] == "reference"
    # the final fitness is the reference evaluation of the chromosome
    best = ref.final[0]
    check = population_fitness(
        [best["chromosome"]], "mirror", (2, 3), 3, derive_seed(3, 12), ruleset="reference"
    )
    assert best["final_fitness"] == check[0]


@pytest.mark.parametrize(
    "extra",
    [{"ruleset": "reference"}, {"mode": "mixed", "ruleset": "reference", "preset": "cig18"}],
)
def test_reference_ga_resumes_identically_from_every_generation(
    ga_resumes_from_every_generation, extra
):
    cfg = GAConfig(**{**TINY, "pool": ("Internal", "Piers")}, **extra)
    saved = ga_resumes_from_every_generation(cfg)
    assert json.loads(saved[0])["payload"]["config"]["ruleset"] == "reference"


def test_checkpoint_refuses_another_ruleset_or_preset(tmp_path):
    ref = GAConfig(**{**TINY, "generations": 1}, ruleset="reference")
    ckpt = tmp_path / "checkpoint.json"
    run_ga(ref, progress=False, checkpoint=ckpt)
    with pytest.raises(CheckpointError, match=r"ruleset='reference', not ruleset='corrected'"):
        run_ga(ref.replace(ruleset="corrected"), progress=False, checkpoint=ckpt, resume=True)
    mixed = GAConfig(**{**TINY, "generations": 1}, mode="mixed", ruleset="reference")
    ckpt2 = tmp_path / "mixed.json"
    run_ga(mixed, progress=False, checkpoint=ckpt2)
    with pytest.raises(CheckpointError, match=r"preset=None, not preset='cig18'.*no --preset"):
        read_ga_checkpoint(ckpt2, mixed.replace(preset="cig18"))


def test_checkpoint_without_ruleset_is_a_corrected_run(tmp_path):
    """Checkpoints written before the rulesets existed resume as corrected runs."""
    from qd.io import write_checksummed_json

    cfg = GAConfig(**{**TINY, "generations": 2})
    ckpt = tmp_path / "checkpoint.json"
    full = run_ga(cfg, progress=False)
    run_ga(cfg.replace(generations=1), progress=False, checkpoint=ckpt)
    doc = json.loads(ckpt.read_text())["payload"]
    doc["config"] = {k: v for k, v in doc["config"].items() if k not in ("ruleset", "preset")}
    doc["config"]["generations"] = 2
    write_checksummed_json(ckpt, "hanabi-adhoc/ga-checkpoint", doc)
    assert read_ga_checkpoint(ckpt, cfg)["generation"] == 1
    with pytest.raises(CheckpointError, match="ruleset='corrected'"):
        read_ga_checkpoint(ckpt, cfg.replace(ruleset="reference"))
    assert run_ga(cfg, progress=False, checkpoint=ckpt, resume=True).best == full.best


# --------------------------------------------------------------------------------------------
# situational agents
# --------------------------------------------------------------------------------------------


def test_situational_agent_in_reference_mode():
    agent = SituationalAgent({2: POP[0], (3, 4): POP[1]}, ruleset="reference")
    assert agent.for_players(3).ruleset == "reference"
    back = SituationalAgent.from_dict(agent.as_dict())
    assert back.ruleset == "reference"
    old = {"name": "x", "groups": [{"players": [2], "chromosome": [8]}]}  # written before rulesets
    assert SituationalAgent.from_dict(old).ruleset == "corrected"
    res = evaluate_situational(agent, "mixed", (2, 3), games=3, seed=4, preset="cig18")
    for p in (2, 3):
        one = evaluate(
            RuleAgent(POP[0] if p == 2 else POP[1], ruleset="reference"),
            "mixed",
            (p,),
            3,
            seed=4,
            workers=1,
            preset="cig18",
        )
        assert res["per_size"][p] == pytest.approx(one.mean, abs=1e-12)
    with pytest.raises(ValueError, match="ruleset='reference'"):
        evaluate_situational(SituationalAgent({2: POP[0]}), "mixed", (2,), 1, preset="cig18")
    with pytest.raises(ValueError, match="mode"):
        evaluate_situational(agent, "mirror", (2,), 1, preset="cig18")


def test_evolve_situational_reference():
    cfg = GAConfig(**{**TINY, "generations": 1, "players": (2,)}, ruleset="reference")
    agent, results = evolve_situational(cfg, ((2,), (3,)), progress=False)
    assert agent.ruleset == "reference"
    assert all(r.config.ruleset == "reference" for r in results)


# --------------------------------------------------------------------------------------------
# population analysis
# --------------------------------------------------------------------------------------------


def _archive(binning: str = "floor", n: int = 3) -> Archive:
    a = Archive((3, 3), binning=binning, solution_dim=10)
    for k, cell in enumerate((0, 4, 8)[:n]):
        a.insert(cell, POP[k], 1.0, a.cell_centers(np.array([cell]))[0])
    return a


def test_archive_ruleset_follows_the_binning():
    assert archive_ruleset(_archive("reference")) == "reference"
    assert archive_ruleset(_archive()) == "corrected"
    assert archive_ruleset(_archive("reference"), _archive()) == "corrected"
    with pytest.raises(TypeError, match="Archive"):
        archive_ruleset("5x5")


def test_reevaluate_in_reference_mode():
    a = reevaluate(_archive(), games=4, seed=1, ruleset="reference")
    crn = derive_seed(1, 2)
    ev = evaluate_solutions(POP, [crn] * 3, 4, ruleset="reference")
    cells = a.occupied_cells()
    assert np.array_equal(a.fields["reeval_objective"][cells], ev.objective)
    # a reference archive defaults to the reference ruleset, any other to corrected
    b = reevaluate(_archive("reference"), games=4, seed=1)
    assert np.array_equal(b.fields["reeval_objective"][cells], ev.objective)
    c = reevaluate(_archive(), games=4, seed=1)
    assert not np.array_equal(c.fields["reeval_objective"][cells], ev.objective)
    with pytest.raises(ValueError, match="ruleset"):
        reevaluate(_archive(), games=1, ruleset="java")


def test_matchups_in_reference_mode():
    t = matchup_table(POP, games=4, seed=2, ruleset="reference")
    mirror = evaluate_solutions(POP, [derive_seed(2, 3)] * 3, 4, ruleset="reference")
    assert np.array_equal(t.self_play(), mirror.objective)
    assert not np.array_equal(t.scores, matchup_table(POP, games=4, seed=2).scores)
    by_default = archive_matchups(_archive("reference"), games=4, seed=2)
    assert np.array_equal(by_default.scores, t.scores)
    explicit = archive_matchups(_archive(), games=4, seed=2, ruleset="reference")
    assert np.array_equal(explicit.scores, t.scores)
    with pytest.raises(ValueError, match="ruleset"):
        matchup_table(POP, games=1, ruleset="java")


def test_action_agreement_and_cross_run_in_reference_mode():
    same = action_agreement(NYU, NYU, games=2, seed=0, ruleset="reference")
    assert same["fraction"] == 1.0
    other = action_agreement(POP[0], POP[2], games=2, seed=0, ruleset="reference")
    assert 0.0 <= other["fraction"] < 1.0
    rows, summary = cross_run_metrics(
        _archive("reference"),
        _archive("reference"),
        games=3,
        action_games=1,
        backend=SerialBackend(),
    )
    assert summary["cells"] == 3
    assert summary["same_action"] == 1.0
    mirror = evaluate_solutions(POP, [derive_seed(0, 5)] * 3, 3, ruleset="reference")
    assert [r["self_a"] for r in rows] == mirror.objective.tolist()


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------

GA_SMALL = [
    "ga", "--population", "4", "--generations", "2", "--elitism", "1", "--tournament", "2",
    "--games", "1", "--players", "2", "--final-top", "1", "--final-games", "1",
    "--workers", "1", "--quiet",
]  # fmt: skip


def _run(argv: list[str]) -> int:
    try:
        return cli_main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        return exc.code


def test_cli_ga_reference_and_cig18(tmp_path, capsys):
    out = tmp_path / "run"
    assert _run([*GA_SMALL, "--mode", "mixed", "--preset", "cig18", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "mixed (cig18), reference rules" in printed
    doc = json.loads((out / "result.json").read_text())
    assert doc["config"]["ruleset"] == "reference"
    assert doc["config"]["preset"] == "cig18"
    assert doc["config"]["pool"] == list(CIG18_POOL)
    # resuming needs the same ruleset and preset: one error line, exit 2
    code = _run([*GA_SMALL, "--mode", "mixed", "--out", str(out), "--resume"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1
    assert err[0].startswith("error:")
    assert "ruleset='reference', preset='cig18', not ruleset='corrected', preset=None" in err[0]
    assert "(--ruleset reference --preset cig18)" in err[0]
    cig18 = [*GA_SMALL, "--mode", "mixed", "--preset", "cig18"]
    assert _run([*cig18, "--out", str(out), "--resume"]) == 0
    assert json.loads((out / "result.json").read_text()) == doc
    # mirror reference, and a situational agent
    assert _run([*GA_SMALL, "--ruleset", "reference", "--json", str(tmp_path / "m.json")]) == 0
    assert json.loads((tmp_path / "m.json").read_text())["config"]["ruleset"] == "reference"
    argv = [*GA_SMALL, "--ruleset", "reference", "--situational", "--groups", "2;3"]
    assert _run([*argv, "--json", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["agent"]["ruleset"] == "reference"


def test_cli_matchups_and_population_ruleset(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    argv = ["matchups", "5x5", "--games", "1", "--workers", "1", "--ruleset", "reference"]
    assert _run([*argv, "--out", str(tmp_path / "mu")]) == 0
    assert "(reference rules)" in capsys.readouterr().out
    assert (tmp_path / "mu" / "matchups.csv").is_file()
    argv = ["population", "5x5", "--reeval", "2", "--workers", "1", "--ruleset", "reference"]
    assert _run([*argv, "--out", str(tmp_path / "pop")]) == 0
    assert json.loads((tmp_path / "pop" / "report.json").read_text())["ruleset"] == "reference"
    assert _run(["population", "5x5", "--workers", "1", "--out", str(tmp_path / "pop2")]) == 0
    assert json.loads((tmp_path / "pop2" / "report.json").read_text())["ruleset"] == "corrected"
    # the archive of a reference run defaults to the reference ruleset
    from qd.io import save_archive

    save_archive(_archive("reference"), tmp_path / "ref.json")
    argv = ["population", str(tmp_path / "ref.json"), "--reeval", "2", "--workers", "1"]
    assert _run([*argv, "--out", str(tmp_path / "pop3")]) == 0
    assert json.loads((tmp_path / "pop3" / "report.json").read_text())["ruleset"] == "reference"
    capsys.readouterr()
    argv = ["matchups", str(tmp_path / "ref.json"), "--games", "1", "--workers", "1"]
    assert _run([*argv, "--out", str(tmp_path / "mu2")]) == 0
    assert "(reference rules)" in capsys.readouterr().out


BAD = [
    (["ga", "--ruleset", "java"], "--ruleset"),
    (["ga", "--ruleset", ""], "--ruleset"),
    (["ga", "--preset", "cig19"], "--preset"),
    (["ga", "--preset", "cig18"], "--preset"),  # quick is a mirror configuration
    (["ga", "--config", "paper-mirror-old", "--preset", "cig18"], "--preset"),
    (["ga", "--mode", "mixed", "--preset", "cig18", "--ruleset", "corrected"], "--preset"),
    (["ga", "--mode", "mixed", "--preset", "cig18", "--scoring", "strict"], "--preset"),
    (["ga", "--config", "paper-mixed-old", "--preset", "cig18", "--mode", "mirror"], "--preset"),
    (["matchups", "5x5", "--ruleset", "java"], "--ruleset"),
    (["population", "5x5", "--ruleset", "java"], "--ruleset"),
    (["population", "5x5", "--ruleset", "reference", "--reeval", "-1"], "--reeval"),
]


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize(("argv", "option"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_ruleset_options_are_refused_up_front(argv, option, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.json").write_text("{}")
    before = _snapshot(tmp_path)
    capsys.readouterr()
    code = _run(argv)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1, err
    assert lines[0].startswith("error:"), lines
    assert option in lines[0], (option, lines[0])
    assert _snapshot(tmp_path) == before

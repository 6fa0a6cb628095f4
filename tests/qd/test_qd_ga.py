"""qd.ga: the 2018 genetic algorithm ([CIG18], docs/rules.md §8)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.evaluate import evaluate
from agents.policy import RuleAgent
from qd.ga import (
    GAConfig,
    next_generation,
    ordered_crossover,
    population_fitness,
    read_ga_checkpoint,
    run_ga,
    swap_mutation,
    tournament,
)
from qd.scheduler import CheckpointError
from tests.qd.helpers import tiny_ga


class FixedRng:
    """A stand-in generator returning preset crossover points."""

    def __init__(self, points):
        self.points = points

    def integers(self, low, high, size):
        return np.array(self.points)


def test_ordered_crossover_worked_example():
    p1 = np.arange(8)
    p2 = np.array([7, 6, 5, 4, 3, 2, 1, 0])
    child = ordered_crossover(FixedRng([5, 2]), p1, p2)  # start 2, end 5: keep 2, 3, 4
    # p2 read cyclically from position 5: 2,1,0,7,6,5,4,3 -> skip 2,3,4 -> 1,0,7,6,5
    # fills positions 0,1 then 5,6,7 left to right
    assert child.tolist() == [1, 0, 2, 3, 4, 7, 6, 5]


def test_ordered_crossover_keeps_permutations():
    rng = np.random.default_rng(0)
    for _ in range(300):
        a, b = rng.permutation(50), rng.permutation(50)
        child = ordered_crossover(rng, a, b)
        assert sorted(child.tolist()) == list(range(50))
    # truncated permutations (first 20 genes of a permutation) stay duplicate-free
    for _ in range(100):
        a, b = rng.permutation(72)[:20], rng.permutation(72)[:20]
        child = ordered_crossover(rng, a, b)
        assert len(set(child.tolist())) == 20
        assert set(child.tolist()) <= set(a) | set(b)


def test_swap_mutation_permutes_at_the_given_rate():
    rng = np.random.default_rng(1)
    x = np.arange(50)
    moved = 0
    for _ in range(200):
        y = swap_mutation(rng, x, 0.1)
        assert sorted(y.tolist()) == list(range(50))
        moved += (y != x).sum()
    # each swap moves about two genes (fewer when a swap undoes another or hits itself)
    assert 0.12 < moved / (200 * 50) < 0.2
    assert np.array_equal(swap_mutation(rng, x, 0.0), x)


def test_tournament_picks_the_best_of_its_sample():
    rng = np.random.default_rng(2)
    fitness = np.arange(20, dtype=float)
    wins = [tournament(rng, fitness, 20) for _ in range(5)]
    assert wins == [19] * 5
    picks = [tournament(rng, fitness, 1) for _ in range(400)]
    assert len(set(picks)) > 15  # size 1 = uniform


def test_next_generation_keeps_elites_and_permutations():
    rng = np.random.default_rng(3)
    cfg = GAConfig(population=10, elitism=3, tournament=2)
    pop = np.stack([rng.permutation(50) for _ in range(10)])
    fit = rng.random(10)
    new = next_generation(rng, pop, fit, cfg)
    order = np.argsort(-fit, kind="stable")
    assert np.array_equal(new[:3], pop[order[:3]])
    assert all(sorted(r.tolist()) == list(range(50)) for r in new)


@pytest.mark.parametrize("mode", ["mirror", "mixed"])
def test_population_fitness_equals_agents_evaluate(mode):
    rng = np.random.default_rng(4)
    pop = np.stack([rng.permutation(50) for _ in range(2)])
    pool = ("IGGI", "VanDenBergh")
    fit = population_fitness(pop, mode, (2, 4), 3, seed=9, pool=pool)
    for k in range(2):
        ref = evaluate(RuleAgent(pop[k]), mode, (2, 4), 3, pool=pool, seed=9, workers=1)
        assert fit[k] == pytest.approx(ref.mean, abs=1e-12)


def test_run_ga_is_deterministic_and_reports():
    cfg = tiny_ga(
        population=6, generations=2, elitism=2, games=2, players=(2,), final_top=2, final_games=2
    )
    cfg = cfg.replace(seed=1)
    a = run_ga(cfg, progress=False)
    b = run_ga(cfg, progress=False)
    assert a.best == b.best
    assert a.history == b.history
    assert len(a.history) == 2
    assert len(a.final) == 2
    assert sorted(a.best) == list(range(50))
    assert a.as_dict()["config"]["population"] == 6


def test_ga_config_validation():
    with pytest.raises(ValueError, match="elitism"):
        GAConfig(population=4, elitism=5)
    with pytest.raises(ValueError, match="mode"):
        GAConfig(mode="solo")


def test_cli_ga(tmp_path, capsys):
    import json

    from hanabi_adhoc.cli import main

    args = [
        "ga",
        "--population",
        "4",
        "--generations",
        "1",
        "--elitism",
        "1",
        "--tournament",
        "2",
        "--games",
        "1",
        "--players",
        "2",
        "--final-top",
        "1",
        "--final-games",
        "1",
        "--workers",
        "1",
        "--quiet",
        "--json",
        str(tmp_path / "ga.json"),
    ]
    assert main(args) == 0
    assert "final" in capsys.readouterr().out
    assert len(json.loads((tmp_path / "ga.json").read_text())["best"]) == 50
    assert main([*args, "--situational", "--groups", "2;3"]) == 0
    doc = json.loads((tmp_path / "ga.json").read_text())
    assert [g["players"] for g in doc["agent"]["groups"]] == [[2], [3]]


# --------------------------------------------------------------------------------------------
# GA checkpoints (in process; killed runs: tests/hanabi_adhoc/test_faults.py)
# --------------------------------------------------------------------------------------------


def test_ga_checkpoint_is_verified(tmp_path):
    cfg = GAConfig(population=6, generations=3, games=2, players=(2,), final_games=4)
    ckpt = tmp_path / "checkpoint.json"
    full = run_ga(cfg, progress=False, checkpoint=ckpt)
    payload = read_ga_checkpoint(ckpt, cfg)
    assert payload["generation"] == 3
    again = run_ga(cfg, progress=False, checkpoint=ckpt, resume=True)  # finished: final only
    assert again.as_dict() == full.as_dict()
    with pytest.raises(CheckpointError, match="exists"):
        run_ga(cfg, progress=False, checkpoint=ckpt)
    with pytest.raises(CheckpointError, match="different run"):
        run_ga(cfg.replace(games=3), progress=False, checkpoint=ckpt, resume=True)
    doc = json.loads(ckpt.read_text())
    doc["payload"]["fitness"][0] += 1.0
    ckpt.write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="checksum"):
        run_ga(cfg, progress=False, checkpoint=ckpt, resume=True)
    ckpt.write_text(ckpt.read_text()[:50])
    with pytest.raises(CheckpointError, match="corrupt"):
        read_ga_checkpoint(ckpt, cfg)


def test_ga_resume_from_every_generation(ga_resumes_from_every_generation):
    """Resuming from the checkpoint of any generation gives the uninterrupted result."""
    cfg = GAConfig(population=8, generations=4, games=2, players=(2, 3), final_games=4)
    ga_resumes_from_every_generation(cfg)

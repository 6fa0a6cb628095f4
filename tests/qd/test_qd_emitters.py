"""qd: MAP-Elites variation operators and the emitter schedule (docs/rules.md §7.1)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from qd.archive import Archive
from qd.emitters import MapElitesEmitter, mutate, random_solutions, uniform_crossover


def test_phase1_chromosomes_have_15_distinct_uniform_genes():
    rng = np.random.default_rng(0)
    sol = random_solutions(rng, 4000, 15, 105)
    assert sol.shape == (4000, 15)
    assert sol.dtype == np.int64
    assert all(len(set(row)) == 15 for row in sol.tolist())
    assert sol.min() == 0
    assert sol.max() == 104
    counts = np.bincount(sol.ravel(), minlength=105)
    expected = 4000 * 15 / 105
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 160  # 104 degrees of freedom; p ~ 0.0004
    # every position is uniform too (no ordering bias)
    assert abs(sol[:, 0].mean() - 52) < 2.5


def test_uniform_crossover_takes_second_parent_half_the_time():
    rng = np.random.default_rng(1)
    a = np.zeros((2000, 15), np.int64)
    b = np.ones((2000, 15), np.int64)
    child = uniform_crossover(rng, a, b, 0.5)
    p = child.mean()
    assert abs(p - 0.5) < 4 * np.sqrt(0.25 / child.size)


def test_mutation_rate_and_uniform_replacement():
    rng = np.random.default_rng(2)
    x = np.full((4000, 15), 200, np.int64)  # outside the alphabet: any change is visible
    y = mutate(rng, x, 0.1, 105)
    hit = y != 200
    assert abs(hit.mean() - 0.1) < 4 * np.sqrt(0.09 / hit.size)
    assert y[hit].min() >= 0
    assert y[hit].max() <= 104


def _archive_with(cells: list[int]) -> Archive:
    a = Archive((5, 5))
    for c in cells:
        a.insert(c, np.full(15, c, np.int64), float(c), a.cell_centers(np.array([c]))[0])
    return a


def test_emitter_phase1_then_parents_only_from_occupied_cells():
    occupied = [3, 7, 18]
    archive = _archive_with(occupied)
    em = MapElitesEmitter(0, n_random=50, crossover_rate=0.5, mutation_rate=0.0)
    first = em.ask(archive, 50)
    assert (em.last_parents == -1).all()
    assert all(len(set(r)) == 15 for r in first.tolist())
    second = em.ask(archive, 3000)
    parents = em.last_parents
    assert set(parents[:, 0].tolist()) == set(occupied)  # uniform among occupied, never empty
    crossed = parents[:, 1] >= 0
    assert set(parents[crossed, 1].tolist()) == set(occupied)
    assert abs(crossed.mean() - 0.5) < 0.05
    counts = np.bincount(parents[:, 0], minlength=25)[occupied]
    assert counts.min() > 900  # ~1000 each
    # without mutation every gene comes from one of the two parents (genes encode the cell)
    for row, (p1, p2) in zip(second, parents, strict=True):
        allowed = {p1} if p2 < 0 else {p1, p2}
        assert set(row.tolist()) <= allowed
    # a non-crossed child is a copy of its parent
    assert all((second[i] == parents[i, 0]).all() for i in np.flatnonzero(~crossed)[:20])


def test_emitter_mutation_rate_in_phase2():
    archive = _archive_with([0])
    em = MapElitesEmitter(3, n_random=0, crossover_rate=0.0, mutation_rate=0.1)
    out = em.ask(archive, 3000)
    changed = out != 0
    # a mutation may redraw the same gene (p = 1/105)
    assert abs(changed.mean() - 0.1 * 104 / 105) < 0.01


def test_emitter_batch_straddling_phase1_and_empty_archive():
    archive = _archive_with([12])
    em = MapElitesEmitter(0, n_random=5)
    em.ask(archive, 8)
    assert (em.last_parents[:5] == -1).all()
    assert (em.last_parents[5:, 0] == 12).all()
    with pytest.raises(ValueError, match="elite"):
        MapElitesEmitter(0, n_random=0).ask(Archive((5, 5)), 1)
    with pytest.raises(ValueError, match="crossover_rate"):
        MapElitesEmitter(0, n_random=0, crossover_rate=1.5)


def test_emitter_state_round_trips_through_json():
    archive = _archive_with([1, 2])
    em = MapElitesEmitter(9, n_random=10)
    em.ask(archive, 12)
    state = json.loads(json.dumps(em.state_dict()))
    other = MapElitesEmitter(123, n_random=10)
    other.load_state_dict(state)
    assert np.array_equal(em.ask(archive, 20), other.ask(archive, 20))
    assert em.n_asked == other.n_asked == 32

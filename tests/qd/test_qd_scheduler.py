"""qd: the MAP-Elites loop — paired replacement, determinism, checkpoints/resume, CLI."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from hanabi_adhoc.cli import main
from qd.config import MapElitesConfig, get_config
from qd.evaluator import (
    ProcessBackend,
    SerialBackend,
    ThreadBackend,
    evaluate_solutions,
    replay_holds,
)
from qd.io import load_archive
from qd.run import run_map_elites
from qd.scheduler import CheckpointError, MapElites
from tests.qd.helpers import toy_config

REPO = Path(__file__).resolve().parents[2]
TINY = toy_config(150, 50, games=4, batch=25, every=50, seed=3)


def _fake_evaluator(calls: list):
    """Objective = first gene + (seed mod 3): depends on the solution and on the games."""

    def evaluate(solutions, seeds):
        calls.append(([int(s[0]) for s in solutions], [int(x) for x in seeds]))
        obj = [float(s[0]) + int(x) % 3 for s, x in zip(solutions, seeds, strict=True)]
        return SimpleNamespace(objective=np.array(obj))

    return evaluate


def _fake(loop: MapElites, calls: list) -> None:
    """Replace a loop's evaluator and replay test by the fake objective above."""
    loop._evaluate = evaluate = _fake_evaluator(calls)
    loop._holds = lambda sol, seeds, target: evaluate(sol, seeds).objective >= target


def _sol(first: int, rest: int = 0) -> np.ndarray:
    s = np.full(15, rest, np.int64)
    s[0] = first
    return s


def test_replacement_is_strictly_better_on_the_candidates_games():
    loop = MapElites(get_config("quick", dims=(2, 2)))
    calls: list = []
    _fake(loop, calls)
    loop.archive.insert(0, _sol(10), 99.0, [0.1, 0.1], candidate=-7)
    cands = np.stack([_sol(1, 1), _sol(5, 2), _sol(3, 3), _sol(3, 3), _sol(8, 4)])
    objective = np.array([10.0, 10.5, 12.0, 20.0, 1.0])
    measures = np.array([[0.1, 0.1]] * 4 + [[0.9, 0.9]])
    seeds = [3, 6, 4, 5, 7]
    loop.tell(cands, objective, measures, np.arange(100, 105), seeds)
    # round 1 replays the incumbent on the games of all four candidates of cell 0.
    # cand 0: incumbent replayed on seed 3 scores 10 + 0 = 10, a tie -> kept (strictly better)
    # cand 1: incumbent on seed 6 scores 10 < 10.5 -> replaced; round 2 replays cand 1 on the
    # games of cands 2 and 3; cand 2: 5 + 1 = 6 < 12 -> replaced; cand 3 is identical to
    # cand 2 -> rejected (its replay by cand 1, made in advance, is not used)
    assert calls == [([10, 10, 10, 10], [3, 6, 4, 5]), ([5, 5], [4, 5])]
    assert loop.archive.solution[0].tolist() == cands[2].tolist()
    assert loop.archive.objective[0] == 12.0  # stored: measured at insertion
    assert loop.archive.candidate[0] == 102
    assert loop.archive.occupied[3]
    assert loop.archive.candidate[3] == 104
    c = loop.counters
    assert (c.inserted, c.replaced, c.rejected, c.identical) == (1, 2, 2, 1)
    assert c.incumbent_evaluations == 6
    assert c.rounds == 1  # evaluator calls after the first of the batch


def test_stored_objective_may_go_down():
    loop = MapElites(get_config("quick", dims=(1, 1)))
    _fake(loop, [])
    loop.archive.insert(0, _sol(2), 24.0, [0.5, 0.5])
    loop.tell(np.stack([_sol(4)]), np.array([3.0]), np.array([[0.5, 0.5]]), np.array([1]), [3])
    assert loop.archive.objective[0] == 3.0  # beat the re-evaluated incumbent (2), not 24


def test_incumbent_replay_uses_the_same_games():
    sol = np.random.default_rng(0).choice(105, (2, 15), replace=False)
    a = evaluate_solutions(sol, [11, 11], games=6)
    b = evaluate_solutions(sol[::-1], [11, 11], games=6)
    assert np.array_equal(a.objective, b.objective[::-1])
    assert np.array_equal(a.counters, b.counters[::-1])
    c = evaluate_solutions(sol[:1], [12], games=6)
    assert not np.array_equal(a.scores[0], c.scores[0])


def _stop_point(scores: np.ndarray, target: int, max_score: int = 25) -> int:
    """Games a replay must play before its answer is certain (scores in play order)."""
    total = 0
    for i, x in enumerate(scores):
        if total >= target or total + max_score * (len(scores) - i) < target:
            return i
        total += int(x)
    return len(scores)


@pytest.mark.parametrize("players", [(2,), (2, 3)])
def test_replay_answers_as_the_full_replay_and_stops_early(players):
    # the answer of an early-stopped replay is the full replay's, whatever the backend and
    # worker count; each replay stops at the first game after which its answer is certain
    rng = np.random.default_rng(1)
    sol = rng.integers(0, 105, (12, 15))
    seeds = rng.integers(0, 1000, 12)
    full = evaluate_solutions(sol, seeds, games=8, players=players)
    config = MapElitesConfig(games=8, players=players)
    totals = full.scores.sum(axis=(1, 2))
    # targets around the true totals (ties included), plus certain answers at both ends
    targets = totals + rng.integers(-6, 7, 12)
    targets[:3] = totals[:3]
    targets[3] = 0
    targets[4] = 25 * 8 * len(players) + 1
    expect = totals >= targets
    # play order: player counts in the given order, then game index
    in_order = full.scores.reshape(12, -1)
    stops = np.array([_stop_point(in_order[i], targets[i]) for i in range(12)])
    assert stops[3] == stops[4] == 0
    assert (stops < in_order.shape[1]).sum() >= 3  # some replays stop early
    runs = []
    for backend in (SerialBackend(), ThreadBackend(2, min_chunk=2), ThreadBackend(3, min_chunk=1)):
        with backend:
            r = replay_holds(sol, seeds, targets, config, backend)
        assert np.array_equal(r.holds, expect)
        assert np.array_equal(r.played, stops)
        assert r.games == r.played.sum()
        partial = np.array([in_order[i, : stops[i]].sum() for i in range(12)])
        assert np.array_equal(r.totals, partial)
        runs.append(r)
    assert all(q.moves == runs[0].moves for q in runs)


def test_replay_rejects_bad_arguments():
    sol = np.zeros((2, 15), np.int64)
    with pytest.raises(ValueError, match="targets"):
        replay_holds(sol, [1, 2], [3], MapElitesConfig(games=4))
    with pytest.raises(TypeError, match="config"):
        replay_holds(sol, [1, 2], [3, 4], {"games": 4})


def test_batches_never_straddle_phase1():
    loop = MapElites(get_config("quick", candidates=100, random_candidates=30, batch_size=25))
    sizes = []
    while not loop.done:
        n = loop.next_batch_size()
        sizes.append(n)
        loop.n_evaluated += n
    assert sizes == [25, 5, 25, 25, 20]


def test_results_do_not_depend_on_the_number_of_workers():
    serial = MapElites(TINY)
    serial.run(progress=False)
    for backend_type in (ProcessBackend, ThreadBackend):
        with backend_type(2, min_chunk=10) as backend:
            parallel = MapElites(TINY, backend)
            parallel.run(progress=False)
        assert serial.archive.equals(parallel.archive)
        assert serial.counters == parallel.counters
    assert len(serial.archive) >= 5


def test_checkpoint_resume_gives_the_uninterrupted_archive(tmp_path):
    full = MapElites(TINY)
    full.run(progress=False)

    class Killed(Exception):
        pass

    def kill_at_125(loop):
        if loop.n_evaluated == 125:  # the last checkpoint was written at 100
            raise Killed

    ckpt = tmp_path / "checkpoint.json"
    with pytest.raises(Killed):
        MapElites(TINY).run(progress=False, checkpoint=ckpt, callback=kill_at_125)
    resumed = MapElites.from_checkpoint(ckpt, TINY)
    assert resumed.n_evaluated == 100
    resumed.run(progress=False, checkpoint=ckpt)
    assert resumed.archive.equals(full.archive)
    assert resumed.counters == full.counters
    assert MapElites.from_checkpoint(ckpt).archive.equals(full.archive)


def test_corrupt_and_mismatched_checkpoints_raise(tmp_path):
    ckpt = tmp_path / "checkpoint.json"
    loop = MapElites(TINY)
    loop.run(progress=False, checkpoint=ckpt, stop_after=50)
    doc = json.loads(ckpt.read_text())

    with pytest.raises(CheckpointError, match=r"belongs to a different run.*games"):
        MapElites.from_checkpoint(ckpt, dataclasses.replace(TINY, games=5))
    # name and checkpoint_every do not change results
    MapElites.from_checkpoint(ckpt, dataclasses.replace(TINY, name="x", checkpoint_every=7))

    doc["payload"]["archive"]["elites"][0]["objective"] += 1.0
    ckpt.write_text(json.dumps(doc))
    with pytest.raises(CheckpointError, match="checksum"):
        MapElites.from_checkpoint(ckpt, TINY)
    ckpt.write_text(ckpt.read_text()[:200])  # truncated
    with pytest.raises(CheckpointError, match="corrupt"):
        MapElites.from_checkpoint(ckpt, TINY)
    ckpt.write_text('{"format": "something-else"}')
    with pytest.raises(CheckpointError, match="not a"):
        MapElites.from_checkpoint(ckpt, TINY)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        MapElites.from_checkpoint(tmp_path / "missing.json", TINY)


def test_run_map_elites_refuses_to_overwrite_and_resumes(tmp_path):
    cfg = dataclasses.replace(TINY, reeval_games=3)
    loop, summary = run_map_elites(cfg, tmp_path, workers=1, progress=False, stop_after=75)
    assert summary == {}
    assert loop.n_evaluated == 75
    with pytest.raises(CheckpointError, match="resume"):
        run_map_elites(cfg, tmp_path, workers=1, progress=False)
    loop, summary = run_map_elites(cfg, tmp_path, resume=True, workers=1, progress=False)
    assert loop.n_evaluated == 150
    assert summary["archive_stats"]["num_elites"] == len(loop.archive)
    assert "reeval_objective" in loop.archive.fields
    assert np.isfinite(loop.archive.fields["reeval_objective"][loop.archive.occupied]).all()
    for name in ("archive.json", "elites.csv", "summary.json", "checkpoint.json"):
        assert (tmp_path / name).exists()


def test_cli_map_elites_outputs(tmp_path, capsys):
    pytest.importorskip("ribs")
    args = ["map-elites", "--candidates", "40", "--random", "20", "--games", "3"]
    args += ["--reeval-games", "4", "--grid", "3", "--workers", "1", "--quiet"]
    args += ["--out", str(tmp_path), "--matchups", "2", "--seed", "5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "coverage" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["config"]["dims"] == [3, 3]
    assert summary["candidates"] == 40
    assert (tmp_path / "heatmap.png").read_bytes()[:4] == b"\x89PNG"
    n = summary["archive_stats"]["num_elites"]
    assert len((tmp_path / "matchups.csv").read_text().splitlines()) == 1 + n * n
    assert main([*args[:-2], "--seed", "6"]) == 2  # checkpoint exists, no --resume


def test_killed_process_resumes_to_the_same_archive(tmp_path):
    """SIGKILL a real CLI run after its first checkpoint, resume it, compare."""
    cfg = toy_config(600, 100, games=3, batch=20, every=60, seed=8)
    full = MapElites(cfg, SerialBackend())
    full.run(progress=False)
    args = [sys.executable, "-m", "hanabi_adhoc", "map-elites", "--candidates", "600"]
    args += ["--random", "100", "--games", "3", "--reeval-games", "0", "--batch-size", "20"]
    args += ["--checkpoint-every", "60", "--seed", "8", "--workers", "1", "--quiet"]
    args += ["--out", str(tmp_path)]
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ckpt = tmp_path / "checkpoint.json"
    deadline = time.time() + 120
    while not ckpt.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert ckpt.exists(), proc.stderr.read().decode()[-2000:]
    assert MapElites.read_checkpoint(ckpt)["n_evaluated"] < 600  # killed mid-run
    # resume through the CLI with no options but --out: the checkpoint's settings are used
    assert (
        main(["map-elites", "--resume", "--out", str(tmp_path), "--workers", "1", "--quiet"]) == 0
    )
    assert load_archive(tmp_path / "archive.json").equals(full.archive)


def test_batched_replays_give_the_sequential_algorithm():
    # a replay made in advance is only used if that incumbent is still in the cell; the
    # archive equals the one-candidate-at-a-time algorithm (docs/rules.md §7.1) on the same batch
    rng = np.random.default_rng(5)
    cands = rng.integers(0, 12, (40, 15))
    objective = rng.integers(0, 15, 40).astype(float)
    measures = rng.choice([0.1, 0.9], (40, 2))
    seeds = [int(x) for x in rng.integers(0, 100, 40)]
    batched = MapElites(get_config("quick", dims=(2, 2)))
    _fake(batched, [])
    batched.tell(cands, objective, measures, np.arange(40), seeds)
    sequential = MapElites(get_config("quick", dims=(2, 2)))
    _fake(sequential, [])
    for i in range(40):
        sequential.tell(
            cands[i : i + 1],
            objective[i : i + 1],
            measures[i : i + 1],
            np.arange(i, i + 1),
            seeds[i : i + 1],
        )
    assert batched.archive.equals(sequential.archive)
    assert batched.counters.replaced == sequential.counters.replaced > 0

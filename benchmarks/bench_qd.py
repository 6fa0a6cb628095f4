"""Benchmark: MAP-Elites throughput and its extrapolation to a paper-scale run.

Runs the same MAP-Elites configuration ([CoG19] Algorithm 1, 2-player mirror self-play, lenient
scoring; paired incumbent re-evaluation included) with 1 and 2 local workers (threads; or the
counts given by ``--workers``), checks that the archives are identical, and prints candidates/s,
games/s (candidate and incumbent games actually played: replays stop once their answer is
certain), the extrapolated wall time of a paper-scale run
(10⁶ candidates × 100 games, with the same mix of incumbent re-evaluations) and the speed-up.

    python benchmarks/bench_qd.py                      # 10⁴ candidates × 100 games (long)
    python benchmarks/bench_qd.py --candidates 1000 --random 100 --games 100
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qd.config import get_config
from qd.evaluator import make_backend, warm_up
from qd.scheduler import MapElites

PAPER_CANDIDATES = 1_000_000
PAPER_GAMES = 100


def run_once(config, workers: int) -> dict:
    with make_backend(workers) as backend:
        loop = MapElites(config, backend)
        t0 = time.perf_counter()
        loop.run(progress=False)
        dt = time.perf_counter() - t0
    c = loop.counters
    cand_s = loop.n_evaluated / dt
    # a paper run plays PAPER_GAMES per evaluation: scale the time per candidate seen here
    # (same mix of incumbent replays, and of replays stopped early) by the games per evaluation
    evals_per_candidate = (loop.n_evaluated + c.incumbent_evaluations) / loop.n_evaluated
    games_s = c.games / dt
    paper_seconds = PAPER_CANDIDATES / cand_s * PAPER_GAMES / config.games
    return {
        "workers": workers,
        "seconds": dt,
        "candidates_per_s": cand_s,
        "games_per_s": games_s,
        "moves_per_s": c.moves / dt,
        "games": c.games,
        "evaluations_per_candidate": evals_per_candidate,
        "identical_skipped": c.identical,
        "replay_games_skipped": c.replay_games_skipped,
        "paper_run_hours": paper_seconds / 3600,
        "coverage": loop.archive.stats().num_elites,
        "best": loop.archive.stats().obj_max,
        "archive": loop.archive,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--candidates", type=int, default=10_000)
    p.add_argument("--random", type=int, default=1_000, help="phase-1 random candidates")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--grid", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=100)
    p.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the results as JSON")
    args = p.parse_args(argv)
    config = get_config(
        "paper",
        candidates=args.candidates,
        random_candidates=min(args.random, args.candidates),
        games=args.games,
        dims=(args.grid, args.grid),
        batch_size=args.batch_size,
        seed=args.seed,
        reeval_games=0,
    )
    t0 = time.perf_counter()
    warm_up()
    print(f"numba warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s")
    print(
        f"MAP-Elites {args.candidates} candidates ({config.random_candidates} random) x "
        f"{args.games} games, {args.grid}x{args.grid}, batch {args.batch_size}, "
        f"{platform.processor() or platform.machine()}"
    )
    results = []
    for w in (int(x) for x in args.workers.split(",")):
        r = run_once(config, w)
        results.append(r)
        print(
            f"workers {w}: {r['seconds']:.1f} s, {r['candidates_per_s']:.1f} candidates/s, "
            f"{r['games_per_s']:.0f} games/s ({r['moves_per_s'] / 1e3:.0f}k moves/s), "
            f"{r['evaluations_per_candidate']:.2f} evaluations/candidate "
            f"({r['replay_games_skipped']} replay games stopped early), "
            f"coverage {r['coverage']}, best {r['best']:.2f}"
        )
        print(
            f"  extrapolated paper run ({PAPER_CANDIDATES:.0e} candidates x {PAPER_GAMES} "
            f"games): {r['paper_run_hours']:.1f} h"
        )
    same = all(r["archive"].equals(results[0]["archive"]) for r in results)
    print(f"identical archives across worker counts: {same}")
    if len(results) > 1:
        base = results[0]["seconds"]
        for r in results[1:]:
            print(
                f"speed-up {results[0]['workers']} -> {r['workers']} workers: "
                f"{base / r['seconds']:.2f}x"
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                [{k: v for k, v in r.items() if k != "archive"} for r in results], fh, indent=1
            )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Speed of the ad-hoc teamwork benchmark (issue 30; not a test).

Times :func:`hanabi_adhoc.benchmark.run_benchmark` on the full default suites (``pool``,
``published``, ``own``; every deal, every seat, every game size), nothing written to disk, for

* a rule agent (``--rule``, default Piers; target: at most 60 s on 2 cores),
* the Bayesian meta-agent (``meta``; its response table, built first, timed apart; target: at
  most 5 min),
* a MaskablePPO model (``--sb3 PATH``, optional; played by the Python game loop until batched
  neural play lands in :func:`agents.evaluate.play_games`),

and, as the anchor measured in the same run, the compiled evaluator's own speed (Piers mirror
games, :func:`agents.play`): each line prints games per second and its ratio to the anchor.
The machine (CPU model, cores usable, load average) is printed first: compare ratios across
machines, not seconds.

Usage::

    python3 benchmarks/bench_benchmark.py --workers 2
    python3 benchmarks/bench_benchmark.py --workers 2 --sb3 runs/sb3_partner.zip
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import play
from hanabi_adhoc.benchmark import DEFAULT_SUITES, load_suites, run_benchmark
from hanabi_adhoc.specs import make_agent


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return f"{cpu}; {cores} usable cores; load average {load}; Python {platform.python_version()}"


def timed(agent, workers: int) -> tuple[float, int]:
    t0 = time.perf_counter()
    bench = run_benchmark([agent], DEFAULT_SUITES, workers=workers, progress=False, train_games=20)
    return time.perf_counter() - t0, len(bench.runs[0].results)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rule", default="Piers", help="the rule agent to time")
    ap.add_argument("--sb3", default=None, help="a MaskablePPO .zip to time (trusted)")
    ap.add_argument("--skip-meta", action="store_true")
    ap.add_argument("--anchor-games", type=int, default=20000)
    args = ap.parse_args(argv)
    print(f"machine: {machine()}")
    suites = load_suites(list(DEFAULT_SUITES))
    print("suites: " + ", ".join(f"{s.key} ({s.partners} partners)" for s in suites))
    play(["Piers", "Piers"], games=200, workers=args.workers)  # load the kernels first
    t0 = time.perf_counter()
    play(["Piers", "Piers"], games=args.anchor_games, workers=args.workers)
    anchor = args.anchor_games / (time.perf_counter() - t0)
    print(f"anchor: compiled evaluator, Piers mirror, 2 players: {anchor:,.0f} games/s")

    def report(what: str, seconds: float, games: int) -> None:
        rate = games / seconds
        print(f"{what}: {seconds:.1f} s for {games:,} games ({rate:,.0f} games/s, "
              f"{rate / anchor:.3f} of the anchor)")  # fmt: skip

    report(f"rule agent {args.rule}, full default suites", *timed(args.rule, args.workers))
    if not args.skip_meta:
        t0 = time.perf_counter()
        meta = make_agent("meta", 0, train_games=20, progress=False, workers=args.workers)
        print(f"meta-agent response table (22 x 22 x 20 games): {time.perf_counter() - t0:.1f} s")
        report("meta-agent (adaptive), full default suites", *timed(meta, args.workers))
    if args.sb3:
        sb3 = make_agent(f"sb3:{args.sb3}", 0, trust_model=True)
        report(f"MaskablePPO {args.sb3}, full default suites", *timed(sb3, args.workers))
    return 0


if __name__ == "__main__":
    sys.exit(main())

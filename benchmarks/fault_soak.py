"""Fault soak: SIGKILL real runs at many random points; resumed results must be identical.

The scenarios of ``tests/hanabi_adhoc/test_faults.py`` (MAP-Elites, the GA, match-up tables,
response tables, the pipeline), each run once uninterrupted (the reference) and then, round
after round in fresh folders, killed ``--per-round`` times at random points (delays from a
generator seeded with ``--seed``) and rerun to completion, until ``--kills`` kills have landed.
Every round's final outputs must equal the reference's, and after every kill all descendants of
the killed process (pool and Dask workers) must be gone within 5 s.

    python benchmarks/fault_soak.py --kills 20 --seed 1
    python benchmarks/fault_soak.py --kills 5 --scenarios map-elites pipeline

Prints one line per round and a summary table; the exit code is 1 if any round differed or left
an orphan.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _faults():
    """``tests/hanabi_adhoc/test_faults.py`` as a module (its scenarios and kill helpers)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("tests.hanabi_adhoc.test_faults")


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    faults = _faults()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--kills", type=int, default=10, help="kills to land per scenario (default 10)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill delays (default 0)")
    parser.add_argument(
        "--per-round",
        type=int,
        default=2,
        help="kills per round before the run is let finish (default 2)",
    )
    parser.add_argument(
        "--scenarios",
        nargs="+",
        choices=list(faults.SCENARIOS),
        default=list(faults.SCENARIOS),
        help="scenarios to soak (default: all)",
    )
    args = parser.parse_args(argv)
    if args.kills < 1 or args.per_round < 1:
        parser.error("--kills and --per-round must be >= 1")
    rng = np.random.default_rng(args.seed)
    summary = []
    with tempfile.TemporaryDirectory(prefix="fault-soak-") as tmp:
        for name in args.scenarios:
            scenario = faults.SCENARIOS[name]
            t0 = time.monotonic()
            ref = faults.reference(scenario, Path(tmp) / name / "reference")
            print(f"{name}: reference {ref['seconds']:.1f} s", flush=True)
            kills = resumable = rounds = differ = 0
            orphans: list[str] = []
            while kills < args.kills and rounds < 3 * args.kills:
                rounds += 1
                res = faults.check_scenario(
                    scenario, Path(tmp) / name / f"round{rounds}", rng, args.per_round, ref
                )
                kills += res["kills"]
                resumable += res["resumable"]
                orphans += res["orphans"]
                differ += not res["identical"]
                delays = ", ".join(f"{d:.2f}" for d in res["delays"])
                print(
                    f"  round {rounds}: delays [{delays}] s, {res['kills']} killed, "
                    f"{'identical' if res['identical'] else 'DIFFERENT'}"
                    + (f", ORPHANS {res['orphans']}" if res["orphans"] else ""),
                    flush=True,
                )
            summary.append(
                (name, rounds, kills, resumable, len(orphans), differ, time.monotonic() - t0)
            )
    print()
    print(f"{'scenario':<16}{'rounds':>7}{'kills':>7}{'resumed':>9}{'orphans':>9}"
          f"{'differ':>8}{'time':>9}")  # fmt: skip
    for name, rounds, kills, resumable, n_orphans, differ, seconds in summary:
        print(
            f"{name:<16}{rounds:>7}{kills:>7}{resumable:>9}{n_orphans:>9}{differ:>8}"
            f"{seconds:>8.0f}s"
        )
    bad = any(s[4] or s[5] for s in summary)
    print("FAILED: see DIFFERENT/ORPHANS above" if bad else "resumed runs identical, no orphans")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

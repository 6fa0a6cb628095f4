"""Re-evaluate the papers' published populations in both rulesets (docs/rules.md §12).

    python benchmarks/reproduce_reference.py [--games 1000] [--seed 0] [--workers N]

For the published 5x5 population (run 1): each elite's mean score over ``--games`` 2-player
mirror games (lenient) in the reference and the corrected ruleset, against its published
fitness (mean |Δ|, the largest |Δ|). For the published 20x20 population (run 1): the share of
elites whose re-measured communicativeness/IPP cell lies within ±1 cell (per axis) of the
published cell, reference binning for the reference ruleset. Prints a table and JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from qd.evaluator import ProcessBackend, SerialBackend, evaluate_solutions
from qd.io import load_population
from qd.measures import bin_index, get_measure, measures_from_counters


def _evaluate(archive, games: int, seed: int, ruleset: str, backend):
    cells = np.flatnonzero(archive.occupied)
    sol = archive.solution[cells]
    ev = evaluate_solutions(
        sol, [seed] * len(sol), games, (2,), "lenient", backend, ruleset=ruleset
    )
    meas = measures_from_counters(ev.counters, [get_measure(m) for m in archive.measure_names])
    return cells, ev.objective, meas


def main() -> None:
    """Parse the options, re-evaluate both populations, print the results."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    backend = ProcessBackend(args.workers) if args.workers > 1 else SerialBackend()
    out: dict = {"games": args.games, "seed": args.seed}
    t0 = time.time()
    pop5 = load_population("5x5")
    for ruleset in ("reference", "corrected"):
        cells, obj, _ = _evaluate(pop5, args.games, args.seed, ruleset, backend)
        published = pop5.fields.get("published_fitness", pop5.objective)[cells]
        if np.isnan(published).all():
            published = pop5.objective[cells]
        delta = obj - published
        out[f"5x5_{ruleset}"] = {
            "elites": len(cells),
            "mean_abs_delta": float(np.mean(np.abs(delta))),
            "max_abs_delta": float(np.max(np.abs(delta))),
            "r": float(np.corrcoef(obj, published)[0, 1]),
        }
    pop20 = load_population("20x20")
    for ruleset in ("reference", "corrected"):
        cells, obj, meas = _evaluate(pop20, args.games, args.seed, ruleset, backend)
        binning = "reference" if ruleset == "reference" else "floor"
        grid = bin_index(meas, pop20.dims, pop20.ranges, binning)
        published = np.stack(np.unravel_index(cells, pop20.dims), axis=1)
        within = np.all(np.abs(grid - published) <= 1, axis=1)
        same = np.all(grid == published, axis=1)
        out[f"20x20_{ruleset}"] = {
            "elites": len(cells),
            "share_within_1_cell": float(within.mean()),
            "share_same_cell": float(same.mean()),
        }
    out["seconds"] = round(time.time() - t0, 1)
    for key, val in out.items():
        print(f"{key:>22}: {val}")
    print(json.dumps(out))
    if hasattr(backend, "close"):
        backend.close()


if __name__ == "__main__":
    main()

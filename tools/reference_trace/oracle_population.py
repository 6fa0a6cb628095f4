#!/usr/bin/env python3
"""Re-measure the published 20x20 population (run 1) with the Java reference (see README.md here).

For every elite of ``qd.io.load_population("20x20")`` (311 elites; genes are indices of the
105-rule alphabet, the same indices ``Rulebase.ruleMapping`` takes) this runs the reference
driver's ``chrom`` command: ``Rulebase(false)`` genes -> ``Rulebase.makeAgent`` ->
``HistogramAgent`` wrapped in one ``ReportAgent`` shared by every seat, mirror games played as
``ConstantNumberPlayersTest`` plays them (one ``java.util.Random(seed)`` for seats and decks),
exactly as ``RunMapElites`` evaluates a candidate. It records per elite the mean (lenient) score
and ``ReportAgent``'s counters (possible hints, hints given, plays, known attributes on plays),
from which communicativeness = hints given / possible hints and IPP = known / (2 plays), the
MAP-Elites measures, follow exactly.

It then bins the measures as the reference does (``floor(v / (1/20))``,
``agents.reference.reference_bin``) and prints the share of elites whose re-measured cell lies
within +-1 cell per axis of the published cell, and the share in the same cell: the ceiling
for our own re-evaluation (``benchmarks/reproduce_reference.py``), since the published cells
come from one noisy evaluation plus selection.

    python tools/reference_trace/oracle_population.py --reference-build DIR [--limit 5]

DIR is the reference build folder (fw/ and hme/; or HANABI_REFERENCE_BUILD, or --classpath, as
for record.py). Java runs under ``nice -n 10``, one JVM per elite (``--jobs`` JVMs at a time).
Writes tests/data/reference_traces/oracle_population_20x20.json (``--out``); ``--check`` only
recomputes and prints the shares from that file (no Java needed). Standard library + the
project (for the population and the binning).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from record import classpath, compile_driver, java_cmd, java_version  # noqa: E402

OUT = ROOT / "tests" / "data" / "reference_traces" / "oracle_population_20x20.json"
COUNTERS = ("possible_hints", "hints_given", "plays", "known_attrs_on_plays")


def elites() -> tuple[list[int], list[list[int]], list[float], tuple[int, int]]:
    """(flat cell index, genes, published fitness, dims) of every elite, in cell order."""
    import numpy as np

    from qd.io import load_population

    pop = load_population("20x20")
    cells = [int(c) for c in np.flatnonzero(pop.occupied)]
    published = pop.fields.get("published_fitness", pop.objective)
    return (
        cells,
        [[int(g) for g in pop.solution[c]] for c in cells],
        [float(published[c]) for c in cells],
        tuple(int(d) for d in pop.dims),
    )


def measures(row: dict) -> tuple[float, float]:
    """(communicativeness, IPP) from the counters, as ReportAgent computes them (NaN if 0/0)."""
    ph, hg, pl, ka = (row[k] for k in COUNTERS)
    comm = hg / ph if ph else math.nan
    ipp = ka / (2.0 * pl) if pl else math.nan
    return comm, ipp


def shares(data: dict) -> dict:
    """Share of elites within +-1 cell per axis of the published cell, and in the same cell."""
    from agents.reference import reference_bin

    d_comm, d_ipp = data["dims"]
    within = same = 0
    rows = data["elites"]
    for row in rows:
        comm, ipp = measures(row)
        got = (reference_bin(comm, d_comm), reference_bin(ipp, d_ipp))
        pub = divmod(row["cell"], d_ipp)  # flat index of (comm bin, IPP bin), C order
        within += abs(got[0] - pub[0]) <= 1 and abs(got[1] - pub[1]) <= 1
        same += got == pub
    out = {
        "elites": len(rows),
        "within_1_cell": within,
        "same_cell": same,
        "share_within_1_cell": round(within / len(rows), 4),
        "share_same_cell": round(same / len(rows), 4),
    }
    # the 20x20 population file publishes no fitness; compare only where one is given
    deltas = [abs(r["mean"] - r["published_fitness"]) for r in rows if "published_fitness" in r]
    if deltas:
        out["fitness_mean_abs_delta"] = round(sum(deltas) / len(deltas), 4)
        out["fitness_max_abs_delta"] = round(max(deltas), 4)
    return out


def run_one(cp: str, classes: Path, genes: list[int], players: int, games: int, seed: int) -> dict:
    """The reference's ``chrom`` result for one chromosome."""
    cmd = java_cmd(
        cp, classes, "chrom", ",".join(map(str, genes)), str(players), str(games), str(seed)
    )
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    return json.loads(lines[-1])


def main() -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reference-build", help="reference build folder (has fw/ and hme/)")
    ap.add_argument("--classpath", help="explicit classpath of the reference")
    ap.add_argument("--jar-dir", default="/usr/share/java", help="where Debian's jars are")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0, help="java.util.Random seed of every elite")
    ap.add_argument("--limit", type=int, default=None, help="only the first N elites (a trial)")
    ap.add_argument("--jobs", type=int, default=1, help="JVMs at a time")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--check", action="store_true", help="only print the shares of --out")
    args = ap.parse_args()

    if args.check:
        data = json.loads(Path(args.out).read_text())
        print(json.dumps(shares(data), indent=1))
        return

    cp = classpath(args)
    cells, genes, published, dims = elites()
    n = len(cells) if args.limit is None else min(args.limit, len(cells))
    rows: list[dict | None] = [None] * n
    t0 = time.time()
    c0 = os.times()
    with tempfile.TemporaryDirectory() as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        compile_driver(cp, classes)

        def job(k: int) -> None:
            r = run_one(cp, classes, genes[k], args.players, args.games, args.seed)
            rows[k] = {
                "cell": cells[k],
                "genes": genes[k],
                **({"published_fitness": published[k]} if math.isfinite(published[k]) else {}),
                "mean": r["mean"],
                "sem": round(r["sem"], 5),
                "abnormal_ends": r["abnormal_ends"],
                # the exact counters: the driver prints the ratios rounded to 6 decimals, too
                # coarse for bin edges; communicativeness and IPP follow from these (measures())
                **{k2: r[k2] for k2 in COUNTERS},
            }

        done = 0
        with ThreadPoolExecutor(args.jobs) as pool:
            for _ in pool.map(job, range(n)):
                done += 1
                if done % 10 == 0 or done == n:
                    print(f"{done}/{n} elites, {time.time() - t0:.0f} s", file=sys.stderr)
    c1 = os.times()
    data = {
        "what": (
            "Java reference re-measurement of the published 20x20 population, run 1: per elite "
            "the 'chrom' command's mean lenient score and ReportAgent counters "
            "(communicativeness = hints_given / possible_hints, ipp = known_attrs_on_plays / "
            "(2 plays)); cell = published flat cell index (comm bin * 20 + IPP bin)"
        ),
        "provenance": {
            "command": (
                "python tools/reference_trace/oracle_population.py --reference-build DIR"
                f" --players {args.players} --games {args.games} --seed {args.seed}"
                + (f" --limit {args.limit}" if args.limit is not None else "")
            ),
            "oracle_command": (
                f"nice -n 10 java ... reference.TraceBench chrom GENES {args.players} "
                f"{args.games} {args.seed}  (one JVM per elite)"
            ),
            "reference": (
                "fossgalaxy/hanabi framework v0.2.1 (commit e0c40b6) + rocanaan/Hanabi-Map-Elites "
                "starter/src/main/java at 8e55f9e, used as an oracle only"
            ),
            "project_commit": git_commit(),
            "date": time.strftime("%Y-%m-%d"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, {cpu_model()}",
            "java": java_version(),
            "wall_s": round(time.time() - t0, 1),
            "child_cpu_s": round(
                (c1.children_user + c1.children_system) - (c0.children_user + c0.children_system),
                1,
            ),
        },
        "players": args.players,
        "games": args.games,
        "seed": args.seed,
        "dims": list(dims),
        "binning": "reference: floor(v / (1/20)) (agents.reference.reference_bin)",
        "elites": rows,
    }
    data["summary"] = shares(data)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    # one elite per line: small, and diffs stay readable
    text = text.replace(',"elites":[{', ',"elites":[\n{').replace('},{"cell"', '},\n{"cell"')
    out.write_text(text + "\n")
    print(json.dumps(data["summary"], indent=1))
    print(f"wrote {out}")


def git_commit() -> str:
    """The project's HEAD commit (and '+dirty' if the work tree has changes)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (Linux), else platform.processor()."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


if __name__ == "__main__":
    main()

"""Fault soak: kills, damaged files and two writers at random; nothing may be lost or trusted.

Three kinds of scenario, each drawn from a generator seeded with ``--seed``:

* **kills** -- the scenarios of ``tests/hanabi_adhoc/test_faults.py`` (MAP-Elites, the GA,
  match-up tables, response tables, the pipeline), each run once uninterrupted (the reference)
  and then, round after round in fresh folders, SIGKILLed ``--per-round`` times at random points
  and rerun to completion, until ``--kills`` kills have landed. Every round's final outputs must
  equal the reference's, and after every kill all descendants of the killed process (pool and
  Dask workers) must be gone within 5 s.
* **damage** -- ``--damage`` times, one damage of ``tests/hanabi_adhoc/test_damaged_results.py``
  (an edited objective, a truncated or swapped evaluation, a file of another study, ...) drawn at
  random and applied to a copy of a finished tiny study, with or without its manifest; resuming
  it must end with exit code 2 and one ``error:`` line naming the damaged file.
* **races** -- ``--races`` times, a command of ``tests/hanabi_adhoc/test_one_writer.py`` drawn at
  random is started twice on one output, the second after a random delay (possibly before the
  first has taken the lock): exactly one may run; the other must be refused naming it.

    python benchmarks/fault_soak.py --kills 20 --damage 40 --races 8 --seed 1
    python benchmarks/fault_soak.py --kills 5 --scenarios map-elites pipeline --damage 0

Prints one line per round and a summary table (scenarios, failures, data lost: a resumed result
that differs, a damaged file accepted, or two writers running at once); the exit code is 1 if
anything failed.
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


def _test_module(name: str):
    """``tests/hanabi_adhoc/<name>.py`` as a module (its scenarios and helpers)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(f"tests.hanabi_adhoc.{name}")


def _faults():
    """``tests/hanabi_adhoc/test_faults.py`` as a module (its scenarios and kill helpers)."""
    return _test_module("test_faults")


def soak_kills(args, rng, tmp: Path) -> list[tuple]:
    """The kill rounds of every scenario: ``(name, scenarios, failures, lost, detail)`` rows."""
    faults = _faults()
    rows = []
    for name in args.scenarios:
        scenario = faults.SCENARIOS[name]
        t0 = time.monotonic()
        ref = faults.reference(scenario, tmp / name / "reference")
        print(f"{name}: reference {ref['seconds']:.1f} s", flush=True)
        kills = resumable = rounds = differ = 0
        orphans: list[str] = []
        while kills < args.kills and rounds < 3 * args.kills:
            rounds += 1
            res = faults.check_scenario(
                scenario, tmp / name / f"round{rounds}", rng, args.per_round, ref
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
        detail = (
            f"{kills} kills ({resumable} after saved progress), {len(orphans)} orphans, "
            f"{time.monotonic() - t0:.0f} s"
        )
        rows.append((f"kill {name}", rounds, differ + len(orphans), differ, detail))
    return rows


def soak_damage(n: int, rng, tmp: Path) -> tuple:
    """``n`` random damages of a finished study: one row of the summary."""
    damaged = _test_module("test_damaged_results")
    t0 = time.monotonic()
    studies = damaged.make_studies(tmp / "study0", tmp / "study1")
    names = list(damaged.DAMAGES)
    failures = lost = 0
    for k in range(n):
        name = names[int(rng.integers(len(names)))]
        manifests = name not in damaged.LEGACY or bool(rng.integers(2))
        code, lines, named = damaged.damaged_resume(name, studies, tmp / f"damage{k}", manifests)
        errors = [x for x in lines if x.startswith("error:")]
        ok = code == 2 and len(errors) == 1 and named in errors[0] and "Traceback" not in lines
        lost += code == 0  # the damaged file was trusted
        failures += not ok
        what = "with" if manifests else "without"
        print(f"  damage {k}: {name} ({what} manifest): {'refused' if ok else lines[-3:]}")
    return ("damage", n, failures, lost, f"{time.monotonic() - t0:.0f} s")


def soak_races(n: int, rng, tmp: Path) -> tuple:
    """``n`` races of two writers on one output: one row of the summary."""
    one = _test_module("test_one_writer")
    t0 = time.monotonic()
    names = list(one.LONG)
    failures = lost = 0
    for k in range(n):
        name = names[int(rng.integers(len(names)))]
        line, _ = one.LONG[name]
        cwd = tmp / f"race{k}"
        cwd.mkdir()
        delay = float(rng.uniform(0.0, 3.0))
        first = one.start(line, cwd)
        time.sleep(delay)
        second = one.start(line, cwd)
        try:
            deadline = time.monotonic() + 120
            while first.poll() is None and second.poll() is None:
                assert time.monotonic() < deadline, "neither was refused in 120 s"
                time.sleep(0.05)
            time.sleep(0.5)
            ended = [p for p in (first, second) if p.poll() is not None]
            running = [p for p in (first, second) if p.poll() is None]
            ok = len(ended) == 1 and len(running) == 1
            if ok:
                err = ended[0].stderr.read()
                ok = ended[0].returncode == 2 and f"pid {running[0].pid}" in err
            lost += len(running) == 2
        finally:
            one.stop(first)
            one.stop(second)
        failures += not ok
        print(f"  race {k}: {name}, second after {delay:.2f} s: {'one writer' if ok else 'FAILED'}")
    return ("races", n, failures, lost, f"{time.monotonic() - t0:.0f} s")


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    faults = _faults()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--kills", type=int, default=10, help="kills to land per scenario, 0 = none (default 10)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every draw (default 0)")
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
        help="kill scenarios to soak (default: all)",
    )
    parser.add_argument(
        "--damage", type=int, default=10, help="random damages of a study, 0 = none (default 10)"
    )
    parser.add_argument(
        "--races", type=int, default=4, help="random races of two writers, 0 = none (default 4)"
    )
    args = parser.parse_args(argv)
    if min(args.kills, args.damage, args.races) < 0 or args.per_round < 1:
        parser.error("--kills, --damage and --races must be >= 0, --per-round >= 1")
    rng = np.random.default_rng(args.seed)
    rows: list[tuple] = []
    with tempfile.TemporaryDirectory(prefix="fault-soak-") as tmp:
        if args.kills:
            rows += soak_kills(args, rng, Path(tmp) / "kills")
        if args.damage:
            print("damage:", flush=True)
            rows.append(soak_damage(args.damage, rng, Path(tmp) / "damage"))
        if args.races:
            print("races:", flush=True)
            (Path(tmp) / "races").mkdir()
            rows.append(soak_races(args.races, rng, Path(tmp) / "races"))
    print()
    print(f"{'scenario':<22}{'scenarios':>10}{'failures':>10}{'data lost':>11}  detail")
    for name, n, failures, lost, detail in rows:
        print(f"{name:<22}{n:>10}{failures:>10}{lost:>11}  {detail}")
    bad = any(r[2] or r[3] for r in rows)
    print("FAILED: see above" if bad else "no failures, no data lost")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

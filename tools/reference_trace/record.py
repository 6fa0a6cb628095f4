#!/usr/bin/env python3
"""Record differential-test traces from the Java reference (see README.md in this folder).

Compiles TraceBench.java against a reference build, writes the job lists, runs them (one JVM per
category, niced) and stores one gzip'd JSON-lines file per category under
tests/data/reference_traces/. Standard library only.

    python tools/reference_trace/record.py --reference-build DIR            # the full set
    python tools/reference_trace/record.py --reference-build DIR --quick    # a small smoke set
    python tools/reference_trace/record.py --reference-build DIR --speed    # + the speed anchor

DIR is the output folder of the reference's build script (it holds fw/ and hme/); instead of
--reference-build one may set HANABI_REFERENCE_BUILD, or give a full --classpath /
HANABI_REFERENCE_CLASSPATH (framework + Hanabi-Map-Elites classes and their jars).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT_DIR = ROOT / "tests" / "data" / "reference_traces"
SRC = HERE / "TraceBench.java"

# Debian's jars the reference needs at compile and run time (slf4j-nop first: no logging).
DEBIAN_JARS = [
    "slf4j-nop",
    "slf4j-api",
    "commons-math3",
    "commons-collections4",
    "json-simple",
    "jackson-databind",
    "jackson-core",
    "jackson-annotations",
]

BASELINES = ["IGGI", "Internal", "Outer", "LegalRandom", "VanDenBergh", "Flawed", "Piers"]
SIZES = "2-5"
# Single-rule agents: [i] + FALLBACK. A deterministic IGGI-like tail: PlaySafeCard (8),
# TellAnyoneAboutUsefulCard (13), DiscardOldestFirst (27), TellMostInformation (19).
FALLBACK = [8, 13, 27, 19]
N_RULES = 105
RANDOM_CHROMOSOMES = 200
RANDOM_CHROMOSOME_SEED = 20240917  # random.Random(seed).sample(range(105), 15) per chromosome
CHROMOSOME_LENGTH = 15

# Games per job and player count, and the base of the per-job java.util.Random seeds.
FULL = {"baselines": 50, "single_rules": 10, "published": 50, "random_chromosomes": 5}
QUICK = {"baselines": 5, "single_rules": 2, "published": 5, "random_chromosomes": 1}
SEED_BASE = {"baselines": 1000, "single_rules": 2000, "published": 3000, "random_chromosomes": 4000}


def classpath(args: argparse.Namespace) -> str:
    """The reference classpath from the arguments / environment."""
    cp = args.classpath or os.environ.get("HANABI_REFERENCE_CLASSPATH")
    build = args.reference_build or os.environ.get("HANABI_REFERENCE_BUILD")
    if not cp and not build:
        sys.exit("give --reference-build DIR (or HANABI_REFERENCE_BUILD), or --classpath")
    parts = []
    if build:
        b = Path(build)
        for sub in ("hme", "fw"):
            if not (b / sub).is_dir():
                sys.exit(f"{b / sub} missing: is {b} a reference build folder?")
            parts.append(str(b / sub))
        jar_dir = Path(args.jar_dir)
        for jar in DEBIAN_JARS:
            p = jar_dir / f"{jar}.jar"
            if not p.is_file():
                sys.exit(f"{p} missing (install the Debian packages the reference build needs)")
            parts.append(str(p))
    if cp:
        parts = cp.split(os.pathsep) + parts
    return os.pathsep.join(parts)


def compile_driver(cp: str, dest: Path) -> None:
    """Compile TraceBench.java into DEST."""
    cmd = [
        "javac",
        "-nowarn",
        "-encoding",
        "UTF-8",
        "--release",
        "8",
        "-Xlint:none",
        "-cp",
        cp,
        "-d",
        str(dest),
        str(SRC),
    ]
    subprocess.run(["nice", "-n", "10", *cmd], check=True)


def published() -> list[tuple[str, list[int]]]:
    """(name, chromosome) of the project's published chromosomes."""
    data = json.loads((ROOT / "agents" / "data" / "published_chromosomes.json").read_text())
    return [(d["name"], list(d["chromosome"])) for d in data]


def random_chromosomes() -> list[list[int]]:
    """The seeded random 15-gene chromosomes."""
    rng = random.Random(RANDOM_CHROMOSOME_SEED)
    return [rng.sample(range(N_RULES), CHROMOSOME_LENGTH) for _ in range(RANDOM_CHROMOSOMES)]


def jobs(category: str, games: int) -> list[tuple[str, str, str, int, int]]:
    """(label, spec, sizes, games, seed) per job; seed = SEED_BASE[category] + job index."""
    base = SEED_BASE[category]
    if category == "baselines":
        specs = [(name, f"agent:{name}@head") for name in BASELINES]
    elif category == "single_rules":
        specs = [
            (f"rule{i}", "chrom:" + ",".join(map(str, [i, *FALLBACK]))) for i in range(N_RULES)
        ]
    elif category == "published":
        specs = [(name, "chrom:" + ",".join(map(str, ch))) for name, ch in published()]
    elif category == "random_chromosomes":
        specs = [
            (f"random{k:03d}", "chrom:" + ",".join(map(str, ch)))
            for k, ch in enumerate(random_chromosomes())
        ]
    else:
        raise ValueError(category)
    return [(label, spec, SIZES, games, base + k) for k, (label, spec) in enumerate(specs)]


def java_cmd(cp: str, classes: Path, *args: str, core: str | None = None) -> list[str]:
    """The niced (optionally pinned) java command line for TraceBench ARGS."""
    cmd = ["nice", "-n", "10"]
    if core is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", core, *cmd]
    # Full stack traces for the exception sites recorded in the traces (HotSpot otherwise drops them
    # for hot implicit exceptions); this changes no behaviour. The speed anchor runs without it.
    jopts = ["-XX:-OmitStackTraceInFastThrow"] if args[0] == "trace" else []
    return [
        *cmd,
        "java",
        *jopts,
        "-cp",
        os.pathsep.join([str(classes), cp]),
        "reference.TraceBench",
        *args,
    ]


def main() -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reference-build", help="reference build folder (has fw/ and hme/)")
    ap.add_argument(
        "--classpath", help="explicit classpath of the reference (instead of / before the build)"
    )
    ap.add_argument("--jar-dir", default="/usr/share/java", help="where Debian's jars are")
    ap.add_argument("--out", default=str(OUT_DIR))
    ap.add_argument("--quick", action="store_true", help="a few games per job only")
    ap.add_argument("--categories", default=",".join(FULL))
    ap.add_argument("--speed", action="store_true", help="also measure the speed anchor")
    ap.add_argument("--speed-games", type=int, default=20000)
    ap.add_argument("--speed-warmup", type=int, default=5000)
    args = ap.parse_args()

    cp = classpath(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    games = QUICK if args.quick else FULL
    summary: dict = {
        "date": time.strftime("%Y-%m-%d"),
        "java": java_version(),
        "host": platform.machine(),
        "categories": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        compile_driver(cp, classes)
        for category in args.categories.split(","):
            job_list = jobs(category, games[category])
            job_file = Path(tmp) / f"{category}.tsv"
            job_file.write_text(
                "".join(
                    f"{category}\t{label}\t{spec}\t{sizes}\t{g}\t{seed}\n"
                    for label, spec, sizes, g, seed in job_list
                )
            )
            target = out / f"{category}.jsonl.gz"
            t0 = time.time()
            c0 = os.times()
            with gzip.open(target, "wb", compresslevel=9) as gz:
                proc = subprocess.Popen(
                    java_cmd(cp, classes, "trace", str(job_file)), stdout=subprocess.PIPE
                )
                assert proc.stdout is not None
                n_games = n_det = 0
                for line in proc.stdout:
                    gz.write(line)
                    if line.startswith(b'{"type": "game"'):
                        n_games += 1
                        n_det += b'"random_fired": false' in line
                if proc.wait() != 0:
                    sys.exit(f"TraceBench failed on {category}")
            c1 = os.times()
            summary["categories"][category] = {
                "jobs": len(job_list),
                "games": n_games,
                "games_without_random_moves": n_det,
                "bytes": target.stat().st_size,
                "wall_s": round(time.time() - t0, 1),
                "child_cpu_s": round(
                    (c1.children_user + c1.children_system)
                    - (c0.children_user + c0.children_system),
                    1,
                ),
            }
            print(category, summary["categories"][category], flush=True)
        if args.speed:
            summary["speed"] = []
            for agent in ("Piers", "IGGI"):
                cmd = java_cmd(
                    cp,
                    classes,
                    "speed",
                    agent,
                    "head",
                    "2",
                    str(args.speed_games),
                    str(args.speed_warmup),
                    core="1",
                )
                line = subprocess.run(
                    cmd, check=True, capture_output=True, text=True
                ).stdout.strip()
                summary["speed"].append(
                    {
                        "command": " ".join(cmd[cmd.index("reference.TraceBench") :]),
                        "taskset": "taskset -c 1" if shutil.which("taskset") else None,
                        "result": json.loads(line),
                    }
                )
                print(line, flush=True)
    (out / "record_summary.json").write_text(json.dumps(summary, indent=1) + "\n")


def java_version() -> str:
    """`java -version`, one line."""
    r = subprocess.run(["java", "-version"], capture_output=True, text=True)
    return " / ".join(x.strip() for x in r.stderr.splitlines() if x.strip())


if __name__ == "__main__":
    main()

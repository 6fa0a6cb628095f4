"""Throughput of behaviour cloning (agents.clone): decisions generated, trained, played per s.

Measured in one process, for docs/cloning.md §6:

1. **Generated**: the teacher plays ``--games`` self-play games and every decision is recorded
   (:func:`agents.clone.play_demonstrations`): decisions per second.
2. **Trained**: one epoch of :func:`agents.clone.train_clone` over those decisions (10 % held
   out), for the MLP (``--mlp``, default 512,512) and the GRU (``--gru``, default 256,256:
   an encoder of 256 then a GRU of 256): training decisions per second of the epoch (the
   held-out accuracy pass included), with ``--threads`` torch threads.
3. **Played**: the exported clones (numpy, no torch) in 2-player self-play through the lockstep
   player (:func:`agents.evaluate.play_games`): decisions per second.

Printed as a table with the machine's cores, its load and torch's threads, per wall-clock
second and per CPU-second of the process (on a shared machine the second is the steadier);
``--json PATH`` writes the numbers too. Usage::

    python benchmarks/bench_clone.py [--teacher smartbot] [--games 300] [--threads 1]
        [--mlp 512,512] [--gru 256,256] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from agents.clone import export_clone, play_demonstrations, train_clone
from agents.evaluate import game_seeds, play_games
from hanabi_env.config import HanabiConfig

CONFIG = HanabiConfig(players=2, scoring="lenient")


def generated(teacher: str, games: int) -> tuple[object, dict]:
    t0, c0 = time.perf_counter(), time.process_time()
    demos = play_demonstrations(teacher, games, config=CONFIG, seed=0)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return demos, {"decisions": len(demos), "seconds": seconds, "per_s": len(demos) / seconds,
                   "cpu_seconds": cpu, "per_cpu_s": len(demos) / cpu}  # fmt: skip


def trained(demos, hidden: list[int], recurrent: str | None, threads: int, out: Path) -> dict:
    c0 = time.process_time()
    result = train_clone(
        demos, hidden=hidden, epochs=1, holdout=0.1, seed=0, threads=threads, recurrent=recurrent
    )
    seconds, cpu = result.history[0]["seconds"], time.process_time() - c0
    n = result.settings["train_decisions"]
    partner = export_clone(result, demos, out, name=out.stem)
    games = 200
    _, deals, seeds = game_seeds(1, games, 2, False)
    play_games([partner], np.zeros((2, 2), np.int64), deals[:2], seeds[:2], CONFIG)  # warm up
    t0, c0 = time.perf_counter(), time.process_time()
    batch = play_games([partner], np.zeros((games, 2), np.int64), deals, seeds, CONFIG,
                       record_actions=True)  # fmt: skip
    played = int((np.asarray(batch.actions) >= 0).sum())
    play_s, play_cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"network": f"{recurrent or 'mlp'} {','.join(map(str, hidden))}",
            "train_decisions": n, "epoch_seconds": seconds, "trained_per_s": n / seconds,
            "trained_per_cpu_s": n / cpu, "played_decisions": played,
            "played_per_s": played / play_s, "played_per_cpu_s": played / play_cpu,
            "holdout_accuracy": result.history[0]["holdout_accuracy"]}  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--teacher", default="smartbot", help="the teacher's agent spec")
    ap.add_argument("--games", type=int, default=300, help="self-play games of the teacher")
    ap.add_argument("--threads", type=int, default=1, help="torch threads for training")
    ap.add_argument("--mlp", default="512,512", help="the MLP's hidden widths")
    ap.add_argument("--gru", default="256,256", help="encoder widths, then the GRU's size")
    ap.add_argument("--json", help="also write the numbers to this JSON file")
    args = ap.parse_args(argv)
    import torch

    demos, gen = generated(args.teacher, args.games)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for hidden, rec in ((args.mlp, None), (args.gru, "gru")):
            widths = [int(w) for w in hidden.split(",")]
            rows.append(trained(demos, widths, rec, args.threads, Path(tmp) / f"{rec}.json"))
    info = {"machine": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "torch": torch.__version__, "torch_threads": args.threads,
            "teacher": args.teacher, "generated": gen, "networks": rows}  # fmt: skip
    print(f"machine: {info['machine']}, {info['cores']} cores; torch {info['torch']}, "
          f"{args.threads} thread(s) for training")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f}; decisions per wall-clock second (per "
          "CPU-second of this process)")  # fmt: skip
    print(f"generated: {gen['decisions']} {args.teacher} decisions from {args.games} games, "
          f"{gen['per_s']:,.0f}/s ({gen['per_cpu_s']:,.0f}/CPU-s)")  # fmt: skip
    print(f"{'network':<16}{'trained/s':>20}{'epoch s':>10}{'played/s':>20}{'held-out':>10}")
    for r in rows:
        taught = f"{r['trained_per_s']:,.0f} ({r['trained_per_cpu_s']:,.0f})"
        played = f"{r['played_per_s']:,.0f} ({r['played_per_cpu_s']:,.0f})"
        print(f"{r['network']:<16}{taught:>20}{r['epoch_seconds']:>10.1f}{played:>20}"
              f"{r['holdout_accuracy']:>10.3f}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(info, indent=1) + "\n")
    return info


if __name__ == "__main__":
    main()

"""Fine-tuning throughput: learner steps per second of :func:`agents.rl.finetune` (issue 44 item 7).

A start network of the given widths (a clone of ``--teacher`` trained for one epoch on a few
games: the weights do not change the speed) is fine-tuned for ``--steps`` steps in each
setting below, in a fresh temporary folder, one torch thread; the script prints the steps per
wall-second and per CPU-second (the run's own ``cpu_seconds``: rollouts and updates, not the
set-up) of each:

* ``self-play``: the learner in every seat;
* ``self-play + teacher``: with the KL term toward the frozen start (``--teacher-coef 0.5``);
* ``self-play + Other-Play``: colour permutations on one seat;
* ``pool``: with ``--pool`` (default ``smartbot,piers``) in the other seat.

Not a test. Usage::

    nice -n 5 python3 benchmarks/bench_finetune.py --steps 8192 --hidden 512,512
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _start(folder: Path, teacher: str, hidden: list[int]) -> Path:
    from agents.clone import export_clone, play_demonstrations, train_clone

    demos = play_demonstrations(teacher, 20, seed=0)
    result = train_clone(demos, hidden=hidden, epochs=1, seed=0)
    path = folder / "start.json"
    export_clone(result, demos, path, name="start")
    return path


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print one line per setting."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=8192, help="steps per setting (default 8192)")
    p.add_argument("--hidden", default="512,512", help="start network widths (default 512,512)")
    p.add_argument("--envs", type=int, default=16, help="games side by side (default 16)")
    p.add_argument("--n-steps", type=int, default=64, help="rollout length (default 64)")
    p.add_argument("--teacher", default="smartbot", help="the start's teacher (default smartbot)")
    p.add_argument("--pool", default="smartbot,piers", help="the pool setting's partners")
    args = p.parse_args(argv)
    from agents.rl.finetune import PPOSettings, finetune

    hidden = [int(w) for w in args.hidden.split(",")]
    ppo = PPOSettings(envs=args.envs, n_steps=args.n_steps)
    settings: dict[str, dict[str, Any]] = {
        "self-play": {},
        "self-play + teacher": {"teacher_coef": 0.5},
        "self-play + Other-Play": {"other_play": True},
        "pool": {"partners": args.pool.split(",")},
    }
    with tempfile.TemporaryDirectory() as tmp:
        start = _start(Path(tmp), args.teacher, hidden)
        print(f"start network {args.hidden}, {args.envs} envs x {args.n_steps} steps a rollout, "
              f"{args.steps} steps per setting, 1 torch thread")  # fmt: skip
        for i, (label, kw) in enumerate(settings.items()):
            t0 = time.perf_counter()
            result = finetune(start, args.steps, Path(tmp) / f"run{i}", ppo=ppo, seed=i,
                              **kw)  # fmt: skip
            wall = time.perf_counter() - t0
            print(f"{label:24s} {result.steps / wall:8.0f} steps/s wall, "
                  f"{result.steps / result.cpu_seconds:8.0f} steps per CPU-second")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

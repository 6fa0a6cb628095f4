"""Throughput of BAD (agents.bad) on small Hanabi, and the cost of its pieces at full scale.

Measured in one process and one run (compare ratios, not absolute numbers), for docs/bad.md §4:

1. **Anchor**: the engine's compiled random-play loop (``engine.play_random_games``), moves/s.
2. **Rollouts** on HLE's small presets with the shipped network size: moves/s of BAD (V2
   belief, partial policy over every partner hand, counterfactual update) and of the baseline
   (V1 belief, the real hand only), sampled moves, ``--batch`` games side by side, no learning;
   and the rows (partner hands) BAD evaluates per move.
3. **Full-scale pieces** (5 colours × 5 ranks, 5-card hands): the network on a batch of rows
   (``--rows`` partner hands, [BAD19] sampled 3,000 per move in training) for the small
   network and for 2 × 384 units, in NumPy and torch on the CPU (and CUDA when present):
   rows/s and microseconds per move.

Usage::

    python benchmarks/bench_bad.py [--seconds 10] [--batch 32] [--rows 3000] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np
from threadpoolctl import threadpool_limits

from agents.bad.net import NumpyNet, param_shapes
from agents.bad.public import Layout
from agents.bad.runner import Games, decide
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig, hle_preset


def random_net(pub: int, priv: int, hidden: int, actions: int, dtype=np.float32) -> NumpyNet:
    rng = np.random.default_rng(0)
    shapes = param_shapes(pub, priv, hidden, 2, actions)
    return NumpyNet({k: rng.normal(0, 0.3, s) for k, s in shapes.items()}, dtype)


def anchor(seconds: float) -> float:
    s = E.new_state(HanabiConfig())
    out = np.zeros(1000, dtype=np.int64)
    E.play_random_games(s, 10, 0, out)  # compile
    moves, t0, seed = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        moves += E.play_random_games(s, 1000, seed, out)
        seed += 1000
    return moves / (time.perf_counter() - t0)


def rollouts(preset: str, bayesian: bool, batch: int, seconds: float) -> dict:
    lay = Layout(hle_preset(preset))
    net = random_net(lay.pub_dim, lay.priv_dim, 128, lay.n_actions)
    games = Games(lay, batch)
    for b in range(batch):
        games.deal(b, b)
    rng = np.random.default_rng(0)
    moves, rows, t0, step = 0, 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        actor = games.actors()
        noise = rng.gumbel(size=(batch, len(lay.combos), lay.n_actions)).astype(np.float32)
        d = decide(games.public, actor, net, bayesian, games.partner_combos(actor), noise)
        rows += batch if d.partial is None else len(d.partial.game)
        _, done, _ = games.play(actor, d, d.action)
        for b in np.flatnonzero(done):
            games.deal(b, 1_000_000 + step * batch + b)
        moves += batch
        step += 1
    wall = time.perf_counter() - t0
    return {"moves_per_s": moves / wall, "rows_per_move": rows / moves}


def full_scale_rows(rows: int, hidden: int, seconds: float) -> dict:
    """The network on ``rows`` partner hands of one full-scale position."""
    c = r = h = 5
    t = c * r
    pub = (c * (r + 1) + 9 + 4 + 41 + t + 2 * (h + 1) + 9 + 2 * h + c + r + t
           + 2 * h * t + 4 * h)  # the layout of PublicState.features at this size  # fmt: skip
    priv, actions = h * t + 2 * h, 2 * h + c + r
    out = {"pub_dim": pub, "priv_dim": priv, "hidden": hidden}
    x_pub = np.random.default_rng(1).random((1, pub)).astype(np.float32)
    x_priv = np.random.default_rng(2).random((rows, priv)).astype(np.float32)
    game = np.zeros(rows, dtype=np.int64)
    net = random_net(pub, priv, hidden, actions)
    out["numpy_us_per_move"] = _time(lambda: net.logits(x_pub, x_priv, game), seconds)
    try:
        import torch
    except ImportError:
        return out
    torch.set_num_threads(1)
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for dev in devices:
        p = {k: torch.tensor(v, device=dev) for k, v in net.p.items()}
        tp, tq = torch.tensor(x_pub, device=dev), torch.tensor(x_priv, device=dev)

        def forward(p=p, tp=tp, tq=tq, dev=dev):
            with torch.no_grad():
                hid = torch.relu(tp @ p["w_pub"] + tq @ p["w_priv"] + p["b1"])
                hid = torch.relu(hid @ p["w2"] + p["b2"])
                y = hid @ p["w_pi"] + p["b_pi"]
                if dev == "cuda":
                    torch.cuda.synchronize()
                return y

        out[f"torch_{dev}_us_per_move"] = _time(forward, seconds)
    out["mflop_per_row"] = 2 * (priv * hidden + hidden * hidden + hidden * actions) / 1e6
    return out


def _time(fn, seconds: float) -> float:
    fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    report: dict = {"platform": platform.platform(), "processor": platform.processor()}
    with threadpool_limits(1):
        report["anchor_random_moves_per_s"] = base = anchor(args.seconds)
        print(f"anchor: compiled random play {base:,.0f} moves/s")
        for preset in ("Hanabi-Very-Small", "Hanabi-Small"):
            for learner, bayesian in (("bad", True), ("baseline", False)):
                row = rollouts(preset, bayesian, args.batch, args.seconds)
                report[f"{preset}.{learner}"] = row
                print(f"{preset:<18} {learner:<8} {row['moves_per_s']:8,.0f} moves/s "
                      f"(x{row['moves_per_s'] / base:.4f} of the anchor), "
                      f"{row['rows_per_move']:.1f} network rows per move")  # fmt: skip
        for hidden in (128, 384):
            row = full_scale_rows(args.rows, hidden, args.seconds)
            report[f"full_scale.h{hidden}"] = row
            text = ", ".join(f"{k} {v:,.0f}" for k, v in row.items() if k.endswith("per_move"))
            print(f"full scale, {args.rows} rows, 2x{hidden}: {text} (microseconds per move)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()

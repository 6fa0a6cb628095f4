"""Speed of the meta-agent evaluation: Python path against compiled path (issue 15; not a test).

Both paths of :func:`meta.evaluate.evaluate_meta` play the same protocol on the same seeds: the
published 5×5 population (22 elites) as responses R, hypotheses H and partners E, a response
table of ``--train-games`` games per pair (built once, not timed), every variant of
:data:`meta.evaluate.ALL_VARIANTS` (Bayesian and [ToG20]), ``--episodes`` k × ``--games`` g per
partner. The script times

* the Python path (``compiled=False``: the meta-agent steps ``HanabiGame``), and
* the compiled path (``compiled=None``, chosen automatically for rule agents), after a tiny
  warm-up call that loads (or compiles) its kernels, reported separately,

checks that both give identical per-game scores, responses, beliefs, partner counters and
niches, and prints both times and their ratio. ``--paper-episodes K`` then times the compiled
path alone at k = K (200 in [Bayes21]).

Usage::

    python3 benchmarks/bench_meta.py --episodes 2 --workers 1
    python3 benchmarks/bench_meta.py --episodes 2 --paper-episodes 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from meta.evaluate import ALL_VARIANTS, evaluate_meta
from meta.pools import load_pool
from meta.table import build_table

FIELDS = ("scores", "responses", "beliefs", "partner_counters", "niches")


def identical(a, b) -> bool:
    """Whether two evaluations hold the same arrays for every variant."""
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        if set(x) != set(y):
            return False
        if not all(np.array_equal(x[v], y[v], equal_nan=True) for v in x):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--population", default="5x5", help="pool SOURCE (default 5x5)")
    parser.add_argument("--train-games", type=int, default=100, help="games per table pair")
    parser.add_argument("--episodes", type=int, default=2, help="k of the timed comparison")
    parser.add_argument("--games", type=int, default=10, help="g, games per episode")
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS))
    parser.add_argument("--workers", type=int, default=1, help="processes/threads, both paths")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--paper-episodes", type=int, default=0, help="then time the compiled path at this k"
    )
    args = parser.parse_args()
    variants = [v.strip() for v in args.variants.split(",")]
    pols, ids = load_pool(args.population)
    t0 = time.perf_counter()
    table = build_table(pols, pols, args.train_games, args.seed, ids, ids, workers=args.workers)
    t_table = time.perf_counter() - t0
    common = {
        "variants": variants,
        "games": args.games,
        "seed": args.seed,
        "workers": args.workers,
        "niche_dims": (5, 5),
    }

    t0 = time.perf_counter()
    evaluate_meta(table, pols, pols[:1], ids[:1], episodes=1, **{**common, "games": 1})
    t_warm = time.perf_counter() - t0

    t0 = time.perf_counter()
    old = evaluate_meta(table, pols, pols, ids, episodes=args.episodes, compiled=False, **common)
    t_old = time.perf_counter() - t0
    t0 = time.perf_counter()
    new = evaluate_meta(table, pols, pols, ids, episodes=args.episodes, **common)
    t_new = time.perf_counter() - t0

    n_games = len(variants) * len(pols) * args.episodes * args.games
    print(
        f"meta evaluation: {len(pols)} partners x {len(variants)} variants x k={args.episodes} "
        f"x g={args.games} = {n_games} games; workers={args.workers}"
    )
    print(
        f"table I(R, H): {len(pols)}x{len(pols)} pairs x {args.train_games} games  {t_table:.1f} s"
    )
    print(f"compiled path warm-up (kernel load or compile): {t_warm:.1f} s")
    print(f"{'path':<24}{'seconds':>10}{'games/s':>12}")
    print(f"{'Python (old)':<24}{t_old:>10.2f}{n_games / t_old:>12.0f}")
    print(f"{'compiled (new)':<24}{t_new:>10.2f}{n_games / t_new:>12.0f}")
    print(f"ratio old/new: {t_old / t_new:.0f}x   identical results: {identical(old, new)}")
    if args.paper_episodes:
        t0 = time.perf_counter()
        evaluate_meta(table, pols, pols, ids, episodes=args.paper_episodes, **common)
        t_paper = time.perf_counter() - t0
        n_paper = len(variants) * len(pols) * args.paper_episodes * args.games
        print(
            f"compiled path at k={args.paper_episodes}: {n_paper} games in {t_paper:.1f} s "
            f"({n_paper / t_paper:.0f} games/s)"
        )


if __name__ == "__main__":
    main()

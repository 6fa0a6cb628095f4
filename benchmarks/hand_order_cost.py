"""What fixed hand slots cost a network trained in HLE's hand order, with and without the adapter.

A network trained in this env reads slot ``i`` of a hand as its ``i``-th oldest card. The
Java framework's fixed hand slots (the order of the ``reference`` ruleset's games: the
benchmark's ``published`` suite and the published runs of ``dev`` and ``test``) break that. The
game loops therefore show a network every fixed-slot hand in age order and map its moves back
(:mod:`agents.hand_order`). This script measures a shipped RL partner with rule agents on the
same seeded deals (mixed play, 2 players, lenient scoring, the rule agent alternating seats):

* ``hle``: HLE's hand order (what the partner was trained in);
* ``fixed``: fixed slots, the partner shown them in age order (the default);
* ``fixed raw``: fixed slots shown as the game holds them (``observation_hand_order="game"``),
  what every network was scored with before the adapter.

Each cell is the mean ± s.e.m. over the games; ``fixed - hle`` is the paired difference on the
same deals (mean ± s.e.m. of the per-deal differences), which is within noise when the adapter
works. The rule agents play the ``corrected`` ruleset in both orders; their own tie-breaks by
slot make the two orders differ a little for them, so ``fixed`` and ``hle`` are not identical
games. The last line checks the exact case: the partner's self-play gives identical games in
both orders.

Usage::

    python3 benchmarks/hand_order_cost.py [--partner ppo-pool] [--with iggi piers] [--games 2000]
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import agents
from agents.evaluate import game_seeds, play_games
from agents.rl.partners import load_partner
from hanabi_env.config import HanabiConfig


def _sem(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")


def main(argv: list[str] | None = None) -> int:
    """Print the table (module docstring); return 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--partner", default="ppo-pool", help="a shipped RL partner")
    ap.add_argument("--with", dest="mates", nargs="+", default=["iggi", "piers"])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    rl = load_partner(args.partner)
    raw = copy.copy(rl)
    raw.observation_hand_order = "game"  # the fixed slots as the game holds them
    n = args.games
    _, deals, seeds = game_seeds(args.seed, n, 2, True)
    seat_agents = np.zeros((n, 2), dtype=np.int64)
    seat_agents[np.arange(n), np.arange(n) % 2] = 1  # the rule agent alternates seats
    cfg = {o: HanabiConfig(players=2, scoring="lenient", hand_order=o) for o in ("shift", "fixed")}
    print(f"rl:{args.partner} with rule agents, {n} games each (seed {args.seed}), mean ± s.e.m.")
    print(f"  {'partner':<12} {'hle':>13} {'fixed':>13} {'fixed raw':>13} {'fixed - hle':>13}")
    for mate in args.mates:
        rule = agents.make(mate)
        hle = play_games([rl, rule], seat_agents, deals, seeds, cfg["shift"]).scores
        fixed = play_games([rl, rule], seat_agents, deals, seeds, cfg["fixed"]).scores
        old = play_games([raw, rule], seat_agents, deals, seeds, cfg["fixed"]).scores
        diff = (fixed - hle).astype(np.float64)
        cells = [f"{s.mean():6.2f} ± {_sem(s):4.2f}" for s in (hle, fixed, old)]
        cells.append(f"{diff.mean():+6.2f} ± {_sem(diff):4.2f}")
        print(f"  {mate:<12} " + " ".join(f"{c:>13}" for c in cells))
    mirror = np.zeros((n, 2), dtype=np.int64)
    same = [play_games([rl], mirror, deals, seeds, cfg[o]).scores for o in ("shift", "fixed")]
    equal = bool(np.array_equal(same[0], same[1]))
    print(
        f"  self-play: hle {same[0].mean():.2f}, fixed {same[1].mean():.2f}; "
        f"identical games: {'yes' if equal else 'NO'}"
    )
    return 0 if equal else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""What fixed hand slots cost a network trained in HLE's hand order (docs/benchmark.md §2).

A shipped RL partner refuses games with the Java framework's fixed hand slots (the order of the
``reference`` ruleset's partners): its inputs would mean something else. This script measures
what that protects against: the partner with rule agents in HLE's order and, with the check
lifted, with fixed slots, on the same seeded deals (mixed play, 2 players, seats alternating; the
rule agents are order-independent in the ``corrected`` ruleset).

Usage::

    python3 benchmarks/hand_order_cost.py [--partner ppo-pool] [--with iggi piers] [--games 2000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import agents
from agents.evaluate import game_seeds, play_games
from agents.rl.partners import RLPartner, load_partner
from hanabi_env.config import HanabiConfig


class _AnyOrder(RLPartner):
    """The partner with its game check lifted (this experiment only)."""

    def observation_type_for(self, cfg: np.ndarray) -> str:
        return self.observation_type


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--partner", default="ppo-pool", help="a shipped RL partner")
    ap.add_argument("--with", dest="mates", nargs="+", default=["iggi", "piers"])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    rl = load_partner(args.partner)
    rl.__class__ = _AnyOrder
    n = args.games
    _, deals, seeds = game_seeds(args.seed, n, 2, True)
    seat_agents = np.zeros((n, 2), dtype=np.int64)
    seat_agents[np.arange(n), np.arange(n) % 2] = 1  # the rule agent alternates seats
    print(f"rl:{args.partner} with rule agents, {n} games each, mean ± s.e.m.")
    for mate in args.mates:
        row = []
        for order in ("shift", "fixed"):
            cfg = HanabiConfig(players=2, scoring="lenient", hand_order=order)
            scores = play_games([rl, agents.make(mate)], seat_agents, deals, seeds, cfg).scores
            row.append(f"{order}: {scores.mean():5.2f} ± {scores.std(ddof=1) / np.sqrt(n):.2f}")
        print(f"  {mate:<12} " + "   ".join(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

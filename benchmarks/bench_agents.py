"""Throughput of rule-based play (issue 3; not a test).

Piers mirror self-play, 2 players, lenient scoring, one process:

* the compiled evaluator (:func:`agents.evaluate.play_games`, whole games in one kernel), and
* the same games through the AEC loop (``hanabi_env.env()`` with ``RuleAgent`` policies),

compared with the Java framework's 450–560 games/s/core for Piers mirror (docs/anchors.md §4).
Target: >= 20,000 games/s per core with the compiled evaluator.

Usage::

    python3 benchmarks/bench_agents.py --games 20000 --aec-games 300
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hanabi_env
from agents.evaluate import game_seeds, play_games
from agents.policy import make
from hanabi_env.config import HanabiConfig

JAVA_PIERS_GAMES_PER_S = (450, 560)


def compiled(games: int, seed: int) -> tuple[float, float, float]:
    cfg = HanabiConfig(players=2, scoring="lenient")
    agent = make("piers")
    _, deals, agent_seeds = game_seeds(seed, games, 2, random_seat=False)
    seats = np.zeros((games, 2), dtype=np.int64)
    play_games([agent], seats[:50], deals[:50], agent_seeds[:50], cfg, workers=1)  # warm-up
    t0 = time.perf_counter()
    batch = play_games([agent], seats, deals, agent_seeds, cfg, workers=1, chunk_size=games)
    dt = time.perf_counter() - t0
    return games / dt, batch.moves / dt, float(batch.scores.mean())


def aec(games: int, seed: int) -> tuple[float, float, float]:
    env = hanabi_env.env(players=2, scoring="lenient")
    policies = {a: make("piers", seed=i) for i, a in enumerate(env.possible_agents)}
    scores, steps = [], 0
    for g in range(2):  # warm-up: compiles (or loads) the kernels used from Python
        env.reset(seed=seed + games + g)
        for agent in env.agent_iter():
            env.step(policies[agent](env, agent))
    t0 = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            action = policies[agent](env, agent)
            steps += action is not None
            env.step(action)
        scores.append(env.unwrapped.game.score)
    dt = time.perf_counter() - t0
    return games / dt, steps / dt, float(np.mean(scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--aec-games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    c_gps, c_sps, c_mean = compiled(args.games, args.seed)
    a_gps, a_sps, a_mean = aec(args.aec_games, args.seed)
    lo, hi = JAVA_PIERS_GAMES_PER_S
    print("Piers mirror, 2 players, lenient, one process")
    print(f"{'path':<34}{'games/s':>10}{'steps/s':>12}{'mean score':>12}")
    print(f"{'compiled evaluator':<34}{c_gps:>10.0f}{c_sps:>12.0f}{c_mean:>12.2f}")
    print(f"{'AEC loop (env() + RuleAgent)':<34}{a_gps:>10.0f}{a_sps:>12.0f}{a_mean:>12.2f}")
    print(
        f"compiled / AEC: {c_gps / a_gps:.0f}x; compiled / Java ({lo}-{hi} games/s/core): "
        f"{c_gps / hi:.0f}-{c_gps / lo:.0f}x"
    )
    verdict = "PASS" if c_gps >= 20000 else "MISS"
    print(f"TARGET >= 20,000 games/s per core (compiled): {c_gps:.0f}  {verdict}")


if __name__ == "__main__":
    main()

"""Speed of the reference bots (agents.bots) beside the C++ programs they re-implement (not a test).

docs/bots.md §4. For each bot and game size, in one run: our bot's self-play (one object in
every seat, :class:`hanabi_env.HanabiGame`, the Python loop that ``agents.play_out`` runs) in
games per CPU-second of this process; for SmartBot also its compiled self-play loop
(:func:`agents.bots.smart_games.play_smartbot_games`, ``--loop-games`` deals, compiled before
the clock starts); the C++ ``-O3`` build's (``run_<Bot> --players P --games N --quiet``, CPU
time of the child process); and the ratio of our fastest path to C++.

The C++ programs come from ``tools/quux_oracle.py build`` (``$TMPDIR/hanabi-reference-quux``);
without them only our side is measured.

Usage::

    python3 benchmarks/bench_bots.py --games 200 --loop-games 10000 --cpp-games 10000
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import quux_oracle as Q  # noqa: E402

from agents.bots import make_bot  # noqa: E402
from agents.bots.smart_games import play_smartbot_games  # noqa: E402
from hanabi_env.game import HanabiGame  # noqa: E402

BOTS = ("simplebot", "valuebot", "holmesbot", "smartbot")


def ours(bot: str, players: int, games: int) -> tuple[float, float]:
    """Our bot's self-play: (games per CPU-second, mean score) over deal seeds 0..games-1."""
    policy = make_bot(bot)
    game = HanabiGame(Q.game_config(players))
    total = 0
    game.reset(0)  # compile (or load) a compiled policy's kernels before the clock starts
    while not game.is_terminal:
        game.step(policy.act(game.view(game.current_player)))
    start = time.process_time()
    for seed in range(games):
        game.reset(seed)
        policy.reset()
        while not game.is_terminal:
            game.step(policy.act(game.view(game.current_player)))
        total += game.fireworks_total
    return games / (time.process_time() - start), total / games


def ours_loop(bot: str, players: int, games: int) -> tuple[float, float] | None:
    """The compiled self-play loop, if ``bot`` has one: (games per CPU-second, mean score)."""
    if bot != "smartbot":
        return None
    config = Q.game_config(players)
    decks = np.stack([Q.deal(players, seed) for seed in range(games)])
    play_smartbot_games(config, decks[:1])  # compile (or load) before the clock starts
    start = time.process_time()
    scores, _ = play_smartbot_games(config, decks)
    return games / max(time.process_time() - start, 1e-9), float(scores.mean())


def cpp(bot: str, players: int, games: int, bin_dir: Path) -> tuple[float, float]:
    """The C++ build's self-play: (games per CPU-second of the child, mean score)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [
            str(bin_dir / Q.PROGRAMS[bot]),
            "--players",
            str(players),
            "--games",
            str(games),
            "--seed",
            "7",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    mean = float(done.stdout.split("average of ")[1].split()[0])
    return games / max(cpu, 1e-9), mean


def main() -> int:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", nargs="+", default=list(BOTS), choices=BOTS)
    parser.add_argument("--players", nargs="+", type=int, default=[2, 3, 4, 5])
    parser.add_argument("--games", type=int, default=200, help="our games per cell")
    parser.add_argument("--cpp-games", type=int, default=10000, help="C++ games per cell")
    parser.add_argument(
        "--loop-games", type=int, default=2000, help="games per cell of a compiled loop"
    )
    args = parser.parse_args()
    bin_dir = Q.built()
    print(
        "| bot | players | ours games/CPU-s (mean) | ours, compiled loop | "
        "C++ games/CPU-s (mean) | ours / C++ |"
    )
    print("|---|---|---|---|---|---|")
    for bot in args.bots:
        for players in args.players:
            rate, mean = ours(bot, players, args.games)
            loop = ours_loop(bot, players, args.loop_games)
            loop_text = f"{loop[0]:,.0f} ({loop[1]:.2f})" if loop else "-"
            best = max(rate, loop[0]) if loop else rate
            if bin_dir is None:
                print(
                    f"| {bot} | {players} | {rate:,.0f} ({mean:.2f}) | {loop_text} | not built | |"
                )
                continue
            c_rate, c_mean = cpp(bot, players, args.cpp_games, bin_dir)
            print(
                f"| {bot} | {players} | {rate:,.0f} ({mean:.2f}) | {loop_text} "
                f"| {c_rate:,.0f} ({c_mean:.2f}) | {best / c_rate:.4f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Speed of InfoBot (agents.bots.infobot) beside the C++ InfoBot it re-implements (not a test).

docs/bots_infobot.md §5. For each game size, in one run and one process:

* **compiled**: our self-play in the compiled game loop
  (:func:`agents.bots.infobot_games.play_infobot_games`), games per CPU-second of this process
  (the decks are dealt before the clock starts; the first call, which may compile, is not
  timed);
* **policy**: our :class:`agents.bots.infobot.InfoBot` policy in every seat of a
  :class:`hanabi_env.HanabiGame`, the Python loop ``agents.play_out`` runs;
* **C++**: the ``-O3`` build's ``run_InfoBot --players P --games N --seed 7 --quiet``, CPU
  time of the child process;

and the ratios ours / C++. The C++ program comes from ``tools/quux_oracle.py build``
(``$TMPDIR/hanabi-reference-quux``); without it only our side is measured.

Usage::

    python3 benchmarks/bench_infobot.py --games 2000 --policy-games 100 --cpp-games 10000
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

from agents.bots.infobot import InfoBot  # noqa: E402
from agents.bots.infobot_games import infobot_config, play_infobot_games  # noqa: E402
from hanabi_env.game import HanabiGame  # noqa: E402


def compiled(players: int, games: int) -> tuple[float, float]:
    """The compiled loop's self-play: (games per CPU-second, mean score), deal seeds 0..games-1."""
    cfg = infobot_config(players)
    decks = np.stack([Q.deal(players, s) for s in range(games)])
    play_infobot_games(cfg, decks[:1])  # compile (or load) outside the clock
    start = time.process_time()
    scores, _ = play_infobot_games(cfg, decks)
    return games / (time.process_time() - start), float(scores.mean())


def policy(players: int, games: int) -> tuple[float, float]:
    """The policy's self-play in the Python loop: (games per CPU-second, mean score)."""
    bot = InfoBot()
    game = HanabiGame(infobot_config(players))
    game.reset(0)
    bot.act(game.view(0))  # compile (or load) outside the clock
    total = 0
    start = time.process_time()
    for seed in range(games):
        game.reset(seed)
        bot.reset()
        while not game.is_terminal:
            game.step(bot.act(game.view(game.current_player)))
        total += game.fireworks_total
    return games / (time.process_time() - start), total / games


def cpp(players: int, games: int, bin_dir: Path) -> tuple[float, float]:
    """The C++ build's self-play: (games per CPU-second of the child, mean score)."""
    program = str(bin_dir / Q.PROGRAMS["infobot"])
    command = [program, "--players", str(players), "--games", str(games), "--seed", "7", "--quiet"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        command,
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
    parser.add_argument("--players", nargs="+", type=int, default=[2, 3, 4, 5])
    parser.add_argument("--games", type=int, default=2000, help="compiled games per size")
    parser.add_argument("--policy-games", type=int, default=100, help="policy games per size")
    parser.add_argument("--cpp-games", type=int, default=10000, help="C++ games per size")
    args = parser.parse_args()
    if any(p not in (2, 3, 4, 5) for p in args.players):
        parser.error(f"--players must be among 2 3 4 5, got {args.players}")
    if min(args.games, args.policy_games, args.cpp_games) < 1:
        parser.error("--games, --policy-games and --cpp-games must be at least 1")
    bin_dir = Q.built()
    print(
        "| players | compiled games/CPU-s (mean) | policy games/CPU-s (mean) "
        "| C++ games/CPU-s (mean) | compiled / C++ | policy / C++ |"
    )
    print("|---|---|---|---|---|---|")
    for players in args.players:
        c_rate, c_mean = compiled(players, args.games)
        p_rate, p_mean = policy(players, args.policy_games)
        ours = f"| {players} | {c_rate:,.0f} ({c_mean:.2f}) | {p_rate:,.0f} ({p_mean:.2f}) "
        if bin_dir is None:
            print(ours + "| not built | | |", flush=True)
            continue
        x_rate, x_mean = cpp(players, args.cpp_games, bin_dir)
        print(
            ours + f"| {x_rate:,.0f} ({x_mean:.2f}) | {c_rate / x_rate:.2f} "
            f"| {p_rate / x_rate:.3f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

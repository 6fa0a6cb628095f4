"""Speed of the reference bots (agents.bots) beside the C++ programs they re-implement (not a test).

docs/bots.md §4 and docs/bots_infobot.md §5. For each bot and game size, in one run and one
process, games per CPU-second (mean score in brackets):

* **compiled**: the bot's compiled self-play loop, for the bots of
  :data:`agents.bots.COMPILED_SELF_PLAY` (``--games`` deals, dealt before the clock starts; a
  first call, which may compile, is not timed): what ``evaluate`` plays for one bot in every
  seat;
* **policy**: the bot as a policy in every seat of a :class:`hanabi_env.HanabiGame`, one Python
  ``act`` per move (the loop ``agents.play_out`` runs; ``--policy-games`` deals, 0 to skip);
* **C++**: the ``-O3`` build's ``run_<Bot> --players P --games N --seed 7 --quiet``, CPU time
  of the child process;

and the ratios ours / C++. With ``--repeat K`` every cell is measured K times, ours and the C++
program's in turn, and the medians are printed (on a loaded machine single runs move by ±30 %).
Our games are deal seeds 0.. of ``tools/quux_oracle.py``'s game
(hands of 5 at 2–3 players, 4 at 4–5, lenient scoring); the C++ program plays its own deals.
The C++ programs come from ``tools/quux_oracle.py build`` (``$TMPDIR/hanabi-reference-quux``);
without them only our side is measured.

Usage::

    python3 benchmarks/bench_bots.py --bots smartbot infobot --games 2000 --policy-games 50
    python3 benchmarks/bench_bots.py --games 10000 --cpp-games 10000 --policy-games 0 --repeat 5
"""

from __future__ import annotations

import argparse
import importlib
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import quux_oracle as Q  # noqa: E402

from agents.bots import BOTS, COMPILED_SELF_PLAY, make_bot  # noqa: E402
from hanabi_env.game import HanabiGame  # noqa: E402


def _loop(bot: str) -> Callable | None:
    spec = COMPILED_SELF_PLAY.get(bot)
    if spec is None:
        return None
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def compiled(bot: str, players: int, games: int) -> tuple[float, float] | None:
    """The compiled self-play loop, if ``bot`` has one: (games per CPU-second, mean score)."""
    play = _loop(bot)
    if play is None:
        return None
    config = Q.game_config(players)
    decks = np.stack([Q.deal(players, seed) for seed in range(games)])
    play(config, decks[:1])  # compile (or load) before the clock starts
    start = time.process_time()
    scores, _ = play(config, decks)
    return games / max(time.process_time() - start, 1e-9), float(scores.mean())


def policy(bot: str, players: int, games: int) -> tuple[float, float]:
    """The bot as a policy in the Python game loop: (games per CPU-second, mean score)."""
    agent = make_bot(bot)
    game = HanabiGame(Q.game_config(players))
    game.reset(0)
    agent.act(game.view(0))  # compile (or load) a compiled policy's kernels outside the clock
    total = 0
    start = time.process_time()
    for seed in range(games):
        game.reset(seed)
        agent.reset()
        while not game.is_terminal:
            game.step(agent.act(game.view(game.current_player)))
        total += game.fireworks_total
    return games / max(time.process_time() - start, 1e-9), total / games


def cpp(bot: str, players: int, games: int, bin_dir: Path) -> tuple[float, float]:
    """The C++ build's self-play: (games per CPU-second of the child, mean score)."""
    program = str(bin_dir / Q.PROGRAMS[bot])
    command = [program, "--players", str(players), "--games", str(games), "--seed", "7", "--quiet"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    mean = float(done.stdout.split("average of ")[1].split()[0])
    return games / max(cpu, 1e-9), mean


def _median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The median rate of repeated runs of one cell, with their (equal) mean score."""
    return float(np.median([rate for rate, _ in runs])), runs[0][1]


def measure(
    bot: str, players: int, args: argparse.Namespace, bin_dir: Path | None
) -> tuple[tuple[float, float] | None, ...]:
    """One row: (compiled, policy, C++) medians over ``args.repeat`` runs (None: not measured)."""
    loops: list[tuple[float, float]] = []
    slows: list[tuple[float, float]] = []
    bases: list[tuple[float, float]] = []
    for _ in range(args.repeat):
        loop = compiled(bot, players, args.games)
        if loop is not None:
            loops.append(loop)
        if args.policy_games:
            slows.append(policy(bot, players, args.policy_games))
        if bin_dir is not None:
            bases.append(cpp(bot, players, args.cpp_games, bin_dir))
    return tuple(_median(runs) if runs else None for runs in (loops, slows, bases))


def _cell(result: tuple[float, float] | None) -> str:
    return "-" if result is None else f"{result[0]:,.0f} ({result[1]:.2f})"


def _ratio(result: tuple[float, float] | None, base: tuple[float, float] | None) -> str:
    return "-" if result is None or base is None else f"{result[0] / base[0]:.2f}"


def main() -> int:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", nargs="+", default=list(BOTS), choices=list(BOTS))
    parser.add_argument("--players", nargs="+", type=int, default=[2, 3, 4, 5])
    parser.add_argument("--games", type=int, default=2000, help="compiled-loop games per cell")
    parser.add_argument(
        "--policy-games", type=int, default=50, help="policy games per cell (0: skip)"
    )
    parser.add_argument("--cpp-games", type=int, default=10000, help="C++ games per cell")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per cell, medians printed (default 1)"
    )
    args = parser.parse_args()
    if any(p not in (2, 3, 4, 5) for p in args.players):
        parser.error(f"--players must be among 2 3 4 5, got {args.players}")
    if min(args.games, args.cpp_games, args.repeat) < 1 or args.policy_games < 0:
        parser.error(
            "--games, --cpp-games and --repeat must be at least 1, --policy-games at least 0"
        )
    bin_dir = Q.built()
    print(
        "| bot | players | compiled loop | policy, `act` per move | C++ `-O3` "
        "| compiled / C++ | policy / C++ |"
    )
    print("|---|---|---|---|---|---|---|")
    for bot in args.bots:
        for players in args.players:
            loop, slow, base = measure(bot, players, args, bin_dir)
            c_text = _cell(base) if bin_dir is not None else "not built"
            print(
                f"| {bot} | {players} | {_cell(loop)} | {_cell(slow)} | {c_text} "
                f"| {_ratio(loop, base)} | {_ratio(slow, base)} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Throughput of random legal play: hanabi_env against PettingZoo hanabi_v5 and OpenSpiel.

Measures steps/s, games/s and the average game length of uniformly random legal play, each
system for ``--seconds`` of wall time after a short warm-up, all in one process and one run
(compare ratios, not absolute numbers; docs/anchors.md §4):

1. ``hanabi_env.env()`` vs PettingZoo ``hanabi_v5`` ``env()``: the plain AEC loop
   (``agent_iter`` / ``last`` / random choice among the masked actions / ``step``);
2. ``hanabi_env.raw_env()`` vs ``hanabi_v5`` ``raw_env()``: the same loop without wrappers;
3. our engine without the AEC layer vs ``pyspiel`` (OpenSpiel's ``hanabi``, i.e. HLE):
   (a) :class:`hanabi_env.HanabiGame` stepped from Python (``legal_actions`` + ``step``),
   (b) the fully compiled loop ``engine.play_random_games`` (numba compile time excluded),
   (c) pyspiel from Python with random legal actions and random chance outcomes, no
   observation, and (d) pyspiel with the current player's ``observation_tensor`` each step
   vs ``HanabiGame.observation(seat)`` each step.

A step is one player move (never a deal, never a dead step of the AEC loop); a game counts
when it has ended, and the timed window ends with a completed game (or batch), so the average
game length is exact. hanabi_v5 truncates games: Shimmy counts card deals toward OpenSpiel's
118-move bound, which excludes deals (docs/anchors.md §1), so its games can end early; the
truncated fraction is reported.

Game ``g`` of every system is dealt from seed ``--seed + g`` (``reset(seed=...)``; pyspiel's
deals come from a ``random.Random(--seed)`` over ``chance_outcomes()``); actions are drawn
with ``random.Random(--seed)``.

Usage::

    python benchmarks/bench_env.py [--seconds 5] [--players 2] [--seed 0] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from time import perf_counter

import numpy as np

try:
    import hanabi_env
except ImportError:  # run from a checkout without installing: use the repository's package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import hanabi_env
from hanabi_env import engine as E

# One game of a Python-driven system: ``play(game_index) -> (moves, truncated)``.
PlayOne = Callable[[int], tuple[int, bool]]

WARMUP_SECONDS = 0.5
ENV_TARGET = 3.0  # our env() vs hanabi_v5 env(), steps/s
ENGINE_TARGET = 10.0  # our compiled engine vs pyspiel without observations, steps/s


@dataclass
class Result:
    """Throughput of one system.

    Attributes:
        name: What was measured.
        steps: Player moves made in completed games.
        games: Completed games.
        seconds: Wall time of the timed window (s).
        truncated: Games that ended by truncation rather than by the rules.
    """

    name: str
    steps: int
    games: int
    seconds: float
    truncated: int = 0

    @property
    def steps_per_s(self) -> float:
        """Moves per second."""
        return self.steps / self.seconds

    @property
    def games_per_s(self) -> float:
        """Completed games per second."""
        return self.games / self.seconds

    @property
    def avg_len(self) -> float:
        """Mean moves per game."""
        return self.steps / max(self.games, 1)

    def to_dict(self) -> dict:
        """JSON-ready dict with the derived rates."""
        d = asdict(self)
        d.update(
            steps_per_s=self.steps_per_s,
            games_per_s=self.games_per_s,
            avg_game_length=self.avg_len,
            truncated_fraction=self.truncated / max(self.games, 1),
        )
        return d


# --------------------------------------------------------------------------------------------
# Systems
# --------------------------------------------------------------------------------------------


def hanabi_v5_constructors() -> tuple[Callable, Callable]:
    """PettingZoo's ``hanabi_v5`` ``(env, raw_env)`` constructors (taking hanabi_v5's kwargs).

    Uses ``pettingzoo.make`` when available, else ``pettingzoo.classic.hanabi_v5`` with its
    DeprecationWarning suppressed.
    """
    try:
        from pettingzoo import make
    except ImportError:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from pettingzoo.classic import hanabi_v5
        return hanabi_v5.env, hanabi_v5.raw_env

    def env_fn(**kwargs):
        return make("aec", "classic/hanabi-v5", **kwargs)

    def raw_fn(**kwargs):
        return env_fn(**kwargs).unwrapped

    return env_fn, raw_fn


def aec_player(env, seed: int) -> PlayOne:
    """One game of the plain AEC loop on ``env`` with random legal actions.

    Args:
        env: A PettingZoo AEC env (wrapped or raw).
        seed: Base seed: game ``g`` is reset with ``seed + g``; actions come from
            ``random.Random(seed)``.
    """
    rnd = random.Random(seed)

    def play(g: int) -> tuple[int, bool]:
        env.reset(seed=seed + g)
        moves = 0
        truncated = False
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                action = None
                truncated |= bool(trunc)
            else:
                action = int(rnd.choice(np.flatnonzero(obs["action_mask"])))
                moves += 1
            env.step(action)
        return moves, truncated

    return play


def game_player(config: dict, seed: int, observe: bool) -> PlayOne:
    """One game on :class:`hanabi_env.HanabiGame` stepped from Python.

    Args:
        config: ``HanabiConfig`` keyword arguments.
        seed: Base seed: game ``g`` is dealt with ``seed + g``; actions come from
            ``random.Random(seed)``.
        observe: Also compute the mover's observation vector before each move.
    """
    game = hanabi_env.HanabiGame(**config)
    rnd = random.Random(seed)

    def play(g: int) -> tuple[int, bool]:
        game.reset(seed + g)
        moves = 0
        while not game.is_terminal:
            if observe:
                game.observation(game.current_player)
            game.step(int(rnd.choice(game.legal_actions())))
            moves += 1
        return moves, False

    return play


def pyspiel_player(config: dict, seed: int, observe: bool) -> PlayOne:
    """One game of OpenSpiel's ``hanabi`` driven from Python with random legal actions.

    Args:
        config: hanabi_v5 keyword arguments (OpenSpiel takes the same parameter names).
        seed: Seeds the ``random.Random`` that draws both deals and moves.
        observe: Also compute the mover's ``observation_tensor`` before each move.
    """
    import pyspiel

    params = {k: v for k, v in config.items() if k != "scoring"}
    game = pyspiel.load_game("hanabi", params)
    rnd = random.Random(seed)

    def play(_g: int) -> tuple[int, bool]:
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rnd.choices(outcomes, weights=probs)[0])
                continue
            if observe:
                state.observation_tensor(state.current_player())
            state.apply_action(rnd.choice(state.legal_actions()))
            moves += 1
        return moves, False

    return play


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def run_games(name: str, play: PlayOne, seconds: float) -> Result:
    """Play whole games until ``seconds`` of wall time have passed; time them."""
    steps = games = truncated = 0
    t0 = perf_counter()
    while True:
        moves, trunc = play(games)
        steps += moves
        games += 1
        truncated += trunc
        elapsed = perf_counter() - t0
        if elapsed >= seconds:
            return Result(name, steps, games, elapsed, truncated)


def measure(name: str, make_play: Callable[[int], PlayOne], seconds: float, seed: int) -> Result:
    """Warm up a fresh player, then time another one seeded with ``seed``."""
    run_games(name, make_play(seed + 10**9), WARMUP_SECONDS)
    result = run_games(name, make_play(seed), seconds)
    print(f"  {name:<46} {fmt(result.steps_per_s):>8} steps/s", flush=True)
    return result


def measure_compiled(config: dict, seconds: float, seed: int) -> Result:
    """Time ``engine.play_random_games`` in batches (after compiling/loading it).

    Args:
        config: ``HanabiConfig`` keyword arguments.
        seconds: Wall time to run for.
        seed: Game ``g`` is dealt from seed ``seed + g`` (its moves from ``seed + g + 0x5EED``).
    """
    name = "hanabi_env compiled loop (play_random_games)"
    state = hanabi_env.HanabiGame(**config).state
    scores = np.zeros(1 << 16, dtype=np.int64)
    E.play_random_games(state, 100, seed + 10**9, scores)  # compile or load from cache
    t = perf_counter()
    E.play_random_games(state, 1000, seed + 10**9, scores)
    per_game = (perf_counter() - t) / 1000
    batch = int(min(max(0.05 / per_game, 100), scores.size))  # ~50 ms per batch
    steps = games = 0
    t0 = perf_counter()
    while perf_counter() - t0 < seconds:
        steps += int(E.play_random_games(state, batch, seed + games, scores))
        games += batch
    result = Result(name, steps, games, perf_counter() - t0)
    print(f"  {name:<46} {fmt(result.steps_per_s):>8} steps/s", flush=True)
    return result


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------


def fmt(x: float) -> str:
    """Rate with a k/M suffix, three significant digits."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def machine_info() -> dict:
    """CPU count and the versions that matter for these numbers."""

    def version(pkg: str) -> str:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "not installed"

    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": affinity,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": version("numba"),
        "pettingzoo": version("pettingzoo"),
        "shimmy": version("shimmy"),
        "open_spiel": version("open_spiel"),
        "hanabi_env": hanabi_env.__version__,
    }


# (label, our system, reference system)
PAIRS = (
    ("1. env() AEC loop", "ours_env", "v5_env"),
    ("2. raw_env() AEC loop", "ours_raw", "v5_raw"),
    ("3a. engine stepped from Python, no obs", "ours_game", "pyspiel"),
    ("3b. engine compiled loop, no obs", "ours_compiled", "pyspiel"),
    ("3d. engine stepped from Python + obs", "ours_game_obs", "pyspiel_obs"),
)


def ratio(results: dict[str, Result], ours: str, ref: str) -> float:
    """Steps/s of ``ours`` over steps/s of ``ref``."""
    return results[ours].steps_per_s / results[ref].steps_per_s


def print_report(results: dict[str, Result], args: argparse.Namespace) -> dict:
    """Print the side-by-side table, truncation note and targets; return them for JSON."""
    print()
    print("Systems")
    print(
        f"  {'key':<14} {'system':<46} {'steps/s':>8} {'games/s':>8} {'avg len':>8} "
        f"{'trunc':>6} {'games':>8}"
    )
    for key, r in results.items():
        trunc = f"{100 * r.truncated / max(r.games, 1):.1f}%"
        print(
            f"  {key:<14} {r.name:<46} {fmt(r.steps_per_s):>8} {fmt(r.games_per_s):>8} "
            f"{r.avg_len:>8.1f} {trunc:>6} {r.games:>8}"
        )

    print()
    print(
        f"Side by side ({args.players} players, hand size 5, {args.seconds:g} s each; "
        "ratio = ours / reference)"
    )
    head = (
        f"  {'comparison':<40} {'ours st/s':>9} {'ref st/s':>9} {'ratio':>8} "
        f"{'ours g/s':>9} {'ref g/s':>9} {'ratio':>8} {'ours len':>8} {'ref len':>8}"
    )
    print(head)
    print("  " + "-" * (len(head) - 2))
    comparisons = []
    for label, ours, ref in PAIRS:
        o, f = results[ours], results[ref]
        steps_ratio = o.steps_per_s / f.steps_per_s
        games_ratio = o.games_per_s / f.games_per_s
        print(
            f"  {label:<40} {fmt(o.steps_per_s):>9} {fmt(f.steps_per_s):>9} "
            f"{steps_ratio:>7.1f}x {fmt(o.games_per_s):>9} {fmt(f.games_per_s):>9} "
            f"{games_ratio:>7.1f}x {o.avg_len:>8.1f} {f.avg_len:>8.1f}"
        )
        comparisons.append(
            {
                "comparison": label,
                "ours": ours,
                "reference": ref,
                "steps_ratio": steps_ratio,
                "games_ratio": games_ratio,
            }
        )
    print(
        "  ours: 1 hanabi_env.env(), 2 hanabi_env.raw_env(), 3a/3d HanabiGame "
        "(3d + observation(seat)), 3b engine.play_random_games"
    )
    print(
        "  ref:  1 hanabi_v5 env(), 2 hanabi_v5 raw_env(), 3a/3b pyspiel + chance_outcomes, "
        "3d pyspiel + observation_tensor"
    )

    print()
    for key in ("v5_env", "v5_raw"):
        r = results[key]
        print(
            f"  {r.name}: {r.truncated} of {r.games} games truncated "
            f"({100 * r.truncated / max(r.games, 1):.1f}%)"
        )
    print(
        "  hanabi_v5 truncates: Shimmy counts deals toward OpenSpiel's 118-move bound, which "
        "excludes deals\n  (docs/anchors.md §1); hanabi_env and pyspiel play every game to its "
        "real end. Random play ends\n  early (three bombs), so truncation is rare here but "
        "cuts most full-length games."
    )

    print()
    targets = []
    for label, ours, ref, goal in (
        ("our env() >= 3x hanabi_v5 env()", "ours_env", "v5_env", ENV_TARGET),
        (
            "our compiled engine >= 10x pyspiel (no observation)",
            "ours_compiled",
            "pyspiel",
            ENGINE_TARGET,
        ),
    ):
        got = ratio(results, ours, ref)
        verdict = "PASS" if got >= goal else "MISS"
        print(f"  TARGET {label:<52} {got:>7.1f}x  {verdict}")
        targets.append({"target": label, "goal": goal, "ratio": got, "pass": got >= goal})
    return {"comparisons": comparisons, "targets": targets}


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--seconds", type=float, default=5.0, help="timed wall time per system (s)")
    p.add_argument("--players", type=int, default=2, help="number of players (2-5)")
    p.add_argument("--seed", type=int, default=0, help="base seed of deals and actions")
    p.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run every measurement, print the report and optionally write JSON."""
    args = parse_args(argv)
    # hanabi_v5's keyword arguments and defaults (hand size 5 for every player count).
    config = {
        "colors": 5,
        "ranks": 5,
        "players": args.players,
        "hand_size": 5,
        "max_information_tokens": 8,
        "max_life_tokens": 3,
        "observation_type": "card_knowledge",
        "random_start_player": False,
    }
    info = machine_info()
    print("Machine: " + ", ".join(f"{k} {v}" for k, v in info.items()))
    print(
        f"Random legal play, {args.players} players, {args.seconds:g} s per system after "
        f"{WARMUP_SECONDS:g} s warm-up, seed {args.seed}"
    )

    v5_env, v5_raw = hanabi_v5_constructors()
    seed = args.seed
    results: dict[str, Result] = {}
    results["ours_env"] = measure(
        "hanabi_env.env()", lambda s: aec_player(hanabi_env.env(**config), s), args.seconds, seed
    )
    results["v5_env"] = measure(
        "hanabi_v5 env()", lambda s: aec_player(v5_env(**config), s), args.seconds, seed
    )
    results["ours_raw"] = measure(
        "hanabi_env.raw_env()",
        lambda s: aec_player(hanabi_env.raw_env(**config), s),
        args.seconds,
        seed,
    )
    results["v5_raw"] = measure(
        "hanabi_v5 raw_env()", lambda s: aec_player(v5_raw(**config), s), args.seconds, seed
    )
    results["ours_game"] = measure(
        "hanabi_env HanabiGame (legal_actions + step)",
        lambda s: game_player(config, s, observe=False),
        args.seconds,
        seed,
    )
    results["ours_compiled"] = measure_compiled(config, args.seconds, seed)
    results["pyspiel"] = measure(
        "pyspiel, no observation",
        lambda s: pyspiel_player(config, s, observe=False),
        args.seconds,
        seed,
    )
    results["ours_game_obs"] = measure(
        "hanabi_env HanabiGame + observation(seat)",
        lambda s: game_player(config, s, observe=True),
        args.seconds,
        seed,
    )
    results["pyspiel_obs"] = measure(
        "pyspiel + observation_tensor",
        lambda s: pyspiel_player(config, s, observe=True),
        args.seconds,
        seed,
    )

    report = print_report(results, args)
    if args.json:
        payload = {
            "machine": info,
            "args": vars(args),
            "config": config,
            "warmup_seconds": WARMUP_SECONDS,
            "results": {k: r.to_dict() for k, r in results.items()},
            **report,
        }
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=2)
        print(f"\nWrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

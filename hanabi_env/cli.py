"""Command-line interface ``hanabi-adhoc``.

Subcommands so far:

* ``demo``: plays a few games of uniformly random legal moves through ``hanabi_env.env()``
  (the standard PettingZoo loop) and prints each score and the seats' behaviour metrics.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def _demo(args: argparse.Namespace) -> int:
    import hanabi_env

    env = hanabi_env.env(players=args.players, scoring=args.scoring)
    rng = np.random.default_rng(args.seed)
    scores = []
    for game in range(args.games):
        env.reset(seed=args.seed + game)
        infos = {}
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            infos[agent] = info
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
        score = next(iter(infos.values()))["score"]
        scores.append(score)
        metrics = "  ".join(
            f"{a}: comm={_fmt(i['communicativeness'])} ipp={_fmt(i['ipp'])}"
            for a, i in infos.items()
        )
        print(f"game {game}: score {score:2d}   {metrics}")
    mean = float(np.mean(scores))
    sem = float(np.std(scores, ddof=1) / np.sqrt(len(scores))) if len(scores) > 1 else 0.0
    print(f"mean score over {len(scores)} games: {mean:.2f} ± {sem:.2f} (s.e.m.)")
    return 0


def _fmt(x: float | None) -> str:
    return "  n/a" if x is None else f"{x:.2f}"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``hanabi-adhoc``."""
    parser = argparse.ArgumentParser(
        prog="hanabi-adhoc", description="Ad-hoc cooperation research in Hanabi."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play a few random games through hanabi_env.env()")
    demo.add_argument("--games", type=int, default=5, help="number of games (default 5)")
    demo.add_argument("--players", type=int, default=2, help="2..5 (default 2)")
    demo.add_argument("--scoring", choices=["strict", "lenient"], default="strict")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``hanabi-adhoc``."""
    args = build_parser().parse_args(argv)
    if getattr(args, "games", 1) < 1:
        print("error: --games must be >= 1", file=sys.stderr)
        return 2
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())

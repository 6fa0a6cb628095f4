"""Command-line interface ``hanabi-adhoc``.

Subcommands so far:

* ``demo``: plays a few games of uniformly random legal moves through ``hanabi_env.env()``
  (the standard PettingZoo loop) and prints each score and the seats' behaviour metrics.
* ``evaluate``: mirror or mixed evaluation of a baseline agent or a chromosome ([CIG18]), e.g.
  ``hanabi-adhoc evaluate piers --mode mixed --games 400 --players 2-5``; a table, or
  ``--json``/``--csv``.
* ``map-elites``, ``ga``, ``population``: MAP-Elites runs, the 2018 genetic algorithm, and
  population analysis (see :mod:`qd.cli`).
* ``meta-table``, ``meta-eval``: the meta-agents' offline response table and the papers'
  evaluation protocol (see :mod:`meta.cli`).
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


def _parse_agent(text: str, seed: int):
    from agents.policy import RuleAgent, make

    if text.replace(",", "").replace(" ", "").isdigit() and "," in text:
        genes = [int(x) for x in text.split(",") if x.strip()]
        return RuleAgent(genes, seed=seed, name="chromosome")
    return make(text, seed=seed)


def _evaluate(args: argparse.Namespace) -> int:
    import csv
    import json

    from agents.evaluate import evaluate
    from qd.cli import parse_players

    try:
        agent = _parse_agent(args.agent, args.seed)
        players = parse_players(args.players)
        result = evaluate(
            agent,
            mode=args.mode,
            players=players,
            games=args.games,
            scoring=args.scoring,
            seed=args.seed,
            workers=args.workers,
            progress=not args.quiet,
        )
    except (ValueError, argparse.ArgumentTypeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.to_dict(), f, indent=1)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(result.rows[0]))
            w.writeheader()
            w.writerows(result.rows)
    print(
        f"{result.agent}: {result.mode} evaluation, {result.scoring} scoring, "
        f"{result.games} games per cell, seed {args.seed}"
    )
    print(f"{'partner':<14}{'players':>8}{'mean':>8}{'s.e.m.':>8}{'comm':>7}{'ipp':>7}")
    for r in result.rows:
        print(
            f"{r['partner']:<14}{r['players']:>8}{r['mean']:>8.2f}{r['sem']:>8.2f}"
            f"{r['communicativeness']:>7.2f}{r['ipp']:>7.2f}"
        )
    for p, (m, s) in result.per_size().items():
        print(f"{'all':<14}{p:>8}{m:>8.2f}{s:>8.2f}")
    print(
        f"overall: {result.mean:.2f} ± {result.sem:.2f}   communicativeness "
        f"{result.metrics['communicativeness']:.3f}  IPP {result.metrics['ipp']:.3f}"
    )
    return 0


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
    ev = sub.add_parser(
        "evaluate",
        help="mirror/mixed evaluation of a baseline agent or chromosome ([CIG18])",
        description="AGENT is a baseline name (IGGI, Internal, Outer, LegalRandom, VanDenBergh, "
        "Flawed, Piers, Cautious) or a comma-separated chromosome of rule indices.",
    )
    ev.add_argument("agent")
    ev.add_argument("--mode", choices=["mirror", "mixed"], default="mirror")
    ev.add_argument("--games", type=int, default=100, help="games per size (and partner)")
    ev.add_argument("--players", default="2-5", help="e.g. 2-5, 2,4 or 3 (default 2-5)")
    ev.add_argument("--scoring", choices=["strict", "lenient"], default="lenient")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    ev.add_argument("--json", metavar="PATH", help="write the full result as JSON")
    ev.add_argument("--csv", metavar="PATH", help="write one row per (partner, size) as CSV")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(func=_evaluate)
    from qd.cli import add_subcommands

    add_subcommands(sub)  # map-elites, ga, population
    from meta.cli import add_subcommands as add_meta_subcommands

    add_meta_subcommands(sub)  # meta-table, meta-eval
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

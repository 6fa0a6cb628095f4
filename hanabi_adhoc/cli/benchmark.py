"""The ``benchmark`` command: the ad-hoc teamwork benchmark of any agents (docs/benchmark.md).

``hanabi-adhoc benchmark AGENT [AGENT ...]`` plays every agent with every partner of the suites
(default: version 2 of the benchmark, ``pool``, ``published``, ``own``, ``strong``; ``--suite
v1`` plays version 1) on the same deals, writes the report folder
(:func:`hanabi_adhoc.benchmark.run_benchmark`) and prints the headline table. Rerun the same
command to resume a killed run or to re-report a finished one without playing.
"""

from __future__ import annotations

import argparse
import math

from hanabi_adhoc.cli.options import (
    QUIET_HELP,
    SEED_HELP,
    WAIT_HELP,
    OptionError,
    add_command,
    check_out_dir,
    check_players,
    command_errors,
)
from hanabi_adhoc.specs import agent_help

__all__ = ["add_subcommand"]

AGENT_HELP = f"AGENT is anything the command line can build: {agent_help(meta=True)}."
"""The forms of ``benchmark``'s AGENT (generated from the registry, :mod:`hanabi_adhoc.specs`)."""


def _suites(text: str, trust_code: bool) -> list[str]:
    from hanabi_adhoc.benchmark.suites import load_suites

    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise OptionError("--suite", f"{text!r} names no suite")
    try:
        load_suites(names, trust_code=trust_code)
    except (ValueError, FileNotFoundError) as err:
        raise OptionError("--suite", str(err)) from None
    return names


def _fmt(agg: dict) -> str:
    v = agg["value"]
    return (
        "n/a"
        if v is None or not math.isfinite(v)
        else f"{v:.3f} [{agg['low']:.3f}, {agg['high']:.3f}]"
    )


def _short(label: str, width: int = 23) -> str:
    """A label that fits ``width`` columns, keeping its end (a class or model name)."""
    return label if len(label) <= width else "…" + label[-(width - 1) :]


def _benchmark(args: argparse.Namespace) -> int:
    from hanabi_adhoc.benchmark.run import AgentSpecError, run_benchmark
    from hanabi_adhoc.benchmark.suites import benchmark_version

    suites = _suites(args.suite, args.trust_code)
    players = None if args.players is None else check_players("--players", args.players)
    check_out_dir("--out", args.out)
    agents = [*args.agents, *(args.compare or [])]
    # Ctrl-C is hanabi-adhoc's: one error line, exit 2 (docs/reliability.md §4); every unit
    # finished is saved, and the same command resumes
    with command_errors(ValueError, TypeError, FileNotFoundError, ImportError):
        try:
            bench = run_benchmark(
                agents,
                suites,
                args.out,
                seed=args.seed,
                ruleset=args.ruleset,
                trust_model=args.trust_model,
                trust_code=args.trust_code,
                hand_size=args.hand_size,
                deals=args.deals,
                players=players,
                workers=args.workers,
                progress=not args.quiet,
                train_games=args.train_games,
                leaderboard=args.leaderboard,
                wait=args.wait,
                scheduler_address=args.scheduler_address,
            )
        except AgentSpecError as err:
            raise OptionError("AGENT", str(err)) from None
    print(_scoring_line(bench))
    print(benchmark_version([s.key for s in bench.suites])["words"])
    w = max([14, *(len(s.key) + 2 for s in bench.suites)])  # custom:NAME@SHA keys are longer
    print(
        f"{'agent':<24}{'suite':<{w}}{'units':>6}  {'normalised IQM [95% CI]':<26}"
        f"{'mean score':>10}"
    )
    for a in bench.summary["agents"]:
        for key, su in a["suites"].items():
            al = su["all"]
            score = al["score_mean"]["value"]
            print(
                f"{_short(a['label']):<24}{key:<{w}}{al['units']:>6}  "
                f"{_fmt(al['normalised_iqm']):<26}"
                f"{score if score is None else round(score, 2):>10}"
            )
    _print_self_play(bench.summary["agents"])
    _print_partial(bench)
    print(f"report: {args.out}/summary.md")
    return 0


def _scoring_line(bench) -> str:
    """The scoring the suites' games were played with, first line of the output.

    ``play`` and ``serve`` default to strict scoring (HLE's), ``evaluate`` and ``benchmark`` to
    lenient (the papers'): each says its scoring at the top of its output (issue 43).
    """
    by: dict[str, list[str]] = {}
    for s in bench.suites:
        for g in s.groups:
            by.setdefault(g.scoring, []).append(g.name)
    if len(by) == 1:
        (scoring,) = by
        like = "as the papers' Java framework" if scoring == "lenient" else "as HLE"
        return f"{scoring} scoring ({like}; every group of the suites)"
    return "scoring by group: " + "; ".join(f"{k} ({', '.join(v)})" for k, v in by.items())


def _print_partial(bench) -> None:
    """One line per agent that skipped game sizes of a suite (a partial run)."""
    from hanabi_adhoc.benchmark.report import partial_words

    if bench.partial:
        return  # --players/--deals: the whole report is partial, and says so
    for a in bench.summary["agents"]:
        short = {k: su for k, su in a["suites"].items() if not su["complete"]}
        if short:
            print(f"note: {a['label']} played a partial run: {partial_words(a, short)}")


def _print_self_play(agents: list[dict]) -> None:
    """The agents' own self-play scores, mean ± s.e.m. per game size."""
    from hanabi_adhoc.benchmark.report import pm

    print(f"\n{'agent':<24}self-play score (mean ± s.e.m., games) by players")
    for a in agents:
        per = [f"{p}p {pm(st)} ({st['games']})" for p, st in a["self_play"].items()]
        print(f"{_short(a['label']):<24}{'; '.join(per) or 'none played'}")


def _what_rows() -> tuple:
    """``benchmark``'s options of what is played: agents, suites, deals, game settings."""
    return (
        (
            "agents",
            {"nargs": "+", "metavar": "AGENT"},
            "the agents, side by side on the same deals",
        ),
        (
            "--compare",
            {"nargs": "+", "metavar": "AGENT"},
            "more agents to put beside them (their games are reused when OUT holds them already)",
        ),
        (
            "--suite",
            {},
            "comma-separated suites: pool, published, own, dev, test, rl, strong, neural, "
            "NAME@VERSION, a benchmark version (v1: pool,published,own; v2: "
            "pool,published,own,strong) or a suite JSON file (default v2)",
            "v2",
        ),
        (
            "--out",
            "DIR",
            "report folder; rerun with the same folder to resume or re-report (an agent "
            "changed since is played again); a folder with files the toolkit did not "
            "write is refused (default runs/benchmark)",
            "runs/benchmark",
        ),
        ("--seed", "SEED", SEED_HELP + "; the deals are the suites' own", 0),
        (
            "--ruleset",
            "corrected|reference",
            "rules of the rule agents named by AGENT (and of "
            "the meta-agent's pool); the partners play by their suite's (default corrected)",
            "corrected",
        ),
        (
            "--hand-size",
            {"type": int, "choices": range(2, 6), "metavar": "N"},
            "cards per hand (default: the rulebook's, 5 at 2-3 players and 4 at 4-5, as the "
            "best-response scores were measured; another size has no normalised score)",
        ),
        (
            "--players",
            {},
            "only these game sizes, e.g. 2 or 3-5 (default: every size of the "
            "suites; a partial run stays off the leaderboard)",
        ),
        (
            "--deals",
            "N",
            "only the first N deals per partner and seat, a quick look (default: "
            "all; a partial run stays off the leaderboard)",
        ),
    )


def _how_rows() -> tuple:
    """``benchmark``'s options of how it is played: trust, workers, output."""
    return (
        (
            "--train-games",
            "N",
            "games per pair of the meta-agent's response table (default 20)",
            20,
        ),
        (
            "--trust-model",
            "FLAG",
            "allow sb3:PATH agents: loading a model runs code stored in "
            "the file (default: refused)",
        ),
        (
            "--trust-code",
            "FLAG",
            "allow a suite file of your own to name partners that run code or read model "
            "files (file.py:Name, module:Name, sb3:PATH, rl:PATH.json; default: refused, "
            "a suite file is data)",
        ),
        ("--leaderboard", "PATH", "leaderboard CSV to update (default OUT/leaderboard.csv)"),
        (
            "--workers",
            "WORKERS",
            "local workers: threads for rule agents, processes for other "
            "policies (default: all cores; results do not depend on it)",
        ),
        (
            "--scheduler-address",
            "ADDRESS",
            "play the units on the Dask cluster of this scheduler, e.g. tcp://host:8786, "
            "one task per unit; the workers need the toolkit and the agent's modules "
            "(default: none, local workers; results are the same)",
        ),
        ("--wait", "FLAG", WAIT_HELP),
        ("--quiet", "FLAG", QUIET_HELP),
    )


def add_subcommand(subparsers) -> None:
    """Add ``benchmark`` to an ``argparse`` subparsers object."""
    add_command(
        subparsers,
        "benchmark",
        _benchmark,
        None,
        (*_what_rows(), *_how_rows()),
        help="ad-hoc teamwork benchmark: agents with partners they never met, niche by niche",
        description="Plays every AGENT with every partner of the suites on the same deals "
        "(seats rotated, 2-5 players) and writes OUT/summary.md, summary.json, per_partner.csv, "
        "seats.csv, figures/*.png and leaderboard.csv (docs/benchmark.md). " + AGENT_HELP,
    )

"""``hanabi-adhoc pipeline``: the whole study (:mod:`hanabi_adhoc.study.pipeline`), resumable.

The description printed by ``--help`` still names ``hanabi_adhoc.pipeline`` (the old path,
forwarded until 0.4.0): the command's output stays as it was.
"""

from __future__ import annotations

import argparse

__all__ = ["PIPELINE_OPTIONS", "add_subcommand"]


def add_subcommand(sub) -> None:
    """Register ``pipeline`` on ``sub`` (the subparsers of ``hanabi-adhoc``)."""
    from hanabi_adhoc.cli.options import ADOPT_HELP, WAIT_HELP, add_command, positive_int

    add_command(sub, "pipeline", _pipeline, "pl", (
        ("--config", {"choices": ["quick", "paper"]}, "quick (minutes on 2 cores) or paper "
         "([Bayes21] scale); the options below override it (default quick)", "quick"),
        ("--out", "DIR", "output folder; rerun with the same folder to resume (default "
         "runs/pipeline)", "runs/pipeline"),
        ("--runs", "N", "MAP-Elites populations (default 3)"),
        ("--candidates", "N", "candidates per MAP-Elites run (default: quick 4000, paper 10^6)"),
        ("--me-games", "N", "self-play games per MAP-Elites candidate (default: quick 25, "
         "paper 100)"),
        ("--seed", "SEED_N", "master seed (default 0)"),
        ("--matchup-games", "N", "games per match-up pair (default: quick 100, paper 400)"),
        ("--train-games", "N", "games per response-table pair (default: quick 50, paper 400)"),
        ("--episodes", {"type": positive_int, "metavar": "K"}, "meta-agent episodes per "
         "partner, k (default: quick 5, paper 200)"),
        ("--games", {"type": positive_int, "metavar": "G"}, "games per meta-agent episode, g "
         "(default 10)"),
        ("--ruleset", "corrected|reference", "corrected or reference: every stage (MAP-Elites "
         "search and binning, match-ups, response tables, meta-agents) plays the rule agents as "
         "the papers' Java code ran them, bugs included (docs/rules.md §12); a study folder is "
         "resumed only in its own ruleset (default corrected)"),
        ("--workers", "WORKERS", "local threads (and processes for policies that are not rule "
         "agents), >= 1 (default: all cores)"),
        ("--scheduler-address", "ADDRESS", "Dask scheduler that plays every stage's games "
         "(MAP-Elites, match-ups, response tables, meta-agent evaluation), e.g. "
         "tcp://host:8786; the report's numbers are identical to a local run (default: local "
         "threads)"),
        ("--quiet", "FLAG", "no progress bars (default: shown)"),
        ("--wait", "FLAG", WAIT_HELP),
        ("--adopt", "FLAG", ADOPT_HELP),
    ), help="the whole study: populations -> match-ups -> meta-agents -> report",
        description="Runs (or resumes) the study of hanabi_adhoc.pipeline and writes OUT/report/ "
        "(summary.md, tables/*.csv, figures/*.png). Rerun the same command to resume.",
    )  # fmt: skip


PIPELINE_OPTIONS = {
    "runs": "--runs",
    "candidates": "--candidates",
    "me_games": "--me-games",
    "seed": "--seed",
    "matchup_games": "--matchup-games",
    "train_games": "--train-games",
    "episodes": "--episodes",
    "games": "--games",
    "ruleset": "--ruleset",
}
"""PipelineConfig fields -> ``pipeline`` options (for errors naming the option)."""


def _pipeline(args: argparse.Namespace) -> int:
    from hanabi_adhoc.cli.options import (
        check_out_dir,
        command_errors,
        config_error,
        option_dest,
        require_extra,
    )
    from hanabi_adhoc.study.pipeline import get_pipeline_config, run_pipeline

    require_extra("pipeline (its report's figures)", "qd")
    check_out_dir("--out", args.pl_out)
    try:  # every option checked before any work
        overrides = {f: getattr(args, option_dest("pl", o)) for f, o in PIPELINE_OPTIONS.items()}
        config = get_pipeline_config(args.pl_config, **overrides)
    except ValueError as err:
        raise config_error(err, PIPELINE_OPTIONS) from None
    with command_errors(ValueError):
        path = run_pipeline(
            config,
            args.pl_out,
            workers=args.pl_workers,
            scheduler_address=args.pl_scheduler_address,
            quiet=args.pl_quiet,
            wait=args.pl_wait,
            adopt=args.pl_adopt,
        )
    print(f"report: {path}")
    return 0

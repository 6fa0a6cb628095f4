"""Command-line interface ``hanabi-adhoc``: the parser and the entry point.

Each subcommand lives in its own module of :mod:`hanabi_adhoc.cli`, which registers it
(``add_subcommand``); this module builds the parser from them, runs the command and turns every
known failure and Ctrl-C (:mod:`hanabi_adhoc.cli.interrupt`) into one ``error:`` line.
Subcommands (``hanabi-adhoc <command> --help`` for each):

* ``pipeline``: the whole study (:mod:`hanabi_adhoc.study.pipeline`): three MAP-Elites
  populations, elite re-evaluation, match-up tables, the Bayesian meta-agent in and out of
  distribution, and a report folder (Markdown summary, CSV tables, PNG figures); ``--config
  paper`` for the papers' scale; resumable.
* ``play``: games through ``hanabi_env.env()`` with the agents of your choice in each seat;
  ``human`` seats a person at the terminal (:class:`agents.human.HumanPolicy`), ``meta`` the
  Bayesian meta-agent; ends with each seat's communicativeness and IPP.
* ``warmup``: compiles every numba kernel now and prints how long it took
  (:mod:`hanabi_adhoc.warmup`).
* ``demo``: plays a few games of uniformly random legal moves through ``hanabi_env.env()``
  (the standard PettingZoo loop) and prints each score and the seats' behaviour metrics.
* ``evaluate``: mirror or mixed evaluation of a baseline agent or a chromosome ([CIG18]), e.g.
  ``hanabi-adhoc evaluate piers --mode mixed --games 400 --players 2-5``; a table, or
  ``--json``/``--csv``.
* ``map-elites``, ``ga``, ``population``, ``matchups``: MAP-Elites runs, the 2018 genetic
  algorithm, population analysis, and a population's match-up table (see
  :mod:`hanabi_adhoc.cli.qd`).
* ``meta-table``, ``meta-eval``: the meta-agents' offline response table and the papers'
  evaluation protocol (see :mod:`hanabi_adhoc.cli.meta`).
* ``serve``: play in the browser with any agent, the meta-agent included (see
  :mod:`hanabi_adhoc.cli.serve`, docs/browser.md).
* ``benchmark``: the ad-hoc teamwork benchmark of any agents (see
  :mod:`hanabi_adhoc.cli.benchmark`, docs/benchmark.md).
* ``bad ...``: the Bayesian Action Decoder [BAD19] (see :mod:`hanabi_adhoc.cli.bad`).
"""

from __future__ import annotations

import argparse
import sys

from hanabi_adhoc.cli.interrupt import CTRL_C, ctrl_c, forget_unhandled_interrupt
from hanabi_env.deprecation import moved_names

__all__ = ["INTERRUPTED", "build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line: ``error: ...`` (exit code 2)."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see: {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``hanabi-adhoc`` (subparsers share its one-line usage errors)."""
    parser = _Parser(prog="hanabi-adhoc", description="Ad-hoc cooperation research in Hanabi.")
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        help="one of the subcommands below; 'hanabi-adhoc COMMAND --help' for its options",
    )
    from hanabi_adhoc.cli import demo, evaluate, pipeline, play, train_sb3, warmup

    for module in (pipeline, play, train_sb3, demo, warmup, evaluate):
        module.add_subcommand(sub)
    from hanabi_adhoc.cli.qd import add_subcommands

    add_subcommands(sub)  # map-elites, ga, population
    from hanabi_adhoc.cli.meta import add_subcommands as add_meta_subcommands

    add_meta_subcommands(sub)  # meta-table, meta-eval
    from hanabi_adhoc.cli.clone import add_subcommands as add_clone_subcommands

    add_clone_subcommands(sub)  # clone
    from hanabi_adhoc.cli.serve import add_subcommand as add_serve

    add_serve(sub)  # serve: play in the browser (hanabi_adhoc.web)
    from hanabi_adhoc.cli.benchmark import add_subcommand as add_benchmark

    add_benchmark(sub)  # benchmark
    from hanabi_adhoc.cli.bad import add_subcommands as add_bad_subcommands

    add_bad_subcommands(sub)  # bad matrix, bad hanabi, bad eval, bad export
    return parser


INTERRUPTED = "interrupted (Ctrl-C); finished work is saved: resume with the same command"
"""The one line ``hanabi-adhoc`` prints when stopped with Ctrl-C (after ``error: ``)."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``hanabi-adhoc``.

    Every known failure ends with one ``error: ...`` line on stderr and exit code 2: a bad
    option, an error of the work (:class:`~hanabi_adhoc.cli.options.CommandError`), a result
    file that cannot be trusted (:class:`hanabi_env.outputs.ResultFileError`, naming it), an
    ``OSError`` (a busy folder, a full disk, an unreadable input: the file named) and Ctrl-C
    (:data:`INTERRUPTED`). Exit codes: docs/reliability.md.
    """
    from hanabi_adhoc.cli.options import CommandError, OptionError
    from hanabi_env.outputs import ResultFileError

    args = build_parser().parse_args(argv)  # option errors: one error line, exit 2
    with ctrl_c():
        try:
            return args.func(args)  # checks every option before any work (OptionError)
        except (OptionError, CommandError, ResultFileError, OSError) as err:
            print(f"error: {_one_line(err)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            CTRL_C.handled()
            forget_unhandled_interrupt()
            flags = [f for f in ("me_resume", "ga_resume") if getattr(args, f, None) is False]
            hint = " plus --resume" if flags else ""  # (a run that needs it to continue)
            print(f"\nerror: {INTERRUPTED}{hint}", file=sys.stderr)
            return 2


def _one_line(err: Exception) -> str:
    """The message of ``err`` on one line (an ``OSError`` with its file name)."""
    text = str(err)
    if isinstance(err, OSError) and err.filename and str(err.filename) not in text:
        text = f"{text}: {err.filename}"
    return " ".join(text.split())


# names that lived here until 0.2.0 (issue 42: the spec module, one module per subcommand)
__getattr__ = moved_names(
    __name__,
    {
        "SEAT_HELP": "hanabi_adhoc.specs:SEAT_HELP",
        "SEAT_FORMS": "hanabi_adhoc.specs:SEAT_FORMS",
        "META_VARIANTS": "hanabi_adhoc.specs:META_VARIANTS",
        "parse_seat": "hanabi_adhoc.specs:parse_seat",
        "_seat_kind": "hanabi_adhoc.specs:seat_kind",
        "_parse_agent": "hanabi_adhoc.specs:make_plain_agent",
        "hand_size_words": "hanabi_adhoc.settings:hand_size_words",
        "game_settings": "hanabi_adhoc.settings:game_settings",
        "PIPELINE_OPTIONS": "hanabi_adhoc.cli.pipeline:PIPELINE_OPTIONS",
        "SCORING": "hanabi_adhoc.cli.options:STRICT_SCORING_HELP",
    },
    "0.4.0",
)

"""The command line's surface: every subcommand's ``--help`` and representative error lines.

``tests/data/cli_surface.json`` records it; ``tests/hanabi_adhoc/test_cli_surface.py`` compares
the CLI against it, so that a refactoring of ``hanabi_adhoc.cli`` keeps every command, option,
help text and error line as it was (issue 42, item 6).

Regenerate the golden file (only when a help text or an error line changes on purpose; say
which in the commit)::

    python3 -m tests.hanabi_adhoc.cli_surface --write

Run as a script, it prints the surface as JSON (what the test compares). Every case runs
``hanabi_adhoc.cli.main`` in this process, in a fresh empty folder, with ``COLUMNS`` fixed so
that argparse wraps the help texts the same way on every terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "cli_surface.json"
COLUMNS = "100"

# (a command line as a user types it, as argv); each fails before any game is played
ERRORS: list[list[str]] = [
    [],
    ["no-such-command"],
    # seats of play
    ["play", "piers"],
    ["play", "piers", "iggi", "a", "b", "c", "d"],
    ["play", "nobody", "piers"],
    ["play", "humanx", "piers"],
    ["play", "1,999", "piers"],
    ["play", "1,-2", "piers"],
    ["play", "", "piers"],
    ["play", "metafoo", "piers"],
    ["play", "meta:foo", "piers"],
    ["play", "meta:oracle", "piers"],
    ["play", "meta", "piers", "iggi"],
    ["play", "meta", "nobody"],
    ["play", "sb3:no-such-model.zip", "piers"],
    ["play", "rl:no-such-partner", "piers"],
    ["play", "rl:ppo-sp1", "piers", "iggi"],
    ["play", "nosuchmodule_xyz:Bot", "piers"],
    ["play", "piers", "iggi", "--hand-size", "9"],
    # option values of play
    ["play", "piers", "iggi", "--games", "0"],
    ["play", "piers", "iggi", "--seed", "-5"],
    ["play", "piers", "iggi", "--scoring", "x"],
    ["play", "piers", "iggi", "--train-games", "0"],
    ["play", "piers", "iggi", "--ruleset", "foo"],
    # evaluate
    ["evaluate"],
    ["evaluate", "nobody"],
    ["evaluate", ""],
    ["evaluate", "meta"],
    ["evaluate", "human"],
    ["evaluate", "1,,2"],
    ["evaluate", "sb3:no-such-model.zip"],
    ["evaluate", "piers", "--players", "6"],
    ["evaluate", "piers", "--mode", "foo"],
    ["evaluate", "piers", "--preset", "cig18"],
    ["evaluate", "piers", "--seed", "4294967296"],
    ["evaluate", "piers", "--workers", "0"],
    # train-sb3, demo, pipeline
    ["train-sb3", "--pool", "nobody"],
    ["train-sb3", "--pool", "meta"],
    ["train-sb3", "--pool", ",,,"],
    ["demo", "--games", "0"],
    ["demo", "--players", "1"],
    ["demo", "--seed", "1e3"],
    ["pipeline", "--runs", "0"],
    ["pipeline", "--config", "foo"],
    ["pipeline", "--scheduler-address", "not an address"],
    # serve
    ["serve", "--partner", "nobody"],
    ["serve", "--partner", "meta", "--partner", "piers"],
    ["serve", "--partner", "metafoo"],
    ["serve", "--partner", "meta:foo"],
    ["serve", "--port", "70000"],
    ["serve", "--hand-size", "9"],
    # benchmark
    ["benchmark", "nobody", "--out", "bench"],
    ["benchmark", "meta:foo", "--out", "bench"],
    ["benchmark", "piers", "--suite", "no-such-suite", "--out", "bench"],
    ["benchmark", "piers", "--players", "7", "--out", "bench"],
    # the other commands
    ["map-elites", "--candidates", "0"],
    ["ga", "--population", "1"],
    ["population", ""],
    ["matchups", "5x5", "--games", "0"],
    ["meta-table", "--responses", "baselines:nobody"],
    ["meta-eval", "--variants", "psychic"],
    ["bad"],
    ["bad", "eval", "--episodes", "0"],
]


def _subcommands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every command path of ``parser`` (``()``, ``("play",)``, ``("bad", "eval")``, ...)."""
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subcommands(sub, (*path, name))


def _run(argv: list[str]) -> dict:
    """``hanabi-adhoc ARGV`` in this process: its exit code, stdout and stderr."""
    from hanabi_adhoc.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return {"argv": argv, "exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def surface() -> dict:
    """The help of every command and the outcome of every :data:`ERRORS` case."""
    os.environ["COLUMNS"] = COLUMNS
    os.environ.pop("LINES", None)
    from hanabi_adhoc.cli import build_parser

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            helps = {
                " ".join(path) or "hanabi-adhoc": _run([*path, "--help"])
                for path in _subcommands(build_parser())
            }
            errors = [_run(argv) for argv in ERRORS]
            left = sorted(p.name for p in Path(tmp).iterdir())
        finally:
            os.chdir(here)
    text = json.dumps({"help": helps, "errors": errors, "files_left": left})
    return json.loads(text.replace(tmp, "<TMP>"))


def main(argv: list[str] | None = None) -> int:
    """Print the surface as JSON, or (``--write``) write it to :data:`GOLDEN`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {GOLDEN}")
    args = parser.parse_args(argv)
    text = json.dumps(surface(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if args.write:
        GOLDEN.write_text(text, encoding="utf-8")
        print(f"wrote {GOLDEN}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

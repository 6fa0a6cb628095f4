"""The command line keeps its surface: help texts, options and error lines (issue 42, item 6).

``tests/data/cli_surface.json`` holds what ``hanabi-adhoc`` printed for every subcommand's
``--help`` and for representative bad input (seats, option values, unknown agents), recorded
from the code before the command line was split into modules. Regenerate it only when a help
text or an error line changes on purpose: ``python3 -m tests.hanabi_adhoc.cli_surface --write``
(see that module).
"""

from __future__ import annotations

import json
import os

import pytest

from tests.hanabi_adhoc.cli_surface import COLUMNS, ERRORS, GOLDEN
from tests.helpers import ROOT, run_python


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def now(tmp_path_factory) -> dict:
    """The surface of the code as it is, computed in a fresh interpreter."""
    cwd = tmp_path_factory.mktemp("surface")
    proc = run_python(["-m", "tests.hanabi_adhoc.cli_surface"], cwd=cwd, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_every_command_has_the_same_help(golden, now):
    assert sorted(now["help"]) == sorted(golden["help"]), "commands added or removed"
    changed = [c for c in golden["help"] if now["help"][c] != golden["help"][c]]
    assert not changed, f"help changed for: {changed}"
    assert {"hanabi-adhoc", "play", "evaluate", "benchmark", "serve", "bad eval"} <= set(
        now["help"]
    )
    for command, result in now["help"].items():
        assert result["exit"] == 0, command
        assert result["stdout"].startswith("usage: hanabi-adhoc"), command


def test_bad_input_gives_the_same_error_lines(golden, now):
    assert [e["argv"] for e in now["errors"]] == ERRORS
    assert [e["argv"] for e in golden["errors"]] == ERRORS, "regenerate the golden file"
    changed = [
        " ".join(old["argv"]) + f"\n  was: {old['stderr']!r}\n  now: {new['stderr']!r}"
        for old, new in zip(golden["errors"], now["errors"], strict=True)
        if old != new
    ]
    assert not changed, "\n".join(changed)
    for case in now["errors"]:
        assert case["exit"] == 2, case
        lines = case["stderr"].splitlines()
        assert len(lines) == 1, case
        assert lines[0].startswith("error: "), case
    assert now["files_left"] == [], "a refused command wrote files"


@pytest.mark.parametrize(
    "argv",
    [["play", "nobody", "piers"], ["evaluate", "meta"], ["play", "--help"]],
    ids=["seat", "agent", "help"],
)
def test_a_real_process_prints_what_the_golden_file_holds(golden, argv, tmp_path):
    """The in-process capture is what a user sees from ``python -m hanabi_adhoc``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS=COLUMNS, MPLBACKEND="Agg")
    env.pop("LINES", None)
    proc = run_python(["-m", "hanabi_adhoc", *argv], cwd=tmp_path, timeout=300, env=env)
    if argv[-1] == "--help":
        want = golden["help"][" ".join(argv[:-1])]
    else:
        want = next(e for e in golden["errors"] if e["argv"] == argv)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        want["exit"],
        want["stdout"],
        want["stderr"],
    )

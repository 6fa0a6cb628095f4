"""The RL-partner docs run as written: the tutorial's code in order, and every command of both
pages (docs/tutorials/rl-partner.md, docs/rl_partners.md), at small scale.

The tutorial's Python blocks run in one fresh interpreter, in a scratch folder, with the
training run and the game counts made small (:data:`SMALL`: each replacement must match, so
the test fails when the tutorial changes under it); then each ``hanabi-adhoc`` command of the
two pages runs in that folder (``play human`` with its input piped, the others with the small
options of :data:`COMMANDS`). Marked ``rl`` (the tutorial trains with sb3-contrib).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from hanabi_adhoc.cli import main
from tests.helpers import run_python

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorials" / "rl-partner.md"
PAGE = ROOT / "docs" / "rl_partners.md"
HAVE_RL = all(importlib.util.find_spec(m) for m in ("torch", "stable_baselines3", "sb3_contrib"))
pytestmark = [
    pytest.mark.rl,
    pytest.mark.skipif(not HAVE_RL, reason='needs the rl extra: pip install ".[rl]"'),
]

SMALL = {
    "total_timesteps=300_000": "total_timesteps=4_096",
    "games=500": "games=20",
    "games=200,": "games=10,",
    "games=100, seed=0, scoring": "games=10, seed=0, scoring",
    "games=20, seed=0,": "games=2, seed=0,",
}
"""Replacements that make the tutorial's code quick (each must occur in it)."""

COMMANDS = {
    "hanabi-adhoc play human rl:runs/my_partner.json": ("q\n", ()),
    "hanabi-adhoc play human rl:ppo-sp1": ("q\n", ()),
    "hanabi-adhoc play rl:ppo-sp1 rl:ppo-sp2 --games 3": (None, ()),
    "hanabi-adhoc evaluate rl:ppo-sp1 --players 2 --games 200": (None, ("--games", "5")),
    "hanabi-adhoc meta-table --responses baselines:piers,iggi,outer --hypotheses rl:all "
    "--train-games 20 --out runs/rl_table.csv": (None, ("--train-games", "1")),
}
"""Every command of the two pages: (stdin, small options appended)."""


def _blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(), flags=re.S)


def _commands() -> list[str]:
    found = []
    for path in (TUTORIAL, PAGE):
        for block in _blocks(path, "bash"):
            found += [" ".join(line.split()) for line in block.splitlines() if line.strip()]
    return found


def test_every_documented_command_is_covered():
    assert sorted(set(_commands())) == sorted(COMMANDS)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """The tutorial's Python blocks, run in order at small scale (they write runs/...)."""
    code = "\n".join(_blocks(TUTORIAL, "python"))
    for old, new in SMALL.items():
        assert old in code, old
        code = code.replace(old, new)
    where = tmp_path_factory.mktemp("tutorial")
    (where / "runs").mkdir()
    (where / "tutorial.py").write_text(code)
    proc = run_python(["tutorial.py"], cwd=where, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "'same_moves': 3200" in proc.stdout
    return where


def test_the_tutorial_runs_in_order(workspace):
    assert (workspace / "runs" / "my_partner.json").is_file()
    assert (workspace / "runs" / "my_partner.npz").is_file()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_documented_command_runs(command, workspace, monkeypatch, capsys):
    stdin, small = COMMANDS[command]
    monkeypatch.chdir(workspace)
    if stdin is not None:
        import io

        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main([*shlex.split(command)[1:], *small]) == 0
    out = capsys.readouterr().out
    assert "stopped." in out if stdin else out.strip()

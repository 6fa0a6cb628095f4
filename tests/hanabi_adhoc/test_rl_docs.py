"""The RL-partner tutorial (docs/tutorials/rl-partner.md) runs as written, in order.

Its Python blocks continue one session (a model trained in the first is exported, played and
put in a pool in the next ones), so tests/project/test_docs.py, which runs each block alone, skips
them (they are marked ``no-run`` with this reason) and this test runs them in one fresh
interpreter, in a scratch folder, with the training run and the game counts made small
(:data:`SMALL`: each replacement must match, so the test fails when the tutorial changes under
it). Then the tutorial's commands that need the partner it trained (its ``no-run`` bash
blocks; the others run in tests/hanabi_adhoc/test_cli_docs.py) run in that folder. Marked
``rl`` (the tutorial trains with sb3-contrib).
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
}
"""The tutorial's commands that need its partner: (stdin, small options appended)."""


def _blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(), flags=re.S)


def _workspace_commands() -> list[str]:
    """The ``hanabi-adhoc`` lines of the tutorial's bash blocks marked ``no-run``."""
    text = TUTORIAL.read_text()
    found = []
    for block in re.findall(r"<!-- no-run:[^>]*-->\s*```bash\n(.*?)```", text, flags=re.S):
        found += [" ".join(line.split()) for line in block.splitlines() if line.strip()]
    return found


def test_every_python_block_is_left_to_this_test_and_every_command_is_covered():
    text = TUTORIAL.read_text()
    assert text.count("```python") == len(re.findall(r"no-run:[^>]*-->\s*```python", text))
    assert sorted(_workspace_commands()) == sorted(COMMANDS)


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

"""An outside bot through the public API (docs/tutorials/bring-your-own-bot.md).

The example (examples/outside_bot.py) runs; the tutorial's commands run as written, in real
``hanabi-adhoc`` processes, with its spec options (``Adapter?level=2``); a bad option is one
``error:`` line with exit code 2; the spec works as a pool SOURCE and is refused where code is
not allowed. The tutorial's Python blocks run in tests/project/test_docs.py.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from agents.registry import check_spec_allowed, spec_kind
from meta.pools import load_pool
from tests.helpers import run_python
from tests.project.test_docs import code_blocks

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "outside_bot.py"
TUTORIAL = ROOT / "docs" / "tutorials" / "bring-your-own-bot.md"
SMALL = {"evaluate": ["--games", "2", "--workers", "1", "--quiet"], "play": ["--games", "1"]}


@pytest.fixture
def workdir(tmp_path):
    """A scratch folder holding examples/outside_bot.py, as a checkout does."""
    (tmp_path / "examples").mkdir()
    shutil.copy(EXAMPLE, tmp_path / "examples" / "outside_bot.py")
    return tmp_path


def cli(args: list[str], cwd: Path):
    return run_python(["-m", "hanabi_adhoc", *args], cwd, timeout=600)


def tutorial_commands() -> list[str]:
    """The ``hanabi-adhoc`` lines of the tutorial's bash blocks."""
    return [
        line.strip()
        for _, lang, code, _ in code_blocks(TUTORIAL)
        if lang == "bash"
        for line in code.splitlines()
        if line.strip().startswith("hanabi-adhoc ")
    ]


def test_example_scores_and_tracks_hints_like_the_view(tmp_path):
    proc = run_python([str(EXAMPLE), "--games", "4", "--players", "3"], tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    scores = re.findall(r"level (\d): self-play ([\d.]+) ± ([\d.]+)", proc.stdout)
    assert [s[0] for s in scores] == ["1", "2"], proc.stdout
    assert all(0.0 <= float(mean) <= 25.0 for _, mean, _ in scores)
    assert "hint tracking: 0 cards disagree with PlayerView.card_hints" in proc.stdout


def test_tutorial_commands_run_with_their_options(workdir):
    commands = tutorial_commands()
    assert len(commands) >= 2
    assert any("Adapter?level=2" in c for c in commands)
    for command in commands:
        argv = shlex.split(command)[1:]
        proc = cli([*argv, *SMALL[argv[0]]], workdir)
        assert proc.returncode == 0, f"{command}\n{proc.stderr[-3000:]}"
        level = re.search(r"level=(\d)", command).group(1)  # type: ignore[union-attr]
        assert f"outside-bot-{level}" in proc.stdout + proc.stderr, proc.stdout


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("examples/outside_bot.py:Adapter?levle=2", r"accepts no option 'levle'; allowed: level"),
        ("examples/outside_bot.py:Adapter?level=3", r"level=3 is not allowed; allowed: 1, 2"),
        ("examples/outside_bot.py:Adapter?level", r"key=value"),
    ],
)
def test_a_bad_option_is_one_error_line(workdir, spec, words):
    proc = cli(["evaluate", spec, "--games", "1", "--workers", "1", "--quiet"], workdir)
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    assert re.search(words, lines[0]), lines[0]


def test_the_spec_is_a_pool_source_and_code_where_code_is_refused():
    spec = f"{EXAMPLE}:Adapter?level=2"
    pool, ids = load_pool(f"policy:{spec}")
    assert ids == ["outside-bot-2"]
    assert pool[0].level == 2  # type: ignore[attr-defined]
    assert spec_kind(spec) == "code"
    with pytest.raises(ValueError, match="runs code"):
        check_spec_allowed(spec)

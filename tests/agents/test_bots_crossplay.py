"""tools/bots_crossplay.py, the bots' cross-play table (docs/bots.md §6), run as a user runs it.

At tiny scale (2 games per cell, 2 players, 2 agents) in a fresh interpreter: the files it
writes, their agreement with each other and with :func:`agents.evaluate.evaluate` on the same
seed, the resume of a finished run, and its one-line errors.
"""

from __future__ import annotations

import csv
import re

import pytest

from agents.evaluate import evaluate
from tests.helpers import ROOT, run_python

TOOL = str(ROOT / "tools" / "bots_crossplay.py")
AGENTS = ("SimpleBot", "Piers")


def _run(out, *extra: str):
    args = [TOOL, "--games", "2", "--players", "2", "--agents", ",".join(AGENTS)]
    return run_python([*args, "--workers", "2", "--out", str(out), *extra], cwd=ROOT, timeout=600)


def _cells(out) -> list[dict]:
    with (out / "cells.csv").open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_tiny_table_files_and_consistency(tmp_path):
    """Every cell once, equal to evaluate's mixed play, and the same numbers in tables.md."""
    out = tmp_path / "xplay"
    proc = _run(
        out, "--seed", "3", "--title", "Cross-play of a few", "--doc", "docs/rl_partners.md §8"
    )
    assert proc.returncode == 0, proc.stderr
    assert {p.name for p in out.iterdir()} == {
        "cells.csv",
        "tables.md",
        "README.md",
        "heatmap-2p.png",
    }
    rows = _cells(out)
    assert [(r["agent"], r["partner"]) for r in rows] == [(a, b) for a in AGENTS for b in AGENTS]
    tables = (out / "tables.md").read_text()
    for r in rows:
        assert (r["players"], r["games"], r["seed"]) == ("2", "2", "3")
        expected = evaluate(
            r["agent"], mode="mixed", players=[2], games=2, pool=[r["partner"]], seed=3, workers=1
        ).rows[0]
        assert float(r["mean"]) == pytest.approx(expected["mean"], abs=1e-4)
        assert float(r["sem"]) == pytest.approx(expected["sem"], abs=1e-4)
        assert float(r["cpu_s"]) >= 0
        assert r["error"] == ""
    for a in AGENTS:
        line = next(x for x in tables.splitlines() if x.startswith(f"| {a} |"))
        cells = re.findall(r"(\d+\.\d\d) ± (\d+\.\d\d)", line)
        mine = [r for r in rows if r["agent"] == a]
        assert cells == [(f"{float(r['mean']):.2f}", f"{float(r['sem']):.2f}") for r in mine]
    assert (out / "heatmap-2p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    readme = (out / "README.md").read_text()
    assert "python3 tools/bots_crossplay.py --games 2 --players 2" in readme
    assert "games per cell: 2" in readme
    assert readme.startswith("# Cross-play of a few\n")
    assert "show: docs/rl_partners.md §8." in readme
    assert tables.startswith("# Cross-play of a few: the tables\n")


def test_resume_keeps_cells_and_plays_missing(tmp_path):
    """A second run with the same games and seed plays only the cells the CSV lacks."""
    out = tmp_path / "xplay"
    assert _run(out).returncode == 0
    first = _cells(out)
    text = (out / "cells.csv").read_text().splitlines()
    (out / "cells.csv").write_text("\n".join(text[:-1]) + "\n")  # drop the last cell
    proc = _run(out)
    assert proc.returncode == 0, proc.stderr
    assert "3 already in" in proc.stderr
    assert "1 to play" in proc.stderr
    again = _cells(out)
    assert [{k: r[k] for k in r if k != "cpu_s"} for r in again] == [
        {k: r[k] for k in r if k != "cpu_s"} for r in first
    ]


FIRST_LEGAL = """
from agents.policy import Policy


class Mine(Policy):
    name = "Mine"

    def act(self, view):
        return int(view.legal_actions()[{index}])
"""


def test_a_changed_agent_plays_its_cells_again(tmp_path):
    """Resume keeps a cell only while both agents are the same (agents.identity): editing the
    agent's file replays every cell it sits in, and only those."""
    mine = tmp_path / "mine.py"
    mine.write_text(FIRST_LEGAL.format(index=0))
    out = tmp_path / "xplay"
    args = [TOOL, "--games", "2", "--players", "2", "--agents", f"Piers,{mine}:Mine"]
    run = [*args, "--workers", "1", "--out", str(out)]
    assert run_python(run, cwd=ROOT, timeout=600).returncode == 0
    first = {(r["agent"], r["partner"]): r for r in _cells(out)}
    assert all(len(r["agent_identity"]) == len(r["partner_identity"]) == 16 for r in first.values())
    proc = run_python(run, cwd=ROOT, timeout=600)
    assert "4 already in" in proc.stderr, proc.stderr
    mine.write_text(FIRST_LEGAL.format(index=-1))  # another agent under the same name
    proc = run_python(run, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "1 already in" in proc.stderr, proc.stderr  # Piers with Piers only
    assert "3 to play" in proc.stderr, proc.stderr
    again = {(r["agent"], r["partner"]): r for r in _cells(out)}
    assert again[("Piers", "Piers")] == first[("Piers", "Piers")]
    assert again[("Mine", "Mine")]["agent_identity"] != first[("Mine", "Mine")]["agent_identity"]


BAD_POLICY = """
from agents.policy import Policy


class Bad(Policy):
    name = "Bad"

    def __init__(self, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, view):
        raise IndexError("no move today")
"""


def test_a_policy_that_raises_fails_its_cells_only(tmp_path):
    """A cell whose policy raises is marked failed (error and where); the others are played."""
    (tmp_path / "bad.py").write_text(BAD_POLICY)
    out = tmp_path / "xplay"
    args = [TOOL, "--games", "2", "--players", "2", "--agents", f"Piers,{tmp_path / 'bad.py'}:Bad"]
    proc = run_python([*args, "--workers", "1", "--out", str(out)], cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = {(r["agent"], r["partner"]): r for r in _cells(out)}
    assert rows[("Piers", "Piers")]["error"] == ""
    assert float(rows[("Piers", "Piers")]["mean"]) >= 0
    for key in [("Piers", "Bad"), ("Bad", "Piers"), ("Bad", "Bad")]:
        assert rows[key]["mean"] == rows[key]["sem"] == ""
        assert rows[key]["error"].startswith("IndexError: no move today (")
        assert "bad.py:" in rows[key]["error"]
    tables = (out / "tables.md").read_text()
    assert tables.count("fails (") == 3
    assert "Piers with Bad: IndexError: no move today" in tables


@pytest.mark.parametrize(
    ("extra", "names"),
    [
        (["--players", "6"], "--players"),
        (["--agents", "NoSuchAgent,Piers"], "--agents"),
        (["--agents", "Piers,piers"], "--agents"),
        (["--games", "0"], "--games"),
    ],
)
def test_bad_options_one_error_line(tmp_path, extra, names):
    """A bad option: exit code 2, one ``error:`` line naming it, no files."""
    out = tmp_path / "xplay"
    proc = run_python([TOOL, "--out", str(out), *extra], cwd=ROOT, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    assert names in lines[0]
    assert not out.exists()

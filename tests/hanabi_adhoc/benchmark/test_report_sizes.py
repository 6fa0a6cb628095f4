"""The report's self-play scores and its partial runs (issue 43 item 5).

An agent that refuses some of a suite's game sizes is marked partial in summary.json, summary.md,
the console and the leaderboard, where it is ranked only among runs of the same sizes; every
agent's own self-play score is reported per game size.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json

import numpy as np
import pytest

from agents.evaluate import play_games
from agents.registry import make_policy
from hanabi_adhoc.benchmark.protocol import deal_schedule
from hanabi_adhoc.benchmark.suites import load_suites
from hanabi_adhoc.cli import main
from hanabi_env.config import HanabiConfig
from tests.hanabi_adhoc.benchmark.helpers import tiny_suite

POLICY = """
from agents import Policy


class TwoOnly(Policy):
    name = "two-only"
    supported_players = (2,)

    def act(self, view):
        return int(view.legal_actions()[-1])
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sizes")
    suite = str(tiny_suite(tmp / "tiny.json"))
    user = tmp / "mine.py"
    user.write_text(POLICY)
    out = tmp / "bench"
    argv = ["benchmark", "Piers", "IGGI", f"{user}:TwoOnly", "--suite", suite, "--out", str(out)]
    return out, suite, f"{user}:TwoOnly", argv


@pytest.fixture(scope="module")
def report(run):
    """The report folder and the console output of the run (pytest's capsys is per test)."""
    out, _, _, argv = run
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main([*argv, "--quiet", "--workers", "1"]) == 0
    return out, buf.getvalue()


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_an_agent_that_refuses_sizes_is_marked_partial_everywhere(run, report):
    out, printed = report
    _, _, two, _ = run
    doc = json.loads((out / "summary.json").read_text())
    by = {a["label"]: a for a in doc["agents"]}
    (key,) = by["Piers"]["suites"]
    assert by["Piers"]["complete"] is True
    assert by["Piers"]["suites"][key]["sizes_played"] == [2, 3]
    assert by[two]["complete"] is False
    su = by[two]["suites"][key]
    assert (su["sizes"], su["sizes_played"], su["complete"]) == ([2, 3], [2], False)
    md = (out / "summary.md").read_text()
    assert f"**{two} played a partial run**" in md
    assert "2 of 2,3 (partial)" in md
    assert f"note: {two} played a partial run" in printed
    assert "note: Piers" not in printed


def test_the_leaderboard_ranks_a_partial_run_only_among_runs_of_its_sizes(report):
    out, _ = report
    board = _rows(out / "leaderboard.csv")
    by = {r["agent"]: r for r in board}
    full = sorted((r for r in board if r["complete"] == "True"), key=lambda r: r["rank"])
    assert [r["agent"] for r in full] == sorted(
        ["Piers", "IGGI"], key=lambda a: -float(by[a]["normalised_iqm"])
    )
    assert [r["rank"] for r in full] == ["1", "2"]
    assert all(r["sizes_played"] == "2,3" for r in full)
    assert all(r["ranked_among"].startswith("full runs of ") for r in full)
    (part,) = (r for r in board if r["complete"] == "False")
    # it scores below both full runs, yet it is first among the runs of its own sizes
    assert float(part["normalised_iqm"]) < min(float(r["normalised_iqm"]) for r in full)
    assert (part["rank"], part["sizes_played"]) == ("1", "2")
    assert "partial runs" in part["ranked_among"]
    assert "2 players only" in part["ranked_among"]
    assert board.index(part) == 2  # listed after the suite's full runs


def test_the_self_play_score_is_reported_per_size(report, run):
    out, printed = report
    _, suite, _, _ = run
    doc = json.loads((out / "summary.json").read_text())
    piers = next(a for a in doc["agents"] if a["label"] == "Piers")
    groups = load_suites([suite], trust_code=False)[0].groups
    agent = make_policy("Piers", 0)
    for p in (2, 3):
        scores = []
        for g in (g for g in groups if p in g.players):
            sched = deal_schedule(g, p)
            cfg = HanabiConfig(players=p, hand_size=5, scoring=g.scoring)
            seats = np.zeros((len(sched["deal"]), p), dtype=np.int64)
            scores += play_games([agent], seats, sched["deal"], sched["seeds"], cfg).scores.tolist()
        got = piers["self_play"][str(p)]
        assert got["games"] == len(scores)
        assert got["mean_score"] == pytest.approx(np.mean(scores))
        assert got["sem"] == pytest.approx(np.std(scores, ddof=1) / np.sqrt(len(scores)))
    assert set(piers["self_play"]["2"]["groups"]) == {"tiny-pool", "tiny-pop-run1"}
    md = (out / "summary.md").read_text()
    s2 = piers["self_play"]["2"]
    line = f"| Piers | 2 | {s2['games']} | {s2['mean_score']:.2f} ± {s2['sem']:.2f} |"
    assert line in md
    assert "self-play score (mean ± s.e.m., games) by players" in printed
    # the scoring is said first, as play, evaluate and the browser say theirs
    assert printed.splitlines()[0].startswith("lenient scoring (")
    assert f"2p {s2['mean_score']:.2f} ± {s2['sem']:.2f} ({s2['games']})" in printed

"""``hanabi-adhoc benchmark``: the report folder, resuming, the leaderboard, errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hanabi_adhoc.cli import main
from tests.hanabi_adhoc.benchmark.helpers import tiny_suite

POLICY = """
from agents import Policy


class FirstLegal(Policy):
    name = "first-legal"

    def act(self, view):
        return int(view.legal_actions()[-1])


class Counting(FirstLegal):  # remembers how many games it played with the current partner

    name = "counting"

    def start_episode(self, partner):
        self.games = 0

    def start_game(self, partner):
        self.games += 1

    def act(self, view):
        legal = view.legal_actions()
        return int(legal[min(self.games, len(legal)) - 1])
"""


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return str(tiny_suite(tmp_path_factory.mktemp("suite") / "tiny.json"))


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_report_folder_and_its_contents(tmp_path, suite, capsys):
    out = tmp_path / "bench"
    user = tmp_path / "mine.py"
    user.write_text(POLICY)
    rc = main(
        [
            "benchmark",
            "piers",
            f"{user}:FirstLegal",
            f"{user}:Counting",
            "--suite",
            suite,
            "--out",
            str(out),
            "--quiet",
            "--workers",
            "1",
        ]
    )
    assert rc == 0
    printed = capsys.readouterr().out
    assert "piers" in printed
    assert "report:" in printed
    for name in (
        "summary.md",
        "summary.json",
        "per_partner.csv",
        "seats.csv",
        "leaderboard.csv",
        "figures/groups.png",
    ):
        assert (out / name).is_file(), name
    rows = _rows(out / "per_partner.csv")
    required = "agent suite partner players seat games mean_score sem normalised"  # issue 30
    assert " ".join(list(rows[0])[:9]) == required
    agents = {r["agent"] for r in rows}
    assert agents == {"piers", f"{user}:FirstLegal", f"{user}:Counting"}
    assert {r["partner"] for r in rows} >= {"tiny-pool/Piers", "tiny-pop-run1/[2,3]"}
    doc = json.loads((out / "summary.json").read_text())
    conf = doc["configuration"]
    g = conf["suites"][0]["groups"][0]
    assert (g["players"], g["hand_sizes"], g["scoring"], g["ruleset"]) == (
        [2, 3],
        {"2": 5, "3": 5},
        "lenient",
        "corrected",
    )
    assert len(conf["suites"][0]["sha256"]) == 64
    md = (out / "summary.md").read_text()
    assert "hand sizes 5 at 2p, 5 at 3p (the rulebook's)" in md
    assert "![" in md
    assert "figures/niche-" in md
    assert "By seat" in md
    assert "figures/adaptation.png" in md  # an episodic agent played
    assert (out / "figures" / "adaptation.png").is_file()
    assert [a["episodic"] for a in doc["agents"]] == [False, False, True]
    board = _rows(out / "leaderboard.csv")
    assert sorted(r["agent"] for r in board) == sorted(agents)


def test_rerun_reuses_the_games_and_a_deleted_unit_is_replayed_identically(tmp_path, suite):
    out = tmp_path / "bench"
    args = ["benchmark", "Outer", "--suite", suite, "--out", str(out), "--quiet"]
    assert main(args) == 0
    first = (out / "per_partner.csv").read_text()
    games = sorted((out / "agents").glob("*/games/*.npz"))
    assert len(games) == 6  # self-play + partners at 2 and 3 players, and the population
    stamps = {p: p.stat().st_mtime_ns for p in games}
    games[2].unlink()  # as a killed run leaves it
    assert main([*args, "--workers", "2"]) == 0
    assert (out / "per_partner.csv").read_text() == first
    assert all(p.stat().st_mtime_ns == stamps[p] for p in games if p != games[2])
    assert len(_rows(out / "leaderboard.csv")) == 1  # the same agent, suite and seeds: replaced


def _bench(*args: str) -> int:
    return main(["benchmark", *args, "--quiet"])


def test_partial_runs_and_other_hand_sizes(tmp_path, suite):
    out = tmp_path / "bench"
    assert (
        _bench("Piers", "--suite", suite, "--out", str(out), "--deals", "2", "--players", "2") == 0
    )
    assert not (out / "leaderboard.csv").exists()
    assert "Partial run" in (out / "summary.md").read_text()
    rows = _rows(out / "per_partner.csv")
    assert {r["players"] for r in rows} == {"2"}
    assert {r["games"] for r in rows if r["seat"] == "0"} == {"2"}
    out4 = tmp_path / "bench4"
    assert (
        _bench("Piers", "--suite", suite, "--out", str(out4), "--hand-size", "4", "--players", "2")
        == 0
    )
    assert {r["normalised"] for r in _rows(out4 / "per_partner.csv")} == {""}
    assert "not the rulebook's" in (out4 / "summary.md").read_text()


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["nobody"], "AGENT"),
        (["1,999"], "AGENT"),
        (["piers", "--suite", "nope"], "--suite"),
        (["piers", "--suite", "pool@99"], "--suite"),
        (["piers", "--players", "7"], "--players"),
        (["human"], "AGENT"),
        (["meta:oracle"], "AGENT"),
        (["piers", "--hand-size", "9"], None),
    ],
)
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, suite, args, option):
    if "--suite" not in args:
        args = [*args, "--suite", suite]
    with pytest.raises(SystemExit) if option is None else _no_exit():
        rc = main(["benchmark", *args, "--out", str(tmp_path / "b"), "--quiet"])
        assert rc == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: "), err
    assert len(err.splitlines()) == 1
    if option is not None:
        assert f"argument {option}" in err


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_changed_or_foreign_files_are_refused(tmp_path, suite, capsys):
    out = tmp_path / "bench"
    args = ["benchmark", "Piers", "--suite", suite, "--out", str(out), "--quiet"]
    assert main(args) == 0
    table = next((out / "agents").glob("*/games/*.self.*.npz"))
    table.write_bytes(table.read_bytes()[:-8] + b"\0" * 8)  # a damaged or edited game table
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert table.name in err
    assert len(err.strip().splitlines()) == 1
    other = tmp_path / "other"
    other.mkdir()
    (other / "manifest.json").write_text("{}")  # not a report folder of this toolkit
    assert main([*args[:4], "--out", str(other), "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_a_second_writer_is_refused_while_another_process_writes(tmp_path, suite, capsys):
    out = tmp_path / "bench"
    ready = tmp_path / "ready"
    holder = (
        "import sys, time, pathlib\n"
        "from hanabi_adhoc.benchmark.files import open_folder\n"
        "with open_folder(sys.argv[1]):\n"
        "    pathlib.Path(sys.argv[2]).touch()\n"
        "    time.sleep(60)\n"
    )
    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.Popen([sys.executable, "-c", holder, str(out), str(ready)], env=env)
    try:
        for _ in range(600):
            if ready.exists():
                break
            time.sleep(0.1)
        assert ready.exists()
        assert main(["benchmark", "Piers", "--suite", suite, "--out", str(out), "--quiet"]) == 2
    finally:
        proc.kill()
        proc.wait()
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert f"pid {proc.pid}" in err


def test_an_agent_that_plays_none_of_the_suites_games_is_refused_in_one_line(tmp_path, capsys):
    from hanabi_adhoc.cli import main

    out = tmp_path / "b"
    assert main(["benchmark", "bad:small", "--suite", "dev", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "plays none of the suites' games" in err[0]
    assert "Hanabi-Small" in err[0]


def test_an_agent_that_refuses_fixed_hand_slots_is_sent_to_the_suites_it_can_play(tmp_path, capsys):
    """InfoBot (HLE's hand order only) and the reference-ruleset suites.

    Networks no longer refuse them: they are shown fixed slots in age order (agents.hand_order;
    tests/agents/test_hand_order_games.py).
    """
    out = tmp_path / "b"
    assert main(["benchmark", "infobot", "--suite", "pool,dev", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "refuses the fixed hand slots" in err[0]
    assert "suite(s) dev" in err[0]
    assert "--suite pool,own,rl" in err[0]
    assert not out.exists()  # refused before the folder is written
    # the suites without reference-ruleset partners play
    argv = ["benchmark", "rl:ppo-pool", "--suite", "pool", "--deals", "2", "--players", "2"]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    assert "rl:ppo-pool" in capsys.readouterr().out

"""Benchmark results follow the agent's code, suites are data, nothing of the user's is
overwritten, Ctrl-C exits 2 and resumes, and an agent's fault is not a refusal (issue 41)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hanabi_adhoc.benchmark.suites import data_dir, load_suite
from hanabi_adhoc.cli import main
from tests.hanabi_adhoc.benchmark.helpers import tiny_suite
from tests.helpers import ROOT, run_python

AGENT = """
from agents import Policy


class Mine(Policy):
    name = "mine"

    def act(self, view):
        return int(view.legal_actions()[{index}])
"""


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return str(tiny_suite(tmp_path_factory.mktemp("suite") / "tiny.json"))


def _rows(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return run_python(["-m", "hanabi_adhoc", "benchmark", *args], cwd, timeout=600)


def _one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[-3000:]
    assert lines[0].startswith("error: "), err[-3000:]
    assert "Traceback" not in err
    return lines[0]


def test_a_changed_agent_is_played_again_and_a_folder_without_manifest_is_refused(tmp_path, suite):
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT.format(index=-1))
    spec = f"{agent}:Mine"
    common = [spec, "--suite", suite, "--workers", "1", "--quiet"]
    out = tmp_path / "bench"
    first = _cli([*common, "--out", str(out)], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    old_rows = (out / "per_partner.csv").read_text()
    old_sha = _rows(out / "leaderboard.csv")[0]["agent_sha256"]
    assert len(old_sha) == 64

    agent.write_text(AGENT.format(index=0))  # the same spec, another agent
    again = _cli([*common, "--out", str(out)], tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "changed" in again.stderr
    assert "agent.py" in again.stderr
    assert "played again" in again.stderr
    fresh = _cli([*common, "--out", str(tmp_path / "fresh")], tmp_path)
    assert fresh.returncode == 0, fresh.stderr[-3000:]
    new_rows = (out / "per_partner.csv").read_text()
    assert new_rows == (tmp_path / "fresh" / "per_partner.csv").read_text()  # no old unit kept
    assert new_rows != old_rows
    board = _rows(out / "leaderboard.csv")
    assert len(board) == 1
    assert board[0]["agent_sha256"] not in ("", old_sha)
    doc = json.loads((out / "summary.json").read_text())
    assert doc["agents"][0]["identity"]["sha256"] == board[0]["agent_sha256"]

    (out / "manifest.json").unlink()  # results no longer checkable
    stamp = (out / "per_partner.csv").stat().st_mtime_ns
    refused = _cli([*common, "--out", str(out)], tmp_path)
    assert refused.returncode == 2
    line = _one_error(refused.stderr)
    assert "no manifest.json" in line
    assert (out / "per_partner.csv").stat().st_mtime_ns == stamp


def test_files_the_toolkit_did_not_write_are_never_overwritten(tmp_path, suite, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "summary.md").write_text("my notes")
    args = ["benchmark", "Piers", "--suite", suite, "--players", "2", "--deals", "1", "--quiet"]
    assert main([*args, "--out", str(out)]) == 2
    line = _one_error(capsys.readouterr().err)
    assert "summary.md" in line
    assert (out / "summary.md").read_text() == "my notes"
    assert not (out / "manifest.json").exists()

    done = tmp_path / "done"  # a report folder of the toolkit, then a file of the user's in it
    assert main([*args, "--out", str(done)]) == 0
    (done / "figures" / "mine.png").write_bytes(b"not ours")
    assert main([*args, "--out", str(done)]) == 2
    assert "mine.png" in _one_error(capsys.readouterr().err)
    (done / "figures" / "mine.png").unlink()
    assert main([*args, "--out", str(done)]) == 0

    board = tmp_path / "notes.csv"  # --leaderboard naming a CSV that is not a leaderboard
    board.write_text("name,value\nx,1\n")
    full = ["benchmark", "Piers", "--suite", suite, "--quiet", "--out", str(tmp_path / "b2")]
    assert main([*full, "--leaderboard", str(board)]) == 2
    assert "not a leaderboard" in _one_error(capsys.readouterr().err)
    assert board.read_text() == "name,value\nx,1\n"


def _suite_with(tmp_path: Path, name: str, spec: str, version: int = 1) -> Path:
    path = tiny_suite(tmp_path / f"{name}-{abs(hash(spec))}.json")
    doc = json.loads(path.read_text())
    doc["name"], doc["version"] = name, version
    doc["groups"][0]["partners"][0]["spec"] = spec
    path.write_text(json.dumps(doc))
    return path


def test_a_suite_file_names_code_partners_only_with_trust(tmp_path, capsys):
    marker = tmp_path / "ran"
    payload = tmp_path / "payload.py"
    payload.write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n"
        "from agents import Policy\n\n\n"
        "class P(Policy):\n    def act(self, view):\n        return int(view.legal_actions()[0])\n"
    )
    path = _suite_with(tmp_path, "mine", f"{payload}:P")
    args = ["benchmark", "Piers", "--suite", str(path), "--players", "2", "--deals", "1"]
    out = ["--out", str(tmp_path / "b"), "--quiet", "--workers", "1"]
    assert main([*args, *out]) == 2
    line = _one_error(capsys.readouterr().err)
    assert "argument --suite" in line
    assert "payload.py:P" in line
    assert "runs code" in line
    assert "--trust-code" in line
    assert not marker.exists()  # nothing of the file ran
    assert not (tmp_path / "b").exists()
    with pytest.raises(ValueError, match="reads a model file"):
        load_suite(_suite_with(tmp_path, "mine", "rl:/etc/passwd.json"))
    assert main([*args, *out, "--trust-code"]) == 0
    assert marker.exists()


def test_a_shipped_suites_name_is_reserved(tmp_path, capsys):
    copy = tmp_path / "pool.v1.json"
    shutil.copyfile(data_dir() / "pool.v1.json", copy)
    assert load_suite(copy).key == "pool@1"  # byte for byte the shipped file
    fake = _suite_with(tmp_path, "pool", "IGGI")
    made = load_suite(fake)
    assert not made.shipped
    assert made.key == f"custom:pool@{made.sha256[:12]}"
    out = tmp_path / "b"
    args = ["benchmark", "Piers", "--suite", str(fake), "--players", "2", "--deals", "1"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    assert f"custom:pool@{made.sha256[:12]}" in capsys.readouterr().out
    doc = json.loads((out / "summary.json").read_text())
    assert list(doc["agents"][0]["suites"]) == [made.key]
    assert "pool@1" not in (out / "summary.md").read_text()


SLOW = """
import time
from agents import Policy


class Slow(Policy):
    name = "slow"

    def act(self, view):
        time.sleep(0.004)
        return int(view.legal_actions()[-1])
"""


def _units(out: Path) -> list[Path]:
    """The saved game tables (not the temporary file of one being written)."""
    return [p for p in out.glob("agents/*/games/*.npz") if not p.name.startswith(".")]


def test_ctrl_c_exits_2_with_one_line_and_the_same_command_resumes(tmp_path, suite):
    agent = tmp_path / "slow.py"
    agent.write_text(SLOW)
    out = tmp_path / "bench"
    argv = [sys.executable, "-m", "hanabi_adhoc", "benchmark", f"{agent}:Slow", "--suite"]
    argv += [suite, "--out", str(out), "--workers", "1", "--quiet"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while not _units(out):
            assert proc.poll() is None, proc.stderr.read()[-3000:]  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "no unit saved after 300 s"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 2, err[-3000:]
    assert _one_error(err) == (
        "error: interrupted (Ctrl-C); finished work is saved: resume with the same command"
    )
    saved = {p: p.stat().st_mtime_ns for p in _units(out)}
    assert saved
    assert not (out / "summary.md").exists()
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert all(p.stat().st_mtime_ns == t for p, t in saved.items())  # resumed, not replayed
    assert len(_units(out)) == 6
    assert (out / "summary.md").is_file()


FAULTY = """
from agents import Policy


class FirstMove(Policy):
    def act(self, view):
        raise RuntimeError("boom")


class EverySize(Policy):
    def act(self, view):
        raise ValueError("cannot decide")


class Late(Policy):
    name = "Late"

    def reset(self, seed=None):
        self.moves = 0

    def act(self, view):
        self.moves += 1
        if self.moves > 6:
            raise KeyError("lost track")
        return int(view.legal_actions()[0])
"""


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("FirstMove", "raised RuntimeError: boom"),
        ("EverySize", "raised ValueError: cannot decide on its first move at every game size"),
        ("Late", "raised KeyError"),
    ],
)
def test_an_agent_that_raises_is_a_fault_not_a_refusal(tmp_path, suite, capsys, name, said):
    agent = tmp_path / "faulty.py"
    agent.write_text(FAULTY)
    out = tmp_path / "b"
    args = ["benchmark", f"{agent}:{name}", "--suite", suite, "--players", "2", "--deals", "1"]
    assert main([*args, "--out", str(out), "--quiet", "--workers", "1"]) == 2
    line = _one_error(capsys.readouterr().err)
    assert said in line
    assert name in line  # names the agent
    assert "plays none of the suites' games" not in line

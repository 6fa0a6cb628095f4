"""``hanabi-adhoc finetune``: end to end in a real process, resume, and one-line user errors."""

from __future__ import annotations

import csv
import json

import pytest

from hanabi_adhoc.cli import main
from tests.helpers import ROOT, run_python

pytest.importorskip("torch", reason="fine-tuning needs torch (the rl extra)")

SMALL = ["--envs", "4", "--n-steps", "32", "--epochs", "2"]


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    """A tiny clone of Piers, written as ``hanabi-adhoc clone`` writes one."""
    from agents.clone import export_clone, play_demonstrations, train_clone

    folder = tmp_path_factory.mktemp("start")
    demos = play_demonstrations("piers", 30, seed=1)
    result = train_clone(demos, hidden=(32,), epochs=2, seed=0, learning_rate=3e-3)
    export_clone(result, demos, folder / "piers-clone.json", name="piers-clone")
    return folder / "piers-clone.json"


def _run(argv: list[str]) -> int:
    """``hanabi-adhoc ARGV`` in this process: its exit code (argparse's usage errors too)."""
    try:
        return main(argv)
    except SystemExit as stop:
        return int(stop.code or 0)


def _rows(folder) -> list[dict]:
    with open(folder / "curves.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_runs_end_to_end_resumes_and_the_result_plays_without_torch(start, tmp_path):
    out = tmp_path / "ft"
    argv = ["-m", "hanabi_adhoc", "finetune", str(start), "--out", str(out), *SMALL]
    first = run_python([*argv, "--steps", "256", "--eval-games", "4", "--quiet"],
                       cwd=tmp_path, timeout=900)  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "start self-play:" in first.stdout
    assert "fine-tuned self-play:" in first.stdout
    assert f"rl:{out / 'finetuned.json'}" in first.stdout
    assert [r["steps"] for r in _rows(out)] == ["128", "256"]
    assert (out / "curves.png").stat().st_size > 0
    again = run_python([*argv, "--steps", "256", "--quiet"], cwd=tmp_path, timeout=900)
    assert again.returncode == 2
    assert again.stderr.strip().startswith("error:")
    assert "--resume" in again.stderr
    more = run_python([*argv, "--steps", "512", "--resume", "--eval-games", "0", "--quiet"],
                      cwd=tmp_path, timeout=900)  # fmt: skip
    assert more.returncode == 0, more.stderr
    assert "resumed at step 256" in more.stdout
    assert [r["steps"] for r in _rows(out)] == ["128", "256", "384", "512"]
    assert json.loads((out / "finetuned.json").read_text())["training"]["steps"] == 512
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import agents\n"
        f"p = agents.make('rl:{out / 'finetuned.json'}')\n"
        "res = agents.play([p, p], games=3, seed=1)\n"
        "print(len(res.scores), sys.modules['torch'] is None)\n"
    )
    plain = run_python(["-c", code], cwd=ROOT, timeout=600)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split() == ["3", "True"]


@pytest.mark.parametrize(
    ("extra", "text"),
    [
        (["--steps", "0"], "--steps"),
        (["--steps", "64", "--teacher", "iggi"], "--teacher-coef"),
        (["--steps", "64", "--teacher-coef", "-1"], "--teacher-coef"),
        (["--steps", "64", "--teacher-decay-steps", "10"], "--teacher-decay-steps"),
        (["--steps", "64", "--partners", "self,piers"], "'self' is allowed only alone"),
        (["--steps", "64", "--partners", "piers,"], "--partners"),
        (["--steps", "64", "--partners", "no-such-agent"], "no-such-agent"),
        (["--steps", "64", "--name", "a/b"], "--name"),
        (["--steps", "64", "--resume"], "no checkpoint"),
        (["--steps", "64", "--envs", "0"], "--envs"),
    ],
)
def test_user_errors_are_one_line(start, extra, text, tmp_path, capsys):
    argv = ["finetune", str(start), "--out", str(tmp_path / "ft"), *SMALL, *extra]
    assert _run(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: ")
    assert text in err[0]


def test_a_bad_start_or_out_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    cases = [
        (["finetune", str(tmp_path / "none.json"), "--steps", "8", "--out", "o"], "no such"),
        (["finetune", str(tmp_path / "file"), "--steps", "8", "--out", "o"], ".json"),
    ]
    for argv, text in cases:
        assert _run(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        assert text in err[0]

"""``hanabi-adhoc bad ...``: the commands run, and user errors end in one line."""

from __future__ import annotations

import importlib.util
import json

import pytest

from hanabi_adhoc.cli import main

_HAS_TORCH = importlib.util.find_spec("torch") is not None


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error: ")
    return err[0]


def test_eval_plays_a_shipped_agent_with_a_rule_agent(capsys):
    assert main(["bad", "eval", "bad:very-small", "piers", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "bad:very-small with piers on Hanabi-Very-Small (2 players)" in out
    assert "over 2 games, max 5" in out


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["bad", "eval", "piers"], "is not a BAD agent"),
        (["bad", "eval", "bad:nobody"], "no shipped BAD agent"),
        (["bad", "eval", "bad:small", "nobody"], "PARTNER"),
        (["bad", "export", "no/such/run", "x", "--out", "agents"], "agent.json"),
        (["bad", "export", "no/such/run", "small"], "--out: required"),  # never the package
        (["play", "bad:small", "piers"], "Hanabi-Small"),  # plays only its own configuration
        (["bad", "matrix", "--episodes", "50"], "--episodes"),
        (["bad", "hanabi", "--seeds", "1,1"], "--seeds"),
    ],
)
def test_user_errors_are_one_line(argv, text, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if argv[:2] in (["bad", "matrix"], ["bad", "hanabi"]) and not _HAS_TORCH:
        text = "needs torch: install a CPU build of torch first"  # refused before the options
    assert main(argv) == 2
    assert text in one_error_line(capsys)


def test_export_copies_a_loadable_agent(tmp_path, capsys):
    from agents.bad.policy import shipped_path

    src = shipped_path("very-small")
    run = tmp_path / "run"
    run.mkdir()
    (run / "agent.json").write_bytes(src.read_bytes())
    (run / "agent.npz").write_bytes(src.with_suffix(".npz").read_bytes())
    dest = tmp_path / "agents"
    assert main(["bad", "export", str(run), "mine", "--out", str(dest)]) == 0
    assert json.loads((dest / "mine.json").read_text())["preset"] == "Hanabi-Very-Small"
    assert main(["bad", "eval", f"bad:{dest / 'mine.json'}", "--games", "1"]) == 0
    assert main(["bad", "export", str(run), "../up", "--out", str(dest)]) == 2
    assert "name" in one_error_line(capsys)

"""A user's own Policy on the command line: ``module:Class`` and ``path.py:Class`` everywhere."""

from __future__ import annotations

import json
import sys

import pytest

from hanabi_adhoc.cli import main

POLICY = """
from agents import Policy


class LastLegal(Policy):
    name = "last-legal"

    def act(self, view):
        return int(view.legal_actions()[-1])


def not_a_policy():
    return 3
"""


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "my_agents.py"
    path.write_text(POLICY)
    return path


def test_play_seats_a_policy_from_a_file_and_from_a_module(user_file, capsys, monkeypatch):
    assert main(["play", f"{user_file}:LastLegal", "piers", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("score") >= 2
    assert "player_0 (last-legal)" in out
    monkeypatch.syspath_prepend(str(user_file.parent))
    sys.modules.pop("my_agents", None)
    assert main(["play", "piers", "my_agents:LastLegal", "--games", "1"]) == 0
    assert "player_1 (last-legal)" in capsys.readouterr().out


def test_evaluate_a_policy_from_a_file(user_file, capsys, tmp_path):
    out = tmp_path / "r.json"
    assert (
        main(
            [
                "evaluate",
                f"{user_file}:LastLegal",
                "--mode",
                "mixed",
                "--games",
                "3",
                "--players",
                "2",
                "--workers",
                "1",
                "--quiet",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    doc = json.loads(out.read_text())
    assert doc["agent"] == "last-legal"
    assert len(doc["rows"]) == 7  # one per test-pool partner


def test_meta_eval_takes_a_policy_as_partner(user_file, tmp_path, capsys):
    argv = [
        "meta-eval",
        "--partners",
        f"policy:{user_file}:LastLegal",
        "--train-games",
        "2",
        "--episodes",
        "1",
        "--games",
        "2",
        "--self-play-games",
        "0",
        "--workers",
        "1",
        "--variants",
        "adaptive,generalist",
        "--out",
        str(tmp_path / "m"),
    ]
    assert main(argv) == 0
    doc = json.loads((tmp_path / "m" / "evaluation.json").read_text())
    assert doc["partner_ids"] == ["last-legal"]
    # an edited policy file is another run: its folder's tables are not reused (issue 41)
    user_file.write_text(POLICY + "\n# edited\n")
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("error:"), err
    assert "policy_sha256" in err[0], err


@pytest.mark.parametrize(
    ("command", "option"),
    [
        (["play", "{f}:Nope", "piers"], "SEAT"),
        (["play", "{f}:not_a_policy", "piers"], "SEAT"),
        (["evaluate", "{f}:Nope"], "AGENT"),
        (["evaluate", "no_such_module_xyz:Cls"], "AGENT"),
        (["meta-eval", "--partners", "policy:{f}:Nope"], "--partners"),
        (["meta-eval", "--partners", "policy:"], "--partners"),
    ],
)
def test_bad_user_specs_are_one_line_errors(user_file, capsys, tmp_path, command, option):
    args = [c.replace("{f}", str(user_file)) for c in command]
    if args[0] == "meta-eval":
        args += ["--out", str(tmp_path / "m"), "--train-games", "2"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: argument {option}:"), err
    assert len(err.splitlines()) == 1

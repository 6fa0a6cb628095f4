"""Version 2 of the benchmark: the ``strong`` suite of the five reference bots; v1 still plays.

docs/benchmark.md §2. The suite file is checked against its pin and against the other shipped
suites (its best responses are chosen among every agent they know), its partners are built and
asked about their games, and the command line plays it (a tiny run, a partial run, the
``--ruleset reference`` refusal, ``--suite v1``), as a user runs it: in a fresh interpreter.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from agents.bots import BOTS, bot_key
from agents.registry import make_policy
from hanabi_adhoc.benchmark.suites import (
    BENCHMARK_VERSION,
    BENCHMARK_VERSIONS,
    DEFAULT_SUITES,
    SUITE_SHA256,
    benchmark_version,
    expand_suite_names,
    load_suite,
    load_suites,
)
from hanabi_env.config import HanabiConfig
from tests.hanabi_adhoc.benchmark.helpers import suites_tool
from tests.helpers import run_python

OTHERS = ("pool", "published", "own", "rl")
"""The suites whose agents are the best-response candidates of ``strong`` (with the bots)."""

TWO_THREE = """
from agents import Policy, make


class TwoThree(Policy):  # plays as Piers, refuses games of 4 and 5 players
    name = "two-three"

    def __init__(self, seed=0):
        self.inner = make("piers", seed=seed)

    def check_game(self, config):
        if config.players > 3:
            raise ValueError(f"players={config.players} is not allowed; allowed: 2 or 3")

    def act(self, view):
        return self.inner.act(view)
"""


def _cli(args: list[str], cwd: Path) -> tuple[int, str, str]:
    done = run_python(["-m", "hanabi_adhoc", "benchmark", *args], cwd, timeout=900)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def strong():
    return load_suite("strong")


def test_strong_is_shipped_pinned_and_holds_the_five_bots_at_2_to_5_players(strong):
    raw = Path(strong.path).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SUITE_SHA256["strong.v1.json"]
    assert strong.shipped
    assert strong.key == "strong@1"
    (group,) = strong.groups
    assert (group.players, group.ruleset, group.scoring) == ((2, 3, 4, 5), "corrected", "lenient")
    assert [bot_key(p.spec) for p in group.partners] == list(BOTS)
    assert len({p.id for p in group.partners}) == len(BOTS)


def test_best_responses_are_chosen_among_every_agent_the_suites_know(strong):
    (group,) = strong.groups
    others = [g for s in load_suites(list(OTHERS)) for g in s.groups]
    known = list(dict.fromkeys(p.spec for g in [*others, group] for p in g.partners))
    rl = [p.spec for g in others if g.name == "rl" for p in g.partners]
    doc = json.loads(Path(strong.path).read_text())["groups"][0]["best_response"]
    assert doc["candidates"] == len(known)
    # the RL partners refuse 3-5 players (their check_game): left out there, and counted
    assert doc["refused_by_players"] == {str(p): len(rl) for p in (3, 4, 5)}
    for p in group.partners:
        for size in group.players:
            assert 0 < p.self_play[size] <= 25
            assert p.self_play[size] - 1.0 <= p.br[size] <= 25  # the bot itself is a candidate
            assert all(0.0 <= m <= 1.0 for m in p.measures[size])
            assert p.br_agent[size] in known
            assert size == 2 or p.br_agent[size] not in rl


def test_strong_partners_build_play_their_game_and_refuse_fixed_slots(strong):
    (group,) = strong.groups
    for p in group.partners:
        bot = make_policy(p.spec, 0, ruleset=group.ruleset)
        for size in group.players:
            game = HanabiConfig(players=size, hand_size=group.hand_size(size), scoring="lenient")
            bot.check_game(game)  # plays it: no error
            with pytest.raises(ValueError, match="hand_order='fixed'"):
                bot.check_game(
                    HanabiConfig(players=size, hand_size=group.hand_size(size), hand_order="fixed")
                )


def test_versions_of_the_benchmark():
    assert BENCHMARK_VERSIONS[BENCHMARK_VERSION] == DEFAULT_SUITES
    assert "strong@1" in BENCHMARK_VERSIONS[2]
    assert "strong@1" not in BENCHMARK_VERSIONS[1]
    assert set(BENCHMARK_VERSIONS[1]) < set(BENCHMARK_VERSIONS[2])
    v1 = [s.key for s in load_suites(["v1"])]
    assert v1 == list(BENCHMARK_VERSIONS[1])
    assert expand_suite_names(["v1", "pool", "V2"])[:3] == list(BENCHMARK_VERSIONS[1])
    assert benchmark_version(v1)["version"] == 1
    both = benchmark_version([*BENCHMARK_VERSIONS[2], "dev@1"])
    assert (both["version"], both["more"]) == (2, ["dev@1"])
    assert benchmark_version(["pool@1"])["version"] is None
    with pytest.raises(ValueError, match="unknown benchmark version 'v9'; allowed: v1, v2"):
        load_suites(["v9"])


def test_a_tiny_run_against_strong_from_the_command_line(tmp_path):
    out = tmp_path / "bench"
    rc, stdout, stderr = _cli(
        ["IGGI", "--suite", "strong", "--deals", "1", "--players", "2,4", "--out", str(out),
         "--quiet", "--workers", "1"],
        tmp_path,
    )  # fmt: skip
    assert rc == 0, stderr
    lines = stdout.splitlines()
    assert lines[0].startswith("lenient scoring")
    assert lines[1].startswith("no benchmark version (suites strong@1")
    summary = json.loads((out / "summary.json").read_text())
    assert [s["suite"] for s in summary["configuration"]["suites"]] == ["strong@1"]
    rows = list(csv.DictReader((out / "per_partner.csv").open()))
    seen = {(r["partner"], r["players"]) for r in rows if r["seat"] == "all"}
    names = [p.id for p in load_suite("strong").groups[0].partners]
    assert seen == {(f"strong/{n}", str(p)) for n in names for p in (2, 4)}
    assert all(0 <= float(r["mean_score"]) <= 25 for r in rows)


def test_an_agent_refusing_4_and_5_players_is_a_partial_run(tmp_path):
    # a copy of the strong suite cut to one bot and two deals: a full run of it is quick
    doc = json.loads(Path(load_suite("strong").path).read_text())
    group = doc["groups"][0]
    group["partners"] = [p for p in group["partners"] if p["spec"] == "smartbot"]
    group["episodes"], group["games"] = 1, 2
    suite = tmp_path / "strong-cut.json"
    suite.write_text(json.dumps(doc))
    (tmp_path / "mine.py").write_text(TWO_THREE)
    out = tmp_path / "bench"
    rc, stdout, stderr = _cli(
        ["mine.py:TwoThree", "--suite", str(suite), "--out", str(out), "--quiet",
         "--workers", "1"],
        tmp_path,
    )  # fmt: skip
    assert rc == 0, stderr
    assert "note: two-three played a partial run" in stdout or "partial run" in stdout
    (agent,) = json.loads((out / "summary.json").read_text())["agents"]
    (su,) = agent["suites"].values()
    assert (su["sizes_played"], su["complete"], agent["complete"]) == ([2, 3], False, False)
    (row,) = list(csv.DictReader((out / "leaderboard.csv").open()))
    assert row["complete"].lower() == "false"
    assert row["sizes_played"] in ("2,3", "2;3", "[2, 3]")


def test_a_reference_ruleset_agent_and_the_bots_is_one_error_line(tmp_path):
    rc, _stdout, stderr = _cli(["IGGI", "--ruleset", "reference", "--quiet"], tmp_path)
    assert rc == 2
    (line,) = stderr.strip().splitlines()
    assert line.startswith("error: agent 'IGGI' plays with the Java framework's fixed hand slots")
    assert "strong@1 refuse" in line
    assert "--suite v1" in line
    assert not (tmp_path / "runs").exists()


def test_version_1_stays_playable_by_name(tmp_path):
    out = tmp_path / "bench"
    rc, stdout, stderr = _cli(
        ["piers", "--suite", "v1", "--deals", "1", "--players", "2", "--out", str(out),
         "--quiet"],
        tmp_path,
    )  # fmt: skip
    assert rc == 0, stderr
    assert stdout.splitlines()[1] == "benchmark v1 (pool@1, published@1, own@1)"
    conf = json.loads((out / "summary.json").read_text())["configuration"]
    assert conf["benchmark"]["version"] == 1
    assert [s["suite"] for s in conf["suites"]] == list(BENCHMARK_VERSIONS[1])
    assert "Suites: benchmark v1 (pool@1" in (out / "summary.md").read_text()


def test_the_tool_builds_the_strong_group_alike_for_any_workers(tmp_path, monkeypatch):
    tool = suites_tool()
    monkeypatch.setitem(tool.PROTOCOL, "strong", (1, 2))
    monkeypatch.setitem(tool.PRESCREEN, "strong", (1, 3))
    monkeypatch.setattr(tool, "BOTS", {k: BOTS[k] for k in ("smartbot", "infobot")})  # quick
    every = tool.candidates_for

    def few(group, groups):  # three rule agents, an RL partner (2 players only), two bots
        known = every(group, groups)
        return [*known[:3], "rl:ppo-sp1", "smartbot", "infobot"]

    monkeypatch.setattr(tool, "candidates_for", few)
    made = []
    for workers in ("1", "2"):
        folder = tmp_path / f"w{workers}"
        argv = ["--only", "strong", "--out", str(folder), "--workers", workers,
                "--screen-deals", "1", "--finalists", "2"]  # fmt: skip
        assert tool.main(argv) == 0
        made.append((folder / "strong.v1.json").read_bytes())
    assert made[0] == made[1]
    (group,) = json.loads(made[0])["groups"]
    assert group["best_response"]["refused_by_players"] == {"3": 1, "4": 1, "5": 1}
    for p in group["partners"]:
        assert sorted(p["br"]) == ["2", "3", "4", "5"]
        assert all(p["br_agent"][s] != "rl:ppo-sp1" for s in ("3", "4", "5"))

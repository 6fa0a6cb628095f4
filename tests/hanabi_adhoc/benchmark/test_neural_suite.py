"""The ``neural`` suite: every shipped network at its game size, with best responses; ``rl:all``.

docs/benchmark.md §2. The suite file is checked against its pin and against the networks shipped
in ``agents/data/rl_partners/`` (a network shipped without a rebuilt suite fails here), its best
responses against the candidates the other suites know, and the command line plays it as a user
runs it: in a fresh interpreter. ``rl:all`` (the meta-agent's pool of RL partners) is every
shipped network, clones included; the ``rl`` suite stays its five frozen PPO partners.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from agents.registry import make_policy
from agents.rl import partner_config, partner_names, partner_specs
from agents.rl.partners import CLONE_PREFIX
from hanabi_adhoc.benchmark.suites import (
    BENCHMARK_VERSIONS,
    SUITE_SHA256,
    SUITES,
    load_suite,
    load_suites,
)
from hanabi_env.config import HanabiConfig
from tests.hanabi_adhoc.benchmark.helpers import suites_tool
from tests.helpers import run_python

OTHERS = ("pool", "published", "own", "rl", "strong")
"""The suites whose agents are the best-response candidates of ``neural`` (with the networks)."""

RL_V1 = ["rl:ppo-piers", "rl:ppo-pool", "rl:ppo-sp1", "rl:ppo-sp2", "rl:ppo-vdb"]
"""The partners of the frozen ``rl@1`` suite."""


@pytest.fixture(scope="module")
def neural():
    return load_suite("neural")


def _shipped_by_size() -> dict[int, list[str]]:
    """Game size -> the specs of the shipped networks that play it (from their JSON files)."""
    out: dict[int, list[str]] = {}
    for name in partner_names(clones=True):
        out.setdefault(int(partner_config(name)["game"]["players"]), []).append(f"rl:{name}")
    return out


def test_neural_is_shipped_pinned_and_not_in_a_benchmark_version(neural):
    raw = Path(neural.path).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SUITE_SHA256["neural.v1.json"]
    assert (neural.shipped, neural.key, neural.version) == (True, "neural@1", 1)
    assert "neural" in SUITES
    assert all("neural@1" not in keys for keys in BENCHMARK_VERSIONS.values())


def test_neural_holds_every_shipped_network_at_its_game_size(neural):
    shipped = _shipped_by_size()
    held = {g.players: [p.spec for p in g.partners] for g in neural.groups}
    # a network shipped (or removed) without a new version of the suite fails here
    assert held == {(p,): specs for p, specs in shipped.items()}
    assert {s for specs in held.values() for s in specs} == set(partner_specs(clones=True))
    assert any(s.startswith(f"rl:{CLONE_PREFIX}") for specs in held.values() for s in specs)
    for g in neural.groups:
        (size,) = g.players
        assert g.name == f"neural-{size}p"
        assert (g.ruleset, g.scoring) == ("corrected", "lenient")
        game = HanabiConfig(players=size, hand_size=g.hand_size(size), scoring="lenient")
        assert game.hand_order == "shift"  # HLE's hand order: the networks' own game
        for p in g.partners:
            make_policy(p.spec, 0, ruleset=g.ruleset).check_game(game)  # plays it: no error


def test_best_responses_are_chosen_among_every_agent_the_suites_know(neural):
    others = [g for s in load_suites(list(OTHERS)) for g in s.groups]
    known = list(dict.fromkeys(p.spec for g in [*others, *neural.groups] for p in g.partners))
    networks = _shipped_by_size()
    for g in neural.groups:
        (size,) = g.players
        doc = next(
            d for d in json.loads(Path(neural.path).read_text())["groups"] if d["name"] == g.name
        )
        br = doc["best_response"]
        assert br["candidates"] == len(known)
        assert "prescreen" not in br  # every candidate screened: the bots' games apart
        # the networks trained at another game size refuse this one: left out and counted
        elsewhere = sum(len(v) for p, v in networks.items() if p != size)
        assert br.get("refused_by_players", {}).get(str(size), 0) == elsewhere
        for p in g.partners:
            assert 0 < p.self_play[size] <= 25
            assert p.self_play[size] - 1.0 <= p.br[size] <= 25  # the network is a candidate
            assert all(0.0 <= m <= 1.0 for m in p.measures[size])
            assert p.br_agent[size] in known


def test_the_rl_suite_stays_the_five_frozen_partners(neural):
    (group,) = load_suite("rl").groups
    assert [p.spec for p in group.partners] == RL_V1
    assert set(RL_V1) <= set(partner_specs())  # still shipped, and not clones
    (two,) = [g for g in neural.groups if g.players == (2,)]
    assert (two.seed, two.episodes, two.games) == (group.seed, group.episodes, group.games)
    mine = {p.spec: p for p in two.partners}
    for p in group.partners:  # the same deals: the same self-play and measures
        assert (mine[p.spec].self_play, mine[p.spec].measures) == (p.self_play, p.measures)


def test_rl_all_is_every_shipped_network_clones_included():
    from agents.rl import load_partners
    from meta.pools import load_pool

    every = load_partners("all")
    assert [p.name for p in every] == [f"rl:{n}" for n in partner_names(clones=True)]
    policies, ids = load_pool("rl:all")  # the meta-agent's game: the 2-player networks
    assert ids == [p.name for p in every if p.config["game"]["players"] == 2]
    assert set(RL_V1) < set(ids)
    assert any(i.startswith(f"rl:{CLONE_PREFIX}") for i in ids)
    assert len(policies) == len(ids)
    # clones=False still means the networks trained by RL, not the clones
    assert partner_names() == [
        n for n in partner_names(clones=True) if not n.startswith(CLONE_PREFIX)
    ]


def test_a_tiny_run_against_neural_from_the_command_line(tmp_path, neural):
    out = tmp_path / "bench"
    done = run_python(
        ["-m", "hanabi_adhoc", "benchmark", "piers", "--suite", "neural", "--deals", "1",
         "--players", "2", "--out", str(out), "--quiet", "--workers", "1"],
        tmp_path, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("no benchmark version (suites neural@1")
    summary = json.loads((out / "summary.json").read_text())
    assert [s["suite"] for s in summary["configuration"]["suites"]] == ["neural@1"]
    rows = list(csv.DictReader((out / "per_partner.csv").open()))
    seen = {r["partner"] for r in rows if r["seat"] == "all" and r["players"] == "2"}
    (group,) = [g for g in neural.groups if g.players == (2,)]
    assert seen == {f"{group.name}/{p.id}" for p in group.partners}
    assert all(0 <= float(r["mean_score"]) <= 25 for r in rows)


def test_an_unknown_suite_lists_neural(tmp_path):
    done = run_python(
        ["-m", "hanabi_adhoc", "benchmark", "piers", "--suite", "neurals", "--out",
         str(tmp_path / "b"), "--quiet"],
        tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: ")
    assert "neural" in line.split("allowed:")[1]


def test_the_tool_reads_the_networks_from_the_shipped_files(tmp_path, monkeypatch):
    import agents.rl.partners as partners

    folder = tmp_path / "rl_partners"
    shutil.copytree(partners.PARTNER_DIR, folder)
    config = json.loads((folder / "ppo-sp1.json").read_text())
    config["name"] = "ppo-new"
    (folder / "ppo-new.json").write_text(json.dumps(config))  # a network shipped later
    monkeypatch.setattr(partners, "PARTNER_DIR", folder)
    tool = suites_tool()
    groups = {g["name"]: g for g in tool.neural_groups()}
    players = {n: partners.partner_config(n)["game"]["players"] for n in partner_names(True)}
    for size in sorted(set(players.values())):  # each network in the group of its game size
        assert [p["spec"] for p in groups[f"neural-{size}p"]["partners"]] == [
            f"rl:{n}" for n in partner_names(clones=True) if players[n] == size
        ]
    assert "rl:ppo-new" in [p["spec"] for p in groups["neural-2p"]["partners"]]
    assert tool.suite_table()["neural"][1] == list(groups)
    assert [p["spec"] for p in tool.rl_group()["partners"]] == RL_V1  # rl@1 stays frozen


def test_the_tool_builds_a_neural_group_alike_for_any_workers(tmp_path, monkeypatch):
    tool = suites_tool()
    monkeypatch.setitem(tool.PROTOCOL, "neural", (1, 2))
    every = tool.candidates_for

    given: list[str] = []

    def few(group, groups):  # two rule agents, a network, a bot (the Python game loop)
        given[:] = [*every(group, groups)[:2], "rl:ppo-sp1", "smartbot"]
        return list(given)

    monkeypatch.setattr(tool, "candidates_for", few)
    made = []
    for workers in ("1", "2"):
        folder = tmp_path / f"w{workers}"
        argv = ["--only", "neural", "--out", str(folder), "--workers", workers,
                "--screen-deals", "1", "--finalists", "2"]  # fmt: skip
        assert tool.main(argv) == 0
        assert sorted(p.name for p in folder.iterdir()) == ["neural.v1.json"]
        made.append((folder / "neural.v1.json").read_bytes())
    assert made[0] == made[1]
    doc = json.loads(made[0])
    assert [g["name"] for g in doc["groups"]] == [g.name for g in load_suite("neural").groups]
    for g in doc["groups"]:
        assert g["best_response"]["candidates"] == 4
        size = str(g["players"][0])
        for p in g["partners"]:
            assert p["br_agent"][size] in given
            assert 0 <= p["br"][size] <= 25

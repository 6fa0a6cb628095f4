"""The shipped suites: frozen contents, the split, the best responses, errors."""

from __future__ import annotations

import hashlib
import json

import pytest

from agents.registry import make_policy
from agents.rulebase import TEST_POOL
from hanabi_adhoc.benchmark.suites import (
    DEFAULT_SUITES,
    SUITE_SHA256,
    SUITES,
    data_dir,
    load_suite,
    load_suites,
)


def test_every_shipped_file_is_pinned_and_unchanged():
    files = sorted(p.name for p in data_dir().glob("*.json"))
    assert files == sorted(SUITE_SHA256)
    for name, sha in SUITE_SHA256.items():
        assert hashlib.sha256((data_dir() / name).read_bytes()).hexdigest() == sha, name
    total = sum(p.stat().st_size for p in data_dir().glob("*.json"))
    assert total < 3_000_000


def test_suites_hold_what_they_promise():
    suites = {s.name: s for s in load_suites(list(SUITES))}
    assert {k.partition("@")[0] for k in DEFAULT_SUITES} <= set(suites)
    pool = suites["pool"].groups[0]
    assert tuple(p.spec for p in pool.partners) == tuple(TEST_POOL)
    assert pool.players == (2, 3, 4, 5)
    published = {g.name: g for g in suites["published"].groups}
    assert sorted(published) == sorted(
        f"published-{d}-run{r}" for d in ("5x5", "20x20") for r in (1, 2, 3)
    )
    assert all(g.ruleset == "reference" and g.players == (2,) for g in published.values())
    assert [len(published[f"published-5x5-run{r}"].partners) for r in (1, 2, 3)] == [22] * 3
    assert sum(len(g.partners) for g in published.values()) == 66 + 311 + 311 + 310
    assert [g.ruleset for g in suites["own"].groups] == ["corrected"] * 3


def test_dev_and_test_are_disjoint_copies_of_the_other_suites():
    dev, test, *rest = load_suites(["dev", "test", "pool", "published", "own"])
    named = {g.name: g.hash for s in rest for g in s.groups}
    for g in [*dev.groups, *test.groups]:
        assert named[g.name] == g.hash  # the same group: the same results
    assert not {g.name for g in dev.groups} & {g.name for g in test.groups}
    specs = lambda s: {p.spec for g in s.groups for p in g.partners}  # noqa: E731
    assert specs(dev) & specs(test) < specs(test)  # some elites recur across runs, not all
    assert {g.name for g in dev.groups} | {g.name for g in test.groups} == set(named)


def test_every_partner_has_a_best_response_at_least_its_self_play_and_buildable():
    for suite in load_suites(list(DEFAULT_SUITES)):
        for g in suite.groups:
            for p in g.partners:
                for size in g.players:
                    assert 0 < p.br[size] <= 25
                    assert p.br[size] >= p.self_play[size] - 1.0  # self-play is a candidate
                    assert len(p.measures[size]) == 2
                make_policy(p.br_agent[g.players[0]], 0, ruleset=g.ruleset)
            make_policy(g.partners[0].spec, 0, ruleset=g.ruleset)


def test_versions_names_and_files(tmp_path):
    assert load_suite("pool@1").sha256 == load_suite("pool").sha256
    with pytest.raises(ValueError, match="unknown suite 'nope'"):
        load_suite("nope")
    with pytest.raises(ValueError, match="unknown suite version 'pool@9'; allowed: pool@1"):
        load_suite("pool@9")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "other"}))
    with pytest.raises(ValueError, match="not a benchmark suite"):
        load_suite(bad)
    doc = json.loads((data_dir() / "pool.v1.json").read_text())
    doc["groups"][0]["players"] = [6]
    bad.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"players \[6\]"):
        load_suite(bad)
    with pytest.raises(FileNotFoundError):
        load_suite(tmp_path / "missing.json")


RL_V1 = ["rl:ppo-piers", "rl:ppo-pool", "rl:ppo-sp1", "rl:ppo-sp2", "rl:ppo-vdb"]
"""The partners of ``rl@1``: frozen, whatever networks ship later (the ``neural`` suite holds
every shipped network: test_neural_suite.py)."""


def test_rl_suite_holds_the_five_frozen_rl_partners_with_their_best_responses():
    from agents.rl import partner_specs
    from hanabi_adhoc.benchmark import run_benchmark

    (group,) = load_suite("rl").groups
    assert [p.spec for p in group.partners] == RL_V1
    assert set(RL_V1) <= set(partner_specs())  # each still shipped
    assert (group.players, group.ruleset) == ((2,), "corrected")
    for p in group.partners:
        assert 0 < p.self_play[2] <= p.br[2] <= 25  # the partner itself is a candidate
        make_policy(p.br_agent[2], 0, ruleset=group.ruleset)
    assert "rl" not in DEFAULT_SUITES
    bench = run_benchmark(["piers"], ["rl"], deals=2, workers=1, progress=False)
    assert {r["partner"] for r in bench.rows} == {f"rl/{s}" for s in RL_V1}

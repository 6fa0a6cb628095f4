"""The papers' agents under ``--ruleset reference``: the Java framework's semantics (issue 43).

A published chromosome built with the reference ruleset needs fixed hand slots; the benchmark
plays it so on the suites of the published populations, and its games there are the games that
the toolkit's Java-semantics evaluation (:func:`agents.evaluate.play_games` with reference
agents and ``hand_order="fixed"``) plays on the same deals and seat seeds.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.evaluate import play_games
from agents.published import published_chromosomes
from agents.registry import make_policy
from hanabi_adhoc.benchmark.protocol import deal_schedule
from hanabi_adhoc.benchmark.results import Results
from hanabi_adhoc.benchmark.suites import load_suites
from hanabi_adhoc.cli import main
from hanabi_env.config import HanabiConfig

CHROMOSOME = ",".join(map(str, published_chromosomes()[0]["chromosome"]))  # NYUGameLab_2p


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "bench"
    argv = ["benchmark", CHROMOSOME, "--suite", "published", "--ruleset", "reference"]
    rc = main([*argv, "--deals", "1", "--out", str(out), "--quiet", "--workers", "1"])
    assert rc == 0
    return out


def test_a_published_chromosome_under_the_reference_ruleset_gets_a_score(report):
    doc = json.loads((report / "summary.json").read_text())
    (agent,) = doc["agents"]
    assert agent["options"]["ruleset"] == "reference"
    assert agent["players"]["2"] == "yes"
    score = agent["suites"]["published@1"]["all"]["score_mean"]["value"]
    assert 0.0 < score <= 25.0
    assert agent["suites"]["published@1"]["all"]["units"] == sum(
        len(g.partners) for g in load_suites(["published"])[0].groups
    )


def test_its_games_are_those_of_the_java_semantics_evaluation(report):
    group = load_suites(["published"])[0].groups[0]  # the 5x5 population, run 1
    (unit,) = report.glob(f"agents/*/games/{group.name}.p2.0-*.npz")
    res = Results.from_bytes(unit.read_bytes())
    sched = deal_schedule(group, 2, deals=1)
    cfg = HanabiConfig(players=2, hand_size=5, scoring="lenient", hand_order="fixed")
    agent = make_policy(CHROMOSOME, 0, ruleset="reference")
    for k in (0, 5, len(group.partners) - 1):
        partner = make_policy(group.partners[k].spec, 0, ruleset="reference")
        for seat in (0, 1):
            seats = np.ones((1, 2), dtype=np.int64)
            seats[0, seat] = 0
            batch = play_games([agent, partner], seats, sched["deal"], sched["seeds"], cfg)
            row = (res["partner"] == k) & (res["seat"] == seat)
            assert res["score"][row].tolist() == batch.scores.tolist()
            mine = batch.counters[0, seat]
            assert np.array_equal(res.counters("agent")[row][0], mine)

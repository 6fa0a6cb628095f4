"""The shipped partner cloned from H-group play, ``rl:clone-hgroup-l1`` (docs/human_proxies.md §4).

It loads and plays without torch, replays the games recorded when it was shipped, states where
its records came from, is listed among the shipped partners with ``clones=True``, is in
``rl:all`` and the ``neural`` suite (every shipped network) but not in the ``rl`` suite (whose
partners are fixed, ``rl@1``).
"""

from __future__ import annotations

import json
import re

import pytest

import agents
from agents.rl import PARTNER_DIR, load_partner, load_partners, partner_config, partner_names
from agents.rl.partners import CLONE_PREFIX, self_play_record
from hanabi_adhoc.benchmark.suites import load_suite
from tests.helpers import ROOT, run_python

NAME = "clone-hgroup-l1"


def test_it_is_listed_with_the_clones_in_rl_all_and_neural_but_not_the_rl_suite():
    assert NAME in partner_names(clones=True)
    assert NAME not in partner_names()
    assert all(not n.startswith(CLONE_PREFIX) for n in partner_names())
    assert set(partner_names(clones=True)) - set(partner_names()) >= {NAME}
    assert f"rl:{NAME}" in [p.name for p in load_partners("all")]
    (group,) = load_suite("rl").groups
    assert f"rl:{NAME}" not in [p.spec for p in group.partners]
    assert f"rl:{NAME}" in [p.spec for g in load_suite("neural").groups for p in g.partners]
    with pytest.raises(ValueError, match=re.escape(NAME)):
        agents.make("rl:no-such-partner")
    with pytest.raises(TypeError, match="clones"):
        partner_names(clones="yes")


def test_its_files_state_where_it_comes_from():
    cfg = partner_config(NAME)
    size = sum((PARTNER_DIR / f).stat().st_size for f in (f"{NAME}.json", f"{NAME}.npz"))
    assert size <= 3_000_000
    assert (cfg["game"]["players"], cfg["game"]["scoring"]) == (2, "lenient")
    training = cfg["training"]
    assert training["teacher"]["kind"] == "hanab.live records"
    assert training["command"].startswith("hanabi-adhoc clone --records ")
    assert NAME in training["command"]
    assert re.fullmatch(r"[0-9a-f]{40}", training["commit"])
    assert training["steps"] > 0
    assert training["wall_s"] > 0
    assert training["cpu_s"] > 0
    records = training["records"]
    assert sum(r["valid"] for r in records) == training["teacher"]["games"]
    for r in records:
        assert r["bot_repository"] == "https://github.com/WillFlame14/hanabi-bot"
        assert re.fullmatch(r"[0-9a-f]{40}", r["bot_commit"])
        assert r["bot_license"] == "GPL-3.0"
        assert (r["convention"], r["level"], r["players"]) == ("HGroup", 1, 2)
        assert r["command"].startswith("python tools/hgroup_records.py ")
    last = training["history"][-1]
    assert 0 < last["holdout_accuracy"] <= 1
    assert cfg["self_play"]["games"] >= 1000
    for partner in ("IGGI", "smartbot"):
        assert cfg["with_partners"][partner]["games"] >= 200
    assert cfg["with_partners"]["records_mean"] == pytest.approx(
        sum(r["mean_score"] * r["valid"] for r in records) / sum(r["valid"] for r in records),
        abs=1e-3,
    )
    assert cfg["export_check"]["same_moves"] == cfg["export_check"]["observations"] > 0


def test_it_replays_its_recorded_games():
    cfg = partner_config(NAME)
    check = cfg["check"]
    assert self_play_record(load_partner(NAME), check["games"], check["seed"]) == check


def test_it_plays_without_torch():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import agents\n"
        f"res = agents.play([agents.make('rl:{NAME}'), agents.make('iggi')], games=3, seed=1)\n"
        "print(len(res.scores), all(0 <= s <= 25 for s in res.scores))\n"
    )
    out = run_python(["-c", code], cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "True"]


def test_the_readme_of_the_data_names_its_provenance():
    text = (ROOT / "agents" / "data" / "README.md").read_text()
    assert f"{NAME}" in text
    assert "WillFlame14/hanabi-bot" in text
    cfg = json.loads((PARTNER_DIR / f"{NAME}.json").read_text())
    assert cfg["training"]["records"][0]["bot_commit"] in text

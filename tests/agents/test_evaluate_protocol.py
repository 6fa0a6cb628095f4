"""agents.evaluate.evaluate's settings as one object: EvaluationProtocol (issue 42, item 4)."""

from __future__ import annotations

import dataclasses

import pytest

from agents.evaluate import EvaluationProtocol, evaluate
from agents.reference import CIG18_POOL


def test_the_protocol_evaluates_as_its_keywords():
    kw = {"mode": "mixed", "players": (2, 3), "games": 6, "seed": 4, "workers": 1}
    by_keywords = evaluate("piers", pool=["iggi", "outer"], **kw)
    by_object = evaluate("piers", pool=["iggi", "outer"], protocol=EvaluationProtocol(**kw))
    assert by_object.to_dict() == by_keywords.to_dict()
    other = evaluate(
        "piers", pool=["iggi", "outer"], protocol=EvaluationProtocol(**{**kw, "seed": 5})
    )
    assert other.rows != by_keywords.rows  # the protocol's seed is played


@pytest.mark.parametrize(
    ("fields", "error", "name"),
    [
        ({"mode": "solo"}, ValueError, "mode"),
        ({"players": (2, 2)}, ValueError, "players"),
        ({"games": 0}, ValueError, "games"),
        ({"seed": 2**62}, ValueError, "seed"),
        ({"hand_size": 6}, ValueError, "hand_size"),
        ({"hand_size": "5"}, TypeError, "hand_size"),
        ({"move_time_limit": -1}, ValueError, "move_time_limit"),
        ({"preset": "cig18"}, ValueError, "mode"),
        ({"hand_order": "sorted"}, ValueError, "hand_order"),
    ],
)
def test_a_bad_setting_is_refused_when_the_protocol_is_made(fields, error, name):
    with pytest.raises(error, match=name):
        EvaluationProtocol(**fields)


def test_the_protocol_is_typed_and_frozen():
    proto = EvaluationProtocol(mode="mixed", players=[3, 2], preset="cig18", move_time_limit=0)
    assert proto.players == (3, 2)
    assert proto.ruleset == "reference"  # the preset's rules
    assert proto.move_time_limit is None  # 0: no limit
    assert proto.size_of(3) == 5
    assert proto.size_of(4) == 4
    with pytest.raises(dataclasses.FrozenInstanceError):
        proto.games = 3  # type: ignore[misc]
    res = evaluate(
        "piers", protocol=EvaluationProtocol(mode="mixed", players=(2,), games=2, preset="cig18")
    )
    assert {r["partner"] for r in res.rows} == set(CIG18_POOL)  # the preset's pool
    assert res.ruleset == "reference"


def test_a_protocol_and_its_keywords_are_not_mixed():
    with pytest.raises(TypeError, match="protocol and games"):
        evaluate("piers", games=5, protocol=EvaluationProtocol())
    with pytest.raises(TypeError, match=r"protocol must be an? EvaluationProtocol"):
        evaluate("piers", protocol="mirror")  # type: ignore[arg-type]

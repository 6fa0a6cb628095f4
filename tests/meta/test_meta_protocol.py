"""The settings objects of the meta floor: MetaProtocol and TableProtocol (issue 42, item 4).

Each is checked once, when it is made (a ValueError/TypeError naming the field); a function
takes it as ``protocol=`` or its old keywords, with the same results.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents.registry import make
from hanabi_env.config import HanabiConfig
from meta import ALL_VARIANTS, build_table, evaluate_meta
from meta.compiled import evaluate_compiled
from meta.evaluate import MetaProtocol
from meta.table import TableProtocol
from tests.meta.helpers import assert_identical

IDS = ["[0,1]", "[2,3]", "[4,4]"]


def pool():
    return [make("piers"), make("iggi"), make("outer")]


@pytest.fixture(scope="module")
def table():
    return build_table(pool(), pool(), 6, 4, IDS, IDS)


def test_a_table_protocol_builds_the_table_its_keywords_build(table):
    same = build_table(pool(), pool(), response_ids=IDS, hypothesis_ids=IDS,
                       protocol=TableProtocol(games=6, seed=4))  # fmt: skip
    for field in ("scores", "sem", "communicativeness", "ipp", "sums"):
        np.testing.assert_array_equal(getattr(same, field), getattr(table, field))
    other = build_table(pool(), pool(), response_ids=IDS, hypothesis_ids=IDS,
                        protocol=TableProtocol(games=6, seed=5))  # fmt: skip
    assert not np.array_equal(other.scores, table.scores)  # the protocol's seed is played


def test_a_meta_protocol_evaluates_as_its_keywords(table):
    kw = {"variants": ALL_VARIANTS, "episodes": 2, "games": 2, "seed": 3, "sigma": 0.2}
    by_keywords = evaluate_meta(table, pool(), pool(), IDS, **kw)
    by_object = evaluate_meta(table, pool(), pool(), IDS, protocol=MetaProtocol(**kw))
    assert_identical(by_keywords, by_object, ALL_VARIANTS)
    python = evaluate_meta(
        table, pool(), pool(), IDS, protocol=MetaProtocol(**kw, compiled=False, workers=2)
    )
    assert_identical(by_keywords, python, ALL_VARIANTS)


def test_evaluate_compiled_keeps_its_old_keywords(table):
    common = {
        "table": table,
        "responses": pool(),
        "partners": pool(),
        "pids": IDS,
        "variants": ["adaptive", "generalist"],
        "cfg": HanabiConfig(players=2, hand_size=5, scoring="lenient"),
        "oracle_kw": [{}] * 3,
    }
    proto = MetaProtocol(variants=("adaptive", "generalist"), episodes=2, games=3, seed=9)
    new = evaluate_compiled(**common, protocol=proto)
    old = evaluate_compiled(
        **common,
        episodes=2,
        games=3,
        seed=9,
        kw={"sigma": 0.1, "games_threshold": 1, "turns_threshold": None},
        niche_dims=(5, 5),
        response_kw={"threshold": 0, "empty_niche": "generalist"},
        workers=1,
    )
    for v in common["variants"]:
        for key in new[v]:
            np.testing.assert_array_equal(new[v][key], old[v][key])
    with pytest.raises(TypeError, match="episode"):
        evaluate_compiled(**common, episode=2)


@pytest.mark.parametrize(
    ("fields", "error", "name"),
    [
        ({"episodes": 0}, ValueError, "episodes"),
        ({"games": 2.0}, TypeError, "games"),
        ({"seed": -1}, ValueError, "seed"),
        ({"sigma": 0}, ValueError, "sigma"),
        ({"variants": ["adaptive", "adaptive"]}, ValueError, "variants"),
        ({"variants": "adaptive"}, TypeError, "variants"),
        ({"niche_dims": (5,)}, ValueError, "niche_dims"),
        ({"empty_niche": "any"}, ValueError, "empty_niche"),
        ({"compiled": "yes"}, TypeError, "compiled"),
    ],
)
def test_a_bad_meta_setting_is_refused_when_the_protocol_is_made(fields, error, name):
    with pytest.raises(error, match=name):
        MetaProtocol(**fields)


def test_a_protocol_is_checked_typed_and_frozen():
    proto = MetaProtocol(variants=["random"], niche_dims=[20, 20], sigma=1, episodes=np.int64(3))
    assert proto.variants == ("random",)
    assert proto.niche_dims == (20, 20)
    assert type(proto.sigma) is float
    assert type(proto.episodes) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        proto.seed = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="games"):
        TableProtocol(games=0)
    with pytest.raises(TypeError, match="progress"):
        TableProtocol(progress="bar")  # type: ignore[arg-type]


def test_a_protocol_and_its_keywords_are_not_mixed(table):
    with pytest.raises(TypeError, match="protocol and episodes"):
        evaluate_meta(table, pool(), pool(), IDS, episodes=3, protocol=MetaProtocol())
    with pytest.raises(TypeError, match="protocol must be a MetaProtocol"):
        evaluate_meta(table, pool(), pool(), IDS, protocol={"episodes": 3})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="protocol and seed"):
        build_table(pool(), pool(), seed=2, protocol=TableProtocol())

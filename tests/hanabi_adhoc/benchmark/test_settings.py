"""run_benchmark's settings as one object: BenchmarkSettings (issue 42, item 4)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from hanabi_adhoc.benchmark.results import COLUMNS
from hanabi_adhoc.benchmark.run import BenchmarkSettings, run_benchmark
from tests.hanabi_adhoc.benchmark.helpers import tiny_suite


def test_the_settings_play_what_their_keywords_play(tmp_path):
    suite = [str(tiny_suite(tmp_path / "tiny.json"))]
    kw = {"seed": 3, "players": [2], "deals": 2, "workers": 1, "progress": False}
    by_keywords = run_benchmark(["Outer", "3,17,4"], suite, **kw)
    by_object = run_benchmark(["Outer", "3,17,4"], suite, settings=BenchmarkSettings(**kw))
    assert by_object.options == by_keywords.options
    assert json.dumps(by_object.rows, default=str) == json.dumps(by_keywords.rows, default=str)
    for a, b in zip(by_keywords.runs, by_object.runs, strict=True):
        assert (a.label, a.slug, a.options) == (b.label, b.slug, b.options)
        for col in COLUMNS:
            np.testing.assert_array_equal(a.results[col], b.results[col], err_msg=col)


@pytest.mark.parametrize(
    ("fields", "error", "name"),
    [
        ({"seed": -1}, ValueError, "seed"),
        ({"trust_model": 1}, TypeError, "trust_model"),
        ({"workers": 0}, ValueError, "workers"),
        ({"hand_size": 6}, ValueError, "hand_size"),
        ({"deals": 0}, ValueError, "deals"),
        ({"players": [2, 6]}, ValueError, "players"),
        ({"ruleset": "newest"}, ValueError, "ruleset"),
        ({"train_games": 0}, ValueError, "train_games"),
        ({"scheduler_address": ""}, ValueError, "scheduler_address"),
    ],
)
def test_a_bad_setting_is_refused_when_the_settings_are_made(fields, error, name):
    with pytest.raises(error, match=name):
        BenchmarkSettings(**fields)


def test_the_settings_are_typed_and_frozen():
    s = BenchmarkSettings(players=[5, 2, 2], seed=np.int64(4))
    assert s.players == (2, 5)
    assert type(s.seed) is int
    assert s.options()["players"] == (2, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.seed = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="settings and deals"):
        run_benchmark(["Outer"], ["pool"], deals=2, settings=BenchmarkSettings())

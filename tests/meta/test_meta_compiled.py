"""The compiled meta-agent evaluation (meta.compiled) equals the Python path, game for game."""

from __future__ import annotations

import numpy as np
import pytest

import meta.compiled as MC
import meta.evaluate as ME
from agents.registry import make
from meta import ALL_VARIANTS, bayes_update, build_table, evaluate_meta
from meta.bayes import bayes_update_batch
from tests.helpers import Wrapped
from tests.meta.helpers import assert_identical, forbid

IDS = ["[0,1]", "[2,3]", "[4,4]", "[1,0]"]


def pool():
    return [make("piers"), make("iggi"), make("legalrandom"), make("outer")]


@pytest.fixture(scope="module")
def table():
    return build_table(pool(), pool(), games=8, seed=3, response_ids=IDS, hypothesis_ids=IDS)


@pytest.mark.parametrize(
    "settings",
    [
        {"seed": 5},
        {
            "seed": 6,
            "games_threshold": 2,
            "sigma": 0.05,
            "response_threshold": 7,
            "empty_niche": "nearest",
            "scoring": "strict",
        },
    ],
)
def test_compiled_equals_python_for_every_variant(table, settings, monkeypatch):
    kw = {"variants": ALL_VARIANTS, "episodes": 2, "games": 4, **settings}
    py = evaluate_meta(table, pool(), pool(), IDS, compiled=False, **kw)
    with monkeypatch.context() as m:
        forbid(m, "_run_tasks")  # the default path for rule agents is the compiled one
        fast = evaluate_meta(table, pool(), pool(), IDS, **kw)
    assert_identical(py, fast, ALL_VARIANTS)
    # the case exercises what the compiled path must reproduce
    gen = table.generalist()
    assert len(np.unique(fast.responses["adaptive"])) > 1  # Bayesian updates change r
    assert not np.allclose(fast.beliefs["adaptive"][:, 1:], 1 / len(IDS))
    assert len(np.unique(fast.responses["random"])) > 1
    # game 0 starts on the Generalist: another response at its end is a mid-game switch
    assert np.any(fast.responses["response-adaptive"][:, :, 0] != gen)
    assert np.all(fast.niches["response-generalist"][:, :, -1] >= 0)


def test_compiled_out_of_distribution_and_no_updates(table):
    partners = [make("cautious"), make("vandenbergh"), make("piers")]
    pids = ["E[0,0]", "E[3,1]", "E[4,4]"]
    ort = build_table(pool(), partners, games=6, seed=3, response_ids=IDS, hypothesis_ids=pids)
    kw = {
        "variants": ("oracle", "adaptive", "response-oracle", "response-adaptive", "random"),
        "episodes": 2,
        "games": 3,
        "seed": 9,
        "oracle_table": ort,
        "games_threshold": None,
        "response_threshold": None,
    }
    py = evaluate_meta(table, pool(), partners, pids, compiled=False, **kw)
    fast = evaluate_meta(table, pool(), partners, pids, compiled=True, **kw)
    assert_identical(py, fast, kw["variants"])
    for e in range(3):
        assert np.all(fast.responses["oracle"][e] == ort.oracle(e))
    assert np.all(fast.responses["adaptive"] == fast.responses["adaptive"][0, 0, 0])


def test_turns_threshold_keeps_adaptive_on_the_python_path(table, monkeypatch):
    kw = {
        "variants": ("random", "adaptive", "generalist"),
        "episodes": 2,
        "games": 2,
        "seed": 4,
        "turns_threshold": 3,
    }
    py = evaluate_meta(table, pool(), pool(), IDS, compiled=False, **kw)
    calls = []
    real = ME._run_tasks

    def spy(tasks, workers, progress):
        calls.append(tasks[0]["only"])
        return real(tasks, workers, progress)

    monkeypatch.setattr(ME, "_run_tasks", spy)
    mixed = evaluate_meta(table, pool(), pool(), IDS, **kw)
    assert calls == [["adaptive"]]
    assert_identical(py, mixed, kw["variants"])
    with pytest.raises(ValueError, match="compiled=True"):
        evaluate_meta(table, pool(), pool(), IDS, compiled=True, **kw)


def test_compiled_results_do_not_depend_on_workers_or_chunks(table, monkeypatch):
    kw = {"variants": ALL_VARIANTS, "episodes": 3, "games": 2, "seed": 2}
    one = evaluate_meta(table, pool(), pool(), IDS, workers=1, **kw)
    monkeypatch.setattr(MC, "CHUNK", 5)
    two = evaluate_meta(table, pool(), pool(), IDS, workers=2, **kw)
    assert_identical(one, two, ALL_VARIANTS)


def test_mixed_pool_takes_the_python_path_with_the_same_numbers(table, monkeypatch):
    # Wrapped(piers) plays exactly as piers, but it is not a RuleAgent: the Python path
    kw = {"variants": ALL_VARIANTS, "episodes": 2, "games": 3, "seed": 7}
    rules = evaluate_meta(table, pool(), pool(), IDS, compiled=True, **kw)
    mixed_partners = [Wrapped(make("piers")), make("iggi"), make("legalrandom"), make("outer")]
    mixed_responses = [make("piers"), Wrapped(make("iggi")), make("legalrandom"), make("outer")]
    forbid(monkeypatch, "evaluate_compiled")
    for responses, partners in ((pool(), mixed_partners), (mixed_responses, pool())):
        ev = evaluate_meta(table, responses, partners, IDS, **kw)
        assert_identical(rules, ev, ALL_VARIANTS)
        with pytest.raises(ValueError, match="plain RuleAgent"):
            evaluate_meta(table, responses, partners, IDS, compiled=True, **kw)
    with pytest.raises(TypeError, match="compiled"):
        evaluate_meta(table, pool(), pool(), IDS, compiled="yes", **kw)


def test_bayes_update_batch_is_bayes_update_row_by_row():
    rng = np.random.default_rng(0)
    n, nh = 40, 9
    belief = rng.random((n, nh)) ** 3
    belief[rng.random((n, nh)) < 0.2] = 0.0
    belief[:, 0] += 1e-3
    belief /= belief.sum(axis=1, keepdims=True)
    comm = np.where(rng.random(n) < 0.2, np.nan, rng.random(n))
    ipp = np.where(rng.random(n) < 0.2, np.nan, rng.random(n))
    mu_c, mu_i = rng.random((n, nh)), rng.random((n, nh))
    mu_c[rng.random((n, nh)) < 0.1] = np.nan
    mu_i[3] = np.nan  # every hypothesis impossible: the guard keeps the prior
    ipp[3], comm[3] = 0.5, np.nan
    post, updated = bayes_update_batch(belief, comm, ipp, mu_c, mu_i, 0.07)
    assert not updated[3]
    for i in range(n):
        p, u = bayes_update(belief[i], comm[i], ipp[i], mu_c[i], mu_i[i], 0.07)
        np.testing.assert_array_equal(post[i], p)
        assert bool(updated[i]) == u
    with pytest.raises(ValueError, match="comm and ipp"):
        bayes_update_batch(belief, comm[:3], ipp, mu_c, mu_i)
    with pytest.raises(ValueError, match="sigma"):
        bayes_update_batch(belief, comm, ipp, mu_c, mu_i, 0.0)


def test_every_backend_of_the_runner_family_gives_the_same_numbers(table):
    from agents.backend import ProcessBackend, SerialBackend, ThreadBackend
    from meta.evaluate import self_play_measures

    kw = {"variants": ALL_VARIANTS, "episodes": 2, "games": 2, "seed": 4}
    local = evaluate_meta(table, pool(), pool(), IDS, workers=1, **kw)
    sp = self_play_measures(pool(), games=6, seed=2)
    for backend in (SerialBackend(), ThreadBackend(2, min_chunk=1), ProcessBackend(2)):
        with backend:
            other = evaluate_meta(table, pool(), pool(), IDS, backend=backend, **kw)
            assert_identical(local, other, ALL_VARIANTS)
            t = build_table(
                pool(), pool(), games=8, seed=3, response_ids=IDS, hypothesis_ids=IDS,
                backend=backend,
            )  # fmt: skip
            for f in ("scores", "sem", "communicativeness", "ipp", "risk_aversion"):
                np.testing.assert_array_equal(getattr(t, f), getattr(table, f), err_msg=f)
            np.testing.assert_array_equal(self_play_measures(pool(), 6, 2, backend=backend), sp)
            assert backend.map(int, [("1",), ("2",), ("3",)]) == [1, 2, 3]  # in task order
        if not isinstance(backend, SerialBackend):  # a closed pool refuses work
            with pytest.raises(RuntimeError, match="closed"):
                backend.map(int, [("1",), ("2",)])


def test_backend_arguments_are_checked(table):
    with pytest.raises(TypeError, match="backend"):
        evaluate_meta(table, pool(), pool(), IDS, episodes=1, games=1, backend="dask")
    with pytest.raises(TypeError, match="backend"):
        build_table(pool(), pool(), games=1, backend=object())


def test_batch_policies_play_the_protocol_in_lockstep_with_the_python_paths_results(monkeypatch):
    """Responses and partners that are batch policies (neural partners) take the compiled
    protocol through the lockstep player; every variant equals the Python path."""
    from agents.batch import UniformBatchPolicy

    responses = [make("piers"), UniformBatchPolicy(name="u0"), make("iggi")]
    partners = [UniformBatchPolicy(name="u1"), make("outer")]
    ids = IDS[:3]
    t = build_table(responses, responses, games=4, seed=1, response_ids=ids, hypothesis_ids=ids)
    kw = {"variants": ALL_VARIANTS, "episodes": 2, "games": 3, "seed": 4}
    pids = ["[0,1]", "[4,4]"]
    py = evaluate_meta(t, responses, partners, pids, compiled=False, **kw)
    fast_variants = MC.compiled_variants(ALL_VARIANTS, None, batched=True)
    assert "response-adaptive" not in fast_variants
    assert "adaptive" in fast_variants
    with monkeypatch.context() as m:
        calls = []
        real = MC.play_lockstep
        m.setattr(MC, "play_lockstep", lambda *a, **k: calls.append(1) or real(*a, **k))
        fast = evaluate_meta(t, responses, partners, pids, **kw)
    assert calls  # the lockstep player played the fixed-response games
    assert_identical(py, fast, ALL_VARIANTS)
    with pytest.raises(ValueError, match="response-adaptive with a batch policy"):
        evaluate_meta(t, responses, partners, pids, compiled=True, **kw)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_variants_results_do_not_depend_on_the_other_variants(table, compiled):
    """Random-Response (and every variant) plays the same games whichever variants are asked,
    in any order: its seed is its own (``meta.evaluate.variant_seed``), on both paths."""
    kw = {"episodes": 2, "games": 4, "seed": 11, "compiled": compiled}
    alone = evaluate_meta(table, pool(), pool(), IDS, variants=("random",), **kw)
    lists = [("adaptive", "random"), ("random", "oracle", "generalist"), ALL_VARIANTS[::-1]]
    for variants in lists:
        res = evaluate_meta(table, pool(), pool(), IDS, variants=variants, **kw)
        assert_identical(alone, res, ("random",))
    assert len(np.unique(alone.responses["random"])) > 1  # (it does draw responses)
    both = evaluate_meta(table, pool(), pool(), IDS, variants=("oracle", "adaptive"), **kw)
    one = evaluate_meta(table, pool(), pool(), IDS, variants=("adaptive",), **kw)
    assert_identical(one, both, ("adaptive",))

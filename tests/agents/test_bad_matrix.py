"""[BAD19]'s matrix game: payoffs, values, and the three learners on short seeded runs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.bad.matrix import PAYOFF, best_response_value, optimal_value, safe_value


def test_payoff_tensor_is_the_papers():
    assert PAYOFF.shape == (2, 2, 3, 3)
    # [BAD19] Figure 2, Payoff[card1][card2][u1][u2]
    assert PAYOFF[0, 0].tolist() == [[10, 0, 0], [4, 8, 4], [10, 0, 0]]
    assert PAYOFF[0, 1].tolist() == [[0, 0, 10], [4, 8, 4], [0, 0, 10]]
    assert PAYOFF[1, 0].tolist() == [[0, 0, 10], [4, 8, 4], [0, 0, 0]]
    assert PAYOFF[1, 1].tolist() == [[10, 0, 0], [4, 8, 4], [10, 0, 0]]
    assert not PAYOFF.flags.writeable


def test_optimal_and_safe_values():
    assert optimal_value() == 10.0
    assert safe_value() == 8.0
    # by brute force over every pair of deterministic policies
    best = 0.0
    for p1 in itertools.product(range(3), repeat=2):
        for p2 in itertools.product(range(3), repeat=6):  # (u1, card2) -> u2
            value = np.mean(
                [PAYOFF[c1, c2, p1[c1], p2[p1[c1] * 2 + c2]] for c1 in range(2) for c2 in range(2)]
            )
            best = max(best, value)
    assert best == 10.0
    # an uninformative player 1 cannot beat the safe action
    assert max(best_response_value([u, u]) for u in range(3)) == 8.0
    assert best_response_value([2, 0]) == 10.0  # player 1 signals its card


@pytest.mark.parametrize("bad", [[0], [0, 1, 2], [0, 3], "01", [0.0, 1]])
def test_best_response_value_refuses_bad_policies(bad):
    with pytest.raises((TypeError, ValueError), match="player1"):
        best_response_value(bad)


torch = pytest.importorskip("torch", reason="the matrix-game learners need torch (the bad extra)")
from agents.bad.matrix_train import (  # noqa: E402 - after the importorskip
    METHODS,
    MatrixSettings,
    _Learner,
    load_curves,
    reproduce_figure3,
    train_matrix,
)

SHORT = MatrixSettings(episodes=200, readings=2)
TINY = MatrixSettings(episodes=30, readings=3)


def test_expected_reward_is_the_enumeration_of_the_policies():
    learner = _Learner("bad", 3, np.arange(2), SHORT, torch.device("cpu"))
    got = learner.expected_reward().numpy()
    p = learner.nets.p
    for run in range(2):
        probs1 = torch.softmax(p["table1"][run], -1).detach().numpy()
        total = 0.0
        for a0, a1 in itertools.product(range(3), repeat=2):  # the partial policy
            partial = (a0, a1)
            for c1, c2 in itertools.product(range(2), repeat=2):
                u1 = partial[c1]
                belief = np.array([partial[c] == u1 for c in range(2)], dtype=float)
                belief /= belief.sum()
                x = np.concatenate([np.eye(3)[u1], belief, np.eye(2)[c2]])
                h = np.maximum(x @ p["policy2.w1"][run].detach().numpy() + p["policy2.b1"][run]
                               .detach().numpy()[0], 0)  # fmt: skip
                logits = h @ p["policy2.w2"][run].detach().numpy() + p["policy2.b2"][run].detach(
                ).numpy()[0]  # fmt: skip
                probs2 = np.exp(logits - logits.max())
                probs2 /= probs2.sum()
                weight = probs1[0, a0] * probs1[1, a1] / 4
                total += weight * probs2 @ PAYOFF[c1, c2, u1]
        assert got[run] == pytest.approx(total, rel=1e-5)


@pytest.mark.parametrize("method", list(METHODS))
def test_each_learner_learns_in_a_short_run(method):
    curves = train_matrix(method, runs=2, seed=1, settings=SHORT)
    start, end = curves.expected[:, 0], curves.expected[:, -1]
    assert end.mean() > start.mean() + 1.0  # from about 4 (random play) towards 8-10
    assert curves.batch_reward.shape == curves.expected.shape == (2, 3)
    assert curves.episodes.tolist() == [0, 100, 200]


def test_runs_are_seeded_and_independent_of_each_other():
    a = train_matrix("bad_cf", runs=3, seed=5, settings=TINY)
    b = train_matrix("bad_cf", runs=3, seed=5, settings=TINY)
    np.testing.assert_array_equal(a.expected, b.expected)
    alone = train_matrix("bad_cf", runs=1, seed=5, settings=TINY, first_run=2)
    np.testing.assert_allclose(alone.expected[0], a.expected[2], rtol=1e-5)
    other = train_matrix("bad_cf", runs=3, seed=6, settings=TINY)
    assert not np.array_equal(other.expected, a.expected)


def test_reproduce_figure3_writes_and_reuses(tmp_path, monkeypatch):
    tiny = MatrixSettings(episodes=20, readings=2)
    summary = reproduce_figure3(tmp_path, runs=2, seed=0, settings=tiny)
    for name in ("figure3.png", "summary.json", "curves.npz", "curves.json"):
        assert (tmp_path / name).stat().st_size > 0
    assert set(summary["final"]) == set(METHODS)
    assert (summary["optimal_value"], summary["safe_value"]) == (10, 8)
    assert set(load_curves(tmp_path, runs=2, seed=0, settings=tiny)) == set(METHODS)
    assert load_curves(tmp_path, runs=3, seed=0, settings=tiny) == {}

    def no_training(*args, **kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr("agents.bad.matrix_train.train_matrix", no_training)
    again = reproduce_figure3(tmp_path, runs=2, seed=0, settings=tiny)
    assert again == summary


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"method": "ppo"}, "method"), ({"runs": 0}, "runs"), ({"device": "tpu"}, "device")],
)
def test_train_matrix_refuses_bad_arguments(kwargs, name):
    args = {"method": "bad", "runs": 1, "settings": SHORT, **kwargs}
    with pytest.raises(ValueError, match=name):
        train_matrix(**args)


def test_settings_refuse_bad_values():
    with pytest.raises(ValueError, match="readings"):
        MatrixSettings(episodes=10, readings=11)
    with pytest.raises(ValueError, match="lr"):
        MatrixSettings(lr=0)
    with pytest.raises(TypeError, match="lr"):
        MatrixSettings(lr="0.1")

"""Training BAD and its baseline on small Hanabi: files, seeding, resumption, the study."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="training needs torch (the bad extra)")

from agents.bad._io import read_npz  # noqa: E402 - after the importorskip
from agents.bad.net import NumpyNet, torch_net  # noqa: E402
from agents.bad.policy import BADPolicy  # noqa: E402
from agents.bad.study import hanabi_study  # noqa: E402
from agents.bad.train import TrainSettings, train  # noqa: E402

TINY = {
    "preset": "Hanabi-Very-Small",
    "batch": 4,
    "rollout": 4,
    "hidden": 16,
    "chunk": 2,
    "eval_games": 4,
}


def weights(folder):
    return read_npz(folder / "agent.npz")


@pytest.mark.parametrize("learner", ["bad", "baseline"])
def test_a_run_writes_its_agent_and_is_seeded(tmp_path, learner):
    s = TrainSettings(learner=learner, steps=64, **TINY)
    result = train(s, tmp_path / "a", seed=3)
    assert result["steps"] == 64 == s.updates * 4 * 4
    assert [row["steps"] for row in result["curve"]] == [32, 64]
    assert result["greedy"]["games"] == result["sampled"]["games"] == 4
    agent = BADPolicy.load(tmp_path / "a" / "agent.json")
    assert agent.meta["provenance"]["seed"] == 3
    assert agent.bayesian == (learner == "bad")
    again = train(s, tmp_path / "b", seed=3)
    for k, v in weights(tmp_path / "a").items():
        np.testing.assert_array_equal(v, weights(tmp_path / "b")[k])
    assert again["curve"][-1]["mean_score"] == result["curve"][-1]["mean_score"] or np.isnan(
        result["curve"][-1]["mean_score"]
    )
    other = train(s, tmp_path / "c", seed=4)
    assert not np.array_equal(weights(tmp_path / "c")["w_pub"], weights(tmp_path / "a")["w_pub"])
    assert other["seed"] == 4


def test_a_run_resumes_and_continues_exactly(tmp_path):
    straight = TrainSettings(steps=96, **TINY)
    train(straight, tmp_path / "straight", seed=1)
    train(TrainSettings(steps=32, **TINY), tmp_path / "resumed", seed=1)  # one chunk ...
    result = train(straight, tmp_path / "resumed", seed=1)  # ... continued to three
    for k, v in weights(tmp_path / "straight").items():
        np.testing.assert_array_equal(v, weights(tmp_path / "resumed")[k], err_msg=k)
    assert len(result["curve"]) == 3
    with pytest.raises(ValueError, match="other settings"):
        train(TrainSettings(steps=96, **{**TINY, "hidden": 8}), tmp_path / "resumed", seed=1)
    with pytest.raises(ValueError, match="more than steps"):
        train(TrainSettings(steps=32, **TINY), tmp_path / "resumed", seed=1)


def test_numpy_and_torch_networks_agree():
    s = TrainSettings(**TINY)
    net = torch_net(s.shapes(), seed=0)
    lay = s.layout
    rng = np.random.default_rng(0)
    pub = rng.random((3, lay.pub_dim)).astype(np.float32)
    priv = rng.random((5, lay.priv_dim)).astype(np.float32)
    game = np.array([0, 1, 2, 2, 0])
    logits, value = net(torch.tensor(pub[game]), torch.tensor(priv))
    params = {k: v.detach().numpy() for k, v in net.params.items()}
    for dtype in (np.float32, np.float64):
        np_net = NumpyNet(params, dtype)
        np.testing.assert_allclose(np_net.logits(pub, priv, game), logits.detach(), rtol=1e-5,
                                   atol=1e-6)  # fmt: skip
        np.testing.assert_allclose(np_net.value(pub, priv, game), value.detach(), rtol=1e-5,
                                   atol=1e-6)  # fmt: skip


def test_study_compares_learners_over_seeds(tmp_path):
    summary = hanabi_study(tmp_path, TrainSettings(steps=32, **TINY), seeds=(0, 1))
    assert set(summary["learners"]) == {"bad", "baseline"}
    row = summary["learners"]["bad"]
    assert len(row["greedy_per_seed"]) == 2
    assert row["greedy_mean"] == pytest.approx(np.mean(row["greedy_per_seed"]))
    assert (tmp_path / "learning_curves.png").stat().st_size > 0
    assert json.loads((tmp_path / "summary.json").read_text())["seeds"] == [0, 1]
    assert (tmp_path / "baseline-seed1" / "agent.json").is_file()


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"preset": "Hanabi-Full"}, "preset"), ({"learner": "ppo"}, "learner"), ({"lr": -1}, "lr")],
)
def test_settings_refuse_bad_values(kwargs, name):
    with pytest.raises(ValueError, match=name):
        TrainSettings(**kwargs)

"""RL fine-tuning from a cloned start (agents.rl.finetune): outputs, resume, teacher, pools."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import agents
from hanabi_env.config import HanabiConfig
from hanabi_env.outputs import ResultFileError

torch = pytest.importorskip("torch", reason="fine-tuning needs torch (the rl extra)")

from agents.rl.finetune import CURVE_FIELDS, PPOSettings, finetune  # noqa: E402

SMALL = {"ppo": PPOSettings(envs=4, n_steps=32, epochs=2, minibatches=2, checkpoint_every=1)}


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    """A tiny clone of IGGI (one hidden layer of 32), the start of every run here."""
    from agents.clone import export_clone, play_demonstrations, train_clone

    folder = tmp_path_factory.mktemp("start")
    demos = play_demonstrations("iggi", 40, config=HanabiConfig(players=2, scoring="lenient"))
    result = train_clone(demos, hidden=(32,), epochs=3, seed=0, learning_rate=3e-3)
    export_clone(result, demos, folder / "iggi-clone.json", name="iggi-clone")
    return folder / "iggi-clone.json"


def _weights(path) -> list[np.ndarray]:
    doc = json.loads(path.read_text())
    with np.load(path.parent / doc["weights"]["file"], allow_pickle=False) as z:
        return [z[n] for n in doc["weights"]["arrays"]]


def _curves(folder) -> list[dict]:
    with open(folder / "curves.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_outputs_load_as_a_partner_with_provenance(start, tmp_path):
    out = tmp_path / "run"
    result = finetune(start, 300, out, seed=3, **SMALL)
    assert result.steps == 384  # rounded up to whole rollouts of 4 x 32
    for name in ("curves.csv", "curves.png", "checkpoint.json", "checkpoint.npz",
                 "finetuned.json", "finetuned.npz", "manifest.json"):  # fmt: skip
        assert (out / name).is_file(), name
    rows = _curves(out)
    assert [int(r["steps"]) for r in rows] == [128, 256, 384]
    assert list(rows[0]) == list(CURVE_FIELDS)
    doc = json.loads((out / "finetuned.json").read_text())
    training = doc["training"]
    assert (
        training["start"]["sha256"] == __import__("hashlib").sha256(start.read_bytes()).hexdigest()
    )
    assert training["steps"] == 384
    assert training["seed"] == 3
    assert training["cpu_seconds"] > 0
    partner = agents.make(f"rl:{out / 'finetuned.json'}")
    before = _weights(start)
    after = _weights(out / "finetuned.json")
    assert any(not np.allclose(a.astype(np.float32), b) for a, b in zip(before, after, strict=True))
    assert partner.logits(np.zeros((1, before[0].shape[1]))).shape == (1, 20)
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"curves.csv", "finetuned.json", "finetuned.npz"} <= set(manifest["payload"]["files"])


def test_resume_gives_the_uninterrupted_run(start, tmp_path):
    kw = {"seed": 5, "other_play": True, "teacher_coef": 0.3, **SMALL}
    whole = finetune(start, 384, tmp_path / "whole", **kw)
    finetune(start, 128, tmp_path / "parts", **kw)
    with pytest.raises(ValueError, match="holds a fine-tuning run already"):
        finetune(start, 384, tmp_path / "parts", **kw)
    resumed = finetune(start, 384, tmp_path / "parts", resume=True, **kw)
    assert resumed.steps == whole.steps == 384
    for a, b in zip(_weights(whole.path), _weights(resumed.path), strict=True):
        np.testing.assert_array_equal(a, b)
    drop = lambda rows: [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rows]  # noqa: E731
    assert drop(_curves(tmp_path / "whole")) == drop(_curves(tmp_path / "parts"))
    with pytest.raises(ResultFileError, match="other settings"):
        finetune(start, 512, tmp_path / "parts", resume=True, **{**kw, "seed": 6})


def test_the_teacher_term_changes_the_result(start, tmp_path):
    plain = finetune(start, 256, tmp_path / "plain", seed=1, **SMALL)
    held = finetune(start, 256, tmp_path / "held", seed=1, teacher_coef=5.0, **SMALL)
    same = all(
        np.array_equal(a, b) for a, b in zip(_weights(plain.path), _weights(held.path), strict=True)
    )
    assert not same
    assert [r["teacher_coef"] for r in held.curves] == [5.0, 5.0]
    # the same deals: the first rollout is the same, its update differs
    assert plain.curves[0]["episodes"] == held.curves[0]["episodes"]
    decayed = finetune(start, 256, tmp_path / "decay", seed=1, teacher_coef=1.0,
                       teacher_decay_steps=256, **SMALL)  # fmt: skip
    assert [r["teacher_coef"] for r in decayed.curves] == [1.0, 0.5]


def test_a_pool_of_any_agents_and_an_agent_teacher(start, tmp_path):
    result = finetune(start, 128, tmp_path / "pool", partners=["smartbot", "piers"],
                      teacher="iggi", teacher_coef=1.0, other_play=True, **SMALL)  # fmt: skip
    row = result.curves[0]
    assert 0.0 <= row["teacher_agreement"] <= 1.0
    assert np.isnan(row["teacher_kl"])  # an agent teacher: its moves, no distribution
    doc = json.loads(result.path.read_text())
    assert doc["training"]["settings"]["partners"] == ["smartbot", "piers"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"steps": 0}, ValueError, "steps"),
        ({"ppo": PPOSettings}, TypeError, "ppo"),
        ({"ppo": {"envs": 4}}, TypeError, "PPOSettings"),
        ({"teacher_coef": -1.0}, ValueError, "teacher_coef"),
        ({"teacher": "iggi"}, ValueError, "teacher_coef"),
        ({"partners": "piers"}, TypeError, "partners"),
        ({"partners": ["self", "piers"]}, ValueError, "self"),
        ({"partners": ["no-such-agent"]}, ValueError, "no-such-agent"),
        ({"name": "a/b"}, ValueError, "name"),
        ({"resume": True}, ValueError, "no checkpoint"),
    ],
)
def test_bad_arguments_are_named(start, tmp_path, kwargs, error, match):
    kw = {"steps": 64, **SMALL, **kwargs}
    with pytest.raises(error, match=match):
        finetune(start, out=tmp_path / "x", **kw)


@pytest.mark.parametrize(
    ("field", "bad", "error", "allowed"),
    [
        ("envs", 0, ValueError, "[1, 4096]"),
        ("envs", 4097, ValueError, "[1, 4096]"),
        ("envs", 4.0, TypeError, "an int"),
        ("n_steps", 1, ValueError, "[2, 100000]"),
        ("epochs", 0, ValueError, "[1, 1000]"),
        ("minibatches", 10_001, ValueError, "[1, 10000]"),
        ("checkpoint_every", 0, ValueError, "[1, 1000000000]"),
        ("critic_warmup", -1, ValueError, "[0, 1000000000]"),
        ("critic_warmup", True, TypeError, "an int"),
        ("learning_rate", 0.0, ValueError, "> 0"),
        ("learning_rate", "1e-4", TypeError, "a number"),
        ("gamma", 1.5, ValueError, "[0.0, 1.0]"),
        ("gae_lambda", -0.1, ValueError, "[0.0, 1.0]"),
        ("clip_range", 0.0, ValueError, "> 0"),
        ("ent_coef", -0.01, ValueError, ">= 0"),
        ("vf_coef", float("nan"), ValueError, "finite"),
        ("max_grad_norm", 0.0, ValueError, "> 0"),
        ("max_grad_norm", None, TypeError, "a number"),
    ],
)
def test_bad_ppo_settings_are_named_when_made(field, bad, error, allowed):
    with pytest.raises(error) as caught:
        PPOSettings(**{field: bad})
    message = str(caught.value)
    assert message.startswith(f"{field}=" if error is ValueError else f"{field} must be")
    assert allowed in message


def test_ppo_settings_store_plain_types_and_are_frozen():
    ppo = PPOSettings(envs=np.int64(3), learning_rate=1, gamma=np.float32(0.5))
    assert (type(ppo.envs), type(ppo.learning_rate), type(ppo.gamma)) == (int, float, float)
    assert (ppo.envs, ppo.learning_rate, ppo.gamma, ppo.rollout_steps) == (3, 1.0, 0.5, 192)
    assert PPOSettings() == PPOSettings(envs=16, n_steps=64, clip_range=0.2)
    with pytest.raises(AttributeError):
        ppo.envs = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        PPOSettings(4)  # type: ignore[misc]  # keywords only


def test_a_start_that_is_not_a_partner_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(ValueError, match=r"bad\.json"):
        finetune(bad, 64, tmp_path / "x", **SMALL)
    with pytest.raises(ValueError, match="start="):
        finetune(tmp_path / "missing.json", 64, tmp_path / "x", **SMALL)

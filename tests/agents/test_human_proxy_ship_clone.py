"""tools/ship_clone.py (docs/human_proxies.md §4), run as a user runs it, at tiny scale.

A small clone written as ``hanabi-adhoc clone`` writes one (``agents.clone.export_clone`` of
a tiny network) is shipped into a scratch folder: the partner there carries what a shipped
partner must (tests/agents/test_rl_partners.py), its measurements agree with
``agents.evaluate.evaluate`` on the same seed, and it loads and replays its check.
"""

from __future__ import annotations

import importlib.util
import itertools
import json

import numpy as np
import pytest

from agents.clone import CloneResult, export_clone, record_demonstrations
from agents.evaluate import evaluate
from agents.rl import load_partner
from agents.rl.partners import self_play_record
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame
from hanabi_env.records import hanablive_end, to_hanablive
from tests.helpers import ROOT, run_python

TOOL = str(ROOT / "tools" / "ship_clone.py")


def _random_mlp(sizes: list[int], seed: int) -> list[np.ndarray]:
    """``[w0, b0, ...]`` of an MLP with these layer sizes: random weights, zero biases."""
    rng = np.random.default_rng(seed)
    arrays = []
    for a, b in itertools.pairwise(sizes):
        arrays += [rng.normal(0, 0.3, (b, a)).astype(np.float32), np.zeros(b, np.float32)]
    return arrays


def _clone(tmp_path):
    """A tiny clone (random weights) of records of random games, and its records' provenance."""
    records = []
    for seed in range(3):
        game = HanabiGame(HanabiConfig(players=2))
        game.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_terminal and hanablive_end(game) is None:
            game.step(int(rng.choice(np.flatnonzero(game.legal_mask()))))
        records.append(to_hanablive(game))
    demos = record_demonstrations(records)
    arrays = _random_mlp([demos.obs_size, 8, 20], seed=0)
    settings = {"hidden": [8], "activation": "relu", "epochs": 3, "batch_size": 64,
                "learning_rate": 1e-3, "holdout": 0.0, "seed": 4, "decisions": len(demos),
                "train_decisions": len(demos), "holdout_decisions": 0}  # fmt: skip
    result = CloneResult(arrays, "relu", [], settings)
    path = tmp_path / "runs" / "tiny.json"
    path.parent.mkdir()
    export_clone(result, demos, path, name="tiny")
    prov = tmp_path / "provenance.json"
    prov.write_text(json.dumps({"bot_commit": "c" * 40, "level": 1, "valid": 3,
                                "mean_score": 7.5, "games": 3}))  # fmt: skip
    return path, prov, len(demos)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the export check: torch")
def test_a_clone_is_shipped_with_its_provenance_and_measurements(tmp_path):
    clone, prov, decisions = _clone(tmp_path)
    dest = tmp_path / "partners"
    args = [TOOL, "--clone", str(clone), "--name", "clone-tiny", "--records-provenance",
            str(prov), "--clone-command", "hanabi-adhoc clone --records r.json --out x.json",
            "--clone-wall-s", "12.5", "--clone-cpu-s", "20", "--games", "30",
            "--partner-games", "6", "--partners", "IGGI", "--seed", "2",
            "--dest", str(dest)]  # fmt: skip
    proc = run_python(args, cwd=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in dest.iterdir()) == ["clone-tiny.json", "clone-tiny.npz"]
    assert (dest / "clone-tiny.npz").read_bytes() == clone.with_suffix(".npz").read_bytes()
    cfg = json.loads((dest / "clone-tiny.json").read_text())
    assert cfg["name"] == "clone-tiny"
    assert cfg["weights"]["file"] == "clone-tiny.npz"
    training = cfg["training"]
    assert training["command"].startswith("hanabi-adhoc clone --records r.json --out x.json && ")
    assert "clone-tiny" in training["command"]
    assert (training["seed"], training["wall_s"], training["cpu_s"]) == (4, 12.5, 20.0)
    assert training["steps"] == 3 * -(-decisions // 64)
    assert len(training["commit"]) == 40
    assert training["records"] == [json.loads(prov.read_text())]
    check = cfg["export_check"]
    assert check["same_moves"] == check["observations"] > 1000

    partner = load_partner(str(dest / "clone-tiny.json"))
    mirror = evaluate(partner, "mirror", players=[2], games=30, seed=2, workers=1).rows[0]
    assert cfg["self_play"]["games"] == 30
    assert cfg["self_play"]["mean"] == pytest.approx(mirror["mean"], abs=1e-3)
    assert cfg["self_play"]["sem"] == pytest.approx(mirror["sem"], abs=1e-3)
    mixed = evaluate(partner, "mixed", players=[2], games=6, pool=["IGGI"], seed=2, workers=1)
    assert cfg["with_partners"]["IGGI"]["mean"] == pytest.approx(mixed.rows[0]["mean"], abs=1e-3)
    assert cfg["with_partners"]["records_mean"] == 7.5
    assert self_play_record(partner, cfg["check"]["games"], cfg["check"]["seed"]) == cfg["check"]


def test_a_bad_option_is_one_error_line(tmp_path):
    args = [TOOL, "--clone", str(tmp_path / "none.json"), "--name", "x", "--records-provenance",
            str(tmp_path / "p.json"), "--clone-command", "c", "--clone-wall-s", "-1",
            "--clone-cpu-s", "1"]  # fmt: skip
    proc = run_python(args, cwd=tmp_path, timeout=600)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "--clone-wall-s" in proc.stderr
    assert "-1.0 is not allowed" in proc.stderr
    proc = run_python([*args[:-3], "1", "--clone-cpu-s", "1"], cwd=tmp_path, timeout=600)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ")
    assert "none.json" in proc.stderr


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the export check: torch")
def test_a_clone_of_a_teachers_games_at_3_players_needs_no_records(tmp_path):
    """A clone of SimpleBot's own games (its JSON names the teacher) at 3 players."""
    from agents.clone import play_demonstrations

    demos = play_demonstrations("simplebot", 3, config=HanabiConfig(players=3, scoring="lenient"))
    arrays = _random_mlp([demos.obs_size, 8, demos.legal.shape[1]], seed=1)
    settings = {"hidden": [8], "activation": "relu", "epochs": 2, "batch_size": 32,
                "learning_rate": 1e-3, "holdout": 0.0, "seed": 5, "decisions": len(demos),
                "train_decisions": len(demos), "holdout_decisions": 0}  # fmt: skip
    clone = tmp_path / "runs" / "simple3.json"
    clone.parent.mkdir()
    export_clone(CloneResult(arrays, "relu", [], settings), demos, clone, name="simple3")
    dest = tmp_path / "partners"
    args = [TOOL, "--clone", str(clone), "--name", "clone-simple3", "--clone-command",
            "hanabi-adhoc clone simplebot --players 3 --out x.json", "--clone-wall-s", "1",
            "--clone-cpu-s", "1", "--games", "20", "--partner-games", "4", "--partners",
            "IGGI", "--dest", str(dest)]  # fmt: skip
    proc = run_python(args, cwd=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr
    cfg = json.loads((dest / "clone-simple3.json").read_text())
    assert cfg["game"]["players"] == 3
    assert "records" not in cfg["training"]
    teacher_mean = float(demos.scores.mean())
    assert cfg["with_partners"]["teacher_mean"] == pytest.approx(teacher_mean, abs=1e-3)
    assert cfg["export_check"]["same_moves"] == cfg["export_check"]["observations"]
    partner = load_partner(str(dest / "clone-simple3.json"))
    mirror = evaluate(partner, "mirror", players=[3], games=20, seed=0, workers=1).rows[0]
    assert cfg["self_play"]["mean"] == pytest.approx(mirror["mean"], abs=1e-3)
    mixed = evaluate(partner, "mixed", players=[3], games=4, pool=["IGGI"], seed=0, workers=1)
    assert cfg["with_partners"]["IGGI"]["mean"] == pytest.approx(mixed.rows[0]["mean"], abs=1e-3)

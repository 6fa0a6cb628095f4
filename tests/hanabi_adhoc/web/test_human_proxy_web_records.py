"""A human proxy from the records the browser app writes (issue 44 item 4; docs/human_proxies.md).

A person (random legal moves) plays a short session with Piers through the app's session API;
the hanab.live records are downloaded as the page downloads them; ``hanabi-adhoc clone
--records`` (a real process: ``record_demonstrations`` + a one-epoch ``train_clone`` of a tiny
network) learns from them; the partner it writes loads and plays without torch.
"""

from __future__ import annotations

import importlib.util
import json
import random

import pytest

pytest.importorskip("flask", reason="the browser app needs Flask: pip install '.[web]'")

from tests.hanabi_adhoc.web.helpers import make_app, play_session
from tests.helpers import ROOT, run_python

GAMES = 3


def _records_of_a_session(tmp_path) -> list:
    """The session's records, downloaded from the app, saved as the browser saves them."""
    client = make_app(tmp_path / "web").test_client()
    response = client.post("/api/sessions", json={"partners": ["Piers"], "games": GAMES,
                                                  "seed": 11})  # fmt: skip
    assert response.status_code == 201, response.json
    final = play_session(client, response.json, random.Random(5))
    assert final["phase"] == "done"
    paths = []
    for game in range(1, GAMES + 1):
        got = client.get(f"/api/records/{final['session']}/{game}/hanablive")
        assert got.status_code == 200
        path = tmp_path / "downloads" / f"game{game}.hanablive.json"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(got.data)
        paths.append(path)
    return paths


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="clone needs torch")
def test_clone_learns_from_the_browser_apps_records_and_the_partner_plays(tmp_path):
    paths = _records_of_a_session(tmp_path)
    records = [json.loads(p.read_text()) for p in paths]
    decisions = sum(len(r["actions"]) for r in records)
    assert all(r["players"] == ["You", "Piers"] for r in records)
    out = tmp_path / "proxy" / "people.json"
    args = ["-m", "hanabi_adhoc", "clone"]
    for path in paths:
        args += ["--records", str(path)]
    args += ["--hidden", "16", "--epochs", "1", "--batch-size", "32", "--holdout", "0.34",
             "--out", str(out), "--quiet"]  # fmt: skip
    proc = run_python(args, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert f"demonstrations: {decisions} decisions from {GAMES} games" in proc.stdout
    epoch = [line for line in proc.stdout.splitlines() if line.startswith("epoch 1:")]
    assert len(epoch) == 1
    assert "held-out games" in epoch[0]
    assert out.is_file()
    assert out.with_suffix(".npz").is_file()

    config = json.loads(out.read_text())
    assert config["architecture"]["layers"][1:] == [16, 20]
    teacher = config["training"]["teacher"]
    assert teacher["kind"] == "hanab.live records"
    assert (teacher["games"], teacher["skipped"]) == (GAMES, 0)
    assert teacher["files"] == [str(p) for p in paths]
    settings = config["training"]["settings"]
    assert settings["decisions"] == decisions
    assert settings["holdout_decisions"] > 0
    assert settings["train_decisions"] + settings["holdout_decisions"] == decisions

    # the partner loads and plays, in an interpreter where torch cannot be imported
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import agents\n"
        f"clone = agents.make('rl:{out}')\n"
        "res = agents.play([clone, agents.make('piers')], games=4, seed=2)\n"
        "print(len(res.scores), all(0 <= s <= 25 for s in res.scores))\n"
    )
    played = run_python(["-c", code], cwd=ROOT, timeout=600)
    assert played.returncode == 0, played.stderr
    assert played.stdout.split() == ["4", "True"]

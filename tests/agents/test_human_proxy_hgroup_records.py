"""tools/hgroup_records.py (docs/human_proxies.md §3), run as a user runs it.

The real bot (WillFlame14/hanabi-bot, Node >= 22) is not part of the project, so the runs here
use a stand-in ``node``: a small program that answers ``--version`` and, called as the tool calls
the bot, writes hanab.live records of games played on this engine into ``seeds/<seed>.json``,
one of them without the end-game action the bot appends. The tool's preload module (the
offline answer to the bot's two downloads) is run on the system's own node when there is one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hanabi_env.records import from_hanablive
from tests.helpers import ROOT, run_python

TOOL = str(ROOT / "tools" / "hgroup_records.py")

FAKE_NODE = """#!{python}
import json, os, sys
from pathlib import Path
import numpy as np
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame
from hanabi_env.records import hanablive_end, to_hanablive

if sys.argv[1:] == ["--version"]:
    print("{version}")
    sys.exit(0)
assert sys.argv[1] == "--import" and sys.argv[2].startswith("file://"), sys.argv
files = json.loads(os.environ["HGROUP_OFFLINE_FILES"])
assert sorted(files) == ["suits.json", "variants.json"]
assert all(Path(p).is_file() for p in files.values())
opts = dict(a.split("=") for a in sys.argv[4:])
with open(os.environ["FAKE_NODE_LOG"], "a") as fh:
    fh.write(json.dumps(opts) + "\\n")
first, games, players = int(opts["seed"]), int(opts["games"]), int(opts["players"])
Path("seeds").mkdir(exist_ok=True)
for i in range(first, first + games):
    game = HanabiGame(HanabiConfig(players=players))
    game.reset(seed=i)
    rng = np.random.default_rng(i)
    while not game.is_terminal and hanablive_end(game) is None:
        game.step(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    record = to_hanablive(game)
    del record["hanabi_adhoc"]
    record["notes"] = [["a note"] for _ in range(players)]
    if i % 5 != 2:  # the bot appends the end-game action; seed 2, 7, ... lack it
        record["actions"].append({{"type": 4, "target": 0, "value": 1}})
    Path(f"seeds/{{i}}.json").write_text(json.dumps(record))
"""


def _fake_bot(tmp_path: Path, version: str = "v22.6.0") -> tuple[Path, Path, Path, Path]:
    """A stand-in checkout and node, and the two hanab.live JSON files."""
    bot = tmp_path / "hanabi-bot"
    (bot / "src").mkdir(parents=True, exist_ok=True)
    (bot / "src" / "self-play.js").write_text("// stand-in\n")
    (bot / "LICENSE").write_text("GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007\n")
    node = tmp_path / "node"
    node.write_text(FAKE_NODE.format(python=sys.executable, version=version))
    node.chmod(0o755)
    variants, suits = tmp_path / "variants.json", tmp_path / "suits.json"
    variants.write_text(json.dumps([{"name": "No Variant", "suits": ["Red"]}]))
    suits.write_text(json.dumps([{"name": "Red", "abbreviation": "R"}]))
    return bot, node, variants, suits


def _run(tmp_path: Path, *extra: str, version: str = "v22.6.0"):
    bot, node, variants, suits = _fake_bot(tmp_path, version)
    args = [TOOL, "--bot", str(bot), "--node", str(node), "--variants-json", str(variants),
            "--suits-json", str(suits), "--bot-commit", "ab" * 20, *extra]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT), FAKE_NODE_LOG=str(tmp_path / "calls.log"))
    return run_python(args, cwd=tmp_path, timeout=600, env=env)


def _calls(tmp_path: Path) -> list[dict]:
    log = tmp_path / "calls.log"
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def test_records_are_collected_checked_and_resumed(tmp_path):
    out = tmp_path / "out"
    args = ("--games", "7", "--seed", "10", "--chunk", "3", "--level", "3", "--out", str(out))
    proc = _run(tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    calls = _calls(tmp_path)
    assert [(c["seed"], c["games"]) for c in calls] == [("10", "3"), ("13", "3"), ("16", "1")]
    assert {(c["level"], c["players"], c["convention"]) for c in calls} == {("3", "2", "HGroup")}
    assert {p.name for p in out.iterdir()} == {"records.json", "invalid.json", "provenance.json",
                                               "work"}  # fmt: skip
    records = json.loads((out / "records.json").read_text())
    invalid = json.loads((out / "invalid.json").read_text())
    assert [r["seed"] for r in invalid] == [12]  # 12 % 5 == 2: no end-game action
    assert "end-game action" in invalid[0]["reason"]
    assert len(records) == 6
    scores = []
    for record in records:
        assert "notes" not in record
        assert record["actions"][-1]["type"] == 4
        scores.append(from_hanablive(record).score)
    prov = json.loads((out / "provenance.json").read_text())
    assert (prov["games"], prov["valid"], prov["invalid"]) == (7, 6, 1)
    assert (prov["level"], prov["players"], prov["seeds"]) == (3, 2, [10, 16])
    assert prov["bot_commit"] == "ab" * 20
    assert prov["played_now"] == 7
    assert prov["bot_license"] == "GPL-3.0"
    assert prov["node_version"] == "v22.6.0"
    assert prov["mean_score"] == pytest.approx(sum(scores) / len(scores), abs=1e-4)
    assert prov["command"].startswith("python tools/hgroup_records.py --bot ")
    assert "--games 7" in prov["command"]
    for name in ("variants_json_sha256", "suits_json_sha256", "date", "bot_repository"):
        assert prov[name]
    assert "6 valid, 1 invalid of 7 games" in proc.stdout

    (out / "work" / "seeds" / "14.json").unlink()  # resume: only the missing game is played
    proc = _run(tmp_path, *args, "--keep-notes")
    assert proc.returncode == 0, proc.stderr
    assert [(c["seed"], c["games"]) for c in _calls(tmp_path)[3:]] == [("14", "2")]
    assert all("notes" in r for r in json.loads((out / "records.json").read_text()))


@pytest.mark.parametrize(
    ("extra", "version", "words"),
    [
        (("--level", "12"), "v22.6.0", "--level 12 is not allowed; allowed: 1 to 11"),
        (("--players", "6"), "v22.6.0", "--players 6 is not allowed; allowed: 2 to 5"),
        (("--games", "0"), "v22.6.0", "argument --games: 0 is not allowed"),
        ((), "v20.20.2", "is v20.20.2; allowed: v22 or later"),
    ],
)
def test_bad_options_are_one_error_line(tmp_path, extra, version, words):
    proc = _run(tmp_path, "--out", str(tmp_path / "out"), *extra, version=version)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("error: ")
    assert words in proc.stderr
    assert not (tmp_path / "out").exists()
    assert _calls(tmp_path) == []


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on PATH")
def test_preload_answers_the_bots_downloads_from_the_local_files(tmp_path):
    """The preload module, in a real node: https.get of the two URLs reads the local files."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import hgroup_records
    finally:
        sys.path.remove(str(ROOT / "tools"))
    preload = tmp_path / "offline.mjs"
    preload.write_text(hgroup_records.PRELOAD)
    variants = tmp_path / "v.json"
    variants.write_text('[{"name": "No Variant"}]')
    script = tmp_path / "get.mjs"
    script.write_text(
        "import * as https from 'https';\n"
        "https.get('https://raw.githubusercontent.com/x/variants.json', (res) => {\n"
        "  let data = ''; res.setEncoding('utf8');\n"
        "  res.on('data', (c) => { data += c; });\n"
        "  res.on('end', () => console.log(res.statusCode, JSON.parse(data)[0].name));\n"
        "}).on('error', () => process.exit(3));\n"
    )
    env = dict(os.environ, HGROUP_OFFLINE_FILES=json.dumps({"variants.json": str(variants)}))
    cmd = ["node", "--import", preload.as_uri(), str(script)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "200 No Variant"

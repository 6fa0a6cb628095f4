"""Every example runs with tiny settings (subprocess, from a temporary working directory)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_python

ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str, *args: str, tmp_path: Path) -> str:
    proc = run_python([str(ROOT / "examples" / name), *args], tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_pettingzoo_loop(tmp_path):
    out = run_example("pettingzoo_loop.py", "--games", "2", "--players", "3", tmp_path=tmp_path)
    lines = [ln for ln in out.splitlines() if ln.startswith("game ")]
    assert len(lines) == 2
    for ln in lines:
        score = int(re.search(r"score\s+(\d+)", ln).group(1))
        assert 0 <= score <= 25
        assert ln.count("comm ") == 3


def test_custom_policy(tmp_path):
    out = run_example("custom_policy.py", "--games", "10", tmp_path=tmp_path)
    m = re.search(r"10 games with Piers: ([\d.]+) ±", out)
    assert m is not None
    assert 0.0 <= float(m.group(1)) <= 25.0
    assert "one AEC game with Piers: score" in out


def test_map_elites_small(tmp_path):
    out = run_example(
        "map_elites_small.py",
        "--candidates", "100", "--games", "4", "--workers", "1", "--out", "me",
        tmp_path=tmp_path,
    )  # fmt: skip
    m = re.search(r"coverage (\d+)/9", out)
    assert m is not None
    assert 1 <= int(m.group(1)) <= 9
    assert out.count("cell [") == int(m.group(1))
    for name in ("archive.json", "elites.csv", "summary.json", "heatmap.png"):
        assert (tmp_path / "me" / name).exists(), name


def test_meta_agent_episode(tmp_path):
    out = run_example(
        "meta_agent_episode.py", "--games", "3", "--train-games", "4", tmp_path=tmp_path
    )
    games = [ln for ln in out.splitlines() if ln.startswith("game ")]
    assert len(games) == 3
    # the first game is played on the uniform prior: every belief equals 1/|H|
    n_h = int(re.match(r"(\d+) hypotheses", out).group(1))
    first = [float(x) for x in re.findall(r"\] (\d\.\d\d)", games[0])]
    assert first
    assert all(abs(b - 1.0 / n_h) < 0.006 for b in first)
    assert "true partner [2,3]: belief" in out


def test_llm_agent(tmp_path):
    out = run_example("llm_agent.py", "--deals", "1", tmp_path=tmp_path)
    m = re.search(r"replies (\d+): unparsable (\d+), illegal (\d+), fallback moves (\d+)", out)
    assert m is not None, out
    replies, unparsable, illegal, fallbacks = (int(x) for x in m.groups())
    assert replies > 0
    assert unparsable + illegal > 0  # the toy model rambles now and then: the parser counts it
    assert fallbacks <= unparsable + illegal
    assert "toy-llm with the test pool: mean score" in out


@pytest.mark.parametrize("bad", [["--games", "x"]])
def test_examples_reject_bad_arguments(tmp_path, bad):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "pettingzoo_loop.py"), *bad],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "invalid int value" in proc.stderr

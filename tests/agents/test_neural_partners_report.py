"""tools/neural_partners_report.py (docs/rl_partners.md §8), run as a user runs it, at tiny scale.

Its numbers agree with :func:`agents.evaluate.evaluate` on the same seed; the cross-play ratios
come from a ``tools/bots_crossplay.py`` run of the same partners; bad options are one line.
"""

from __future__ import annotations

import csv
import json

import pytest

from agents.evaluate import evaluate
from tests.helpers import ROOT, run_python

TOOL = str(ROOT / "tools" / "neural_partners_report.py")
CROSS = str(ROOT / "tools" / "bots_crossplay.py")
PAIR = ("rl:ppo-sp1", "rl:clone-hgroup-l1")


def test_rows_agree_with_evaluate_and_ratios_with_the_crossplay_table(tmp_path):
    xplay = tmp_path / "xplay"
    proc = run_python([CROSS, "--games", "3", "--players", "2", "--agents", ",".join(PAIR),
                       "--workers", "1", "--seed", "4", "--out", str(xplay)],
                      cwd=ROOT, timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "report.json"
    proc = run_python([TOOL, "--partners", ",".join(PAIR), "--games", "3", "--seed", "4",
                       "--crossplay", str(xplay), "--out", str(out)],
                      cwd=ROOT, timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert list(report["partners"]) == list(PAIR)
    for spec, row in report["partners"].items():
        mirror = evaluate(spec, "mirror", players=[2], games=3, seed=4, workers=1).rows[0]
        assert row["self_play"]["mean"] == pytest.approx(mirror["mean"], abs=1e-3)
        assert row["ipp"] == pytest.approx(mirror["ipp"], abs=1e-4)
        pool = evaluate(spec, "mixed", players=[2], games=3, pool=["smartbot"], seed=4,
                        workers=1).rows[0]  # fmt: skip
        members = row["strong_bots"]["members"]
        assert len(members) == 5
        assert members["SmartBot"]["mean"] == pytest.approx(pool["mean"], abs=1e-3)
        assert len(row["test_pool"]["members"]) == 7
        assert row["cpu_hours"] > 0
        assert f"`{spec}`" in proc.stdout
    ratios = {(c["agent"], c["partner"]): c for c in report["cross_play"]}
    assert set(ratios) == {PAIR, PAIR[::-1]}
    with (xplay / "cells.csv").open(newline="") as fh:
        cells = {(r["agent"], r["partner"]): float(r["mean"]) for r in csv.DictReader(fh)}
    a, b = PAIR
    expected = cells[a, b] / ((cells[a, a] + cells[b, b]) / 2)
    assert ratios[a, b]["ratio"] == pytest.approx(expected, abs=1e-3)


def test_a_bad_partner_is_one_error_line(tmp_path):
    proc = run_python([TOOL, "--partners", "piers"], cwd=tmp_path, timeout=600)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("error: --partners: 'piers' is not allowed")
    proc = run_python([TOOL, "--partners", "rl:no-such"], cwd=tmp_path, timeout=600)
    assert proc.returncode == 2
    assert "no such RL partner" in proc.stderr

"""The report claims only what it shows: findings hold only when significant (corrected), and
compile time is reported apart from compute time. No games: the inputs are made here."""

from __future__ import annotations

from types import SimpleNamespace

from hanabi_adhoc.study.report import FINDINGS, _findings, _timing_lines


def _doc(means: dict, sem: float, n: int, tests: dict) -> dict:
    summary = {v: {"mean": m, "sem": sem, "n_episodes": n} for v, m in means.items()}
    return {"summary": summary, "ttests": tests}


def _bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- run")]


MEANS = {"oracle": 14.0, "adaptive": 13.2, "generalist": 13.1, "random": 9.0}


def test_a_finding_holds_only_when_significant_after_correction():
    tests = {
        "adaptive_vs_generalist": {"mean_diff": 0.1, "p": 0.30, "t": 1.0},  # not significant
        "oracle_vs_adaptive": {"mean_diff": 0.8, "p": 1e-9, "t": 6.0},  # holds
        "generalist_vs_random": {"mean_diff": 4.1, "p": 1e-40, "t": 20.0},  # holds
    }
    text = _findings({(0, 0): _doc(MEANS, 0.1, 110, tests)}, SimpleNamespace(episodes=5))
    lines = {ln.split(": ")[1]: ln for ln in text.splitlines() if ln.startswith("- run0")}
    assert set(lines) == {w for *_, w in FINDINGS}
    assert "**holds**" in lines["Oracle > Adaptive"]
    assert "**holds**" in lines["Generalist > Random-Response"]
    weak = lines["Adaptive > Generalist"]
    assert "holds" not in weak
    assert "not significant at this scale" in weak
    assert "p adj = 0.3" in weak
    assert "episodes per variant would tell a difference of 0.10 points from noise" in weak
    assert "α = 0.05" in text
    assert "Benjamini–Hochberg" in text
    assert "over the 3 tests" in text


def test_the_correction_can_take_a_finding_away():
    """p = 0.03 alone would hold; among tests whose p are all 0.03 ... 0.04 it still holds under
    BH, but with many larger p-values beside it the adjusted p crosses 0.05."""
    tests = {
        "adaptive_vs_generalist": {"mean_diff": 0.3, "p": 0.03, "t": 2.2},
        "oracle_vs_adaptive": {"mean_diff": 0.1, "p": 0.6, "t": 0.5},
        "generalist_vs_random": {"mean_diff": 0.1, "p": 0.7, "t": 0.4},
    }
    docs = {(r, r): _doc(MEANS, 0.1, 50, tests) for r in range(2)}
    bullets = _bullets(_findings(docs, SimpleNamespace(episodes=5)))
    assert len(bullets) == 6
    assert not any("holds" in b for b in bullets)
    assert all("not significant at this scale" in b for b in bullets)


def test_a_significant_difference_the_other_way_contradicts():
    tests = {"adaptive_vs_generalist": {"mean_diff": -0.9, "p": 1e-8, "t": -6.0}}
    means = {"adaptive": 12.0, "generalist": 12.9}
    text = _findings({(1, 1): _doc(means, 0.1, 100, tests)}, SimpleNamespace(episodes=5))
    (bullet,) = _bullets(text)
    assert "**contradicted**" in bullet
    assert "holds" not in bullet


def test_out_of_distribution_rows_are_not_findings():
    tests = {"adaptive_vs_generalist": {"mean_diff": 0.9, "p": 1e-8, "t": 6.0}}
    assert _findings({(0, 1): _doc(MEANS, 0.1, 100, tests)}, SimpleNamespace(episodes=5)) == ""


def test_compile_time_is_reported_apart_from_compute_time(tmp_path):
    from hanabi_adhoc.study.resume import Timing
    from hanabi_env.outputs import OutputFolder

    with OutputFolder(tmp_path / "cold", kind="pipeline") as folder:
        timing = Timing(folder)
        timing.record("populations/run0", 30.0)
        timing.record_compile(150.0)
        (text,) = (line for line in _timing_lines(timing) if line)
    assert "Compute time of the study: 30.0 s**" in text
    assert "Compiling the kernels took 2.5 min more, not counted above" in text
    assert timing.total_seconds() == 30.0
    with OutputFolder(tmp_path / "warm", kind="pipeline") as folder:
        warm = Timing(folder)
        warm.record("populations/run0", 30.0)
        assert "came from the cache" in _timing_lines(warm)[0]

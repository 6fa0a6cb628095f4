"""Multiple-comparison corrections and the power estimate of hanabi_env.stats."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hanabi_env.stats import adjust_pvalues, samples_needed


def test_holm_by_hand():
    # sorted p: 0.01, 0.02, 0.04 -> 3*0.01, max(.03, 2*.02), max(.04, 1*.04)
    got = adjust_pvalues([0.04, 0.01, 0.02], "holm")
    assert got == pytest.approx([0.04, 0.03, 0.04])


def test_benjamini_hochberg_by_hand():
    # m = 4: p*m/rank = .04, .04, .04, .05, then the running minimum from the top
    got = adjust_pvalues([0.01, 0.02, 0.03, 0.05], "bh")
    assert got == pytest.approx([0.04, 0.04, 0.04, 0.05])


@pytest.mark.parametrize("method", ["bh", "holm"])
def test_adjusted_never_below_raw_and_nan_is_not_a_test(method):
    rng = np.random.default_rng(0)
    p = rng.uniform(size=20)
    p[3] = np.nan
    adj = adjust_pvalues(p, method)
    assert np.isnan(adj[3])
    ok = ~np.isnan(p)
    assert (adj[ok] >= p[ok] - 1e-12).all()
    assert (adj[ok] <= 1).all()
    # the NaN is not counted: the same as correcting the 19 others alone
    assert adj[ok] == pytest.approx(adjust_pvalues(p[ok], method))


def test_bad_inputs():
    with pytest.raises(ValueError, match="method"):
        adjust_pvalues([0.1], "bonferroni")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        adjust_pvalues([1.5], "bh")
    with pytest.raises(ValueError, match="alpha"):
        samples_needed(1.0, 1.0, 1.0, alpha=0.0)
    with pytest.raises(ValueError, match="power"):
        samples_needed(1.0, 1.0, 1.0, power=1.0)


def test_samples_needed_matches_the_textbook_value():
    # d = 0.5 sd, alpha 0.05 two-sided, power 0.8: n = 2 (1.96 + 0.84)^2 / 0.25 = 62.8 -> 63
    assert samples_needed(0.5, 1.0, 1.0) == 63
    assert samples_needed(0.25, 1.0, 1.0) == pytest.approx(4 * 63, abs=2)  # 1/d^2
    assert samples_needed(0.0, 1.0, 1.0) == math.inf
    assert math.isnan(samples_needed(float("nan"), 1.0, 1.0))


def test_samples_needed_gives_the_power_it_promises():
    """Simulated: at the estimated n, a Welch test finds the difference about 80% of the time."""
    from scipy import stats

    n = int(samples_needed(0.4, 1.0, 1.5))
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(400):
        a, b = rng.normal(0.4, 1.0, n), rng.normal(0.0, 1.5, n)
        hits += stats.ttest_ind(a, b, equal_var=False).pvalue < 0.05
    assert 0.72 <= hits / 400 <= 0.88

"""The statistics behind ``verify``'s verdicts, each pinned by a case that a mutation breaks.

Each test is built so that one plausible mistake flips its outcome: dropping the
Bonferroni correction of the per-matrix reference test, basing the lower-bound check
on the slope's point estimate instead of its interval, a one-sided interval where a
two-sided one is stated, a van Elteren test without its stratum weights.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from duelbound.checks.verify import verdicts as V
from duelbound.checks.verify.statistics import (
    ALPHA,
    REFERENCE_ALPHA,
    bonferroni,
    mean_ci,
    van_elteren_p,
)
from duelbound.theory import datasets

T = 1000
#: Ten reference runs and ten user runs whose one-sided Mann–Whitney p-value is 0.038:
#: significant for one matrix (0.05), not after Bonferroni over three (0.0167); the 90%
#: Hodges–Lehmann ratio interval lies above 1 (lower end 1.006) and the estimate is 1.31.
REF = np.linspace(100, 200, 10)
USER = np.array([72.2, 167.6, 174.8, 170.1, 166.8, 161.7, 227.1, 254.4, 261.8, 259.5])


def run(final: float, slope: float = 1.0, steps: int = T) -> SimpleNamespace:
    ck = np.unique(np.geomspace(1, steps, 40).astype(int))
    return SimpleNamespace(final_regret={"komiyama": final}, steps=steps, checkpoints=ck,
                           regret={"komiyama": slope * np.log(ck)},
                           counts={"half": np.zeros((4, 4)), "final": np.zeros((4, 4))})


def test_the_constructed_samples_have_the_stated_statistics():
    p = stats.mannwhitneyu(USER, REF, alternative="greater").pvalue
    assert bonferroni(REFERENCE_ALPHA, 3) < p <= REFERENCE_ALPHA


@pytest.mark.parametrize("n_matrices, verdict", [(1, "WARN"), (3, "PASS")])
def test_reference_check_applies_the_bonferroni_correction(n_matrices, verdict):
    M = datasets.load("cyclic")
    chk = V.reference_check(M, [run(x) for x in USER], [run(y) for y in REF], "ref", T,
                            n_matrices=n_matrices)
    assert chk.verdict == verdict, chk.message


def test_bonferroni_divides_the_level():
    assert bonferroni(0.05, 3) == pytest.approx(0.05 / 3)
    assert bonferroni(0.05, 0) == 0.05


def test_mean_ci_is_the_two_sided_student_interval():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    m, lo, hi = mean_ci(x)
    half = stats.t.ppf(1 - ALPHA / 2, 3) * np.std(x, ddof=1) / 2
    assert (m, lo, hi) == pytest.approx((3.5, 3.5 - half, 3.5 + half))
    assert mean_ci([5.0]) == (5.0, 5.0, 5.0)
    assert all(math.isnan(v) for v in mean_ci([]))


# Slopes spread so that their mean (27) is below C* = 28 while the 99% interval's upper end
# is above it: a consistent algorithm near its asymptote.  PASS rests on the interval.
SLOPES = [22.0, 24.0, 26.0, 27.0, 28.0, 29.0, 30.0, 30.0]


def test_slope_check_decides_on_the_interval_not_the_point_estimate():
    chk = V.slope_check([run(0, s) for s in SLOPES], [], 28.0, None, True)
    assert chk.statistic["slope"] < 28.0 <= chk.statistic["slope_ci"][1]
    assert chk.verdict == "PASS", chk.message


def test_slope_clearly_below_c_star_warns_only_against_a_reference_at_c_star():
    low = [run(0, s) for s in (10.0, 10.5, 11.0, 11.5, 12.0)]
    ref = [run(0, s) for s in (27.0, 28.0, 29.0, 30.0, 31.0)]
    assert V.slope_check(low, ref, 28.0, None, True).verdict == "WARN"
    assert V.slope_check(low, low, 28.0, None, True).verdict == "INCONCLUSIVE"
    assert V.slope_check(low, [], 28.0, None, True).verdict == "INCONCLUSIVE"


def test_van_elteren_weights_strata_by_one_over_n_plus_one():
    # Two strata of different sizes: the weighted statistic against a direct computation.
    rng = np.random.default_rng(3)
    strata = [(rng.normal(1, 1, 4), rng.normal(0, 1, 5)), (rng.normal(1, 1, 12),
                                                          rng.normal(0, 1, 9))]
    V_, E, Var = 0.0, 0.0, 0.0
    for x, y in strata:
        n, m = len(x), len(y)
        N = n + m
        r = stats.rankdata(np.concatenate([x, y]))[:n].sum()
        V_ += r / (N + 1)
        E += n / 2
        Var += n * m / (12 * (N + 1))
    want = stats.norm.sf((V_ - E) / math.sqrt(Var))
    assert van_elteren_p(strata) == pytest.approx(want, rel=1e-12)

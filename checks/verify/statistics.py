"""The statistics behind ``verify``'s verdicts, each a function of plain samples.

:func:`mean_ci` (Student-t interval of a mean over runs), :func:`mann_whitney_null_counts`
and :func:`regret_ratio_interval` (Hodges–Lehmann ratio with its exact Mann–Whitney
interval), :func:`van_elteren_p` (stratified Wilcoxon test) and :func:`bonferroni`.
The thresholds that turn them into verdicts live in :mod:`.verdicts`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy import stats

from ...theory.errors import DuelboundError

__all__ = ["ALPHA", "REFERENCE_ALPHA", "bonferroni", "mann_whitney_null_counts", "mean_ci",
           "regret_ratio_interval", "van_elteren_p"]

#: Two-sided level of the t-intervals over runs.
ALPHA = 0.01
#: Level of the per-matrix reference comparison (two-sided interval at 1 − 2·REFERENCE_ALPHA).
REFERENCE_ALPHA = 0.05


def bonferroni(alpha: float, tests: int) -> float:
    """Per-test level of ``tests`` simultaneous tests at family-wise level ``alpha``.

    Parameters
    ----------
    alpha : float
        Family-wise error level.
    tests : int
        Number of tests (at least 1 is assumed).

    Returns
    -------
    float
        ``alpha / max(tests, 1)``.
    """
    return alpha / max(int(tests), 1)


def mean_ci(x, alpha: float = ALPHA) -> tuple[float, float, float]:
    """Mean of ``x`` (NaNs dropped) with its two-sided Student-t interval at level 1 − alpha.

    Parameters
    ----------
    x : array_like
        One value per run.
    alpha : float
        Two-sided error level (default :data:`ALPHA`).

    Returns
    -------
    (mean, low, high) : tuple of float
        NaNs for an empty sample; low = high = mean for a single value.
    """

    x = np.asarray([v for v in x if v == v], dtype=float)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    m = float(np.mean(x))
    if x.size < 2:
        return m, m, m
    sd = float(np.std(x, ddof=1))
    half = float(stats.t.ppf(1 - alpha / 2, x.size - 1) * sd / math.sqrt(x.size))
    return m, m - half, m + half


def van_elteren_p(pairs: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """One-sided p-value of the van Elteren test that x is stochastically larger than y.

    Per stratum k (a matrix) the rank sum W_k of the x sample among the N_k = n_k + m_k
    runs, weighted by 1/(N_k + 1); under the null (same distribution within each
    stratum) E W_k = n_k (N_k + 1)/2 and Var W_k = n_k m_k (N_k + 1)/12 (mid-ranks for
    ties; normal approximation).  van Elteren (1960), Bull. Int. Stat. Inst. 37.
    """
    V = E = Var = 0.0
    for x, y in pairs:
        n, m = len(x), len(y)
        if n == 0 or m == 0:
            continue
        N = n + m
        ranks = stats.rankdata(np.concatenate([x, y]))
        w = 1.0 / (N + 1)
        V += w * ranks[:n].sum()
        E += w * n * (N + 1) / 2
        Var += w * w * n * m * (N + 1) / 12
    if Var <= 0:
        return 1.0
    return float(stats.norm.sf((V - E) / math.sqrt(Var)))


# --------------------------------------------------------------------------------------
# The Hodges–Lehmann regret ratio and its exact Mann–Whitney interval.
# --------------------------------------------------------------------------------------

def mann_whitney_null_counts(n: int, m: int) -> np.ndarray:
    """Exact null distribution of the Mann–Whitney U statistic, as counts.

    ``out[u]`` is the number of the C(n+m, n) equally likely arrangements of two
    samples of sizes n and m (continuous data, no ties) in which exactly u of the
    n·m pairs (x_i, y_j) have x_i > y_j.  Recursion on the largest observation
    (Mann & Whitney 1947): it is an x (adds m to U) or a y,
    c(n, m, u) = c(n − 1, m, u − m) + c(n, m − 1, u).  Integer (object) counts, exact
    for any n, m.
    """
    if n < 0 or m < 0:
        raise DuelboundError(f"sample sizes must be >= 0, got {n}, {m}")
    # rows[b] = distribution for sizes (a, b) while a runs from 0 to n
    rows = [np.array([1], dtype=object) for _ in range(m + 1)]
    for a in range(1, n + 1):
        new = [np.array([1], dtype=object)]  # (a, 0): U = 0
        for b in range(1, m + 1):
            top, left = rows[b], new[b - 1]  # (a − 1, b) shifted by b; (a, b − 1)
            out = np.zeros(a * b + 1, dtype=object)
            out[b:b + top.size] += top
            out[:left.size] += left
            new.append(out)
        rows = new
    return rows[m]


def regret_ratio_interval(x, y, confidence: float = 1 - 2 * REFERENCE_ALPHA
                          ) -> tuple[float, float, float]:
    """Hodges–Lehmann ratio of two positive samples with its exact Mann–Whitney interval.

    On the log scale the shift model log X = log Y + δ gives the Hodges–Lehmann
    estimate δ̂ = median of the n·m differences D_ij = log x_i − log y_j, and the
    distribution-free interval [D_(k), D_(nm+1−k)] (order statistics), k the largest
    integer with P(U ≤ k − 1) ≤ (1 − confidence)/2 under the exact null distribution
    of U (:func:`mann_whitney_null_counts`; Hollander & Wolfe, *Nonparametric
    Statistical Methods*, §4.3).  Returned as ratios exp(·): (estimate, low, high);
    low = 0 and high = inf when the samples are too small for the level.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.size == 0 or y.size == 0 or (x <= 0).any() or (y <= 0).any():
        raise DuelboundError("the ratio interval needs two non-empty samples of positive values")
    if not 0 < confidence < 1:
        raise DuelboundError(f"confidence must be in (0, 1), got {confidence}")
    D = np.sort((np.log(x)[:, None] - np.log(y)[None, :]).ravel())
    counts = mann_whitney_null_counts(x.size, y.size)
    cdf = np.cumsum(counts)  # cdf[u] = #arrangements with U ≤ u (exact integers)
    # the tail as an exact count, so that 0.9 means 1/20 per side (3 vs 3 runs reach it)
    tail_count = Fraction(1 - confidence).limit_denominator(10**6) / 2 * int(cdf[-1])
    k = 0
    while k < D.size and cdf[k] <= tail_count:  # P(U ≤ k) ≤ tail: k + 1 is allowed
        k += 1
    est = float(np.exp(np.median(D)))
    if k == 0:
        return est, 0.0, math.inf
    return est, float(np.exp(D[k - 1])), float(np.exp(D[D.size - k]))

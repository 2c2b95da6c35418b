"""The comparisons of ``duelbound verify``: the measured regret against C*
(lower bound, [K16] Th. 2), against the author's claim, and against the bundled
reference algorithm on the same seeds (per matrix, and pooled over the suite).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .check import Check, CStar, c_star, regret_pairs
from .statistics import (
    REFERENCE_ALPHA,
    bonferroni,
    mean_ci,
    regret_ratio_interval,
    van_elteren_p,
)

__all__ = ["slope_check", "claimed_check", "reference_check", "pooled_reference_check",
           "RATIO_WARN", "POOLED_ALPHA"]

RATIO_WARN = 1.15     # pooled Hodges–Lehmann ratio above which "worse" is worth a WARN
POOLED_ALPHA = 0.01   # one-sided level of the suite-level van Elteren test


def _slopes(runs: list, decade: float = 10.0) -> list[float]:
    out = []
    for r in runs:
        ck = np.asarray(r.checkpoints, dtype=float)
        R = np.asarray(r.regret["komiyama"], dtype=float)
        H = float(r.steps)
        sel = ck >= H / decade
        if sel.sum() < 3:
            continue
        x = np.log(ck[sel])
        b = np.polyfit(x, R[sel], 1)[0]
        out.append(float(b))
    return out


def slope_check(runs: list, ref_runs: list, cstar: float | None, cstar_err: str | None,
                consistent: bool) -> Check:
    """Slope of R(t) against log t over the last decade vs C* ([K16] Th. 2).

    Below C* is only possible at finite T (the −o(log T) term) or for an inconsistent
    algorithm: WARN only when the interval is below C* while the reference algorithm's
    slope on the same matrix is not (it is already in its logarithmic regime there);
    INCONCLUSIVE when there is no reference or the reference is below C* too.
    """
    s = _slopes(runs)
    m, lo, hi = mean_ci(s)
    stat: dict[str, Any] = {"slope": m, "slope_ci": [lo, hi], "runs_used": len(s)}
    if cstar is None:
        return Check("lower bound", "INCONCLUSIVE", f"C* unavailable ({cstar_err})", stat,
                     rule="no-c-star")
    stat["C_star"] = cstar
    if not s or m != m:
        return Check("lower bound", "INCONCLUSIVE", "no run long enough for a slope", stat,
                     rule="no-slope")
    msg = f"slope of R(t) vs log t over the last decade {m:.4g} [{lo:.4g}, {hi:.4g}] vs " \
          f"C* = {cstar:.4g} ({len(s)} runs)"
    if hi >= cstar:
        return Check("lower bound", "PASS", msg, stat, rule="not-below-c-star")
    rs = _slopes(ref_runs)
    if rs:
        rm, rlo, rhi = mean_ci(rs)
        stat.update(reference_slope=rm, reference_slope_ci=[rlo, rhi])
        if rhi >= cstar and consistent:
            return Check("lower bound", "WARN", msg + f" — significantly below C* where the "
                         f"reference is not ({rm:.4g}): only possible for an inconsistent "
                         "algorithm, or one that knows the matrix", stat,
                         rule="below-c-star-not-reference")
        return Check("lower bound", "INCONCLUSIVE", msg + f" — below C*, as is the reference "
                     f"({rm:.4g}): finite-T transient", stat, rule="below-c-star-as-reference")
    return Check("lower bound", "INCONCLUSIVE", msg + " — below C* at this T (possible at "
                 "finite T; give --reference to compare)", stat,
                 rule="below-c-star-no-reference")


def claimed_check(runs: list, cstar: float | None, claimed: float) -> Check:
    s = _slopes(runs)
    m, lo, hi = mean_ci(s)
    stat = {"slope": m, "slope_ci": [lo, hi], "claimed": claimed, "C_star": cstar,
            "runs_used": len(s)}
    msg = f"slope {m:.4g} [{lo:.4g}, {hi:.4g}] vs claimed {claimed:.4g}"
    if cstar is not None and claimed < cstar * (1 - 1e-9):
        return Check("claimed", "FAIL", msg + f" — a claim below C* = {cstar:.4g} "
                     "contradicts [K16] Theorem 2", stat, rule="claim-below-c-star")
    if not s:
        return Check("claimed", "INCONCLUSIVE", "no run long enough for a slope", stat,
                     rule="no-slope")
    if lo > claimed:
        return Check("claimed", "WARN", msg + " — measured above the claim", stat,
                     rule="above-claim")
    return Check("claimed", "PASS", msg, stat, rule="within-claim")


def _allocation_reason(M, runs: list, ref_runs: list, T: int, q: np.ndarray | None
                       ) -> tuple[str, list]:
    """Pairs the user samples more / less than the reference, against q* of [K16]
    (``q``: None when C* could not be solved; the reason is then without it)."""
    nu = np.mean([np.asarray(r.counts["final"], float) for r in runs], axis=0) / math.log(T)
    nr = np.mean([np.asarray(r.counts["final"], float) for r in ref_runs], axis=0) / math.log(T)
    reg = regret_pairs(M)
    K = M.K
    rows = []
    for i in range(K):
        for j in range(i, K):
            if not reg[i, j]:
                continue
            rows.append((nu[i, j] - nr[i, j], i, j))
    rows.sort(key=lambda x: -abs(x[0]))
    parts, data = [], []
    for diff, i, j in rows[:3]:
        if abs(diff) < 0.5:
            continue
        lab = M.pair_label(i, j) if hasattr(M, "pair_label") else f"({i},{j})"
        qs = f", q* {q[i, j]:.3g}" if q is not None else ""
        parts.append(f"{lab} {'over' if diff > 0 else 'under'}-sampled: N/log T "
                     f"{nu[i, j]:.3g} vs reference {nr[i, j]:.3g}{qs}")
        data.append({"pair": [i, j], "user": nu[i, j], "reference": nr[i, j],
                     "q_star": None if q is None else q[i, j]})
    return "; ".join(parts), data


def reference_check(M, runs: list, ref_runs: list, name: str, T: int,
                    n_matrices: int = 1, cstar: CStar | None = None) -> Check:
    """Per-matrix comparison of R(T) with the bundled reference (same seeds).

    WARN needs the one-sided Mann–Whitney p-value at most 0.05 / ``n_matrices``
    (Bonferroni over the suite), the 90% Hodges–Lehmann interval above 1 and the
    estimate above :data:`RATIO_WARN`; the power lives in the pooled suite check.
    """
    from scipy import stats

    x = np.array([r.final_regret["komiyama"] for r in runs if r.steps == T])
    y = np.array([r.final_regret["komiyama"] for r in ref_runs if r.steps == T])
    stat: dict[str, Any] = {"runs_used": int(x.size), "reference_runs": int(y.size)}
    if x.size == 0 or y.size == 0:
        return Check("reference", "INCONCLUSIVE", f"no complete run to compare with {name}",
                     stat, rule="no-complete-run")
    p = float(stats.mannwhitneyu(x, y, alternative="greater").pvalue)
    stat.update(median_user=float(np.median(x)), median_reference=float(np.median(y)),
                p_value_greater=p)
    msg = f"median R(T) {np.median(x):.4g} vs {name} {np.median(y):.4g} (p = {p:.3g})"
    if (x > 0).all() and (y > 0).all():
        hl, lo, hi = regret_ratio_interval(x, y, 1 - 2 * REFERENCE_ALPHA)
        stat.update(hl_ratio=hl, ratio_interval=[lo, hi], interval_level=0.9,
                    equivalent=bool(0.8 <= lo and hi <= 1.25))
        msg += f"; HL ratio {hl:.3g} [{lo:.3g}, {hi:.3g}]"
        if lo > 1.0 and hl > RATIO_WARN and p <= bonferroni(REFERENCE_ALPHA, n_matrices):
            why, data = _allocation_reason(M, runs, ref_runs, T,
                                           (cstar or c_star(M)).allocation)
            stat["allocation"] = data
            return Check("reference", "WARN", msg + " — significantly worse" +
                         (f": {why}" if why else ""), stat, rule="significantly-worse")
    elif np.median(x) > 0 and np.median(y) == 0:
        return Check("reference", "WARN", msg + f" — {name} has zero regret", stat,
                     rule="reference-zero-regret")
    verdict = "PASS" if x.size == len(runs) else "INCONCLUSIVE"
    return Check("reference", verdict, msg, stat,
                 rule="not-worse" if verdict == "PASS" else "not-worse-partial")


def pooled_reference_check(pairs: list[tuple[np.ndarray, np.ndarray]], name: str,
                           seed: int = 0, n_boot: int = 2000) -> Check:
    """Suite-level comparison: stratified Hodges–Lehmann ratio over all matrices.

    The estimate is exp of the median of the within-matrix pairwise differences
    log x − log y (each matrix weighted by its n·m pairs); its 90% interval comes from
    a bootstrap that resamples the runs within each matrix.  The decision uses a test
    that is valid under the null whatever the regret's distribution: the one-sided
    van Elteren (stratified Wilcoxon) test, :func:`van_elteren_p`.  WARN when p ≤ 0.01,
    the interval lies above 1 and the estimate above :data:`RATIO_WARN`.
    """
    pairs = [(np.asarray(x, float), np.asarray(y, float)) for x, y in pairs
             if len(x) and len(y) and (np.asarray(x) > 0).all() and (np.asarray(y) > 0).all()]
    if not pairs:
        return Check("reference (suite)", "INCONCLUSIVE", "no complete runs to compare", {},
                     rule="no-complete-run")

    def est(ps):
        return float(np.median(np.concatenate([(np.log(x)[:, None] - np.log(y)[None, :]).ravel()
                                               for x, y in ps])))

    e = est(pairs)
    p = van_elteren_p(pairs)
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        boots.append(est([(rng.choice(x, x.size), rng.choice(y, y.size)) for x, y in pairs]))
    lo, hi = np.quantile(boots, [REFERENCE_ALPHA, 1 - REFERENCE_ALPHA])
    r, rlo, rhi = math.exp(e), math.exp(lo), math.exp(hi)
    n = sum(x.size for x, _ in pairs)
    stat = {"hl_ratio": r, "ratio_interval": [rlo, rhi], "interval_level": 0.9,
            "p_value_greater": p, "runs_used": n, "matrices": len(pairs)}
    msg = f"pooled HL ratio R_user/R_{name} = {r:.3g}, 90% interval [{rlo:.3g}, {rhi:.3g}] " \
          f"over {len(pairs)} matrices, {n} runs; van Elteren p = {p:.3g}"
    if p <= POOLED_ALPHA and rlo > 1.0 and r > RATIO_WARN:
        return Check("reference (suite)", "WARN", msg + " — significantly worse", stat,
                     rule="significantly-worse")
    if rhi < 1.0 / RATIO_WARN and r < 1 / RATIO_WARN:
        return Check("reference (suite)", "PASS", msg + " — better than the reference", stat,
                     rule="better")
    return Check("reference (suite)", "PASS", msg, stat, rule="not-worse")


"""Verdicts of ``duelbound verify``, computed from the judge's records only.

Four outcomes per check (:data:`ORDER`): PASS, INCONCLUSIVE ("not enough data at
this T"), WARN, FAIL.  FAIL needs positive evidence — a protocol error, a claim
below C*, non-determinism, or regret that is *established* to grow linearly: late
duels spent on pairs whose outcome the algorithm has already sampled far beyond
what any consistent algorithm needs (:func:`consistency_check`).  Absence of
convergence at a short horizon is INCONCLUSIVE, with the horizon that would decide.

Statistics use every run, including runs cut short by a timeout or a crash (their
trajectory up to the last duel); each check says how many runs it used.  A check
computed on fewer runs than were asked for (or on shorter horizons) is never PASS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...theory.kl import kl_half
from ...theory.regret import regret_matrix
from ...theory.tournament import copeland_winners
from .statistics import (
    REFERENCE_ALPHA,
    bonferroni,
    mean_ci,
    regret_ratio_interval,
    van_elteren_p,
)

__all__ = ["ORDER", "Check", "worst", "consistency_check", "slope_check", "claimed_check",
           "reference_check", "pooled_reference_check", "nice_horizon", "growth_ratio",
           "starved", "STUCK_FAIL", "RESOLVE", "LINEAR_RATIO", "STUCK_RUN"]

ORDER = {"PASS": 0, "INCONCLUSIVE": 1, "WARN": 2, "FAIL": 3}

#: A pair (i, j) is *resolved* at t when N_ij ≥ RESOLVE · log t / d(µ_ij, 1/2): sampled
#: RESOLVE times more often than the Lai–Robbins rate of [K16] Th. 2 asks for.
RESOLVE = 4.0
#: Share of the late duels (t in (H/2, H]) with regret on pairs resolved at H/2 above
#: which the regret is established to grow linearly (lower end of the 99% interval).
STUCK_FAIL = 0.1
#: ... unless the late duels on pairs not yet resolved (still being learnt, as in the
#: exploration phase of explore-then-commit) are at least LEARNING × that share.
LEARNING = 0.25
#: Logarithmic regime: late share of regret duels at most LATE_OK, or growth ratio of
#: the regret increments over the last two doublings at most GROWTH_OK (log: 1, linear: 2).
LATE_OK = 0.02
GROWTH_OK = 1.45
#: Linear growth: the lower ends of the 99% intervals of the growth ratio at the last two
#: doublings both at least LINEAR_RATIO (log: 1, √T: 1.41, linear: 2) ...
LINEAR_RATIO = 1.6
#: ... or every run is *inconsistent on its own*: its late duels are at least this share of
#: stuck duels (resolved pairs, self-duels of non-winners), or it is *starved*.
STUCK_RUN = 0.5
#: Fewest runs for the per-run rule (each run is then evidence on its own).
MIN_RUNS_ALL = 3
RATIO_WARN = 1.15     # pooled Hodges–Lehmann ratio above which "worse" is worth a WARN
POOLED_ALPHA = 0.01   # one-sided level of the suite-level van Elteren test


@dataclass
class Check:
    """One verdict with the statistic behind it."""

    name: str
    verdict: str
    message: str
    statistic: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def worst(verdicts) -> str:
    return max(verdicts, key=ORDER.get, default="PASS")


def nice_horizon(t: float) -> int:
    """``t`` rounded up to 1, 2 or 5 × 10^k."""
    if not math.isfinite(t) or t <= 1:
        return 1
    e = 10 ** math.floor(math.log10(t))
    for f in (1, 2, 5, 10):
        if f * e >= t:
            return int(f * e)
    return int(10 * e)


def _regret_pairs(M) -> np.ndarray:
    return regret_matrix(M, "binary") > 0


def _late(run) -> tuple[np.ndarray, np.ndarray, int]:
    """(N at H/2, N in (H/2, H], H) of one run, symmetric counts incl. self-duels."""
    Nh = np.asarray(run.counts["half"], dtype=float)
    Nf = np.asarray(run.counts["final"], dtype=float)
    return Nh, Nf - Nh, int(run.steps)


def growth_ratio(run, back: int = 0) -> float:
    """ρ = [R(H/2^b) − R(H/2^(b+1))] / [R(H/2^(b+1)) − R(H/2^(b+2))] of the komiyama regret
    (b = ``back``): 1 for logarithmic regret, √2 for √T, 2 for linear; nan if undefined."""
    ck = np.asarray(run.checkpoints, dtype=float)
    R = np.asarray(run.regret["komiyama"], dtype=float)
    if ck.size < 2:
        return math.nan
    H = float(run.steps) / 2 ** back
    q4, q2, q1 = np.interp([H / 4, H / 2, H], ck, R)
    d1, d2 = q2 - q4, q1 - q2
    return d2 / d1 if d1 > 0 else (1.0 if d2 <= 0 else math.nan)


def starved(run, M) -> tuple[bool, float, tuple[int, int, int] | None]:
    """Did the run stop paying before it had the evidence a consistent algorithm needs?

    True when no late duel (t in (H/2, H]) carried regret and the final evidence
    x_ij = N_ij d(µ_ij, ½) / log H lies outside R_{i1} for **every** Copeland winner i1
    ([K16] Lemma 1 and Theorem 2: a consistent algorithm that settles on i1 has
    N(T)/log T in R_{i1} as T grows; docs/math.md §5).  Returns (starved, the largest
    over winners of the smallest constraint left-hand side, its (i1, i2, l)).
    """
    from ...solvers.oracle import cw_oracle_core  # numba: only when a run is judged

    Nh, Lw, H = _late(run)
    reg = _regret_pairs(M)
    if np.where(np.triu(np.ones_like(reg), 0) & reg, Lw, 0.0).sum() > 0 or H < 16:
        return False, math.inf, None
    mu = np.ascontiguousarray(M.values, dtype=float)
    d = kl_half(mu)
    N = np.asarray(run.counts["final"], dtype=float)
    x = np.ascontiguousarray(np.where(np.eye(M.K, dtype=bool), 0.0, N * d / math.log(H)))
    best, where = -math.inf, None
    for i1 in copeland_winners(M):
        V = cw_oracle_core(mu, int(i1), x)
        if V.size == 0:
            return False, math.inf, None
        k = np.unravel_index(int(np.argmin(V)), V.shape)
        if V[k] > best:
            best, where = float(V[k]), (int(i1), int(k[0]), int(k[1]))
    return best < 1.0, best, where


def consistency_check(runs: list, M, T: int, expected_runs: int) -> Check:
    """Is the regret established to grow linearly, logarithmic already, or undecided?

    Per run, with H its last duel: the *late share* (duels with regret in (H/2, H],
    over H/2), the *stuck share* (those on pairs resolved at H/2, or self-duels of
    non-winners, which carry no information), and the growth ratio
    ρ = [R(H) − R(H/2)] / [R(H/2) − R(H/4)] of the komiyama regret.
    FAIL: the 99% interval of the mean stuck share lies above :data:`STUCK_FAIL` while
    the *learning share* (late duels on pairs not yet resolved) is below
    :data:`LEARNING` × the stuck share: the algorithm pays for what it already knows
    and has stopped learning.
    PASS: the late share is at most :data:`LATE_OK`, or ρ's interval lies below
    :data:`GROWTH_OK` — on all requested runs at the full horizon.
    Otherwise INCONCLUSIVE, with the horizon at which the pairs now carrying the
    late regret would be resolved (then the check decides either way).
    """
    used = [r for r in runs if r.steps >= 16]
    stat: dict[str, Any] = {"runs_used": len(used), "runs_requested": expected_runs}
    if not used:
        return Check("consistency", "INCONCLUSIVE", "no run recorded enough duels", stat)
    K = M.K
    reg = _regret_pairs(M)
    mu = np.asarray(M.values)
    d = kl_half(mu)
    off = ~np.eye(K, dtype=bool)
    shares, stucks, learns, rhos, rhos2, needs, starving = [], [], [], [], [], [], []
    late_tot = np.zeros((K, K))
    for r in used:
        Nh, Lw, H = _late(r)
        half = H - H // 2
        resolved = np.where(off, Nh >= RESOLVE * math.log(max(H, 3)) / np.maximum(d, 1e-12),
                            True)
        up = np.triu(np.ones((K, K), dtype=bool))   # each pair once (counts are symmetric)
        late_reg = np.where(up & reg, Lw, 0.0)
        shares.append(late_reg.sum() / half)
        stucks.append(np.where(resolved, late_reg, 0.0).sum() / half)
        learns.append(np.where(up & off & ~resolved, Lw, 0.0).sum() / half)
        late_tot += late_reg
        rhos.append(growth_ratio(r))
        rhos2.append(growth_ratio(r, 1))
        starving.append(starved(r, M))
        # horizon at which the pairs still paid for would be resolved (linear growth)
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(up & reg & off, Nh / max(H / 2, 1), 0.0)   # duels per step
        need = 0.0
        weights = late_reg[up & reg & off]
        if weights.sum() > 0:
            idx = np.argwhere(up & reg & off)
            order = np.argsort(-weights)
            covered = 0.0
            for o in order:
                i, j = idx[o]
                covered += weights[o]
                t = 2.0 * H
                while t < 1e12 and rate[i, j] * t / 2 < RESOLVE * math.log(t) / max(d[i, j], 1e-12):
                    t *= 1.5
                need = max(need, t)
                if covered >= 0.9 * weights.sum():
                    break
        needs.append(need)
    share, s_lo, s_hi = mean_ci(shares)
    stuck, k_lo, k_hi = mean_ci(stucks)
    rho, r_lo, r_hi = mean_ci(rhos)
    rho2, r2_lo, r2_hi = mean_ci(rhos2)
    learn = float(np.mean(learns))
    full = len(used) == expected_runs and all(r.steps == T for r in used)
    stat.update(late_share=share, late_share_ci=[s_lo, s_hi], stuck_share=stuck,
                stuck_share_ci=[k_lo, k_hi], learning_share=learn, growth_ratio=rho,
                growth_ratio_ci=[r_lo, r_hi], growth_ratio_previous=rho2,
                growth_ratio_previous_ci=[r2_lo, r2_hi],
                starved_runs=int(sum(bool(s[0]) for s in starving)),
                stuck_runs=int(sum(bool(v >= STUCK_RUN) for v in stucks)),
                full_horizon=full, horizons=[int(r.steps) for r in used])
    top = np.argwhere(late_tot > 0)
    top = sorted(((late_tot[i, j], i, j) for i, j in top), reverse=True)[:3]
    named = ", ".join(f"{M.pair_label(i, j) if hasattr(M, 'pair_label') else (i, j)} "
                      f"({v / max(late_tot.sum(), 1):.0%})" for v, i, j in top)
    stat["late_regret_pairs"] = [[int(i), int(j), float(v)] for v, i, j in top]
    msg = (f"late share of duels with regret {share:.3g}, on already-resolved pairs "
           f"{stuck:.3g} [{k_lo:.3g}, {k_hi:.3g}], on pairs still learnt {learn:.3g}, growth "
           f"ratio {rho:.3g} (log: 1, linear: 2); {len(used)}/{expected_runs} runs")
    learning = learn >= LEARNING * stuck
    if not learning and (k_lo > STUCK_FAIL or (len(used) == 1 and stuck > 2 * STUCK_FAIL)):
        return Check("consistency", "FAIL", msg + f" — regret grows linearly: it keeps "
                     f"playing pairs it has already resolved ({named})", stat)
    if r_lo >= LINEAR_RATIO and r2_lo >= LINEAR_RATIO and k_lo > STUCK_FAIL:
        stat["rule"] = "linear"
        return Check("consistency", "FAIL", msg + f" — regret grows linearly: it doubled with "
                     f"t over the last two doublings (previous ratio {rho2:.3g} [{r2_lo:.3g}, "
                     f"{r2_hi:.3g}]) while at least {k_lo:.0%} of the late duels went to pairs "
                     f"it had already resolved ({named})", stat)
    if len(used) >= MIN_RUNS_ALL and all(
            sv[0] or st_ >= STUCK_RUN for sv, st_ in zip(starving, stucks)):
        n_starved = stat["starved_runs"]
        worst_run = max((sv for sv in starving if sv[0]), key=lambda sv: -sv[1], default=None)
        detail = ""
        if worst_run is not None and worst_run[2] is not None:
            i1, i2, lv = worst_run[2]
            detail = (f"; e.g. winner {M.label(i1) if hasattr(M, 'label') else i1} vs rival "
                      f"{M.label(i2) if hasattr(M, 'label') else i2} (level {lv}): "
                      f"{worst_run[1]:.2g} of the evidence log T needs")
        rest = len(used) - n_starved
        # no run starved: every run is stuck, i.e. linear at this T (confirmed at 4T: an
        # algorithm that knows T may still be exploring); a starved run decides now
        stat["rule"] = "linear" if n_starved == 0 else "starved"
        return Check("consistency", "FAIL", msg + f" — inconsistent in every run: {n_starved} "
                     "stopped paying regret before their evidence N d / log T reached R_i1 "
                     "([K16] Lemma 1: it knows the matrix or stopped learning)"
                     + (f", {rest} spent >= {STUCK_RUN:.0%} of their late duels on resolved "
                        "pairs" if rest else "") + detail, stat)
    logarithmic = share <= LATE_OK or (r_hi == r_hi and r_hi <= GROWTH_OK)
    if logarithmic and full:
        return Check("consistency", "PASS", msg, stat)
    if logarithmic:
        return Check("consistency", "INCONCLUSIVE", msg + " — logarithmic on the runs "
                     "that finished, but not every run reached T", stat)
    if stuck > STUCK_FAIL and not learning:
        return Check("consistency", "WARN", msg + f" — probably linear (late regret on "
                     f"resolved pairs: {named}); more runs would establish it", stat)
    horizon = nice_horizon(max(needs) if needs else 10 * T)
    stat["suggested_T"] = horizon
    return Check("consistency", "INCONCLUSIVE", msg + " — not yet in its logarithmic regime "
                 f"at this T (still paying for pairs it is learning: {named}); "
                 f"T = {horizon} would decide", stat)


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
        return Check("lower bound", "INCONCLUSIVE", f"C* unavailable ({cstar_err})", stat)
    stat["C_star"] = cstar
    if not s or m != m:
        return Check("lower bound", "INCONCLUSIVE", "no run long enough for a slope", stat)
    msg = f"slope of R(t) vs log t over the last decade {m:.4g} [{lo:.4g}, {hi:.4g}] vs " \
          f"C* = {cstar:.4g} ({len(s)} runs)"
    if hi >= cstar:
        return Check("lower bound", "PASS", msg, stat)
    rs = _slopes(ref_runs)
    if rs:
        rm, rlo, rhi = mean_ci(rs)
        stat.update(reference_slope=rm, reference_slope_ci=[rlo, rhi])
        if rhi >= cstar and consistent:
            return Check("lower bound", "WARN", msg + f" — significantly below C* where the "
                         f"reference is not ({rm:.4g}): only possible for an inconsistent "
                         "algorithm, or one that knows the matrix", stat)
        return Check("lower bound", "INCONCLUSIVE", msg + f" — below C*, as is the reference "
                     f"({rm:.4g}): finite-T transient", stat)
    return Check("lower bound", "INCONCLUSIVE", msg + " — below C* at this T (possible at "
                 "finite T; give --reference to compare)", stat)


def claimed_check(runs: list, cstar: float | None, claimed: float) -> Check:
    s = _slopes(runs)
    m, lo, hi = mean_ci(s)
    stat = {"slope": m, "slope_ci": [lo, hi], "claimed": claimed, "C_star": cstar,
            "runs_used": len(s)}
    msg = f"slope {m:.4g} [{lo:.4g}, {hi:.4g}] vs claimed {claimed:.4g}"
    if cstar is not None and claimed < cstar * (1 - 1e-9):
        return Check("claimed", "FAIL", msg + f" — a claim below C* = {cstar:.4g} "
                     "contradicts [K16] Theorem 2", stat)
    if not s:
        return Check("claimed", "INCONCLUSIVE", "no run long enough for a slope", stat)
    if lo > claimed:
        return Check("claimed", "WARN", msg + " — measured above the claim", stat)
    return Check("claimed", "PASS", msg, stat)


def _allocation_reason(M, runs: list, ref_runs: list, T: int) -> tuple[str, list]:
    """Pairs the user samples more / less than the reference, against q* of [K16]."""
    try:
        from ...solvers.cstar import lower_bound

        q = np.asarray(lower_bound(M, certify=False).allocation, dtype=float)
    except Exception:  # noqa: BLE001 — the reason is optional
        q = None
    nu = np.mean([np.asarray(r.counts["final"], float) for r in runs], axis=0) / math.log(T)
    nr = np.mean([np.asarray(r.counts["final"], float) for r in ref_runs], axis=0) / math.log(T)
    reg = _regret_pairs(M)
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
                    n_matrices: int = 1) -> Check:
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
                     stat)
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
            why, data = _allocation_reason(M, runs, ref_runs, T)
            stat["allocation"] = data
            return Check("reference", "WARN", msg + " — significantly worse" +
                         (f": {why}" if why else ""), stat)
    elif np.median(x) > 0 and np.median(y) == 0:
        return Check("reference", "WARN", msg + f" — {name} has zero regret", stat)
    verdict = "PASS" if x.size == len(runs) else "INCONCLUSIVE"
    return Check("reference", verdict, msg, stat)


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
        return Check("reference (suite)", "INCONCLUSIVE", "no complete runs to compare", {})

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
        return Check("reference (suite)", "WARN", msg + " — significantly worse", stat)
    if rhi < 1.0 / RATIO_WARN and r < 1 / RATIO_WARN:
        return Check("reference (suite)", "PASS", msg + " — better than the reference", stat)
    return Check("reference (suite)", "PASS", msg, stat)

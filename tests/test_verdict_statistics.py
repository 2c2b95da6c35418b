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


def _with_dyadic(ck: np.ndarray, steps: int) -> np.ndarray:
    """Checkpoints as the judge records them: log-spaced, and exactly steps / 2^b."""
    return np.union1d(ck, [steps >> b for b in range(7)])


def run(final: float, slope: float = 1.0, steps: int = T) -> SimpleNamespace:
    ck = _with_dyadic(np.geomspace(1, steps, 40).astype(int), steps)
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


# -- consistency: linear growth, per-run inconsistency, starvation (issue 23) ----------------
H = 20_000


def _sym(entries: dict[tuple[int, int], float], K: int = 4) -> np.ndarray:
    out = np.zeros((K, K))
    for (i, j), v in entries.items():
        out[i, j] += v
        if i != j:
            out[j, i] += v
    return out


def traj(growth: str, half: dict, late: dict, noise: float = 0.0, seed: int = 0,
         power: float = 0.5):
    """A run of cyclic (arm 0 the Condorcet winner): R(t) linear or logarithmic, and the
    duels of each pair before H/2 (``half``) and after (``late``)."""
    rng = np.random.default_rng(seed)
    ck = _with_dyadic(np.geomspace(1, H, 60).astype(int), H)
    R = {"linear": 0.5 * ck, "log": 30.0 * np.log(ck),
         # a large early regret, then slowly linear: R(H)/R(H/2) = 1.09 (below 1.25) while
         # the increments double (ρ = 2)
         "late-linear": 1000.0 + 0.01 * ck,
         "power": 3.0 * ck ** power}[growth] * (1 + noise * rng.random())
    Nh = _sym(half)
    return SimpleNamespace(steps=H, checkpoints=ck, regret={"komiyama": R},
                           counts={"half": Nh, "final": Nh + _sym(late)},
                           final_regret={"komiyama": float(R[-1])})


RESOLVED = {(1, 2): 2000.0, (0, 1): 10.0}   # (1, 2): d(0.9) = 0.37, resolved; (0, 1) not


def test_growth_ratio_is_one_for_log_and_two_for_linear():
    assert V.growth_ratio(traj("log", RESOLVED, {})) == pytest.approx(1.0, rel=1e-2)
    assert V.growth_ratio(traj("linear", RESOLVED, {})) == pytest.approx(2.0, rel=1e-2)
    assert V.growth_ratio(traj("linear", RESOLVED, {}), 1) == pytest.approx(2.0, rel=1e-2)


def test_linear_growth_on_resolved_pairs_fails_even_while_learning_others():
    """60% of the late duels on a resolved pair, 40% on one still being learnt: the old
    rule (learning share ≥ 0.25 × stuck share) protected it; doubling regret at two
    successive doublings with sustained duels on resolved pairs is FAIL."""
    late = {(1, 2): 6000.0, (0, 1): 4000.0}
    runs = [traj("linear", RESOLVED, late, 0.02, s) for s in range(10)]
    chk = V.consistency_check(runs, datasets.load("cyclic"), H, 10)
    assert chk.statistic["learning_share"] >= V.LEARNING * chk.statistic["stuck_share"]
    assert chk.verdict == "FAIL" and "doubled" in chk.message, chk.message


def test_linear_growth_while_exploring_unresolved_pairs_is_not_a_fail():
    """Every late duel on a pair not yet resolved (an explore phase): no FAIL.  Regret
    doubling with t is faster than log T at this T (WARN, to be confirmed at 4T); the
    same late duels after a large early regret are undecided, with the deciding T."""
    runs = [traj("linear", RESOLVED, {(0, 1): 10000.0}, 0.02, s) for s in range(10)]
    chk = V.consistency_check(runs, datasets.load("cyclic"), H, 10)
    assert chk.verdict == "WARN" and chk.rule == "super-logarithmic", chk.message
    assert V.to_confirm(chk)
    runs = [traj("late-linear", RESOLVED, {(0, 1): 10000.0}, 0.02, s) for s in range(10)]
    chk = V.consistency_check(runs, datasets.load("cyclic"), H, 10)
    assert chk.verdict == "INCONCLUSIVE", chk.message
    # the horizon that would decide: at its first-half rate (10 duels in H/2 steps) pair
    # (0, 1) has 1e-3 · t/2 duels by t, resolved once that reaches 4 ln t / d(0.6, 1/2)
    # (d = 0.020136): 2500 < 3067 at t = 5e6, 5000 > 3203 at t = 1e7 -> T = 1e7 (1-2-5 steps)
    T2 = chk.statistic["suggested_T"]
    assert T2 == 10_000_000 and f"T = {T2} would decide" in chk.message


def test_logarithmic_growth_passes():
    runs = [traj("log", RESOLVED, {(0, 1): 10.0, (0, 0): 9990.0}, 0.02, s) for s in range(10)]
    assert V.consistency_check(runs, datasets.load("cyclic"), H, 10).verdict == "PASS"


def test_starved_runs_fail_and_front_loaded_evidence_does_not():
    """No regret after H/2 in every run: FAIL if the evidence N d / log H is outside
    R_i1 ([K16] Lemma 1), not if the algorithm explored enough before stopping."""
    M = datasets.load("cyclic")
    little = {(0, 1): 20.0, (0, 2): 20.0, (0, 3): 20.0, (1, 2): 20.0, (0, 0): 9000.0}
    plenty = {p: 5000.0 for p in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]}
    for half, verdict in ((little, "FAIL"), (plenty, "PASS")):
        runs = [traj("log", half, {(0, 0): 10000.0}) for _ in range(5)]
        for r in runs:
            r.regret["komiyama"] = np.minimum(r.regret["komiyama"], 100.0)
        assert all(V.starved(r, M)[0] is (verdict == "FAIL") for r in runs)
        chk = V.consistency_check(runs, M, H, 5)
        assert chk.verdict == verdict, chk.message


def test_one_starved_run_among_learning_runs_is_not_a_fail():
    M = datasets.load("cyclic")
    learning = [traj("log", RESOLVED, {(0, 1): 10.0, (0, 0): 9990.0}) for _ in range(4)]
    lone = traj("log", {(0, 0): 10000.0}, {(0, 0): 10000.0})
    assert V.starved(lone, M)[0]
    assert V.consistency_check(learning + [lone], M, H, 5).verdict != "FAIL"


# -- growth from the exact record, faster than log T, a share of runs (issue 32) ----------

def test_doubling_ratio_is_read_at_the_exact_counts_not_interpolated():
    """A step-shaped regret (all of an epoch's regret in its first duels, epochs doubling:
    R = 2^k after epoch k) recorded by the judge: R(H)/R(H/2) from the record equals the
    brute-force cumulative sum at H and H/2, although linear interpolation between the
    log-spaced checkpoints alone gives another value."""
    from duelbound.checks.verify.record import duel_summary

    M = datasets.load("cyclic")   # pair (1, 2) carries regret, (0, 0) none
    n = 1 << 14
    pairs = np.zeros((n, 2), dtype=np.int32)
    for k in range(4, 14):        # epoch [2^k, 2^(k+1)): its first 2^(k/2) duels pay
        pairs[1 << k: (1 << k) + int(2 ** (k / 2))] = (1, 2)
    rec = SimpleNamespace(steps=n, **{k: v for k, v in duel_summary(M, pairs, n).items()
                                      if k != "steps"})
    from duelbound.theory.regret import regret_matrix
    cum = np.cumsum(regret_matrix(M, "komiyama")[pairs[:, 0], pairs[:, 1]])
    exact = cum[n - 1] / cum[n // 2 - 1]
    assert V.doubling_ratio(rec) == pytest.approx(exact, rel=1e-12)
    ck = np.asarray(rec.checkpoints)
    logspaced = np.setdiff1d(ck, [n >> b for b in range(1, 7)])
    R = np.asarray(rec.regret["komiyama"])[np.isin(ck, logspaced)]
    interpolated = np.interp(n, logspaced, R) / np.interp(n // 2, logspaced, R)
    # by hand: epochs 4..12 pay 4+5+8+11+16+22+32+45+64 = 207 duels, epoch 13 pays 90
    assert exact == pytest.approx(297 / 207, rel=1e-12) and abs(interpolated - exact) > 0.1


def test_log_doubling_is_the_ratio_of_c_log_t():
    for t in (2e4, 8e4):
        assert V.log_doubling(t) == pytest.approx(math.log(t) / math.log(t / 2))
    assert V.log_doubling(2e4) == pytest.approx(1.0753, abs=1e-4)


LOG_LATE = {(0, 1): 10.0, (0, 0): 9990.0}
STUCK_LATE = {(1, 2): 10000.0}


@pytest.mark.parametrize("power, verdict, rule", [
    (0.5, "WARN", "super-logarithmic"),     # √T: 1.414 at both doublings
    (0.25, "PASS", "logarithmic"),          # T^0.25: 1.19, below 1.25 (the rule's reach)
])
def test_regret_faster_than_log_t_warns(power, verdict, rule):
    runs = [traj("power", RESOLVED, LOG_LATE, 0.0, s, power=power) for s in range(10)]
    chk = V.consistency_check(runs, datasets.load("cyclic"), H, 10)
    assert (chk.verdict, chk.rule) == (verdict, rule), chk.message
    assert chk.statistic["doubling_ratio"] == pytest.approx(2 ** power, rel=1e-3)


def test_log_t_passes_and_an_uncertain_ratio_goes_to_a_longer_horizon():
    runs = [traj("log", RESOLVED, LOG_LATE, 0.02, s) for s in range(10)]
    assert V.consistency_check(runs, datasets.load("cyclic"), H, 10).rule == "logarithmic"
    # exponents 0.1 .. 0.7: mean ratio 1.31 >= 1.25, its 99% interval reaches below
    runs = [traj("power", RESOLVED, LOG_LATE, 0.0, s, power=a)
            for s, a in enumerate(np.linspace(0.1, 0.7, 5))]
    chk = V.consistency_check(runs, datasets.load("cyclic"), H, 5)
    g, lo = chk.statistic["doubling_ratio"], chk.statistic["doubling_ratio_ci"][0]
    assert lo < V.SUPERLOG_RATIO <= g
    assert (chk.verdict, chk.rule) == ("INCONCLUSIVE", "super-log-undecided"), chk.message
    assert chk.statistic["suggested_T"] == 4 * H


def _binomial_tail(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))


@pytest.mark.parametrize("stuck, n_matrices, verdict, rule", [
    # level 0.01 / (matrices x 3 looks); P(X >= k | 10 runs, rate 0.02):
    (4, 4, "FAIL", "linear-in-share"),           # 3.1e-5 <= 0.01 / 12
    (3, 1, "FAIL", "linear-in-share"),           # 8.6e-4 <= 0.01 / 3
    (3, 4, "INCONCLUSIVE", "share-undecided"),   # 8.6e-4 > 0.01 / 12: more runs decide
    (2, 1, "INCONCLUSIVE", "share-undecided"),   # 0.016 > 0.01 / 3
    (1, 1, "PASS", "logarithmic"),               # one stuck run: no share question
])
def test_linear_in_a_share_of_runs(stuck, n_matrices, verdict, rule):
    runs = [traj("linear" if k < stuck else "log", RESOLVED,
                 STUCK_LATE if k < stuck else LOG_LATE, 0.02, k) for k in range(10)]
    runs = runs[stuck:] + runs[:stuck]     # the stuck ones are runs 10 - stuck .. 9
    chk = V.consistency_check(runs, datasets.load("cyclic"), H, 10, n_matrices)
    assert (chk.verdict, chk.rule) == (verdict, rule), chk.message
    if stuck >= 2:
        assert chk.statistic["share_p_value"] == pytest.approx(
            _binomial_tail(stuck, 10, V.RUN_RATE_NULL))
        assert chk.statistic["inconsistent_runs"] == list(range(10 - stuck, 10))
        assert ", ".join(map(str, range(10 - stuck, 10))) in chk.message


def test_super_logarithmic_warn_needs_three_runs():
    """One or two runs give no interval over runs: a √T-looking run stays undecided."""
    from duelbound.checks.verify import consistency as C

    class E:  # the only fields _superlog reads
        superlog, g0, g1, g0_lo, g0_hi, g1_lo, g1_hi = True, 1.41, 1.41, 1.41, 1.41, 1.41, 1.41

    assert C._superlog(E(), 2, {}, "m") is None
    chk = C._superlog(E(), 3, {}, "m")
    assert chk is not None and (chk.verdict, chk.rule) == ("WARN", "super-logarithmic")

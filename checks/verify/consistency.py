"""The consistency check of ``duelbound verify``: does the regret grow linearly, faster
than log T, or logarithmically — or is it undecided at this T?

Per run, the late duels (t in (H/2, H]) on pairs already resolved (:data:`RESOLVE`), on
pairs still learnt, and the exact growth and doubling ratios of the komiyama regret;
over the runs their 99% intervals.  The rules: ``stuck`` and ``linear`` (linear growth
over the runs), ``linear-per-run`` and ``starved`` (every run inconsistent on its own),
``linear-in-share`` / ``share-undecided`` (a share of the runs, binomial test),
``super-logarithmic`` (WARN), and the undecided or logarithmic outcomes
(docs/verification.md §3.4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...theory.kl import kl_half
from ...theory.tournament import copeland_winners
from .check import Check, regret_pairs
from .statistics import bonferroni, mean_ci

__all__ = ["consistency_check", "RESOLVE", "STUCK_FAIL", "LEARNING", "LATE_OK", "GROWTH_OK",
           "LINEAR_RATIO", "STUCK_RUN", "MIN_RUNS_ALL", "SUPERLOG_RATIO", "RUN_RATE_NULL",
           "SHARE_ALPHA", "SHARE_LOOKS", "nice_horizon", "regret_at", "growth_ratio",
           "doubling_ratio", "starved", "log_doubling", "share_p_value"]

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
#: Super-logarithmic growth: the lower ends of the 99% intervals of the doubling ratios
#: g = R(H)/R(H/2) and R(H/2)/R(H/4) both at least SUPERLOG_RATIO (= 2^0.32; log T gives
#: 1 + log 2 / log(H/2), 1.075 at H = 2·10⁴; √T gives 1.414; docs/verification.md §3.4c).
SUPERLOG_RATIO = 1.25
#: A run is *inconsistent on its own* (stuck: >= STUCK_RUN of its late duels on resolved
#: pairs, or starved).  Null hypothesis of the share-of-runs rule: a correct algorithm
#: has at most this rate of such runs (measured on the bundled and pure-Python correct
#: algorithms: 0 of 360 runs, 99% upper bound 0.013; docs/verification.md §3.4c).
RUN_RATE_NULL = 0.02
#: Level of the one-sided binomial test on the number of inconsistent runs, family-wise
#: over the suite's matrices and the SHARE_LOOKS looks of the sequential schedule (10, 20,
#: 40 runs: Bonferroni over both).
SHARE_ALPHA = 0.01
SHARE_LOOKS = 3


def nice_horizon(t: float) -> int:
    """``t`` rounded up to 1, 2 or 5 × 10^k."""
    if not math.isfinite(t) or t <= 1:
        return 1
    e = 10 ** math.floor(math.log10(t))
    for f in (1, 2, 5, 10):
        if f * e >= t:
            return int(f * e)
    return int(10 * e)



def _late(run) -> tuple[np.ndarray, np.ndarray, int]:
    """(N at H/2, N in (H/2, H], H) of one run, symmetric counts incl. self-duels."""
    Nh = np.asarray(run.counts["half"], dtype=float)
    Nf = np.asarray(run.counts["final"], dtype=float)
    return Nh, Nf - Nh, int(run.steps)


def regret_at(run, t: int) -> float:
    """The komiyama regret R(t) of ``run`` at a recorded duel count ``t`` (exact: read
    from the judge's record, :func:`.record.duel_summary`), nan where not recorded."""
    ck = np.asarray(run.checkpoints if run.checkpoints is not None else [], dtype=np.int64)
    k = np.flatnonzero(ck == int(t))
    return float(run.regret["komiyama"][int(k[0])]) if k.size else math.nan


def growth_ratio(run, back: int = 0) -> float:
    """ρ = [R(H_b) − R(H_{b+1})] / [R(H_{b+1}) − R(H_{b+2})] of the komiyama regret, with
    H_b = H // 2^b, H the run's duels and b = ``back``: 1 for logarithmic regret, √2 for
    √T, 2 for linear; nan if undefined.  R is read at those exact duel counts."""
    H = int(run.steps)
    q1, q2, q4 = (regret_at(run, H >> (back + k)) for k in range(3))
    d1, d2 = q2 - q4, q1 - q2
    if d1 != d1 or d2 != d2:
        return math.nan
    return d2 / d1 if d1 > 0 else (1.0 if d2 <= 0 else math.nan)


def doubling_ratio(run, back: int = 0) -> float:
    """g = R(H_b) / R(H_{b+1}) with H_b = H // 2^b (exact record): 1 + log 2 / log(t/2)
    for R = c log t (≈ 1.07 at t = 2·10⁴), 2^a for R = c t^a (√T: 1.414), 2 for linear;
    nan when R(H_{b+1}) = 0."""
    H = int(run.steps)
    num, den = regret_at(run, H >> back), regret_at(run, H >> (back + 1))
    return num / den if den > 0 else math.nan


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
    reg = regret_pairs(M)
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


@dataclass(frozen=True)
class _LateDuels:
    """One run's late duels (t in (H/2, H]), as :func:`consistency_check` measures them."""

    share: float          # duels with regret, over H/2
    stuck: float          # ... on pairs resolved at H/2 (or self-duels of non-winners)
    learn: float          # duels on pairs not yet resolved, over H/2
    rho: float            # growth ratio at the last doubling
    rho2: float           # ... at the one before
    g0: float             # doubling ratio R(H)/R(H/2) (exact record)
    g1: float             # ... R(H/2)/R(H/4)
    need: float           # horizon at which the pairs still paid for would be resolved
    starving: tuple       # :func:`starved`
    late_reg: np.ndarray  # late duels with regret per pair (upper triangle)


def _needed_horizon(late_reg: np.ndarray, Nh: np.ndarray, H: int, paid: np.ndarray,
                    d: np.ndarray) -> float:
    """Horizon at which the pairs carrying 90% of the late regret would be resolved, at
    the rate they were dueled before H/2 (linear growth)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(paid, Nh / max(H / 2, 1), 0.0)   # duels per step
    need = 0.0
    weights = late_reg[paid]
    if weights.sum() > 0:
        idx = np.argwhere(paid)
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
    return need


def _late_duels(r, M, reg: np.ndarray, d: np.ndarray) -> _LateDuels:
    K = M.K
    off = ~np.eye(K, dtype=bool)
    Nh, Lw, H = _late(r)
    half = H - H // 2
    resolved = np.where(off, Nh >= RESOLVE * math.log(max(H, 3)) / np.maximum(d, 1e-12),
                        True)
    up = np.triu(np.ones((K, K), dtype=bool))   # each pair once (counts are symmetric)
    late_reg = np.where(up & reg, Lw, 0.0)
    return _LateDuels(share=late_reg.sum() / half,
                      stuck=np.where(resolved, late_reg, 0.0).sum() / half,
                      learn=np.where(up & off & ~resolved, Lw, 0.0).sum() / half,
                      rho=growth_ratio(r), rho2=growth_ratio(r, 1),
                      g0=doubling_ratio(r), g1=doubling_ratio(r, 1),
                      need=_needed_horizon(late_reg, Nh, H, up & reg & off, d),
                      starving=starved(r, M), late_reg=late_reg)


def consistency_check(runs: list, M, T: int, expected_runs: int, n_matrices: int = 1
                      ) -> Check:
    """Is the regret established to grow linearly, faster than log T, logarithmic already,
    or undecided?

    Per run, with H its last duel: the *late share* (duels with regret in (H/2, H],
    over H/2), the *stuck share* (those on pairs resolved at H/2, or self-duels of
    non-winners, which carry no information), the growth ratio
    ρ = [R(H) − R(H/2)] / [R(H/2) − R(H/4)] and the doubling ratios
    g = R(H)/R(H/2), R(H/2)/R(H/4) of the komiyama regret (exact record).
    FAIL: linear growth over the runs (:func:`_linear_growth`), every run inconsistent
    on its own, or a share of the runs inconsistent on their own beyond what a correct
    algorithm shows (:func:`_share_of_runs`, a binomial test at :data:`SHARE_ALPHA` over
    ``n_matrices``).  WARN: regret faster than log T (:func:`_superlog`).
    PASS: the late share is at most :data:`LATE_OK`, or ρ's interval lies below
    :data:`GROWTH_OK` — on all requested runs at the full horizon, with faster than log T
    not indicated.  Otherwise INCONCLUSIVE, with the horizon (or the runs) that would
    decide.
    """
    index = [k for k, r in enumerate(runs) if r.steps >= 16]
    used = [runs[k] for k in index]
    stat: dict[str, Any] = {"runs_used": len(used), "runs_requested": expected_runs}
    if not used:
        return Check("consistency", "INCONCLUSIVE", "no run recorded enough duels", stat,
                     rule="no-data")
    reg = regret_pairs(M)
    d = kl_half(np.asarray(M.values))
    late = [_late_duels(r, M, reg, d) for r in used]
    e = _Evidence.of(late)
    e = replace(e, inconsistent=tuple(index[k] for k in e.inconsistent))  # run numbers
    full = len(used) == expected_runs and all(r.steps == T for r in used)
    stat.update(e.statistic(), full_horizon=full, horizons=[int(r.steps) for r in used])
    named = _late_pairs(late, M, stat)
    msg = (f"late share of duels with regret {e.share:.3g}, on already-resolved pairs "
           f"{e.stuck:.3g} [{e.k_lo:.3g}, {e.k_hi:.3g}], on pairs still learnt {e.learn:.3g}, "
           f"growth ratio {e.rho:.3g} (log: 1, linear: 2), R(H)/R(H/2) {e.g0:.3g} "
           f"[{e.g0_lo:.3g}, {e.g0_hi:.3g}] (log T: {log_doubling(T):.3g}, √T: 1.41); "
           f"{len(used)}/{expected_runs} runs")
    learning = e.learn >= LEARNING * e.stuck
    decided = _linear_growth(e, learning, len(used), stat, msg, named)
    if decided is None and len(used) >= MIN_RUNS_ALL and len(e.inconsistent) == len(used):
        decided = _inconsistent_in_every_run(late, M, stat, msg)
    decided = decided or _share_of_runs(e, len(used), n_matrices, stat, msg) or \
        _superlog(e, len(used), stat, msg)
    if decided is not None:
        return decided
    logarithmic = e.share <= LATE_OK or (e.r_hi == e.r_hi and e.r_hi <= GROWTH_OK)
    return _undecided_or_logarithmic(late, T, stat, msg, named, full,
                                     logarithmic and not e.superlog_possible,
                                     e.stuck > STUCK_FAIL and not learning, e)


def log_doubling(t: float) -> float:
    """R(t)/R(t/2) for R = c log t: 1 + log 2 / log(t/2) (the log-T value of g)."""
    return 1.0 + math.log(2) / math.log(max(t / 2, 2.0))


def share_p_value(inconsistent: int, runs: int) -> float:
    """P(X ≥ ``inconsistent``) for X ~ Binomial(``runs``, :data:`RUN_RATE_NULL`): the
    one-sided p-value of "more runs inconsistent on their own than a correct algorithm
    shows"."""
    from scipy import stats

    return float(stats.binom.sf(inconsistent - 1, runs, RUN_RATE_NULL))


def _share_of_runs(e: _Evidence, n_runs: int, n_matrices: int, stat: dict[str, Any],
                   msg: str) -> Check | None:
    """FAIL (rule ``linear-in-share``) when the number of runs inconsistent on their own
    (stuck or starved) is significant against :data:`RUN_RATE_NULL` at
    :data:`SHARE_ALPHA` / (``n_matrices`` · :data:`SHARE_LOOKS`); INCONCLUSIVE (rule
    ``share-undecided``: more runs would decide) when at least two are and the test is
    not yet significant."""
    s = len(e.inconsistent)
    if s < 2 or n_runs < MIN_RUNS_ALL:   # as the every-run rule: fewer runs are no evidence
        return None
    p = share_p_value(s, n_runs)
    level = bonferroni(SHARE_ALPHA, n_matrices * SHARE_LOOKS)
    stat.update(share_p_value=p, share_level=level)
    which = ", ".join(str(k) for k in e.inconsistent)
    if p <= level:
        return Check("consistency", "FAIL", msg + f" — linear in a share of runs: {s} of "
                     f"{n_runs} runs (runs {which}) spend >= {STUCK_RUN:.0%} of their late "
                     f"duels on resolved pairs or stopped learning (binomial p = {p:.2g} "
                     f"against a rate of {RUN_RATE_NULL:g} for a correct algorithm, level "
                     f"{level:.2g})", stat, rule="linear-in-share")
    return Check("consistency", "INCONCLUSIVE", msg + f" — {s} of {n_runs} runs (runs "
                 f"{which}) inconsistent on their own (binomial p = {p:.2g}, level "
                 f"{level:.2g}): more runs would decide", stat, rule="share-undecided")


def _superlog(e: _Evidence, n_runs: int, stat: dict[str, Any], msg: str) -> Check | None:
    """WARN (rule ``super-logarithmic``) when both doubling ratios' 99% intervals lie at
    or above :data:`SUPERLOG_RATIO`: regret grows faster than log T (√T, T^a).  Needs
    :data:`MIN_RUNS_ALL` runs: the stated false-alarm rate rests on an interval over runs,
    and one or two runs give none (a correct RUCB at T = 1500 in one run showed both
    ratios above 1.25); with fewer the check stays undecided and names the T that would
    decide."""
    if n_runs < MIN_RUNS_ALL or not e.superlog:
        return None
    a = math.log2(e.g0)
    return Check("consistency", "WARN", msg + f" — regret grows faster than log T: "
                 f"R(H)/R(H/2) {e.g0:.3g} [{e.g0_lo:.3g}, {e.g0_hi:.3g}] and R(H/2)/R(H/4) "
                 f"{e.g1:.3g} [{e.g1_lo:.3g}, {e.g1_hi:.3g}] both above {SUPERLOG_RATIO} "
                 f"(like T^{a:.2f}; log T gives ≈ 1.07)", stat, rule="super-logarithmic")


def _linear_growth(e: _Evidence, learning: bool, n_runs: int, stat: dict[str, Any], msg: str,
                   named: str) -> Check | None:
    """FAIL when linear growth is established over the runs: late duels on resolved pairs
    while not learning (rule ``stuck``), or regret doubling at the last two doublings
    with late duels on resolved pairs (rule ``linear``); else None."""
    if not learning and (e.k_lo > STUCK_FAIL or (n_runs == 1 and e.stuck > 2 * STUCK_FAIL)):
        return Check("consistency", "FAIL", msg + f" — regret grows linearly: it keeps "
                     f"playing pairs it has already resolved ({named})", stat, rule="stuck")
    if e.r_lo >= LINEAR_RATIO and e.r2_lo >= LINEAR_RATIO and e.k_lo > STUCK_FAIL:
        return Check("consistency", "FAIL", msg + f" — regret grows linearly: it doubled with "
                     f"t over the last two doublings (previous ratio {e.rho2:.3g} "
                     f"[{e.r2_lo:.3g}, {e.r2_hi:.3g}]) while at least {e.k_lo:.0%} of the late "
                     f"duels went to pairs it had already resolved ({named})", stat,
                     rule="linear")
    return None


@dataclass(frozen=True)
class _Evidence:
    """The runs' late duels, as means with their 99% intervals (:func:`mean_ci`)."""

    share: float
    s_lo: float
    s_hi: float
    stuck: float
    k_lo: float
    k_hi: float
    rho: float
    r_lo: float
    r_hi: float
    rho2: float
    r2_lo: float
    r2_hi: float
    g0: float
    g0_lo: float
    g0_hi: float
    g1: float
    g1_lo: float
    g1_hi: float
    learn: float
    starved_runs: int
    stuck_runs: int
    inconsistent: tuple[int, ...]   # indices of the runs inconsistent on their own

    @classmethod
    def of(cls, late: list[_LateDuels]) -> _Evidence:
        return cls(*mean_ci([x.share for x in late]), *mean_ci([x.stuck for x in late]),
                   *mean_ci([x.rho for x in late]), *mean_ci([x.rho2 for x in late]),
                   *mean_ci([x.g0 for x in late]), *mean_ci([x.g1 for x in late]),
                   learn=float(np.mean([x.learn for x in late])),
                   starved_runs=int(sum(bool(x.starving[0]) for x in late)),
                   stuck_runs=int(sum(bool(x.stuck >= STUCK_RUN) for x in late)),
                   inconsistent=tuple(k for k, x in enumerate(late)
                                      if x.starving[0] or x.stuck >= STUCK_RUN))

    @property
    def superlog(self) -> bool:
        """Both doubling ratios' intervals at or above :data:`SUPERLOG_RATIO`."""
        return bool(self.g0_lo >= SUPERLOG_RATIO and self.g1_lo >= SUPERLOG_RATIO)

    @property
    def superlog_possible(self) -> bool:
        """Both doubling ratios' point estimates at or above :data:`SUPERLOG_RATIO`."""
        return bool(self.g0 >= SUPERLOG_RATIO and self.g1 >= SUPERLOG_RATIO)

    def statistic(self) -> dict[str, Any]:
        return dict(late_share=self.share, late_share_ci=[self.s_lo, self.s_hi],
                    stuck_share=self.stuck, stuck_share_ci=[self.k_lo, self.k_hi],
                    learning_share=self.learn, growth_ratio=self.rho,
                    growth_ratio_ci=[self.r_lo, self.r_hi], growth_ratio_previous=self.rho2,
                    growth_ratio_previous_ci=[self.r2_lo, self.r2_hi],
                    starved_runs=self.starved_runs, stuck_runs=self.stuck_runs,
                    doubling_ratio=self.g0, doubling_ratio_ci=[self.g0_lo, self.g0_hi],
                    doubling_ratio_previous=self.g1,
                    doubling_ratio_previous_ci=[self.g1_lo, self.g1_hi],
                    inconsistent_runs=list(self.inconsistent))


def _late_pairs(late: list[_LateDuels], M, stat: dict[str, Any]) -> str:
    """The (up to) three pairs with the most late regret over the runs, named; also into
    ``stat["late_regret_pairs"]`` as [i, j, duels]."""
    late_tot = np.zeros((M.K, M.K))
    for x in late:
        late_tot += x.late_reg
    top = sorted(((late_tot[i, j], i, j) for i, j in np.argwhere(late_tot > 0)),
                 reverse=True)[:3]
    stat["late_regret_pairs"] = [[int(i), int(j), float(v)] for v, i, j in top]
    return ", ".join(f"{M.pair_label(i, j) if hasattr(M, 'pair_label') else (i, j)} "
                     f"({v / max(late_tot.sum(), 1):.0%})" for v, i, j in top)


def _inconsistent_in_every_run(late: list[_LateDuels], M, stat: dict[str, Any], msg: str
                               ) -> Check:
    """Every run starved or stuck on its own: FAIL, rule "starved" when a run starved,
    "linear-per-run" when none did (linear at this T, confirmed at 4T: an algorithm
    that knows T may still be exploring)."""
    starving = [x.starving for x in late]
    n_starved = stat["starved_runs"]
    worst_run = max((sv for sv in starving if sv[0]), key=lambda sv: -sv[1], default=None)
    detail = ""
    if worst_run is not None and worst_run[2] is not None:
        i1, i2, lv = worst_run[2]
        detail = (f"; e.g. winner {M.label(i1) if hasattr(M, 'label') else i1} vs rival "
                  f"{M.label(i2) if hasattr(M, 'label') else i2} (level {lv}): "
                  f"{worst_run[1]:.2g} of the evidence log T needs")
    rest = len(late) - n_starved
    return Check("consistency", "FAIL", msg + f" — inconsistent in every run: {n_starved} "
                 "stopped paying regret before their evidence N d / log T reached R_i1 "
                 "([K16] Lemma 1: it knows the matrix or stopped learning)"
                 + (f", {rest} spent >= {STUCK_RUN:.0%} of their late duels on resolved "
                    "pairs" if rest else "") + detail, stat,
                 rule="linear-per-run" if n_starved == 0 else "starved")


def _undecided_or_logarithmic(late: list[_LateDuels], T: int, stat: dict[str, Any], msg: str,
                              named: str, full: bool, logarithmic: bool, probably_linear: bool,
                              e: _Evidence) -> Check:
    """No linear growth established: PASS, INCONCLUSIVE (with the deciding T) or WARN."""
    if logarithmic and full:
        return Check("consistency", "PASS", msg, stat, rule="logarithmic")
    if logarithmic:
        return Check("consistency", "INCONCLUSIVE", msg + " — logarithmic on the runs "
                     "that finished, but not every run reached T", stat,
                     rule="logarithmic-partial")
    if probably_linear:
        return Check("consistency", "WARN", msg + f" — probably linear (late regret on "
                     f"resolved pairs: {named}); more runs would establish it", stat,
                     rule="probably-linear")
    if e.superlog_possible:
        stat["suggested_T"] = 4 * T
        return Check("consistency", "INCONCLUSIVE", msg + f" — faster than log T not "
                     f"excluded: R(H)/R(H/2) {e.g0:.3g} and R(H/2)/R(H/4) {e.g1:.3g} are at "
                     f"or above {SUPERLOG_RATIO}, their intervals are not; T = {4 * T} "
                     "would decide", stat, rule="super-log-undecided")
    needs = [x.need for x in late]
    horizon = nice_horizon(max(needs) if needs else 10 * T)
    stat["suggested_T"] = horizon
    return Check("consistency", "INCONCLUSIVE", msg + " — not yet in its logarithmic regime "
                 f"at this T (still paying for pairs it is learning: {named}); "
                 f"T = {horizon} would decide", stat, rule="not-yet-logarithmic")


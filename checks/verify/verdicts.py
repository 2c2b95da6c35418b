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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...theory.kl import kl_half
from ...theory.regret import regret_matrix
from ...theory.tournament import copeland_winners
from .judge import PROTOCOL_ERRORS
from .record import NOT_RUN
from .statistics import (
    REFERENCE_ALPHA,
    bonferroni,
    mean_ci,
    regret_ratio_interval,
    van_elteren_p,
)

__all__ = ["ORDER", "Check", "CStar", "c_star", "worst", "protocol_check", "consistency_check",
           "slope_check", "claimed_check", "reference_check", "pooled_reference_check",
           "matrix_checks",
           "suite_checks", "confirmed_linear", "beyond_budget", "is_linear", "LINEAR_RULES",
           "nice_horizon", "growth_ratio", "doubling_ratio", "regret_at", "starved",
           "STUCK_FAIL", "RESOLVE", "LINEAR_RATIO", "STUCK_RUN", "SUPERLOG_RATIO",
           "RUN_RATE_NULL", "SHARE_ALPHA", "SHARE_LOOKS", "log_doubling",
           "share_p_value", "MORE_RUNS_RULES", "SUPERLOG_RULES", "to_confirm", "wants_runs"]

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
RATIO_WARN = 1.15     # pooled Hodges–Lehmann ratio above which "worse" is worth a WARN
POOLED_ALPHA = 0.01   # one-sided level of the suite-level van Elteren test


@dataclass(frozen=True)
class Check:
    """One verdict with the statistic behind it, made here and never edited afterwards.

    Attributes
    ----------
    name : str
        The check (``"protocol"``, ``"consistency"``, ``"lower bound"``, ...).
    verdict : str
        PASS, INCONCLUSIVE, WARN or FAIL (:data:`ORDER`).
    message : str
        One line for the report (it may quote text from the algorithm's process).
    statistic : dict
        The numbers behind the verdict (JSON-ready).
    rule : str
        The rule of this module that decided the verdict (e.g. ``"linear"``,
        ``"partial-runs"``).
    """

    name: str
    verdict: str
    message: str
    statistic: dict[str, Any] = field(default_factory=dict)
    rule: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "verdict": self.verdict, "message": self.message,
                "statistic": self.statistic, "rule": self.rule}


@dataclass(frozen=True)
class CStar:
    """C* of a matrix as the checks use it ([K16] Th. 2): the value, the allocation q*
    (K x K), or the solver's error instead."""

    value: float | None
    allocation: np.ndarray | None = None
    error: str | None = None


def worst(verdicts: Iterable[str]) -> str:
    """The worst verdict of ``verdicts`` (PASS when there is none)."""
    return max(verdicts, key=ORDER.__getitem__, default="PASS")


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
    reg = _regret_pairs(M)
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
        _superlog(e, stat, msg)
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


def _superlog(e: _Evidence, stat: dict[str, Any], msg: str) -> Check | None:
    """WARN (rule ``super-logarithmic``) when both doubling ratios' 99% intervals lie at
    or above :data:`SUPERLOG_RATIO`: regret grows faster than log T (√T, T^a)."""
    if not e.superlog:
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


def c_star(M) -> CStar:
    """C* of ``M`` with its allocation q* ([K16] Th. 2, by
    :func:`duelbound.solvers.cstar.lower_bound`), or the solver's error (reported in the
    checks, never hidden)."""
    try:
        from ...solvers.cstar import lower_bound

        res = lower_bound(M, certify=False)
        return CStar(float(res.value), np.asarray(res.allocation, dtype=float))
    except Exception as exc:  # noqa: BLE001
        return CStar(None, None, f"{type(exc).__name__}: {exc}")


def _allocation_reason(M, runs: list, ref_runs: list, T: int, q: np.ndarray | None
                       ) -> tuple[str, list]:
    """Pairs the user samples more / less than the reference, against q* of [K16]
    (``q``: None when C* could not be solved; the reason is then without it)."""
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


# --------------------------------------------------------------------------------------
# The protocol check: the judge's record of every run, the replay included.
# --------------------------------------------------------------------------------------

def _error_counts(every: list) -> tuple[dict[str, int], dict[str, Any] | None]:
    """Errors per kind over ``every`` run, and the first that is the algorithm's fault
    (a time limit is not: a slow run is INCONCLUSIVE)."""
    counts: dict[str, int] = {}
    first: dict[str, Any] | None = None
    for r in every:
        for kind, n in (r.error_counts or {}).items():
            counts[kind] = counts.get(kind, 0) + n
        if r.error and r.error.get("kind") not in NOT_RUN:
            counts.setdefault(r.error["kind"], 1)
        if first is None and r.error and r.error.get("kind") in PROTOCOL_ERRORS \
                and r.error["kind"] != "timeout":
            first = r.error
    return counts, first


def protocol_check(runs: list, twin, T: int) -> Check:
    """Did every run keep the protocol?  FAIL on the algorithm's first protocol error,
    processes left behind, a replay (same seeds) with another duel sequence, or a run
    with no duel; INCONCLUSIVE on an environment error, a time limit or runs not made."""
    every = runs + ([twin] if twin is not None else [])
    counts, first = _error_counts(every)
    leftovers = sum(r.leftover_processes for r in every)
    if leftovers:
        counts["leftover-processes"] = leftovers
    stat: dict[str, Any] = {"error_counts": counts, "runs": len(runs),
                            "duels": int(sum(r.steps for r in runs))}
    env = next((r.environment_error for r in every if r.environment_error), None)
    if first is not None:
        stat["first_error"] = first
        extra = ", ".join(f"{n} × {k}" for k, n in sorted(counts.items()))
        return Check("protocol", "FAIL", f"{first['message']} (step {first.get('step')}); "
                     f"in all runs: {extra}", stat, rule="protocol-error")
    if leftovers:
        return Check("protocol", "FAIL", f"{leftovers} process(es) the algorithm started were "
                     "still running after its runs (killed)", stat, rule="leftover-processes")
    if env is not None:
        stat["environment_error"] = env
        return Check("protocol", "INCONCLUSIVE", "environment error, not the algorithm: "
                     f"{env['message']}", stat, rule="environment-error")
    if twin is not None and twin.ok and runs and runs[0].ok and runs[0].pairs_sha256:
        stat["deterministic"] = twin.pairs_sha256 == runs[0].pairs_sha256
        if not stat["deterministic"]:
            return Check("protocol", "FAIL",
                         "non-deterministic: the same seed and environment gave a different "
                         "duel sequence", stat, rule="non-deterministic")
    return _protocol_without_error(runs, every, T, stat)


def _protocol_without_error(runs: list, every: list, T: int, stat: dict[str, Any]) -> Check:
    slow = [r for r in every if r.error and r.error.get("kind") == "timeout"]
    if slow:
        r = slow[0]
        stat["first_error"] = r.error
        return Check("protocol", "INCONCLUSIVE", f"{len(slow)} run(s) hit the time limit: "
                     f"{r.error['message']}", stat, rule="time-limit")
    skipped = [r for r in every if r.error and r.error.get("kind") in NOT_RUN]
    if skipped:
        return Check("protocol", "INCONCLUSIVE", f"{len(skipped)} run(s) "
                     f"{skipped[0].error['message']}", stat, rule="not-run")
    if not runs or any(r.steps == 0 for r in runs):
        return Check("protocol", "FAIL", "a run recorded no duel", stat, rule="no-duel")
    rate = np.median([r.duels_per_s for r in runs]) if runs else 0.0
    stat["median_duels_per_s"] = float(rate)
    return Check("protocol", "PASS", f"{len(runs)} runs × T = {T}, no protocol error"
                 f"{', deterministic' if stat.get('deterministic') else ''} "
                 f"({rate:,.0f} duels/s)", stat, rule="clean")


# --------------------------------------------------------------------------------------
# The checks of one matrix, and the rules that act on checks already made.
# --------------------------------------------------------------------------------------

#: Rules of the consistency check that say "linear at this T" (confirmed at 4T when the
#: extension budget allows: :mod:`.schedule`).
LINEAR_RULES = ("linear", "linear-per-run", "linear-confirmed")
#: Rules of the consistency check whose question is "linear in a share of runs": more
#: runs at the same horizon decide them (:mod:`.schedule`).
MORE_RUNS_RULES = ("share-undecided", "probably-linear")


#: Rules of the consistency check that say "faster than log T at this T" (confirmed at 4T
#: like the linear ones: an algorithm that knows T may still be exploring at T).
SUPERLOG_RULES = ("super-logarithmic", "super-logarithmic-confirmed")


def is_linear(check: Check) -> bool:
    """Is ``check`` a consistency FAIL by linear growth (to be confirmed at 4T)?"""
    return check.name == "consistency" and check.verdict == "FAIL" and \
        check.rule in LINEAR_RULES


def to_confirm(check: Check) -> bool:
    """Is ``check`` a growth verdict seen at one horizon, to be confirmed at 4T: a linear
    consistency FAIL or a super-logarithmic WARN?"""
    if check.rule.endswith("-confirmed"):
        return False
    return is_linear(check) or (check.name == "consistency" and check.verdict == "WARN"
                                and check.rule in SUPERLOG_RULES)


def wants_runs(check: Check) -> bool:
    """Is ``check`` undecided on "linear in a share of runs" (more runs decide it)?"""
    return check.name == "consistency" and check.rule in MORE_RUNS_RULES


def matrix_checks(M, user: list, ref: list, twin, T: int, runs: int,
                  cstar: Callable[[], CStar], reference: str | None, claimed: float | None,
                  n_matrices: int) -> list[Check]:
    """The checks of one matrix from its runs (``user``, the reference's ``ref`` and the
    replay ``twin``): protocol, then — on runs that recorded duels — consistency, lower
    bound, claimed (with ``claimed``), reference (with ``reference``); a check on fewer
    than ``runs`` runs that reached T is never PASS.  ``cstar()`` gives the matrix's
    C* (the caller solves it once per matrix), asked for only when a run has duels."""
    checks = [protocol_check(user, twin, T)]
    with_data = [r for r in user if r.steps > 0 and r.counts]
    if with_data:
        ref_ok = [r for r in ref if r.ok]
        cs = cstar()
        cons = consistency_check(user, M, T, runs, n_matrices)   # run numbers kept
        checks.append(cons)
        checks.append(slope_check(with_data, ref_ok, cs.value, cs.error,
                                  cons.verdict == "PASS"))
        if claimed is not None:
            checks.append(claimed_check(with_data, cs.value, claimed))
        if reference:
            checks.append(reference_check(M, with_data, ref_ok, reference, T, n_matrices,
                                          cs))
    reached = sum(r.steps >= T for r in user)
    if reached < len(user):   # no survivorship bias: a statistic on a subset is never a PASS
        checks[1:] = [_partial_runs(c, reached, runs) for c in checks[1:]]
    return checks


def _partial_runs(check: Check, reached: int, runs: int) -> Check:
    if check.verdict != "PASS":
        return check
    return replace(check, verdict="INCONCLUSIVE", rule="partial-runs",
                   message=check.message + f" — only {reached} of {runs} runs reached T; "
                   "the others count up to their last duel")


def confirmed_linear(checks: list[Check], before: int, now: int) -> list[Check]:
    """Linear growth (or faster than log T) seen at T = ``before`` and again at ``now`` =
    4 ``before``: the consistency verdict is confirmed (rule ``linear-confirmed`` or
    ``super-logarithmic-confirmed``)."""
    out = []
    for c in checks:
        if to_confirm(c):
            c = replace(c, rule="linear-confirmed" if is_linear(c)
                        else "super-logarithmic-confirmed",
                        message=c.message + f" (seen at T = {before} and at T = {now}: "
                        "confirmed)")
        out.append(c)
    return out


def beyond_budget(checks: list[Check], horizon: int, next_T: int, cost: float,
                  allowed: float, extended: tuple[str, ...], more_runs: int | None = None,
                  why: str | None = None) -> list[Check]:
    """Undecided at ``horizon`` and the next stage does not run: each undecided check (one
    of ``extended``; a growth verdict seen at this T only; a share-of-runs question when
    ``more_runs`` is the number of runs that would be added) says so, with the stage and
    its estimated seconds — or ``why`` it is not run (the verdict is settled elsewhere).
    The verdicts stay."""
    nxt = f"{more_runs} more runs at T = {horizon}" if more_runs else f"T = {next_T}"
    because = f"not run: {why}" if why else \
        f"would take ~{cost:.0f} s more, beyond the budget ({allowed:g} s to extend)"
    stage = {"more_runs": more_runs, "more_runs_seconds": cost} if more_runs else \
        {"next_T": next_T, "next_T_seconds": cost}
    out = []
    for c in checks:
        if to_confirm(c):
            c = replace(c, message=c.message + f" [seen at T = {horizon} only: confirming "
                        f"at {nxt} {because}]")
        elif (c.name in extended and c.verdict == "INCONCLUSIVE") or wants_runs(c):
            c = replace(c, message=c.message + f" [undecided at T = {horizon}; {nxt} "
                        f"{because}]", statistic={**c.statistic, **stage})
        out.append(c)
    return out


def suite_checks(matrices: list[list[Check]], pooled: list, reference: str | None,
                 seed: int, any_partial: bool) -> tuple[list[Check], list[list[Check]]]:
    """The suite-level reference comparison, and what it does to the per-matrix checks:
    (suite checks, the matrices' checks).  A per-matrix reference WARN needs the suite's
    evidence (rule ``not-significant-over-suite``); the pooled check on runs that did not
    all reach T is never PASS (rule ``partial-runs``)."""
    if not reference or len(pooled) == 0:
        return [], matrices
    suite = pooled_reference_check(pooled, reference, seed=seed)
    if suite.verdict != "WARN":
        matrices = [[replace(c, verdict="PASS", rule="not-significant-over-suite",
                             message=c.message + " (not significant over the suite: no WARN)")
                     if c.name == "reference" and c.verdict == "WARN" else c for c in checks]
                    for checks in matrices]
    if any_partial and suite.verdict == "PASS":
        suite = replace(suite, verdict="INCONCLUSIVE", rule="partial-runs",
                        message=suite.message + " — on the runs that reached T only")
    return [suite], matrices

"""C* and C^E* of a matrix estimated from win counts, with their uncertainty.

A matrix estimated from win counts W (W_ij = times arm i beat arm j, µ̂_ij =
W_ij / (W_ij + W_ji)) is uncertain, and the regret constants of Komiyama et al.
2016 — C* (Theorem 2) and ECW-RMED's C^E* (§4.2, Theorems 4–5) — are sums of
r_p / d(µ_p, 1/2) terms that explode as a gap µ_p − 1/2 shrinks.
:func:`lower_bound_interval` reports the plug-in values on µ̂ together with

* an equal-tailed interval for each constant: by default the Bayesian credible
  interval under independent uniform priors, µ_ij ~ Beta(W_ij + 1, W_ji + 1) per
  pair (``method="posterior"``), or a parametric-bootstrap percentile interval
  (``method="bootstrap"``: W*_ij ~ Binomial(n_ij, µ̂_ij));
* the probability that the plug-in Copeland winner set is right and, per pair,
  the probability that its winner is flipped;
* the pairs whose uncertainty drives the interval (what to compare next);
* an *unbounded* upper end, with the pair that causes it, when the data cannot
  exclude a tie µ_p = 1/2 on a pair that C* (or C^E*) cannot do without.

Every draw is evaluated exactly: draws are grouped by tournament (the signs of
µ − 1/2), one family-generation LP per (tournament, Copeland winner) is built and
re-solved from its previous basis for the other draws of the group (in the
evidence variables x = q·d the feasible set depends on the tournament only), and
C^E* is the sorted-threshold rule of Komiyama et al. 2016, Theorem 5.  See
docs/uncertainty.md for the meaning of the interval and the measured coverage.

The work is split by job: :mod:`.draws` (the exact evaluator of the draws and the workers
that share them), :mod:`.divergence` (unbounded ends), :mod:`.sensitivity` (the pairs to
compare next) and :mod:`.interval_report` (the result and its rendering); this module
reads the counts, samples and assembles the report.

Examples
--------
>>> import numpy as np
>>> from duelbound.solvers import lower_bound_interval
>>> W = np.array([[0, 70, 65], [30, 0, 60], [35, 40, 0]])
>>> rep = lower_bound_interval(W, draws=200, seed=0)
>>> rep.winners, rep.cstar.lower < rep.cstar.plug_in < rep.cstar.upper
([0], True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import shown
from ..theory.errors import DuelboundError
from ..theory.matrix import PreferenceMatrix
from ..theory.posterior import sample_posterior, winner_set_shares
from ..theory.win_counts import as_win_counts, pairs_text, undefined_pairs
from .cstar import LP_MAX_K, LowerBoundResult, lower_bound
from .divergence import divergent_pairs
from .draws import (
    AUTO_CSTAR_SECONDS,
    DRAW_SECONDS,
    MIN_CSTAR_DRAWS,
    PARALLEL_MIN_SECONDS,
    REUSE_MIN_GROUP,
    WORKER_EFFICIENCY,
    DrawEvaluator,
    announce,
    auto_cstar_draws,
    estimate_cstar_seconds,
    estimate_draw_seconds,
    resolve_cstar_draws,
    solve_cstar_draws,
    square,
    tournament_ids,
)
from .ecw import ecw_bound
from .interval_report import (
    NOISY_SHARES_BELOW,
    BoundInterval,
    IntervalReport,
    PairUncertainty,
    bound_interval,
    pair_records,
)
from .oracle import losses_core
from .sensitivity import SENSITIVITY_BINS, first_order_shares, local_shares, share_errors

__all__ = ["lower_bound_interval", "IntervalReport", "BoundInterval", "PairUncertainty",
           "METHODS", "DEFAULT_DRAWS", "SENSITIVITY_BINS", "estimate_draw_seconds",
           "auto_cstar_draws", "estimate_cstar_seconds", "DRAW_SECONDS", "WORKER_EFFICIENCY",
           "AUTO_CSTAR_SECONDS", "MIN_CSTAR_DRAWS", "PARALLEL_MIN_SECONDS", "REUSE_MIN_GROUP",
           "NOISY_SHARES_BELOW"]

METHODS = ("posterior", "bootstrap")
#: Draws used when ``draws`` is not given.
DEFAULT_DRAWS = 1000
_SHOWN = 5  # winner sets kept


def _read_counts(counts: Any) -> tuple[np.ndarray, tuple[str, ...] | None, str | None]:
    """W (K×K, zero diagonal; int64, or float64 with paired halves from draws), arm names
    and name, validated by :func:`~duelbound.theory.counts.as_win_counts`."""
    C = as_win_counts(counts)
    return C.wins, C.arms, C.name


def lower_bound_interval(counts: Any, level: float = 0.95, method: str = "posterior",
                         draws: int = DEFAULT_DRAWS, seed: int | None = 0,
                         backend: str | None = None, break_ties: float | None = None,
                         progress: bool = False, cstar_draws: int | str | None = None,
                         workers: int = 1, plug_in: LowerBoundResult | None = None,
                         scheduler: str | None = None) -> IntervalReport:
    """C* and C^E* of the matrix estimated from win counts, with intervals.

    Parameters
    ----------
    counts : array_like or object with ``.wins``
        K×K non-negative integers, W_ij = times arm i beat arm j (diagonal ignored),
        or an object with ``wins`` (and optional ``arms``, ``name``), e.g. a
        ``WinCounts``.
    level : float
        Interval level in (0, 1).
    method : {"posterior", "bootstrap"}
        ``"posterior"``: equal-tailed credible interval of C*(µ) under independent
        µ_ij ~ Beta(W_ij + 1, W_ji + 1) (uniform priors); every pair may be uncompared.
        ``"bootstrap"``: percentile interval of C*(µ̂*) with W*_ij ~ Binomial(n_ij,
        µ̂_ij); needs every pair compared; a resample with a tie counts as +inf.
    draws : int
        Monte Carlo draws (each is a matrix; C* is solved exactly on each).
    seed : int, optional
        Seed of the draws.
    backend : str, optional
        PuLP solver for the LPs (``"HiGHS"`` by default).
    break_ties : float, optional
        Pairs won equally often get the plug-in µ̂ = 1/2 ± EPS (lower index wins), as
        ``WinCounts.matrix(break_ties=EPS)`` does for the bounds: the plug-in values are
        then defined (for the perturbed matrix, and say so); the draws are unchanged.
    progress : bool
        A progress bar over the draws on stderr (tqdm; silent when not a terminal).
    cstar_draws : int, "auto" or "all", optional
        Solve C* (an LP per draw with its own tournament: ~4 s at K = 100, ~45 s at
        K = 300) on the first this many draws only; C^E*, the winner sets and the flip
        risks still use every draw.  None or ``"all"``: every draw.  ``"auto"``: every draw when
        that is estimated to take at most :data:`AUTO_CSTAR_SECONDS` single-core seconds,
        else that budget's worth but at least :data:`MIN_CSTAR_DRAWS`
        (:func:`auto_cstar_draws`; a rule of K, so the answer does not depend on the
        machine).  The draws are i.i.d., so the first n are a sample of n: the C* ends
        and their Monte Carlo bands are those of n draws.
    workers : int
        Worker processes of a local Dask cluster for the C* LPs, started when the
        estimated LP work exceeds :data:`PARALLEL_MIN_SECONDS` (tasks of whole tournaments
        among the draws: :func:`~.draws.solve_cstar_draws`).
    scheduler : str, optional
        Address (``tcp://host:port``) of an existing Dask cluster: every C* draw is solved
        in a task there, whatever the amount of work (``workers`` is then ignored).  The values are
        those of a serial run.
    plug_in : LowerBoundResult, optional
        C* of the plug-in matrix, already solved (e.g. certified for the bounds): used
        instead of solving it again.  It must be the C* of µ̂ (with ``break_ties``, of
        the perturbed µ̂); ignored when µ̂ is undefined.

    Returns
    -------
    IntervalReport

    Notes
    -----
    C* (Komiyama et al. 2016, Theorem 2) and C^E* (ibid., §4.2) are evaluated on every
    draw, whatever its tournament: draws whose tournament differs from µ̂'s (other
    Copeland winners, other constraints) are part of the distribution.  The upper end
    is reported as unbounded (``upper=None``) when a pair's sign is undecided at the
    level — P(flip) > (1 − level)/2, i.e. 1/2 lies in the pair's own equal-tailed
    interval — and the constant diverges as that pair's µ → 1/2
    (:func:`divergent`, checked on the tournament of µ̂ and on it with the pair
    flipped).  See docs/uncertainty.md.

    Raises
    ------
    InvalidMatrixError
        Counts not a K×K array of non-negative integers.
    DuelboundError
        Bad level, draws or method; bootstrap with an uncompared pair.
    """
    from scipy import stats  # lazy: scipy.stats costs ~1 s at start-up

    t0 = time.perf_counter()
    draws = _check_request(level, method, draws, workers)
    W, arms, name = _read_counts(counts)
    K = W.shape[0]
    if plug_in is not None and np.shape(plug_in.allocation) != (K, K):
        raise DuelboundError(f"plug_in is the C* of a matrix with K = "
                             f"{np.shape(plug_in.allocation)[0]} arms, the counts have {K}")
    if K > LP_MAX_K:  # the draws alone: draws x K²/2 floats (K = 10 000: 370 GiB)
        raise DuelboundError(f"a posterior interval needs an LP per draw and draws x "
                             f"{K * (K - 1) // 2} pairs in memory at K = {K}; it is limited "
                             f"to K <= {LP_MAX_K} (compare the missing pairs, or drop arms)")
    s = _sample(method, W, draws, np.random.default_rng(seed))
    notes: list[str] = []
    Mhat = _plug_in_matrix(W, s.mu_hat, arms, name, break_ties, notes)
    tid = tournament_ids(s.P)
    n_cs = resolve_cstar_draws(cstar_draws, K, draws, tid)
    ev = DrawEvaluator(K, backend)
    if progress:
        announce(K, draws, n_cs, int(np.unique(tid[:n_cs]).size), workers, scheduler)

    def without_lp() -> tuple:
        # runs while the worker processes solve the C* draws
        ec, is_win = ev.cheap(s.P)
        lb = None if Mhat is None else plug_in if plug_in is not None else lower_bound(
            Mhat, certify=False, backend=backend)
        return ec, is_win, divergent_pairs(K, s.sign), lb, (
            # a plug-in estimate next to the draws: the float rule, no exact enclosure
            ecw_bound(Mhat, enclose=False) if Mhat is not None else None)

    cs, (ec, is_win, (div_cw, div_ec), lb, eb) = solve_cstar_draws(
        ev, s.P[:n_cs], tid[:n_cs], workers, progress, without_lp, scheduler)
    notes += _draw_notes(ec, draws, n_cs, K)
    cs_q, ec_q = np.where(np.isnan(cs), np.inf, cs), np.where(np.isnan(ec), np.inf, ec)

    # sensitivity: first-order share of the variance of the rank of C* (heavy tails, zeros
    # and +inf are fine on ranks), and the delta method at the plug-in
    ranks = stats.rankdata(cs_q)
    share = first_order_shares(s.P[:n_cs], ranks, SENSITIVITY_BINS)
    local = None if lb is None or Mhat is None else local_shares(
        Mhat.values, lb.allocation, s.mu_hat, s.n, s.sd)
    pairs = pair_records(s.wa, s.wb, s.sd, s.p_flip, arms, share,
                         share_errors(s.P[:n_cs], ranks, share, seed), local, div_cw, div_ec)
    alpha2 = (1.0 - level) / 2.0
    winners, p_win, same_t = _winner_risk(Mhat, is_win, s.P, s.mu_hat)
    return IntervalReport(
        level=level, method=method, draws=draws, seed=seed, K=K, arms=arms, name=name,
        comparisons=int(s.n.sum()),
        cstar=bound_interval("C*", cs_q, None if lb is None else float(lb.value), div_cw,
                             pairs, s.p_flip, alpha2),
        ecw=bound_interval("C^E*", ec_q, None if eb is None else float(eb.value), div_ec,
                           pairs, s.p_flip, alpha2),
        winners=winners, p_winners=p_win, winner_sets=winner_set_shares(is_win, _SHOWN),
        same_tournament=same_t, tournaments=int(tid.max()) + 1, pairs=pairs, notes=notes,
        stats={**ev.counts(), "cstar_draws": n_cs, "workers": workers, "scheduler": scheduler,
               "wall_time": time.perf_counter() - t0},
        samples={"mu": s.P, "cstar": cs, "ecw": ec})


def _check_request(level: float, method: str, draws: int, workers: int) -> int:
    """Refuse a bad level, method, number of draws or of workers; the draws as an int."""
    if not 0.0 < level < 1.0:
        raise DuelboundError(f"level must lie in (0, 1), got {shown(level)}")
    if method not in METHODS:
        raise DuelboundError(f"unknown interval method {method!r}; choose from {METHODS}")
    if int(draws) < 10:
        raise DuelboundError(f"draws must be >= 10, got {draws}")
    if workers < 1:
        raise DuelboundError(f"workers must be >= 1, got {workers}")
    return int(draws)


@dataclass
class _Sample:
    """The draws of µ (draws × pairs, ``np.triu_indices`` order) and, per pair a < b: wins
    of a and b, duels, µ̂ (NaN if never compared), spread, flip risk and plug-in sign."""

    P: np.ndarray
    wa: np.ndarray
    wb: np.ndarray
    n: np.ndarray
    mu_hat: np.ndarray
    sd: np.ndarray
    p_flip: np.ndarray
    sign: np.ndarray


def _sample(method: str, W: np.ndarray, draws: int, rng: np.random.Generator) -> _Sample:
    """Posterior draws µ_ab ~ Beta(W_ab + 1, W_ba + 1) (the one sampler,
    :func:`~duelbound.theory.posterior.sample_posterior`), or parametric-bootstrap
    resamples W*_ab ~ Binomial(n_ab, µ̂_ab) / n_ab, with the flip risks and spreads."""
    from scipy import special, stats  # lazy: scipy.stats costs ~1 s at start-up

    K = W.shape[0]
    iu = np.triu_indices(K, 1)
    wa, wb = W[iu], W[iu[1], iu[0]]  # wins of the lower / higher index
    n = wa + wb
    never = np.flatnonzero(n == 0)
    if method == "bootstrap" and never.size:
        raise DuelboundError(f"bootstrap needs every pair compared; never compared: "
                             f"{[(int(iu[0][k]), int(iu[1][k])) for k in never[:10]]}; "
                             "use method='posterior'")
    with np.errstate(invalid="ignore", divide="ignore"):
        mu_hat = np.where(n > 0, wa / np.maximum(n, 1), np.nan)
    if method == "posterior":
        P = sample_posterior(W, draws, rng)
        p_low = special.betainc(wa + 1.0, wb + 1.0, 0.5)  # P(µ_ab < 1/2)
        p_flip = np.where(wa > wb, p_low, np.where(wa < wb, 1.0 - p_low, 0.5))
        sd = np.sqrt((wa + 1.0) * (wb + 1.0) / ((n + 2.0) ** 2 * (n + 3.0)))
    else:
        P = rng.binomial(n, mu_hat, size=(draws, wa.size)) / n
        binom = stats.binom
        # "flipped" = the resample does not keep the plug-in winner strictly ahead:
        # P(W*_ab <= n/2) when a wins in µ̂, P(W*_ab >= n/2) when b wins
        p_flip = np.where(wa > wb, binom.cdf(np.floor(n / 2.0), n, mu_hat),
                          binom.sf(np.ceil(n / 2.0) - 1, n, mu_hat))
        sd = np.sqrt(mu_hat * (1.0 - mu_hat) / n)
    # sign +1: the lower index wins in µ̂, 0: undefined
    return _Sample(P, wa, wb, n, mu_hat, sd, p_flip, np.sign(wa - wb))


def _plug_in_matrix(W: np.ndarray, mu_hat: np.ndarray, arms: tuple[str, ...] | None,
                    name: str | None, break_ties: float | None, notes: list[str]
                    ) -> PreferenceMatrix | None:
    """µ̂ as a matrix (ties broken by ``break_ties`` when given and every pair was
    compared), or None when it is undefined; what was decided appended to ``notes``."""
    K = W.shape[0]
    u = undefined_pairs(W, limit=2)
    if u.n_never:
        listed = pairs_text(arms, u.never, u.n_never, limit=2)
        notes.append(f"{u.n_never} pair(s) never compared ({listed}): mu_hat and the "
                     "plug-in values are undefined")
    if u.n_tied and not u.n_never and break_ties is not None:
        listed = pairs_text(arms, u.tied, u.n_tied, limit=2)
        notes.append(f"tied counts (mu_hat = 1/2) at {listed}: the plug-in values are for "
                     f"the matrix with these ties broken by EPS = {break_ties:g} (lower "
                     "index wins), as in the bounds; the draws are unaffected")
        return PreferenceMatrix(square(mu_hat, K), name=name, arms=arms, break_ties=break_ties)
    if u.n_tied:
        listed = pairs_text(arms, u.tied, u.n_tied, limit=2)
        notes.append(f"tied counts (mu_hat = 1/2) at {u.n_tied} pair(s) ({listed}): the "
                     "plug-in values are undefined (no tie-breaking is applied)")
    return None if u else PreferenceMatrix(square(mu_hat, K), name=name, arms=arms)


def _draw_notes(ec: np.ndarray, draws: int, n_cs: int, K: int) -> list[str]:
    """Notes on bootstrap ties and on C* solved on fewer draws than the rest."""
    notes = []
    ties = int(np.isnan(ec).sum())
    if ties:
        notes.append(f"{ties} of {draws} bootstrap resamples have an exact tie; "
                     "their C* and C^E* count as +inf")
    if n_cs < draws:
        notes.append(f"C* was solved on the first {n_cs} of the {draws} draws (an LP per draw, "
                     f"~{estimate_draw_seconds(K):.2g} s each at K = {K}): its ends, bands "
                     "and shares are those of a sample of that size; C^E*, the winner sets "
                     "and the flip risks use every draw; cstar_draws=None (CLI --cstar-draws "
                     "all) solves every draw")
    return notes


def _winner_risk(Mhat: PreferenceMatrix | None, is_win: np.ndarray, P: np.ndarray,
                 mu_hat: np.ndarray) -> tuple[list[int] | None, float | None, float | None]:
    """Copeland winners of µ̂, the share of draws with that winner set, and the share with
    the tournament of µ̂ (None when µ̂ is undefined)."""
    if Mhat is None:
        return None, None, None
    L_hat = losses_core(np.ascontiguousarray(Mhat.values))
    winners = [int(i) for i in np.flatnonzero(L_hat == L_hat.min())]
    target = np.zeros(is_win.shape[1], dtype=bool)
    target[winners] = True
    p_win = float(np.mean(np.all(is_win == target, axis=1)))
    same_t = float(np.mean(np.all((P > 0.5) == (mu_hat > 0.5), axis=1)))
    return winners, p_win, same_t

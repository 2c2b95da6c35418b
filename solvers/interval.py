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

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..theory.counts import as_win_counts, pairs_text, undefined_pairs
from ..theory.errors import DuelboundError
from ..theory.matrix import PreferenceMatrix
from ..theory.posterior import sample_posterior, winner_set_shares
from .cstar import LP_MAX_K, FamilyModel, LowerBoundResult, lower_bound
from .ecw import ecw_bound, ecw_core
from .formulations import pair_index
from .lp import available_backend
from .oracle import cw_oracle_core, ecw_oracle_core, kl_half_core, losses_core, regret_core
from .parametric import basis_checks, basis_still_optimal, pair_costs_core

__all__ = ["lower_bound_interval", "IntervalReport", "BoundInterval", "PairUncertainty",
           "METHODS", "DEFAULT_DRAWS", "SENSITIVITY_BINS", "estimate_draw_seconds",
           "auto_cstar_draws", "estimate_cstar_seconds"]

METHODS = ("posterior", "bootstrap")
#: Draws used when ``draws`` is not given.
DEFAULT_DRAWS = 1000
#: Quantile bins of µ_p used to estimate the first-order variance share of a pair.
SENSITIVITY_BINS = 10
#: A solve's basis is kept for re-use (no LP while it stays optimal) only when at least
#: this many draws of the same tournament remain (computing its test costs a few LPs).
REUSE_MIN_GROUP = 32
_MAX_BASES = 64  # bases kept per (tournament, winner)
#: Seconds of one posterior draw's C* (every draw a new tournament, one core, 2-core
#: machine; benchmarks/bench_interval.py --large and the arena logs of docs/uncertainty.md):
#: the family LP at K = 30 (mean of 30 draws), 100 (3.3–4.2 s over six) and 300 (25, 43 and
#: 64 s over three).
DRAW_SECONDS = {30: 0.02, 100: 3.8, 300: 44.0}
#: Speed-up of each extra worker process (two HiGHS processes on two cores slow each other:
#: 1.65× at K = 100, 1.85× at K = 300).
WORKER_EFFICIENCY = 0.75
#: ``cstar_draws="auto"`` solves C* on every draw when that is estimated to take at most
#: this many single-core seconds, otherwise on the first ``AUTO_CSTAR_SECONDS / t`` draws,
#: but never on fewer than :data:`MIN_CSTAR_DRAWS` (a rule of K alone: reproducible).
AUTO_CSTAR_SECONDS = 80.0
MIN_CSTAR_DRAWS = 20
#: Below this much estimated LP work the draws are not spread over processes (starting a
#: worker costs ~2 s: imports and numba's cache).
PARALLEL_MIN_SECONDS = 20.0
_SHOWN = 5  # pairs listed in the text rendering


# ------------------------------------------------------------------ results -------------


@dataclass
class PairUncertainty:
    """One unordered pair {i, j}: its counts, posterior spread, flip risk and influence.

    Attributes
    ----------
    i, j : int
        The pair, oriented so that i is the plug-in winner (W_ij > W_ji); i < j when
        the counts are tied or the pair was never compared.
    label : str
        ``"name_i>name_j"`` (``"name_i?name_j"`` when the plug-in sign is undefined).
    wins, losses : int
        W_ij and W_ji.
    mu_hat : float or None
        W_ij / (W_ij + W_ji); None if the pair was never compared.
    sd : float
        Posterior (or bootstrap) standard deviation of µ_ij.
    p_flip : float
        Probability that j beats i in truth (posterior: P(µ_ij < 1/2) under
        Beta(W_ij + 1, W_ji + 1); bootstrap: P(W*_ij ≤ n_ij/2)); 1/2 when the plug-in
        sign is undefined.
    share : float or None
        First-order share of the variance of the rank of C* among the draws explained
        by µ_ij alone (correlation ratio over :data:`SENSITIVITY_BINS` quantile bins of
        µ_ij, bias corrected, ≥ 0): the pair to compare next has the largest share.
    share_se : float or None
        Monte Carlo standard error of ``share`` (bootstrap over the draws), for the pairs
        :meth:`IntervalReport.dominant` lists; None for the others.
    local : float or None
        Delta-method share at the plug-in: (∂C*/∂µ_ij · sd)² over the sum of these
        terms, with ∂C*/∂µ_ij = −r_ij q*_ij log(µ_ij/(1 − µ_ij)) / d_ij (envelope
        theorem at the optimal allocation q*); None without a plug-in value.
    divergent : bool
        C* → ∞ as µ_ij → 1/2 (from the plug-in side or the flipped side).
    divergent_ecw : bool
        The same for C^E*.
    """

    i: int
    j: int
    label: str
    wins: float  # int unless draws were counted as halves
    losses: float
    mu_hat: float | None
    sd: float
    p_flip: float
    share: float | None = None
    share_se: float | None = None
    local: float | None = None
    divergent: bool = False
    divergent_ecw: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"pair": [self.i, self.j], "label": self.label, "wins": self.wins,
                "losses": self.losses, "mu_hat": self.mu_hat, "sd": self.sd,
                "p_flip": self.p_flip, "share": self.share, "share_se": self.share_se,
                "local": self.local,
                "divergent": self.divergent, "divergent_ecw": self.divergent_ecw}


@dataclass
class BoundInterval:
    """Plug-in value and interval of one constant (C* or C^E*).

    Attributes
    ----------
    name : str
        ``"C*"`` or ``"C^E*"``.
    plug_in : float or None
        The constant on µ̂ (None if µ̂ has a tie or an uncompared pair).
    lower : float
        The (1 − level)/2 quantile of the draws.
    upper : float or None
        The (1 + level)/2 quantile of the draws, or None (**unbounded**) when some
        pair in ``unbounded_pairs`` has an undecided sign at this level.
    upper_draws : float
        The (1 + level)/2 quantile of the draws even when ``upper`` is None (a
        Monte Carlo number set by the prior density at µ = 1/2 then, not by the data).
    median : float
        Median of the draws.
    unbounded_pairs : list of (int, int)
        Pairs with p_flip > (1 − level)/2 along which the constant diverges at the tie.
    lower_band, upper_band : (float, float)
        95 % Monte Carlo bands of the two ends: distribution-free order-statistic
        intervals for the posterior quantiles that the ends estimate from ``draws`` values
        (more draws narrow them).
    draws : int
        How many draws the quantiles come from (C* may use the first few only: an LP
        per draw; ``cstar_draws`` of :func:`lower_bound_interval`).
    """

    name: str
    plug_in: float | None
    lower: float
    upper: float | None
    upper_draws: float
    median: float
    unbounded_pairs: list[tuple[int, int]] = field(default_factory=list)
    lower_band: tuple[float, float] = (math.nan, math.nan)
    upper_band: tuple[float, float] = (math.nan, math.nan)
    draws: int = 0

    @property
    def unbounded(self) -> bool:
        return self.upper is None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "plug_in": self.plug_in,
                "lower": _finite_or_str(self.lower),
                "upper": "unbounded" if self.upper is None else self.upper,
                "upper_draws": _finite_or_str(self.upper_draws),
                "median": _finite_or_str(self.median),
                "unbounded": self.unbounded,
                "unbounded_pairs": [list(p) for p in self.unbounded_pairs],
                "lower_band": [_finite_or_str(v) for v in self.lower_band],
                "upper_band": [_finite_or_str(v) for v in self.upper_band],
                "draws": self.draws}


@dataclass
class IntervalReport:
    """C* and C^E* from win counts, with intervals and what drives their uncertainty.

    Attributes
    ----------
    level, method, draws, seed
        The request (``method`` in :data:`METHODS`).
    K, arms, name
        Size, arm names (or None) and the name of the counts.
    comparisons : int
        Total number of comparisons Σ_{i<j} n_ij.
    cstar, ecw : BoundInterval
        C* (Komiyama et al. 2016, Theorem 2) and C^E* (ibid., §4.2), komiyama regret
        convention, coefficients of log T.
    winners : list of int or None
        Copeland winners of µ̂ (None if µ̂ has a tie or an uncompared pair).
    p_winners : float or None
        Share of the draws whose Copeland winner set equals ``winners``.
    winner_sets : list of (tuple of int, float)
        The most frequent Copeland winner sets among the draws and their shares.
    same_tournament : float or None
        Share of the draws with the tournament of µ̂.
    tournaments : int
        Distinct tournaments among the draws (one LP family per tournament and winner).
    pairs : list of PairUncertainty
        Every pair, in index order (i < j of the unordered pair).
    notes : list of str
        Anything the reader must know (ties, uncompared pairs, bootstrap ties).
    stats : dict
        LP solves, models built, wall time.
    samples : dict of str to numpy.ndarray
        The draws: ``"mu"`` (draws × pairs, µ_ab for a < b in ``np.triu_indices``
        order), ``"cstar"`` (the first ``cstar.draws`` draws), ``"ecw"`` (not in
        :meth:`to_dict`).
    """

    level: float
    method: str
    draws: int
    seed: int | None
    K: int
    arms: tuple[str, ...] | None
    name: str | None
    comparisons: int
    cstar: BoundInterval
    ecw: BoundInterval
    winners: list[int] | None
    p_winners: float | None
    winner_sets: list[tuple[tuple[int, ...], float]]
    same_tournament: float | None
    tournaments: int
    pairs: list[PairUncertainty]
    notes: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    samples: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    # -- views ----------------------------------------------------------------------------
    def label(self, i: int) -> str:
        """Arm name, or its index as a string."""
        return self.arms[i] if self.arms else str(i)

    def most_flipped(self, n: int = _SHOWN) -> list[PairUncertainty]:
        """The n pairs most likely to have the wrong winner in µ̂ (largest p_flip), among
        the pairs µ̂ gives a winner (tied and never-compared pairs have none)."""
        decided = [p for p in self.pairs if p.mu_hat is not None and p.mu_hat != 0.5]
        return sorted(decided, key=lambda p: -p.p_flip)[:n]

    def dominant(self, n: int = _SHOWN) -> list[PairUncertainty]:
        """The n pairs whose uncertainty explains most of the spread of C* (collect next)."""
        return sorted(self.pairs, key=lambda p: -(p.share or 0.0))[:n]

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level, "method": self.method, "draws": self.draws, "seed": self.seed,
            "K": self.K, "arms": list(self.arms) if self.arms else None, "name": self.name,
            "comparisons": self.comparisons,
            "cstar": self.cstar.to_dict(), "ecw": self.ecw.to_dict(),
            "winners": self.winners, "p_winners": self.p_winners,
            "winner_sets": [{"winners": list(s), "share": p} for s, p in self.winner_sets],
            "same_tournament": self.same_tournament, "tournaments": self.tournaments,
            "most_flipped": [[p.i, p.j] for p in self.most_flipped()],
            "dominant": [[p.i, p.j] for p in self.dominant()],
            "pairs": [p.to_dict() for p in self.pairs],
            "notes": list(self.notes), "stats": self.stats,
            "convention": "komiyama",
            "source": "Komiyama et al. 2016, Theorem 2 and Sec. 4.2; docs/uncertainty.md",
        }

    def __repr__(self) -> str:
        return (f"IntervalReport(K={self.K}, level={self.level}, method={self.method!r}, "
                f"draws={self.draws}, C*={_fmt(self.cstar.plug_in)} "
                f"[{_fmt(self.cstar.lower)}, {_fmt(self.cstar.upper)}], "
                f"C^E*={_fmt(self.ecw.plug_in)} [{_fmt(self.ecw.lower)}, {_fmt(self.ecw.upper)}], "
                f"P(winners)={_fmt(self.p_winners, '.3f')})")

    def __str__(self) -> str:
        return self.render()

    def render(self, width: int = 100) -> str:
        """Plain-text report (what ``duelbound bounds --counts FILE --interval`` prints);
        prose wrapped at ``width`` characters, pair lists cut after a few entries."""
        pct = f"{100 * self.level:g}%"
        kind = ("posterior credible interval, Beta(W_ij+1, W_ji+1) per pair"
                if self.method == "posterior" else
                "parametric-bootstrap percentile interval, W*_ij ~ Bin(n_ij, mu_hat_ij)")
        n_pairs = self.K * (self.K - 1) // 2
        compared = sum(1 for p in self.pairs if p.mu_hat is not None)
        out = [f"counts      {self.name or '-'}  (K = {self.K}, {self.comparisons} comparisons, "
               f"{compared} of {n_pairs} pairs compared)",
               "            komiyama regret, coefficients of log T",
               f"interval    {pct} {kind}",
               f"            {self.draws} draws, seed {self.seed}"
               + (f"; C* on the first {self.cstar.draws} (an LP each)"
                  if 0 < self.cstar.draws < self.draws else ""),
               "",
               f"{'':6}{'plug-in':>14}{'median':>14}   {pct} interval"]
        for b in (self.cstar, self.ecw):
            up = "unbounded" if b.upper is None else f"{b.upper:.6g}"
            plug = "undefined" if b.plug_in is None else f"{b.plug_in:.6g}"
            out.append(f"{b.name:<6}{plug:>14}{b.median:>14.6g}   [{b.lower:.6g}, {up}]")
        for b in (self.cstar, self.ecw):
            out.append(f"  {b.name} ends, 95% Monte Carlo bands ({b.draws} draws): lower in "
                       f"[{b.lower_band[0]:.6g}, {b.lower_band[1]:.6g}], upper quantile in "
                       f"[{b.upper_band[0]:.6g}, {b.upper_band[1]:.6g}]")
        for b in (self.cstar, self.ecw):
            if b.upper is None and not b.unbounded_pairs:
                out += _wrap(f"{b.name} upper end unbounded: more than "
                             f"{(1 - self.level) / 2:.3g} of the draws are +inf (bootstrap "
                             "ties)", width, "  ")
            if b.unbounded_pairs:  # one note, not one per pair
                shown = [self._pair(a, c) for a, c in b.unbounded_pairs[:_SHOWN]]
                out += _wrap(f"{b.name} upper end unbounded: {len(b.unbounded_pairs)} pair(s) "
                             f"have an undecided sign (P(flip) > {(1 - self.level) / 2:.3g}) "
                             f"and {b.name} -> infinity as their mu -> 1/2 (the draws' "
                             f"quantile would be {b.upper_draws:.6g}):", width, "  ")
                out += self._pair_rows(shown, len(b.unbounded_pairs),
                                       lambda p: f"P(flip) = {p.p_flip:.2g}")
        out.append("")
        if self.winners is not None:
            out.append(f"Copeland winners of mu_hat: {self._arms(self.winners)}; "
                       f"P(winner set right) = {self.p_winners:.3f}")
        else:
            out.append("Copeland winners of mu_hat: undefined (tie or uncompared pair)")
        out += _wrap("winner sets among the draws: " + ", ".join(
            f"{self._arms(s)}: {p:.3f}" for s, p in self.winner_sets), width)
        if self.same_tournament is not None:
            out.append(f"draws with the tournament of mu_hat: {self.same_tournament:.3f}; "
                       f"distinct tournaments: {self.tournaments}")
        out.append("")
        undecided = sum(1 for p in self.pairs if p.mu_hat is None or p.mu_hat == 0.5)
        out.append("pairs most likely flipped (P(true winner is the other arm)):")
        out += self._pair_rows(self.most_flipped(), 0, lambda p: (
            f"W = {p.wins:g}:{p.losses:g}  mu_hat = {_fmt(p.mu_hat, '.3f')}  "
            f"P(flip) = {p.p_flip:.3g}"))
        if undecided:
            out.append(f"  (and {undecided} pair(s) tied or never compared: no plug-in winner, "
                       "P = 1/2)")
        n_cs = self.cstar.draws or self.draws
        out.append("pairs dominating the uncertainty of C* (compare these next):")
        out += _wrap("share = first-order share of the variance of rank(C*) +- its Monte "
                     "Carlo standard error" + (
                         f"; NOISE at {n_cs} draws (the shares need >= "
                         f"{NOISY_SHARES_BELOW}; the ranking below is not reliable)"
                         if n_cs < NOISY_SHARES_BELOW else ""), width, "  ")
        if n_cs < 2 * SENSITIVITY_BINS:
            out.append(f"    (not computed: they need >= {2 * SENSITIVITY_BINS} C* draws)")
        else:
            out += self._pair_rows(self.dominant(), 0, lambda p: (
                f"share = {_fmt(p.share, '.3f')}"
                + ("" if p.share_se is None else f" +- {p.share_se:.3f}")
                + f"  local (delta method) = {_fmt(p.local, '.3f')}  "
                  f"n = {p.wins + p.losses:g}"))
        for note in self.notes:
            out += _wrap(f"NOTE  {note}", width, "", "      ")
        st = self.stats
        out.append(f"{st.get('lp_solves', 0)} LP solves, {st.get('models', 0)} LP models, "
                   f"{st.get('reused', 0)} values from a re-used optimal basis, "
                   f"{st.get('wall_time', 0.0):.3g} s")
        return "\n".join(out)

    def _pair_rows(self, shown: list[PairUncertainty], total: int,
                   text: Callable[[PairUncertainty], str]) -> list[str]:
        """One aligned row per pair; "... N more" when ``total`` exceeds the rows."""
        labels = [self._pl(p) for p in shown]
        w = max((len(x) for x in labels), default=0)
        rows = [f"    {x:<{w}}  {text(p)}" for x, p in zip(labels, shown)]
        if total > len(shown):
            rows.append(f"    ... {total - len(shown)} more (see --json)")
        return rows

    # -- helpers --------------------------------------------------------------------------
    def _pair(self, a: int, b: int) -> PairUncertainty:
        return next(p for p in self.pairs if {p.i, p.j} == {a, b})

    def _pl(self, p: PairUncertainty) -> str:
        return f"{p.label} ({p.i},{p.j})" if self.arms else p.label

    def _arms(self, s: Any) -> str:
        return "{" + ", ".join(self.label(i) for i in s) + "}"


#: Below this many draws the first-order variance shares (binned over the draws) are
#: dominated by Monte Carlo noise and the "compare these next" ranking says so.
NOISY_SHARES_BELOW = 200


def _count(v: float) -> int | float:
    """A count as an int, or a float when it is a half (draws counted 1/2 each)."""
    return int(v) if float(v).is_integer() else float(v)


def _fmt(v: float | None, spec: str = ".6g") -> str:
    if v is None:
        return "-" if spec != ".6g" else "unbounded"
    return format(v, spec)


def _wrap(text: str, width: int, indent: str = "", more: str | None = None) -> list[str]:
    """``text`` wrapped at ``width``, continuation lines indented by ``more`` (or 2 more)."""
    import textwrap

    return textwrap.wrap(text, width, initial_indent=indent,
                         subsequent_indent=indent + "  " if more is None else more,
                         break_on_hyphens=False, break_long_words=False)


def _finite_or_str(v: float) -> float | str:
    return v if math.isfinite(v) else "inf"


# ------------------------------------------------------------------ inputs --------------


def _read_counts(counts: Any) -> tuple[np.ndarray, tuple[str, ...] | None, str | None]:
    """W (K×K, zero diagonal; int64, or float64 with paired halves from draws), arm names
    and name, validated by :func:`~duelbound.theory.counts.as_win_counts`."""
    C = as_win_counts(counts)
    return C.wins, C.arms, C.name


# ------------------------------------------------------------------ exact evaluation ----


def estimate_draw_seconds(K: int) -> float:
    """Rough single-core seconds of C* on one posterior draw with a tournament of its own:
    piecewise power law through the measurements of :data:`DRAW_SECONDS` (extended beyond
    them by the nearest piece); draws that share a tournament are much cheaper, so this is
    an upper estimate."""
    pts = sorted(DRAW_SECONDS.items())
    k = 1 + sum(1 for k0, _ in pts[1:-1] if K > k0)  # the piece [pts[k - 1], pts[k]]
    (k0, t0), (k1, t1) = pts[k - 1], pts[k]
    return t0 * (K / k0) ** (math.log(t1 / t0) / math.log(k1 / k0))


def estimate_cstar_seconds(K: int, n: int, workers: int) -> float:
    """Rough wall seconds of C* on ``n`` draws with their own tournaments in ``workers``
    processes (each worker after the first adds :data:`WORKER_EFFICIENCY` of one)."""
    return n * estimate_draw_seconds(K) / (1.0 + WORKER_EFFICIENCY * (min(workers, n) - 1))


def auto_cstar_draws(K: int, draws: int, tid: np.ndarray | None = None) -> int:
    """How many of ``draws`` posterior draws ``cstar_draws="auto"`` solves C* on.

    The largest n whose estimated LP work — one :func:`estimate_draw_seconds` per distinct
    tournament among the first n draws (``tid``: their tournament ids; without them every
    draw counts as a new one) — fits :data:`AUTO_CSTAR_SECONDS`, but at least
    :data:`MIN_CSTAR_DRAWS`: a rule of K and of the draws, never of the machine."""
    if tid is None:
        new = np.ones(draws)
    else:
        first = np.zeros(draws)
        first[np.unique(tid[:draws], return_index=True)[1]] = 1.0
        new = first
    fit = int(np.searchsorted(np.cumsum(new) * estimate_draw_seconds(K),
                              AUTO_CSTAR_SECONDS, side="right"))
    return draws if fit >= draws else min(draws, max(MIN_CSTAR_DRAWS, fit))


class _DrawEvaluator:
    """C* and C^E* of many matrices, grouped by tournament, with warm LP re-solves."""

    def __init__(self, K: int, backend: str | None = None):
        self.K = K
        self.backend = available_backend(backend)
        self.lp_solves = 0
        self.models = 0
        self.reused = 0

    def cheap(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(C^E*, Copeland winners) of every draw: no LP (C^E* is the sorted threshold of
        [K16] Theorem 5); the winners as a draws × K boolean array.  NaN / no winner for a
        bootstrap draw with a tie."""
        K, n = self.K, P.shape[0]
        ecw, is_winner = np.full(n, np.nan), np.zeros((n, K), dtype=bool)
        for s in range(n):
            if np.any(P[s] == 0.5):  # bootstrap tie: C* and C^E* undefined
                continue
            mu = _square(P[s], K)
            d, r, L = kl_half_core(mu), regret_core(mu), losses_core(mu)
            is_winner[s] = L == L.min()
            ecw[s] = float(ecw_core(mu, d, r)[0].min())
        return ecw, is_winner

    def cstar(self, P: np.ndarray, tid: np.ndarray) -> np.ndarray:
        """C* of every draw of ``P`` (exact LP), tournament by tournament."""
        out = np.full(P.shape[0], np.nan)
        for t in np.unique(tid):
            idx = np.flatnonzero(tid == t)
            out[idx] = self._group(P[idx])
        return out

    def _group(self, P: np.ndarray) -> np.ndarray:
        """C* of draws ``P`` of one tournament: one model per winner, warm re-solves, and
        the vertices of earlier solves re-used while their basis stays optimal."""
        K = self.K
        models: dict[int, FamilyModel] = {}
        bases: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        c = np.empty(K * K)
        out = np.full(P.shape[0], np.nan)
        for pos in range(P.shape[0]):
            if np.any(P[pos] == 0.5):
                continue
            mu = _square(P[pos], K)
            d, r, L = kl_half_core(mu), regret_core(mu), losses_core(mu)
            pair_costs_core(L, d, c)
            best = np.inf
            for i1 in (int(w) for w in np.flatnonzero(L == L.min())):
                hit = next((X for G, X in bases.get(i1, ()) if basis_still_optimal(G, c)), None)
                if hit is not None:
                    self.reused += 1
                    best = min(best, float(c @ hit))
                    continue
                px = pair_index(mu, d, r, i1)
                fm = models.get(i1)
                if fm is None:
                    fm = models[i1] = FamilyModel(mu, i1, px, self.backend, backend_checked=True)
                    self.models += 1
                else:
                    fm.set_costs(mu, px)
                sol = fm.solve()
                self.lp_solves += 1
                slots = px.pairs[:, 0] * K + px.pairs[:, 1]
                X = np.zeros(K * K)
                X[slots] = np.clip(sol.v[:slots.size], 0.0, 1.0)
                best = min(best, float(c @ X))
                cached = bases.setdefault(i1, [])
                if P.shape[0] - pos > REUSE_MIN_GROUP and len(cached) < _MAX_BASES:
                    G = basis_checks(fm.model.data, sol, slots, K * K, np.flatnonzero(c == 0.0))
                    cached.append((G, X))
            out[pos] = best
        return out


def _tournaments(P: np.ndarray) -> np.ndarray:
    """Tournament id of every draw (equal ids: equal signs of µ − 1/2 on every pair)."""
    _, tid = np.unique(np.packbits(P > 0.5, axis=1), axis=0, return_inverse=True)
    return tid.ravel()


def _square(p: np.ndarray, K: int) -> np.ndarray:
    """The K × K matrix with µ_ab = p (a < b, ``np.triu_indices`` order)."""
    iu = np.triu_indices(K, 1)
    mu = np.full((K, K), 0.5)
    mu[iu] = p
    mu[iu[1], iu[0]] = 1.0 - p
    return mu


def _cstar_task(K: int, backend: str, P: np.ndarray, tid: np.ndarray
                ) -> tuple[np.ndarray, int, int, int]:
    """One worker's share of :meth:`_DrawEvaluator.cstar` (a separate process)."""
    ev = _DrawEvaluator(K, backend)
    vals = ev.cstar(P, tid)
    return vals, ev.lp_solves, ev.models, ev.reused


def _cstar_draws(ev: _DrawEvaluator, P: np.ndarray, tid: np.ndarray, workers: int,
                 progress: bool, meanwhile: Callable[[], Any] = lambda: None
                 ) -> tuple[np.ndarray, Any]:
    """C* of the draws ``P`` and the result of ``meanwhile()``.

    In ``workers`` processes when there is enough LP work (each tournament stays in one
    task, so its model and bases are shared); ``meanwhile`` (the work that needs no LP)
    then runs in this process while they solve.  A bar over the draws on stderr."""
    from tqdm import tqdm

    n = P.shape[0]
    out = np.full(n, np.nan)
    groups = [np.flatnonzero(tid == t) for t in np.unique(tid)]
    parallel = (workers > 1 and len(groups) > 1
                and n * estimate_draw_seconds(ev.K) >= PARALLEL_MIN_SECONDS)
    if not parallel:
        other = meanwhile()
        with tqdm(total=n, desc=f"C* posterior draws (K = {ev.K})", unit="draw", leave=False,
                  disable=None if progress else True) as bar:
            for idx in groups:
                out[idx] = ev.cstar(P[idx], tid[idx])
                bar.update(idx.size)
        return out, other
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    # spawn, not fork: HiGHS and numba keep threads, and a forked copy may hang on them
    pool = ProcessPoolExecutor(max_workers=min(workers, len(groups)),
                               mp_context=multiprocessing.get_context("spawn"))
    done = False
    try:
        futures = {pool.submit(_cstar_task, ev.K, ev.backend, P[idx], tid[idx]): idx
                   for idx in groups}
        other = meanwhile()
        with tqdm(total=n, desc=f"C* posterior draws (K = {ev.K}, {workers} processes)",
                  unit="draw", leave=False, disable=None if progress else True) as bar:
            for fut in as_completed(futures):
                vals, solves, models, reused = fut.result()
                idx = futures[fut]
                out[idx] = vals
                ev.lp_solves += solves
                ev.models += models
                ev.reused += reused
                bar.update(idx.size)
        done = True
    except BrokenProcessPool as exc:
        raise DuelboundError(
            "the worker processes for the C* draws failed to start or died (from a script, "
            "call lower_bound_interval under `if __name__ == \"__main__\":`, as every "
            "multiprocessing program must; or pass workers=1)") from exc
    finally:
        pool.shutdown(wait=done, cancel_futures=True)
    return out, other


def _divergent_pairs(K: int, sign: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Does C* (C^E*) diverge as µ_ab → 1/2, on the tournament of µ̂ (``sign`` per pair,
    ties to the lower index) or on it with that pair flipped?  (C*, C^E*) flags per pair.

    :func:`_divergent` asks the oracle at x = 1 off {a, b}, x_ab = 0, which is below 1
    exactly when some constraint has the single term x_ab: the closed form of
    :func:`_single_term` — O(K) per pair instead of O(K²) oracle work (K = 300: 44 850
    pairs, ~10 min → ~1 s).  The property test checks the two agree."""
    iu = np.triu_indices(K, 1)
    beats = _square(np.where(sign >= 0, 0.75, 0.25), K) > 0.5
    L = (~beats).sum(axis=1) - 1  # losses (the diagonal is not a win)
    div_cw = np.zeros(sign.size, dtype=bool)
    div_ec = np.zeros(sign.size, dtype=bool)
    for k in range(sign.size):
        a, b = int(iu[0][k]), int(iu[1][k])
        w, l = (a, b) if beats[a, b] else (b, a)
        Lf = L.copy()
        Lf[w] += 1  # the flipped tournament: w now loses to l
        Lf[l] -= 1
        for lv, flipped in ((L, False), (Lf, True)):
            c1, c2 = _single_term(beats, lv, a, b, flipped)
            div_cw[k] |= c1
            div_ec[k] |= c2
    return div_cw, div_ec


def _single_term(beats: np.ndarray, L: np.ndarray, a: int, b: int, flipped: bool
                 ) -> tuple[bool, bool]:
    """Is x_ab the only term of some constraint of R_{i1} (of R^E_{i1}) for every Copeland
    winner i1, with r_ab > 0?  ``beats``: i beats j, with the pair {a, b} reversed when
    ``flipped``; ``L`` the losses of that tournament.

    Single-term constraints (docs/math.md §5 with m + s = 1, and §6): for a winner i1 and
    another winner i2 (L_{i2} = L1), x_{i1 j} with j ∈ I_{i1} \\ {i2} (l = L1, m = 1,
    s = 0) and, when L1 ≥ 1, x_{i2 j} with j ∈ S_{i2} \\ {i1} (l = L1 − 1, m = 0,
    s = 1); and x_{i1 i2} alone for any i2 that i1 beats with L_{i2} ≤ L1 + 1 (case
    i2 ∈ I, l = L1).  In R^E_{i1}: x_{i1 j} for every j ∈ I_{i1} ((4)) and x_{j i2} with
    j ∈ S_{i2} \\ {i1} for another winner i2 ((5) with m = 1).
    """
    def wins(i: int, j: int) -> bool:
        return bool(beats[i, j]) != (flipped and {i, j} == {a, b})

    l1 = int(L.min())
    if L[a] + L[b] - 2 * l1 <= 0:  # r_ab = 0: both Copeland winners
        return False, False
    winners = [int(i) for i in np.flatnonzero(L == l1)]
    cw = ec = True
    for i1 in winners:
        others = [w for w in winners if w != i1]
        in_cw = in_ec = False
        if i1 in (a, b):
            j = b if i1 == a else a
            if wins(i1, j):
                in_ec = True
                in_cw = any(w != j for w in others) or L[j] <= l1 + 1
        else:
            for i2, j in ((a, b), (b, a)):
                if i2 in others and wins(j, i2):
                    in_ec = True
                    in_cw = in_cw or l1 >= 1
        cw &= in_cw
        ec &= in_ec
    return cw, ec


def _divergent(mu: np.ndarray, a: int, b: int) -> tuple[bool, bool]:
    """Does C* (C^E*) of the tournament of ``mu`` tend to ∞ as µ_ab → 1/2?

    C*_{i1} = min Σ_p (r_p/d_p) x_p over the tournament's polytope; as d_ab → 0 alone
    it stays bounded iff some feasible x has x_ab = 0, i.e. iff x = 1 off {a, b} and
    x_ab = 0 lies in R_{i1} (the constraints are monotone).  C* = min over winners
    diverges iff r_ab > 0 and every winner needs the pair; likewise C^E* with R^E.
    """
    K = mu.shape[0]
    if regret_core(mu)[a, b] <= 0.0:
        return False, False
    x = np.ones((K, K))
    x[a, b] = x[b, a] = 0.0
    L = losses_core(mu)
    winners = np.flatnonzero(L == L.min())
    cw = all(cw_oracle_core(mu, int(i1), x).min() < 1.0 - 1e-9 for i1 in winners)
    ec = all(ecw_oracle_core(mu, int(i1), x) < 1.0 - 1e-9 for i1 in winners)
    return cw, ec


def _first_order_shares(P: np.ndarray, y: np.ndarray, bins: int) -> np.ndarray:
    """Bias-corrected correlation ratio η² of y on each column of P (quantile bins)."""
    n, m = P.shape
    out = np.zeros(m)
    var = y.var()
    if n < 2 * bins or not var > 0:
        return out
    ranks = np.argsort(np.argsort(P, axis=0, kind="stable"), axis=0)
    groups = ranks * bins // n
    cnt = np.bincount(groups[:, 0], minlength=bins)  # equal-count bins, same for every pair
    for p in range(m):
        means = np.bincount(groups[:, p], weights=y, minlength=bins) / np.maximum(cnt, 1)
        out[p] = float(np.sum(cnt * (means - y.mean()) ** 2) / n / var)
    null = (bins - 1) / (n - 1)  # E[η²] when y does not depend on the column
    return np.maximum(0.0, (out - null) / (1.0 - null))


# ------------------------------------------------------------------ entry point ---------


def lower_bound_interval(counts: Any, level: float = 0.95, method: str = "posterior",
                         draws: int = DEFAULT_DRAWS, seed: int | None = 0,
                         backend: str | None = None, break_ties: float | None = None,
                         progress: bool = False, cstar_draws: int | str | None = None,
                         workers: int = 1, plug_in: LowerBoundResult | None = None,
                         ) -> IntervalReport:
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
    cstar_draws : int or "auto", optional
        Solve C* (an LP per draw with its own tournament: ~4 s at K = 100, ~45 s at
        K = 300) on the first this many draws only; C^E*, the winner sets and the flip
        risks still use every draw.  None: every draw.  ``"auto"``: every draw when
        that is estimated to take at most :data:`AUTO_CSTAR_SECONDS` single-core seconds,
        else that budget's worth but at least :data:`MIN_CSTAR_DRAWS`
        (:func:`auto_cstar_draws`; a rule of K, so the answer does not depend on the
        machine).  The draws are i.i.d., so the first n are a sample of n: the C* ends
        and their Monte Carlo bands are those of n draws.
    workers : int
        Processes for the C* LPs (each tournament stays in one process); used when the
        estimated LP work exceeds :data:`PARALLEL_MIN_SECONDS`.
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
    (:func:`_divergent`, checked on the tournament of µ̂ and on it with the pair
    flipped).  See docs/uncertainty.md.

    Raises
    ------
    InvalidMatrixError
        Counts not a K×K array of non-negative integers.
    DuelboundError
        Bad level, draws or method; bootstrap with an uncompared pair.
    """
    from scipy import special, stats  # lazy: scipy.stats costs ~1 s at start-up
    t0 = time.perf_counter()
    if not 0.0 < level < 1.0:
        raise DuelboundError(f"level must lie in (0, 1), got {level!r}")
    if method not in METHODS:
        raise DuelboundError(f"unknown interval method {method!r}; choose from {METHODS}")
    draws = int(draws)
    if draws < 10:
        raise DuelboundError(f"draws must be >= 10, got {draws}")
    if workers < 1:
        raise DuelboundError(f"workers must be >= 1, got {workers}")
    W, arms, name = _read_counts(counts)
    K = W.shape[0]
    if plug_in is not None and np.shape(plug_in.allocation) != (K, K):
        raise DuelboundError(f"plug_in is the C* of a matrix with K = "
                             f"{np.shape(plug_in.allocation)[0]} arms, the counts have {K}")
    if K > LP_MAX_K:  # the draws alone: draws x K²/2 floats (K = 10 000: 370 GiB)
        raise DuelboundError(f"a posterior interval needs an LP per draw and draws x "
                             f"{K * (K - 1) // 2} pairs in memory at K = {K}; it is limited "
                             f"to K <= {LP_MAX_K} (compare the missing pairs, or drop arms)")
    iu = np.triu_indices(K, 1)
    wa, wb = W[iu], W[iu[1], iu[0]]  # wins of the lower / higher index
    n = wa + wb
    notes: list[str] = []
    never = np.flatnonzero(n == 0)
    if method == "bootstrap" and never.size:
        raise DuelboundError(f"bootstrap needs every pair compared; never compared: "
                             f"{[(int(iu[0][k]), int(iu[1][k])) for k in never[:10]]}; "
                             "use method='posterior'")
    rng = np.random.default_rng(seed)
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
    sign = np.sign(wa - wb)  # +1: lower index wins in µ̂, 0: undefined

    # plug-in on µ̂
    u = undefined_pairs(W, limit=2)
    Mhat: PreferenceMatrix | None = None
    if u.n_never:
        listed = pairs_text(arms, u.never, u.n_never, limit=2)
        notes.append(f"{u.n_never} pair(s) never compared ({listed}): mu_hat and the "
                     "plug-in values are undefined")
    if u.n_tied and not u.n_never and break_ties is not None:
        listed = pairs_text(arms, u.tied, u.n_tied, limit=2)
        notes.append(f"tied counts (mu_hat = 1/2) at {listed}: the plug-in values are for "
                     f"the matrix with these ties broken by EPS = {break_ties:g} (lower "
                     "index wins), as in the bounds; the draws are unaffected")
        Mhat = PreferenceMatrix(_square(mu_hat, K), name=name, arms=arms,
                                break_ties=break_ties)
    elif u.n_tied:
        listed = pairs_text(arms, u.tied, u.n_tied, limit=2)
        notes.append(f"tied counts (mu_hat = 1/2) at {u.n_tied} pair(s) ({listed}): the "
                     "plug-in values are undefined (no tie-breaking is applied)")
    elif not u:
        Mhat = PreferenceMatrix(_square(mu_hat, K), name=name, arms=arms)
    tid = _tournaments(P)
    n_cs = _resolve_cstar_draws(cstar_draws, K, draws, tid)
    ev = _DrawEvaluator(K, backend)
    alpha2 = (1.0 - level) / 2.0
    if progress:
        _announce(K, draws, n_cs, int(np.unique(tid[:n_cs]).size), workers)

    def without_lp() -> tuple:
        # runs while the worker processes solve the C* draws
        ec, is_win = ev.cheap(P)
        div_cw, div_ec = _divergent_pairs(K, sign)
        lb = None if Mhat is None else plug_in if plug_in is not None else lower_bound(
            Mhat, certify=False, backend=backend)
        eb = ecw_bound(Mhat) if Mhat is not None else None
        return ec, is_win, div_cw, div_ec, lb, eb

    cs, (ec, is_win, div_cw, div_ec, lb, eb) = _cstar_draws(ev, P[:n_cs], tid[:n_cs], workers,
                                                           progress, without_lp)
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
    cs_q, ec_q = np.where(np.isnan(cs), np.inf, cs), np.where(np.isnan(ec), np.inf, ec)

    # sensitivity: first-order share of the variance of the rank of C* (heavy tails, zeros
    # and +inf are fine on ranks), and the delta method at the plug-in
    share = _first_order_shares(P[:n_cs], stats.rankdata(cs_q), SENSITIVITY_BINS)
    share_se = _share_errors(P[:n_cs], stats.rankdata(cs_q), share, seed)
    local = None
    if lb is not None and Mhat is not None:
        # log(µ/(1 − µ)) is infinite at µ̂ ∈ {0, 1} (a pair won n:0): evaluate it 1/(n + 2)
        # inside, at the posterior mean of a pair won n:0
        m = np.clip(mu_hat, 1.0 / (n + 2.0), 1.0 - 1.0 / (n + 2.0))
        dd = kl_half_core(Mhat.values)[iu]
        rr = regret_core(np.ascontiguousarray(Mhat.values))[iu]
        grad = rr * lb.allocation[iu] * np.abs(np.log(m / (1.0 - m))) / dd
        v = (grad * sd) ** 2
        local = v / v.sum() if v.sum() > 0 else np.zeros_like(v)

    pairs = []
    for k in range(wa.size):
        a, b = int(iu[0][k]), int(iu[1][k])
        i, j, wi, wj = (a, b, _count(wa[k]), _count(wb[k])) if sign[k] >= 0 else \
            (b, a, _count(wb[k]), _count(wa[k]))
        li = arms[i] if arms else str(i)
        lj = arms[j] if arms else str(j)
        pairs.append(PairUncertainty(
            i=i, j=j, label=f"{li}{'>' if sign[k] != 0 else '?'}{lj}", wins=wi, losses=wj,
            mu_hat=None if n[k] == 0 else float(wi / n[k]), sd=float(sd[k]),
            p_flip=float(p_flip[k]), share=float(share[k]), share_se=share_se.get(k),
            local=None if local is None else float(local[k]),
            divergent=bool(div_cw[k]), divergent_ecw=bool(div_ec[k])))

    def bound(label: str, vals: np.ndarray, plug: float | None, div: np.ndarray) -> BoundInterval:
        lo, hi, med = np.quantile(vals, [alpha2, 1.0 - alpha2, 0.5], method="inverted_cdf")
        bad = [(pairs[k].i, pairs[k].j) for k in np.flatnonzero(div & (p_flip > alpha2))]
        bad.sort(key=lambda ij: -pairs[_pair_pos(K, *ij)].p_flip)
        upper = None if bad or not math.isfinite(hi) else float(hi)
        srt = np.sort(vals)
        return BoundInterval(label, plug, float(lo), upper, float(hi), float(med), bad,
                             _quantile_band(srt, alpha2), _quantile_band(srt, 1.0 - alpha2),
                             draws=int(vals.size))

    winners = None
    if Mhat is not None:
        L_hat = losses_core(np.ascontiguousarray(Mhat.values))
        winners = [int(i) for i in np.flatnonzero(L_hat == L_hat.min())]
    winner_sets = winner_set_shares(is_win, _SHOWN)
    p_win = same_t = None
    if winners:
        target = np.zeros(K, dtype=bool)
        target[winners] = True
        p_win = float(np.mean(np.all(is_win == target, axis=1)))
        same_t = float(np.mean(np.all((P > 0.5) == (mu_hat > 0.5), axis=1)))
    return IntervalReport(
        level=level, method=method, draws=draws, seed=seed, K=K, arms=arms, name=name,
        comparisons=int(n.sum()),
        cstar=bound("C*", cs_q, None if lb is None else float(lb.value), div_cw),
        ecw=bound("C^E*", ec_q, None if eb is None else float(eb.value), div_ec),
        winners=winners, p_winners=p_win, winner_sets=winner_sets,
        same_tournament=same_t, tournaments=int(tid.max()) + 1, pairs=pairs, notes=notes,
        stats={"lp_solves": ev.lp_solves, "models": ev.models, "reused": ev.reused,
               "cstar_draws": n_cs, "workers": workers, "wall_time": time.perf_counter() - t0},
        samples={"mu": P, "cstar": cs, "ecw": ec})


def _announce(K: int, draws: int, n: int, tournaments: int, workers: int) -> None:
    """Say on stderr, before the LPs, how many draws get C* and about how long it takes."""
    import sys

    seconds = estimate_cstar_seconds(K, tournaments, workers)
    if seconds > 20:
        took = f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"
        print(f"duelbound: C* on {n} of {draws} draws ({tournaments} tournaments), about "
              f"{took} on {workers} process(es) (~{estimate_draw_seconds(K):.2g} s per "
              f"tournament at K = {K}; --cstar-draws N|all trades time for Monte Carlo "
              "error)", file=sys.stderr)


def _resolve_cstar_draws(cstar_draws: int | str | None, K: int, draws: int,
                         tid: np.ndarray | None = None) -> int:
    if cstar_draws is None:
        return draws
    if cstar_draws == "auto":
        return auto_cstar_draws(K, draws, tid)
    if isinstance(cstar_draws, str) or int(cstar_draws) < 10:
        raise DuelboundError(f"cstar_draws must be an integer >= 10, 'auto' or None, got "
                             f"{cstar_draws!r}")
    return min(int(cstar_draws), draws)


def _share_errors(P: np.ndarray, y: np.ndarray, share: np.ndarray, seed: int | None,
                  top: int = _SHOWN, reps: int = 50) -> dict[int, float]:
    """Bootstrap (over the draws) standard errors of the ``top`` largest shares."""
    out: dict[int, float] = {}
    if P.shape[0] < 2 * SENSITIVITY_BINS:
        return out
    cols = np.argsort(-share, kind="stable")[:top]
    rng = np.random.default_rng(None if seed is None else seed + 1)
    boot = np.empty((reps, cols.size))
    for b in range(reps):
        rows = rng.integers(0, P.shape[0], P.shape[0])
        boot[b] = _first_order_shares(P[rows][:, cols], y[rows], SENSITIVITY_BINS)
    return {int(k): float(sd) for k, sd in zip(cols, boot.std(axis=0, ddof=1))}


def _quantile_band(srt: np.ndarray, p: float, conf: float = 0.95) -> tuple[float, float]:
    """Order statistics X_(l) ≤ ξ_p ≤ X_(u) with probability ≥ ``conf`` (distribution free:
    the number of draws below ξ_p is Binomial(N, p)); ``srt`` ascending."""
    from scipy import stats  # lazy: scipy.stats costs ~1 s at start-up
    N = srt.size
    lo = int(stats.binom.ppf((1.0 - conf) / 2.0, N, p))  # X_(lo) is srt[lo − 1]
    hi = int(stats.binom.ppf((1.0 + conf) / 2.0, N, p))  # X_(hi + 1) is srt[hi]
    return float(srt[max(lo - 1, 0)]), float(srt[min(hi, N - 1)])


def _pair_pos(K: int, i: int, j: int) -> int:
    """Position of the unordered pair {i, j} in ``np.triu_indices(K, 1)`` order."""
    a, b = min(i, j), max(i, j)
    return a * K - a * (a + 1) // 2 + (b - a - 1)

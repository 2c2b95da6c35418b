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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from duelbound.theory.errors import DuelboundError, InvalidMatrixError
from duelbound.theory.matrix import PreferenceMatrix

from .cstar import FamilyModel, lower_bound
from .ecw import ecw_bound, ecw_core
from .formulations import pair_index
from .lp import available_backend
from .oracle import cw_oracle_core, ecw_oracle_core, kl_half_core, losses_core, regret_core
from .parametric import basis_checks, basis_still_optimal, pair_costs_core

__all__ = ["lower_bound_interval", "IntervalReport", "BoundInterval", "PairUncertainty",
           "METHODS", "DEFAULT_DRAWS", "SENSITIVITY_BINS"]

METHODS = ("posterior", "bootstrap")
#: Draws used when ``draws`` is not given.
DEFAULT_DRAWS = 1000
#: Quantile bins of µ_p used to estimate the first-order variance share of a pair.
SENSITIVITY_BINS = 10
#: A solve's basis is kept for re-use (no LP while it stays optimal) only when at least
#: this many draws of the same tournament remain (computing its test costs a few LPs).
REUSE_MIN_GROUP = 32
_MAX_BASES = 64  # bases kept per (tournament, winner)
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
    local: float | None = None
    divergent: bool = False
    divergent_ecw: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"pair": [self.i, self.j], "label": self.label, "wins": self.wins,
                "losses": self.losses, "mu_hat": self.mu_hat, "sd": self.sd,
                "p_flip": self.p_flip, "share": self.share, "local": self.local,
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
                "upper_band": [_finite_or_str(v) for v in self.upper_band]}


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
        order), ``"cstar"``, ``"ecw"`` (not in :meth:`to_dict`).
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
        """The n pairs most likely to have the wrong winner in µ̂ (largest p_flip)."""
        return sorted(self.pairs, key=lambda p: -p.p_flip)[:n]

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

    def render(self) -> str:
        """Plain-text report (what ``duelbound bounds --counts FILE --interval`` prints)."""
        pct = f"{100 * self.level:g}%"
        kind = ("posterior credible interval, Beta(W_ij+1, W_ji+1) per pair"
                if self.method == "posterior" else
                "parametric-bootstrap percentile interval, W*_ij ~ Bin(n_ij, mu_hat_ij)")
        n_pairs = self.K * (self.K - 1) // 2
        compared = sum(1 for p in self.pairs if p.mu_hat is not None)
        out = [f"counts      {self.name or '-'}  (K = {self.K}, {self.comparisons} comparisons, "
               f"{compared} of {n_pairs} pairs compared); komiyama regret, coefficients of log T",
               f"interval    {pct} {kind}; {self.draws} draws, seed {self.seed}",
               "",
               f"{'':6}{'plug-in':>14}{'median':>14}   {pct} interval"]
        for b in (self.cstar, self.ecw):
            up = "unbounded" if b.upper is None else f"{b.upper:.6g}"
            out.append(f"{b.name:<6}{_fmt(b.plug_in):>14}{b.median:>14.6g}   "
                       f"[{b.lower:.6g}, {up}]")
        for b in (self.cstar, self.ecw):
            out.append(f"  {b.name} ends, 95% Monte Carlo bands: lower in "
                       f"[{b.lower_band[0]:.6g}, {b.lower_band[1]:.6g}], upper quantile in "
                       f"[{b.upper_band[0]:.6g}, {b.upper_band[1]:.6g}]")
        for b in (self.cstar, self.ecw):
            if b.upper is None and not b.unbounded_pairs:
                out.append(f"  {b.name} upper end unbounded: more than "
                           f"{(1 - self.level) / 2:.3g} of the draws are +inf (bootstrap ties)")
            if b.unbounded_pairs:  # one note, not one per pair
                shown = [self._pair(a, c) for a, c in b.unbounded_pairs[:_SHOWN]]
                more = len(b.unbounded_pairs) - len(shown)
                out.append(f"  {b.name} upper end unbounded: {len(b.unbounded_pairs)} pair(s) "
                           f"have an undecided sign (P(flip) > {(1 - self.level) / 2:.3g}) "
                           f"and {b.name} -> infinity as their mu -> 1/2 (the draws' quantile "
                           f"would be {_fmt(b.upper_draws)}):")
                out.append("    " + ", ".join(f"{self._pl(p)} P(flip) = {p.p_flip:.2g}"
                                              for p in shown)
                           + (f" ... {more} more (see --json)" if more else ""))
        out.append("")
        if self.winners is not None:
            out.append(f"Copeland winners of mu_hat: {self._arms(self.winners)}; "
                       f"P(winner set right) = {self.p_winners:.3f}")
        else:
            out.append("Copeland winners of mu_hat: undefined (tie or uncompared pair)")
        sets = ", ".join(f"{self._arms(s)}: {p:.3f}" for s, p in self.winner_sets)
        out.append(f"winner sets among the draws: {sets}")
        if self.same_tournament is not None:
            out.append(f"draws with the tournament of mu_hat: {self.same_tournament:.3f}; "
                       f"distinct tournaments: {self.tournaments}")
        out.append("")
        out.append("pairs most likely flipped (P(true winner is the other arm)):")
        for p in self.most_flipped():
            out.append(f"  {self._pl(p):<28} W = {p.wins}:{p.losses}  "
                       f"mu_hat = {_fmt(p.mu_hat, '.3f')}  P(flip) = {p.p_flip:.3g}")
        noisy = self.draws < NOISY_SHARES_BELOW
        out.append("pairs dominating the uncertainty of C* (compare these next): "
                   "share = first-order share of the variance of rank(C*)"
                   + (f" — NOISE at {self.draws} draws (the shares need >= "
                      f"{NOISY_SHARES_BELOW}; the ranking below is not reliable)" if noisy
                      else ""))
        for p in self.dominant():
            out.append(f"  {self._pl(p):<28} share = {_fmt(p.share, '.3f')}  "
                       f"local (delta method) = {_fmt(p.local, '.3f')}  n = {p.wins + p.losses:g}")
        for note in self.notes:
            out.append(f"NOTE  {note}")
        st = self.stats
        out.append(f"{st.get('lp_solves', 0)} LP solves, {st.get('models', 0)} LP models, "
                   f"{st.get('reused', 0)} values from a re-used optimal basis, "
                   f"{st.get('wall_time', 0.0):.3g} s")
        return "\n".join(out)

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


def _finite_or_str(v: float) -> float | str:
    return v if math.isfinite(v) else "inf"


# ------------------------------------------------------------------ inputs --------------


def _read_counts(counts: Any) -> tuple[np.ndarray, tuple[str, ...] | None, str | None]:
    """W (K×K int64, zero diagonal), arm names and name from an array or a WinCounts."""
    raw = getattr(counts, "wins", counts)
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidMatrixError("counts must be a K×K array of non-negative integers",
                                 "not-square") from None
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 2:
        raise InvalidMatrixError(f"counts must be K×K with K >= 2, got shape {arr.shape}",
                                 "not-square")
    bad = ~np.isfinite(arr) | (arr < 0) | (2 * arr != np.round(2 * arr))
    np.fill_diagonal(bad, False)
    if bad.any():
        entries = [(int(a), int(b)) for a, b in np.argwhere(bad)]
        raise InvalidMatrixError(f"counts must be non-negative integers (or halves: a draw "
                                 f"is 1/2 win to each arm); bad entries at {entries[:10]}",
                                 "out-of-range", entries)
    # halves (draws counted 1/2 to each arm) stay float: Beta(W + 1, W' + 1) takes them
    W = arr.astype(np.int64) if np.all(arr == np.round(arr)) else arr.copy()
    np.fill_diagonal(W, 0)
    arms = getattr(counts, "arms", None)
    arms = tuple(str(a) for a in arms) if arms is not None else None
    if arms is not None and len(arms) != W.shape[0]:
        raise InvalidMatrixError(f"{len(arms)} arm names for K = {W.shape[0]}", "arms")
    return W, arms, getattr(counts, "name", None)


# ------------------------------------------------------------------ exact evaluation ----


class _DrawEvaluator:
    """C* and C^E* of many matrices, grouped by tournament, with warm LP re-solves."""

    def __init__(self, K: int, backend: str | None = None):
        self.K = K
        self.backend = available_backend(backend)
        self.lp_solves = 0
        self.models = 0
        self.reused = 0

    def evaluate(self, P: np.ndarray, progress: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(C*, C^E*, winner bitmask, tournament id) for draws P (draws × pairs, µ_ab, a < b).

        ``progress``: a bar over the draws on stderr (tqdm; silent when not a terminal).
        """
        from tqdm import tqdm

        n = P.shape[0]
        cstar, ecw = np.full(n, np.nan), np.full(n, np.nan)
        wmask = np.zeros(n, dtype=np.int64)
        _, tid = np.unique(np.packbits(P > 0.5, axis=1), axis=0, return_inverse=True)
        tid = tid.ravel()
        with tqdm(total=n, desc=f"C* posterior draws (K = {self.K})", unit="draw",
                  leave=False, disable=None if progress else True) as bar:
            for t in np.unique(tid):
                idx = np.flatnonzero(tid == t)
                self._group(P, idx, cstar, ecw, wmask)
                bar.update(idx.size)
        return cstar, ecw, wmask, tid

    def _group(self, P: np.ndarray, idx: np.ndarray, cstar: np.ndarray, ecw: np.ndarray,
               wmask: np.ndarray) -> None:
        """The draws ``idx`` of one tournament: one model per winner, warm re-solves, and
        the vertices of earlier solves re-used while their basis stays optimal."""
        K = self.K
        iu = np.triu_indices(K, 1)
        models: dict[int, FamilyModel] = {}
        bases: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        c = np.empty(K * K)
        for pos, s in enumerate(idx):
            if np.any(P[s] == 0.5):  # bootstrap tie: C* undefined
                continue
            mu = np.full((K, K), 0.5)
            mu[iu] = P[s]
            mu[iu[1], iu[0]] = 1.0 - P[s]
            d, r, L = kl_half_core(mu), regret_core(mu), losses_core(mu)
            winners = np.flatnonzero(L == L.min())
            wmask[s] = int(np.sum(2 ** winners))
            ecw[s] = float(ecw_core(mu, d, r)[0].min())
            pair_costs_core(L, d, c)
            best = np.inf
            for i1 in (int(w) for w in winners):
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
                if idx.size - pos > REUSE_MIN_GROUP and len(cached) < _MAX_BASES:
                    G = basis_checks(fm.model.data, sol, slots, K * K, np.flatnonzero(c == 0.0))
                    cached.append((G, X))
            cstar[s] = best


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
                         progress: bool = False) -> IntervalReport:
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
    W, arms, name = _read_counts(counts)
    K = W.shape[0]
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
        P = rng.beta(wa + 1.0, wb + 1.0, size=(draws, wa.size))
        P[P == 0.5] = np.nextafter(0.5, 1.0)  # a float tie has probability ~2^-53
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

    ev = _DrawEvaluator(K, backend)
    cs, ec, wmask, tid = ev.evaluate(P, progress)
    ties = int(np.isnan(cs).sum())
    if ties:
        notes.append(f"{ties} of {draws} bootstrap resamples have an exact tie; "
                     "their C* and C^E* count as +inf")
    cs_q, ec_q = np.where(np.isnan(cs), np.inf, cs), np.where(np.isnan(ec), np.inf, ec)

    # plug-in on µ̂
    undefined = never.size or np.any(sign == 0)
    Mhat: PreferenceMatrix | None = None
    if undefined:
        tied = [(int(iu[0][k]), int(iu[1][k])) for k in np.flatnonzero((sign == 0) & (n > 0))]
        if never.size:
            notes.append(f"{never.size} pair(s) never compared, e.g. "
                         f"{[(int(iu[0][k]), int(iu[1][k])) for k in never[:5]]}: "
                         "mu_hat and the plug-in values are undefined")
        if tied and never.size == 0 and break_ties is not None:
            notes.append(f"tied counts (mu_hat = 1/2) at {tied[:5]}"
                         f"{' and more' if len(tied) > 5 else ''}: the plug-in values are for "
                         f"the matrix with these ties broken by EPS = {break_ties:g} (lower "
                         "index wins), as in the bounds; the draws are unaffected")
            mu = np.full((K, K), 0.5)
            mu[iu] = mu_hat
            mu[iu[1], iu[0]] = 1.0 - mu_hat
            Mhat = PreferenceMatrix(mu, name=name, arms=arms, break_ties=break_ties)
        elif tied:
            notes.append(f"tied counts (mu_hat = 1/2) at {len(tied)} pair(s), e.g. {tied[:5]}: "
                         "the plug-in values are undefined (no tie-breaking is applied)")
    else:
        mu = np.full((K, K), 0.5)
        mu[iu] = mu_hat
        mu[iu[1], iu[0]] = 1.0 - mu_hat
        Mhat = PreferenceMatrix(mu, name=name, arms=arms)
    lb = lower_bound(Mhat, certify=False, backend=backend) if Mhat is not None else None
    eb = ecw_bound(Mhat) if Mhat is not None else None

    # divergence along each pair (base tournament: µ̂'s signs, ties -> lower index)
    base = np.full((K, K), 0.5)
    up = np.where(sign >= 0, 0.75, 0.25)
    base[iu] = up
    base[iu[1], iu[0]] = 1.0 - up
    alpha2 = (1.0 - level) / 2.0
    div_cw = np.zeros(wa.size, dtype=bool)
    div_ec = np.zeros(wa.size, dtype=bool)
    for k in range(wa.size):
        a, b = int(iu[0][k]), int(iu[1][k])
        flipped = base.copy()
        flipped[a, b], flipped[b, a] = base[b, a], base[a, b]
        for m in (base, flipped):
            c1, c2 = _divergent(m, a, b)
            div_cw[k] |= c1
            div_ec[k] |= c2

    # sensitivity: first-order share of the variance of the rank of C* (heavy tails, zeros
    # and +inf are fine on ranks), and the delta method at the plug-in
    share = _first_order_shares(P, stats.rankdata(cs_q), SENSITIVITY_BINS)
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
            p_flip=float(p_flip[k]), share=float(share[k]),
            local=None if local is None else float(local[k]),
            divergent=bool(div_cw[k]), divergent_ecw=bool(div_ec[k])))

    def bound(label: str, vals: np.ndarray, plug: float | None, div: np.ndarray) -> BoundInterval:
        lo, hi, med = np.quantile(vals, [alpha2, 1.0 - alpha2, 0.5], method="inverted_cdf")
        bad = [(pairs[k].i, pairs[k].j) for k in np.flatnonzero(div & (p_flip > alpha2))]
        bad.sort(key=lambda ij: -pairs[_pair_pos(K, *ij)].p_flip)
        upper = None if bad or not math.isfinite(hi) else float(hi)
        srt = np.sort(vals)
        return BoundInterval(label, plug, float(lo), upper, float(hi), float(med), bad,
                             _quantile_band(srt, alpha2), _quantile_band(srt, 1.0 - alpha2))

    winners = None
    if Mhat is not None:
        L_hat = losses_core(np.ascontiguousarray(Mhat.values))
        winners = [int(i) for i in np.flatnonzero(L_hat == L_hat.min())]
    sets, cnt = np.unique(wmask[wmask > 0], return_counts=True)
    order = np.argsort(-cnt, kind="stable")[:_SHOWN]
    winner_sets = [(tuple(i for i in range(K) if (int(sets[o]) >> i) & 1), float(cnt[o] / draws))
                   for o in order]
    p_win = same_t = None
    if winners:
        p_win = float(np.mean(wmask == int(sum(2 ** i for i in winners))))
        same_t = float(np.mean(np.all((P > 0.5) == (mu_hat > 0.5), axis=1)))
    return IntervalReport(
        level=level, method=method, draws=draws, seed=seed, K=K, arms=arms, name=name,
        comparisons=int(n.sum()),
        cstar=bound("C*", cs_q, None if lb is None else float(lb.value), div_cw),
        ecw=bound("C^E*", ec_q, None if eb is None else float(eb.value), div_ec),
        winners=winners, p_winners=p_win, winner_sets=winner_sets,
        same_tournament=same_t, tournaments=int(tid.max()) + 1, pairs=pairs, notes=notes,
        stats={"lp_solves": ev.lp_solves, "models": ev.models, "reused": ev.reused,
               "wall_time": time.perf_counter() - t0},
        samples={"mu": P, "cstar": cs, "ecw": ec})


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

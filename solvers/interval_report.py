"""The result of :func:`~.interval.lower_bound_interval`: intervals of C* and C^E*, the pairs
behind their uncertainty, and the text and JSON they render as.

Examples
--------
>>> from duelbound.solvers.interval_report import BoundInterval
>>> b = BoundInterval("C*", 2.0, 1.5, None, 9.0, 2.1, [(0, 1)])
>>> b.unbounded, b.to_dict()["upper"]
(True, 'unbounded')
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .sensitivity import SENSITIVITY_BINS

__all__ = ["PairUncertainty", "BoundInterval", "IntervalReport", "quantile_band",
           "pair_records", "bound_interval", "NOISY_SHARES_BELOW"]

_SHOWN = 5  # pairs listed in the text rendering


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
        out = self._head() + self._ends(width) + [""] + self._winner_lines(width) + [""]
        out += self._pair_lines(width)
        for note in self.notes:
            out += _wrap(f"NOTE  {note}", width, "", "      ")
        st = self.stats
        out.append(f"{st.get('lp_solves', 0)} LP solves, {st.get('models', 0)} LP models, "
                   f"{st.get('reused', 0)} values from a re-used optimal basis, "
                   f"{st.get('thresholds', 0)} winners by the checked threshold rule, "
                   f"{st.get('wall_time', 0.0):.3g} s")
        return "\n".join(out)

    def _head(self) -> list[str]:
        """The counts, the kind of interval, the draws, and the table of the two constants."""
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
        return out

    def _ends(self, width: int) -> list[str]:
        """The Monte Carlo bands of the ends, and why an upper end is unbounded."""
        out = [f"  {b.name} ends, 95% Monte Carlo bands ({b.draws} draws): lower in "
               f"[{b.lower_band[0]:.6g}, {b.lower_band[1]:.6g}], upper quantile in "
               f"[{b.upper_band[0]:.6g}, {b.upper_band[1]:.6g}]" for b in (self.cstar, self.ecw)]
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
        return out

    def _winner_lines(self, width: int) -> list[str]:
        """The Copeland winners of µ̂, their risk, and the winner sets among the draws."""
        if self.winners is not None:
            out = [f"Copeland winners of mu_hat: {self._arms(self.winners)}; "
                   f"P(winner set right) = {self.p_winners:.3f}"]
        else:
            out = ["Copeland winners of mu_hat: undefined (tie or uncompared pair)"]
        out += _wrap("winner sets among the draws: " + ", ".join(
            f"{self._arms(s)}: {p:.3f}" for s, p in self.winner_sets), width)
        if self.same_tournament is not None:
            out.append(f"draws with the tournament of mu_hat: {self.same_tournament:.3f}; "
                       f"distinct tournaments: {self.tournaments}")
        return out

    def _pair_lines(self, width: int) -> list[str]:
        """The pairs most likely flipped and the pairs dominating the spread of C*."""
        undecided = sum(1 for p in self.pairs if p.mu_hat is None or p.mu_hat == 0.5)
        out = ["pairs most likely flipped (P(true winner is the other arm)):"]
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
        return out

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


def quantile_band(srt: np.ndarray, p: float, conf: float = 0.95) -> tuple[float, float]:
    """Order statistics X_(l) ≤ ξ_p ≤ X_(u) with probability ≥ ``conf`` (distribution free:
    the number of draws below ξ_p is Binomial(N, p)); ``srt`` ascending."""
    from scipy import stats  # lazy: scipy.stats costs ~1 s at start-up
    N = srt.size
    lo = int(stats.binom.ppf((1.0 - conf) / 2.0, N, p))  # X_(lo) is srt[lo − 1]
    hi = int(stats.binom.ppf((1.0 + conf) / 2.0, N, p))  # X_(hi + 1) is srt[hi]
    return float(srt[max(lo - 1, 0)]), float(srt[min(hi, N - 1)])


def pair_records(wa: np.ndarray, wb: np.ndarray, sd: np.ndarray, p_flip: np.ndarray,
                 arms: tuple[str, ...] | None, share: np.ndarray, share_se: dict[int, float],
                 local: np.ndarray | None, div_cw: np.ndarray, div_ec: np.ndarray
                 ) -> list[PairUncertainty]:
    """One :class:`PairUncertainty` per pair a < b (``np.triu_indices`` order), oriented so
    that i is the plug-in winner (a first when tied or never compared)."""
    K = int(round((1 + math.sqrt(1 + 8 * wa.size)) / 2))
    iu = np.triu_indices(K, 1)
    n = wa + wb
    pairs = []
    for k in range(wa.size):
        a, b = int(iu[0][k]), int(iu[1][k])
        sign = np.sign(wa[k] - wb[k])
        i, j, wi, wj = (a, b, _count(wa[k]), _count(wb[k])) if sign >= 0 else \
            (b, a, _count(wb[k]), _count(wa[k]))
        li = arms[i] if arms else str(i)
        lj = arms[j] if arms else str(j)
        pairs.append(PairUncertainty(
            i=i, j=j, label=f"{li}{'>' if sign != 0 else '?'}{lj}", wins=wi, losses=wj,
            mu_hat=None if n[k] == 0 else float(wi / n[k]), sd=float(sd[k]),
            p_flip=float(p_flip[k]), share=float(share[k]), share_se=share_se.get(k),
            local=None if local is None else float(local[k]),
            divergent=bool(div_cw[k]), divergent_ecw=bool(div_ec[k])))
    return pairs


def bound_interval(label: str, vals: np.ndarray, plug: float | None, div: np.ndarray,
                   pairs: list[PairUncertainty], p_flip: np.ndarray, alpha2: float
                   ) -> BoundInterval:
    """The equal-tailed interval of one constant from its draws ``vals`` (+inf allowed):
    unbounded above when a pair along which it diverges (``div``) has an undecided sign,
    P(flip) > ``alpha2``; the pairs listed by decreasing flip risk."""
    lo, hi, med = np.quantile(vals, [alpha2, 1.0 - alpha2, 0.5], method="inverted_cdf")
    bad = [(pairs[k].i, pairs[k].j, pairs[k].p_flip)
           for k in np.flatnonzero(div & (p_flip > alpha2))]
    bad.sort(key=lambda rec: -rec[2])
    upper = None if bad or not math.isfinite(hi) else float(hi)
    srt = np.sort(vals)
    return BoundInterval(label, plug, float(lo), upper, float(hi), float(med),
                         [(i, j) for i, j, _ in bad], quantile_band(srt, alpha2),
                         quantile_band(srt, 1.0 - alpha2), draws=int(vals.size))

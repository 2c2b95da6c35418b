"""C* enclosed for the matrix as written, and the certificate document that proves it.

The exact certificate of :mod:`.certificate` proves C*_{i1} for the rational inputs
d̂_p = the float value of d(µ_p, ½) (docs/math.md §5.3).  This module turns it into a
statement about the **true** C* of the matrix as the user wrote it
(:meth:`~duelbound.theory.matrix.PreferenceMatrix.exact_as_written`: "0.6" is 3/5):

* d(µ_p, ½) is enclosed rigorously, [d⁻_p, d⁺_p] (ball arithmetic,
  :func:`~duelbound.theory.kl.kl_half_enclosure`), and the cost c_p = r_p / d_p by
  dyadic bounds c⁻_p ≤ r_p / d⁺_p and c⁺_p ≥ r_p / d⁻_p;
* the constraints of R_{i1} do not involve d (they are sums of evidences x_p ≥ 1), so the
  certified primal x̂ stays feasible and C*_{i1} ≤ Σ c⁺_p x̂_p;
* the dual y is rounded down to dyadic rationals (y stays ≥ 0 and on the same rows), and
  with w_p = max(0, (Aᵀy)_p − c⁻_p) the pair (y, w) is feasible for every cost between the
  bounds: C*_{i1} ≥ Σ y − Σ w (weak duality).

C* = min over the Copeland winners, so C* ∈ [min_i lower_i, min_i upper_i].  ECW-RMED's
C^E* needs no dual: its sorted-threshold value ([K16] Theorem 5) is an LP minimum, hence
non-decreasing in every cost, and evaluated exactly at c⁻ and at c⁺ it encloses itself.
Every number is a short dyadic or small-denominator rational, so an independent checker needs only
exact rational arithmetic and a logarithm enclosure: the document format is
docs/certificates.md, the checker ``duelbound.checks.proof`` (it imports no solver).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..theory.kl import kl_half_enclosure
from .certificate import ConstraintCheck

__all__ = ["FORMAT", "VERSION", "Enclosure", "CostBounds", "enclose", "ecw_enclosure",
           "float_below", "float_above"]

FORMAT = "duelbound-cstar-certificate"
VERSION = 2
#: Relative precision (bits) of the d enclosures, cost bounds and rounded duals: the
#: enclosure's relative width is a few times 2^-BITS plus the certificate's own gap.
BITS = 100


def float_below(q: Fraction) -> float:
    """The largest binary64 number ≤ q."""
    f = float(q)
    return f if Fraction(f) <= q else math.nextafter(f, -math.inf)


def float_above(q: Fraction) -> float:
    """The smallest binary64 number ≥ q."""
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def _dyadic(q: Fraction, bits: int, up: bool) -> Fraction:
    """q rounded down (``up=False``) or up to a dyadic with ``bits`` significant bits."""
    if q == 0:
        return q
    e = q.numerator.bit_length() - q.denominator.bit_length()
    scale = Fraction(2) ** (bits - e)
    n = q * scale
    k = -((-n.numerator) // n.denominator) if up else n.numerator // n.denominator
    return k / scale


def _q(v: Fraction) -> str:
    return str(v)


@dataclass
class WinnerProof:
    """One winner's part: primal x̂, dyadic dual on named constraints, box multipliers."""

    winner: int
    lower: Fraction
    upper: Fraction
    primal: list[tuple[int, int, Fraction]]
    dual: list[tuple[Fraction, int, int, list[int], list[int]]]
    box: list[tuple[int, int, Fraction]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner, "lower": _q(self.lower), "upper": _q(self.upper),
            "primal": [[a, b, _q(x)] for a, b, x in self.primal],
            "dual": [{"y": _q(y), "i2": i2, "l": lv, "I": I, "S": S}
                     for y, i2, lv, I, S in self.dual],
            "box": [[a, b, _q(w)] for a, b, w in self.box],
        }


@dataclass
class Enclosure:
    """C* ∈ [lower, upper] for the matrix as written, with everything that proves it."""

    lower: Fraction
    upper: Fraction
    source: str
    mu: list[list[Fraction]]
    winners: list[int]
    losses: list[int]
    pairs: dict[tuple[int, int], tuple[Fraction, Fraction, Fraction, Fraction]]
    per_winner: dict[int, WinnerProof]
    ecw: dict[int, tuple[Fraction, Fraction]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def ecw_bracket(self) -> tuple[Fraction, Fraction]:
        """C^E* = min over winners ∈ [min lower, min upper]."""
        return (min(v[0] for v in self.ecw.values()), min(v[1] for v in self.ecw.values()))

    @property
    def lower_float(self) -> float:
        return float_below(self.lower)

    @property
    def upper_float(self) -> float:
        return float_above(self.upper)

    @property
    def relative_width(self) -> float:
        """Of the printed (binary64) bracket, as ``check-certificate`` prints it."""
        lo, hi = self.lower_float, self.upper_float
        return (hi - lo) / lo if lo > 0 else math.inf

    def summary(self) -> dict[str, Any]:
        """The JSON-ready statement (no proof data): bracket, width, source, per winner."""
        return {
            "lower": self.lower_float, "upper": self.upper_float,
            "relative_width": self.relative_width, "source": self.source,
            "statement": "encloses the true C* of the matrix as "
                         + ("written (decimal text read exactly)" if self.source == "written"
                            else "stored (binary floats read exactly)"
                            if self.source == "float" else
                            "written where its text is known, else the stored floats"),
            "per_winner": {str(i): {"lower": float_below(p.lower),
                                    "upper": float_above(p.upper)}
                           for i, p in self.per_winner.items()},
            "ecw": {"lower": float_below(self.ecw_bracket[0]),
                    "upper": float_above(self.ecw_bracket[1])} if self.ecw else None,
        }

    def document(self) -> dict[str, Any]:
        """The self-contained certificate (docs/certificates.md), JSON-ready."""
        return {
            "format": FORMAT, "version": VERSION,
            "statement": "C* ([K16] Theorem 2, komiyama regret) of the matrix 'mu' lies in "
                         "[claim.lower, claim.upper]",
            "matrix": {"K": len(self.mu), "source": self.source,
                       "mu": [[_q(v) for v in row] for row in self.mu]},
            "winners": self.winners, "losses": self.losses,
            "pairs": [{"pair": [a, b], "d": [_q(dl), _q(dh)], "cost": [_q(cl), _q(ch)]}
                      for (a, b), (dl, dh, cl, ch) in sorted(self.pairs.items())],
            "per_winner": [p.to_dict() for _, p in sorted(self.per_winner.items())],
            "claim": {"lower": _q(self.lower), "upper": _q(self.upper),
                      "lower_float": self.lower_float, "upper_float": self.upper_float},
            "ecw": {"per_winner": [{"winner": i, "lower": _q(lo), "upper": _q(hi)}
                                   for i, (lo, hi) in sorted(self.ecw.items())],
                    "lower": _q(self.ecw_bracket[0]), "upper": _q(self.ecw_bracket[1]),
                    "lower_float": float_below(self.ecw_bracket[0]),
                    "upper_float": float_above(self.ecw_bracket[1])},
        }


class CostBounds:
    """Dyadic bounds c⁻ ≤ r/d ≤ c⁺ on the cost of each pair, from a rigorous enclosure of
    d(µ, ½) (computed once per pair, on demand; pairs of two winners cost 0)."""

    def __init__(self, mu: list[list[Fraction]], L: list[int]):
        self.mu, self.L, self.l1 = mu, L, min(L)
        self.den = 2 * (len(mu) - 1)
        self.table: dict[tuple[int, int], tuple[Fraction, Fraction, Fraction, Fraction]] = {}

    def of(self, a: int, b: int) -> tuple[Fraction, Fraction]:
        a, b = min(a, b), max(a, b)
        r = Fraction(self.L[a] + self.L[b] - 2 * self.l1, self.den)
        if r == 0:
            return Fraction(0), Fraction(0)
        if (a, b) not in self.table:
            dl, dh = kl_half_enclosure(self.mu[a][b], BITS + 20)
            # each end at least 2^-(BITS+8) relative away from d: a checker working at
            # 128 bits decides d⁻ ≤ d ≤ d⁺ at its first precision
            slack = Fraction(1, 1 << (BITS + 8))
            dl = _dyadic(dl * (1 - slack), BITS + 10, up=False)
            dh = _dyadic(dh * (1 + slack), BITS + 10, up=True)
            self.table[a, b] = (dl, dh, _dyadic(r / dh, BITS, up=False),
                                _dyadic(r / dl, BITS, up=True))
        return self.table[a, b][2], self.table[a, b][3]


def _threshold(c: list[Fraction], m: int) -> Fraction:
    """[K16] Theorem 5 in exact arithmetic: min over e ≥ 0 with every m-subset summing to
    ≥ 1 of Σ c e = min_{h > n−m} (sum of the h smallest c) / (h − (n − m))."""
    n = len(c)
    if n < m or m < 1:
        return Fraction(0)
    k, acc, best = n - m, Fraction(0), None
    for h, v in enumerate(sorted(c), start=1):
        acc += v
        if h > k and (best is None or acc / (h - k) < best):
            best = acc / (h - k)
    return best if best is not None else Fraction(0)


def ecw_enclosure(mu: list[list[Fraction]], L: list[int], i1: int,
                  costs: CostBounds) -> tuple[Fraction, Fraction]:
    """[lo, hi] ∋ C^E*_{i1} ([K16] §4.2, Theorem 5; docs/math.md §6).

    C^E*_{i1} = Σ_{j∈I_{i1}} c_{i1 j} + Σ_{i2≠i1} threshold(c_{j i2}, j ∈ S_{i2} minus i1;
    m = L_{i2} − L1 + 1) is the minimum of an LP with non-negative variables, hence
    non-decreasing in every cost: evaluated exactly at the cost bounds c⁻ and c⁺ it
    encloses the value at the true costs.
    """
    half, K = Fraction(1, 2), len(mu)
    out = []
    for end in (0, 1):
        total = sum((costs.of(i1, j)[end] for j in range(K) if mu[i1][j] > half), Fraction(0))
        for i2 in range(K):
            members = [j for j in range(K) if j not in (i1, i2) and mu[i2][j] < half]
            if i2 != i1 and 1 <= L[i2] - min(L) + 1 <= len(members):  # else no threshold:
                # its pairs are not read (and need no cost entry in the certificate)
                total += _threshold([costs.of(j, i2)[end] for j in members],
                                    L[i2] - min(L) + 1)
        out.append(total)
    return out[0], out[1]


def _winner_proof(i1: int, px, cert, check: ConstraintCheck, cost_of) -> WinnerProof:
    pairs = [(int(a), int(b)) for a, b in px.pairs.tolist()]
    primal = [(a, b, x) for (a, b), x in zip(pairs, cert.x) if x]
    upper = sum((cost_of(a, b)[1] * x for a, b, x in primal), Fraction(0))
    dual = []
    g: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for y, cols in zip(cert.y, cert.rows):
        y = _dyadic(Fraction(y), BITS, up=False)
        if y <= 0:
            continue
        ident = check.identify(cols)
        if ident is None:  # verified certificates hold genuine rows only
            raise AssertionError(f"certificate row {cols} is no constraint of R_{i1}")
        i2, lv, I, S = ident
        dual.append((y, i2, lv, I, S))
        for p in cols:
            g[pairs[p]] += y
    box = []
    for (a, b), gp in sorted(g.items()):
        w = gp - cost_of(a, b)[0]
        if w > 0:
            box.append((a, b, w))
    lower = sum((y for y, *_ in dual), Fraction(0)) - sum((w for *_, w in box), Fraction(0))
    return WinnerProof(i1, lower, upper, primal, dual, box)


def enclose(M, solves: dict, internal: dict, mu_written=None) -> Enclosure | None:
    """Enclose C* of the matrix as written from the verified per-winner certificates.

    Parameters
    ----------
    M : PreferenceMatrix
    solves : dict of int to WinnerSolve
        Every Copeland winner's LP solve (:func:`~duelbound.solvers.cstar.solve_winner`).
    internal : dict of int to dict
        :func:`~duelbound.solvers.certificate.certify_lower_bound`'s per-winner results.
    mu_written : list of list of Fraction, optional
        Defaults to ``M.exact_as_written()``.

    Returns
    -------
    Enclosure or None
        None when some winner has no verified certificate.
    """
    if set(internal) != set(solves) or any(
            p.get("status") not in ("exact", "interval") for p in internal.values()):
        return None
    if mu_written is None:
        mu, source = M.exact_as_written()
    else:
        mu, source = mu_written, "given"
    K = M.K
    half = Fraction(1, 2)
    L = [sum(1 for j in range(K) if mu[i][j] < half) for i in range(K)]
    l1 = min(L)
    winners = [i for i in range(K) if L[i] == l1]
    if sorted(solves) != winners:
        raise AssertionError("the written matrix has another tournament than the floats")
    costs = CostBounds(mu, L)
    cost_of = costs.of
    per = {}
    mu_float = M.values
    for i1, ws in solves.items():
        check = ConstraintCheck(mu_float, i1, ws.px)
        per[i1] = _winner_proof(i1, ws.px, internal[i1]["certificate"], check, cost_of)
    lower = min(p.lower for p in per.values())
    upper = min(p.upper for p in per.values())
    ecw = {i1: ecw_enclosure(mu, L, i1, costs) for i1 in winners}
    return Enclosure(lower, upper, source, mu, winners, L, costs.table, per, ecw=ecw)

"""Certified sides of the claims: both sides enclosed in rational intervals.

What a refutation rests on (:func:`duelbound.checks.claims.catalogue.certify`): the inputs are
the stored floats read as exact rationals, KL values d(p, 1/2) are enclosed by python-flint's
ball arithmetic, everything else is exact rational arithmetic, and optima that only an LP gives
are enclosed by the exact certificate of :mod:`duelbound.solvers.certificate` (primal and dual
bounds).  The floating-point screen of the same claims is in :mod:`.catalogue`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

from ...errors import SolverError
from ...theory import tournament as stc
from ...theory.kl import kl_half, kl_half_enclosure
from ...theory.matrix import PreferenceMatrix

__all__ = ["Interval", "CertifiedSides", "ExactMatrix", "ARB_BITS", "kl_half_interval",
           "threshold_exact", "lp6_interval", "lemma7_cert", "lemma8_cert", "theorem5_cert",
           "theorem6_cert", "allocation_44_cert", "ecw_in_cw_cert", "eq11_cert", "eq12_cert",
           "eq11_le_eq12_cert"]

#: Relative precision (bits) of the ball-arithmetic enclosures of d(p, 1/2).
ARB_BITS = 140


@dataclass(frozen=True)
class Interval:
    """A closed rational interval [lo, hi] known to contain a real number."""

    lo: Fraction
    hi: Fraction

    @classmethod
    def point(cls, v: Fraction | int) -> Interval:
        return cls(Fraction(v), Fraction(v))

    def __add__(self, other: Interval) -> Interval:
        return Interval(self.lo + other.lo, self.hi + other.hi)

    def scale(self, k: Fraction | int) -> Interval:
        """k·[lo, hi] for k ≥ 0."""
        return Interval(self.lo * k, self.hi * k)

    def over(self, den: Interval) -> Interval:
        """[lo, hi] / den for lo ≥ 0 and den > 0."""
        return Interval(self.lo / den.hi, self.hi / den.lo)

    def mid(self) -> float:
        return float((self.lo + self.hi) / 2)

    def to_dict(self) -> dict[str, Any]:
        return {"lo": float(self.lo), "hi": float(self.hi),
                "exact": str(self.lo) if self.lo == self.hi and _short(self.lo) else None}


def _short(v: Fraction) -> bool:
    return v.numerator.bit_length() + v.denominator.bit_length() <= 400


@dataclass
class CertifiedSides:
    """Both sides of a claim enclosed in rational intervals (what a refutation rests on)."""

    lhs: Interval
    rhs: Interval
    detail: str = ""

    def violates(self, relation: str) -> bool:
        """The relation is false for *every* pair of values in the two intervals."""
        if relation == "<=":
            return self.lhs.lo > self.rhs.hi
        if relation == ">=":
            return self.lhs.hi < self.rhs.lo
        return self.lhs.lo > self.rhs.hi or self.lhs.hi < self.rhs.lo

    def margin(self, relation: str) -> Fraction:
        """How far the intervals are on the wrong side (> 0 iff :meth:`violates`)."""
        below, above = self.rhs.lo - self.lhs.hi, self.lhs.lo - self.rhs.hi
        return {"<=": above, ">=": below}.get(relation, max(above, below))


# --------------------------------------------------------------------------------------
# Certified sides.  Inputs are the stored floats read as exact rationals; KL values
# d(p, 1/2) are enclosed by python-flint's ball arithmetic; everything else is exact
# rational arithmetic.  Optima that only an LP gives are enclosed by the exact
# certificate of duelbound.solvers.certificate (primal and dual bounds).
# --------------------------------------------------------------------------------------

def kl_half_interval(p: Fraction) -> Interval:
    """Enclosure of d(p, 1/2), 0 log 0 = 0 (docs/math.md §3; ball arithmetic)."""
    return Interval(*kl_half_enclosure(p, ARB_BITS))


@dataclass
class ExactMatrix:
    """Exact data of one matrix: µ as rationals, L, komiyama r, d and c = r/d enclosures."""

    M: PreferenceMatrix
    mu: list[list[Fraction]]
    L: list[int]
    r: list[list[Fraction]]
    d: dict[tuple[int, int], Interval]

    @classmethod
    def of(cls, M: PreferenceMatrix) -> ExactMatrix:
        K = M.K
        mu = [[Fraction(float(v)) for v in row] for row in M.values]
        L = [int(v) for v in stc.losses(M)]
        l1, den = min(L), 2 * (K - 1)
        r = [[Fraction(L[i] + L[j] - 2 * l1, den) for j in range(K)] for i in range(K)]
        d = {}
        for i, j in combinations(range(K), 2):
            d[i, j] = d[j, i] = kl_half_interval(mu[i][j])
        return cls(M, mu, L, r, d)

    def cost(self, i: int, j: int, end: str) -> Fraction:
        """c_ij = r_ij / d_ij at the low (``"lo"``) or high (``"hi"``) end of d's enclosure."""
        dd = self.d[i, j]
        return self.r[i][j] / (dd.hi if end == "lo" else dd.lo)

    def winners(self) -> list[int]:
        l1 = min(self.L)
        return [i for i, v in enumerate(self.L) if v == l1]

    def superiors_of(self, i2: int, i1: int) -> list[int]:
        """S_{i2} \\ {i1}: the arms other than i1 that beat i2."""
        return [j for j in range(self.M.K) if j not in (i1, i2) and self.mu[i2][j] < Fraction(1, 2)]

    def d_min(self) -> Interval:
        """d(1/2 + Δ_min, 1/2) with Δ_min = min |µ_ij − 1/2| read exactly."""
        half = Fraction(1, 2)
        gap = min(abs(self.mu[i][j] - half) for i, j in combinations(range(self.M.K), 2))
        return kl_half_interval(half + gap)


def threshold_exact(c: list[Fraction], m: int) -> tuple[Fraction, list[int], Fraction]:
    """[K16] Theorem 5 in exact arithmetic: (value, cheapest-h indices, weight 1/(h − k))."""
    order = sorted(range(len(c)), key=lambda j: c[j])
    k = len(c) - m
    best: Fraction | None = None
    best_h, acc = 0, Fraction(0)
    for h in range(1, len(c) + 1):
        acc += c[order[h - 1]]
        if h > k and (best is None or acc / (h - k) < best):
            best, best_h = acc / (h - k), h
    assert best is not None  # h = len(c) > k = len(c) - m always sets it (m >= 1)
    return best, order[:best_h], Fraction(1, best_h - k)


def _ecw_exact(ex: ExactMatrix, i1: int, end: str) -> tuple[Fraction, list[list[Fraction]]]:
    """C^E*_{i1} ([K16] §4.2, Theorem 5) and its evidence x, exactly, at one end of c.

    C^E* is a minimum of c·x over a set that does not depend on c, with x ≥ 0, so it
    is nondecreasing in every c_ij: its values at the two ends enclose the true one.
    """
    K = ex.M.K
    X = [[Fraction(0)] * K for _ in range(K)]
    total = Fraction(0)
    for j in range(K):  # (4): x_{i1 j} = 1 on the inferiors of i1
        if j != i1 and ex.mu[i1][j] > Fraction(1, 2):
            X[i1][j] = X[j][i1] = Fraction(1)
            total += ex.cost(i1, j, end)
    for i2 in range(K):  # (5): one threshold problem per i2
        if i2 == i1:
            continue
        S = ex.superiors_of(i2, i1)
        m = ex.L[i2] - ex.L[i1] + 1
        if m < 1 or len(S) < m:
            continue
        val, chosen, e = threshold_exact([ex.cost(j, i2, end) for j in S], m)
        total += val
        for t in chosen:
            X[S[t]][i2] = X[i2][S[t]] = e
    return total, X


def _ecw_interval(ex: ExactMatrix, i1: int) -> Interval:
    return Interval(_ecw_exact(ex, i1, "lo")[0], _ecw_exact(ex, i1, "hi")[0])


def _ecw_min_lhs_exact(ex: ExactMatrix, i1: int, X: list[list[Fraction]]) -> Fraction | None:
    """Smallest left side of (4)–(5) of R^E_{i1} at the exact evidence X (None: no row)."""
    K = ex.M.K
    vals = [X[i1][j] for j in range(K) if j != i1 and ex.mu[i1][j] > Fraction(1, 2)]
    for i2 in range(K):
        if i2 == i1:
            continue
        S = ex.superiors_of(i2, i1)
        m = ex.L[i2] - ex.L[i1] + 1
        if 1 <= m <= len(S):
            vals.append(sum(sorted(X[j][i2] for j in S)[:m], Fraction(0)))
    return min(vals) if vals else None


def _cstar_interval(ex: ExactMatrix, i1: int) -> Interval:
    """C*_{i1} ([K16] Theorem 2) enclosed by the exact LP certificate.

    The certificate is exact for the costs c_p = r_p / d̂_p with d̂_p the float d(µ_p, ½)
    the LP used; the true costs differ by at most δ_p = max |c_p − r_p/d_p| over the
    enclosure of d_p, and since the evidence x lies in [0, 1], C*_{i1} moves by at most
    Σ δ_p.  Raises SolverError when the LP fails or no certificate is found.
    """
    from ...solvers.certificate import VERIFIED, certify_winner
    from ...solvers.cstar import solve_winner

    ws = solve_winner(ex.M, i1)
    res = certify_winner(ex.M, ws)
    if res.status not in VERIFIED or res.lower is None or res.upper is None:
        raise SolverError(f"no certificate for C*_{i1}: {res.status}")
    slack = Fraction(0)
    for (a, b), dp in zip(ws.px.pairs.tolist(), ws.px.d.tolist()):
        c_used = ex.r[a][b] / Fraction(float(dp))
        slack += max(abs(c_used - ex.cost(a, b, "lo")), abs(c_used - ex.cost(a, b, "hi")))
    return Interval(Fraction(res.lower) - slack, Fraction(res.upper) + slack)


def _worst(cands: list[CertifiedSides], relation: str) -> CertifiedSides:
    """The candidate furthest on the wrong side (the most violated, or the closest call)."""
    return max(cands, key=lambda s: s.margin(relation))


def lemma7_cert(M: PreferenceMatrix) -> CertifiedSides:
    L = [int(v) for v in stc.losses(M)]
    return _worst([CertifiedSides(Interval.point(sum(v <= dd for v in L)),
                                  Interval.point(2 * dd + 1), f"d = {dd}")
                   for dd in range(M.K)], "<=")


def lemma8_cert(M: PreferenceMatrix) -> CertifiedSides:
    K = M.K
    lhs = sum((Fraction(K - 1, int(v)) for v in stc.losses(M) if v >= 1), Fraction(0))
    rhs = (K - 1) * sum(Fraction(1, max(1, -(-(m - 1) // 2))) for m in range(1, K + 1))
    return CertifiedSides(Interval.point(lhs), Interval.point(rhs))


def lp6_interval(c: list[Fraction], m: int) -> Interval:
    """Optimum of LP (6) enclosed by an exactly feasible primal and dual (small n only).

    Primal: the floating solution, checked exactly (its m smallest entries sum to
    s > 0) and scaled by 1/s.  Dual: the floating multipliers y ≥ 0 of the m-subset
    rows, scaled down until Σ_{S∋j} y_S ≤ c_j for every j; weak duality gives Σ y ≤ LP.
    """
    from scipy.optimize import linprog

    n = len(c)
    subsets = list(combinations(range(n), m))
    A = np.zeros((len(subsets), n))
    for r, S in enumerate(subsets):
        A[r, list(S)] = -1.0
    res = linprog(np.array([float(v) for v in c]), A_ub=A, b_ub=-np.ones(len(subsets)),
                  bounds=[(0, None)] * n, method="highs")
    if res.status != 0:  # pragma: no cover - (6) is always feasible and bounded
        raise SolverError(f"linprog: {res.message}")
    x = [max(Fraction(0), Fraction(float(v)).limit_denominator(10**6)) for v in res.x]
    s = sum(sorted(x)[:m], Fraction(0))
    if s <= 0:
        x, s = [Fraction(1)] * n, Fraction(m)
    # x/s if s < 1
    upper = sum((ci * xi for ci, xi in zip(c, x)), Fraction(0)) / min(s, Fraction(1))
    y = [max(Fraction(0), Fraction(float(-v))) for v in res.ineqlin.marginals]
    col = [sum((y[r] for r, S in enumerate(subsets) if j in S), Fraction(0)) for j in range(n)]
    scale = min([Fraction(1)] + [c[j] / col[j] for j in range(n) if col[j] > c[j]])
    return Interval(scale * sum(y), upper)


def theorem5_cert(M: PreferenceMatrix) -> CertifiedSides:
    """Theorem 5 holds for any costs: checked on the exact rationals of the float costs."""
    ex = ExactMatrix.of(M)
    cands = []
    for i1 in ex.winners():
        lhs, rhs, count = Interval.point(0), Interval.point(0), 0
        for i2 in range(M.K):
            S = ex.superiors_of(i2, i1)
            m = ex.L[i2] - ex.L[i1] + 1
            if i2 == i1 or m < 1 or len(S) < m:
                continue
            c = [ex.r[j][i2] / Fraction(float(kl_half(float(ex.mu[j][i2])))) for j in S]
            lhs = lhs + Interval.point(threshold_exact(c, m)[0])
            rhs = rhs + lp6_interval(c, m)
            count += 1
        cands.append(CertifiedSides(lhs, rhs, f"i1 = {i1}, {count} problems (6)"))
    return _worst(cands, "==")


def theorem6_cert(relation: str) -> Callable[[PreferenceMatrix], CertifiedSides]:
    def cert(M: PreferenceMatrix) -> CertifiedSides:
        ex = ExactMatrix.of(M)
        return _worst([CertifiedSides(_ecw_interval(ex, i1), _cstar_interval(ex, i1),
                                      f"i1 = {i1}") for i1 in ex.winners()], relation)
    return cert


def allocation_44_cert(M: PreferenceMatrix) -> CertifiedSides:
    ex = ExactMatrix.of(M)
    K, l1 = M.K, min(ex.L)
    cands = []
    for i1 in ex.winners():
        X = [[Fraction(0)] * K for _ in range(K)]
        for j in range(K):
            if j != i1 and ex.mu[i1][j] > Fraction(1, 2):
                X[i1][j] = X[j][i1] = Fraction(1)
        for i2 in range(K):
            if i2 != i1:
                for j in ex.superiors_of(i2, i1):
                    X[j][i2] = X[i2][j] = Fraction(1, ex.L[i2] - l1 + 1)
        v = _ecw_min_lhs_exact(ex, i1, X)
        if v is not None:
            cands.append(CertifiedSides(Interval.point(v), Interval.point(1), f"i1 = {i1}"))
    return _worst(cands, ">=") if cands else CertifiedSides(Interval.point(1), Interval.point(1))


def ecw_in_cw_cert(M: PreferenceMatrix) -> CertifiedSides:
    """An exact point of R^E_{i1} (the threshold allocation) tested against all of R_{i1}."""
    from ...solvers.certificate import exact_min_lhs

    ex = ExactMatrix.of(M)
    mu = np.ascontiguousarray(M.values, dtype=np.float64)
    cands = []
    for i1 in ex.winners():
        _, X = _ecw_exact(ex, i1, "lo")
        v, _ = exact_min_lhs(mu, i1, X)
        if v != float("inf"):
            cands.append(CertifiedSides(Interval.point(v), Interval.point(1), f"i1 = {i1}"))
    return _worst(cands, ">=") if cands else CertifiedSides(Interval.point(1), Interval.point(1))


def _sum11(ex: ExactMatrix, i1: int) -> Fraction:
    """d_min × right side of (11): Σ_{i2≠i1} (1 + L_{i2}/(L_{i2} − L1 + 1))."""
    l1 = min(ex.L)
    return sum((1 + Fraction(ex.L[i2], ex.L[i2] - l1 + 1) for i2 in range(ex.M.K) if i2 != i1),
               Fraction(0))


def _sum12(ex: ExactMatrix) -> Fraction:
    """d_min × right side of (12): K (L1 + 3/2 + L1²/K)."""
    K, l1 = ex.M.K, min(ex.L)
    return K * (l1 + Fraction(3, 2) + Fraction(l1 * l1, K))


def eq11_cert(M: PreferenceMatrix) -> CertifiedSides:
    ex = ExactMatrix.of(M)
    dmin = ex.d_min()
    return _worst([CertifiedSides(_ecw_interval(ex, i1),
                                  Interval.point(_sum11(ex, i1)).over(dmin), f"i1 = {i1}")
                   for i1 in ex.winners()], "<=")


def eq12_cert(M: PreferenceMatrix) -> CertifiedSides:
    ex = ExactMatrix.of(M)
    ce = [_ecw_interval(ex, i1) for i1 in ex.winners()]
    lhs = Interval(min(v.lo for v in ce), min(v.hi for v in ce))
    return CertifiedSides(lhs, Interval.point(_sum12(ex)).over(ex.d_min()))


def eq11_le_eq12_cert(M: PreferenceMatrix) -> CertifiedSides:
    ex = ExactMatrix.of(M)
    dmin = ex.d_min()
    i1 = min(ex.winners(), key=lambda i: _sum11(ex, i))
    return CertifiedSides(Interval.point(_sum11(ex, i1)).over(dmin),
                          Interval.point(_sum12(ex)).over(dmin),
                          f"i1 = {i1}, L1 = {min(ex.L)}, L = {ex.L}")

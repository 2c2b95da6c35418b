"""The certificate of C*_{i1} and its exact verification (docs/math.md §5.3).

A :class:`Certificate` is a primal x̂ ∈ [0, 1]^P and a dual (y, w) on explicit constraints
of R_{i1}; :func:`verify` checks it in exact rational arithmetic: x̂ against **every**
constraint by the sorting oracle (:func:`exact_min_lhs`), giving C*_{i1} ≤ c·x̂, and every
dual row against the definition of a constraint (:class:`~.constraint_check.ConstraintCheck`),
y ≥ 0, w ≥ 0 and Aᵀy − w ≤ c, giving C*_{i1} ≥ Σ y − Σ w by weak duality.  The inputs
(:func:`exact_inputs`) are the exact rationals of the floats the LP used.  A dual split
from the compact LP comes as :class:`DualGroup` objects (rows sharing one denominator), whose
sums are integer sums; long sums are added in python-flint's ``fmpq`` (:func:`exact_sum`) or,
where the denominators are mostly coprime (c·x̂ and Σ y − Σ w in :func:`verify`), as unreduced
``fmpz`` fractions with one gcd at the end (:func:`unreduced_sum`), and turned into Fractions
without a second gcd (:func:`reduced_fraction`).
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import flint
import numpy as np

from ..theory import tournament as st
from .constraint_check import ConstraintCheck
from .formulations import constraint_families
from .gc_pause import gc_paused

__all__ = ["exact_inputs", "exact_costs", "exact_min_lhs", "exact_sum", "unreduced_sum",
           "reduced_fraction", "coprime_fraction", "exact_difference", "column_sums",
           "column_terms", "fraction_groups", "DualGroup", "Certificate", "to_matrix", "verify"]


def exact_inputs(M, px) -> tuple[list[Fraction], list[Fraction], list[Fraction]]:
    """(d_p, r_p, c_p) as exact rationals for the pairs of ``px``."""
    nums, den = _regret_numerators(M, px)
    return ([Fraction(v) for v in px.d.tolist()], [Fraction(k, den) for k in nums],
            exact_costs(M, px))


def exact_costs(M, px) -> list[Fraction]:
    """c_p = r_p / d_p exactly, with d_p = the float the LP used read exactly (m / 2^e):
    c_p = k_p 2^e / (den m), one Fraction (one gcd of small integers) per pair."""
    nums, den = _regret_numerators(M, px)
    return [Fraction(k * q, den * p)
            for k, (p, q) in zip(nums, map(float.as_integer_ratio, px.d.tolist()))]


def _regret_numerators(M, px) -> tuple[list[int], int]:
    """r_p = k_p / den with k_p = L_a + L_b − 2 L1 and den = 2 (K − 1), the regret of the pair
    ([K16] §2; docs/math.md §5)."""
    L = st.losses(M).tolist()
    l1 = min(L)
    return [L[a] + L[b] - 2 * l1 for a, b in px.pairs.tolist()], 2 * (M.K - 1)


def exact_min_lhs(mu: np.ndarray, i1: int, X: list[list[Fraction]]):
    """Smallest left-hand side over all constraints of R_{i1}, exactly (docs/math.md §5.1).

    ``X`` is a K×K nested list of Fractions (symmetric evidence).  Returns
    (value, (i2, l, case)) — the minimum over every (i2, l, I, S), computed by
    sorting exact rationals (as integers on their common denominator: vertices have small
    ones); (inf, None) if R_{i1} has no constraint.
    """
    den = math.lcm(*(v.denominator for row in X for v in row))
    Xn = [[v.numerator * (den // v.denominator) for v in row] for row in X]
    best: Any = None
    arg = None
    cache: dict[tuple, list[int]] = {}

    def prefix(owner: int, members: list[int]) -> list[int]:
        key = (owner, tuple(members))
        if key not in cache:
            cache[key] = [0, *itertools.accumulate(sorted(Xn[owner][j] for j in members))]
        return cache[key]

    for i2, l, case, A, m, B, s in constraint_families(mu, i1):
        v = prefix(i1, A)[m] + prefix(i2, B)[s] + (Xn[i1][i2] if case == 1 else 0)
        if best is None or v < best:
            best, arg = v, (i2, l, case)
    return (float("inf"), None) if best is None else (Fraction(best, den), arg)


def exact_sum(values) -> Fraction:
    """Exact sum of Fractions, added in python-flint's ``fmpq`` (fast gcd on the long
    denominators that sums of the rational costs build up), returned as a Fraction.

    Numerators of equal denominators are added first as integers (dyadic costs times
    small-denominator primal values share a few dozen denominators)."""
    by_den: dict[int, int] = {}
    for v in values:
        if v:
            by_den[v.denominator] = by_den.get(v.denominator, 0) + v.numerator
    terms = [flint.fmpq(n, d) for d, n in by_den.items() if n]
    # pairwise (tree) summation: operands of similar size keep the gcds short, where a
    # running sum drags its ever longer denominator through every addition
    while len(terms) > 1:
        terms = [terms[k] + terms[k + 1] if k + 1 < len(terms) else terms[k]
                 for k in range(0, len(terms), 2)]
    return reduced_fraction(terms[0] if terms else flint.fmpq(0))


class _LowestTerms:
    """n/d already in lowest terms (d > 0).  ``Fraction(_LowestTerms(n, d))`` copies n and d
    without a gcd: ``fractions.Fraction`` takes the numerator and denominator of any
    ``numbers.Rational`` as they are (the ABC's contract is lowest terms)."""

    __slots__ = ("numerator", "denominator")

    def __init__(self, n: int, d: int) -> None:
        self.numerator, self.denominator = n, d


numbers.Rational.register(_LowestTerms)


def coprime_fraction(n: int, d: int) -> Fraction:
    """n/d for coprime n and d > 0, built without a gcd (the caller guarantees lowest
    terms; Fraction equality and hashing rely on them)."""
    return Fraction(cast(numbers.Rational, _LowestTerms(n, d)))


def reduced_fraction(q: flint.fmpq) -> Fraction:
    """``q`` (in lowest terms already) as a Fraction without a second gcd: Python's gcd is
    quadratic, ~1 s on the 10⁶-bit sums of a floating-point certificate at K = 200."""
    return coprime_fraction(int(q.p), int(q.q))


def exact_difference(a: Fraction, b: Fraction) -> Fraction:
    """a − b, reduced by FLINT (subquadratic gcd) instead of Python's."""
    return reduced_fraction(flint.fmpq(a.numerator, a.denominator)
                            - flint.fmpq(b.numerator, b.denominator))


@dataclass
class DualGroup:
    """Dual rows that share one denominator: y_k = ``num`` · ``weights[k]`` / ``den``.

    The pieces of one compact family row (:func:`~.compact_dual.split_compact_dual`: its
    dual y_f = num/den' times the integer weights of a convex decomposition over their
    common denominator) or the Fractions of one denominator.  Sums over a group are integer
    sums (no gcd); a column meets one or two groups.
    """

    num: int
    den: int  # > 0
    weights: list[int]
    rows: list[list[int]]

    def values(self) -> list[Fraction]:
        """The duals y_k as Fractions (reduced: one gcd each)."""
        return [Fraction(self.num * wk, self.den) for wk in self.weights]


def fraction_groups(y, rows) -> list[DualGroup]:
    """The nonzero y_r (Fractions) grouped by denominator; dyadic ones (denominators powers of
    two, a floating-point dual read exactly) in one group over the largest power of two."""
    by_den: dict[int, DualGroup] = {}
    for yr, cols in zip(y, rows):
        if yr:
            g = by_den.setdefault(yr.denominator, DualGroup(1, yr.denominator, [], []))
            g.weights.append(yr.numerator)
            g.rows.append(cols)
    if by_den and all(dd & (dd - 1) == 0 for dd in by_den):  # powers of two
        top = max(by_den)
        return [DualGroup(1, top, [wk * (top // g.den) for g in by_den.values()
                                   for wk in g.weights],
                          [cols for g in by_den.values() for cols in g.rows])]
    return list(by_den.values())


def column_terms(groups: list[DualGroup], P: int) -> list[list[tuple[int, int]]]:
    """(Aᵀy)_p of explicit rows (lists of pair columns with coefficient 1) as unreduced terms:
    for every column the list of (numerator, denominator) of each group's share.

    Within a group the weights of the rows through p are added as integers, so the work is
    integer additions and one product per (group, column) — exact, with no gcd (the split
    compact dual at K = 136: 8 200 rows of ~3 000-bit rationals, one group in 9 073 of 9 130
    columns).
    """
    terms: list[list[tuple[int, int]]] = [[] for _ in range(P)]
    for g in groups:
        acc: dict[int, int] = {}
        for wk, cols in zip(g.weights, g.rows):
            for p in cols:
                acc[p] = acc.get(p, 0) + wk
        for p, a in acc.items():
            if a:
                terms[p].append((g.num * a, g.den))
    return terms


def _combine(terms: list[tuple[Any, Any]]) -> tuple[Any, Any]:
    """Σ n/d of unreduced terms as one unreduced (numerator, denominator), pairwise (operands
    of similar size); (0, 1) if empty.  Python ints or python-flint ``fmpz``
    (:func:`unreduced_sum`)."""
    while len(terms) > 1:
        nxt = [(a * d2 + c2 * b, b * d2) for (a, b), (c2, d2) in zip(terms[0::2], terms[1::2])]
        if len(terms) % 2:
            nxt.append(terms[-1])
        terms = nxt
    return terms[0] if terms else (0, 1)


def column_sums(y, rows, P: int) -> list[Fraction]:
    """(Aᵀy)_p for explicit rows (lists of pair columns with coefficient 1), as Fractions.

    The y_r are grouped by denominator (:func:`fraction_groups`; all dyadic ones in one
    group), summed per group as integers and combined per column as unreduced fractions
    a/b + c/d = (ad + cb)/(bd), reduced once (:func:`column_terms`): exact, with one gcd
    per column instead of one per addition.
    """
    return [Fraction(*_combine(t)) for t in column_terms(fraction_groups(y, rows), P)]


class Certificate:
    """Primal x̂ (pair vector), dual y (rows of ``rows``), box multipliers w, all exact.

    ``w=None``: the best multipliers for this y, w = max(0, Aᵀy − c), are derived by
    :func:`verify` from the Aᵀy it computes anyway (one pass over the rows, not two).
    A dual built by :meth:`from_groups` keeps its groups (:class:`DualGroup`): :func:`verify`
    and the enclosure work on them in integers, and ``y`` is a tuple of Fractions made
    only when read.
    """

    def __init__(self, x, y, w, rows) -> None:
        self.x, self.rows = list(x), list(rows)
        self._y: list | tuple | None = list(y)
        self.w = None if w is None else list(w)
        self.groups: list[DualGroup] | None = None
        #: (i2, l, I, S) of every row, set by :func:`verify` (None: not a constraint)
        self.identified: list | None = None

    @classmethod
    def from_groups(cls, x, groups: list[DualGroup], w=None) -> Certificate:
        """A certificate whose dual rows are the rows of ``groups``, in group order."""
        cert = cls(x, (), w, [cols for g in groups for cols in g.rows])
        cert._y, cert.groups = None, groups
        return cert

    @property
    def y(self):
        """The duals, one per row (a tuple, made on first read, for a grouped dual)."""
        if self._y is None:
            self._y = tuple(v for g in self.groups for v in g.values())
        return self._y

    def with_primal(self, x) -> Certificate:
        """The same dual with another primal."""
        if self.groups is not None:
            return Certificate.from_groups(x, self.groups, self.w)
        return Certificate(x, self.y, self.w, self.rows)

    def dual_terms(self):
        """(numerator, denominator > 0, cols) of every row's dual, in row order, unreduced for
        a grouped dual (no gcd)."""
        if self.groups is None:
            return ((v.numerator, v.denominator, cols) for v, cols in zip(self.y, self.rows))
        return ((g.num * wk, g.den, cols) for g in self.groups
                for wk, cols in zip(g.weights, g.rows))

    def dual_groups(self) -> list[DualGroup]:
        """The dual as groups (its own, or the Fractions grouped now: ``y`` may have been
        edited in place)."""
        return self.groups if self.groups is not None else fraction_groups(self.y, self.rows)


def to_matrix(px, x: list[Fraction], K: int) -> list[list[Fraction]]:
    X = [[Fraction(0)] * K for _ in range(K)]
    for (a, b), v in zip(px.pairs.tolist(), x):
        X[a][b] = X[b][a] = v
    return X


@gc_paused()  # exact arithmetic on ~10⁵ acyclic objects (.gc_pause)
def verify(M, i1: int, px, cert: Certificate, c: list[Fraction]) -> dict[str, Any]:
    """Check a certificate exactly; returns status, bounds and the first failure.

    (a) x̂ in the box and in R_{i1} (every constraint, exact oracle); (b) every row
    of ``cert.rows`` is a constraint of R_{i1}, y ≥ 0, w ≥ 0 and Aᵀy − w ≤ c;
    (c) c·x̂ = Σ y − Σ w.  Status "exact" iff all hold, "enclosed" (lower ≤ C*_{i1} ≤ upper,
    rigorously) if (a) and (b) do.
    """
    mu = np.ascontiguousarray(M.values)
    primal_ok, upper_nd = _primal_check(mu, i1, px, cert, c)
    dual_ok, lower_nd = _dual_check(mu, i1, px, cert, c)
    # (c) by one cross-multiplication of the unreduced sums (denominators of ~10⁵–10⁶ bits);
    # the long gcd is taken once for both when they are equal
    equal = bool(upper_nd[0] * lower_nd[1] == lower_nd[0] * upper_nd[1])
    upper = _lowest_terms(upper_nd)
    lower = upper if equal else _lowest_terms(lower_nd)
    out: dict[str, Any] = {"status": "failed", "checks": {
        "primal_feasible": primal_ok, "dual_feasible": dual_ok, "objectives_equal": equal}}
    if primal_ok:
        out["upper"] = upper
    if dual_ok:
        out["lower"] = lower
    if primal_ok and dual_ok:
        out["status"] = "exact" if equal else "enclosed"
    return out


def unreduced_sum(terms) -> tuple[Any, Any]:
    """Σ n/d over pairs (n, d > 0) as one unreduced (numerator, denominator), added pairwise
    in python-flint's ``fmpz`` with no gcd at all ((0, 1) if empty): for long sums whose
    denominators are mostly coprime (the exact costs' 53-bit odd parts), where the gcds of
    fraction arithmetic find little to cancel."""
    return _combine([(flint.fmpz(n), flint.fmpz(d)) for n, d in terms])


def _lowest_terms(nd: tuple[Any, Any]) -> Fraction:
    """n/d reduced by FLINT (one subquadratic gcd) as a Fraction."""
    return reduced_fraction(flint.fmpq(*nd))


def _primal_check(mu: np.ndarray, i1: int, px, cert: Certificate, c: list[Fraction]
                  ) -> tuple[bool, tuple[Any, Any]]:
    """(x̂ in the box and in R_{i1}, c·x̂ unreduced): (a) of :func:`verify`, every
    constraint checked by the exact oracle."""
    in_box = all(0 <= v <= 1 for v in cert.x)
    lhs, _ = exact_min_lhs(mu, i1, to_matrix(px, cert.x, mu.shape[0]))
    upper = unreduced_sum((ci.numerator * xi.numerator, ci.denominator * xi.denominator)
                          for ci, xi in zip(c, cert.x) if xi)
    return bool(in_box and lhs >= 1), upper


def _dual_check(mu: np.ndarray, i1: int, px, cert: Certificate, c: list[Fraction]
                ) -> tuple[bool, tuple[Any, Any]]:
    """(y, w) dual feasible on genuine constraints, Σ y − Σ w unreduced): (b) of
    :func:`verify`.

    Sets ``cert.identified`` (the enclosure reads the rows' (i2, l, I, S)); when
    ``cert.w`` is None, w = max(0, Aᵀy − c), the best multipliers for this y
    (:func:`_excess`).  Aᵀy is summed per :class:`DualGroup` in integers.
    """
    # rows must be real constraints: sets I ⊆ I_{i1}, S ⊆ S_{i2} \ {i1} of the right size
    is_row = ConstraintCheck(mu, i1, px)
    cert.identified = [is_row.identify(cols) for cols in cert.rows]
    valid_rows = all(ident is not None for ident in cert.identified)
    groups = cert.dual_groups()
    y_ok = all(g.den > 0 and all(_sign(g.num) * wk >= 0 for wk in g.weights) for g in groups)
    terms = column_terms(groups, len(c))
    if cert.w is None:
        w, w_ok = _excess(terms, c), True
    else:
        w_ok = all(v >= 0 for v in cert.w) and all(
            Fraction(*_combine(t)) - wp <= cp for t, wp, cp in zip(terms, cert.w, c))
        w = [(v.numerator, v.denominator) for v in cert.w if v]
    lower = unreduced_sum([*((g.num * sum(g.weights), g.den) for g in groups),
                           *((-n, d) for n, d in w)])
    return bool(valid_rows and y_ok and w_ok), lower


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _excess(terms: list[list[tuple[int, int]]], c: list[Fraction]) -> list[tuple[int, int]]:
    """The w_p = max(0, (Aᵀy)_p − c_p) > 0 exactly from :func:`column_terms`, as unreduced
    (numerator, denominator): the sign of one integer cross-product per column decides."""
    w = []
    for t, cp in zip(terms, c):
        n, d = _combine(t)
        diff = n * cp.denominator - cp.numerator * d
        if diff > 0:
            w.append((diff, d * cp.denominator))
    return w

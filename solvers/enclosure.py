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

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .certificate_verify import Certificate, coprime_fraction, exact_sum
from .constraint_check import ConstraintCheck
from .gc_pause import gc_paused

__all__ = ["FORMAT", "VERSION", "Enclosure", "CostBounds", "enclose", "ecw_enclosure",
           "float_below", "float_above"]

FORMAT = "duelbound-cstar-certificate"
VERSION = 2
#: Relative precision (bits) of the d enclosures, cost bounds and rounded duals: the
#: enclosure's relative width is a few times 2^-BITS plus the certificate's own gap.
BITS = 100
_ZERO = Fraction(0)
_ONE = Fraction(1)


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
    return _dyadic_nd(q.numerator, q.denominator, bits, up)


def _dyadic_nd(n: int, d: int, bits: int, up: bool) -> Fraction:
    """n/d (d > 0) rounded down or up to a dyadic with ``bits`` significant bits, in
    integer arithmetic (no Fraction arithmetic on the way: this runs for every pair)."""
    k, s = _dyadic_ks(n, d, bits, up)
    return coprime_fraction(k, 1 << s)


#: A dyadic rational k / 2^s held as the integers (k, s): s ≥ 0, in lowest terms (k odd or
#: s = 0).  The cost table is kept so: no Fraction (and no gcd) per pair.
Dyadic = tuple[int, int]
_DYADIC_ZERO: Dyadic = (0, 0)


def _dyadic_ks(n: int, d: int, bits: int, up: bool) -> Dyadic:
    """:func:`_dyadic_nd` as the pair (k, s) of k / 2^s in lowest terms."""
    if n == 0:
        return _DYADIC_ZERO
    s = bits - (abs(n).bit_length() - d.bit_length())
    num, den = (n << s, d) if s >= 0 else (n, d << -s)
    k = -(-num // den) if up else num // den
    if s < 0:
        return k << -s, 0
    tz = min(s, (k & -k).bit_length() - 1) if k else s  # k / 2^s in lowest terms: no gcd
    return k >> tz, s - tz


def _on_one_power_of_two(c: list[Dyadic]) -> tuple[list[int], int]:
    """Dyadics (k, s) as integer numerators over their common denominator 2^max s."""
    top = max((s for _, s in c), default=0)
    return [k << (top - s) for k, s in c], 1 << top


def _dyadic_text(v: Dyadic) -> str:
    """``str`` of the Fraction k / 2^s (the document's number format), made without it."""
    k, s = v
    return f"{k}/{1 << s}" if s else str(k)


def _dyadic_dot(terms) -> Fraction:
    """Σ (k / 2^s) · x exactly over pairs (dyadic (k, s), Fraction x): per denominator of x
    the products' numerators are added as integers on one power of two (no gcd per term)."""
    terms = list(terms)
    dyadics, xs = zip(*terms) if terms else ((), ())
    nums, two = _on_one_power_of_two(list(dyadics))
    by_den: dict[int, int] = {}
    for k, x in zip(nums, xs):
        by_den[x.denominator] = by_den.get(x.denominator, 0) + k * x.numerator
    return exact_sum(Fraction(n, d * two) for d, n in by_den.items())


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
    #: (d⁻, d⁺, c⁻, c⁺) of every pair whose cost the proof reads, as dyadics (k, s) = k / 2^s
    pairs: dict[tuple[int, int], tuple[Dyadic, Dyadic, Dyadic, Dyadic]]
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
            "pairs": [{"pair": [a, b], "d": [_dyadic_text(dl), _dyadic_text(dh)],
                       "cost": [_dyadic_text(cl), _dyadic_text(ch)]}
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


def _kl_ends(p: Fraction, rel_bits: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """((n, d), (n', d')): n/d ≤ d(p, ½) ≤ n'/d', relative width ≤ 2^-rel_bits.

    The ball arithmetic of :func:`~duelbound.theory.kl.kl_half_enclosure` (python-flint
    ``arb``; the precision doubles until the ball is narrow enough) with the ends returned
    as integer pairs: no Fraction arithmetic, which cost 4/5 of the time per pair.
    """
    import flint

    n, d = p.numerator, p.denominator
    gap = abs(2 * n - d)  # |2p − 1| = gap / d; a gap of 2^-g cancels ~2g bits
    prec = 2 * max(0, d.bit_length() - gap.bit_length()) + rel_bits + 64
    old = flint.ctx.prec
    try:
        while True:
            flint.ctx.prec = prec
            pa = flint.arb(flint.fmpq(n, d))
            qa = 1 - pa
            zero = flint.arb(0)  # 0·log 0 = 0, as an arb so that val has lower()/upper()
            val = (pa * (2 * pa).log() if n else zero) + (qa * (2 * qa).log() if n < d else zero)
            ends = []
            for x in (val.lower(), val.upper()):
                m, e = (int(v) for v in x.man_exp())
                ends.append((m << e, 1) if e >= 0 else (m, 1 << -e))
            (a, b), (c, e) = ends
            if a > 0 and (c * b - a * e) << rel_bits <= a * e:
                return ends[0], ends[1]
            prec *= 2
    finally:
        flint.ctx.prec = old


class CostBounds:
    """Dyadic bounds c⁻ ≤ r/d ≤ c⁺ on the cost of each pair, from a rigorous enclosure of
    d(µ, ½) (computed once per pair, on demand; pairs of two winners cost 0).  ``table``
    holds (d⁻, d⁺, c⁻, c⁺) per pair (a < b) as :data:`Dyadic` pairs of integers."""

    def __init__(self, mu: list[list[Fraction]], L: list[int]):
        self.mu, self.L, self.l1 = mu, L, min(L)
        self.den = 2 * (len(mu) - 1)
        self.table: dict[tuple[int, int], tuple[Dyadic, Dyadic, Dyadic, Dyadic]] = {}

    def bounds(self, a: int, b: int) -> tuple[Dyadic, Dyadic]:
        """(c⁻, c⁺) of the pair {a, b} as dyadics (k, s) = k / 2^s."""
        if a > b:
            a, b = b, a
        row = self.table.get((a, b))
        if row is None:
            num = self.L[a] + self.L[b] - 2 * self.l1  # r = num / den
            if num == 0:
                return _DYADIC_ZERO, _DYADIC_ZERO
            row = self.table[a, b] = self._pair(self.mu[a][b], num)
        return row[2], row[3]

    def _pair(self, p: Fraction, num: int) -> tuple[Dyadic, Dyadic, Dyadic, Dyadic]:
        (ln, ld), (hn, hd) = _kl_ends(p, BITS + 20)
        # each end at least 2^-(BITS+8) relative away from d: a checker working at 128
        # bits decides d⁻ ≤ d ≤ d⁺ at its first precision
        one = 1 << (BITS + 8)
        dl = _dyadic_ks(ln * (one - 1), ld * one, BITS + 10, up=False)
        dh = _dyadic_ks(hn * (one + 1), hd * one, BITS + 10, up=True)
        # c = num / (den d): c⁻ from d⁺ = k / 2^s is num 2^s / (den k), c⁺ from d⁻
        return (dl, dh, _dyadic_ks(num << dh[1], self.den * dh[0], BITS, False),
                _dyadic_ks(num << dl[1], self.den * dl[0], BITS, True))


def _threshold(c: list[int], den: int, m: int) -> Fraction:
    """[K16] Theorem 5 in exact arithmetic for the costs c_k / ``den`` (integers c_k on one
    denominator): min over e ≥ 0 with every m-subset summing to ≥ 1 of Σ c e
    = min_{h > n−m} (sum of the h smallest c) / (h − (n − m)).

    Sorted and summed as integers, the ratios compared by cross-multiplication."""
    n = len(c)
    if n < m or m < 1:
        return Fraction(0)
    k, acc, best, best_h = n - m, 0, 0, 0
    for h, v in enumerate(sorted(c), start=1):
        acc += v
        if h > k and (not best_h or acc * (best_h - k) < best * (h - k)):
            best, best_h = acc, h
    return Fraction(best, (best_h - k) * den)


def ecw_enclosure(mu: list[list[Fraction]], L: list[int], i1: int,
                  costs: CostBounds) -> tuple[Fraction, Fraction]:
    """[lo, hi] ∋ C^E*_{i1} ([K16] §4.2, Theorem 5; docs/math.md §6).

    C^E*_{i1} = Σ_{j∈I_{i1}} c_{i1 j} + Σ_{i2≠i1} threshold(c_{j i2}, j ∈ S_{i2} minus i1;
    m = L_{i2} − L1 + 1) is the minimum of an LP with non-negative variables, hence
    non-decreasing in every cost: evaluated exactly at the cost bounds c⁻ and c⁺ it
    encloses the value at the true costs.
    """
    K, l1 = len(mu), min(L)
    beaten = [j for j in range(K) if 2 * mu[i1][j].numerator > mu[i1][j].denominator]
    thresholds = []  # (i2, m, S_{i2} minus i1) of every threshold term
    for i2 in range(K):
        members = [j for j in range(K) if j not in (i1, i2)
                   and 2 * mu[i2][j].numerator < mu[i2][j].denominator]
        if i2 != i1 and 1 <= L[i2] - l1 + 1 <= len(members):  # else no threshold: its
            # pairs are not read (and need no cost entry in the certificate)
            thresholds.append((i2, L[i2] - l1 + 1, members))
    out = []
    for end in (0, 1):
        total = _dyadic_dot((costs.bounds(i1, j)[end], _ONE) for j in beaten)
        for i2, m, members in thresholds:
            total += _threshold(*_on_one_power_of_two(
                [costs.bounds(j, i2)[end] for j in members]), m)
        out.append(total)
    return out[0], out[1]


def _winner_proof(i1: int, px, cert, check: Callable[[], ConstraintCheck],
                  cost_of: Callable[[int, int], tuple[Dyadic, Dyadic]]) -> WinnerProof:
    pairs = [(int(a), int(b)) for a, b in px.pairs.tolist()]
    primal = [(a, b, x) for (a, b), x in zip(pairs, cert.x) if x]
    upper = _dyadic_dot((cost_of(a, b)[1], x) for a, b, x in primal)
    dual = _rounded_dual(i1, cert, check)
    # Aᵀy summed over integers on the common denominator 2^shift (every y is dyadic now)
    ys, two = _on_one_power_of_two([(y.numerator, y.denominator.bit_length() - 1)
                                    for y, *_ in dual])
    shift = two.bit_length() - 1
    acc = [0] * len(pairs)
    for n, (*_, cols) in zip(ys, dual):
        for p in cols:
            acc[p] += n
    box, excess = _box(pairs, acc, shift, cost_of)
    # Σ y − Σ w as one fraction over 2^(shift+top)
    ws, two_w = _on_one_power_of_two(excess)
    lower = Fraction(sum(ys) * two_w - sum(ws), two * two_w)
    return WinnerProof(i1, lower, upper, primal, [row[:5] for row in dual], box)


def _rounded_dual(i1: int, cert, check: Callable[[], ConstraintCheck]
                  ) -> list[tuple[Fraction, int, int, list[int], list[int], list[int]]]:
    """(y rounded down to a dyadic, i2, l, I, S, pair columns) of every row with y > 0, the
    rows' (i2, l, I, S) as :func:`~.certificate_verify.verify` identified them (or identified
    now)."""
    dual = []
    idents = cert.identified or [check().identify(cols) for cols in cert.rows]  # verify's
    for (n, d, cols), ident in zip(cert.dual_terms(), idents):
        if n <= 0:
            continue
        if ident is None:  # verified certificates hold genuine rows only
            raise AssertionError(f"certificate row {cols} is no constraint of R_{i1}")
        # rounded down to ≥ BITS significant bits from n/d as given (a grouped dual's are
        # unreduced: no gcd)
        dual.append((_dyadic_nd(n, d, BITS, False), *ident, cols))
    return dual


def _box(pairs: list[tuple[int, int]], acc: list[int], shift: int,
         cost_of: Callable[[int, int], tuple[Dyadic, Dyadic]]
         ) -> tuple[list[tuple[int, int, Fraction]], list[tuple[int, int]]]:
    """w_p = max(0, (Aᵀy)_p − c⁻_p) > 0 with (Aᵀy)_p = acc_p / 2^shift, in pair order: the
    entries (a, b, w) and each w as (numerator, e) over 2^(shift+e), c⁻_p = k / 2^e."""
    box, excess = [], []
    for p in sorted((p for p, v in enumerate(acc) if v), key=pairs.__getitem__):
        k, e = cost_of(*pairs[p])[0]
        diff = (acc[p] << e) - (k << shift)
        if diff > 0:
            box.append((*pairs[p], Fraction(diff, 1 << (shift + e))))
            excess.append((diff, e))
    return box, excess


@gc_paused()  # as verify: exact arithmetic on many acyclic objects (.gc_pause)
def enclose(M, solves: dict, certificates: dict[int, Certificate],
            mu_written=None) -> Enclosure:
    """Enclose C* of the matrix as written from the verified per-winner certificates.

    Parameters
    ----------
    M : PreferenceMatrix
    solves : dict of int to WinnerSolve
        Every Copeland winner's LP solve (:func:`~duelbound.solvers.cstar.solve_winner`).
    certificates : dict of int to Certificate
        Every winner's certificate, verified (status "exact" or "enclosed" by
        :func:`~duelbound.solvers.certificate_verify.verify`; the caller checks:
        :attr:`~duelbound.solvers.certificate.LowerBoundProof.verified`).  Its primal is
        not checked again here.
    mu_written : list of list of Fraction, optional
        Defaults to ``M.exact_as_written()``.

    Returns
    -------
    Enclosure

    Raises
    ------
    ValueError
        ``certificates`` and ``solves`` name different winners.
    """
    if set(certificates) != set(solves):
        raise ValueError(f"certificates for winners {sorted(certificates)}, solves for "
                         f"{sorted(solves)}")
    if mu_written is None:
        mu, source = M.exact_as_written()
    else:
        mu, source = mu_written, "given"
    K = M.K
    L = [sum(1 for v in mu[i] if 2 * v.numerator < v.denominator) for i in range(K)]  # µ < ½
    l1 = min(L)
    winners = [i for i in range(K) if L[i] == l1]
    if sorted(solves) != winners:
        raise AssertionError("the written matrix has another tournament than the floats")
    costs = CostBounds(mu, L)
    cost_of = costs.bounds
    per = {}
    mu_float = M.values
    for i1, ws in solves.items():
        check = functools.partial(ConstraintCheck, mu_float, i1, ws.px)  # if verify's rows
        per[i1] = _winner_proof(i1, ws.px, certificates[i1], check, cost_of)
    lower = min(p.lower for p in per.values())
    upper = min(p.upper for p in per.values())
    ecw = {i1: ecw_enclosure(mu, L, i1, costs) for i1 in winners}
    return Enclosure(lower, upper, source, mu, winners, L, costs.table, per, ecw=ecw)

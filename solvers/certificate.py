"""Exact rational certificates for C*_{i1} (docs/math.md §5.3).

Inputs are rationalised: d_p is the exact rational value of the float d(µ_p, 1/2)
used by the LP, r_p = (L_a + L_b − 2 L1)/(2(K − 1)) is exact, and the cost of the
evidence x_p = q_p d_p is c_p = r_p / d_p.  A certificate for one winner i1 is

* a primal x̂ ∈ [0, 1]^P, checked against **every** constraint of R_{i1} by the
  sorting oracle in exact arithmetic (:func:`exact_min_lhs`), giving C*_{i1} ≤ c·x̂;
* a dual (y, w) of an LP whose rows are constraints of R_{i1} (so the LP is a
  relaxation): y ≥ 0 on the rows, w ≥ 0 on the boxes x ≤ 1, Aᵀy − w ≤ c; weak duality
  gives C*_{i1} ≥ Σ y − Σ w.

Equal bounds prove C*_{i1} exactly for the rational inputs.  The exact pair comes
from the final HiGHS basis of the LP that was actually solved (no second LP, no row
generation in exact arithmetic): both basis systems are solved by sparse exact
elimination over ``fractions.Fraction`` (the matrices have small integer entries —
0/1 rows, block coefficients m and ±1 — so the primal has tiny denominators; only the
dual carries the long rational costs; python-flint's dense ``fmpq_mat`` was ~7 s for
n = 1000, the sparse elimination ~0.3 s at n = 2300).  For the compact (family) LP
the dual lives on family rows and block link rows; :func:`_compact_certificate`
splits it onto explicit constraints of R_{i1} with the same objective, so
:func:`verify` checks one formulation-free kind of certificate.  Long sums are added
in python-flint's ``fmpq`` (:func:`_fsum`).  Fallbacks, first success wins: the
basis of an explicit-row LP of the rows tight at x*, then row generation on it, then
a certified interval: the float dual, rationalised and made feasible by
w_p = max(0, (Aᵀy − c)_p), and the float primal snapped to small denominators and
scaled up to feasibility.
"""

from __future__ import annotations

import heapq
import time
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from ..theory import tournament as st
from ..theory.errors import DuelboundError, UnknownNameError
from ..theory.kl import kl_symbolic
from .exact_lp import MAX_ROWS, MAX_VARIABLES, solve_exact
from .formulations import constraint_families, rows_lp, violated_rows
from .lp import PulpLP

__all__ = ["exact_inputs", "exact_min_lhs", "Certificate", "ConstraintCheck", "verify",
           "certify_winner", "certify_lower_bound", "Certification", "certify_mode", "MODES",
           "symbolic_value", "MAX_DENOMINATOR", "EXACT_MAX_K", "INTERVAL_MAX_REL_WIDTH"]

#: ``certify_winner(mode="auto")`` takes the exact routes up to this K (~6 s per winner
#: at K = 136) and the floating-point (interval) certificate first above it.
EXACT_MAX_K = 136
#: A floating-point (interval) certificate is accepted only when upper − lower is at most
#: this fraction of lower; a wider one sends certification to the exact routes, and if
#: the last (interval) route is still wider, the result is "failed" with the reason.
INTERVAL_MAX_REL_WIDTH = 1e-9
#: Denominator bound when snapping a float primal (vertices of this 0/1 LP have small ones).
MAX_DENOMINATOR = 10_000
#: Tight rows per constraint family in the first explicit-row LP (choices among tied x*
#: values: with all of them, x* is optimal for that LP and its dual certifies C*).
INITIAL_TIE_ROWS = 64
#: Rows added per violated family in later row-generation rounds.
TIE_ROWS = 1


def exact_inputs(M, px) -> tuple[list[Fraction], list[Fraction], list[Fraction]]:
    """(d_p, r_p, c_p) as exact rationals for the pairs of ``px``."""
    L = st.losses(M)
    l1 = int(L.min())
    den = 2 * (M.K - 1)
    d = [Fraction(float(v)) for v in px.d]
    r = [Fraction(int(L[a] + L[b] - 2 * l1), den) for a, b in px.pairs]
    return d, r, [ri / di for ri, di in zip(r, d)]


def exact_min_lhs(mu: np.ndarray, i1: int, X: list[list[Fraction]]):
    """Smallest left-hand side over all constraints of R_{i1}, exactly (docs/math.md §5.1).

    ``X`` is a K×K nested list of Fractions (symmetric evidence).  Returns
    (value, (i2, l, case)) — the minimum over every (i2, l, I, S), computed by
    sorting exact rationals; (inf, None) if R_{i1} has no constraint.
    """
    best: Any = float("inf")
    arg = None
    cache: dict[tuple, list[Fraction]] = {}

    def prefix(owner: int, members: list[int]) -> list[Fraction]:
        key = (owner, tuple(members))
        if key not in cache:
            vals = sorted(X[owner][j] for j in members)
            pre = [Fraction(0)]
            for v in vals:
                pre.append(pre[-1] + v)
            cache[key] = pre
        return cache[key]

    for i2, l, case, A, m, B, s in constraint_families(mu, i1):
        v = prefix(i1, A)[m] + prefix(i2, B)[s] + (X[i1][i2] if case == 1 else 0)
        if v < best:
            best, arg = v, (i2, l, case)
    return best, arg


def _fsum(values) -> Fraction:
    """Exact sum of Fractions, added in python-flint's ``fmpq`` (fast gcd on the long
    denominators that sums of the rational costs build up), returned as a Fraction."""
    terms = [v if isinstance(v, flint.fmpq) else flint.fmpq(v.numerator, v.denominator)
             for v in values if v]
    # pairwise (tree) summation: operands of similar size keep the gcds short, where a
    # running sum drags its ever longer denominator through every addition
    while len(terms) > 1:
        terms = [terms[k] + terms[k + 1] if k + 1 < len(terms) else terms[k]
                 for k in range(0, len(terms), 2)]
    acc = terms[0] if terms else flint.fmpq(0)
    return Fraction(int(acc.p), int(acc.q))


def _column_sums(y, rows, P: int) -> list[Fraction]:
    """(Aᵀy)_p for explicit rows (lists of pair columns with coefficient 1).

    When every y_r is dyadic (a floating-point dual read exactly), the sums are taken
    over Python integers on the common denominator 2^E — exact, with no gcd at all.
    Otherwise the numerators of one column are first added per distinct denominator
    (the split duals share a few thousand denominators), then the groups are combined
    pairwise as unreduced fractions a/b + c/d = (ad + cb)/(bd) and reduced once: exact,
    with one gcd per column instead of one per addition (2.7 → 1.1 s at K = 136).
    """
    nz = [(yr, cols) for yr, cols in zip(y, rows) if yr]
    dens = [yr.denominator for yr, _ in nz]
    if all(dd & (dd - 1) == 0 for dd in dens):  # powers of two
        shift = max(dens, default=1).bit_length() - 1
        acc = [0] * P
        for yr, cols in nz:
            n = yr.numerator << (shift - (yr.denominator.bit_length() - 1))
            for p in cols:
                acc[p] += n
        den = 1 << shift
        return [Fraction(v, den) for v in acc]
    per: list[dict[int, Any]] = [{} for _ in range(P)]
    for yr, cols in nz:
        n, d = flint.fmpz(yr.numerator), yr.denominator  # converted once, not per column
        for p in cols:
            group = per[p]
            group[d] = group[d] + n if d in group else n
    out = []
    for group in per:
        terms = [(n, flint.fmpz(d)) for d, n in group.items()]
        while len(terms) > 1:
            nxt = [(a * d2 + c2 * b, b * d2)
                   for (a, b), (c2, d2) in zip(terms[0::2], terms[1::2])]
            if len(terms) % 2:
                nxt.append(terms[-1])
            terms = nxt
        if terms:
            q = flint.fmpq(*terms[0])
            out.append(Fraction(int(q.p), int(q.q)))
        else:
            out.append(Fraction(0))
    return out


class Certificate:
    """Primal x̂ (pair vector), dual y (rows of ``rows``), box multipliers w, all exact.

    ``w=None``: the best multipliers for this y, w = max(0, Aᵀy − c), are derived by
    :func:`verify` from the Aᵀy it computes anyway (one pass over the rows, not two).
    """

    def __init__(self, x, y, w, rows) -> None:
        self.x, self.y, self.rows = list(x), list(y), list(rows)
        self.w = None if w is None else list(w)
        #: (i2, l, I, S) of every row, set by :func:`verify` (None: not a constraint)
        self.identified: list | None = None


def _to_matrix(px, x: list[Fraction], K: int) -> list[list[Fraction]]:
    X = [[Fraction(0)] * K for _ in range(K)]
    for (a, b), v in zip(px.pairs.tolist(), x):
        X[a][b] = X[b][a] = v
    return X


def verify(M, i1: int, px, cert: Certificate, c: list[Fraction]) -> dict[str, Any]:
    """Check a certificate exactly; returns status, bounds and the first failure.

    (a) x̂ in the box and in R_{i1} (every constraint, exact oracle); (b) every row
    of ``cert.rows`` is a constraint of R_{i1}, y ≥ 0, w ≥ 0 and Aᵀy − w ≤ c;
    (c) c·x̂ = Σ y − Σ w.  Status "exact" iff all hold.
    """
    mu = np.ascontiguousarray(M.values)
    out: dict[str, Any] = {"status": "failed", "checks": {}}
    P = len(c)
    X = _to_matrix(px, cert.x, M.K)
    in_box = all(0 <= v <= 1 for v in cert.x)
    lhs, _ = exact_min_lhs(mu, i1, X)
    primal_ok = in_box and lhs >= 1
    out["checks"]["primal_feasible"] = bool(primal_ok)
    upper = _fsum(ci * xi for ci, xi in zip(c, cert.x) if xi)
    # (b) rows must be real constraints: sets I ⊆ I_{i1}, S ⊆ S_{i2} \ {i1} of the right size
    is_row = ConstraintCheck(mu, i1, px)
    cert.identified = [is_row.identify(cols) for cols in cert.rows]  # kept for the enclosure
    valid_rows = all(ident is not None for ident in cert.identified)
    g = _column_sums(cert.y, cert.rows, P)
    w = cert.w if cert.w is not None else [max(Fraction(0), gp - cp) for gp, cp in zip(g, c)]
    dual_ok = (valid_rows and all(v >= 0 for v in cert.y) and all(v >= 0 for v in w)
               and all(gp - wp <= cp for gp, wp, cp in zip(g, w, c)))
    out["checks"]["dual_feasible"] = bool(dual_ok)
    lower = _fsum(cert.y) - _fsum(w)
    out["checks"]["objectives_equal"] = bool(upper == lower)
    if primal_ok:
        out["upper"] = upper
    if dual_ok:
        out["lower"] = lower
    if primal_ok and dual_ok and upper == lower:
        out["status"] = "exact"
    elif primal_ok and dual_ok:
        out["status"] = "interval"
    return out


class ConstraintCheck:
    """Membership test "is this pair set one constraint of R_{i1}" (docs/math.md §5),
    with the tournament read once for all rows."""

    def __init__(self, mu: np.ndarray, i1: int, px):
        L = (mu < 0.5).sum(axis=1)
        self.i1, self.K = i1, mu.shape[0]
        self.L = [int(v) for v in L]
        self.l2 = int(np.sort(L)[1])
        self.pairs = [(int(a), int(b)) for a, b in px.pairs.tolist()]
        self.beats_i1 = (mu[i1] < 0.5).tolist()  # j with µ_{i1 j} < ½ cannot be in I
        self.loses = (mu > 0.5).tolist()  # loses[i2][j]: j is not a superior of i2

    def __call__(self, cols) -> bool:
        return self.identify(cols) is not None

    def identify(self, cols) -> tuple[int, int, list[int], list[int]] | None:
        """(i2, l, I, S) of the constraint of R_{i1} whose pair columns are ``cols``
        (the first i2 that fits when S is empty), or None if it is no constraint."""
        i1 = self.i1
        pairs = [self.pairs[p] for p in cols]
        if len(set(pairs)) != len(pairs):
            return None
        I = {b if a == i1 else a for a, b in pairs if a == i1 or b == i1}
        rest = [(a, b) for a, b in pairs if a != i1 and b != i1]
        l1 = self.L[i1]
        l = len(I) + l1 - 1
        if any(self.beats_i1[j] for j in I) or not max(0, l1 - 1) <= l <= self.l2:
            return None
        cands = sorted(set(rest[0]) if rest else set(range(self.K)) - {i1})
        for i2 in cands:
            if any(i2 != a and i2 != b for a, b in rest):
                continue
            S = [a if b == i2 else b for a, b in rest]
            lose = self.loses[i2]
            if any(lose[j] or j == i1 for j in S):
                continue
            if len(S) == max(0, self.L[i2] - l - (1 if i2 in I else 0)):
                return i2, l, sorted(I), sorted(S)
        return None


def _sparse_solve(eqs: list[dict[int, Fraction]], rhs: list[Fraction]) -> dict[int, Fraction]:
    """Solve a square sparse system exactly (Markowitz-style pivoting); ValueError if singular."""
    rows = [dict(e) for e in eqs]
    b = list(rhs)
    col_rows: dict[int, set[int]] = defaultdict(set)
    for i, r in enumerate(rows):
        for cidx in r:
            col_rows[cidx].add(i)
    remaining = set(range(len(rows)))
    heap = [(len(r), i) for i, r in enumerate(rows)]  # fewest entries first (lazy updates)
    heapq.heapify(heap)
    order = []
    while remaining:
        n_i, i = heapq.heappop(heap)
        if i not in remaining or n_i != len(rows[i]):
            continue
        if not rows[i]:
            raise ValueError("singular basis system")
        piv = min(rows[i], key=lambda cc: len(col_rows[cc]))
        remaining.discard(i)
        order.append((i, piv))
        ri, pv = rows[i], rows[i][piv]
        for k in list(col_rows[piv]):
            if k == i or k not in remaining:
                continue
            f = rows[k][piv] / pv
            for cc, v in ri.items():
                nv = rows[k].get(cc, 0) - f * v
                if nv:
                    rows[k][cc] = nv
                    col_rows[cc].add(k)
                else:
                    rows[k].pop(cc, None)
                    col_rows[cc].discard(k)
            b[k] -= f * b[i]
            heapq.heappush(heap, (len(rows[k]), k))
    sol: dict[int, Fraction] = {}
    for i, piv in reversed(order):
        acc = b[i] - sum((v * sol[cc] for cc, v in rows[i].items() if cc != piv), Fraction(0))
        sol[piv] = acc / rows[i][piv]
    return sol


def _explicit_model(M, i1, ws, ties: int = 1):
    """Explicit-row LP of the oracle's rows tight at x*, solved once by HiGHS.

    With every tight subset (``ties`` large enough) x* is optimal for this relaxation
    (same KKT multipliers), so its dual certifies C*_{i1}; with fewer, or when its
    basic primal is another, infeasible vertex (degeneracy), :func:`_complete`
    continues by row generation.
    """

    mu = np.ascontiguousarray(M.values)
    px = ws.px
    keys, rows = violated_rows(mu, i1, px, px.symmetric(ws.x), -1e-7, ties=ties)
    model = PulpLP(rows_lp(px, list(zip(keys, rows))))
    return model, model.solve()


def _complete(M, i1, px, model, sol, max_rounds: int = 500):
    """Row generation on the explicit model until its optimum violates no constraint."""

    mu = np.ascontiguousarray(M.values)
    for _ in range(max_rounds):
        keys, rows = violated_rows(mu, i1, px, px.symmetric(sol.v[:px.pairs.shape[0]]), 1e-9,
                                  ties=TIE_ROWS)
        if not rows:
            break
        model.add_rows(keys, rows)
        sol = model.solve()
    return sol


def _exact_basis(data, sol, c: list[Fraction], *, dual: bool = True):
    """Exact (column values, row duals) of the final basis of ``data`` (None if unusable).

    ``dual=False`` solves the primal system only (the duals are returned as zeros).

    Nonbasic columns sit at a bound, nonbasic (active) rows at their right-hand side;
    B v_B = b − N v_N and Bᵀ y = c_B are solved by exact sparse elimination.  The
    matrices of every formulation here have small integer coefficients (0/1 rows,
    block coefficients m and ±1), so the primal has small denominators; the dual carries
    the rational costs c.
    """
    if sol.col_status is None or sol.row_status is None:
        return None
    d = data
    cs, rs = sol.col_status, sol.row_status
    if np.any((cs != 0) & (cs != 1) & (cs != 2)) or np.any((rs != 0) & (rs != 1)):
        return None  # free / zero nonbasic or upper-active ≥ rows: not a plain vertex
    basic = np.flatnonzero(cs == 1).tolist()
    active = np.flatnonzero(rs != 1).tolist()
    if len(basic) != len(active):
        return None
    bset = set(basic)
    fixed = {j: Fraction(float(d.ub[j])) for j in np.flatnonzero(cs == 2).tolist()}
    fixed.update({j: Fraction(float(d.lb[j])) for j in np.flatnonzero(cs == 0).tolist()
                  if d.lb[j] != 0})
    eqs, rhs = [], []
    col_in: dict[int, dict[int, Fraction]] = {j: {} for j in basic}
    for r in active:
        lo, hi = d.indptr[r], d.indptr[r + 1]
        row: dict[int, Fraction] = {}
        b = Fraction(float(d.row_lb[r]))
        for j, v in zip(d.indices[lo:hi].tolist(), d.data[lo:hi].tolist()):
            fv = Fraction(v)
            if j in bset:
                row[j] = fv
                col_in[j][r] = fv
            elif j in fixed:
                b -= fv * fixed[j]
        eqs.append(row)
        rhs.append(b)
    try:
        vb = _sparse_solve(eqs, rhs)
        yb = (_sparse_solve([col_in[j] for j in basic], [c[j] for j in basic])
              if dual else {})
    except (ValueError, ZeroDivisionError):
        return None
    zero = Fraction(0)
    v = [vb.get(j, fixed.get(j, zero)) for j in range(d.n_cols)]
    y = [zero] * d.n_rows
    for r, val in yb.items():
        y[r] = val
    return v, y


def _basis_certificate(model, sol, c: list[Fraction]) -> Certificate | None:
    """Exact primal and dual from the final basis of ``model.data`` (None if unusable).

    Explicit-row LPs give the certificate directly; compact LPs (with blocks) through
    :func:`_compact_certificate`.
    """
    d = model.data
    if d.blocks:
        return _compact_certificate(d, sol, c, getattr(model, "px", None),
                                    getattr(model, "i1", None))
    out = _exact_basis(d, sol, c)
    if out is None:
        return None
    x, y = out
    rows = [d.indices[d.indptr[r]:d.indptr[r + 1]].tolist() for r in range(d.n_rows)]
    return Certificate(x, y, None, rows)


def _hypersimplex_pieces(parts) -> list[tuple[Fraction, list[int]]]:
    """Write a product of hypersimplex points as a convex combination of 0/1 vectors.

    ``parts`` is a list of (cols, p, m) with 0 ≤ p_j ≤ 1 and Σ p_j = m (integer).
    Lay the p_j of one part end to end on [0, m); for t ∈ [0, 1) the columns whose
    interval holds one of t, t + 1, …, t + m − 1 form an m-subset (an interval of
    length ≤ 1 holds at most one of them), and column j is chosen for the t of an arc
    of the circle [0, 1) of length p_j (from frac of its interval's start to frac of
    its end).  Using the same t for every part, the pieces between consecutive
    breakpoints give weights summing to 1 and subsets whose weighted sum is p in each
    part: at most Σ n_part + 1 pieces (a Carathéodory-type decomposition, exact).
    """
    arcs = []  # (col, start, end, p) with start/end = frac of the interval's ends
    for cols, p, _ in parts:
        acc = Fraction(0)
        for col, v in zip(cols, p):
            start = acc - (acc.numerator // acc.denominator)
            acc += v
            arcs.append((col, start, acc - (acc.numerator // acc.denominator), v))
    ts = sorted({Fraction(0)} | {a[1] for a in arcs} | {a[2] for a in arcs})
    idx = {t: k for k, t in enumerate(ts)}
    n = len(ts)  # pieces k = [ts[k], ts[k+1]) with ts[n] = 1
    chosen: list[list[int]] = [[] for _ in range(n)]
    for col, start, end, v in arcs:
        if not v:
            continue
        s, e = idx[start], idx[end]
        on = range(n) if v == 1 else range(s, e) if s < e else \
            [*range(s, n), *range(e)]
        for k in on:
            chosen[k].append(col)
    ends = ts[1:] + [Fraction(1)]
    return [(t1 - t0, ch) for t0, t1, ch in zip(ts, ends, chosen)]


def _compact_certificate(data, sol, c: list[Fraction], px=None,
                         i1: int | None = None) -> Certificate | None:
    """Exact certificate from the final basis of the compact (family) LP that was solved.

    The basis gives an exact vertex (x̂, λ, u) and exact duals: y_f on the family rows
    and z_bj on the link rows u_j − λ + x_j ≥ 0 of block b.  Dual feasibility on the
    columns u_bj ≥ 0 and λ_b ≥ 0 reads z_bj ≤ Y_b := Σ_{f uses b} y_f and Σ_j z_bj ≥
    m Y_b, so p_b = z_b / Y_b (trimmed to sum m, which only lowers Aᵀy on x) is a point
    of the m-subset polytope.  Splitting y_f over the m-subsets of a convex decomposition
    of p_b (:func:`_hypersimplex_pieces`) turns the compact dual into a dual on explicit
    constraints of R_{i1} with the same objective Σ y_f and at most the same Aᵀy on every
    x column: the certificate is verified in the formulation-free form of :func:`verify`.
    """
    P = data.n_pairs
    cfull = list(c) + [Fraction(0)] * (data.n_cols - P)
    out = _exact_basis(data, sol, cfull)
    if out is None:
        return None
    v, y = out
    if any(val < 0 for val in y):
        return None
    split = _split_compact_dual(data, y, px, i1)
    if split is None:
        return None
    return Certificate(v[:P], split[1], None, split[0])


def _split_compact_dual(data, y, px=None, i1: int | None = None, *, repair: bool = False):
    """Rows and weights of explicit constraints of R_{i1} from a compact dual ``y``.

    ``y`` holds one dual per row of ``data`` (Fractions, or floats with ``repair``).
    Exact (``repair=False``): p_b = z_b / Y_b must lie in [0, 1] with Σ p_b ≥ m (dual
    feasibility of the compact LP; None otherwise) and is trimmed to Σ = m.  With
    ``repair`` (a floating-point dual): y is clipped to ≥ 0, p_b computed in floating
    point, clipped to [0, 1], read as exact dyadic rationals and trimmed or padded to
    Σ = m exactly — any nonnegative weights on genuine constraints make a valid dual
    (:func:`verify` charges the excess of Aᵀy over c to the box multipliers w), so the
    repair can only cost a little of the lower bound.  Returns (rows, weights) or None.
    """
    zero = Fraction(0)
    if repair:
        y = [float(v) if v > 0 else 0.0 for v in y]
    blk = {int(lam): (u.tolist(), xc.tolist(), cnt) for lam, u, xc, cnt in data.blocks}
    fam_rows = [r for r, k in enumerate(data.row_keys) if k is not None]
    Y: dict[int, Any] = {lam: (0.0 if repair else zero) for lam in blk}
    row_cols = {}
    for r in fam_rows:
        cols = data.indices[data.indptr[r]:data.indptr[r + 1]].tolist()
        row_cols[r] = cols
        for j in cols:
            if j in blk:
                Y[j] += y[r]
    link_dual: dict[tuple[int, int], Any] = {}
    for r, k in enumerate(data.row_keys):
        if k is None and y[r]:
            u, lam, _ = data.indices[data.indptr[r]:data.indptr[r + 1]].tolist()
            link_dual[(lam, u)] = y[r]
    p_of: dict[int, list[Fraction]] = {}
    for lam, (u, _, cnt) in blk.items():
        if not Y[lam]:
            continue
        if repair:
            p = [Fraction(min(1.0, link_dual.get((lam, uj), 0.0) / Y[lam])) for uj in u]
        else:
            p = [link_dual.get((lam, uj), zero) / Y[lam] for uj in u]
        excess = sum(p, zero) - cnt
        if not repair and (excess < 0 or any(pj > 1 for pj in p)):
            return None  # not dual feasible on λ_b / u_bj
        for t in range(len(p)):  # pad to Σ p = m (floating-point dual only)
            if excess >= 0:
                break
            add = min(1 - p[t], -excess)
            p[t] += add
            excess += add
        for t in range(len(p) - 1, -1, -1):  # trim to Σ p = m
            if not excess:
                break
            cut = min(p[t], excess)
            p[t] -= cut
            excess -= cut
        p_of[lam] = p
    rows, ys = [], []
    for r in fam_rows:
        if not y[r]:
            continue
        yr = Fraction(y[r]) if repair else y[r]
        parts, direct = [], []
        for j in row_cols[r]:
            if j in blk:
                u, xc, cnt = blk[j]
                parts.append((xc, p_of[j], cnt))
            elif j < data.n_pairs:
                direct.append(j)
        shared = _shared_a_row(data.row_keys[r], px, i1)
        for wt, chosen in _hypersimplex_pieces(parts):
            cols = sorted(direct + chosen)
            if shared is not None and shared in cols:
                # a case-0 row written with the shared block of all of I_{i1}: a piece
                # whose subset holds i2 is "case 1 with one superfluous x_{i2 j}" (one
                # more than s' = s − 1); dropping it gives the true constraint and only
                # lowers Aᵀy (formulations.CompactBuilder, "Shared A-blocks")
                b_side = [col for col in cols if i1 not in px.pairs[col]]
                if b_side:
                    cols.remove(b_side[-1])
            rows.append(cols)
            ys.append(yr * wt)
    return rows, ys


def _shared_a_row(key, px, i1) -> int | None:
    """Column of x_{i1 i2} if ``key`` is a case-0 family whose A-part may use the block of
    all of I_{i1} (i2 ∈ I_{i1}), else None."""
    if px is None or key is None or key[2] != 0:
        return None
    col = int(px.pid[i1, key[0]])
    return col if col >= 0 else None


def _interval_certificate(M, i1, px, model, sol) -> Certificate:
    """Rationalised float dual (clipped to ≥ 0) and snapped, scaled-up float primal."""
    mu = np.ascontiguousarray(M.values)
    d = model.data
    rows = [d.indices[d.indptr[r]:d.indptr[r + 1]].tolist() for r in range(d.n_rows)]
    y = [Fraction(float(v)) if v > 0 else Fraction(0) for v in sol.y]
    x = _snapped(sol.v[:px.pairs.shape[0]])
    lhs, _ = exact_min_lhs(mu, i1, _to_matrix(px, x, M.K))
    if lhs < 1 and lhs > 0:  # scale up: every constraint is a sum of terms in [0, 1]
        x = [min(Fraction(1), v / lhs) for v in x]
    elif lhs <= 0:
        x = [Fraction(1)] * len(x)
    return Certificate(x, y, None, rows)


def _float_certificate(ws) -> Certificate | None:
    """Certificate from the floating-point solution of the LP that was solved (no exact solve
    of the dual basis system).

    Dual: HiGHS's row duals, clipped to ≥ 0, read as exact dyadic rationals and, for a
    compact LP, split onto explicit constraints (:func:`_split_compact_dual` with
    ``repair``); :func:`verify` then checks it exactly like any other (genuine rows,
    y ≥ 0, Aᵀy − w ≤ c with w = max(0, Aᵀy − c)), and Σ y − Σ w is a rigorous lower
    bound.  The numbers are short (dyadic, ~53 bits), where the exact dual carries the
    long rational costs.  Primal: the float vertex snapped to denominators ≤
    :data:`MAX_DENOMINATOR` (vertices here have small ones); the caller falls back to
    the exact primal basis solve if that is not feasible.
    """
    data, sol = ws.data, ws.sol
    if data is None or sol.y is None or len(sol.y) != data.n_rows:
        return None
    P = data.n_pairs
    x = _snapped(sol.v[:P])
    if data.blocks:
        split = _split_compact_dual(data, sol.y.tolist(), ws.px, ws.i1, repair=True)
        if split is None:
            return None
        rows, y = split
    else:
        rows = [data.indices[data.indptr[r]:data.indptr[r + 1]].tolist()
                for r in range(data.n_rows)]
        y = [Fraction(float(v)) if v > 0 else Fraction(0) for v in sol.y]
    return Certificate(x, y, None, rows)


def _snapped(x: np.ndarray) -> list[Fraction]:
    return [min(Fraction(1), max(Fraction(0), Fraction(float(v)).limit_denominator(
        MAX_DENOMINATOR))) for v in x]


def _float_route(M, ws, c: list[Fraction]) -> tuple[dict[str, Any], Certificate | None]:
    """The floating-point certificate (:func:`_float_certificate`), verified; its primal
    replaced by the exact basic primal if the snapped one is not feasible."""
    cert = _float_certificate(ws)
    if cert is None:
        return {"status": "failed"}, None
    res = verify(M, ws.i1, ws.px, cert, c)
    if not res["checks"].get("primal_feasible") and ws.data is not None:
        out = _exact_basis(ws.data, ws.sol, [], dual=False)
        if out is not None:
            cert = Certificate(out[0][:ws.data.n_pairs], cert.y, cert.w, cert.rows)
            res = verify(M, ws.i1, ws.px, cert, c)
    return res, cert


#: Certification modes; "interval" is the deprecated spelling of "float-dual" ("interval"
#: names the posterior interval of C*, :mod:`.interval`, and nothing else).
MODES = ("auto", "exact", "float-dual")


def certify_mode(mode: str) -> str:
    """``mode`` checked, with the deprecated alias "interval" mapped to "float-dual"."""
    if mode == "interval":
        import warnings

        warnings.warn("certify mode 'interval' is renamed 'float-dual'", DeprecationWarning,
                      stacklevel=3)
        return "float-dual"
    if mode not in MODES:
        raise UnknownNameError(f"unknown certificate mode {mode!r}; choose 'auto', 'exact' "
                               "or 'float-dual'")
    return mode


def certify_winner(M, ws, mode: str = "auto") -> dict[str, Any]:
    """Certificate of C*_{i1} for one winner's solve (see module docstring).

    Parameters
    ----------
    M : PreferenceMatrix
        The matrix.
    ws : WinnerSolve
        The winner's LP solve (:func:`~duelbound.solvers.cstar.solve_winner`).
    mode : {"auto", "exact", "float-dual"}
        ``"exact"``: the exact routes below.  ``"float-dual"`` (formerly ``"interval"``,
        still accepted with a DeprecationWarning): first the floating-point
        certificate (route ``float-dual``: HiGHS's duals read as exact dyadic
        rationals, split onto explicit constraints, verified exactly — status
        ``"interval"`` with its ``width``, typically ~1e-15 relative), the exact routes
        only if it fails.  ``"auto"``: ``"exact"`` up to K = :data:`EXACT_MAX_K`,
        ``"float-dual"`` above (the exact dual's rationals grow with K: thousands of
        digits, and the exact routes' cost with them).

    Returns
    -------
    dict
        ``status`` ("exact", "interval" or "failed"), ``checks``, ``lower``/``upper``
        (exact rationals), ``route``, ``certificate``, ``time``; ``value`` when exact,
        ``width`` (upper − lower, float) when an interval.

    Notes
    -----
    Exact routes, first success wins: (0) the final basis of the LP that was solved (a
    compact LP's dual is split onto explicit constraints); (1) the basis
    of the explicit LP of the rows tight at x* gives the exact dual, and its basic primal
    or x* snapped to small denominators the exact primal; (2) row generation on that LP,
    then its basis; (3) interval.
    """
    mode = certify_mode(mode)
    t0 = time.perf_counter()
    i1, px = ws.i1, ws.px
    _, _, c = exact_inputs(M, px)
    res: dict[str, Any] = {"status": "failed"}
    cert = None
    if mode == "float-dual" or (mode == "auto" and M.K > EXACT_MAX_K):
        res, cert = _float_route(M, ws, c)
        if res["status"] == "exact" or (res["status"] == "interval" and _narrow(res)):
            return _finish(res, cert, "float-dual", t0)
    # the LP that was solved (compact blocks or explicit rows): its basis, no second LP
    cert = _basis_certificate(ws, ws.sol, c)
    route = "solved-basis"
    if cert is not None:
        res = verify(M, i1, px, cert, c)
    if res["status"] != "exact":
        model, sol = _explicit_model(M, i1, ws, ties=INITIAL_TIE_ROWS)
        cert = _basis_certificate(model, sol, c)
        route = "basis"
    if cert is not None and res["status"] != "exact":
        res = verify(M, i1, px, cert, c)
        if res["status"] != "exact":
            alt = Certificate(_snapped(ws.x), cert.y, cert.w, cert.rows)
            alt_res = verify(M, i1, px, alt, c)
            if alt_res["status"] == "exact":
                cert, res, route = alt, alt_res, "basis-dual+snapped-primal"
    if res["status"] != "exact":  # restart from one row per family: fewer rows, faster rounds
        model, sol = _explicit_model(M, i1, ws, ties=TIE_ROWS)
        sol = _complete(M, i1, px, model, sol)
        cert = _basis_certificate(model, sol, c)
        route = "basis-after-rowgen"
        res = verify(M, i1, px, cert, c) if cert is not None else {"status": "failed"}
    if res["status"] != "exact":  # near-ties the float LP cannot rank: an exact simplex
        simplex = _exact_simplex_certificate(M, i1, ws, c)
        if simplex is not None:
            simplex_res = verify(M, i1, px, simplex, c)
            if simplex_res["status"] == "exact":
                cert, res, route = simplex, simplex_res, "exact-simplex"
    if res["status"] != "exact":
        cert = _interval_certificate(M, i1, px, model, sol)
        res = verify(M, i1, px, cert, c)
        route = "interval"
    return _finish(res, cert, route, t0)


def _exact_simplex_certificate(M, i1, ws, c: list[Fraction], max_rounds: int = 60
                               ) -> Certificate | None:
    """Row generation around :func:`~duelbound.solvers.exact_lp.solve_exact`: the explicit
    LP of the rows tight at the float x*, solved exactly, then the rows its optimum
    violates (oracle, every family) added until none is; small LPs only."""
    px = ws.px
    P = px.pairs.shape[0]
    if P > MAX_VARIABLES:
        return None
    mu = np.ascontiguousarray(M.values)
    _, start = violated_rows(mu, i1, px, px.symmetric(ws.x), -1e-7, ties=INITIAL_TIE_ROWS)
    rows = list({tuple(sorted(int(v) for v in r)): None for r in start})
    for _ in range(max_rounds):
        if len(rows) > MAX_ROWS:
            return None
        out = solve_exact([list(r) for r in rows], c)
        if out is None:
            return None
        x, y = out
        lhs, _ = exact_min_lhs(mu, i1, _to_matrix(px, x, M.K))
        if lhs >= 1:
            return Certificate(x, y, None, [list(r) for r in rows])
        xf = px.symmetric(np.array([float(v) for v in x]))
        new = [tuple(sorted(int(v) for v in r)) for tol in (1e-12, -1e-12)
               for r in violated_rows(mu, i1, px, xf, tol, ties=TIE_ROWS)[1]]
        new = [r for r in dict.fromkeys(new) if r not in set(rows)]
        if not new:
            return None
        rows.extend(new)
    return None


def _narrow(res: dict[str, Any]) -> bool:
    """Is a verified interval at most :data:`INTERVAL_MAX_REL_WIDTH` wide (relative)?"""
    lo, hi = res["lower"], res["upper"]
    return lo > 0 and (hi - lo) <= lo * Fraction(INTERVAL_MAX_REL_WIDTH)


def _finish(res: dict[str, Any], cert, route: str, t0: float) -> dict[str, Any]:
    if res["status"] == "interval" and not _narrow(res):
        res["status"] = "failed"
        res["reason"] = (f"the only certificate found, [{float(res['lower']):.6g}, "
                         f"{float(res['upper']):.6g}], is wider than the accepted relative "
                         f"width {INTERVAL_MAX_REL_WIDTH:g}")
    res["route"] = route
    res["certificate"] = cert
    res["time"] = time.perf_counter() - t0
    if res["status"] == "exact":
        res["value"] = res["upper"]
        res["value_float"] = float(res["upper"])
    elif res["status"] == "interval":
        res["width"] = float(res["upper"] - res["lower"])
    return res


def _short(v: Fraction, max_bits: int = 1000) -> str:
    """The rational as "p/q", or its size if too long to print usefully."""
    bits = v.numerator.bit_length() + v.denominator.bit_length()
    return str(v) if bits <= max_bits else f"<rational with ~{int(bits * 0.30103)} digits>"


@dataclass
class Certification:
    """What :func:`certify_lower_bound` returns: the JSON-ready ``summary`` (the result's
    ``certificate`` dict) and every winner's full :func:`certify_winner` result, whose
    exact certificates the enclosure (:func:`~duelbound.solvers.enclosure.enclose`) reads."""

    summary: dict[str, Any]
    results: dict[int, dict[str, Any]]


def certify_lower_bound(M, solves: dict, mode: str = "auto") -> Certification:
    """Certificate of C* = min over winners of C*_{i1} (``mode`` as in :func:`certify_winner`).

    C* lies in [min lower_{i1}, min upper_{i1}].  With ``mode="auto"`` only the winner
    with the smallest LP value is certified in ``auto`` mode; the others first get the
    cheaper interval certificate, which suffices when its lower bound is above that
    winner's upper bound (they cannot be the minimum), and are certified in ``auto``
    mode too otherwise.  Overall status: "exact" when every certificate verified and
    the two ends meet, "interval" when every certificate verified, else "failed".
    An interval carries its ``width`` (upper − lower).
    """
    order = sorted(solves, key=lambda i1: float(solves[i1].px.cost @ solves[i1].x))
    per = {order[0]: certify_winner(M, solves[order[0]], mode)}
    for i1 in order[1:]:
        res = certify_winner(M, solves[i1], "float-dual" if mode == "auto" else mode)
        top = per[order[0]].get("upper")
        if (mode == "auto" and res["status"] == "interval"
                and not (top is not None and res["lower"] > top)):
            res = certify_winner(M, solves[i1], mode)  # a candidate minimum: full mode
        per[i1] = res
    verified = all(p["status"] in ("exact", "interval") for p in per.values())
    public = {}
    for i1, p in per.items():
        e = {"status": p["status"], "route": p["route"], "checks": p.get("checks", {}),
             "time": p["time"]}
        if "reason" in p:
            e["reason"] = p["reason"]
        for k in ("lower", "upper", "value"):
            if k in p:
                e[k] = _short(p[k])
                e[k + "_float"] = float(p[k])
        if "width" in p:
            e["width"] = p["width"]
        public[i1] = e
    lo = min((p["lower"] for p in per.values() if "lower" in p), default=None)
    hi = min((p["upper"] for p in per.values() if "upper" in p), default=None)
    overall = ("failed" if not verified else "exact" if lo == hi else "interval")
    reasons = [p["reason"] for p in per.values() if "reason" in p]
    msg = {"exact": "certified exact for the rational inputs",
           "interval": "certified within [lower, upper]",
           "failed": "not certified: " + (reasons[0] if reasons else "verification failed")
           }[overall]
    out: dict[str, Any] = {"status": overall, "message": msg, "per_winner": public}
    if lo is not None and hi is not None:
        out["lower_float"], out["upper_float"] = float(lo), float(hi)
        if overall == "interval":
            out["width"] = float(hi - lo)
    return Certification(out, per)


def symbolic_value(M, ws, cert_entry) -> Any:
    """C*_{i1} in closed form: Σ_p r_p x̂_p / d(µ_p, 1/2) with exact logarithms.

    x̂ is the certified exact vertex (it depends only on which constraints are
    tight, not on the d_p), r_p is exact, and d(p, 1/2) = p log 2p + (1−p) log 2(1−p)
    (:func:`duelbound.theory.kl.kl_symbolic`) of µ_p read as the shortest rational
    that rounds to the stored float (``sympy.nsimplify``: 0.6 → 3/5).  Equal µ give
    equal terms, so e.g. ``cyclic`` collapses to 1/(2 d(3/5, ½)) + 1/d(9/10, ½).
    """
    import sympy


    if not cert_entry or cert_entry.get("status") != "exact":
        raise DuelboundError("symbolic=True needs an exact certificate (certify=True, and it "
                             "must succeed)")
    cert = cert_entry["certificate"]
    _, r, _ = exact_inputs(M, ws.px)
    V = M.values
    total = sympy.Integer(0)
    for (a, b), rp, xp in zip(ws.px.pairs.tolist(), r, cert.x):
        if xp and rp:
            p = sympy.nsimplify(float(max(V[a, b], V[b, a])), rational=True)
            total += sympy.Rational(rp.numerator, rp.denominator) * \
                sympy.Rational(xp.numerator, xp.denominator) / kl_symbolic(p)
    return total

"""The dual of the compact (family) LP split onto explicit constraints of R_{i1}.

The compact LP writes each "m smallest of a set" as a block (λ_b, u_b) with link rows; its
dual lives on family rows and link rows.  :func:`split_compact_dual` turns it into a dual on
explicit constraints with the same objective and at most the same Aᵀy on every x column
(through a convex decomposition of each block's point of the m-subset polytope,
:func:`hypersimplex_pieces`), so :func:`~.certificate_verify.verify` checks one
formulation-free kind of certificate.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .certificate_verify import Certificate, DualGroup
from .exact_basis import exact_basis

__all__ = ["hypersimplex_pieces", "integer_pieces", "compact_certificate", "split_compact_dual"]


def hypersimplex_pieces(parts) -> list[tuple[Fraction, list[int]]]:
    """Write a product of hypersimplex points as a convex combination of 0/1 vectors.

    ``parts`` is a list of (cols, p, m) with 0 ≤ p_j ≤ 1 and Σ p_j = m (integer).
    Lay the p_j of one part end to end on [0, m); for t ∈ [0, 1) the columns whose
    interval holds one of t, t + 1, …, t + m − 1 form an m-subset (an interval of
    length ≤ 1 holds at most one of them), and column j is chosen for the t of an arc
    of the circle [0, 1) of length p_j (from frac of its interval's start to frac of
    its end).  Using the same t for every part, the pieces between consecutive
    breakpoints give weights summing to 1 and subsets whose weighted sum is p in each
    part: at most Σ n_part + 1 pieces (a Carathéodory-type decomposition, exact).
    The work is done on the common denominator of the p_j (:func:`integer_pieces`).
    """
    E = math.lcm(*(Fraction(v).denominator for _, p, _ in parts for v in p))
    ints = [(cols, [v.numerator * (E // v.denominator) for v in map(Fraction, p)], m)
            for cols, p, m in parts]
    return [(Fraction(wt, E), ch) for wt, ch in integer_pieces(ints, E)]


def integer_pieces(parts, E: int) -> list[tuple[int, list[int]]]:
    """:func:`hypersimplex_pieces` with p_j = P_j / E for integers 0 ≤ P_j ≤ E
    (``parts``: (cols, P, m), Σ P_j = m E): the weights are integers summing to E.

    On one denominator the breakpoints are integers mod E: sorted, compared and
    subtracted without a gcd (the exact split of the compact dual at K = 136 has
    ~3 000-bit p_j).
    """
    arcs = []  # (col, start, end, P) with start/end = the interval's ends mod E
    for cols, P, _ in parts:
        acc = 0
        for col, v in zip(cols, P):
            start = acc % E
            acc += v
            arcs.append((col, start, acc % E, v))
    ts = sorted({0} | {a[1] for a in arcs} | {a[2] for a in arcs})
    idx = {t: k for k, t in enumerate(ts)}
    n = len(ts)  # pieces k = [ts[k], ts[k+1]) with ts[n] = E
    chosen: list[list[int]] = [[] for _ in range(n)]
    for col, start, end, v in arcs:
        if not v:
            continue
        s, e = idx[start], idx[end]
        on = range(n) if v == E else range(s, e) if s < e else \
            [*range(s, n), *range(e)]
        for k in on:
            chosen[k].append(col)
    ends = ts[1:] + [E]
    return [(t1 - t0, ch) for t0, t1, ch in zip(ts, ends, chosen)]


def compact_certificate(data, sol, c: list[Fraction], px=None,
                         i1: int | None = None) -> Certificate | None:
    """Exact certificate from the final basis of the compact (family) LP that was solved.

    The basis gives an exact vertex (x̂, λ, u) and exact duals: y_f on the family rows
    and z_bj on the link rows u_j − λ + x_j ≥ 0 of block b.  Dual feasibility on the
    columns u_bj ≥ 0 and λ_b ≥ 0 reads z_bj ≤ Y_b := Σ_{f uses b} y_f and Σ_j z_bj ≥
    m Y_b, so p_b = z_b / Y_b (trimmed to sum m, which only lowers Aᵀy on x) is a point
    of the m-subset polytope.  Splitting y_f over the m-subsets of a convex decomposition
    of p_b (:func:`hypersimplex_pieces`) turns the compact dual into a dual on explicit
    constraints of R_{i1} with the same objective Σ y_f and at most the same Aᵀy on every
    x column: the certificate is verified in the formulation-free form of :func:`verify`.
    """
    P = data.n_pairs
    cfull = list(c) + [Fraction(0)] * (data.n_cols - P)
    out = exact_basis(data, sol, cfull)
    if out is None:
        return None
    v, y = out
    if any(val.numerator < 0 for val in y):  # (Fraction comparisons cost 10× more)
        return None
    groups = split_compact_dual(data, y, px, i1)
    if groups is None:
        return None
    return Certificate.from_groups(v[:P], groups)


def split_compact_dual(data, y, px=None, i1: int | None = None, *, repair: bool = False
                       ) -> list[DualGroup] | None:
    """Explicit constraints of R_{i1} and their duals from a compact dual ``y``.

    ``y`` holds one dual per row of ``data`` (Fractions, or floats with ``repair``).
    Exact (``repair=False``): p_b = z_b / Y_b must lie in [0, 1] with Σ p_b ≥ m (dual
    feasibility of the compact LP; None otherwise) and is trimmed to Σ = m.  With
    ``repair`` (a floating-point dual): y is clipped to ≥ 0, p_b computed in floating
    point, clipped to [0, 1], read as exact dyadic rationals and trimmed or padded to
    Σ = m exactly — any nonnegative weights on genuine constraints make a valid dual
    (:func:`verify` charges the excess of Aᵀy over c to the box multipliers w), so the
    repair can only cost a little of the lower bound.  Returns one
    :class:`~.certificate_verify.DualGroup` per family row with y_f ≠ 0 (its pieces, with
    duals y_f · weight: :func:`_row_group`), or None.
    """
    if repair:
        y = [float(v) if v > 0 else 0.0 for v in y]
    blk = {int(lam): (u.tolist(), xc.tolist(), cnt) for lam, u, xc, cnt in data.blocks}
    row_cols = {r: data.indices[data.indptr[r]:data.indptr[r + 1]].tolist()
                for r, k in enumerate(data.row_keys) if k is not None}
    zero = 0.0 if repair else Fraction(0)
    p_of = _block_points(blk, _block_weights(blk, row_cols, y, zero), _link_duals(data, y),
                         zero, repair)
    if p_of is None:
        return None  # not dual feasible on λ_b / u_bj
    return [_row_group(data, cols, blk, p_of, Fraction(y[r]) if repair else y[r],
                       _shared_a_row(data.row_keys[r], px, i1), px, i1)
            for r, cols in row_cols.items() if y[r]]


def _row_group(data, cols: list[int], blk: dict, p_of: dict[int, tuple[list[int], int]],
               yr: Fraction, shared: int | None, px, i1) -> DualGroup:
    """The pieces of one family row with dual ``yr``: its direct x columns plus one m-subset of
    every block it uses (:func:`integer_pieces` on the blocks' common denominator E), with
    duals yr · weight / E."""
    used = [j for j in cols if j in blk]
    E = math.lcm(*(p_of[j][1] for j in used))
    parts = [(blk[j][1], [v * (E // p_of[j][1]) for v in p_of[j][0]], blk[j][2])
             for j in used]
    direct = [j for j in cols if j not in blk and j < data.n_pairs]
    pieces = integer_pieces(parts, E)
    g = math.gcd(yr.numerator, E)  # = y_f's numerator when f alone uses its block (Y_b = y_f)
    return DualGroup(yr.numerator // g, yr.denominator * (E // g), [wt for wt, _ in pieces],
                     [_true_constraint(sorted(direct + ch), shared, px, i1) for _, ch in pieces])


def _block_points(blk: dict, Y: dict[int, Any], link: dict[tuple[int, int], Any], zero,
                  repair: bool) -> dict[int, tuple[list[int], int]] | None:
    """p_b of every block with Y_b ≠ 0 (:func:`_block_point`); None if one is infeasible."""
    p_of: dict[int, tuple[list[int], int]] = {}
    for lam, (u, _, cnt) in blk.items():
        if not Y[lam]:
            continue
        p = _block_point([link.get((lam, uj), zero) for uj in u], Y[lam], cnt, repair)
        if p is None:
            return None
        p_of[lam] = p
    return p_of


def _block_weights(blk: dict, row_cols: dict[int, list[int]], y, zero) -> dict[int, Any]:
    """Y_b = Σ_{family rows f using block b} y_f, summed in row order."""
    Y: dict[int, Any] = {lam: zero for lam in blk}
    for r, cols in row_cols.items():
        for j in cols:
            if j in blk:
                Y[j] += y[r]
    return Y


def _link_duals(data, y) -> dict[tuple[int, int], Any]:
    """z_bj, the nonzero duals of the link rows u_j − λ_b + x_j ≥ 0, keyed (λ_b, u_j)."""
    link: dict[tuple[int, int], Any] = {}
    rows = [r for r, k in enumerate(data.row_keys) if k is None and y[r]]
    starts = data.indptr[rows].tolist()  # a link row's columns are u_j, λ_b, x_j
    u_col, lam_col = data.indices[starts].tolist(), data.indices[[s + 1 for s in starts]].tolist()
    for r, u, lam in zip(rows, u_col, lam_col):
        link[(lam, u)] = y[r]
    return link


def _block_point(z: list, Yb, cnt: int, repair: bool) -> tuple[list[int], int] | None:
    """p_b = z_b / Y_b on a common denominator: (P, E) with p_j = P_j / E and Σ P_j = m E,
    m = ``cnt``.

    Exact duals (Y_b > 0): E = lcm(denominators of z_b) · numerator(Y_b); None unless
    p_b ∈ [0, 1] and Σ p_b ≥ m (dual feasibility on λ_b, u_bj), then trimmed.
    ``repair``: p_b computed in floating point, clipped to ≤ 1, read as dyadic rationals
    (E their largest denominator), then padded or trimmed.
    """
    if repair:
        q = [Fraction(min(1.0, zj / Yb)) for zj in z]
        E = math.lcm(*(v.denominator for v in q))
        p = [v.numerator * (E // v.denominator) for v in q]
    elif Yb < 0:
        return None  # y ≥ 0 makes Y_b ≥ 0
    else:
        Z = math.lcm(*(zj.denominator for zj in z))
        E = Z * Yb.numerator
        # P_j = num_j (Z / den_j) Y_d: one long product Z Y_d, then a short division per j
        # (den_j has ~60 bits, Z and Y_d ~3 000 at K = 136: 3× faster than a long product each)
        ZY = Z * Yb.denominator
        p = [zj.numerator * (ZY // zj.denominator) for zj in z]
    excess = sum(p) - cnt * E
    if not repair and (excess < 0 or any(pj > E for pj in p)):
        return None
    for t in range(len(p)):  # pad to Σ p = m (floating-point dual only)
        if excess >= 0:
            break
        add = min(E - p[t], -excess)
        p[t] += add
        excess += add
    for t in range(len(p) - 1, -1, -1):  # trim to Σ p = m
        if not excess:
            break
        cut = min(p[t], excess)
        p[t] -= cut
        excess -= cut
    return p, E


def _true_constraint(cols: list[int], shared: int | None, px, i1) -> list[int]:
    """The explicit row ``cols`` of one piece, made a true constraint of R_{i1}.

    A case-0 row written with the shared block of all of I_{i1} (``shared`` is the column
    of x_{i1 i2}): a piece whose subset holds i2 is "case 1 with one superfluous x_{i2 j}"
    (one more than s' = s − 1); dropping it gives the true constraint and only lowers Aᵀy
    (formulations.CompactBuilder, "Shared A-blocks").
    """
    if shared is not None and shared in cols:
        b_side = [col for col in cols if i1 not in px.pairs[col]]
        if b_side:
            cols.remove(b_side[-1])
    return cols


def _shared_a_row(key, px, i1) -> int | None:
    """Column of x_{i1 i2} if ``key`` is a case-0 family whose A-part may use the block of
    all of I_{i1} (i2 ∈ I_{i1}), else None."""
    if px is None or key is None or key[2] != 0:
        return None
    col = int(px.pid[i1, key[0]])
    return col if col >= 0 else None

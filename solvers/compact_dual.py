"""The dual of the compact (family) LP split onto explicit constraints of R_{i1}.

The compact LP writes each "m smallest of a set" as a block (λ_b, u_b) with link rows; its
dual lives on family rows and link rows.  :func:`split_compact_dual` turns it into a dual on
explicit constraints with the same objective and at most the same Aᵀy on every x column
(through a convex decomposition of each block's point of the m-subset polytope,
:func:`hypersimplex_pieces`), so :func:`~.certificate_verify.verify` checks one
formulation-free kind of certificate.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .certificate_verify import Certificate
from .exact_basis import exact_basis

__all__ = ["hypersimplex_pieces", "compact_certificate", "split_compact_dual"]


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
    if any(val < 0 for val in y):
        return None
    split = split_compact_dual(data, y, px, i1)
    if split is None:
        return None
    return Certificate(v[:P], split[1], None, split[0])


def split_compact_dual(data, y, px=None, i1: int | None = None, *, repair: bool = False):
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
        for wt, chosen in hypersimplex_pieces(parts):
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

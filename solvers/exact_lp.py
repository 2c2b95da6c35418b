"""A small exact simplex for the explicit-row LP of C*_{i1}, in rational arithmetic.

The certificate routes of :mod:`.certificate` start from a floating-point basis.  When
costs span more than ~20 orders of magnitude (near-ties: r/d(µ, ½) ~ 1/(2 gap²) reaches
1e30 at gap 1e-15), the float LP cannot rank them — its costs are capped
(docs/lower_bound.md, "Tiny gaps") — and its basis may be optimal for the capped costs
only.  For such LPs, when small, this module finds the optimum exactly:

    min c·x  subject to  Σ_{p ∈ row} x_p ≥ 1 (every row),  0 ≤ x ≤ 1,

by the bounded-variable primal simplex (Dantzig, *Linear Programming and Extensions*,
ch. 18) on a dense tableau of ``fractions.Fraction`` with Bland's rule.  The start is
x = 1 (every row holds; the surplus variables are the basis), so no phase 1 is needed.
Only the reduced-cost row carries the long rational costs; the tableau entries come
from the 0/1 rows and stay small.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["solve_exact", "MAX_VARIABLES", "MAX_ROWS"]

#: Sizes up to which the dense exact simplex is tried (it is O(rows × (P + rows)) per pivot).
MAX_VARIABLES = 80
MAX_ROWS = 400


def solve_exact(rows: list[list[int]], c: list[Fraction], max_pivots: int = 20_000
                ) -> tuple[list[Fraction], list[Fraction]] | None:
    """Exact optimum of min c·x, Σ_{p∈row} x_p ≥ 1, 0 ≤ x ≤ 1 (c ≥ 0).

    Parameters
    ----------
    rows : list of list of int
        Column indices of each constraint (unit coefficients, no repeats).
    c : list of Fraction
        Costs of the P columns.
    max_pivots : int
        Give up (None) beyond this many iterations.

    Returns
    -------
    (x, y) or None
        The optimal vertex and the multipliers y ≥ 0 of the rows (the box multipliers
        are max(0, Aᵀy − c), as :func:`~duelbound.solvers.certificate.verify` derives).
    """
    P, R = len(c), len(rows)
    n = P + R  # x_0..x_{P-1}, then the surplus s_r of row r: Σ x − s_r = 1
    zero, one = Fraction(0), Fraction(1)
    # basis = the surpluses; B = −I, so the tableau B⁻¹[A | −I] is [−A | I]
    T = [[zero] * n for _ in range(R)]
    for r, cols in enumerate(rows):
        for p in cols:
            T[r][p] = -one
        T[r][P + r] = one
    basis = [P + r for r in range(R)]
    at_upper = [True] * P + [False] * R           # nonbasic x start at 1
    xB = [Fraction(len(cols) - 1) for cols in rows]  # s_r = Σ_{p∈row} 1 − 1 ≥ 0
    d = [Fraction(v) for v in c] + [zero] * R     # reduced costs (c_B = 0)
    is_basic = [False] * P + [True] * R
    for _ in range(max_pivots):
        j = next((k for k in range(n) if not is_basic[k] and
                  ((d[k] < 0 and not at_upper[k]) or (d[k] > 0 and at_upper[k]))), None)
        if j is None:
            break
        delta = -1 if at_upper[j] else 1
        theta = one if j < P else None            # a bound flip of x_j
        leave, leave_to_upper = None, False
        for r in range(R):
            rate = -delta * T[r][j]               # d x_B[r] / d theta
            if rate == 0:
                continue
            k = basis[r]
            if rate < 0:
                t, up = xB[r] / -rate, False
            elif k < P:
                t, up = (one - xB[r]) / rate, True
            else:
                continue
            if theta is None or t < theta or (t == theta and leave is not None and
                                              k < basis[leave]):
                theta, leave, leave_to_upper = t, r, up
        if theta is None:
            return None  # unbounded: impossible with c ≥ 0 and a bounded x
        for r in range(R):
            if T[r][j]:
                xB[r] += -delta * T[r][j] * theta
        if leave is None:                         # x_j runs to its other bound
            at_upper[j] = not at_upper[j]
            continue
        entering = (one if at_upper[j] else zero) + delta * theta
        k_out = basis[leave]
        piv = T[leave][j]
        T[leave] = [v / piv for v in T[leave]]
        for r in range(R):
            f = T[r][j]
            if r != leave and f:
                row_l = T[leave]
                T[r] = [a - f * b if b else a for a, b in zip(T[r], row_l)]
        f = d[j]
        d = [a - f * b if b else a for a, b in zip(d, T[leave])]
        basis[leave], xB[leave] = j, entering
        is_basic[j], is_basic[k_out] = True, False
        at_upper[k_out] = leave_to_upper
    else:
        return None
    x = [one if at_upper[p] else zero for p in range(P)]
    for r, k in enumerate(basis):
        if k < P:
            x[k] = xB[r]
    y = [d[P + r] for r in range(R)]             # reduced cost of s_r = the row's dual
    return x, y

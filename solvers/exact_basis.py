"""Exact solutions of an LP's final basis systems (docs/math.md §5.3).

The basis HiGHS ends with is read back in exact arithmetic: B v_B = b − N v_N and
Bᵀ y = c_B are solved by sparse elimination over python-flint's ``fmpq`` and returned as
``fractions.Fraction`` (the matrices have small integer entries — 0/1 rows, block
coefficients m and ±1 — so the primal has tiny denominators; only the dual carries the
long rational costs; python-flint's dense ``fmpq_mat`` was ~7 s for n = 1000, the sparse
elimination ~0.3 s at n = 2300 over ``Fraction``; over ``fmpq`` 0.14 s for both systems
at n ≈ 10 000, K = 136).
"""

from __future__ import annotations

import functools
import heapq
from collections import defaultdict
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from .certificate_verify import reduced_fraction

__all__ = ["sparse_solve", "exact_basis"]


def sparse_solve(eqs: list[dict[int, Any]], rhs: list[Any]) -> dict[int, Any]:
    """Solve a square sparse system exactly (Markowitz-style pivoting); ValueError if singular.

    Entries are exact rationals of one type: ``Fraction`` or python-flint's ``fmpq``
    (:func:`exact_basis` uses ``fmpq``: 4× faster here, most entries being small).
    """
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
    sol: dict[int, Any] = {}
    for i, piv in reversed(order):
        acc = b[i]
        for cc, v in rows[i].items():
            if cc != piv:
                acc -= v * sol[cc]
        sol[piv] = acc / rows[i][piv]
    return sol

def exact_basis(data, sol, c: list[Fraction], *, dual: bool = True):
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
    ub, lb = d.ub.tolist(), d.lb.tolist()
    fixed = {j: _fmpq(ub[j]) for j in np.flatnonzero(cs == 2).tolist()}
    fixed.update({j: _fmpq(lb[j]) for j in np.flatnonzero(cs == 0).tolist() if lb[j] != 0})
    eqs, rhs = [], []
    col_in: dict[int, dict[int, Any]] = {j: {} for j in basic}
    for r in active:
        lo, hi = d.indptr[r], d.indptr[r + 1]
        row: dict[int, Any] = {}
        b = _fmpq(float(d.row_lb[r]))
        for j, v in zip(d.indices[lo:hi].tolist(), d.data[lo:hi].tolist()):
            fv = _fmpq(v)
            if j in bset:
                row[j] = fv
                col_in[j][r] = fv
            elif j in fixed:
                b -= fv * fixed[j]
        eqs.append(row)
        rhs.append(b)
    try:
        vb = sparse_solve(eqs, rhs)
        yb = (sparse_solve([col_in[j] for j in basic],
                           [flint.fmpq(c[j].numerator, c[j].denominator) for j in basic])
              if dual else {})
    except (ValueError, ZeroDivisionError):
        return None
    return _fractions({**fixed, **vb}, d.n_cols), _fractions(yb, d.n_rows)


@functools.lru_cache(maxsize=1024)
def _fmpq(v: float) -> flint.fmpq:
    """The binary64 ``v`` exactly, as an ``fmpq`` (the coefficients here are a few small
    integers: cached)."""
    if float(v).is_integer():
        return flint.fmpq(int(v))
    f = Fraction(float(v))
    return flint.fmpq(f.numerator, f.denominator)


def _fractions(vals: dict[int, flint.fmpq], n: int) -> list[Fraction]:
    """A length-``n`` list of Fractions, ``vals`` at their indices and 0 elsewhere."""
    out = [Fraction(0)] * n
    for j, q in vals.items():
        out[j] = reduced_fraction(q)
    return out

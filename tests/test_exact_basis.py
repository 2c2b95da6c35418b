"""Exact sparse factorisation of basis systems (solvers/exact_basis.py, issue 31).

Independent computation: sympy's exact rational matrices (``Matrix.solve`` and the
transpose), on random sparse square systems with the small integer coefficients of the
LPs here and long rational right-hand sides; a singular system is refused.  And the
exact basis of a solved compact LP satisfies B v_B = b and Bᵀ y = c_B, checked row by
row in plain Fractions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from duelbound.solvers.certificate_verify import exact_costs
from duelbound.solvers.cstar import solve_winner
from duelbound.solvers.exact_basis import SparseLU, exact_basis, sparse_solve
from duelbound.theory import tournament
from duelbound.theory.generators import random_matrix


@st.composite
def systems(draw):
    """A nonsingular n×n matrix with entries in {−2, …, 3} (about half zero), as dicts of
    Fractions with shuffled unknown names, and two right-hand sides of long rationals."""
    n = draw(st.integers(1, 7))
    entry = st.sampled_from([0, 0, 0, 1, 1, -1, 2, 3, -2])
    A = [[draw(entry) for _ in range(n)] for _ in range(n)]
    for i, j in enumerate(draw(st.permutations(range(n)))):  # a nonzero on a permutation
        A[i][j] = A[i][j] or 1
    assume(sympy.Matrix(A).det() != 0)
    names = draw(st.permutations([10 * k + 3 for k in range(n)]))
    rat = st.fractions(max_denominator=10**40, min_value=-10**6, max_value=10**6)
    return A, names, [draw(rat) for _ in range(n)], [draw(rat) for _ in range(n)]


def _sym(v: Fraction) -> sympy.Rational:
    return sympy.Rational(v.numerator, v.denominator)


@settings(max_examples=60, deadline=None)
@given(systems())
def test_both_solves_equal_sympy(system):
    A, names, b, c = system
    n = len(A)
    eqs = [{names[j]: Fraction(A[i][j]) for j in range(n) if A[i][j]} for i in range(n)]
    lu = SparseLU(eqs)
    v = lu.solve(b)
    want_v = sympy.Matrix(A).solve(sympy.Matrix([_sym(x) for x in b]))
    assert [v[names[j]] for j in range(n)] == [Fraction(str(x)) for x in want_v]
    y = lu.solve_transposed({names[j]: c[j] for j in range(n)})
    want_y = sympy.Matrix(A).T.solve(sympy.Matrix([_sym(x) for x in c]))
    assert [y[i] for i in range(n)] == [Fraction(str(x)) for x in want_y]
    assert sparse_solve(eqs, b) == v


def test_a_singular_system_is_refused():
    with pytest.raises(ValueError, match="singular"):
        SparseLU([{0: Fraction(1), 1: Fraction(2)}, {0: Fraction(2), 1: Fraction(4)}])


def test_exact_basis_of_a_compact_lp_solves_its_basis_systems():
    M = random_matrix(12, 3)
    ws = solve_winner(M, int(tournament.copeland_winners(M)[0]), "compact")
    d = ws.data
    c = exact_costs(M, ws.px) + [Fraction(0)] * (d.n_cols - d.n_pairs)
    v, y = exact_basis(d, ws.sol, c)
    basic = np.flatnonzero(ws.sol.col_status == 1).tolist()
    active = np.flatnonzero(ws.sol.row_status != 1).tolist()
    A = [dict(zip(d.indices[d.indptr[r]:d.indptr[r + 1]].tolist(),
                  (Fraction(x) for x in d.data[d.indptr[r]:d.indptr[r + 1]].tolist())))
         for r in range(d.n_rows)]
    for r in active:  # active rows hold with equality at the vertex
        assert sum((a * v[j] for j, a in A[r].items()), Fraction(0)) == Fraction(d.row_lb[r])
    for j in basic:  # Bᵀ y = c_B: the basic columns' reduced costs are zero
        assert sum((A[r].get(j, 0) * y[r] for r in active), Fraction(0)) == c[j]
    assert all(y[r] == 0 for r in range(d.n_rows) if r not in set(active))

"""ECW-RMED's C^E* ([K16] §4.2, Theorem 5; docs/math.md §6) against independent computations."""

from __future__ import annotations

from itertools import combinations

import mpmath
import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as hst
from scipy.optimize import linprog

from duelbound.solvers import ecw_bound, in_region, lower_bound, threshold_core
from duelbound.theory import datasets, generators
from duelbound.theory import tournament as st
from duelbound.theory.errors import InvalidMatrixError


def _d_half(p: str) -> mpmath.mpf:
    p = mpmath.mpf(p)
    return p * mpmath.log(2 * p) + (1 - p) * mpmath.log(2 * (1 - p))


@hst.composite
def matrices(draw, max_k: int = 6):
    """Small matrices of every structure kind (Condorcet, none, several winners, L1 ≥ 1)."""
    K = draw(hst.integers(3, max_k))
    kind = draw(hst.sampled_from(["any", "condorcet", "no-condorcet", "multi", "near-tie"]))
    seed = draw(hst.integers(0, 2**31 - 1))
    kw: dict = {}
    if kind == "condorcet":
        kw = {"condorcet": True}
    elif kind == "no-condorcet":
        kw = {"condorcet": False}
    elif kind == "multi":  # a 3-cycle on K = 3; 2 or 3 winners with L1 = 1 from K = 4
        kw = {"n_winners": 3 if K == 3 else draw(hst.integers(2, 3)), "l1": 1}
    elif kind == "near-tie":
        kw = {"near_ties": 1, "near_tie_gap": 1e-3}
    try:
        return generators.random_matrix(K, seed, **kw)
    except InvalidMatrixError:  # the generator's local search gave up: draw again
        reject()


def test_cyclic_ecw_value_is_one_over_d06():
    res = ecw_bound(datasets.load("cyclic"))
    expected = 1 / _d_half("0.6")  # docs/math.md §5 worked example, [K16] App. C
    assert res.value == pytest.approx(float(expected), rel=1e-12)
    assert res.winners == [0]


@settings(max_examples=60)
@given(hst.lists(hst.floats(0.0, 10.0), min_size=1, max_size=7), hst.data())
def test_threshold_rule_equals_lp_over_all_m_subsets(c, data):
    """[K16] Theorem 5: sorted threshold = LP (6) with every m-subset written out (scipy)."""
    n = len(c)
    m = data.draw(hst.integers(1, n))
    A = [[-1.0 if j in S else 0.0 for j in range(n)] for S in combinations(range(n), m)]
    lp = linprog(c, A_ub=A, b_ub=[-1.0] * len(A), bounds=[(0, None)] * n, method="highs")
    val, h = threshold_core(np.array(c), m)
    assert val == pytest.approx(lp.fun, rel=1e-9, abs=1e-9)
    assert n - m + 1 <= h <= n


@settings(max_examples=25)
@given(matrices(max_k=7))
def test_ecw_threshold_equals_ecw_lp(M):
    a, b = ecw_bound(M), ecw_bound(M, method="lp")
    for i1 in a.per_winner:
        assert a.per_winner[i1] == pytest.approx(b.per_winner[i1], rel=1e-7)


@settings(max_examples=25)
@given(matrices(max_k=7))
def test_ecw_allocation_feasible_and_costs_value(M):
    res = ecw_bound(M)
    d = st.divergences(M)
    from duelbound.theory.regret import regret_matrix

    r = regret_matrix(M)
    for i1, q in res.allocations.items():
        assert in_region(M, i1, q * d, kind="ecw", tol=1e-9)
        assert np.allclose(q, q.T)
        assert float(np.triu(r * q, 1).sum()) == pytest.approx(res.per_winner[i1], rel=1e-9)


@settings(max_examples=20)
@given(matrices(max_k=6))
def test_ecw_at_least_cstar_and_equal_with_several_winners(M):
    """[K16] Theorem 6: (8) C^E*_{i1} ≥ C*_{i1}; (9) equality when C ≥ 2."""
    e = ecw_bound(M)
    c = lower_bound(M, certify=False)
    for i1 in e.per_winner:
        assert e.per_winner[i1] >= c.per_winner[i1] * (1 - 1e-9)
        if len(st.copeland_winners(M)) >= 2:
            assert e.per_winner[i1] == pytest.approx(c.per_winner[i1], rel=1e-7)


def test_section_4_4_allocation_lies_in_relaxed_region():
    """[K16] §4.4: x_{i1 j} = 1 (j ∈ I_{i1}), x_{j i2} = 1/(L_{i2} − L1 + 1) is in R^E_{i1}."""
    for seed in range(10):
        M = generators.random_matrix(9, seed)
        L = st.losses(M)
        for i1 in st.copeland_winners(M):
            x = np.zeros((M.K, M.K))
            for j in st.inferiors(M, i1):
                x[i1, j] = x[j, i1] = 1.0
            for i2 in range(M.K):
                if i2 != i1:
                    for j in st.superiors(M, i2):
                        if j != i1:
                            x[j, i2] = x[i2, j] = 1.0 / (L[i2] - L[i1] + 1)
            assert in_region(M, i1, x, kind="ecw")

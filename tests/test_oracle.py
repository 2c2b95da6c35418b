"""Sorting separation oracle (docs/math.md §5, [K16] §4.1.1) against brute-force enumeration."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from test_ecw import matrices  # tests/ is on sys.path (rootdir conftest, no __init__)

from duelbound.solvers import in_region
from duelbound.solvers.oracle import cw_oracle_core, kl_half_core, regret_core
from duelbound.theory import datasets, generators
from duelbound.theory import tournament as st
from duelbound.theory.errors import DuelboundError, UnknownNameError
from duelbound.theory.regret import regret_matrix


def brute_force_min_lhs(M, i1, x):
    """Min over every constraint of R_{i1}, enumerated literally from docs/math.md §5."""
    K = M.K
    L = st.losses(M)
    L1, L2 = int(np.sort(L)[0]), int(np.sort(L)[1])
    Ii1 = st.inferiors(M, i1)
    best = np.inf
    for i2 in range(K):
        if i2 == i1:
            continue
        for l in range(max(0, L1 - 1), L2 + 1):
            size_I = l + 1 - L1
            for I in combinations(Ii1, size_I):
                size_S = max(0, int(L[i2]) - l - (1 if i2 in I else 0))
                pool = [j for j in st.superiors(M, i2) if j != i1]
                for S in combinations(pool, size_S):
                    best = min(best, sum(x[i1, j] for j in I) + sum(x[i2, j] for j in S))
    return best


@settings(max_examples=40)
@given(matrices(max_k=6), hst.integers(0, 2**31 - 1))
def test_oracle_min_equals_brute_force(M, seed):
    rng = np.random.default_rng(seed)
    x = rng.choice([0.0, 0.25, 0.5, 1.0], size=(M.K, M.K))  # ties on purpose
    x = np.triu(x, 1) + np.triu(x, 1).T
    for i1 in st.copeland_winners(M):
        V = cw_oracle_core(np.ascontiguousarray(M.values), i1, x)
        assert V.min() == pytest.approx(brute_force_min_lhs(M, i1, x), abs=1e-12)


def test_cyclic_membership():
    M = datasets.load("cyclic")
    half = np.full((4, 4), 0.5)
    assert in_region(M, 0, half, kind="cw")  # x = 1/2 everywhere is the optimum
    x = half.copy()
    x[1, 2] = x[2, 1] = 0.4
    assert not in_region(M, 0, x, kind="cw")


def test_in_region_rejects_non_winner_and_unknown_kind():
    M = datasets.load("cyclic")
    with pytest.raises(DuelboundError, match="not a Copeland winner"):
        in_region(M, 1, np.ones((4, 4)))
    with pytest.raises(UnknownNameError):
        in_region(M, 0, np.ones((4, 4)), kind="nope")


def test_jitted_kl_and_regret_match_theory():
    M = generators.random_matrix(12, 3, near_ties=3, near_tie_gap=1e-7)
    d = st.divergences(M)
    assert np.allclose(kl_half_core(np.ascontiguousarray(M.values)), d, rtol=1e-13, atol=0)
    assert np.array_equal(regret_core(np.ascontiguousarray(M.values)), regret_matrix(M))

"""Warm re-solves and the basis-stability test of solvers/parametric.py (CW-RMED's LP path).

Every value is compared with scipy's HiGHS over all constraints written out from
docs/math.md §5 (``scipy_cstar``, independent of the package's formulations).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from test_ecw import matrices
from test_lower_bound import scipy_cstar

from duelbound.checks.simulate.simulator import run_single
from duelbound.solvers import in_region
from duelbound.solvers.oracle import kl_half_core, losses_core
from duelbound.solvers.parametric import (
    CStarTracker,
    basis_still_optimal,
    cw_values_core,
    pair_costs_core,
)
from duelbound.theory import PreferenceMatrix, datasets, generators
from duelbound.theory.errors import DuelboundError, InvalidMatrixError


def _perturb(mu: np.ndarray, scale: float, rng: np.random.Generator) -> np.ndarray:
    """Move every µ_ij (i < j) by a relative amount ~ scale, keeping the tournament."""
    K = mu.shape[0]
    out = mu.copy()
    for a in range(K):
        for b in range(a + 1, K):
            gap = mu[a, b] - 0.5
            new = 0.5 + gap * float(np.exp(rng.normal(0.0, scale)))
            new = min(max(new, 1e-6), 1 - 1e-6)
            out[a, b], out[b, a] = new, 1.0 - new
    return out


def _fast_values(checks, evidence, mu):
    """(passed, values) of the compiled basis test at µ."""
    K = mu.shape[0]
    L, d = losses_core(mu), kl_half_core(mu)
    c = np.empty(K * K)
    pair_costs_core(L, d, c)
    values, q = np.empty(K), np.zeros((K, K))
    cw_values_core(c, evidence, L, d, values, q)
    return basis_still_optimal(checks, c), values


@settings(max_examples=40)
@given(matrices(max_k=5), hst.integers(0, 2**32 - 1), hst.sampled_from([1e-6, 1e-3, 0.05]))
def test_tracker_and_basis_test_agree_with_independent_lp(M, seed, scale):
    """Solve at M, then at a perturbed matrix with the same tournament: whether the
    compiled basis test passes (old vertex re-used) or the tracker re-solves warm,
    every C*_{i1} equals the independent LP, and the vertex lies in R_{i1}."""
    tracker = CStarTracker(M.K)
    sol = tracker.solve(M.values)
    for i1 in np.flatnonzero(np.isfinite(sol.values)):
        assert sol.values[i1] == pytest.approx(scipy_cstar(M, int(i1)), rel=1e-7)
    mu2 = _perturb(M.values, scale, np.random.default_rng(seed))
    M2 = PreferenceMatrix(mu2)
    passed, values = _fast_values(sol.checks, sol.evidence, mu2)
    evidence = sol.evidence
    if not passed:
        sol2 = tracker.solve(mu2)
        values, evidence = sol2.values, sol2.evidence
    K = M.K
    for i1 in np.flatnonzero(np.isfinite(values)):
        assert values[i1] == pytest.approx(scipy_cstar(M2, int(i1)), rel=1e-7)
        x = np.zeros((K, K))
        iu = np.triu_indices(K, 1)
        x[iu] = evidence[i1].reshape(K, K)[iu]
        assert in_region(M2, int(i1), x + x.T, kind="cw")


def test_basis_test_passes_under_small_moves_and_fails_under_large_ones():
    """Both branches happen: tiny moves of µ keep the basis (no LP), large ones do not."""
    rng = np.random.default_rng(0)
    tiny = large = 0
    for seed in range(6):
        M = generators.random_matrix(6, seed)
        sol = CStarTracker(6).solve(M.values)
        tiny += _fast_values(sol.checks, sol.evidence, _perturb(M.values, 1e-7, rng))[0]
        large += _fast_values(sol.checks, sol.evidence, _perturb(M.values, 0.3, rng))[0]
    assert tiny >= 5
    assert large <= 3


def test_no_basis_means_always_resolve():
    """CBC gives no basis: the test row is NaN and never passes (the caller re-solves)."""
    M = datasets.load("cyclic")
    sol = CStarTracker(4, backend="PULP_CBC_CMD").solve(M.values)
    assert np.isnan(sol.checks).all()
    assert not _fast_values(sol.checks, sol.evidence, M.values)[0]
    assert sol.values.min() == pytest.approx(scipy_cstar(M, 0), rel=1e-7)


def test_tracker_rejects_bad_input_and_reuses_models():
    M = datasets.load("multi_winner")
    tracker = CStarTracker(M.K, max_tournaments=1)
    tracker.solve(M.values)
    built = tracker.models_built
    tracker.solve(_perturb(M.values, 1e-3, np.random.default_rng(1)))
    assert tracker.models_built == built  # same tournament: warm models re-used
    flipped = datasets.load("cyclic").values
    tracker2 = CStarTracker(4, max_tournaments=1)
    tracker2.solve(flipped)
    mu = flipped.copy()
    mu[1, 2], mu[2, 1] = 0.5, 0.5
    with pytest.raises(InvalidMatrixError, match="ties"):
        tracker2.solve(mu)
    with pytest.raises(InvalidMatrixError, match="4x4"):
        tracker2.solve(np.full((3, 3), 0.5))
    nan = flipped.copy()
    nan[0, 1] = np.nan
    with pytest.raises(InvalidMatrixError, match=r"\[0, 1\] at \[\(0, 1\)\]"):
        tracker2.solve(nan)


def test_cw_rmed_releases_its_tracker():
    from duelbound.checks.simulate.algorithms import rmed as alg_rmed

    before = set(alg_rmed._TRACKERS)
    run_single(datasets.load("cyclic"), "cw-rmed", 2000, 0)
    assert set(alg_rmed._TRACKERS) == before


@settings(max_examples=30, deadline=None)
@given(matrices(max_k=6), hst.integers(0, 2**32 - 1), hst.sampled_from([1e-6, 1e-3, 0.05, 0.5]))
def test_factored_basis_test_agrees_with_the_rows_g(M, seed, scale):
    """CStarTracker.still_optimal (factorised basis, G c evaluated directly) against the
    explicit rows G of basis_checks tested by basis_still_optimal, at perturbed costs."""
    tracker = CStarTracker(M.K)
    sol = tracker.solve(M.values)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        mu = _perturb(M.values, scale, rng)
        c = np.empty(M.K * M.K)
        pair_costs_core(losses_core(mu), kl_half_core(mu), c)
        assert tracker.still_optimal(c) == basis_still_optimal(sol.checks, c)


def test_lean_read_gives_the_basis_highs_reports():
    """PulpLP.lean reads the basis from getBasicVariables and the column values: the
    statuses must be those of HiGHS's getBasis (basic, and upper for boxed nonbasic
    columns at their upper bound), and the values the same, on several family LPs."""
    pytest.importorskip("highspy")
    from duelbound.solvers.cstar import FamilyModel
    from duelbound.solvers.formulations import pair_index
    from duelbound.solvers.oracle import regret_core

    uppers = 0
    for seed in range(4):
        mu = generators.random_matrix(8, seed).values
        d, r, L = kl_half_core(mu), regret_core(mu), losses_core(mu)
        i1 = int(np.argmin(L))
        lean, full = (FamilyModel(mu, i1, pair_index(mu, d, r, i1), lean=flag)
                      for flag in (True, False))
        a, b = lean.solve(), full.solve()
        assert a.y.size == 0 and b.y.size == lean.model.data.n_rows
        np.testing.assert_array_equal(a.v, b.v)
        boxed = lean.model.data.lb < lean.model.data.ub
        np.testing.assert_array_equal(a.col_status == 1, b.col_status == 1)
        np.testing.assert_array_equal(a.row_status == 1, b.row_status == 1)
        nb = boxed & (b.col_status != 1)
        np.testing.assert_array_equal(a.col_status[nb], b.col_status[nb])
        uppers += int(np.sum(b.col_status[nb] == 2))
    assert uppers > 0  # the upper-bound branch was exercised


def test_basic_flags_without_get_basic_variables_agree():
    """highspy 1.7 has no getBasicVariables: the getBasis fallback must mark the same
    columns and rows basic, read from the full basis's enum statuses."""
    highspy = pytest.importorskip("highspy")
    from duelbound.solvers.formulations import compact_lp, pair_index
    from duelbound.solvers.lp import _basic_flags, _load_highs
    from duelbound.solvers.oracle import regret_core
    from duelbound.solvers.quiet import solver_stdout_guard

    class OnlyGetBasis:  # what an old highspy's model offers
        def __init__(self, h):
            self.getBasis = h.getBasis

    with solver_stdout_guard():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    mu = generators.random_matrix(6, 3).values
    i1 = int(np.argmin(losses_core(mu)))
    px = pair_index(mu, kl_half_core(mu), regret_core(mu), i1)
    _load_highs(h, compact_lp(mu, i1, px))
    h.run()
    n_col, n_row = h.getNumCol(), h.getNumRow()
    basis = h.getBasis()
    want_col = np.array([s == highspy.HighsBasisStatus.kBasic for s in basis.col_status])
    want_row = np.array([s == highspy.HighsBasisStatus.kBasic for s in basis.row_status])
    for model in (OnlyGetBasis(h), h):
        col, row = _basic_flags(model, n_col, n_row)
        np.testing.assert_array_equal(col, want_col)
        np.testing.assert_array_equal(row, want_row)
    assert want_col.sum() + want_row.sum() == n_row  # a basis: one basic per row


def test_resolve_after_a_failed_test_solves_only_the_failing_winners():
    """With several Copeland winners, a failed still_optimal whose verdict passes for
    some winners: the following solve runs the LP only for the others, and every C*_{i1}
    still equals the independent LP (scipy, all constraints written out)."""
    rng = np.random.default_rng(3)
    mixed = 0
    for M in (datasets.load("multi_winner"), *[generators.random_matrix(7, s) for s in range(6)]):
        tracker = CStarTracker(M.K)
        tracker.solve(M.values, checks=False)
        for _ in range(8):
            mu = _perturb(M.values, 0.2, rng)
            c = np.empty(M.K * M.K)
            pair_costs_core(losses_core(mu), kl_half_core(mu), c)
            if tracker.still_optimal(c):
                continue
            ok = tracker._verdict[1].copy()
            before = tracker.lp_solves
            sol = tracker.solve(mu, checks=False)
            assert tracker.lp_solves - before == int(np.sum(~ok))
            mixed += bool(ok.any())
            M2 = PreferenceMatrix(mu)
            for i1 in np.flatnonzero(np.isfinite(sol.values)):
                assert sol.values[i1] == pytest.approx(scipy_cstar(M2, int(i1)), rel=1e-7)
    assert mixed > 0  # some re-solve skipped a winner


def test_restart_from_basis_makes_a_warm_resolve_independent_of_earlier_runs():
    """Two copies of the K = 30 family LP at the same basis; one first re-solves at
    nearly unchanged costs (no pivot), then both re-solve at the same new costs after
    restart_from_basis: same iterations and bit-identical values.  Without the restart
    HiGHS kept state from the extra run (9 of 40 such trials differed, measured on
    highspy 1.16), which broke the lazy = every-round identity of CW-RMED at K = 30."""
    pytest.importorskip("highspy")
    from duelbound.solvers.cstar import FamilyModel
    from duelbound.solvers.formulations import pair_index
    from duelbound.solvers.oracle import regret_core

    mu = generators.random_matrix(30, 0).values
    d, r = kl_half_core(mu), regret_core(mu)
    i1 = int(np.argmin(losses_core(mu)))
    px = pair_index(mu, d, r, i1)
    rng = np.random.default_rng(1)
    for _ in range(20):
        a, b = (FamilyModel(mu, i1, px) for _ in range(2))
        a.solve()
        b.solve()
        near = a.model.data.c * np.exp(rng.normal(0.0, 1e-6, a.model.data.n_cols))
        new = a.model.data.c * np.exp(rng.normal(0.0, 0.05, a.model.data.n_cols))
        a.model.set_costs(near)
        a.model.restart_from_basis()
        a.model.solve()
        out = []
        for fm in (a, b):
            fm.model.set_costs(new.copy())
            fm.model.restart_from_basis()
            out.append(fm.model.solve())
        assert out[0].iterations == out[1].iterations
        np.testing.assert_array_equal(out[0].v, out[1].v)


def test_raw_superlu_factors_are_splus():
    """parametric._superlu (scipy's gstrf without the csc objects around it) returns the
    permutations and the L, U arrays of the public ``splu`` on the same matrix, bit for
    bit, and so does its fallback through ``splu``; _factors also takes columns whose
    row indices are not sorted (then splu's canonical order first)."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import splu

    from duelbound.solvers import parametric

    def arrays(raw):
        perm_r, perm_c, U, L = raw
        return [perm_r, perm_c] + [a[:f[2][-1]] for f in (U, L) for a in f[:2]] + [U[2], L[2]]

    for m, seed in ((1, 0), (7, 1), (60, 2), (400, 3)):
        S = (sp.random(m, m, density=min(1.0, 3.0 / m), random_state=seed, format="csc")
             + sp.eye(m, format="csc")).tocsc()
        S.sort_indices()
        lu = splu(S)
        want = [lu.perm_r, lu.perm_c, lu.U.data, lu.U.indices, lu.L.data, lu.L.indices,
                lu.U.indptr, lu.L.indptr]
        got = arrays(parametric._superlu(S.indptr, S.indices, S.data, m))
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
        gstrf, parametric._gstrf = parametric._gstrf, None
        try:
            got = arrays(parametric._superlu(S.indptr, S.indices, S.data, m))
        finally:
            parametric._gstrf = gstrf
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    # unsorted rows within a column: the factors of the same matrix
    S = sp.csc_matrix(np.array([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [1.0, 0.0, 4.0]]))
    order = np.concatenate([np.arange(S.indptr[j], S.indptr[j + 1])[::-1] for j in range(3)])
    shuffled = parametric._factors(S.indptr, S.indices[order], S.data[order], 3)
    sorted_ = parametric._factors(S.indptr, S.indices, S.data, 3)
    for a, b in zip([*shuffled[0], *shuffled[1]], [*sorted_[0], *sorted_[1]], strict=True):
        np.testing.assert_array_equal(a, b)
    assert parametric._factors(np.array([0, 1, 2]), np.array([0, 0]), np.ones(2), 2) is None


def test_solve_into_a_buffer_writes_the_winners_rows_of_a_fresh_solve():
    """solve(out=X) on a buffer full of NaN: the rows of the Copeland winners equal the
    evidence of an independent tracker's solve (no buffer), bit for bit, along a stream
    of matrices with one tournament; the costs a re-solve sets (from pair_costs_core)
    are pair_index's r/d, bit for bit."""
    from duelbound.solvers.formulations import pair_index
    from duelbound.solvers.oracle import regret_core

    rng = np.random.default_rng(5)
    for M in (datasets.load("multi_winner"), generators.random_matrix(8, 2)):
        a, b = CStarTracker(M.K), CStarTracker(M.K)
        X = np.full((M.K, M.K * M.K), np.nan)
        for step in range(5):
            mu = M.values if step == 0 else _perturb(M.values, 0.3, rng)
            got = a.solve(mu, checks=False, out=X)
            want = b.solve(mu, checks=False)
            assert got.evidence is X
            winners = np.flatnonzero(np.isfinite(want.values))
            np.testing.assert_array_equal(X[winners], want.evidence[winners])
            np.testing.assert_array_equal(got.values, want.values)
            np.testing.assert_array_equal(got.allocation, want.allocation)
            for i1, w in a._current:
                px = pair_index(mu, kl_half_core(mu), regret_core(mu), i1)
                np.testing.assert_array_equal(w.fm.px.cost, px.cost)
                np.testing.assert_array_equal(w.fm.model.data.c[:px.cost.size], px.cost)
    for bad in (np.zeros((M.K, M.K)), np.zeros((M.K, M.K * M.K), dtype=np.float32)):
        with pytest.raises(DuelboundError, match="out must be"):
            a.solve(M.values, checks=False, out=bad)

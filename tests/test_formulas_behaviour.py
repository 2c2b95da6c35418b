"""One implementation per formula, checked against independent transcriptions.

* d(p, 1/2) and d(p, q): the scalar implementations of :mod:`duelbound.theory.kl` against
  mpmath at 50 digits, including the boundaries p → 1/2 and p → 0/1; the compiled copies
  used by the LP costs and by the simulator are the same code (bit-identical results).
* The simulator's confidence radii and indices against plain-Python transcriptions of
  the papers' formulas on hand-made and generated count matrices (not only golden
  fingerprints): the RUCB/CCB/D-TS bounds W/N ± sqrt(α ln t / N) ([Z15] Alg. 1 lines 3–4,
  [W16] Alg. 1), their square-root-free comparisons with 1/2, µ̂ with 0/0 = 1/2, and
  RMED's empirical divergence Î_i = Σ_{j: µ̂_ij ≤ 1/2} N_ij d(µ̂_ij, 1/2) (Komiyama et al.
  2015, eq. (4)).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from duelbound.checks.simulate.algorithms import common
from duelbound.checks.simulate.algorithms import rmed as rmed_alg
from duelbound.checks.simulate.environment import make_env
from duelbound.solvers import oracle
from duelbound.theory import PreferenceMatrix
from duelbound.theory.kl import kl_bernoulli, kl_bernoulli_scalar, kl_half, kl_half_scalar

mpmath.mp.dps = 50


def mp_kl(p: float, q: float) -> mpmath.mpf:
    p, q = mpmath.mpf(p), mpmath.mpf(q)
    out = mpmath.mpf(0)
    if p > 0:
        out += p * mpmath.log(p / q)
    if p < 1:
        out += (1 - p) * mpmath.log((1 - p) / (1 - q))
    return out


def rel_err(got: float, want: mpmath.mpf) -> float:
    if want == 0:
        return abs(got)
    return float(abs((mpmath.mpf(got) - want) / want))


BOUNDARY = [0.0, 1.0, 0.5, 5e-324, 1e-300, 1e-16, 1 - 2**-53, 0.25, 0.75, 0.9999999999]
BOUNDARY += [0.5 + s * 10.0**-k for k in range(1, 17) for s in (1, -1)]
BOUNDARY += [0.5 + s * 0.1 * f for f in (0.999, 1.0, 1.001) for s in (1, -1)]  # series edge


@pytest.mark.parametrize("p", BOUNDARY)
def test_kl_half_scalar_matches_mpmath_at_the_boundaries(p):
    assert rel_err(kl_half_scalar(p), mp_kl(p, 0.5)) <= 4e-15


@given(st.floats(0.0, 1.0))
def test_kl_half_scalar_matches_mpmath(p):
    assert rel_err(kl_half_scalar(p), mp_kl(p, 0.5)) <= 4e-15


def test_every_compiled_copy_is_the_same_code():
    ps = np.array([*BOUNDARY, *np.linspace(0, 1, 1001)])
    want = np.array([kl_half_scalar(p) for p in ps])
    assert np.array_equal(np.asarray(kl_half(ps)), want)               # numpy ufunc
    assert np.array_equal([oracle._kl_half_scalar(p) for p in ps], want)   # LP costs
    assert np.array_equal([common.kl_half_scalar(p) for p in ps], want)    # simulator
    assert kl_half(0.6) == kl_half_scalar(0.6) and isinstance(kl_half(0.6), float)


def test_kl_half_agrees_with_the_general_divergence():
    ps = np.linspace(0, 1, 2001)
    np.testing.assert_allclose(kl_half(ps), kl_bernoulli(ps, 0.5), rtol=1e-14, atol=1e-300)


@given(st.floats(0.0, 1.0), st.floats(1e-6, 1 - 1e-6))
def test_kl_bernoulli_scalar_matches_mpmath(p, q):
    want = mp_kl(p, q)
    got = kl_bernoulli_scalar(p, q)
    # the textbook form: accurate away from p = q, absolutely accurate near it
    assert float(abs(mpmath.mpf(got) - want)) <= 1e-12 * max(1.0, float(want))
    assert common.kl_scalar(p, q) == got


def test_kl_bernoulli_scalar_clips_q_at_the_edges():
    assert math.isfinite(kl_bernoulli_scalar(0.5, 0.0))
    assert kl_bernoulli_scalar(0.0, 0.0) < 1e-14 and kl_bernoulli_scalar(1.0, 1.0) < 1e-14


# -- confidence bounds of RUCB / CCB / D-TS --------------------------------------------------
def literal_bounds(W: np.ndarray, alpha: float, t: float) -> tuple[np.ndarray, np.ndarray]:
    """[Z15] Alg. 1 lines 3–4 as written: u = W/N + sqrt(α ln t / N), l = W/N − …;
    x/0 := 1 in U and 0 in L; u_ii = l_ii = 1/2."""
    K = W.shape[0]
    U, L = np.empty((K, K)), np.empty((K, K))
    for i in range(K):
        for j in range(K):
            n = W[i, j] + W[j, i]
            if i == j:
                U[i, j] = L[i, j] = 0.5
            elif n == 0:
                U[i, j], L[i, j] = 1.0, 0.0
            else:
                r = math.sqrt(alpha * (math.log(t) if t > 1 else 0.0) / n)
                U[i, j], L[i, j] = W[i, j] / n + r, W[i, j] / n - r
    return U, L


counts = st.integers(2, 6).flatmap(lambda K: st.lists(
    st.integers(0, 40), min_size=K * K, max_size=K * K).map(
        lambda v: np.array(v, dtype=np.float64).reshape(K, K) * (1 - np.eye(K))))


@given(counts, st.floats(0.2, 2.0), st.integers(1, 10**6))
def test_confidence_bounds_are_the_papers_formula(W, alpha, t):
    U, L = np.empty_like(W), np.empty_like(W)
    common.confidence_bounds(W, alpha, float(t), U, L)
    Ux, Lx = literal_bounds(W, alpha, float(t))
    np.testing.assert_allclose(U, Ux, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(L, Lx, rtol=1e-14, atol=1e-15)
    lt = math.log(t) if t > 1 else 0.0
    for c in range(W.shape[0]):
        col = np.empty(W.shape[0])
        common.ucb_column(W, c, alpha, lt, col)
        np.testing.assert_allclose(col, Ux[:, c], rtol=1e-14, atol=1e-15)


@given(counts, st.floats(0.2, 2.0), st.integers(2, 10**6), st.data())
def test_square_root_free_comparisons_agree_with_the_bounds(W, alpha, t, data):
    K = W.shape[0]
    i = data.draw(st.integers(0, K - 1))
    j = data.draw(st.integers(0, K - 1).filter(lambda x: x != i))
    Ux, Lx = literal_bounds(W, alpha, float(t))
    assume(abs(Ux[i, j] - 0.5) > 1e-9 and abs(Lx[i, j] - 0.5) > 1e-9)  # no float ties
    alt = alpha * math.log(t)
    assert common.ucb_above_half(W, i, j, alt) == (Ux[i, j] > 0.5)
    assert common.ucb_at_least_half(W, i, j, alt) == (Ux[i, j] >= 0.5)
    assert common.lcb_at_most_half(W, i, j, alt) == (Lx[i, j] <= 0.5)


def test_radius_shrinks_like_one_over_root_n_and_grows_like_root_log_t():
    W = np.array([[0.0, 30.0], [10.0, 0.0]])  # N = 40, µ̂ = 3/4
    U, L = np.empty((2, 2)), np.empty((2, 2))
    common.confidence_bounds(W, 0.51, 1000.0, U, L)
    r = math.sqrt(0.51 * math.log(1000.0) / 40)
    assert U[0, 1] == pytest.approx(0.75 + r) and L[0, 1] == pytest.approx(0.75 - r)
    assert U[1, 0] == pytest.approx(0.25 + r)
    common.confidence_bounds(4 * W, 0.51, 1000.0, U, L)  # 4× the data: half the radius
    assert U[0, 1] - 0.75 == pytest.approx(r / 2)


def test_mu_hat_is_one_half_for_unseen_pairs():
    W = np.array([[0.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 0.0]])
    assert common.mu_hat(W, 0, 1) == 0.5
    assert common.mu_hat(W, 0, 2) == 0.75 and common.mu_hat(W, 2, 1) == pytest.approx(2 / 3)


# -- RMED's empirical divergence -------------------------------------------------------------
@given(counts)
def test_rmed_empirical_divergence_is_komiyama_2015_eq_4(W):
    K = W.shape[0]
    M = PreferenceMatrix(np.full((K, K), 0.5) + 0.1 * np.triu(np.ones((K, K)), 1)
                         - 0.1 * np.tril(np.ones((K, K)), -1))
    env = make_env(M, 10)
    env.W[:] = W.astype(np.int64)
    env.N[:] = (W + W.T).astype(np.int64)
    mh = np.full((K, K), 0.5)
    dh = np.zeros((K, K))
    for i in range(K):
        for j in range(K):
            n = W[i, j] + W[j, i]
            if i != j and n > 0:
                mh[i, j] = W[i, j] / n
                dh[i, j] = kl_half_scalar(mh[i, j])
    out = np.empty(K)
    rmed_alg._empirical_divergence(env, mh, dh, out)
    for i in range(K):
        want = sum((W[i, j] + W[j, i]) * float(mp_kl(W[i, j] / (W[i, j] + W[j, i]), 0.5))
                   for j in range(K) if j != i and W[i, j] + W[j, i] > 0
                   and W[i, j] / (W[i, j] + W[j, i]) <= 0.5)
        assert out[i] == pytest.approx(want, rel=1e-12, abs=1e-12)

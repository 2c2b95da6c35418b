"""KL divergence against mpmath, regret conventions by definition, PreferenceMatrix basics."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from duelbound.theory import (
    PreferenceMatrix,
    UnknownNameError,
    conversion_factor,
    datasets,
    generators,
    kl_bernoulli,
    kl_half,
    kl_symbolic,
    ratio_range,
    regret_matrix,
)
from duelbound.theory import tournament as s

mpmath.mp.dps = 50


def kl_ref(p: float, q: float) -> mpmath.mpf:
    p, q = mpmath.mpf(p), mpmath.mpf(q)
    out = mpmath.mpf(0)
    if p > 0:
        out += p * mpmath.log(p / q)
    if p < 1:
        out += (1 - p) * mpmath.log((1 - p) / (1 - q))
    return out


def test_kl_full_precision_near_half():
    xs = np.linspace(-1e-9, 1e-9, 201)
    xs = xs[xs != 0]
    got = kl_half(0.5 + xs)
    for x, v in zip(xs, got):
        ref = kl_ref(0.5 + x, 0.5)  # exact for the float 0.5 + x
        assert abs(v - ref) / ref < 2e-15


@given(st.floats(0.0, 1.0), st.floats(1e-6, 1 - 1e-6))
def test_kl_matches_mpmath_on_unit_square(p, q):
    ref = kl_ref(p, q)
    v = kl_bernoulli(p, q)
    if ref == 0:
        assert v == 0
    else:
        assert abs(v - ref) / ref < 5e-14


def test_kl_edge_cases_and_vectorisation():
    assert kl_bernoulli(0.0, 0.5) == pytest.approx(np.log(2), rel=1e-15)
    assert kl_bernoulli(1.0, 0.5) == pytest.approx(np.log(2), rel=1e-15)
    assert kl_bernoulli(0.3, 0.3) == 0.0
    assert np.isinf(kl_bernoulli(0.3, 0.0)) and kl_bernoulli(0.0, 0.0) == 0.0
    out = kl_bernoulli(np.array([[0.1, 0.9]]), 0.5)
    assert out.shape == (1, 2) and out[0, 0] == pytest.approx(out[0, 1], rel=1e-15)
    # series 2x^2 + 4x^4/3 at x = 1e-3
    x = 1e-3
    assert kl_half(0.5 + x) == pytest.approx(2 * x**2 + 4 * x**4 / 3 + 32 * x**6 / 15, rel=1e-14)


def test_kl_symbolic_exact():
    expr = kl_symbolic(sympy.Rational(3, 5))
    expected = sympy.Rational(3, 5) * sympy.log(sympy.Rational(6, 5)) + sympy.Rational(
        2, 5) * sympy.log(sympy.Rational(4, 5))
    assert sympy.simplify(expr - expected) == 0
    assert float(expr) == pytest.approx(kl_half(0.6), rel=1e-15)
    assert kl_symbolic(1) == sympy.log(2)


def test_regret_conventions_on_cyclic_by_hand():
    M = datasets.load("cyclic")  # L = [0, 2, 2, 2], K = 4
    r = regret_matrix(M)
    assert r[0, 1] == pytest.approx(2 / 6) and r[1, 2] == pytest.approx(4 / 6)
    assert r[0, 0] == 0 and r[1, 1] == pytest.approx(2 / 3)  # r_ii = (L_i - L1)/(K-1)
    assert np.array_equal(regret_matrix(M, "zoghi"), 2 * r)
    b = regret_matrix(M, "binary")
    assert b[0, 0] == 0 and b[0, 1] == 1 and b[2, 3] == 1


@given(st.integers(2, 9), st.integers(0, 10**6))
def test_komiyama_is_zeta_star_minus_mean_zeta(K, seed):
    """[W16]'s ζ* − (ζ_i + ζ_j)/2 with ζ = normalised Copeland score equals komiyama r_ij."""
    M = generators.random_matrix(K, seed)
    z = s.copeland_scores(M, normalized=True)
    expect = z.max() - (z[:, None] + z[None, :]) / 2
    r = regret_matrix(M)
    assert np.allclose(r, expect, atol=1e-15)
    assert r.min() >= 0 and r.max() <= 1
    zero = r == 0
    for conv in ("zoghi", "binary"):
        assert np.array_equal(regret_matrix(M, conv) == 0, zero)
    lo, hi = ratio_range(M, "komiyama", "zoghi")
    assert lo == hi == 2.0


def test_conversion_factors():
    assert conversion_factor("komiyama", "zoghi") == 2.0
    assert conversion_factor("zoghi", "komiyama") == 0.5
    assert conversion_factor("binary", "binary") == 1.0
    with pytest.raises(UnknownNameError, match="depends on the matrix"):
        conversion_factor("komiyama", "binary")
    with pytest.raises(UnknownNameError, match="unknown regret convention"):
        regret_matrix(datasets.load("cyclic"), "weird")
    lo, hi = ratio_range(datasets.load("cyclic"), "komiyama", "binary")
    assert (lo, hi) == (pytest.approx(1.5), pytest.approx(3.0))


def test_exact_values_are_complementary():
    M = datasets.load("cyclic")
    E = M.exact()
    for i in range(M.K):
        assert E[i][i] == Fraction(1, 2)
        for j in range(M.K):
            assert E[i][j] + E[j][i] == 1
    assert E[0][1] == Fraction(0.6)
    assert M.sympy()[0, 1] == sympy.Rational(Fraction(0.6).numerator, Fraction(0.6).denominator)


def test_matrix_is_immutable_and_round_trips():
    M = datasets.load("unique_copeland")
    with pytest.raises(ValueError):
        M.values[0, 1] = 0.9
    again = PreferenceMatrix.from_dict(M.to_dict())
    assert again == M and again.content_hash() == M.content_hash()
    assert PreferenceMatrix(M) == M and hash(again) == hash(M)
    tied = PreferenceMatrix([[0.5, 0.5], [0.5, 0.5]], break_ties=0.01)
    back = PreferenceMatrix.from_dict(tied.to_dict())
    assert back.perturbed and back.tie_epsilon == 0.01


def test_tolerance_canonicalises_complement():
    M = PreferenceMatrix([[0.5, 0.7], [0.3 + 1e-12, 0.5]])
    assert M[1, 0] == 1 - 0.7 and M[0, 1] == 0.7


def _achievable(K: int) -> set[tuple[int, int]]:
    """(number of Copeland winners, L1) over all 2^C(K,2) tournaments on K arms."""
    from itertools import combinations, product

    pairs = list(combinations(range(K), 2))
    out = set()
    for bits in product([False, True], repeat=len(pairs)):
        L = [0] * K
        for (i, j), i_wins in zip(pairs, bits):
            L[j if i_wins else i] += 1
        out.add((L.count(min(L)), min(L)))
    return out


@pytest.mark.parametrize("K", [3, 4, 5])
def test_generator_succeeds_exactly_on_achievable_structures(K):
    from duelbound.theory import InvalidMatrixError

    possible = _achievable(K)
    for n in range(1, K + 1):
        for l1 in range(0, K):
            try:
                M = generators.random_matrix(K, n * 31 + l1, n_winners=n, l1=l1)
            except InvalidMatrixError:
                assert (n, l1) not in possible, (n, l1)
            else:
                assert (n, l1) in possible
                assert len(s.copeland_winners(M)) == n and s.L1(M) == l1


@given(st.integers(6, 14), st.integers(0, 2**32 - 1), st.data())
def test_generator_meets_requested_structure(K, seed, data):
    from duelbound.theory import InvalidMatrixError

    l1 = data.draw(st.integers(1, (K - 1) // 2), label="l1")
    n = data.draw(st.integers(1, min(K, 2 * l1 + 1)), label="n_winners")
    try:
        M = generators.random_matrix(K, seed, n_winners=n, l1=l1, gap_range=(0.1, 0.2))
    except InvalidMatrixError as exc:
        assert "Landau" in str(exc) or "K is odd" in str(exc)
        return
    assert len(s.copeland_winners(M)) == n and s.L1(M) == l1
    g = s.gaps(M)[~np.eye(K, dtype=bool)]
    assert g.min() >= 0.1 - 1e-12 and g.max() <= 0.2 + 1e-12


@given(st.integers(3, 12), st.integers(0, 2**32 - 1))
def test_generator_condorcet_flags_and_seeds(K, seed):
    a = generators.random_matrix(K, seed, condorcet=True)
    assert s.condorcet_winner(a) is not None
    b = generators.random_matrix(K, seed, condorcet=False)
    assert s.condorcet_winner(b) is None
    assert generators.random_matrix(K, seed) == generators.random_matrix(K, seed)
    c = generators.random_matrix(K, seed, near_ties=2, near_tie_gap=1e-7)
    off = ~np.eye(K, dtype=bool)
    assert (s.gaps(c)[off] < 1e-6).sum() == 4  # two pairs, both entries


def test_generator_rejects_impossible_requests():
    from duelbound.theory import InvalidMatrixError

    with pytest.raises(InvalidMatrixError, match="Lemma 7"):
        generators.random_matrix(7, 0, n_winners=5, l1=1)
    with pytest.raises(InvalidMatrixError, match="Condorcet"):
        generators.random_matrix(2, 0, condorcet=False)
    with pytest.raises(InvalidMatrixError, match="gap_range"):
        generators.random_matrix(4, 0, gap_range=(0.0, 0.2))

"""The integer and FLINT arithmetic of the certificate path (issue 31, item 6) against plain
``fractions.Fraction`` computations written out here: the grouped dual, the integer
hypersimplex split, the exact oracle on a common denominator, the ECW threshold and the
gcd-free conversions."""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_hyp
from test_ecw import matrices  # tests/ is on sys.path (rootdir conftest, no __init__)

from duelbound.solvers import certificate as cm
from duelbound.solvers.certificate_verify import (
    exact_costs,
    exact_difference,
    exact_min_lhs,
    exact_sum,
    reduced_fraction,
    to_matrix,
    unreduced_sum,
)
from duelbound.solvers.compact_dual import integer_pieces
from duelbound.solvers.cstar import solve_winner
from duelbound.solvers.enclosure import (
    CostBounds,
    _dyadic_dot,
    _dyadic_nd,
    _dyadic_text,
    _threshold,
)
from duelbound.solvers.formulations import explicit_rows
from duelbound.theory import generators
from duelbound.theory import tournament as st


def _plain_bounds(cert, c):
    """(Σ c x̂, Σ y − Σ max(0, Aᵀy − c)) by running Fraction sums over the rows."""
    g = [Fraction(0)] * len(c)
    for yr, cols in zip(cert.y, cert.rows):
        for p in cols:
            g[p] += yr
    w = [max(Fraction(0), gp - cp) for gp, cp in zip(g, c)]
    return sum((ci * xi for ci, xi in zip(c, cert.x)), Fraction(0)), sum(cert.y) - sum(w)


@pytest.mark.parametrize("mode", ["exact", "float-dual"])
@pytest.mark.parametrize("K,seed", [(9, 0), (12, 3)])
def test_grouped_dual_bounds_equal_plain_fraction_sums(K, seed, mode):
    """verify's integer-group path gives the bounds that plain Fraction sums over the very
    same rows and duals give, for the exact split and the repaired floating-point one."""
    M = generators.random_matrix(K, seed)
    i1 = int(st.copeland_winners(M)[0])
    ws = solve_winner(M, i1, "compact")
    _, _, c = cm.exact_inputs(M, ws.px)
    res = cm.certify_winner(M, ws, mode)
    cert = res.certificate
    assert cert.groups is not None  # the compact split: the grouped path was taken
    upper, lower = _plain_bounds(cert, c)
    assert (res.upper, res.lower) == (upper, lower)
    assert all(v >= 0 for v in cert.y)


@st_hyp.composite
def integer_parts(draw):
    """(parts, E): 1–2 parts (cols, P, m) with 0 ≤ P_j ≤ E integers and Σ P_j = m E."""
    E = draw(st_hyp.integers(1, 10**40))
    parts, col = [], 0
    for _ in range(draw(st_hyp.integers(1, 2))):
        n = draw(st_hyp.integers(1, 6))
        m = draw(st_hyp.integers(1, n))
        P = [draw(st_hyp.integers(0, E)) for _ in range(n)]
        for j in range(n):  # move towards Σ = m E within [0, E]
            P[j] += max(-P[j], min(E - P[j], m * E - sum(P)))
        parts.append((list(range(col, col + n)), P, m))
        col += n
    return parts, E


@settings(max_examples=80)
@given(integer_parts())
def test_integer_pieces_reproduce_every_block_point(data):
    """Weights are positive integers summing to E, each piece takes m columns of every part,
    and the weights of the pieces holding column j add up to P_j exactly."""
    parts, E = data
    pieces = integer_pieces(parts, E)
    assert all(w > 0 for w, _ in pieces) and sum(w for w, _ in pieces) == E
    for cols, P, m in parts:
        for _, chosen in pieces:
            assert len(set(chosen) & set(cols)) == m
        for col, pj in zip(cols, P):
            assert sum(w for w, chosen in pieces if col in chosen) == pj


@settings(max_examples=15, deadline=None)
@given(matrices(max_k=6), st_hyp.integers(0, 2**32 - 1))
def test_exact_min_lhs_equals_enumeration(M, seed):
    """The oracle on the common denominator equals the minimum over every explicit
    constraint of R_{i1}, summed in Fractions."""
    i1 = int(st.copeland_winners(M)[0])
    px = solve_winner(M, i1, "compact").px
    rng = np.random.default_rng(seed)
    x = [Fraction(int(rng.integers(0, 7)), int(rng.integers(1, 7))) for _ in range(len(px.pairs))]
    mu = np.ascontiguousarray(M.values)
    rows = [cols for _, cols in explicit_rows(mu, i1, px)]
    want = min((sum((x[p] for p in cols), Fraction(0)) for cols in rows), default=float("inf"))
    assert exact_min_lhs(mu, i1, to_matrix(px, x, M.K))[0] == want


@settings(max_examples=60)
@given(st_hyp.lists(st_hyp.fractions(min_value=0, max_value=50, max_denominator=2**70),
                    min_size=0, max_size=9), st_hyp.integers(1, 9))
def test_threshold_equals_brute_force(c, m):
    """[K16] Theorem 5's threshold in integers equals the minimum over every h of (sum of
    the h smallest) / (h − (n − m)), evaluated in Fractions; 0 without an m-subset."""
    n = len(c)
    if n < m:
        assert _threshold_of(c, m) == 0
        return
    s = sorted(c)
    want = min(sum(s[:h], Fraction(0)) / (h - (n - m)) for h in range(n - m + 1, n + 1))
    assert _threshold_of(c, m) == want


def _threshold_of(c: list[Fraction], m: int) -> Fraction:
    """The threshold of Fractions: their numerators on the lcm of the denominators."""
    den = math.lcm(*(v.denominator for v in c))
    return _threshold([v.numerator * (den // v.denominator) for v in c], den, m)


@settings(max_examples=60)
@given(st_hyp.fractions(max_denominator=10**30), st_hyp.fractions(max_denominator=10**30),
       st_hyp.lists(st_hyp.fractions(max_denominator=2**64), max_size=12))
def test_flint_conversions_equal_fraction_arithmetic(a, b, terms):
    """No second gcd, same numbers: reduced_fraction, exact_difference, exact_sum and
    unreduced_sum (fed unreduced terms) against Fraction arithmetic (Fraction equality
    compares numerator and denominator, so an unreduced result would fail)."""
    assert exact_difference(a, b) == a - b
    assert exact_sum(terms) == sum(terms, Fraction(0))
    n, d = unreduced_sum((v.numerator * 3, v.denominator * 3) for v in terms)  # unreduced in
    assert Fraction(int(n), int(d)) == sum(terms, Fraction(0)) and d > 0
    q = flint.fmpq(a.numerator, a.denominator)
    r = reduced_fraction(q)
    assert (r.numerator, r.denominator) == (a.numerator, a.denominator)
    assert hash(r) == hash(a)


def test_threshold_hand_example():
    """c = (3, 1, 2) with every 2-subset of e summing to ≥ 1: e = (0, 1, 1) costs 3, and
    no e costs less, as 3e₀ + e₁ + 2e₂ = (e₀ + e₁) + 2(e₀ + e₂) ≥ 3; the rule gives
    min((1 + 2)/1, (1 + 2 + 3)/2) = 3.  One 1-subset rule: every e_j ≥ 1, cost Σ c."""
    assert _threshold_of([Fraction(3), Fraction(1), Fraction(2)], 2) == 3
    assert _threshold_of([Fraction(1, 3), Fraction(1, 5)], 1) == Fraction(8, 15)


@settings(max_examples=80)
@given(st_hyp.integers(1, 2**400), st_hyp.integers(1, 2**400), st_hyp.integers(1, 3),
       st_hyp.booleans(), st_hyp.integers(1, 2**80))
def test_dyadic_rounding_is_directed_reduced_and_representation_free(n, d, scale, up, f):
    """Rounded down (up) to a dyadic with ≥ bits significant bits, in lowest terms (Fraction
    equality would fail otherwise), and ≥ bits − 1 bits accurate whatever factor the fraction
    is given with."""
    bits = 40 * scale
    q = Fraction(n, d)
    for num, den in ((n, d), (n * f, d * f)):
        r = _dyadic_nd(num, den, bits, up)
        assert r.denominator & (r.denominator - 1) == 0
        assert (r >= q) if up else (r <= q)
        assert abs(r - q) <= q / 2 ** (bits - 1)
        assert r == Fraction(r.numerator, r.denominator)  # Fraction(…) reduces


# (k, s) in lowest terms: k odd, or s = 0
_dyadics = st_hyp.one_of(
    st_hyp.tuples(st_hyp.integers(0, 2**129).map(lambda v: 2 * v + 1), st_hyp.integers(0, 140)),
    st_hyp.tuples(st_hyp.integers(0, 2**130), st_hyp.just(0)))


@settings(max_examples=80)
@given(st_hyp.lists(st_hyp.tuples(_dyadics, st_hyp.fractions(max_denominator=10**6)),
                    max_size=20))
def test_dyadic_pairs_read_as_the_fractions_they_name(terms):
    """The enclosure's integer dyadics (k, s) = k / 2^s: the document text is the Fraction's
    own ``str``, and Σ (k / 2^s) x is the plain Fraction sum (no gcd on the way, same
    number: Fraction equality compares lowest terms)."""
    for (k, s), _ in terms:
        assert _dyadic_text((k, s)) == str(Fraction(k, 2**s))
    want = sum((Fraction(k, 2**s) * x for (k, s), x in terms), Fraction(0))
    assert _dyadic_dot(terms) == want


@pytest.mark.parametrize("p", [Fraction(3, 5), Fraction(9, 10), Fraction(1, 1000),
                               Fraction(999_999, 1_000_000), Fraction(2**52 + 1, 2**53),
                               Fraction(1), Fraction(0)])
def test_cost_bounds_enclose_r_over_d_at_200_digits(p):
    """c⁻ ≤ r / d(p, ½) ≤ c⁺ and d⁻ ≤ d(p, ½) ≤ d⁺ with d evaluated by mpmath at 200 digits
    (an independent evaluation: mpmath's log, not FLINT's balls), the bounds within 2^-96
    relative; a pair of two winners (r = 0) costs exactly 0 and needs no table entry."""
    import mpmath

    mu = [[Fraction(1, 2), p, Fraction(1, 4)], [1 - p, Fraction(1, 2), Fraction(1, 4)],
          [Fraction(3, 4), Fraction(3, 4), Fraction(1, 2)]]
    L = [sum(1 for v in row if v < Fraction(1, 2)) for row in mu]
    costs = CostBounds(mu, L)
    with mpmath.workdps(200):
        q = mpmath.mpf(p.numerator) / p.denominator
        d = sum((v * mpmath.log(2 * v) for v in (q, 1 - q) if v), mpmath.mpf(0))
        for (a, b) in ((0, 1), (0, 2)):
            num = L[a] + L[b] - 2 * min(L)
            (kl, sl), (kh, sh) = costs.bounds(a, b)
            da = d if (a, b) == (0, 1) else _kl_at(mpmath, Fraction(1, 4))
            c = mpmath.mpf(num) / (2 * (len(mu) - 1)) / da
            lo, hi = mpmath.mpf(kl) / 2**sl, mpmath.mpf(kh) / 2**sh
            assert lo <= c <= hi and hi - lo <= c * mpmath.mpf(2) ** -96
            (dkl, dsl), (dkh, dsh) = costs.table[a, b][:2]
            assert mpmath.mpf(dkl) / 2**dsl <= da <= mpmath.mpf(dkh) / 2**dsh
    two_winners = CostBounds(mu, [0, 0, 1])
    assert two_winners.bounds(1, 0) == ((0, 0), (0, 0)) and not two_winners.table


def _kl_at(mpmath, p: Fraction):
    q = mpmath.mpf(p.numerator) / p.denominator
    return q * mpmath.log(2 * q) + (1 - q) * mpmath.log(2 * (1 - q))


@pytest.mark.parametrize("K,seed", [(7, 2), (16, 0)])
def test_exact_costs_are_the_regret_over_the_float_divergence(K, seed):
    """c_p = r_p / d_p with r_p = (L_a + L_b − 2 L1) / (2 (K − 1)) counted from the matrix
    and d_p the float d(µ_ab, ½) of the LP read exactly, in plain Fraction arithmetic;
    exact_inputs' three lists agree with it."""
    M = generators.random_matrix(K, seed)
    px = solve_winner(M, int(st.copeland_winners(M)[0]), "compact").px
    V = M.values
    L = [sum(1 for j in range(K) if V[i, j] < 0.5) for i in range(K)]
    want_r = [Fraction(L[a] + L[b] - 2 * min(L), 2 * (K - 1)) for a, b in px.pairs.tolist()]
    want_d = [Fraction(float(v)) for v in px.d]
    want_c = [r / d for r, d in zip(want_r, want_d)]
    assert any(want_c) and exact_costs(M, px) == want_c
    assert cm.exact_inputs(M, px) == (want_d, want_r, want_c)

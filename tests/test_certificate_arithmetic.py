"""The integer and FLINT arithmetic of the certificate path (issue 31, item 6) against plain
``fractions.Fraction`` computations written out here: the grouped dual, the integer
hypersimplex split, the exact oracle on a common denominator, the ECW threshold and the
gcd-free conversions."""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_hyp
from test_ecw import matrices  # tests/ is on sys.path (rootdir conftest, no __init__)

from duelbound.solvers import certificate as cm
from duelbound.solvers.certificate_verify import (
    exact_difference,
    exact_min_lhs,
    exact_sum,
    reduced_fraction,
    to_matrix,
)
from duelbound.solvers.compact_dual import integer_pieces
from duelbound.solvers.cstar import solve_winner
from duelbound.solvers.enclosure import _dyadic_nd, _threshold
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
        assert _threshold(c, m) == 0
        return
    s = sorted(c)
    want = min(sum(s[:h], Fraction(0)) / (h - (n - m)) for h in range(n - m + 1, n + 1))
    assert _threshold(c, m) == want


@settings(max_examples=60)
@given(st_hyp.fractions(max_denominator=10**30), st_hyp.fractions(max_denominator=10**30),
       st_hyp.lists(st_hyp.fractions(max_denominator=2**64), max_size=12))
def test_flint_conversions_equal_fraction_arithmetic(a, b, terms):
    """No second gcd, same numbers: reduced_fraction, exact_difference and exact_sum against
    Fraction arithmetic (Fraction equality compares numerator and denominator, so an
    unreduced result would fail)."""
    assert exact_difference(a, b) == a - b
    assert exact_sum(terms) == sum(terms, Fraction(0))
    q = flint.fmpq(a.numerator, a.denominator)
    r = reduced_fraction(q)
    assert (r.numerator, r.denominator) == (a.numerator, a.denominator)
    assert hash(r) == hash(a)


def test_threshold_hand_example():
    """c = (3, 1, 2) with every 2-subset of e summing to ≥ 1: e = (0, 1, 1) costs 3, and
    no e costs less, as 3e₀ + e₁ + 2e₂ = (e₀ + e₁) + 2(e₀ + e₂) ≥ 3; the rule gives
    min((1 + 2)/1, (1 + 2 + 3)/2) = 3.  One 1-subset rule: every e_j ≥ 1, cost Σ c."""
    assert _threshold([Fraction(3), Fraction(1), Fraction(2)], 2) == 3
    assert _threshold([Fraction(1, 3), Fraction(1, 5)], 1) == Fraction(8, 15)


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

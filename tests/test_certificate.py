"""The exact certificate verifier must accept true certificates and reject wrong ones."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_hyp
from test_ecw import matrices  # tests/ is on sys.path (rootdir conftest, no __init__)

from duelbound.solvers import certificate as cm
from duelbound.solvers.lower_bound import lower_bound, solve_winner
from duelbound.theory import examples, generators
from duelbound.theory import structure as st


def _exact(M, i1):
    ws = solve_winner(M, i1)
    _, _, c = cm.exact_inputs(M, ws.px)
    res = cm.certify_winner(M, ws)
    assert res["status"] == "exact"
    return ws, c, res["certificate"]


@pytest.mark.parametrize("name", ["cyclic", "unique_copeland", "arithmetic"])
def test_true_certificate_verifies(name):
    M = examples.load(name)
    i1 = st.copeland_winners(M)[0]
    ws, c, cert = _exact(M, i1)
    out = cm.verify(M, i1, ws.px, cert, c)
    assert out["status"] == "exact" and out["lower"] == out["upper"]


def test_perturbed_primal_fails():
    M = examples.load("cyclic")
    ws, c, cert = _exact(M, 0)
    k = next(p for p, v in enumerate(cert.x) if 0 < v)
    bad = cm.Certificate(cert.x, cert.y, cert.w, cert.rows)
    bad.x[k] -= Fraction(1, 10**6)  # now some constraint sums to < 1
    out = cm.verify(M, 0, ws.px, bad, c)
    assert out["status"] != "exact" and not out["checks"]["primal_feasible"]


def test_perturbed_dual_fails():
    M = examples.load("cyclic")
    ws, c, cert = _exact(M, 0)
    k = next(r for r, v in enumerate(cert.y) if v > 0)
    up = cm.Certificate(cert.x, cert.y, cert.w, cert.rows)
    up.y[k] += Fraction(1, 10**6)  # violates A^T y - w <= c
    assert not cm.verify(M, 0, ws.px, up, c)["checks"]["dual_feasible"]
    down = cm.Certificate(cert.x, cert.y, cert.w, cert.rows)
    down.y[k] -= Fraction(1, 10**6)  # feasible but the objectives differ
    out = cm.verify(M, 0, ws.px, down, c)
    assert out["status"] == "interval" and not out["checks"]["objectives_equal"]


def test_dual_on_a_non_constraint_row_fails():
    M = examples.load("cyclic")
    ws, c, cert = _exact(M, 0)
    rows = [list(r) for r in cert.rows]
    rows[0] = rows[0][:1]  # a single pair is not a constraint of R_{i1} here
    out = cm.verify(M, 0, ws.px, cm.Certificate(cert.x, cert.y, cert.w, rows), c)
    assert not out["checks"]["dual_feasible"]


def test_interval_fallback_brackets_the_value(monkeypatch):
    M = generators.random_matrix(8, 11)
    exact = lower_bound(M, certify=True)
    assert exact.certificate["status"] == "exact"
    monkeypatch.setattr(cm, "_basis_certificate", lambda *a, **k: None)
    res = lower_bound(M, certify=True)
    cert = res.certificate
    assert cert["status"] == "interval"
    assert cert["lower_float"] <= exact.value <= cert["upper_float"]
    assert cert["upper_float"] - cert["lower_float"] <= 1e-6 * exact.value


@st_hyp.composite
def hypersimplex_parts(draw):
    """1–2 parts (cols, p, m) with 0 ≤ p_j ≤ 1 rational and Σ p_j = m."""
    parts, col = [], 0
    for _ in range(draw(st_hyp.integers(1, 2))):
        n = draw(st_hyp.integers(1, 7))
        m = draw(st_hyp.integers(1, n))
        raw = [Fraction(draw(st_hyp.integers(0, 12)), 12) for _ in range(n)]
        total = sum(raw)
        # scale towards Σ = m while staying in [0, 1]: fill the deficit greedily
        p = [min(Fraction(1), v * m / total) if total else Fraction(0) for v in raw]
        for j in range(n):
            p[j] += min(1 - p[j], m - sum(p))
        parts.append((list(range(col, col + n)), p, m))
        col += n
    return parts


@settings(max_examples=60)
@given(hypersimplex_parts())
def test_hypersimplex_decomposition_is_exact(parts):
    """The compact dual is split with this: weights sum to 1, every piece takes exactly m
    columns of each part, and the weighted pieces add up to p exactly."""
    pieces = cm._hypersimplex_pieces(parts)
    assert pieces and all(w > 0 for w, _ in pieces)
    assert sum(w for w, _ in pieces) == 1
    for cols, p, m in parts:
        for w, chosen in pieces:
            if w:
                assert len(set(chosen) & set(cols)) == m
        for col, pj in zip(cols, p):
            assert sum(w for w, chosen in pieces if col in chosen) == pj


@settings(max_examples=10)
@given(matrices(max_k=6))
def test_exact_value_is_the_same_rational_for_every_formulation(M):
    """Certificates from four different LPs (compact blocks, family generation, explicit
    rows by row generation and by enumeration) must prove the very same rational C*."""
    vals = {}
    for m in ("families", "compact", "rowgen", "enumerate"):
        for i1 in st.copeland_winners(M):
            res = cm.certify_winner(M, solve_winner(M, i1, m))
            assert res["status"] == "exact", (m, res["checks"])
            vals.setdefault(i1, set()).add(res["value"])
    assert all(len(v) == 1 for v in vals.values())


def test_cbc_backend_family_generation_agrees():
    """The CBC path builds the PuLP model (columns and rows grown between rounds)."""
    M = generators.random_matrix(9, 4)
    a = lower_bound(M, certify=False, backend="PULP_CBC_CMD")
    b = lower_bound(M, certify=True)
    assert b.certificate["status"] == "exact"
    assert a.value == pytest.approx(b.value, rel=1e-7)

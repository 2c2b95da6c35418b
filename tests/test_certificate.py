"""The exact certificate verifier must accept true certificates and reject wrong ones."""

from __future__ import annotations

from fractions import Fraction

import pytest

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

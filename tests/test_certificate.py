"""The exact certificate verifier must accept true certificates and reject wrong ones."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_hyp
from test_ecw import matrices  # tests/ is on sys.path (rootdir conftest, no __init__)

from duelbound.solvers import certificate as cm
from duelbound.solvers.certificate_verify import column_sums
from duelbound.solvers.compact_dual import hypersimplex_pieces
from duelbound.solvers.cstar import lower_bound, solve_winner
from duelbound.theory import datasets, generators
from duelbound.theory import tournament as st


def _exact(M, i1):
    ws = solve_winner(M, i1)
    _, _, c = cm.exact_inputs(M, ws.px)
    res = cm.certify_winner(M, ws)
    assert res.status == "exact"
    return ws, c, res.certificate


@pytest.mark.parametrize("name", ["cyclic", "unique_copeland", "arithmetic"])
def test_true_certificate_verifies(name):
    M = datasets.load(name)
    i1 = st.copeland_winners(M)[0]
    ws, c, cert = _exact(M, i1)
    out = cm.verify(M, i1, ws.px, cert, c)
    assert out["status"] == "exact" and out["lower"] == out["upper"]


def test_perturbed_primal_fails():
    M = datasets.load("cyclic")
    ws, c, cert = _exact(M, 0)
    k = next(p for p, v in enumerate(cert.x) if 0 < v)
    bad = cm.Certificate(cert.x, cert.y, cert.w, cert.rows)
    bad.x[k] -= Fraction(1, 10**6)  # now some constraint sums to < 1
    out = cm.verify(M, 0, ws.px, bad, c)
    assert out["status"] != "exact" and not out["checks"]["primal_feasible"]


def test_perturbed_dual_fails():
    M = datasets.load("cyclic")
    ws, c, cert = _exact(M, 0)
    k = next(r for r, v in enumerate(cert.y) if v > 0)
    g = column_sums(cert.y, cert.rows, len(c))
    w = [max(Fraction(0), gp - cp) for gp, cp in zip(g, c)]  # the multipliers, stated
    up = cm.Certificate(cert.x, cert.y, w, cert.rows)
    up.y[k] += Fraction(1, 10**6)  # violates A^T y - w <= c for the stated w
    assert not cm.verify(M, 0, ws.px, up, c)["checks"]["dual_feasible"]
    derived = cm.Certificate(cert.x, cert.y, None, cert.rows)
    derived.y[k] += Fraction(1, 10**6)  # w derived: feasible, but the bound drops
    out = cm.verify(M, 0, ws.px, derived, c)
    assert out["status"] == "enclosed" and out["lower"] < out["upper"]
    down = cm.Certificate(cert.x, cert.y, w, cert.rows)
    down.y[k] -= Fraction(1, 10**6)  # feasible but the objectives differ
    out = cm.verify(M, 0, ws.px, down, c)
    assert out["status"] == "enclosed" and not out["checks"]["objectives_equal"]


def test_dual_on_a_non_constraint_row_fails():
    M = datasets.load("cyclic")
    ws, c, cert = _exact(M, 0)
    rows = [list(r) for r in cert.rows]
    rows[0] = rows[0][:1]  # a single pair is not a constraint of R_{i1} here
    out = cm.verify(M, 0, ws.px, cm.Certificate(cert.x, cert.y, cert.w, rows), c)
    assert not out["checks"]["dual_feasible"]


def test_float_dual_fallback_brackets_the_value(monkeypatch):
    M = generators.random_matrix(8, 11)
    exact = lower_bound(M, certify=True)
    assert exact.certificate["status"] == "exact"
    monkeypatch.setattr(cm, "_basis_certificate", lambda *a, **k: None)
    monkeypatch.setattr(cm, "_exact_simplex_certificate", lambda *a, **k: None)
    res = lower_bound(M, certify=True)
    cert = res.certificate
    assert cert["status"] == "enclosed"
    routes = {v["route"] for v in cert["per_winner"].values()}  # others: float-dual first
    assert "float-dual-fallback" in routes
    assert routes <= {"float-dual", "float-dual-fallback"}
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
    pieces = hypersimplex_pieces(parts)
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
            assert res.status == "exact", (m, res.checks)
            vals.setdefault(i1, set()).add(res.value)
    assert all(len(v) == 1 for v in vals.values())


def test_cbc_backend_family_generation_agrees():
    """The CBC path builds the PuLP model (columns and rows grown between rounds)."""
    M = generators.random_matrix(9, 4)
    a = lower_bound(M, certify=False, backend="PULP_CBC_CMD")
    b = lower_bound(M, certify=True)
    assert b.certificate["status"] == "exact"
    assert a.value == pytest.approx(b.value, rel=1e-7)


@settings(max_examples=15)
@given(matrices(max_k=7))
def test_float_dual_route_brackets_the_exact_value(M):
    """The floating-point certificate (duals read as dyadic rationals, split and verified
    exactly) must bracket the exact C*_{i1} with a tiny width, for every formulation."""
    for m in ("families", "rowgen"):
        for i1 in st.copeland_winners(M):
            ws = solve_winner(M, i1, m)
            exact = cm.certify_winner(M, ws, "exact")
            fl = cm.certify_winner(M, ws, "float-dual")
            assert exact.status == "exact" and exact.value is not None
            assert fl.status in ("exact", "enclosed"), fl.checks
            if fl.route == "float-dual":
                assert fl.lower <= exact.value <= fl.upper
                assert fl.upper - fl.lower <= 1e-9 * max(1, exact.value)


def test_certify_modes_of_lower_bound():
    M = generators.random_matrix(12, 3, gap_range=(0.005, 0.45))
    exact = lower_bound(M, certify=True)
    iv = lower_bound(M, certify="float-dual").certificate
    with pytest.warns(DeprecationWarning, match="renamed 'float-dual'"):
        old = lower_bound(M, certify="interval").certificate  # the deprecated spelling
    assert old["lower_float"] == iv["lower_float"] and old["upper_float"] == iv["upper_float"]
    assert exact.certificate["status"] == "exact"
    assert iv["status"] == "enclosed" and 0 <= iv["width"] <= 1e-9 * iv["upper_float"]
    tol = 1e-12 * exact.value  # the floats of exact rationals
    assert iv["lower_float"] - tol <= exact.value <= iv["upper_float"] + tol
    assert {v["route"] for v in iv["per_winner"].values()} == {"float-dual"}
    assert lower_bound(M, certify="exact").certificate["status"] == "exact"
    with pytest.raises(Exception, match="certificate mode 'bogus'"):
        lower_bound(M, certify="bogus")
    from duelbound.theory.errors import DuelboundError

    with pytest.raises(DuelboundError, match="certificate mode 'bogus'"):
        cm.certify_winner(M, solve_winner(M, st.copeland_winners(M)[0]), "bogus")


def test_bare_certify_uses_the_float_dual_route_above_the_exact_limit(monkeypatch):
    """certify=True is "auto": exact up to EXACT_MAX_K, the verified floating-point
    certificate above (the limit is lowered here so that a small K exercises it)."""
    monkeypatch.setattr(cm, "EXACT_MAX_K", 8)
    M = generators.random_matrix(10, 0, gap_range=(0.005, 0.45))
    res = lower_bound(M, certify=True)
    cert = res.certificate
    assert cert["status"] == "enclosed", cert
    assert cert["lower_float"] <= res.value * (1 + 1e-12)
    assert res.value <= cert["upper_float"] * (1 + 1e-12)
    exact = lower_bound(M, certify="exact")
    assert cert["lower_float"] <= exact.value * (1 + 1e-12)
    assert exact.value <= cert["upper_float"] * (1 + 1e-12)


def test_default_certifies_exactly_up_to_the_limit():
    from duelbound.solvers.cstar import CERTIFY_MAX_K

    assert CERTIFY_MAX_K == cm.EXACT_MAX_K  # the default is exact wherever it is on
    M = generators.random_matrix(12, 1, gap_range=(0.005, 0.45))
    assert lower_bound(M).certificate["status"] == "exact"


_fracs = st_hyp.fractions(min_value=0, max_value=10, max_denominator=10**30)


@settings(max_examples=60)
@given(st_hyp.lists(st_hyp.tuples(_fracs, st_hyp.lists(st_hyp.integers(0, 5), min_size=1,
                                                       max_size=4, unique=True)),
                    max_size=12),
       st_hyp.booleans())
def test_column_sums_equal_plain_fraction_sums(rows, dyadic):
    """Aᵀy by the grouped, unreduced-fraction sums (or the dyadic integer path) must
    equal the plain Fraction sums, column by column."""
    if dyadic:
        rows = [(Fraction(float(v)), cols) for v, cols in rows]
    y = [v for v, _ in rows]
    cols = [c for _, c in rows]
    want = [sum((v for v, cs in rows if p in cs), Fraction(0)) for p in range(6)]
    assert column_sums(y, cols, 6) == want


def test_several_winners_only_the_minimum_needs_the_exact_route():
    """C* = min_{i1} C*_{i1}: the argmin winner certified exactly, the others by a verified
    lower bound above it; the overall value is exact and equals the all-exact one."""
    M = datasets.load("multi_winner")
    auto = lower_bound(M, certify=True)
    every = lower_bound(M, certify="exact")
    cert = auto.certificate
    assert cert["status"] == "exact" and every.certificate["status"] == "exact"
    assert auto.value == every.value
    low = {i: v for i, v in cert["per_winner"].items() if v["status"] == "enclosed"}
    assert low, "the non-minimal winners should take the cheap route"
    assert all(v["lower_float"] > auto.value for v in low.values())
    assert all(v["status"] == "exact" for v in every.certificate["per_winner"].values())


# The float-dual mode's contract is "exact or enclosed": when the floating-point duals
# happen to prove the value exactly (solver-version dependent), "exact for the float-rounded
# LP" is the right label, so either is accepted; the exact modes must say exact.  Every mode
# leads with the certified enclosure of the matrix as written (issue 24).
@pytest.mark.parametrize("mode, says", [
    ("float-dual", ("certified within [", "exact for the float-rounded LP")),
    ("interval", ("certified within [", "exact for the float-rounded LP")),
    ("exact", ("exact for the float-rounded LP",)), (None, ("exact for the float-rounded LP",))])
def test_cli_certify_modes(capsys, mode, says):
    from duelbound.cli import main

    argv = ["bounds", "--example", "unique_copeland"] + (
        ["--certify-mode", mode] if mode else ["--certify"])
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert any(s in out for s in says), out
    assert "certified enclosure of the true C* of the matrix as written" in out
    assert "not certified" not in out


def test_cli_certify_refuses_an_unknown_mode(capsys):
    from duelbound.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["bounds", "--example", "cyclic", "--certify-mode", "fast"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--certify-mode" in err and len(err.strip().splitlines()) == 1


def test_cli_labels_the_winners_certified_by_a_lower_bound_only(capsys):
    """The text output says which C*_{i1} are brackets (not the minimum) next to C* exact."""
    from duelbound.cli import main

    assert main(["bounds", "--example", "multi_winner"]) == 0
    out = capsys.readouterr().out
    notes = [ln for ln in out.splitlines() if "certified within" in ln]
    assert len(notes) == 2 and all("not the minimum" in ln for ln in notes)
    assert "C*_2 certified within" not in out  # winner 2 is the minimum, certified exactly
    assert "certificate: exact for the float-rounded LP" in out


def test_exact_simplex_route_certifies_when_no_basis_is_available(monkeypatch):
    """Without any float basis the exact simplex (small LPs) still proves C* exactly."""
    M = generators.random_matrix(8, 11)
    want = lower_bound(M, certify=True).certificate["lower_float"]
    monkeypatch.setattr(cm, "_basis_certificate", lambda *a, **k: None)
    res = lower_bound(M, certify=True)
    routes = {v["route"] for v in res.certificate["per_winner"].values()}
    assert res.certificate["status"] == "exact" and "exact-simplex" in routes
    assert res.certificate["lower_float"] == want


def test_the_split_module_still_gives_every_public_name():
    """solvers/certificate.py was split into rooms (issue 33): the names its ``__all__`` and
    constants gave before the split (listed by hand) are still importable from it.
    ``Certification`` (added the same day, issue 30) became :class:`LowerBoundProof`;
    INTERVAL_MAX_REL_WIDTH is the old name of ENCLOSED_MAX_REL_WIDTH, kept outside
    ``__all__``."""
    before = ["exact_inputs", "exact_min_lhs", "Certificate", "ConstraintCheck", "verify",
              "certify_winner", "certify_lower_bound", "certify_mode", "MODES",
              "symbolic_value", "MAX_DENOMINATOR", "EXACT_MAX_K", "INTERVAL_MAX_REL_WIDTH",
              "INITIAL_TIE_ROWS", "TIE_ROWS"]
    assert [n for n in before if not hasattr(cm, n)] == []
    assert set(before) - {"INITIAL_TIE_ROWS", "TIE_ROWS", "INTERVAL_MAX_REL_WIDTH"} <= set(
        cm.__all__)
    assert cm.INTERVAL_MAX_REL_WIDTH == cm.ENCLOSED_MAX_REL_WIDTH == 1e-9

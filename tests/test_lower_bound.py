"""C* of [K16] Theorem 2 (docs/math.md §5): paper values, three formulations, an independent LP."""

from __future__ import annotations

import json
from itertools import combinations

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from scipy.optimize import linprog
from test_ecw import matrices  # tests/ is on sys.path (rootdir conftest, no __init__)

from duelbound.cli import main
from duelbound.solvers import in_region, lower_bound
from duelbound.theory import PreferenceMatrix, datasets, generators
from duelbound.theory import tournament as st
from duelbound.theory.errors import DuelboundError, SolverError, TieError
from duelbound.theory.regret import regret_matrix


def _d_half(p: str) -> mpmath.mpf:
    p = mpmath.mpf(p)
    return p * mpmath.log(2 * p) + (1 - p) * mpmath.log(2 * (1 - p))


CYCLIC_CSTAR = 1 / (2 * _d_half("0.6")) + 1 / _d_half("0.9")  # [K16] App. C


def scipy_cstar(M, i1):
    """C*_{i1} by scipy's HiGHS over every constraint of docs/math.md §5 (in q)."""
    K = M.K
    L = st.losses(M)
    L1, L2 = int(np.sort(L)[0]), int(np.sort(L)[1])
    d, r = st.divergences(M), regret_matrix(M)
    pairs = [(a, b) for a in range(K) for b in range(a + 1, K)]
    col = {p: k for k, p in enumerate(pairs)}
    rows = []
    for i2 in range(K):
        if i2 == i1:
            continue
        for l in range(max(0, L1 - 1), L2 + 1):
            for I in combinations(st.inferiors(M, i1), l + 1 - L1):
                pool = [j for j in st.superiors(M, i2) if j != i1]
                for S in combinations(pool, max(0, int(L[i2]) - l - (i2 in I))):
                    row = np.zeros(len(pairs))
                    for a, b in [(i1, j) for j in I] + [(i2, j) for j in S]:
                        p = (min(a, b), max(a, b))
                        row[col[p]] -= d[p]
                    rows.append(row)
    c = [r[p] for p in pairs]
    bounds = [(0, 1 / d[p]) for p in pairs]
    res = linprog(c, A_ub=np.array(rows), b_ub=-np.ones(len(rows)), bounds=bounds,
                  method="highs")
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("method", ["compact", "rowgen", "enumerate"])
def test_cyclic_paper_value(method):
    res = lower_bound(datasets.load("cyclic"), method=method, certify=True)
    assert res.value == pytest.approx(float(CYCLIC_CSTAR), rel=1e-9)
    assert res.certificate["status"] == "exact"
    q = res.allocation  # [K16] App. C: N_1j = log T / (2 d(0.6)), N_23 = log T /(2 d(0.9))
    assert q[0, 1] == pytest.approx(float(1 / (2 * _d_half("0.6"))), rel=1e-9)
    assert q[1, 2] == pytest.approx(float(1 / (2 * _d_half("0.9"))), rel=1e-9)


def test_cyclic_symbolic_form_simplifies_to_paper_expression():
    res = lower_bound(datasets.load("cyclic"), symbolic=True)
    dp = lambda p: p * sympy.log(2 * p) + (1 - p) * sympy.log(2 * (1 - p))  # noqa: E731
    expected = 1 / (2 * dp(sympy.Rational(3, 5))) + 1 / dp(sympy.Rational(9, 10))
    assert sympy.simplify(sympy.expand_log(res.symbolic - expected, force=True)) == 0
    assert float(res.symbolic) == pytest.approx(float(CYCLIC_CSTAR), rel=1e-12)


@settings(max_examples=25)
@given(matrices(max_k=6))
def test_three_formulations_and_independent_lp_agree(M):
    vals = {m: lower_bound(M, method=m, certify=False)
            for m in ("compact", "rowgen", "families", "enumerate")}
    for i1 in st.copeland_winners(M):
        ref = scipy_cstar(M, i1)
        for m, res in vals.items():
            assert res.per_winner[i1] == pytest.approx(ref, rel=1e-7, abs=1e-9), m


@settings(max_examples=15)
@given(matrices(max_k=6))
def test_allocation_is_feasible_and_zero_on_unused_pairs(M):
    res = lower_bound(M, certify=False)
    d = st.divergences(M)
    for i1, q in res.allocations.items():
        assert np.allclose(q, q.T)
        assert in_region(M, i1, q * d, kind="cw", tol=1e-7)
        for j in st.superiors(M, i1):
            assert q[i1, j] == 0.0  # pairs (j, i1), j ∈ S_{i1}: in no constraint
        for c in res.tight[i1]:  # reported tight records really are tight
            assert sum(q[a, b] * d[a, b] for a, b in c.pairs()) == pytest.approx(1, abs=1e-6)


def test_several_winners_value_from_equal_ecw():
    """multi_winner has C = 3: [K16] (9) gives C*_{i1} = C^E*_{i1} (threshold, no LP)."""
    from duelbound.solvers import ecw_bound

    M = datasets.load("multi_winner")
    res, e = lower_bound(M), ecw_bound(M)
    for i1 in st.copeland_winners(M):
        assert res.per_winner[i1] == pytest.approx(e.per_winner[i1], rel=1e-9)
    assert res.certificate["status"] == "exact"


def test_enumerate_refuses_large_and_states_count():
    M = generators.random_matrix(24, 1)
    with pytest.raises(DuelboundError, match=r"would need \d+ constraints"):
        lower_bound(M, method="enumerate", certify=False)


def test_ties_are_an_error():
    with pytest.raises(TieError):
        lower_bound(PreferenceMatrix([[0.5, 0.5, 0.7], [0.5, 0.5, 0.6], [0.3, 0.4, 0.5]]))


def test_no_solver_is_a_clear_error(monkeypatch):
    import pulp

    monkeypatch.setattr(pulp, "listSolvers", lambda onlyAvailable=False: [])
    with pytest.raises(SolverError, match="no LP solver"):
        lower_bound(datasets.load("cyclic"))


def _break_highs(monkeypatch):
    import highspy

    monkeypatch.setattr(highspy.Highs, "getModelStatus",
                        lambda self: highspy.HighsModelStatus.kNotset)


def test_highs_failure_falls_back_to_cbc(monkeypatch):
    _break_highs(monkeypatch)
    res = lower_bound(datasets.load("cyclic"), certify=False)
    assert res.value == pytest.approx(float(CYCLIC_CSTAR), rel=1e-7)
    stats = res.stats["per_winner"]["0"]
    assert stats["backend"] == "pulp+CBC" and "HiGHS failed" in stats["note"]


def test_non_optimal_status_of_both_solvers_is_an_error(monkeypatch):
    import pulp

    _break_highs(monkeypatch)

    def cbc_fails(self, lp, callback=None):
        raise pulp.PulpSolverError("injected CBC failure")

    monkeypatch.setattr(pulp.PULP_CBC_CMD, "actualSolve", cbc_fails)
    with pytest.raises(SolverError, match="CBC fallback failed too"):
        lower_bound(datasets.load("cyclic"), certify=False)


def test_cli_json_and_errors(capsys, tmp_path):
    assert main(["bounds", "--example", "cyclic", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lower_bound"]["value"] == pytest.approx(float(CYCLIC_CSTAR), rel=1e-9)
    assert out["lower_bound"]["certificate"]["status"] == "exact"
    assert out["ecw"]["value"] == pytest.approx(float(1 / _d_half("0.6")), rel=1e-9)
    f = tmp_path / "tie.txt"
    f.write_text("0.5 0.5\n0.5 0.5\n")
    assert main(["bounds", str(f)]) == 2
    err = capsys.readouterr().err
    assert "ties" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("gap", [1e-12, "ulp"])
def test_tiny_gaps_are_solved_and_certified(gap, capsys, tmp_path):
    """Costs r/d(µ, ½) ~ 1/(2 gap²) pass HiGHS's 1e20 'infinite cost' at gap 1e-12 (and
    reach ~1e31 one ulp from ½): the solver gets conditioned costs, the certificate the
    exact ones.  With three Copeland winners [K16] (9) gives C*_{i1} = C^E*_{i1}, an
    independent reference (sorted threshold, no LP)."""
    from duelbound.solvers import ecw_bound

    M0 = generators.random_matrix(8, 3)
    V = M0.values.copy()
    up = V[0, 1] > 0.5
    V[0, 1] = (0.5 + 1e-12 if up else 0.5 - 1e-12) if gap != "ulp" else \
        np.nextafter(0.5, 1.0 if up else 0.0)
    V[1, 0] = 1.0 - V[0, 1]
    M = PreferenceMatrix(V)
    assert len(st.copeland_winners(M)) == 3
    res, e = lower_bound(M, certify=True), ecw_bound(M)
    assert res.certificate["status"] == "exact"
    for i1 in st.copeland_winners(M):
        assert res.per_winner[i1] == pytest.approx(e.per_winner[i1], rel=1e-9)
    assert max(res.per_winner.values()) > 1e20
    f = tmp_path / "tiny.json"
    f.write_text(json.dumps(M.values.tolist()))
    assert main(["bounds", str(f)]) == 0
    out = capsys.readouterr().out
    assert "driven by pair (0,1)" in out and "exact for the float-rounded LP" in out


@pytest.mark.parametrize("K,C,seed", [(7, 2, 0), (9, 3, 1), (12, 2, 2), (30, 2, 3)])
def test_several_winners_without_certificate_skip_the_lp(K, C, seed):
    """C ≥ 2: the threshold allocation is checked by the oracle and used as is (no LP);
    it must give the LP's values (family generation, certified for small K)."""
    M = generators.random_matrix(K, seed, n_winners=C)
    fast = lower_bound(M, certify=False)
    lp = lower_bound(M, method="families", certify=K <= 12)
    assert fast.stats["method"] == "threshold" and fast.stats["lp_solves"] == 0
    assert lp.stats["lp_solves"] == len(st.copeland_winners(M))  # one round per winner
    for i1 in st.copeland_winners(M):
        assert fast.per_winner[i1] == pytest.approx(lp.per_winner[i1], rel=1e-9)
        assert in_region(M, i1, fast.allocations[i1] * st.divergences(M), kind="cw")
    if K <= 12:
        assert lp.certificate["status"] == "exact"


def test_scale_limit_refuses_up_front_with_an_estimate(capsys, tmp_path):
    M = generators.random_matrix(40, 0, n_winners=1)
    with pytest.raises(DuelboundError, match=r"K = 40 needs 1 LP.*estimated .*--max-k"):
        lower_bound(M, certify=False, max_k=30)
    f = tmp_path / "m.txt"
    np.savetxt(f, M.values, fmt="%.17g")
    assert main(["bounds", str(f), "--max-k", "30"]) == 2
    err = capsys.readouterr().err
    assert "estimated" in err and len(err.strip().splitlines()) == 1
    # several winners without a certificate need no LP: no limit applies
    M2 = generators.random_matrix(40, 0, n_winners=2)
    assert lower_bound(M2, certify=False, max_k=30).stats["lp_solves"] == 0


def test_bounds_output_names_arms(capsys, tmp_path):
    M = datasets.load("cyclic")
    names = ["ann", "bob", "cy", "dee"]
    f = tmp_path / "named.json"
    f.write_text(json.dumps({"matrix": M.values.tolist(), "arms": names}))
    assert main(["bounds", str(f)]) == 0
    text = capsys.readouterr().out
    assert "ann vs bob" in text and "i1=ann" in text and "[ann]" in text
    assert main(["bounds", str(f), "--json"]) == 0
    lb = json.loads(capsys.readouterr().out)["lower_bound"]
    assert lb["winners"] == [0] and lb["winner_names"] == ["ann"]
    assert {tuple(p["names"]) for p in lb["allocation_pairs"]} >= {("ann", "bob")}
    assert lb["tight"]["0"][0]["names"]["i1"] == "ann"


def test_rowgen_shows_its_rounds_on_a_terminal_after_the_delay(monkeypatch):
    """Row generation's round counter appears on a terminal's stderr once it has
    run ROWGEN_PROGRESS_AFTER seconds (0 here), and never without ``progress``."""
    import io
    import sys

    import duelbound.solvers.cstar as cstar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    M = generators.random_matrix(12, seed=3)
    monkeypatch.setattr(cstar, "ROWGEN_PROGRESS_AFTER", 0.0)
    for progress in (True, False):
        err = Terminal()
        monkeypatch.setattr(sys, "stderr", err)
        res = lower_bound(M, method="rowgen", certify=False, progress=progress)
        monkeypatch.setattr(sys, "stderr", sys.__stderr__)
        assert ("row generation (K = 12)" in err.getvalue()) == progress
        assert res.value == pytest.approx(lower_bound(M, certify=False).value, rel=1e-7)

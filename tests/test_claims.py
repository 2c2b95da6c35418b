"""Claims (docs/math.md §8): verdicts, certified re-evaluation, solver failures, exit codes."""

from __future__ import annotations

import math
from fractions import Fraction
from random import Random

import numpy as np
import pytest

from duelbound.checks.claims import catalogue as cl
from duelbound.checks.claims import certified as ce
from duelbound.cli import main
from duelbound.solvers import lp as lp_mod
from duelbound.theory import datasets, tournament
from duelbound.theory.errors import SolverError, UnknownNameError
from duelbound.theory.kl import kl_half
from duelbound.theory.matrix import PreferenceMatrix


def _kl_half(p: float) -> float:
    return p * math.log(2 * p) + (1 - p) * math.log(2 * (1 - p))


def _transitive(K: int, gap: float) -> PreferenceMatrix:
    V = np.full((K, K), 0.5)
    iu = np.triu_indices(K, 1)
    V[iu] = 0.5 + gap
    V[(iu[1], iu[0])] = 0.5 - gap
    return PreferenceMatrix(V)


THREE_CYCLE = PreferenceMatrix([[0.5, 0.6, 0.4], [0.4, 0.5, 0.6], [0.6, 0.4, 0.5]])
LP_CLAIMS = ["k16-th6-ineq", "k16-th6-eq"]

# A false claim for the tests only: the reverse of [K16] (8), C^E*_{i1} <= C*_{i1}.  It
# is false whenever R^E_{i1} is strictly smaller than R_{i1} in cost (e.g. ``cyclic``).
REVERSED_8 = cl.Claim("test-reversed-8", "[test] reverse of [K16] (8)",
                      "C^E*_{i1} <= C*_{i1}", "<=", cl._theorem6_ineq,
                      ce.theorem6_cert("<="), max_K=5)


@pytest.fixture
def flaky_solver(monkeypatch):
    """Make every LP solve raise SolverError with probability ``rate`` (seeded)."""
    def install(rate: float, seed: int = 0) -> dict[str, int]:
        rng, real, count = Random(seed), lp_mod.PulpLP.solve, {"raised": 0}

        def solve(self):
            if rng.random() < rate:
                count["raised"] += 1
                raise SolverError("injected: HiGHS failed")
            return real(self)

        monkeypatch.setattr(lp_mod.PulpLP, "solve", solve)
        return count
    return install


def test_registry_is_one_record_per_claim_with_source():
    names = cl.claim_names()
    assert len(names) == len(set(names)) == len(cl.CLAIMS)
    for c in cl.CLAIMS:
        assert c.source.startswith("[") and c.relation in ("<=", ">=", "==")
        assert c.expected in ("holds", "fails", "deferred")
        assert (c.sides is None) == (c.certified is None)  # every predicate is certifiable
    with pytest.raises(UnknownNameError):
        cl.get_claim("no-such-claim")


def test_threshold_and_explicit_lp_on_a_hand_example():
    # min e1 + 2 e2 + 3 e3 s.t. every 2-subset sums to >= 1: optimum 3 (by hand:
    # e = (1/2, 1/2, 1/2) and e = (1, 1, 0) both cost 3; summing the three rows gives >= 3).
    assert cl._threshold([1.0, 2.0, 3.0], 2) == pytest.approx(3.0)
    assert cl._explicit_lp([1.0, 2.0, 3.0], 2) == pytest.approx(3.0)
    # n = m: all weight on the cheapest element, value c_min.
    assert cl._threshold([4.0, 0.5, 2.0], 3) == pytest.approx(0.5)
    c = [Fraction(1), Fraction(2), Fraction(3)]
    assert ce.threshold_exact(c, 2)[0] == 3
    box = ce.lp6_interval(c, 2)
    assert box.lo <= 3 <= box.hi and box.hi - box.lo < Fraction(1, 10**5)


def test_kl_enclosure_contains_the_float_and_is_tight():
    for p in (0.5 + 1e-9, 0.6, 0.9, 1.0, 0.0):
        box = ce.kl_half_interval(Fraction(p))
        assert box.lo <= Fraction(float(kl_half(p))) * (1 + Fraction(1, 10**12))
        assert box.hi >= Fraction(float(kl_half(p))) * (1 - Fraction(1, 10**12))
        assert box.hi - box.lo < Fraction(1, 10**40)


def test_cyclic_theorem6_sides_match_hand_values():
    M = datasets.load("cyclic")
    ce = 1 / _kl_half(0.6)                                  # [K16] App. C
    cs = 1 / (2 * _kl_half(0.6)) + 1 / _kl_half(0.9)
    ok, s = cl.evaluate("k16-th6-ineq", M)
    assert ok and s.lhs == pytest.approx(ce, rel=1e-9) and s.rhs == pytest.approx(cs, rel=1e-7)
    refuted, c = cl.certify("k16-th6-ineq", M)
    assert not refuted
    assert c.lhs.lo <= Fraction(ce) * (1 + Fraction(1, 10**12)) and c.lhs.hi >= Fraction(ce) * (
        1 - Fraction(1, 10**12))
    assert float(c.rhs.lo) <= cs * (1 + 1e-12) and float(c.rhs.hi) >= cs * (1 - 1e-12)
    assert c.rhs.hi - c.rhs.lo < Fraction(1, 10**10)


def test_lemma7_and_lemma8_are_tight_on_a_3_cycle():
    ok7, s7 = cl.evaluate("z15-lemma7", THREE_CYCLE)   # 3 arms with L = 1 <= 2*1 + 1
    assert ok7 and (s7.lhs, s7.rhs) == (3.0, 3.0)
    ok8, s8 = cl.evaluate("z15-lemma8", THREE_CYCLE)   # 3 * 2/1 = 2 * (1 + 1 + 1)
    assert ok8 and s8.lhs == s8.rhs == 6.0
    refuted, c8 = cl.certify("z15-lemma8", THREE_CYCLE)  # equal sides: not a refutation
    assert not refuted and c8.lhs == c8.rhs == cl.Interval.point(6)


def test_eq11_exceeds_eq12_on_transitive_k8_by_hand():
    # L = 0..7: (11) = (sum_{L=1}^{7} (1 + L/(L+1))) / d = (7 + 8 - H_8) / d; (12) = 1.5*8/d.
    H8 = sum(Fraction(1, k) for k in range(1, 9))
    rhs11_d = 7 + sum(Fraction(L, L + 1) for L in range(1, 8))
    assert rhs11_d == 15 - H8 and rhs11_d > 12          # the finding, in exact arithmetic
    d = _kl_half(0.6)
    M = _transitive(8, 0.1)
    ok, s = cl.evaluate("k16-eq11-le-eq12", M)
    assert not ok
    assert s.lhs == pytest.approx(float(rhs11_d) / d) and s.rhs == pytest.approx(12 / d)
    refuted, c = cl.certify("k16-eq11-le-eq12", M)
    assert refuted and c.lhs.lo > c.rhs.hi
    assert cl.evaluate("k16-eq11-le-eq12", _transitive(6, 0.1))[0]  # 10 - H_6 <= 9


def test_deferred_claim_is_not_a_predicate():
    with pytest.raises(UnknownNameError):
        cl.evaluate("k16-th2-algorithms", THREE_CYCLE)


@pytest.fixture(scope="module")
def report():
    return cl.check_claims(n=20, seed=0, max_K=7, shrink_time=3.0)


def test_established_verdicts(report):
    """The verdicts this package establishes (docs/verification.md explains 'fails')."""
    got = {r.name: r.status for r in report.results}
    assert got == {c.name: c.expected for c in cl.CLAIMS}
    for r in report.results:
        assert r.tried >= 1 or r.status == "deferred"
        assert r.errors == 0
    assert report.exit_code() == cl.EXIT_FAILS


def test_failing_claim_has_a_certified_shrunk_counterexample(report):
    r = next(r for r in report.results if r.name == "k16-eq11-le-eq12")
    ce = r.counterexample
    assert ce["certified"] and ce["lhs_interval"]["lo"] > ce["rhs_interval"]["hi"]
    M = PreferenceMatrix(ce["matrix"])
    refuted, s = cl.certify("k16-eq11-le-eq12", M)       # re-checked here once more
    assert refuted and s.lhs.mid() == pytest.approx(ce["lhs"])
    # only L1 = 0 can break the derivation, and only from K = 7 on (see the docs)
    assert M.K >= 7 and tournament.L1(M) == 0
    assert "certified" in report.table()


def test_float_violation_with_equal_certified_sides_is_not_a_refutation():
    # the audit's case: the floats disagree but the certified sides are equal (x = x)
    c = cl.Claim("test-equal", "[test]", "equal sides", "<=",
                 lambda M: cl.Sides(2.0, 1.0),
                 lambda M: cl.CertifiedSides(cl.Interval.point(3), cl.Interval.point(3)))
    r = cl.check_claims(n=10, seed=0, claims=[c]).results[0]
    assert r.status == "holds" and r.counterexample is None and r.unconfirmed == r.tried == 10


def test_solver_failures_are_errors_never_violations(flaky_solver):
    count = flaky_solver(0.25, seed=1)
    rep = cl.check_claims(n=15, seed=2, max_K=5, claims=LP_CLAIMS, shrink_time=2.0)
    assert count["raised"] > 0
    assert sum(r.errors for r in rep.results) > 0
    for r in rep.results:
        assert r.status == "holds" and r.counterexample is None
        assert r.checked >= 1 and r.errors + r.checked == r.tried
    assert "errored" in rep.table() and rep.exit_code() == cl.EXIT_HOLDS


def test_false_claim_fails_with_certified_counterexample_despite_solver_failures(flaky_solver):
    flaky_solver(0.2, seed=3)
    r = cl.check_claims(n=20, seed=0, claims=[REVERSED_8], shrink_time=2.0).results[0]
    assert r.status == "fails"
    ce = r.counterexample
    assert ce["certified"] and ce["lhs_interval"]["lo"] > ce["rhs_interval"]["hi"]
    assert ce["lhs"] != pytest.approx(ce["rhs"], rel=1e-6)


def _sides_with_a_bug(M: PreferenceMatrix) -> cl.Sides:
    """[Z15] Lemma 7's sides, with a bug that raises TypeError whenever K > 3."""
    if M.K > 3:
        return cl.Sides(None + 1, 0.0)  # type: ignore[operator]
    return cl._lemma7(M)


def test_an_evaluation_bug_makes_the_claim_an_error_not_holds(capsys):
    """Issue 33: a TypeError on most matrices used to count as "no violation" and the
    claim reported "holds" with exit code 0."""
    c = cl.Claim("test-bug", "[test]", "lemma 7 with a bug", "<=", _sides_with_a_bug, max_K=6)
    rep = cl.check_claims(n=30, seed=0, min_K=2, max_K=6, claims=[c, "z15-lemma7"])
    r, ok = rep.results
    assert r.status == "error" and r.counterexample is None
    assert "TypeError" in r.error and "not a solver failure" in r.error
    assert len(r.error_matrix) > 3  # the matrix that raised, to reproduce it
    assert ok.status == "holds"  # the other claims are still checked
    assert rep.exit_code() == cl.EXIT_ERROR
    assert "TypeError" in rep.table() and r.to_dict()["error_matrix"] == r.error_matrix


def test_a_bug_in_the_certified_evaluation_is_an_error():
    c = cl.Claim("test-cert-bug", "[test]", "false, certified side broken", "<=",
                 lambda M: cl.Sides(2.0, 1.0), lambda M: {}["missing"])
    r = cl.check_claims(n=5, seed=0, claims=[c]).results[0]
    assert r.status == "error" and "KeyError" in r.error


def test_a_strategy_that_raises_is_an_error_for_its_claim_only():
    def broken(min_K, max_K):
        raise ValueError("no such tournament")
    c = cl.Claim("test-strategy", "[test]", "x", "<=", cl._lemma7, strategy=broken)
    rep = cl.check_claims(n=5, seed=0, claims=[c, "z15-lemma7"])
    assert [r.status for r in rep.results] == ["error", "holds"]
    assert "ValueError: no such tournament" in rep.results[0].error


def test_flaky_evaluation_is_reported_not_raised():
    # a certified side that changes its mind: hypothesis may call it flaky; never crash
    rng = Random(0)
    c = cl.Claim("test-flaky", "[test]", "coin", "<=", lambda M: cl.Sides(2.0, 1.0),
                 lambda M: cl.CertifiedSides(cl.Interval.point(rng.choice([1, 3])),
                                             cl.Interval.point(2)))
    r = cl.check_claims(n=30, seed=0, claims=[c], shrink_time=1.0).results[0]
    assert r.status in ("holds", "fails", "error")
    if r.status == "fails":
        assert r.counterexample["lhs_interval"]["lo"] > r.counterexample["rhs_interval"]["hi"]


def test_no_solver_exits_2(monkeypatch, capsys):
    # PuLP finds no solver at all: available_backend raises its own SolverError
    monkeypatch.setattr(lp_mod.pulp, "listSolvers", lambda onlyAvailable=False: [])
    assert main(["check-claims", "--n", "3", "--claim", "k16-th6-ineq", "--claim",
                 "z15-lemma7", "--quiet"]) == 2
    out = capsys.readouterr().out
    assert "error" in out and "no LP solver" in out
    assert "z15-lemma7" in out and "holds" in out  # claims without an LP are still checked


def test_same_seed_same_report():
    # (the shrink phase has a time budget, so only the search itself is compared)
    names = ["k16-eq11-le-eq12", "z15-lemma7"]
    a = cl.check_claims(n=15, seed=3, claims=names, shrink_time=1.0)
    b = cl.check_claims(n=15, seed=3, claims=names, shrink_time=1.0)
    assert [(r.status, r.tried) for r in a.results] == [(r.status, r.tried) for r in b.results]


def test_time_limit_marks_partial():
    r = cl.check_claims(n=10_000, seed=0, claims=["z15-lemma8"], time_limit=0.5).results[0]
    assert r.partial and r.status == "holds" and 0 < r.tried < 10_000


def test_cli_exit_codes_and_progress(capsys):
    assert main(["check-claims", "--n", "5", "--claim", "z15-lemma7", "--json"]) == 0
    captured = capsys.readouterr()
    assert '"z15-lemma7"' in captured.out and captured.err == ""  # no TTY: no bar
    assert main(["check-claims", "--n", "5", "--claim", "z15-lemma7", "--progress"]) == 0
    assert "z15-lemma7" in capsys.readouterr().err
    assert main(["check-claims", "--n", "20", "--min-K", "7", "--max-K", "7", "--claim",
                 "k16-eq11-le-eq12", "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "fails" in captured.out and captured.err == ""
    assert main(["check-claims", "--claim", "nope"]) == 2

"""Claims of SPEC §4: verdicts established by duelbound.checks.claims, with hand-made checks."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from duelbound.checks import claims as cl
from duelbound.cli import main
from duelbound.theory import examples, structure
from duelbound.theory.errors import UnknownNameError
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


def test_registry_is_one_record_per_claim_with_source():
    names = cl.claim_names()
    assert len(names) == len(set(names)) == len(cl.CLAIMS)
    for c in cl.CLAIMS:
        assert c.source.startswith("[") and c.relation in ("<=", ">=", "==")
        assert c.expected in ("holds", "fails", "deferred")
    with pytest.raises(UnknownNameError):
        cl.get_claim("no-such-claim")


def test_threshold_and_explicit_lp_on_a_hand_example():
    # min e1 + 2 e2 + 3 e3 s.t. every 2-subset sums to >= 1: optimum 3 (by hand:
    # e = (1/2, 1/2, 1/2) and e = (1, 1, 0) both cost 3; summing the three rows gives >= 3).
    assert cl._threshold([1.0, 2.0, 3.0], 2) == pytest.approx(3.0)
    assert cl._explicit_lp([1.0, 2.0, 3.0], 2) == pytest.approx(3.0)
    # n = m: all weight on the cheapest element, value c_min.
    assert cl._threshold([4.0, 0.5, 2.0], 3) == pytest.approx(0.5)


def test_cyclic_theorem6_sides_match_hand_values():
    M = examples.load("cyclic")
    ce = 1 / _kl_half(0.6)                                  # [K16] App. C
    cs = 1 / (2 * _kl_half(0.6)) + 1 / _kl_half(0.9)
    ok, s = cl.evaluate("k16-th6-ineq", M)
    assert ok and s.lhs == pytest.approx(ce, rel=1e-9) and s.rhs == pytest.approx(cs, rel=1e-7)


def test_lemma7_and_lemma8_are_tight_on_a_3_cycle():
    ok7, s7 = cl.evaluate("z15-lemma7", THREE_CYCLE)   # 3 arms with L = 1 <= 2*1 + 1
    assert ok7 and (s7.lhs, s7.rhs) == (3.0, 3.0)
    ok8, s8 = cl.evaluate("z15-lemma8", THREE_CYCLE)   # 3 * 2/1 = 2 * (1 + 1 + 1)
    assert ok8 and s8.lhs == s8.rhs == 6.0


def test_eq11_exceeds_eq12_on_transitive_k8_by_hand():
    # L = 0..7: (11) = (sum_{L=1}^{7} (1 + L/(L+1))) / d = (7 + 8 - H_8) / d; (12) = 1.5*8/d.
    H8 = sum(Fraction(1, k) for k in range(1, 9))
    rhs11_d = 7 + sum(Fraction(L, L + 1) for L in range(1, 8))
    assert rhs11_d == 15 - H8 and rhs11_d > 12          # the finding, in exact arithmetic
    d = _kl_half(0.6)
    ok, s = cl.evaluate("k16-eq11-le-eq12", _transitive(8, 0.1))
    assert not ok
    assert s.lhs == pytest.approx(float(rhs11_d) / d) and s.rhs == pytest.approx(12 / d)
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


def test_failing_claim_has_a_shrunk_counterexample(report):
    r = next(r for r in report.results if r.name == "k16-eq11-le-eq12")
    ce = r.counterexample
    M = PreferenceMatrix(ce["matrix"])
    ok, s = cl.evaluate("k16-eq11-le-eq12", M)
    assert not ok and s.lhs == pytest.approx(ce["lhs"]) and s.rhs == pytest.approx(ce["rhs"])
    # only L1 = 0 can break the derivation, and only from K = 7 on (see the docs)
    assert M.K >= 7 and structure.L1(M) == 0
    assert "counterexample" in report.table()


def test_same_seed_same_report():
    # (the shrink phase has a time budget, so only the search itself is compared)
    names = ["k16-eq11-le-eq12", "z15-lemma7"]
    a = cl.check_claims(n=15, seed=3, claims=names, shrink_time=1.0)
    b = cl.check_claims(n=15, seed=3, claims=names, shrink_time=1.0)
    assert [(r.status, r.tried) for r in a.results] == [(r.status, r.tried) for r in b.results]


def test_time_limit_marks_partial():
    r = cl.check_claims(n=10_000, seed=0, claims=["z15-lemma8"], time_limit=0.5).results[0]
    assert r.partial and r.status == "holds" and 0 < r.tried < 10_000


def test_cli_check_claims(capsys):
    assert main(["check-claims", "--n", "5", "--claim", "z15-lemma7", "--json"]) == 0
    assert '"z15-lemma7"' in capsys.readouterr().out
    assert main(["check-claims", "--claim", "nope"]) == 2

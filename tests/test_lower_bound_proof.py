"""The proof of C* is one typed object on the result (issue 30, "Typed proofs inside").

``LowerBoundResult.proof`` (a frozen :class:`LowerBoundProof`) holds every winner's verified
certificate and the enclosure of C* for the matrix as written; ``certificate`` and
``enclosure`` are read-only views of it, never stored copies.  The status of a verified
bracket is "enclosed" ("interval" names only the posterior interval).  Statuses here are
derived by hand from the definition C* = min_{i1} C*_{i1} ∈ [min lower, min upper].
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest

from duelbound.solvers import lower_bound
from duelbound.solvers.certificate import VERIFIED, LowerBoundProof, WinnerProof
from duelbound.solvers.cstar import solve_winner
from duelbound.solvers.enclosure import enclose
from duelbound.theory import datasets, generators


def _entry(status: str, lower=None, upper=None, reason: str = "") -> WinnerProof:
    """One winner's certify_winner result, made by hand, with exact rationals."""
    return WinnerProof(status=status, route="hand",
                       lower=None if lower is None else Fraction(lower),
                       upper=None if upper is None else Fraction(upper), reason=reason)


@pytest.mark.parametrize("per, status, bracket", [
    # min lower 3 = min upper 3: exact although winner 1 is only enclosed
    ({0: _entry("exact", 3, 3), 1: _entry("enclosed", 4, 5)}, "exact", (3, 3)),
    # min lower 3, min upper 7/2: enclosed, width 1/2
    ({0: _entry("enclosed", 3, "7/2"), 1: _entry("exact", 5, 5)}, "enclosed", (3, "7/2")),
    # the smaller lower bound belongs to another winner than the smaller upper bound
    ({0: _entry("enclosed", 2, 6), 1: _entry("enclosed", 4, 5)}, "enclosed", (2, 5)),
    ({0: _entry("exact", 3, 3), 1: _entry("failed", upper=9, reason="too wide")}, "failed",
     (3, 3)),
])
def test_status_and_bracket_follow_from_the_winners(per, status, bracket):
    proof = LowerBoundProof(per)
    lo, hi = (Fraction(v) for v in bracket)
    assert proof.status == status and (proof.lower, proof.upper) == (lo, hi)
    assert proof.verified == (status in VERIFIED)
    cert = proof.certificate_summary()
    assert cert["status"] == status
    assert (cert["lower_float"], cert["upper_float"]) == (float(lo), float(hi))
    assert ("width" in cert) == (status == "enclosed")
    if status == "enclosed":
        assert cert["width"] == float(hi - lo)
    if status == "failed":
        assert cert["message"] == "not certified: too wide"
    assert sorted(cert["per_winner"]) == sorted(per)


def test_uncertified_proof_says_why_and_has_no_enclosure():
    proof = LowerBoundProof(reason="certify=False")
    assert proof.status == "uncertified" and not proof.verified
    assert proof.to_dict() == {"certificate": {"status": "uncertified",
                                               "reason": "certify=False"},
                               "enclosure": {}}


def test_the_result_holds_one_frozen_proof_and_derives_its_views():
    res = lower_bound(datasets.load("cyclic"), certify=True)
    proof = res.proof
    assert isinstance(proof, LowerBoundProof) and proof.enclosure is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        proof.enclosure = None  # type: ignore[misc]
    with pytest.raises(AttributeError):
        res.certificate = {}  # type: ignore[misc]
    with pytest.raises(AttributeError):
        res.enclosure = {}  # type: ignore[misc]
    names = {f.name for f in dataclasses.fields(res)}
    assert "proof" in names and not names & {"certificate", "enclosure"}
    assert res.certificate == proof.certificate_summary()
    assert res.enclosure == proof.enclosure.summary()
    d = res.to_dict()
    assert (d["certificate"], d["enclosure"]) == (proof.to_dict()["certificate"],
                                                  proof.to_dict()["enclosure"])
    # the printed value lies in the enclosure of the matrix as written (it may lie a few
    # ulps outside the certificates' bracket, which is for the float-rounded d̂)
    assert res.enclosure["lower"] <= res.value <= res.enclosure["upper"]


def test_a_float_dual_result_never_says_interval():
    """The rigorous bracket's status is "enclosed" in the object, the API and the JSON."""
    M = generators.random_matrix(12, 3, gap_range=(0.005, 0.45))
    res = lower_bound(M, certify="float-dual")
    assert res.proof.status == "enclosed" == res.certificate["status"]
    statuses = {v["status"] for v in res.certificate["per_winner"].values()}
    assert statuses <= {"exact", "enclosed"}
    assert '"interval"' not in json.dumps(res.to_dict())


def test_enclose_refuses_certificates_of_other_winners():
    M = datasets.load("multi_winner")
    res = lower_bound(M, certify=True)
    assert res.proof.verified
    solves = {i1: solve_winner(M, i1) for i1 in res.proof.per_winner}
    one = dict(list(res.proof.per_winner.items())[:1])
    with pytest.raises(ValueError, match="certificates for winners"):
        enclose(M, solves, {i1: p.certificate for i1, p in one.items()})


def test_certify_winner_returns_a_frozen_winner_proof():
    """certify_winner gives a typed, frozen result; its exact value is the hand-derived
    C*_0 of cyclic, 1/(2 d(0.6, ½)) + 1/d(0.9, ½) ([K16] App. C)."""
    import math

    from duelbound.solvers.certificate import certify_winner

    def d(p: float) -> float:
        return p * math.log(2 * p) + (1 - p) * math.log(2 * (1 - p))

    M = datasets.load("cyclic")
    p = certify_winner(M, solve_winner(M, 0))
    assert isinstance(p, WinnerProof) and p.certificate is not None
    assert p.status == "exact" and p.value == p.lower == p.upper and p.width is None
    assert p.value_float == pytest.approx(1 / (2 * d(0.6)) + 1 / d(0.9), rel=1e-12)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.status = "failed"  # type: ignore[misc]
    e = p.to_dict()
    assert e["value_float"] == p.value_float and Fraction(e["value"]) == p.value
    assert "reason" not in e and "width" not in e

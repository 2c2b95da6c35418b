"""Executable claims of the theory (docs/math.md §8), checked with hypothesis.

Every claim is one :class:`Claim` record in :data:`CLAIMS`: a source (paper and
theorem/equation), a statement, a relation (``<=``, ``>=``, ``==``), a function
``sides(M) -> Sides`` that computes both sides in floating point, and a function
``certified(M) -> CertifiedSides`` that encloses both sides in rational intervals
(exact rational arithmetic, the exact LP certificate of
:mod:`duelbound.solvers.certificate`, and ball arithmetic for logarithms).

:func:`check_claims` searches generated matrices with :func:`hypothesis.find`
(derandomised from ``seed``, no example database).  A matrix counts as a violation
only when the *certified* intervals are strictly on the wrong side of each other; the
smallest such matrix is then re-evaluated outside the search, and only if that
re-evaluation again strictly violates the claim is the claim reported "fails".  A
solver failure on one matrix is counted as an error and the search goes on; it is
never a violation.

Examples
--------
>>> from duelbound.checks.claims.catalogue import check_claims
>>> report = check_claims(n=20, seed=0, claims=["z15-lemma7"])
>>> report.results[0].status, report.exit_code()
('holds', 0)

Notes
-----
"Theorem 2 vs algorithms" ([K16] Th. 2: no strongly consistent algorithm has
regret/log T below C* asymptotically) is registered with ``sides=None``: it is a
statement about the limit T → ∞ of a random quantity, not a predicate on a
matrix, so no finite simulation can refute it; the verification harness
(:func:`duelbound.checks.verify.harness.verify`, check "regret/log T vs C*") reports
the measured regret/log T next to C* instead, as a WARN when it sits below.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from random import Random
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, NoSuchExample

from ...frames import html_table, markdown_table, records_to_frame, short_repr
from ...theory import tournament as stc
from ...theory.errors import SolverError, UnknownNameError
from ...theory.kl import kl_half
from ...theory.matrix import PreferenceMatrix
from ...theory.regret import regret_matrix
from ..strategies import InvalidStrategyArgument, preference_matrices
from .certified import (
    CertifiedSides,
    Interval,
    allocation_44_cert,
    ecw_in_cw_cert,
    eq11_cert,
    eq11_le_eq12_cert,
    eq12_cert,
    lemma7_cert,
    lemma8_cert,
    theorem5_cert,
    theorem6_cert,
)

__all__ = ["Sides", "Interval", "CertifiedSides", "Claim", "ClaimResult", "ClaimsReport",
           "CLAIMS", "claim_names", "get_claim", "evaluate", "certify", "check_claims",
           "EXIT_HOLDS", "EXIT_FAILS", "EXIT_ERROR"]

#: Relative tolerance of the floating-point screen (LP optima are floating HiGHS values).
REL_TOL = 1e-7
#: Attempts of the certified re-evaluation of a counterexample (the LP may fail transiently).
RECHECK_ATTEMPTS = 3
#: Exit codes of ``duelbound check-claims`` (see :meth:`ClaimsReport.exit_code`).
EXIT_HOLDS, EXIT_FAILS, EXIT_ERROR = 0, 1, 2


@dataclass
class Sides:
    """Both sides of a claim on one matrix; ``detail`` names where the worst case sits."""

    lhs: float
    rhs: float
    detail: str = ""


@dataclass(frozen=True)
class Claim:
    """One executable claim of docs/math.md §8.

    Attributes
    ----------
    name : short identifier (``duelbound check-claims`` prints it).
    source : paper and theorem/equation.
    statement : the inequality in words/symbols.
    relation : ``"<="``, ``">="`` or ``"=="`` between ``lhs`` and ``rhs``.
    sides : ``M -> Sides`` (floating point, the fast screen), or None for claims
        that are no finite predicate.
    certified : ``M -> CertifiedSides`` (rational enclosures); a claim without one
        can never be reported "fails".
    max_K : largest K drawn for this claim (LP-based claims are kept small).
    strategy : extra keyword arguments of :func:`preference_matrices`, or a
        callable ``(min_K, max_K) -> SearchStrategy``.
    expected : the verdict this package has established ("holds" or "fails");
        the test suite asserts it, the docs explain every "fails".
    """

    name: str
    source: str
    statement: str
    relation: str
    sides: Callable[[PreferenceMatrix], Sides] | None
    certified: Callable[[PreferenceMatrix], CertifiedSides] | None = None
    max_K: int = 8
    strategy: Any = None
    expected: str = "holds"
    note: str = ""

    def holds(self, s: Sides) -> bool:
        tol = REL_TOL * max(1.0, abs(s.lhs), abs(s.rhs))
        if self.relation == "<=":
            return s.lhs <= s.rhs + tol
        if self.relation == ">=":
            return s.lhs >= s.rhs - tol
        return abs(s.lhs - s.rhs) <= tol


# --------------------------------------------------------------------------------------
# The sides of each claim.  Each function computes what the paper states, from the
# theory layer or the solvers, and reports the worst case over its free indices.
# --------------------------------------------------------------------------------------

def _lemma7(M: PreferenceMatrix) -> Sides:
    """[Z15] Lemma 7: |{i : L_i ≤ d}| ≤ 2d + 1 for every d ≥ 0 (worst d reported)."""
    L = stc.losses(M)
    worst = max(range(M.K), key=lambda d: int((L <= d).sum()) - (2 * d + 1))
    return Sides(float((L <= worst).sum()), float(2 * worst + 1), f"d = {worst}")


def _lemma8(M: PreferenceMatrix) -> Sides:
    """[Z15] Lemma 8, explicit form implied by Lemma 7 (docs/math.md §8)."""
    K = M.K
    L = stc.losses(M)
    lhs = sum((K - 1) / li for li in L if li >= 1)
    rhs = (K - 1) * sum(1.0 / max(1, math.ceil((m - 1) / 2)) for m in range(1, K + 1))
    return Sides(float(lhs), float(rhs))


def _threshold(c: list[float], m: int) -> float:
    """[K16] Theorem 5: min_h (Σ_{t≤h} c_(t)) / (h − k), k = n − m, c sorted."""
    cs = sorted(c)
    k = len(cs) - m
    return min(sum(cs[:h]) / (h - k) for h in range(max(k, 0) + 1, len(cs) + 1))


def _explicit_lp(c: list[float], m: int) -> float:
    """LP (6) with every m-subset constraint written out (scipy/HiGHS, independent of solvers)."""
    from scipy.optimize import linprog

    n = len(c)
    rows = []
    for S in combinations(range(n), m):
        row = np.zeros(n)
        row[list(S)] = -1.0
        rows.append(row)
    res = linprog(np.asarray(c), A_ub=np.array(rows), b_ub=-np.ones(len(rows)),
                  bounds=[(0, None)] * n, method="highs")
    if res.status != 0:  # pragma: no cover - (6) is always feasible and bounded
        raise SolverError(f"linprog: {res.message}")
    return float(res.fun)


def _ecw_pieces(M: PreferenceMatrix, i1: int):
    """Costs c_j = r_{j i2}/d_{j i2} and m = L_{i2} − L_{i1} + 1 of each non-vacuous problem (6)."""
    V = M.values
    L = stc.losses(M)
    d = kl_half(V)
    r = regret_matrix(M)
    for i2 in range(M.K):
        S = [j for j in range(M.K) if j not in (i1, i2) and V[i2, j] < 0.5]
        m = int(L[i2] - L[i1] + 1)
        if len(S) >= m:
            yield i2, [float(r[j, i2] / d[j, i2]) for j in S], m


def _theorem5(M: PreferenceMatrix) -> Sides:
    """Sorted threshold vs explicit LP, summed over i2, for the worst Copeland winner."""
    worst = None
    for i1 in stc.copeland_winners(M):
        pieces = list(_ecw_pieces(M, i1))
        a = sum(_threshold(c, m) for _, c, m in pieces)
        b = sum(_explicit_lp(c, m) for _, c, m in pieces)
        if worst is None or abs(a - b) > abs(worst.lhs - worst.rhs):
            worst = Sides(a, b, f"i1 = {i1}, {len(pieces)} problems (6)")
    assert worst is not None  # every tournament has a Copeland winner
    return worst


def _per_winner(M: PreferenceMatrix) -> tuple[dict[int, float], dict[int, float]]:
    from ...solvers import ecw_bound
    from ...solvers.cstar import lower_bound

    # the float rule (enclose=False) on many random matrices; a refutation rests on the
    # enclosed sides of certified.py, so the exact enclosure here would only cost time
    ce = ecw_bound(M, enclose=False).per_winner
    cs = lower_bound(M, certify=False).per_winner
    return {int(k): float(v) for k, v in ce.items()}, {int(k): float(v) for k, v in cs.items()}


def _theorem6_ineq(M: PreferenceMatrix) -> Sides:
    """(8): C^E*_{i1} ≥ C*_{i1}, worst winner = smallest C^E* − C*."""
    ce, cs = _per_winner(M)
    i1 = min(ce, key=lambda i: ce[i] - cs[i])
    return Sides(ce[i1], cs[i1], f"i1 = {i1}")


def _theorem6_eq(M: PreferenceMatrix) -> Sides:
    """(9): C^E*_{i1} = C*_{i1} when C ≥ 2, worst winner = largest |C^E* − C*|."""
    ce, cs = _per_winner(M)
    i1 = max(ce, key=lambda i: abs(ce[i] - cs[i]))
    return Sides(ce[i1], cs[i1], f"i1 = {i1}, C = {len(ce)}")


def _evidence_44(M: PreferenceMatrix, i1: int) -> np.ndarray:
    """[K16] §4.4 allocation as evidence x = q·d: 1 on (i1, I_{i1}), 1/(L_{i2}−L1+1) on S_{i2}."""
    V = M.values
    L = stc.losses(M)
    l1 = int(L.min())
    x = np.zeros((M.K, M.K))
    for j in stc.inferiors(M, i1):
        x[i1, j] = x[j, i1] = 1.0
    for i2 in range(M.K):
        if i2 == i1:
            continue
        for j in range(M.K):
            if j not in (i1, i2) and V[i2, j] < 0.5:
                x[j, i2] = x[i2, j] = 1.0 / (L[i2] - l1 + 1)
    return x


def _allocation_44(M: PreferenceMatrix) -> Sides:
    """Smallest left side of (4)–(5) at the §4.4 allocation (must be ≥ 1), worst winner."""
    from ...solvers.oracle import ecw_oracle_core

    mu = np.ascontiguousarray(M.values, dtype=np.float64)
    vals = {i1: float(ecw_oracle_core(mu, i1, _evidence_44(M, i1)))
            for i1 in stc.copeland_winners(M)}
    i1 = min(vals, key=vals.__getitem__)
    return Sides(vals[i1], 1.0, f"i1 = {i1}")


def _ecw_in_cw_region(M: PreferenceMatrix) -> Sides:
    """R^E_{i1} ⊆ R_{i1}: the optimal ECW allocation satisfies every constraint of R_{i1}."""
    from ...solvers import ecw_bound
    from ...solvers.oracle import cw_oracle_core

    mu = np.ascontiguousarray(M.values, dtype=np.float64)
    d = kl_half(M.values)
    res = ecw_bound(M, enclose=False)
    vals = {}
    for i1, q in res.allocations.items():
        vals[int(i1)] = float(np.min(cw_oracle_core(mu, int(i1), np.asarray(q) * d)))
    i1 = min(vals, key=vals.__getitem__)
    return Sides(vals[i1], 1.0, f"i1 = {i1}")


def _rhs11(M: PreferenceMatrix, i1: int) -> float:
    L = stc.losses(M)
    l1 = int(L.min())
    dmin = float(kl_half(0.5 + stc.delta_min(M)))
    return sum(1.0 + L[i2] / (L[i2] - l1 + 1) for i2 in range(M.K) if i2 != i1) / dmin


def _rhs12(M: PreferenceMatrix) -> float:
    l1 = stc.L1(M)
    K = M.K
    return K / float(kl_half(0.5 + stc.delta_min(M))) * (l1 + 1.5 + l1 * l1 / K)


def _eq11(M: PreferenceMatrix) -> Sides:
    """(11), checked per winner: C^E*_{i1} ≤ RHS11(i1) (implies the min form)."""
    from ...solvers import ecw_bound

    ce = ecw_bound(M, enclose=False).per_winner
    i1 = max(ce, key=lambda i: ce[i] - _rhs11(M, int(i)))
    return Sides(float(ce[i1]), _rhs11(M, int(i1)), f"i1 = {i1}")


def _eq12(M: PreferenceMatrix) -> Sides:
    from ...solvers import ecw_bound

    return Sides(float(ecw_bound(M, enclose=False).value), _rhs12(M))


def _eq11_le_eq12(M: PreferenceMatrix) -> Sides:
    """The seed derives (12) by maximising (11): min_{i1} RHS11(i1) ≤ RHS12."""
    vals = {i1: _rhs11(M, i1) for i1 in stc.copeland_winners(M)}
    i1 = min(vals, key=vals.__getitem__)
    L = stc.losses(M)
    return Sides(vals[i1], _rhs12(M), f"i1 = {i1}, L1 = {int(L.min())}, L = {L.tolist()}")


def _several_winners(min_K: int, max_K: int) -> st.SearchStrategy:
    """Matrices with C ≥ 2 Copeland winners (the hypothesis of [K16] (9))."""
    options = []
    for c in range(2, max_K + 1):
        try:
            options.append(preference_matrices(min_K=min_K, max_K=max_K, n_winners=c))
        except InvalidStrategyArgument:
            continue
    return st.one_of(*options)


def _condorcet_half(min_K: int, max_K: int) -> st.SearchStrategy:
    """Half the draws with a Condorcet winner (L1 = 0, where the (11)→(12) step is at stake)."""
    return st.one_of(preference_matrices(min_K=min_K, max_K=max_K, condorcet=True),
                     preference_matrices(min_K=min_K, max_K=max_K))


CLAIMS: tuple[Claim, ...] = (
    Claim("k16-th5", "[K16] Theorem 5, LP (6)",
          "sorted-threshold optimum = LP optimum of (6), summed over i2", "==", _theorem5,
          theorem5_cert, max_K=7),
    Claim("k16-th6-ineq", "[K16] Theorem 6, (8)", "C^E*_{i1} >= C*_{i1} for every winner i1",
          ">=", _theorem6_ineq, theorem6_cert(">="), max_K=6),
    Claim("k16-th6-eq", "[K16] Theorem 6, (9)", "C^E*_{i1} = C*_{i1} for every winner if C >= 2",
          "==", _theorem6_eq, theorem6_cert("=="), max_K=6, strategy=_several_winners),
    Claim("k16-4.4-alloc", "[K16] §4.4 (before (11))",
          "x_{i1 j} = 1 (j in I_i1), x_{j i2} = 1/(L_i2 - L1 + 1) lies in R^E_{i1}: "
          "min LHS of (4)-(5) >= 1", ">=", _allocation_44, allocation_44_cert),
    Claim("k16-ecw-in-cw", "[K16] Theorem 6 (proof: R^E_{i1} within R_{i1})",
          "the optimal C^E* allocation satisfies every constraint of R_{i1}: min LHS >= 1",
          ">=", _ecw_in_cw_region, ecw_in_cw_cert),
    Claim("k16-eq11", "[K16] (11)",
          "C^E*_{i1} <= (1/d(1/2+Dmin,1/2)) sum_{i2!=i1} (1 + L_i2/(L_i2 - L1 + 1)), "
          "per winner", "<=", _eq11, eq11_cert),
    Claim("k16-eq12", "[K16] (12)",
          "min C^E* <= (K/d(1/2+Dmin,1/2)) (L1 + 3/2 + L1^2/K)", "<=", _eq12, eq12_cert),
    Claim("k16-eq11-le-eq12", "[K16] derivation of (12) from (11)",
          "right side of (11) <= right side of (12)", "<=", _eq11_le_eq12, eq11_le_eq12_cert,
          expected="fails", strategy=_condorcet_half,
          note="fails when L1 = 0: L/(L+1) terms add up to ~K, so (11) ~ 2K/d while (12) "
               "= 1.5K/d (smallest: K = 7); (12) itself is not refuted"),
    Claim("z15-lemma7", "[Z15] Lemma 7", "|{i : L_i <= d}| <= 2d + 1 for every d >= 0 "
          "(worst d)", "<=", _lemma7, lemma7_cert, max_K=10),
    Claim("z15-lemma8", "[Z15] Lemma 8 (explicit form, docs/math.md §8)",
          "sum_{L_i>=1} (K-1)/L_i <= (K-1) sum_{m=1..K} 1/max(1, ceil((m-1)/2))", "<=",
          _lemma8, lemma8_cert, max_K=10),
    Claim("k16-th2-algorithms", "[K16] Theorem 2 vs algorithms",
          "no strongly consistent algorithm's regret/log T settles below C*", ">=", None,
          expected="deferred",
          note="asymptotic statement about a random quantity: no finite predicate; "
               "verify_algorithm() reports regret/log T vs C* per matrix"),
)

_BY_NAME = {c.name: c for c in CLAIMS}


def claim_names() -> list[str]:
    """Names of the registered claims, in registry order."""
    return [c.name for c in CLAIMS]


def get_claim(name: str) -> Claim:
    """The registered claim called ``name``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownNameError(f"unknown claim {name!r}; choose from "
                               f"{', '.join(claim_names())}") from None


def _claim(claim: str | Claim) -> Claim:
    c = get_claim(claim) if isinstance(claim, str) else claim
    if c.sides is None:
        raise UnknownNameError(f"claim {c.name!r} is not a predicate on a matrix ({c.note})")
    return c


def evaluate(claim: str | Claim, M: PreferenceMatrix) -> tuple[bool, Sides]:
    """Both sides of ``claim`` on ``M`` in floating point, and whether the relation holds."""
    c = _claim(claim)
    assert c.sides is not None  # _claim refuses the claims without sides
    s = c.sides(M)
    return c.holds(s), s


def certify(claim: str | Claim, M: PreferenceMatrix) -> tuple[bool, CertifiedSides]:
    """Both sides of ``claim`` on ``M`` in rational intervals, and whether they refute it.

    Returns ``(refuted, sides)``: ``refuted`` is True only when the intervals are
    strictly on the wrong side of each other, i.e. the claim is false on ``M`` (the
    floats of ``M`` read as exact rationals) whatever the exact values inside them.
    Raises whatever the computation raises (e.g. SolverError when the LP fails).
    """
    c = _claim(claim)
    if c.certified is None:
        raise UnknownNameError(f"claim {c.name!r} has no certified evaluation")
    s = c.certified(M)
    return s.violates(c.relation), s


@dataclass
class ClaimResult:
    """Verdict of one claim.

    ``status`` is "holds" (no certified violation among the matrices checked),
    "fails" (a counterexample whose certified sides strictly violate the claim, shrunk
    and re-checked outside the search), "error" (an evaluation raised something other than
    a solver failure — a bug, with the matrix in ``error_matrix`` —, no matrix could be
    evaluated, or a violation found in the search could not be re-certified; ``error``
    says why) or "deferred" (no finite predicate, see ``note``).  ``tried`` counts
    generated matrices, ``errors`` those whose evaluation raised a solver failure
    (:class:`~duelbound.errors.SolverError`, never a violation), ``unconfirmed`` float
    violations that the certified evaluation did not confirm (rounding near equality).
    """

    name: str
    source: str
    statement: str
    relation: str
    status: str
    tried: int
    expected: str
    seconds: float
    counterexample: dict[str, Any] | None = None
    note: str = ""
    partial: bool = False
    errors: int = 0
    unconfirmed: int = 0
    error: str = ""
    error_matrix: list[list[float]] | None = None

    @property
    def checked(self) -> int:
        """Matrices on which the claim was actually evaluated."""
        return self.tried - self.errors

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "checked": self.checked}


@dataclass
class ClaimsReport:
    """Result of :func:`check_claims`: one :class:`ClaimResult` per claim."""

    n: int
    seed: int
    min_K: int
    max_K: int
    results: list[ClaimResult] = field(default_factory=list)

    def exit_code(self) -> int:
        """2 if a claim is "error", else 1 if a claim fails (certified counterexample), else 0.

        An error wins: a run in which some claim could not be checked (no solver, the
        solver failing) is incomplete whatever else it found.  The known finding
        k16-eq11-le-eq12 makes a complete run of every claim exit 1.
        """
        statuses = {r.status for r in self.results}
        if "error" in statuses:
            return EXIT_ERROR
        return EXIT_FAILS if "fails" in statuses else EXIT_HOLDS

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "seed": self.seed, "min_K": self.min_K, "max_K": self.max_K,
                "exit_code": self.exit_code(), "results": [r.to_dict() for r in self.results]}

    def table(self) -> str:
        """Plain-text verdict table, then every counterexample as a matrix."""
        head = (f"{'claim':<20} {'source':<42} {'tried':>6} {'errors':>6} {'verdict':<9} "
                "expected")
        lines = [head, "-" * len(head)]
        for r in self.results:
            verdict = r.status + ("*" if r.partial else "")
            lines.append(f"{r.name:<20} {r.source[:42]:<42} {r.tried:>6} {r.errors:>6} "
                         f"{verdict:<9} {r.expected}")
        for r in self.results:
            if r.counterexample:
                ce = r.counterexample
                lines += ["", f"{r.name}: {r.statement}",
                          f"  counterexample (K = {len(ce['matrix'])}, shrunk, certified):"]
                lines += ["    " + " ".join(f"{v:.6g}" for v in row) for row in ce["matrix"]]
                lo, hi = ce["lhs_interval"], ce["rhs_interval"]
                lines.append(f"  lhs in [{lo['lo']:.12g}, {lo['hi']:.12g}]  {r.relation}  "
                             f"rhs in [{hi['lo']:.12g}, {hi['hi']:.12g}]  is false "
                             f"({ce['detail']})")
            if r.error_matrix is not None:  # a bug in the evaluation: show how to reproduce
                lines.append(f"  {r.name}: {r.error}; the matrix:")
                lines += ["    " + " ".join(f"{v:.6g}" for v in row) for row in r.error_matrix]
            elif r.status == "error" or r.errors:
                lines.append(f"  {r.name}: {r.errors} of {r.tried} matrices errored"
                             + (f"; {r.error}" if r.error else ""))
            if r.note and r.status != "holds":
                lines.append(f"  note ({r.name}): {r.note}")
        if any(r.partial for r in self.results):
            lines.append("* time limit reached before n matrices")
        lines.append(f"exit code {self.exit_code()} (0 all hold, 1 a claim fails, "
                     "2 a claim could not be checked)")
        return "\n".join(lines)

    # -- notebooks and pandas (helpers shared with the other result objects) -----------------
    _COLUMNS = ("name", "source", "status", "expected", "tried", "checked", "errors",
                "unconfirmed", "partial", "seconds", "counterexample")

    def _rows(self) -> list[dict[str, Any]]:
        return [{**{k: getattr(r, k) for k in self._COLUMNS if k != "counterexample"},
                 "counterexample": r.counterexample is not None} for r in self.results]

    def to_pandas(self) -> Any:
        """One row per claim (its verdict and counts) as a :class:`pandas.DataFrame`; needs
        the ``duelbound[pandas]`` extra (the error says so)."""
        return records_to_frame(self._rows(), self._COLUMNS)

    def __repr__(self) -> str:
        counts = {s: sum(r.status == s for r in self.results)
                  for s in ("holds", "fails", "error", "deferred")}
        return short_repr("ClaimsReport", n=self.n, seed=self.seed, claims=len(self.results),
                          **counts, exit_code=self.exit_code())

    def _repr_html_(self) -> str:
        return html_table(self._rows(), self._COLUMNS[:-2], max_rows=30,
                          caption=f"claims on {self.n} matrices (K {self.min_K}–{self.max_K}, "
                                  f"seed {self.seed}): exit code {self.exit_code()}")

    def _repr_markdown_(self) -> str:
        return markdown_table(self._rows(), self._COLUMNS[:-2], max_rows=30,
                              caption=f"claims on {self.n} matrices, exit code "
                                      f"{self.exit_code()}")


class _OutOfTime(BaseException):
    """Raised through hypothesis' engine when the time limit is reached.

    A BaseException, like :class:`_ShrinkBudget`: an ``Exception`` would count as a
    failing example, which hypothesis then replays, finds passing, and reports as flaky.
    """


class _ShrinkBudget(BaseException):
    """Raised through hypothesis' engine (it only catches Exception) to stop shrinking."""


class _EvaluationBug(BaseException):
    """Raised through hypothesis' engine when an evaluation raised something other than a
    solver failure: a bug in the claim's code, so the claim is an error, never a verdict."""


def _strategy(c: Claim, min_K: int, max_K: int) -> st.SearchStrategy:
    hi = min(max_K, c.max_K)
    lo = min(min_K, hi)
    if callable(c.strategy):
        return c.strategy(max(lo, 2), hi)
    return preference_matrices(min_K=lo, max_K=hi, **(c.strategy or {}))


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:300]


def _recheck(c: Claim, M: PreferenceMatrix) -> tuple[CertifiedSides | None, str]:
    """Certified re-evaluation outside the search, retrying transient solver failures."""
    last = ""
    for _ in range(RECHECK_ATTEMPTS):
        try:
            refuted, s = certify(c, M)
        except SolverError as exc:  # a solver failure: try again, never a verdict
            last = _describe(exc)
            continue
        except Exception as exc:  # anything else is a bug in the claim: an error, no verdict
            return None, f"the re-check raised {_describe(exc)}"
        return (s if refuted else None), ("" if refuted else "re-check does not refute")
    return None, f"re-check failed {RECHECK_ATTEMPTS} times ({last})"


class _Search:
    """State of one claim's search: counters, the smallest violation, the shrink budget."""

    def __init__(self, c: Claim, time_limit: float | None, max_shrinks: int,
                 shrink_time: float, bar: Any) -> None:
        self.c, self.time_limit, self.bar = c, time_limit, bar
        self.max_shrinks, self.shrink_time = max_shrinks, shrink_time
        self.start = time.perf_counter()
        self.tried = self.errors = self.unconfirmed = self.shrinks = 0
        self.failing, self.fail_start = False, 0.0
        self.best: PreferenceMatrix | None = None
        self.first_error = ""
        self.bug = ""  # an evaluation that raised something other than a solver failure
        self.bug_matrix: PreferenceMatrix | None = None

    def tick(self, M: PreferenceMatrix) -> PreferenceMatrix:
        # most of the shrinker's calls end inside the draw: check its clock here too
        if self.failing and time.perf_counter() - self.fail_start > self.shrink_time:
            raise _ShrinkBudget
        return M

    def _error(self, exc: Exception, M: PreferenceMatrix) -> bool:
        """A solver failure is counted and is no violation (the search goes on); anything
        else is a bug in the claim's evaluation, which ends the search: the claim is an
        error (a TypeError on most matrices must not leave it "holds")."""
        if not isinstance(exc, SolverError):
            self.bug, self.bug_matrix = _describe(exc), M
            raise _EvaluationBug from exc
        if not self.failing:
            self.errors += 1
            self.first_error = self.first_error or _describe(exc)
        return False

    def violated(self, M: PreferenceMatrix) -> bool:
        if not self.failing:
            if self.time_limit is not None and time.perf_counter() - self.start > self.time_limit:
                raise _OutOfTime
            self.tried += 1
            self.bar.update(1)
        else:
            self.shrinks += 1
            if self.shrinks > self.max_shrinks:
                raise _ShrinkBudget  # leaves hypothesis' engine; self.best is reported
        try:
            ok, _ = evaluate(self.c, M)  # the fast floating screen
        except Exception as exc:  # sorted by _error: solver failure or bug
            return self._error(exc, M)
        if ok:
            return False
        try:  # only a certified violation counts
            refuted, _ = certify(self.c, M)
        except Exception as exc:  # sorted by _error: solver failure or bug
            return self._error(exc, M)
        if not refuted:
            self.unconfirmed += not self.failing
            return False
        # the shrinker only tries candidates smaller than its current example and
        # adopts every failing one, so the latest failure is the smallest so far
        if not self.failing:
            self.failing, self.fail_start = True, time.perf_counter()
        self.best = M
        return True


def _check_one(c: Claim, n: int, seed: int, min_K: int, max_K: int,
               time_limit: float | None, max_shrinks: int, shrink_time: float,
               progress: bool | None) -> ClaimResult:
    from tqdm import tqdm

    base: dict[str, Any] = dict(name=c.name, source=c.source, statement=c.statement,
                                relation=c.relation, expected=c.expected, note=c.note)
    if c.sides is None:
        return ClaimResult(status="deferred", tried=0, seconds=0.0, **base)
    bar = tqdm(total=n, desc=c.name, unit="matrix", file=sys.stderr,
               disable=None if progress is None else not progress, leave=False)
    s = _Search(c, time_limit, max_shrinks, shrink_time, bar)
    cfg = settings(max_examples=n, database=None, deadline=None, derandomize=False,
                   phases=[Phase.generate, Phase.shrink],
                   suppress_health_check=list(HealthCheck))
    partial, note = False, ""
    try:
        find(_strategy(c, min_K, max_K).map(s.tick), s.violated, settings=cfg,
             random=Random(seed))
    except (NoSuchExample, _ShrinkBudget, _EvaluationBug):
        # the search ended: no violation, the shrinking budget spent, or an evaluation bug
        # (held in s.bug and s.bug_matrix: the claim's status is 'error' below)
        pass
    except _OutOfTime:
        partial = True
    except HypothesisException as exc:  # FlakyFailure and the like: keep the smallest violation
        note = f"hypothesis stopped: {_describe(exc)}"
    except Exception as exc:  # the claim's strategy raised: this claim is an error, the rest run
        s.bug = f"generating matrices raised {_describe(exc)}"
    finally:
        bar.close()
    status, ce, error = "holds", None, ""
    error_matrix = None
    if s.bug_matrix is not None:
        status, error_matrix = "error", s.bug_matrix.values.tolist()
        error = f"evaluating a K = {s.bug_matrix.K} matrix raised {s.bug} (not a solver failure)"
    elif s.bug:
        status, error = "error", s.bug
    elif s.best is not None:
        cs, why = _recheck(c, s.best)
        if cs is not None:
            status = "fails"
            ce = dict(matrix=s.best.values.tolist(), lhs=cs.lhs.mid(), rhs=cs.rhs.mid(),
                      lhs_interval=cs.lhs.to_dict(), rhs_interval=cs.rhs.to_dict(),
                      detail=cs.detail, certified=True,
                      shrink_steps=min(s.shrinks, max_shrinks))
        else:
            status, error = "error", f"a violation found in the search was not confirmed: {why}"
    elif s.tried and s.errors == s.tried:
        status, error = "error", f"every evaluation failed; first: {s.first_error}"
    elif s.errors:
        error = f"first: {s.first_error}"
    if note:
        error = f"{error}; {note}" if error else note
    return ClaimResult(status=status, tried=s.tried, seconds=time.perf_counter() - s.start,
                       counterexample=ce, partial=partial, errors=s.errors,
                       unconfirmed=s.unconfirmed, error=error, error_matrix=error_matrix,
                       **base)


def check_claims(n: int = 2000, seed: int = 0, *, min_K: int = 2, max_K: int = 8,
                 claims: Sequence[str | Claim] | None = None,
                 time_limit: float | None = None, max_shrinks: int = 500,
                 shrink_time: float = 20.0, progress: bool | None = False) -> ClaimsReport:
    """Search for counterexamples to the claims of docs/math.md §8.

    Parameters
    ----------
    n : int
        Matrices generated per claim (hypothesis ``max_examples``).
    seed : int
        Seeds hypothesis' random source: the same seed gives the same report.
    min_K, max_K : int
        Range of K; each claim further caps K at its ``max_K`` (LP claims: 6–7).
    claims : list of str or Claim, optional
        Names (see :func:`claim_names`) or :class:`Claim` records; default all.
    time_limit : float, optional
        Seconds per claim; a claim that runs out reports "holds" on the matrices
        tried so far, marked partial.
    max_shrinks, shrink_time : int, float
        Evaluations / seconds spent shrinking a counterexample (the smallest
        found within them is reported).
    progress : bool or None
        Show a progress bar per claim on stderr (tqdm); None: only on a terminal.

    Returns
    -------
    ClaimsReport
        Per claim: matrices tried and errored, status, the shrunk counterexample with
        both certified sides; :meth:`ClaimsReport.exit_code` summarises.

    Notes
    -----
    A claim is "fails" only when the smallest violation found is re-evaluated outside
    the search with :func:`certify` and its intervals strictly violate the relation.
    Solver failures (:class:`~duelbound.errors.SolverError`) while evaluating a matrix are
    counted in ``errors`` and never taken for violations; any other exception is a bug in
    the evaluation and makes the claim "error" (exit code 2) with the matrix that raised
    it; hypothesis' own errors (FlakyFailure, ...) end that claim's search and are
    reported in ``error``.
    """
    if n < 1:
        raise InvalidStrategyArgument(f"n must be >= 1, got {n}")
    chosen = [get_claim(x) if isinstance(x, str) else x for x in claims] if claims \
        else list(CLAIMS)
    report = ClaimsReport(n=n, seed=seed, min_K=min_K, max_K=max_K)
    for c in chosen:
        report.results.append(_check_one(c, n, seed, min_K, max_K, time_limit,
                                         max_shrinks, shrink_time, progress))
    return report

"""Executable claims of the theory (SPEC §4), checked with hypothesis.

Every claim is one :class:`Claim` record in :data:`CLAIMS`: a source (paper and
theorem/equation), a statement, a relation (``<=``, ``>=``, ``==``) and a
function ``sides(M) -> Sides`` that computes both sides of the relation on a
preference matrix.  :func:`check_claims` searches generated matrices for a
violation with :func:`hypothesis.find` (derandomised from ``seed``, no example
database) and returns, per claim, the number of matrices tried and either
"holds" or the *shrunk* smallest counterexample with both sides.

Examples
--------
>>> from duelbound.checks.claims import check_claims
>>> report = check_claims(n=20, seed=0, claims=["z15-lemma7"])
>>> report.results[0].status
'holds'

Notes
-----
"Theorem 2 vs algorithms" ([K16] Th. 2: no strongly consistent algorithm has
regret/log T below C* asymptotically) is registered with ``sides=None``: it is a
statement about the limit T → ∞ of a random quantity, not a predicate on a
matrix, so no finite simulation can refute it; the verification harness
(:func:`duelbound.checks.harness.verify`, check "regret/log T vs C*") reports
the measured regret/log T next to C* instead, as a WARN when it sits below.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from random import Random
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from duelbound.theory import structure as stc
from duelbound.theory.errors import UnknownNameError
from duelbound.theory.kl import kl_half
from duelbound.theory.matrix import PreferenceMatrix
from duelbound.theory.regret import regret_matrix

from .strategies import InvalidStrategyArgument, preference_matrices

__all__ = ["Sides", "Claim", "ClaimResult", "ClaimsReport", "CLAIMS", "claim_names",
           "get_claim", "evaluate", "check_claims"]

#: Relative tolerance of every comparison (floating LP values are compared, see docs).
REL_TOL = 1e-7


@dataclass
class Sides:
    """Both sides of a claim on one matrix; ``detail`` names where the worst case sits."""

    lhs: float
    rhs: float
    detail: str = ""


@dataclass(frozen=True)
class Claim:
    """One executable claim of SPEC §4.

    Attributes
    ----------
    name : short identifier (``duelbound check-claims`` prints it).
    source : paper and theorem/equation.
    statement : the inequality in words/symbols.
    relation : ``"<="``, ``">="`` or ``"=="`` between ``lhs`` and ``rhs``.
    sides : ``M -> Sides``, or None for claims that are no finite predicate.
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
    """[Z15] Lemma 8, explicit form implied by Lemma 7 (SPEC §4)."""
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
        raise RuntimeError(f"linprog: {res.message}")
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
    return worst


def _per_winner(M: PreferenceMatrix) -> tuple[dict[int, float], dict[int, float]]:
    from duelbound.solvers import ecw_bound
    from duelbound.solvers.lower_bound import lower_bound

    ce = ecw_bound(M).per_winner
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
    from duelbound.solvers.oracle import ecw_oracle_core

    mu = np.ascontiguousarray(M.values, dtype=np.float64)
    vals = {i1: float(ecw_oracle_core(mu, i1, _evidence_44(M, i1)))
            for i1 in stc.copeland_winners(M)}
    i1 = min(vals, key=vals.get)
    return Sides(vals[i1], 1.0, f"i1 = {i1}")


def _ecw_in_cw_region(M: PreferenceMatrix) -> Sides:
    """R^E_{i1} ⊆ R_{i1}: the optimal ECW allocation satisfies every constraint of R_{i1}."""
    from duelbound.solvers import ecw_bound
    from duelbound.solvers.oracle import cw_oracle_core

    mu = np.ascontiguousarray(M.values, dtype=np.float64)
    d = kl_half(M.values)
    res = ecw_bound(M)
    vals = {}
    for i1, q in res.allocations.items():
        vals[int(i1)] = float(np.min(cw_oracle_core(mu, int(i1), np.asarray(q) * d)))
    i1 = min(vals, key=vals.get)
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
    from duelbound.solvers import ecw_bound

    ce = ecw_bound(M).per_winner
    i1 = max(ce, key=lambda i: ce[i] - _rhs11(M, int(i)))
    return Sides(float(ce[i1]), _rhs11(M, int(i1)), f"i1 = {i1}")


def _eq12(M: PreferenceMatrix) -> Sides:
    from duelbound.solvers import ecw_bound

    return Sides(float(ecw_bound(M).value), _rhs12(M))


def _eq11_le_eq12(M: PreferenceMatrix) -> Sides:
    """The seed derives (12) by maximising (11): min_{i1} RHS11(i1) ≤ RHS12."""
    vals = {i1: _rhs11(M, i1) for i1 in stc.copeland_winners(M)}
    i1 = min(vals, key=vals.get)
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
          max_K=7),
    Claim("k16-th6-ineq", "[K16] Theorem 6, (8)", "C^E*_{i1} >= C*_{i1} for every winner i1",
          ">=", _theorem6_ineq, max_K=6),
    Claim("k16-th6-eq", "[K16] Theorem 6, (9)", "C^E*_{i1} = C*_{i1} for every winner if C >= 2",
          "==", _theorem6_eq, max_K=6, strategy=_several_winners),
    Claim("k16-4.4-alloc", "[K16] §4.4 (before (11))",
          "x_{i1 j} = 1 (j in I_i1), x_{j i2} = 1/(L_i2 - L1 + 1) lies in R^E_{i1}: "
          "min LHS of (4)-(5) >= 1", ">=", _allocation_44),
    Claim("k16-ecw-in-cw", "[K16] Theorem 6 (proof: R^E_{i1} within R_{i1})",
          "the optimal C^E* allocation satisfies every constraint of R_{i1}: min LHS >= 1",
          ">=", _ecw_in_cw_region),
    Claim("k16-eq11", "[K16] (11)",
          "C^E*_{i1} <= (1/d(1/2+Dmin,1/2)) sum_{i2!=i1} (1 + L_i2/(L_i2 - L1 + 1)), "
          "per winner", "<=", _eq11),
    Claim("k16-eq12", "[K16] (12)",
          "min C^E* <= (K/d(1/2+Dmin,1/2)) (L1 + 3/2 + L1^2/K)", "<=", _eq12),
    Claim("k16-eq11-le-eq12", "[K16] derivation of (12) from (11)",
          "right side of (11) <= right side of (12)", "<=", _eq11_le_eq12,
          expected="fails", strategy=_condorcet_half,
          note="fails when L1 = 0: L/(L+1) terms add up to ~K, so (11) ~ 2K/d while (12) "
               "= 1.5K/d (smallest: K = 7); (12) itself is not refuted"),
    Claim("z15-lemma7", "[Z15] Lemma 7", "|{i : L_i <= d}| <= 2d + 1 for every d >= 0 "
          "(worst d)", "<=", _lemma7, max_K=10),
    Claim("z15-lemma8", "[Z15] Lemma 8 (explicit form, SPEC §4)",
          "sum_{L_i>=1} (K-1)/L_i <= (K-1) sum_{m=1..K} 1/max(1, ceil((m-1)/2))", "<=",
          _lemma8, max_K=10),
    Claim("k16-th2-algorithms", "[K16] Theorem 2 vs algorithms",
          "no strongly consistent algorithm's regret/log T settles below C*", ">=", None,
          expected="deferred",
          note="asymptotic statement about a random quantity: no finite predicate; "
               "verify() reports regret/log T vs C* per matrix"),
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


def evaluate(claim: str | Claim, M: PreferenceMatrix) -> tuple[bool, Sides]:
    """Both sides of ``claim`` on ``M`` and whether the relation holds."""
    c = get_claim(claim) if isinstance(claim, str) else claim
    if c.sides is None:
        raise UnknownNameError(f"claim {c.name!r} is not a predicate on a matrix ({c.note})")
    s = c.sides(M)
    return c.holds(s), s


@dataclass
class ClaimResult:
    """Verdict of one claim.

    ``status`` is "holds" (no violation among ``tried`` matrices), "fails" (a
    counterexample, shrunk), "error" (the computation raised; the shrunk matrix
    and the message are kept) or "deferred" (no finite predicate, see ``note``).
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

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ClaimsReport:
    """Result of :func:`check_claims`: one :class:`ClaimResult` per claim."""

    n: int
    seed: int
    min_K: int
    max_K: int
    results: list[ClaimResult] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "seed": self.seed, "min_K": self.min_K, "max_K": self.max_K,
                "results": [r.to_dict() for r in self.results]}

    def table(self) -> str:
        """Plain-text verdict table, then every counterexample as a matrix."""
        head = f"{'claim':<20} {'source':<42} {'tried':>6} {'verdict':<9} expected"
        lines = [head, "-" * len(head)]
        for r in self.results:
            verdict = r.status + ("*" if r.partial else "")
            lines.append(f"{r.name:<20} {r.source[:42]:<42} {r.tried:>6} {verdict:<9} "
                         f"{r.expected}")
        for r in self.results:
            if r.counterexample:
                ce = r.counterexample
                lines += ["", f"{r.name}: {r.statement}",
                          f"  counterexample (K = {len(ce['matrix'])}, shrunk):"]
                lines += ["    " + " ".join(f"{v:.6g}" for v in row) for row in ce["matrix"]]
                if "error" in ce:
                    lines.append(f"  error: {ce['error']}")
                else:
                    lines.append(f"  lhs = {ce['lhs']:.10g}  {r.relation}  rhs = {ce['rhs']:.10g}"
                                 f"  is false ({ce['detail']})")
            if r.note and r.status != "holds":
                lines.append(f"  note ({r.name}): {r.note}")
        if any(r.partial for r in self.results):
            lines.append("* time limit reached before n matrices")
        return "\n".join(lines)


class _OutOfTime(BaseException):
    """Raised through hypothesis' engine when the time limit is reached.

    A BaseException, like :class:`_ShrinkBudget`: an ``Exception`` would count as a
    failing example, which hypothesis then replays, finds passing, and reports as flaky.
    """


class _ShrinkBudget(BaseException):
    """Raised through hypothesis' engine (it only catches Exception) to stop shrinking."""


def _strategy(c: Claim, min_K: int, max_K: int) -> st.SearchStrategy:
    hi = min(max_K, c.max_K)
    lo = min(min_K, hi)
    if callable(c.strategy):
        return c.strategy(max(lo, 2), hi)
    return preference_matrices(min_K=lo, max_K=hi, **(c.strategy or {}))


def _check_one(c: Claim, n: int, seed: int, min_K: int, max_K: int,
               time_limit: float | None, max_shrinks: int, shrink_time: float) -> ClaimResult:
    base = dict(name=c.name, source=c.source, statement=c.statement, relation=c.relation,
                expected=c.expected, note=c.note)
    if c.sides is None:
        return ClaimResult(status="deferred", tried=0, seconds=0.0, **base)
    start = time.perf_counter()
    tried = [0]
    failing = [False]

    shrinks = [0]
    best: list[PreferenceMatrix | None] = [None]
    fail_start = [0.0]

    def tick(M: PreferenceMatrix) -> PreferenceMatrix:
        # most of the shrinker's calls end inside the draw: check its clock here too
        if failing[0] and time.perf_counter() - fail_start[0] > shrink_time:
            raise _ShrinkBudget
        return M

    def violated(M: PreferenceMatrix) -> bool:
        if not failing[0]:
            if time_limit is not None and time.perf_counter() - start > time_limit:
                raise _OutOfTime
            tried[0] += 1
        else:
            shrinks[0] += 1
            if shrinks[0] > max_shrinks:
                raise _ShrinkBudget  # leaves hypothesis' engine; best[0] is reported
        try:
            ok, s = evaluate(c, M)
        except Exception:  # an exception is a finding too: shrink it, report it below
            ok = False
        if not ok:
            # the shrinker only tries candidates smaller than its current example and
            # adopts every failing one, so the latest failure is the smallest so far
            if not failing[0]:
                failing[0], fail_start[0] = True, time.perf_counter()
            best[0] = M
        return not ok

    cfg = settings(max_examples=n, database=None, deadline=None, derandomize=False,
                   phases=[Phase.generate, Phase.shrink],
                   suppress_health_check=list(HealthCheck))
    partial = False
    M = None
    try:
        M = find(_strategy(c, min_K, max_K).map(tick), violated, settings=cfg, random=Random(seed))
    except NoSuchExample:
        status, ce = "holds", None
    except _OutOfTime:
        status, ce, partial = "holds", None, True
    except _ShrinkBudget:
        M = best[0]
    if M is not None:
        # find() returns the shrunk example: recompute its sides for the report
        try:
            _, s = evaluate(c, M)
            ce = dict(matrix=M.values.tolist(), lhs=s.lhs, rhs=s.rhs, detail=s.detail)
        except Exception as exc:
            ce = dict(matrix=M.values.tolist(), error=f"{type(exc).__name__}: {exc}")
        ce["shrink_steps"] = min(shrinks[0], max_shrinks)
        status = "error" if "error" in ce else "fails"
    return ClaimResult(status=status, tried=tried[0], seconds=time.perf_counter() - start,
                       counterexample=ce, partial=partial, **base)


def check_claims(n: int = 2000, seed: int = 0, *, min_K: int = 2, max_K: int = 8,
                 claims: Sequence[str] | None = None,
                 time_limit: float | None = None, max_shrinks: int = 500,
                 shrink_time: float = 20.0) -> ClaimsReport:
    """Search for counterexamples to the claims of SPEC §4.

    Parameters
    ----------
    n : int
        Matrices generated per claim (hypothesis ``max_examples``).
    seed : int
        Seeds hypothesis' random source: the same seed gives the same report.
    min_K, max_K : int
        Range of K; each claim further caps K at its ``max_K`` (LP claims: 6–7).
    claims : list of str, optional
        Names (see :func:`claim_names`); default all.
    time_limit : float, optional
        Seconds per claim; a claim that runs out reports "holds" on the matrices
        tried so far, marked partial.
    max_shrinks, shrink_time : int, float
        Evaluations / seconds spent shrinking a counterexample (the smallest
        found within them is reported).

    Returns
    -------
    ClaimsReport
        Per claim: matrices tried, status, shrunk counterexample with both sides.
    """
    if n < 1:
        raise InvalidStrategyArgument(f"n must be >= 1, got {n}")
    chosen = [get_claim(x) for x in claims] if claims else list(CLAIMS)
    report = ClaimsReport(n=n, seed=seed, min_K=min_K, max_K=max_K)
    for c in chosen:
        report.results.append(_check_one(c, n, seed, min_K, max_K, time_limit,
                                                 max_shrinks, shrink_time))
    return report

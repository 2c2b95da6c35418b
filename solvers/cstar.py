"""The asymptotic regret lower bound C* of [K16] Theorem 2 (docs/math.md §5).

C*_{i1} = min Σ_{pairs} r_ij q_ij over q ∈ R_{i1} (komiyama regret), for every
Copeland winner i1, and C* = min_{i1} C*_{i1}: every strongly consistent algorithm
has E[R(T)] ≥ C* log T − o(log T), and CW-RMED attains it.

Examples
--------
>>> from duelbound.theory import datasets
>>> from duelbound.solvers import lower_bound
>>> res = lower_bound(datasets.load("cyclic"))
>>> round(res.value, 4), res.certificate["status"]
(27.5487, 'exact')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..theory import tournament as st
from ..theory.errors import DuelboundError, SolverError, UnknownNameError
from ..theory.matrix import PreferenceMatrix
from ..theory.regret import ConventionMixin, regret_matrix
from .certificate import LowerBoundProof, certify_lower_bound, certify_mode, symbolic_value
from .ecw import allocation_fields, ecw_winner_core
from .enclosure import enclose, float_above, float_below
from .formulations import (
    CompactBuilder,
    LPData,
    PairIndex,
    compact_lp,
    explicit_count,
    explicit_rows,
    pair_index,
    rows_lp,
    violated_rows,
)
from .lp import LPSolution, PulpLP
from .oracle import (
    Constraint,
    cw_oracle_core,
    l_range_core,
    losses_core,
    tight_constraints,
)

__all__ = ["lower_bound", "LowerBoundResult", "METHODS", "CERTIFY_MAX_K", "ENUMERATE_MAX_ROWS",
           "AUTO_METHOD", "LP_MAX_K", "estimate_seconds"]

METHODS = ("auto", "compact", "rowgen", "families", "enumerate")
#: ``method="auto"`` picks this one (the faster in benchmarks/bench_lower_bound.py).
AUTO_METHOD = "families"
#: ``certify=None`` certifies up to this K, in exact arithmetic (~0.65 s CPU per winner at
#: K = 136 with the enclosure, docs/lower_bound.md); ``certify=True`` above it starts with the
#: floating-point (float-dual) certificate (:data:`~duelbound.solvers.certificate.EXACT_MAX_K`).
CERTIFY_MAX_K = 136
#: ``method="enumerate"`` refuses when one winner's R_{i1} has more constraints than this.
ENUMERATE_MAX_ROWS = 20_000
#: Row generation stops when no constraint is violated by more than this.
ROWGEN_TOL = 1e-9
#: Violation an LP solution may show on rows already in the LP (HiGHS feasibility tolerance).
_FEAS_TOL = 1e-6
ROWGEN_MAX_ROUNDS = 1_000
#: Largest K for which :func:`lower_bound` starts an LP by default (see ``max_k``).
LP_MAX_K = 500


def _levels(M: PreferenceMatrix) -> int:
    """L2 − L1 + 2: the number of values of l in the constraints of R_{i1}."""
    Ls = np.sort(st.losses(M))
    return int(Ls[1] - Ls[0] + 2)


def _lp_rows_estimate(M: PreferenceMatrix) -> float:
    """Rows of the family LP: ~one family per arm and level, each a block of ~K/2 rows."""
    return 0.5 * M.K * M.K * _levels(M)


def _fmt_seconds(t: float) -> str:
    return f"{t:.0f} s" if t < 120 else f"{t / 60:.0f} min" if t < 7200 else f"{t / 3600:.0f} h"


@dataclass
class LowerBoundResult(ConventionMixin):
    """C* ([K16] Theorem 2) with its allocation, evidence, statistics and certificate.

    Attributes
    ----------
    value : float
        C* = min over Copeland winners of C*_{i1} (komiyama convention): the
        coefficient of log T in the regret lower bound.
    per_winner : dict of int to float
        C*_{i1} for every Copeland winner.
    winners : list of int
        The minimising winners.
    allocation : numpy.ndarray
        q* (K×K, symmetric) of the first minimising winner: N_ij(T) ≈ q*_ij log T.
    allocations : dict of int to numpy.ndarray
        q* of every Copeland winner.
    evidence : numpy.ndarray
        x* = q*·d of the first minimising winner (in [0, 1]).
    tight : dict of int to list of Constraint
        Constraints of R_{i1} tight at x* (one per (i2, l, case)), every winner.
    stats : dict
        method, backend, rounds, LP solves, rows in the LP, rows generated,
        explicit constraint count, wall time.
    symbolic : object or None
        sympy expression of C* in the d_ij (``symbolic=True``).
    proof : LowerBoundProof
        The proof of C*, in one object: every winner's verified certificate (exact
        rationals) and the enclosure of C* for the matrix as written built from them
        (:mod:`.certificate`, :mod:`.enclosure`).  :attr:`certificate` and
        :attr:`enclosure` are its JSON-ready views; :meth:`certificate_document` its
        self-contained, independently checkable document.
    """

    value: float
    per_winner: dict[int, float]
    winners: list[int]
    allocation: np.ndarray
    allocations: dict[int, np.ndarray] = field(repr=False)
    evidence: np.ndarray = field(repr=False)
    tight: dict[int, list[Constraint]] = field(repr=False)
    stats: dict[str, Any] = field(default_factory=dict)
    symbolic: Any = None
    convention: str = "komiyama"
    proof: LowerBoundProof = field(default_factory=LowerBoundProof, repr=False,
                                   compare=False)

    quantity = "C*"
    __repr__ = ConventionMixin.__repr__  # the dataclass would write its own

    @property
    def certificate(self) -> dict[str, Any]:
        """The certificates' statement (read-only view of :attr:`proof`): ``status`` in
        {"exact", "enclosed", "failed", "uncertified"} ("enclosed": C* rigorously within
        [``lower_float``, ``upper_float``], its ``width`` beside), the ``message`` or
        ``reason``, and ``per_winner`` details (exact rationals as strings)."""
        return self.proof.certificate_summary()

    @property
    def enclosure(self) -> dict[str, Any]:
        """With a verified certificate: ``lower``/``upper`` (binary64, rounded outwards)
        enclosing the true C* of the matrix as written (decimal text read exactly, d(µ, ½)
        enclosed rigorously; :mod:`.enclosure`), its ``relative_width``, ``source``,
        ``per_winner`` and ``ecw`` brackets; {} without (read-only view of :attr:`proof`)."""
        return self.proof.enclosure_summary()

    def to_dict(self) -> dict[str, Any]:
        proof = self.proof.to_dict()
        return {
            **allocation_fields(self),
            "evidence": self.evidence.tolist(),
            "tight": {str(k): [c.to_dict() for c in v] for k, v in self.tight.items()},
            "stats": self.stats,
            "certificate": proof["certificate"],
            "symbolic": None if self.symbolic is None else str(self.symbolic),
            "enclosure": proof["enclosure"],
            "convention": self.convention,
            "source": "[K16] Theorem 2 (docs/math.md §5)",
        }

    def certificate_document(self, **meta: Any) -> dict[str, Any]:
        """The proof of :attr:`enclosure` as a self-contained, versioned JSON-ready document
        (docs/certificates.md), checked by ``duelbound check-certificate`` /
        :func:`duelbound.checks.proof.check_certificate` without any solver.

        ``meta`` (e.g. ``generator``, ``matrix_name``, ``arms``) is stored as given.

        Raises
        ------
        DuelboundError
            The result has no verified certificate (``certify=False``, or verification
            failed).
        """
        enc = self.proof.enclosure
        if enc is None:
            raise DuelboundError("no certificate to export: compute the bound with "
                                 "certify=True (CLI: --certify) and a verified certificate")
        return enc.document() | {"meta": meta} if meta else enc.document()


@dataclass
class WinnerSolve:
    """One winner's LP: data, solution, pair numbering, statistics (used by the certificate)."""

    i1: int
    px: PairIndex
    data: LPData
    sol: LPSolution
    x: np.ndarray  # pair evidence vector
    stats: dict[str, Any]


def _solve_compact(mu, i1, px, backend):
    data = compact_lp(mu, i1, px)
    sol = PulpLP(data, backend).solve()
    return data, sol, {"rounds": 1, "lp_solves": 1, "rows": data.n_rows,
                       "rows_generated": 0, "columns": data.n_cols,
                       "nonzeros": int(data.indices.size), "simplex_iterations": sol.iterations}


#: Seconds before row generation shows its round counter (``progress``).
ROWGEN_PROGRESS_AFTER = 10.0


def _solve_rowgen(mu, i1, px, backend, tol=ROWGEN_TOL, progress=False):
    """Row generation with the sorting oracle; ``progress``: after
    :data:`ROWGEN_PROGRESS_AFTER` s a counter of rounds and rows on stderr (tqdm, terminal
    only) — the number of rounds is not known in advance (K = 100: minutes)."""
    from tqdm import tqdm

    K = mu.shape[0]
    keys, rows = violated_rows(mu, i1, px, np.zeros((K, K)), tol)
    model = PulpLP(rows_lp(px, list(zip(keys, rows))), backend)
    generated = len(rows)
    bar = tqdm(desc=f"C*_{i1} row generation (K = {K})", unit="round", leave=False,
               delay=ROWGEN_PROGRESS_AFTER, disable=None if progress else True)
    try:
        for rounds in range(1, ROWGEN_MAX_ROUNDS + 1):  # noqa: B007
            sol = model.solve()
            x_full = px.symmetric(sol.v[:px.pairs.shape[0]])
            keys, rows = violated_rows(mu, i1, px, x_full, tol)
            bar.set_postfix_str(f"{model.data.n_rows} rows, {len(rows)} violated",
                                refresh=False)
            bar.update()
            if not rows:
                break
            model.add_rows(keys, rows)
            generated += len(rows)
        else:
            raise SolverError(f"row generation did not converge in {ROWGEN_MAX_ROUNDS} rounds")
    finally:
        bar.close()
    return model.data, sol, {"rounds": rounds, "lp_solves": model.n_solves,
                             "rows": model.data.n_rows, "rows_generated": generated,
                             "columns": model.data.n_cols}


def initial_families(mu: np.ndarray, i1: int, families) -> list[tuple[int, int, int]]:
    """The families family generation starts from.

    One Copeland winner: the smallest l of every (i2, case) (the l = L1 − 1 rows,
    i.e. ECW's (5), and the case-1 rows at l = L1 are the ones mostly tight at the
    optimum).  Several winners (L2 = L1): the (5) rows (l = L1 − 1) of every i2 and
    both rows at l = L1 of one other winner i2w, which read x_{i1 j} ≥ 1 for every
    j ∈ I_{i1} (ECW's (4)).  Those rows describe R^E_{i1} ([K16] §4.2), which lies in
    R_{i1} ([K16] Theorem 6, (8)), so the first LP's optimum is already in R_{i1}: one
    round, and the oracle check of :meth:`FamilyModel.solve` proves it (the value is
    C^E*_{i1}, [K16] (9)) — no reliance on the claim.
    """
    L = losses_core(mu)
    others = [int(j) for j in np.flatnonzero(L == L[i1]) if j != i1]
    if others:
        l1, i2w = int(L[i1]), others[0]
        return sorted(k for k in families
                      if k[1] == l1 - 1 or (k[0] == i2w and k[1] == l1))
    first: dict = {}
    for i2, l, case in families:
        if (i2, case) not in first or l < first[(i2, case)][1]:
            first[(i2, case)] = (i2, l, case)
    return sorted(first.values())


class FamilyModel:
    """Family generation for C*_{i1}: the compact formulation, one (i2, l, case) row at a time.

    Start with the smallest l of each (i2, case) (at the optimum most tight families
    are these: l = L1 − 1, the ECW-like rows, and the case-1 rows at l = L1); each
    round of :meth:`solve` adds the most violated family of every i2 (oracle at the
    current x) with its compact block, which enforces all that family's constraints at
    once.  The blocks and rows are appended to the live HiGHS model, which re-solves
    from the previous basis.  The final LP is a relaxation of R_{i1} whose optimum lies
    in R_{i1} (the oracle finds no violated family), so it is optimal: the value is
    C*_{i1}.

    In the evidence variables x = q·d the constraints depend on the tournament only
    (docs/math.md §5); the matrix enters through the costs c_p = r_p/d_p.  :meth:`set_costs`
    moves the model to another matrix with the same tournament, keeping the families
    found so far (still valid rows) and the basis (warm re-solve) — the way the
    simulator's CW-RMED re-solves on µ̂.  ``lean``: solutions carry the column values and
    the basis only, no duals (``PulpLP.lean``; what the simulator's tracker reads).
    """

    def __init__(self, mu: np.ndarray, i1: int, px: PairIndex, backend: str | None = None,
                 *, backend_checked: bool = False, lean: bool = False):
        self.mu, self.i1, self.px = mu, i1, px
        self.l0 = l_range_core(losses_core(mu))[0]
        self.bld = CompactBuilder(mu, i1, px)
        self.bld.add_families(initial_families(mu, i1, self.bld.families))
        self.model = PulpLP(self.bld.finish(px.pairs.shape[0]), backend,
                            backend_checked=backend_checked)
        self.model.lean = lean  # solutions carry values and basis only (no duals)
        self.rounds = self.iterations = 0

    def set_costs(self, mu: np.ndarray, px: PairIndex) -> None:
        """Move to ``mu`` (same tournament, so same pairs and families): new costs px.cost."""
        self.mu, self.px = mu, px
        self.bld.c[0] = px.cost  # columns appended later are built from the builder
        self.model.set_costs(px.cost)

    def solve(self, tol: float = ROWGEN_TOL) -> LPSolution:
        """Re-solve, adding violated families until the oracle finds none."""
        px = self.px
        P = px.pairs.shape[0]
        for _ in range(ROWGEN_MAX_ROUNDS):
            sol = self.model.solve()
            self.rounds += 1
            self.iterations += sol.iterations
            x_full = px.symmetric(np.clip(sol.v[:P], 0.0, 1.0))
            V = cw_oracle_core(self.mu, self.i1, x_full)
            new = []
            for i2 in np.flatnonzero(V.min(axis=(1, 2)) < 1.0 - tol):
                # most violated family of i2 not yet in the LP (an active one can only
                # show a violation of the size of the solver's feasibility tolerance)
                order = np.argsort(V[i2], axis=None, kind="stable")
                for flat in order:
                    li, case = np.unravel_index(flat, V[i2].shape)
                    if V[i2, li, case] >= 1.0 - tol:
                        break
                    key = (int(i2), int(self.l0 + li), int(case))
                    if key not in self.bld.active:
                        new.append(key)
                        break
            if not new:
                if V.min() < 1.0 - _FEAS_TOL:
                    raise SolverError(f"family generation: LP solution violates R_{{i1}} by "
                                      f"{1.0 - V.min():.2e}")
                return sol
            self.bld.add_families(new)
            self.model.grow(self.bld.finish(P))
        raise SolverError(f"family generation did not converge in {ROWGEN_MAX_ROUNDS} rounds")


def _solve_families(mu, i1, px, backend, tol=ROWGEN_TOL):
    """One-shot :class:`FamilyModel` solve."""
    fm = FamilyModel(mu, i1, px, backend)
    sol = fm.solve(tol)
    model = fm.model
    return model.data, sol, {"rounds": fm.rounds, "lp_solves": model.n_solves,
                             "rows": model.data.n_rows, "rows_generated": len(fm.bld.active),
                             "families": f"{len(fm.bld.active)}/{len(fm.bld.families)}",
                             "columns": model.data.n_cols,
                             "nonzeros": int(model.data.indices.size),
                             "simplex_iterations": fm.iterations}


def _solve_enumerate(mu, i1, px, backend):
    n = explicit_count(mu, i1)
    if n > ENUMERATE_MAX_ROWS:
        raise DuelboundError(
            f"method='enumerate' would need {n} constraints for winner {i1} (limit "
            f"{ENUMERATE_MAX_ROWS}); use method='compact' or 'rowgen'")
    data = rows_lp(px, list(explicit_rows(mu, i1, px)))
    sol = PulpLP(data, backend).solve()
    return data, sol, {"rounds": 1, "lp_solves": 1, "rows": data.n_rows,
                       "rows_generated": 0, "columns": data.n_cols}


_SOLVERS = {"compact": _solve_compact, "rowgen": _solve_rowgen, "families": _solve_families,
            "enumerate": _solve_enumerate}


def _solve_threshold(mu, i1, px, d, r):
    """C*_{i1} with several Copeland winners, no LP: ECW's sorted threshold, checked.

    With C ≥ 2, R_{i1} contains the rows of R^E_{i1} (see :func:`initial_families`) and
    R^E_{i1} ⊆ R_{i1} ([K16] Theorem 6), so C*_{i1} = C^E*_{i1} ([K16] (9)) and ECW's
    threshold allocation ([K16] Theorem 5) is optimal.  Not taken on trust: the
    allocation is checked against every constraint of R_{i1} by the oracle (None if
    that fails: the caller solves the LP).  No basis, so no certificate from it.
    """

    t0 = time.perf_counter()
    K = mu.shape[0]
    q = np.zeros((K, K))
    ecw_winner_core(mu, d, r, i1, q)
    xf = np.clip(q * d, 0.0, 1.0)
    if cw_oracle_core(mu, i1, xf).min() < 1.0 - ROWGEN_TOL:
        return None
    x = xf[px.pairs[:, 0], px.pairs[:, 1]]
    sol = LPSolution(float(px.cost @ x), x, np.zeros(0), np.zeros(0), "threshold",
                     time.perf_counter() - t0)
    return None, sol, {"rounds": 0, "lp_solves": 0, "rows": 0, "rows_generated": 0,
                       "columns": int(x.size), "families": "R^E rows (C >= 2)"}


def solve_winner(M: PreferenceMatrix, i1: int, method: str = "auto",
                 backend: str | None = None, *, need_basis: bool = True,
                 progress: bool = False) -> WinnerSolve:
    """Solve the LP of C*_{i1} for one Copeland winner (no certificate).

    ``need_basis=False`` (no certificate wanted) lets ``method="auto"`` skip the LP
    when there are several Copeland winners (:func:`_solve_threshold`).  ``progress``:
    row generation shows its rounds on stderr once it has run 10 s.
    """
    auto = method == "auto"
    method = AUTO_METHOD if auto else method
    if method not in _SOLVERS:
        raise UnknownNameError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    mu = np.ascontiguousarray(M.values)
    d = st.divergences(M)
    r = regret_matrix(M, "komiyama")
    px = pair_index(mu, d, r, i1)
    t0 = time.perf_counter()
    out = None
    if auto and not need_basis and len(st.copeland_winners(M)) >= 2:
        out = _solve_threshold(mu, i1, px, d, r)
        method = "threshold" if out is not None else method
    kw = {"progress": progress} if method == "rowgen" else {}
    data, sol, stats = out if out is not None else _SOLVERS[method](mu, i1, px, backend, **kw)
    # clip solver noise into the box; the certificate works on exact rationals anyway
    x = np.clip(sol.v[:px.pairs.shape[0]], 0.0, 1.0)
    stats.update(method=method, backend=sol.backend, wall_time=time.perf_counter() - t0,
                 explicit_constraints=str(explicit_count(mu, i1)))
    if sol.note:
        stats["note"] = sol.note
    return WinnerSolve(i1, px, data, sol, x, stats)


def estimate_seconds(K: int, levels: int = 3) -> float:
    """Rough single-winner LP time on one core: K arms, ``levels`` = L2 − L1 + 2 values
    of l (docs/lower_bound.md "Scale").  A crude fit to family generation with Devex
    pricing on random tournaments (3 levels): ~1.2 s at K = 136, 3 s at K = 200, 9 s at
    K = 300, 25–30 s at K = 500 (CPU seconds measured 1.0 / 2.5 / 8.5 / 23), growing like
    K^2.5 and like the square of the number of levels (K = 136 with 36 levels took
    ~400 s on a loaded machine before Devex)."""
    return 1.2 * (K / 136.0) ** 2.5 * (max(levels, 1) / 3.0) ** 2


def lower_bound(M: PreferenceMatrix, *, method: str = "auto", certify: bool | str | None = None,
                symbolic: bool = False, backend: str | None = None, progress: bool = False,
                max_k: int | None = LP_MAX_K) -> LowerBoundResult:
    """The regret lower bound C* of [K16] Theorem 2 for every Copeland winner (docs/math.md §5).

    Parameters
    ----------
    M : PreferenceMatrix
        Validated matrix without ties (Assumption A, docs/math.md §1).
    method : {"auto", "families", "compact", "rowgen", "enumerate"}
        LP formulation: the compact extended formulation generated family by family
        (warm-started re-solves), the whole compact formulation in one LP, row
        generation with the sorting oracle, or every constraint written out (small K
        only).  ``"auto"`` is :data:`AUTO_METHOD` (``"families"``, the fastest in
        benchmarks/bench_lower_bound.py).
    certify : bool or {"auto", "exact", "float-dual"}, optional
        Certify the value (:mod:`.certificate`).  ``"exact"``: in exact rational
        arithmetic (status ``"exact"``).  ``"float-dual"`` (deprecated spelling
        ``"interval"``, still accepted): the floating-point certificate
        first (HiGHS's duals read as exact dyadic rationals, split onto explicit
        constraints and verified exactly; status ``"enclosed"`` with its ``width``,
        ~1e-15 relative), the exact routes only if it fails.  ``True`` or ``"auto"``:
        exact up to K = ``EXACT_MAX_K`` (136), float-dual above.  Default (None):
        ``"auto"`` when K ≤ :data:`CERTIFY_MAX_K` (136), else none.
    symbolic : bool
        Also return C* as a sympy expression in the d_ij (requires an exact certificate).
    backend : str, optional
        PuLP solver name, ``"HiGHS"`` (default when available) or ``"PULP_CBC_CMD"``.
    progress : bool
        A progress bar per Copeland winner on stderr (tqdm; silent when stderr is not a
        terminal).
    max_k : int or None
        Refuse up front, with an estimate of the time, when an LP would be needed at
        K > max_k (default :data:`LP_MAX_K`); None: no limit.  Several Copeland winners
        without a certificate need no LP (:func:`_solve_threshold`), so no limit.

    Returns
    -------
    LowerBoundResult

    Raises
    ------
    SolverError
        No LP solver, or the solver reports a non-optimal status.
    DuelboundError
        ``method="enumerate"`` on a matrix with too many constraints (the
        message says how many); K above ``max_k`` when an LP is needed.

    Notes
    -----
    Variables are the evidences x_p = q_p d_p ∈ [0, 1] (0/1 constraint matrix,
    right-hand sides 1); q = x/d is reported.  With several Copeland winners the
    costs vanish on winner–winner pairs and the LP can have many optimal solutions;
    one is reported (its value is unique).

    References
    ----------
    [K16] Komiyama, Honda, Nakagawa, ICML 2016, Theorem 2 and §4.1.1.
    """
    if method not in METHODS:
        raise UnknownNameError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    t0 = time.perf_counter()
    K = M.K
    default_certify = certify is None
    if certify is None:
        mode = "auto"
        certify = K <= CERTIFY_MAX_K
    elif isinstance(certify, str):
        mode, certify = certify_mode(certify), True
    else:
        mode, certify = "auto", bool(certify)
    if symbolic:
        mode = "exact"
    winners = st.copeland_winners(M)
    need_lp = certify or symbolic or method != "auto" or len(winners) == 1
    if need_lp and max_k is not None and K > max_k:
        n = len(winners)
        raise DuelboundError(
            f"C* at K = {K} needs {n} LP(s) of ~{_lp_rows_estimate(M):.2g} rows each; estimated "
            f"{_fmt_seconds(n * estimate_seconds(K, _levels(M)))} on one core (limit K = {max_k}, "
            "docs/lower_bound.md 'Scale'); raise the limit (--max-k) to run it anyway")
    from tqdm import tqdm

    solves = {}
    for i1 in tqdm(winners, desc=f"C* (K = {K})", unit="winner", leave=False,
                   disable=None if progress else True):
        solves[i1] = solve_winner(M, i1, method, backend, need_basis=certify or symbolic,
                                  progress=progress)
    per = {i1: float(s.px.cost @ s.x) for i1, s in solves.items()}
    proof = LowerBoundProof(reason=f"K = {K} > {CERTIFY_MAX_K}, the default limit; pass "
                            "certify=True (--certify)" if default_certify else "certify=False")
    if certify:
        proof = _certified(M, solves, mode, per)
    best = min(per.values())
    mins = [i for i in winners if per[i] == best]
    allocs = {i1: s.px.symmetric(s.x / s.px.d) for i1, s in solves.items()}
    stats = {
        "method": solves[winners[0]].stats["method"],
        "backend": solves[winners[0]].stats["backend"],
        "per_winner": {str(i1): s.stats for i1, s in solves.items()},
        "lp_solves": sum(s.stats["lp_solves"] for s in solves.values()),
        "rows_generated": sum(s.stats["rows_generated"] for s in solves.values()),
        "wall_time": time.perf_counter() - t0,
    }
    sym = None
    if symbolic:
        sym = symbolic_value(M, solves[mins[0]], proof.per_winner.get(mins[0]))
    x_best = solves[mins[0]].px.symmetric(solves[mins[0]].x)
    tight = {i1: tight_constraints(M.values, i1, s.px.symmetric(s.x))
             for i1, s in solves.items()}
    return LowerBoundResult(best, per, mins, allocs[mins[0]], allocs, x_best, tight, stats,
                            sym, proof=proof)


def _certified(M: PreferenceMatrix, solves: dict[int, WinnerSolve], mode: str,
               per: dict[int, float]) -> LowerBoundProof:
    """The proof of C* (every winner certified, then enclosed for the matrix as written);
    ``per`` (the LP values) updated in place: an exact value replaces the float, and every
    value is clamped into its enclosure (a printed value never lies outside its printed
    bracket)."""
    proof = certify_lower_bound(M, solves, mode)
    for i1, p in proof.per_winner.items():
        if p.value_float is not None:
            per[i1] = p.value_float
    if not proof.verified:
        return proof
    # verified: every winner has its certificate (enclose refuses a missing winner)
    enc = enclose(M, solves, {i1: p.certificate for i1, p in proof.per_winner.items()
                              if p.certificate is not None})
    for i1, wp in enc.per_winner.items():
        per[i1] = min(max(per[i1], float_below(wp.lower)), float_above(wp.upper))
    return replace(proof, enclosure=enc)

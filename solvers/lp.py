"""LP back-ends: :class:`~duelbound.solvers.formulations.LPData` arrays into HiGHS or CBC.

The solver is reached through PuLP: HiGHS (highspy) via PuLP's ``HiGHS`` interface, CBC
when HiGHS is missing or fails on a model (:meth:`PulpLP.solve` retries with CBC before
raising, so C*, the claim checks and the harness all get the fallback). PuLP's HiGHS
interface adds the matrix one row at a time and cannot re-solve; the subclass
:class:`_BulkHiGHS` loads the arrays into the HiGHS model PuLP creates in two bulk calls
(``addCols``, ``addRows``) and, for row and family generation, appends only the new
columns and rows to the live model and re-solves from the previous basis. On this
(default) path PuLP's ``LpVariable``/``LpConstraint`` objects are not built — HiGHS
never reads them and at K = 136 they cost as much as the solve; with CBC they are built
in bulk and PuLP solves them (:meth:`PulpLP.pulp_problem` gives the PuLP model on either
path). :func:`solve_direct` solves the same arrays with highspy and no PuLP (the
benchmark's reference).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pulp

from ..compat import require
from ..theory import tournament as st
from ..theory.errors import SolverError
from ..theory.regret import regret_matrix
from .formulations import ColumnBuilder, LPData, pair_index
from .quiet import solver_stdout_guard

require("pulp", pulp.__version__)  # _BulkHiGHS below overrides PuLP internals

__all__ = ["LPSolution", "PulpLP", "available_backend", "solve_direct", "solve_ecw_lp"]


@dataclass
class LPSolution:
    """Optimal primal/dual solution of an LPData (min, ≥ rows, boxed columns)."""

    objective: float
    v: np.ndarray  # column values
    y: np.ndarray  # row duals (≥ 0 for ≥ rows of a minimisation)
    dj: np.ndarray  # reduced costs
    backend: str
    solve_time: float
    col_status: np.ndarray | None = None  # HiGHS basis (0 lower, 1 basic, 2 upper, ...)
    row_status: np.ndarray | None = None
    iterations: int = 0  # simplex iterations of this solve (HiGHS)
    note: str = ""  # e.g. "HiGHS failed (...); solved by CBC"


def available_backend(preferred: str | None = None) -> str:
    """``"HiGHS"`` if highspy is importable through PuLP, else ``"PULP_CBC_CMD"``.

    Raises
    ------
    SolverError
        Neither solver is available (or ``preferred`` is not).
    """
    have = pulp.listSolvers(onlyAvailable=True)
    for name in ([preferred] if preferred else ["HiGHS", "PULP_CBC_CMD"]):
        if name in have:
            return name
    raise SolverError(f"no LP solver available through PuLP (wanted {preferred or 'HiGHS/CBC'};"
                      f" found {have or 'none'}); install highspy")


#: Above this largest cost the costs sent to the solver are conditioned (:func:`solver_costs`):
#: at gaps |µ − ½| ≲ 1e-10 the costs r/d(µ, ½) pass HiGHS's "infinite" 1e20.
COST_RESCALE_ABOVE = 1e8
#: Largest cost sent to the solver after conditioning.
COST_CAP = 1e11


def solver_costs(c: np.ndarray) -> tuple[np.ndarray, float]:
    """Costs to hand the LP solver, and the power of two s they were scaled by.

    Costs up to :data:`COST_RESCALE_ABOVE` are sent unchanged (s = 1).  Above it:
    (1) scale by a power of two s ≤ 1 that brings the smallest positive cost into
    [1, 2) (exact: same bases, duals × s), so a matrix whose gaps are all tiny is
    solved as a normal one; (2) cap what still exceeds :data:`COST_CAP`.  A capped
    cost stays ≥ 1e7 times every uncapped one and HiGHS's absolute tolerances (1e-7)
    still see the small costs: the solver minimises the capped pairs' evidence
    first, which is what the true costs (up to 1e30 at one ulp from ½) demand.  This is
    a conditioning device, not a claim: objectives are recomputed with the true costs,
    and the exact certificate (:mod:`.certificate`) re-derives the duals from the
    basis with the exact costs, so a basis that is optimal for the capped costs only
    is not certified exact.
    """
    pos = c[c > 0]
    if not pos.size or float(pos.max()) <= COST_RESCALE_ABOVE:
        return c, 1.0
    if not np.all(np.isfinite(pos)):
        raise SolverError("an LP cost is not finite (a pair with µ = 1/2?)")
    scale = min(1.0, 2.0 ** -int(np.floor(np.log2(float(pos.min())))))
    return np.minimum(c * scale, COST_CAP), scale


#: HiGHS options of :class:`PulpLP`.  Devex pricing in the dual simplex instead of the
#: default (steepest edge / its Devex switch): on the final family LP of a one-winner
#: K = 200 tournament (74 449 rows, 94 293 columns) 2.2 s vs 3.8 s from scratch, the same
#: optimum and about the same iteration count (cheaper iterations); docs/lower_bound.md.
HIGHS_OPTIONS = {"simplex_dual_edge_weight_strategy": 1}


def _load_highs(h, data: LPData, costs: np.ndarray | None = None) -> None:
    """Columns and rows of ``data`` into a highspy model in two bulk calls.

    ``costs``: the (conditioned) costs to load instead of ``data.c``.
    """
    import highspy

    inf = highspy.kHighsInf
    n = data.n_cols
    h.addCols(n, data.c if costs is None else costs, data.lb, data.ub, 0,
              np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
    _add_rows(h, data.row_lb, data.indptr, data.indices, data.data, inf)


def _add_rows(h, row_lb, indptr, indices, vals, inf) -> None:
    nr = len(row_lb)
    if nr:
        h.addRows(nr, np.asarray(row_lb, dtype=np.float64), np.full(nr, inf),
                  int(indptr[-1] - indptr[0]), np.asarray(indptr[:-1] - indptr[0], dtype=np.int32),
                  np.asarray(indices, dtype=np.int32), np.asarray(vals, dtype=np.float64))


def _read_highs(h, backend: str, t0: float, scale: float = 1.0,
                lean_bounds: tuple[np.ndarray, np.ndarray] | None = None) -> LPSolution:
    """The solution of a solved highspy model; objective and duals divided by ``scale``.

    ``lean_bounds`` (the columns' lb, ub): read only the column values and the basis, the
    latter from ``getBasicVariables`` (one array) instead of ``getBasis`` (pybind11 builds
    one enum object per entry: 0.25 ms per list at 1771 columns, and converting each to
    int another 0.4 ms).  The statuses are then basic (1) or not; a nonbasic column is at
    its upper bound (2) when its value is nearer ub than lb, else at lb (0); a nonbasic
    row is 0.  That is the whole basis for the LPs here (finite lb, ≥ rows), which is
    all :class:`~duelbound.solvers.parametric.BasisTest` reads; ``y`` and ``dj`` are
    left empty (not read).
    """
    import highspy

    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"LP solver (HiGHS) did not reach optimality: "
                          f"{h.modelStatusToString(status)}")
    if lean_bounds is not None:
        return _read_highs_lean(h, backend, t0, scale, *lean_bounds)
    sol = h.getSolution()
    basis = h.getBasis()
    cs = rs = None
    if basis.valid:
        cs = np.array([int(s) for s in basis.col_status], dtype=np.int8)
        rs = np.array([int(s) for s in basis.row_status], dtype=np.int8)
    info = h.getInfo()
    return LPSolution(float(info.objective_function_value) / scale, _floats(sol.col_value),
                      _floats(sol.row_dual) / scale, _floats(sol.col_dual) / scale, backend,
                      time.perf_counter() - t0, cs, rs, int(info.simplex_iteration_count))


def _floats(values: list) -> np.ndarray:
    """A list of floats (highspy returns the solution's vectors as lists) as an array:
    ``np.fromiter`` with the type given, a third of ``np.array``'s time (it infers the type
    entry by entry: 0.2–0.5 ms for the 15 309 columns at K = 100)."""
    return np.fromiter(values, dtype=np.float64, count=len(values))


def _read_highs_lean(h, backend: str, t0: float, scale: float, lb: np.ndarray,
                     ub: np.ndarray) -> LPSolution:
    v = _floats(h.getSolution().col_value)
    flags = _basic_flags(h, len(v), h.getNumRow())
    info = h.getInfo()
    cs = rs = None
    if flags is not None:
        cs = np.where(np.abs(v - ub) < np.abs(v - lb), 2, 0).astype(np.int8)
        cs[flags[0]] = 1
        rs = flags[1].astype(np.int8)
    return LPSolution(float(info.objective_function_value) / scale, v, np.zeros(0),
                      np.zeros(0), backend, time.perf_counter() - t0, cs, rs,
                      int(info.simplex_iteration_count))


def _basic_flags(h, ncol: int, nrow: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Which columns and rows of the solved model are basic; None without a valid basis.

    From ``getBasicVariables`` (one array) where highspy has it; highspy 1.7 has only
    ``getBasis`` (one enum object per entry, slower but the same answer).
    """
    import highspy

    col = np.zeros(ncol, dtype=bool)
    row = np.zeros(nrow, dtype=bool)
    if hasattr(h, "getBasicVariables"):
        ok, basic = h.getBasicVariables()  # column j ≥ 0, row r as −1 − r
        if ok != highspy.HighsStatus.kOk:
            return None
        col[basic[basic >= 0]] = True
        row[-1 - basic[basic < 0]] = True
        return col, row
    basis = h.getBasis()
    if not basis.valid:
        return None
    is_basic = highspy.HighsBasisStatus.kBasic
    col[:] = [s == is_basic for s in basis.col_status]
    row[:] = [s == is_basic for s in basis.row_status]
    return col, row


def solve_direct(data: LPData, threads: int | None = None) -> LPSolution:
    """Solve ``data`` with highspy alone (no PuLP): the benchmark's reference time."""
    import highspy

    t0 = time.perf_counter()
    with solver_stdout_guard():  # highspy ≥ 1.16 prints a banner on construction
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        if threads:
            h.setOptionValue("threads", threads)
        costs, scale = solver_costs(data.c)
        _load_highs(h, data, costs)
        h.run()
    sol = _read_highs(h, "highspy", t0, scale)
    sol.objective = float(data.c @ sol.v)
    return sol


class _BulkHiGHS(pulp.HiGHS):
    """PuLP's HiGHS interface with bulk loading and in-place re-solves."""

    def __init__(self, owner: PulpLP, **kwargs):
        super().__init__(msg=False, **kwargs)
        self._owner = owner

    def buildSolverModel(self, lp):  # noqa: N802 (PuLP's name)
        self._owner._bind_indices()
        costs, self._owner.scale = solver_costs(self._owner.data.c)
        for key, value in HIGHS_OPTIONS.items():
            lp.solverModel.setOptionValue(key, value)
        _load_highs(lp.solverModel, self._owner.data, costs)
        self._owner._loaded_rows = self._owner.data.n_rows
        self._owner._loaded_cols = self._owner.data.n_cols

    def findSolutionValues(self, lp):  # noqa: N802
        # Values and duals are read as arrays by PulpLP.solve (_read_highs); PuLP's
        # per-variable assignment (lp.variables() walks every row) would dominate the
        # time of a row-generation round.
        import highspy

        ok = lp.solverModel.getModelStatus() == highspy.HighsModelStatus.kOptimal
        return ((pulp.LpStatusOptimal, pulp.LpSolutionOptimal) if ok else
                (pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound))

    def actualSolve(self, lp):  # noqa: N802
        self.createAndConfigureSolver(lp)
        self.buildSolverModel(lp)
        self.callSolver(lp)
        status, sol_status = self.findSolutionValues(lp)
        lp.assignStatus(status, sol_status)
        return status

    def actualResolve(self, lp, **kwargs):  # noqa: N802
        self._owner._push_rows(lp.solverModel)
        self.callSolver(lp)
        status, sol_status = self.findSolutionValues(lp)
        lp.assignStatus(status, sol_status)
        return status


class PulpLP:
    """An LP of an LPData, solved through PuLP, that can grow and be re-solved.

    Grows by rows (:meth:`add_rows`, row generation) or by columns and rows
    (:meth:`grow`, family generation).

    Parameters
    ----------
    data : LPData
        Columns, costs, boxes and ≥-rows.
    backend : str, optional
        ``"HiGHS"`` (default when available) or ``"PULP_CBC_CMD"``.
    backend_checked : bool
        ``backend`` was already returned by :func:`available_backend`: skip PuLP's
        solver discovery (about 3 ms per model; callers that build many small models,
        like the simulator's CW-RMED, check once).
    """

    def __init__(self, data: LPData, backend: str | None = None, *,
                 backend_checked: bool = False):
        self.backend = backend if backend_checked and backend else available_backend(backend)
        self.data = data
        self.scale = 1.0  # power of two the solver's costs were scaled by (solver_costs)
        self.prob = pulp.LpProblem("C_star", pulp.LpMinimize)
        self.vars: list[pulp.LpVariable] = []
        self.cons: list[pulp.LpConstraint] = []
        # With HiGHS the arrays go straight into the HiGHS model that PuLP's interface
        # creates, and PuLP's variable/constraint objects would only be overhead (at
        # K = 136 building them took as long as the solve): they are built for CBC,
        # which reads them, or on request (:meth:`pulp_problem`).
        self._materialised = self.backend != "HiGHS"
        if self._materialised:
            self._append_columns(0, data.n_cols)
            self._append_constraints(0, data.n_rows)
        self._solver = _BulkHiGHS(self) if self.backend == "HiGHS" else \
            pulp.PULP_CBC_CMD(msg=False)
        self._loaded_rows = self._loaded_cols = 0
        #: read only values and basis after a HiGHS solve (``_read_highs(lean_bounds=...)``)
        self.lean = False
        self.n_solves = 0
        self.note = ""  # set when HiGHS failed and CBC took over

    def _append_columns(self, start: int, stop: int) -> None:
        d = self.data
        # zero-padded names: PuLP orders variables by name, so name order = column order
        # PuLP ≥ 3.3.1 creates variables through the problem (LpVariable(...) deprecated)
        add = getattr(self.prob, "add_variable", None) or pulp.LpVariable
        self.vars += [add(
            f"v{k:07d}", lowBound=float(d.lb[k]),
            upBound=float(d.ub[k]) if np.isfinite(d.ub[k]) else None)
            for k in range(start, stop)]
        self._set_objective()

    def _set_objective(self) -> None:
        c, self.scale = solver_costs(self.data.c)
        self.prob.setObjective(pulp.LpAffineExpression(
            [(self.vars[k], float(c[k])) for k in np.flatnonzero(c)]))

    def set_costs(self, c: np.ndarray) -> None:
        """New costs for the leading ``len(c)`` columns; the next :meth:`solve` starts
        from the previous basis (HiGHS), which stays primal feasible."""
        n = len(c)
        self.data.c[:n] = c
        if self.backend == "HiGHS" and self._loaded_cols and self.prob.solverModel:
            m = self._loaded_cols
            costs, scale = solver_costs(self.data.c[:m])
            if scale == self.scale:  # same conditioning: only the leading n costs moved
                m = min(n, m)
            self.scale = scale
            self.prob.solverModel.changeColsCost(m, np.arange(m, dtype=np.int32), costs[:m])
        elif self._materialised:
            self._set_objective()

    def restart_from_basis(self) -> None:
        """Drop HiGHS's solver state but keep its basis and model (no-op before the first
        solve and with CBC).

        HiGHS keeps state between runs beyond the basis: two warm re-solves from the same
        basis at the same costs can pivot differently (and end at different optimal
        vertices of a dual-degenerate LP) when one of them followed extra runs that made
        no pivot; measured on the K = 30 family LP, 9 of 40 cost perturbations.  After
        this call the next solve depends on (model, basis, costs) only.
        """
        h = self.prob.solverModel
        if self.backend == "HiGHS" and self._loaded_rows and h is not None:
            basis = h.getBasis()
            h.clearSolver()
            h.setBasis(basis)

    def pulp_problem(self) -> pulp.LpProblem:
        """The model as a PuLP ``LpProblem`` (built now if the HiGHS path skipped it)."""
        if not self._materialised:
            self._materialised = True
            self._append_columns(0, self.data.n_cols)
            self._append_constraints(0, self.data.n_rows)
        return self.prob

    def grow(self, data: LPData) -> None:
        """Replace the data by an extension of it (same leading columns and rows, more appended).

        With HiGHS the next :meth:`solve` loads only the new columns and rows into the
        live model and re-solves from the previous basis (family generation).
        """
        start_c, start_r = self.data.n_cols, self.data.n_rows
        self.data = data
        if self._materialised:
            self._append_columns(start_c, data.n_cols)
            self._append_constraints(start_r, data.n_rows)

    def _append_constraints(self, start: int, stop: int) -> None:
        d, V = self.data, self.vars
        new = {}
        for r in range(start, stop):
            a, b = d.indptr[r], d.indptr[r + 1]
            expr = pulp.LpAffineExpression(
                [(V[c], float(v)) for c, v in zip(d.indices[a:b].tolist(), d.data[a:b])])
            con = pulp.LpConstraint(expr, sense=pulp.LpConstraintGE, rhs=float(d.row_lb[r]),
                                    name=f"r{r:07d}")
            new[con.name] = con
            self.cons.append(con)
        self.prob.extend(new)

    def _bind_indices(self) -> None:
        for k, v in enumerate(self.vars):
            v.index = k
        for r, c in enumerate(self.cons):
            c.index = r

    def _push_rows(self, h) -> None:
        import highspy

        d = self.data
        c0 = self._loaded_cols
        if d.n_cols > c0:
            n = d.n_cols - c0
            h.addCols(n, solver_costs(d.c)[0][c0:], d.lb[c0:], d.ub[c0:], 0,
                      np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
        self._loaded_cols = d.n_cols
        start = self._loaded_rows
        if d.n_rows > start:
            lo, hi = d.indptr[start], d.indptr[-1]
            _add_rows(h, d.row_lb[start:], d.indptr[start:], d.indices[lo:hi], d.data[lo:hi],
                      highspy.kHighsInf)
        self._loaded_rows = d.n_rows
        self._bind_indices()

    def add_rows(self, keys: list, rows: list[np.ndarray]) -> None:
        """Append ≥ 1 rows with unit coefficients on the given columns."""
        d = self.data
        start = d.n_rows
        lens = np.array([len(r) for r in rows], dtype=np.int64)
        d.indptr = np.concatenate([d.indptr, d.indptr[-1] + np.cumsum(lens)])
        d.indices = np.concatenate([d.indices, *[np.asarray(r, dtype=np.int64) for r in rows]])
        d.data = np.concatenate([d.data, np.ones(int(lens.sum()))])
        d.row_lb = np.concatenate([d.row_lb, np.ones(len(rows))])
        d.row_keys.extend(keys)
        if self._materialised:
            self._append_constraints(start, d.n_rows)

    def solve(self) -> LPSolution:
        """Solve (first call) or re-solve in place after :meth:`add_rows` (HiGHS).

        If HiGHS fails (an exception or a status other than optimal: numerical
        trouble, iteration limit, a status PuLP reports as "Not Solved"), the same LP
        is solved again by CBC before giving up; the model stays on CBC from then on
        and the solution's ``note`` says why.  :class:`SolverError` only when CBC
        fails too (or is missing).
        """
        try:
            sol = self._solve_once()
            sol.note = self.note
            return sol
        except SolverError as exc:
            if self.backend != "HiGHS" or "PULP_CBC_CMD" not in pulp.listSolvers(
                    onlyAvailable=True):
                raise
            reason = str(exc)
        self.backend = "PULP_CBC_CMD"  # materialise the PuLP model for CBC and retry
        self._solver = pulp.PULP_CBC_CMD(msg=False)
        self.pulp_problem()
        try:
            sol = self._solve_once()
        except SolverError as exc:
            raise SolverError(f"{reason}; CBC fallback failed too: {exc}") from None
        self.note = sol.note = f"HiGHS failed ({reason}); solved by CBC"
        return sol

    def _solve_once(self) -> LPSolution:
        t0 = time.perf_counter()
        self.n_solves += 1
        try:
            # PuLP builds a Highs() per solve (banner on fd 1 with highspy ≥ 1.16); CBC
            # runs as a subprocess that inherits fd 1: both inside the guard.
            with solver_stdout_guard():
                if self.backend == "HiGHS" and self._loaded_rows and self.prob.solverModel:
                    self._solver.actualResolve(self.prob)
                else:
                    self.prob.solve(self._solver)
        except (pulp.PulpSolverError, RuntimeError, ValueError) as exc:
            raise SolverError(f"LP solver {self.backend} failed: {exc}") from None
        if self.prob.status != pulp.LpStatusOptimal:
            raise SolverError(f"LP solver {self.backend} reports status "
                              f"{pulp.LpStatus[self.prob.status]!r}, not optimal")
        if self.backend == "HiGHS":
            sol = _read_highs(self.prob.solverModel, "pulp+HiGHS", t0, self.scale,
                              (self.data.lb, self.data.ub) if self.lean else None)
            # true costs (solver_costs); lean: without BLAS, whose threaded dot took 6 ms
            # for 15 309 columns (K = 100) on the loaded 2-core machine
            sol.objective = float(np.sum(self.data.c * sol.v) if self.lean else
                                  self.data.c @ sol.v)
            return sol
        v = np.array([x.varValue or 0.0 for x in self.vars])
        y = np.array([c.pi or 0.0 for c in self.cons]) / self.scale
        dj = np.array([x.dj or 0.0 for x in self.vars]) / self.scale
        return LPSolution(float(self.data.c @ v), v, y, dj, "pulp+CBC",
                          time.perf_counter() - t0)


def solve_ecw_lp(M, i1: int) -> tuple[float, np.ndarray]:
    """C^E*_{i1} by an LP (cross-check of [K16] Theorem 5): (4) as fixed bounds, (5) compact.

    Each (5) piece "the m smallest x_{j i2}, j ∈ S_{i2} \\ {i1}, sum to ≥ 1" is
    written with the compact block of :mod:`.formulations`.
    """

    mu = np.ascontiguousarray(M.values)
    d = st.divergences(M)
    r = regret_matrix(M)
    px = pair_index(mu, d, r, i1)
    bld = ColumnBuilder(px)
    K = M.K
    L = st.losses(M)
    for j in range(K):  # (4): x_{i1 j} = 1
        if j != i1 and mu[i1, j] > 0.5:
            bld.lb[0][px.pid[i1, j]] = 1.0
    for i2 in range(K):
        if i2 == i1:
            continue
        S = [j for j in range(K) if j not in (i1, i2) and mu[i2, j] < 0.5]
        m = int(L[i2] - L[i1] + 1)
        if len(S) < m:
            continue
        xc = px.pid[i2, S]
        cols = bld.new_cols(len(S) + 1)
        bld.add_link_rows(cols[1:], int(cols[0]), xc)
        bld.add_row(cols, np.concatenate([[float(m)], -np.ones(len(S))]), 1.0, (i2,))
    data = bld.finish(px.pairs.shape[0])
    sol = PulpLP(data).solve()
    x = sol.v[:data.n_pairs]
    q = np.zeros((K, K))
    a, b = px.pairs[:, 0], px.pairs[:, 1]
    q[a, b] = x / px.d
    q[b, a] = q[a, b]
    return sol.objective, q

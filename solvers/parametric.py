"""C*_{i1} on a stream of matrices that share a tournament: warm re-solves and basis tests.

CW-RMED ([K16] Algorithm 1, line 11) needs C*_{i1}(µ̂) and an optimal q̂ for the
empirical matrix µ̂ whenever the membership test fails, i.e. after many duels
while µ̂ moves a little each time.  In the evidence variables x = q·d the feasible
set R_{i1} depends on the tournament (the signs of µ̂ − 1/2) only; µ̂ enters through
the costs c_p = r_p / d̂_p of the pair columns (docs/math.md §5).  Two consequences:

* the family-generation LP of :class:`~duelbound.solvers.cstar.FamilyModel`
  built for one tournament stays valid for every µ̂ with that tournament: only its
  costs change, and HiGHS re-solves from the previous basis
  (:class:`CStarTracker`, one model per (tournament, winner), least recently used
  dropped first);
* an optimal basis stays optimal while its dual feasibility holds, and the reduced
  costs and row duals of a fixed basis are *linear* in the cost vector: for the
  basis found at one µ̂, :func:`basis_checks` writes them as rows G with
  "basis optimal at costs c" ⇔ G c ≥ 0.  Then the vertex x̂ (which depends on the
  basis only) is optimal for the new costs, and C*_{i1}(µ̂) = c·x̂ with no LP at all
  (:func:`basis_still_optimal`, compiled, called from the simulator's loop).

Both give an optimal solution of the same LP that :func:`~duelbound.solvers.cstar`
solves (family generation, oracle-checked), so CW-RMED's choices are those of the
paper; only the choice among several optimal q̂ may depend on the warm start, and it
is deterministic for a given run.  The basis test uses the relative tolerance
:data:`BASIS_TOL` (tighter than HiGHS's dual feasibility tolerance 1e-7).

Examples
--------
>>> import numpy as np
>>> from duelbound.theory import datasets
>>> from duelbound.solvers.parametric import CStarTracker
>>> from duelbound.solvers import lower_bound
>>> M = datasets.load("cyclic")
>>> tracker = CStarTracker(4)
>>> sol = tracker.solve(M.values)
>>> bool(np.isclose(sol.values.min(), lower_bound(M).value))
True
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..theory.errors import InvalidMatrixError, TieError
from .cstar import FamilyModel
from .formulations import LPData, pair_index
from .lp import LPSolution, available_backend
from .oracle import kl_half_core, losses_core, regret_core

__all__ = ["CStarTracker", "TrackerSolution", "BasisTest", "basis_checks", "pair_costs_core",
           "basis_still_optimal", "cw_values_core", "BASIS_TOL"]

#: Relative tolerance of the compiled basis test: G c ≥ −BASIS_TOL · max(1, max c).
BASIS_TOL = 1e-9

_BASIC = 1  # HiGHS basis status kBasic
_LOWER, _UPPER = 0, 2


# ------------------------------------------------------------------ compiled cores ------


@numba.njit(cache=True)
def pair_costs_core(L: np.ndarray, d: np.ndarray, c: np.ndarray) -> None:
    """c[a·K + b] = r_ab / d_ab for a < b (komiyama r, docs/math.md §4), 0 elsewhere."""
    K = d.shape[0]
    l1 = L.min()
    c[:] = 0.0
    for a in range(K):
        for b in range(a + 1, K):
            c[a * K + b] = (L[a] + L[b] - 2.0 * l1) / (2.0 * (K - 1)) / d[a, b]


@numba.njit(cache=True)
def basis_still_optimal(G: np.ndarray, c: np.ndarray) -> bool:
    """True iff every row of G c is ≥ −BASIS_TOL·max(1, max c) (a NaN row always fails)."""
    tol = BASIS_TOL * max(1.0, c.max())
    for k in range(G.shape[0]):
        s = 0.0
        for p in range(c.size):
            s += G[k, p] * c[p]
        if not s >= -tol:
            return False
    return True


@numba.njit(cache=True)
def cw_values_core(c: np.ndarray, X: np.ndarray, L: np.ndarray, d: np.ndarray,
                   values: np.ndarray, q: np.ndarray) -> int:
    """C*_{i1} = Σ_p c_p x̂_{i1,p} for the Copeland winners (+inf elsewhere) into
    ``values``, q̂ = x̂/d of the first minimiser into ``q``; returns that minimiser."""
    K = d.shape[0]
    l1 = L.min()
    for i1 in range(K):
        if L[i1] != l1:
            values[i1] = np.inf
            continue
        s = 0.0
        for p in range(c.size):
            s += c[p] * X[i1, p]
        values[i1] = s
    star = int(np.argmin(values))
    for a in range(K):
        q[a, a] = 0.0
        for b in range(a + 1, K):
            q[a, b] = X[star, a * K + b] / d[a, b]
            q[b, a] = q[a, b]
    return star


# ------------------------------------------------------------------ basis tests ----------


def basis_checks(data: LPData, sol: LPSolution, slots: np.ndarray, n_slots: int,
                 zero_slots: np.ndarray | None = None) -> np.ndarray:
    """Rows G (n × n_slots) with "the basis of ``sol`` is optimal at costs c" ⇔ G c ≥ 0.

    Only the first ``len(slots)`` columns of ``data`` (the pair evidences; column k sits
    at position ``slots[k]`` of the cost vector) have costs.  For the basis, the duals
    of the tight (nonbasic) rows solve S^T y = c_B with S = A[tight rows, basic
    columns]; optimality (minimisation, ≥ rows) is y ≥ 0 and, for nonbasic columns,
    z_j = c_j − a_j^T y ≥ 0 at the lower bound, ≤ 0 at the upper bound.  Both are
    linear in c.  ``zero_slots`` are costs that vanish for every matrix of the
    tournament (pairs of two Copeland winners, r = 0): their columns of G are dropped,
    so a dual-degenerate row that only involves them is not tested.  Returns one NaN
    row (the test always fails, so the caller re-solves) when there is no basis or it
    is numerically singular.
    """
    fail = np.full((1, n_slots), np.nan)
    if sol.col_status is None or sol.row_status is None:
        return fail
    m, n = data.n_rows, data.n_cols
    P = len(slots)
    A = sp.csr_matrix((data.data, data.indices, data.indptr), shape=(m, n))
    basic = sol.col_status == _BASIC
    tight = sol.row_status != _BASIC
    k = int(basic.sum())
    if k != int(tight.sum()):
        return fail
    At = A[np.flatnonzero(tight)].tocsc()
    b_idx = np.flatnonzero(basic)
    # cost of basic column r as a row over the P pair columns (block columns cost 0)
    Eb = np.zeros((k, P))
    priced = b_idx < P
    Eb[np.flatnonzero(priced), b_idx[priced]] = 1.0
    if k:
        S = At[:, b_idx]
        try:
            Y = splu(S.T.tocsc()).solve(Eb)  # S is sparse (block link rows have 3 entries)
        except RuntimeError:  # exactly singular
            return fail
        if not np.all(np.isfinite(Y)) or np.abs(S.T @ Y - Eb).max() > 1e-9:
            return fail
    else:
        Y = np.zeros((0, P))
    nb = np.flatnonzero(~basic & (data.lb < data.ub))
    sign = np.where(sol.col_status[nb] == _UPPER, -1.0, 1.0)
    Cn = np.zeros((nb.size, P))
    priced = nb < P
    Cn[np.flatnonzero(priced), nb[priced]] = 1.0
    Z = (Cn - np.asarray(At[:, nb].T @ Y)) * sign[:, None]
    Gp = np.vstack([Y, Z])
    Gp[np.abs(Gp) < 1e-14] = 0.0
    G = np.zeros((Gp.shape[0], n_slots))
    G[:, slots] = Gp
    if zero_slots is not None:
        G[:, zero_slots] = 0.0
    return np.ascontiguousarray(G[np.any(G != 0.0, axis=1)])


class BasisTest:
    """"The basis of ``sol`` is optimal at costs c" without the rows G of :func:`basis_checks`.

    :func:`basis_checks` writes the duals and reduced costs of a basis as rows G (one
    column per pair): at K = 100 that is ~10⁴ × 10⁴ floats and 26 s of sparse solves per
    basis.  Here the basis matrix S (tight rows × basic columns) is factorised once and
    the same quantities are evaluated at the costs asked for: y = S^{-T} c_B and
    z_j = c_j − a_j^T y for the nonbasic columns, i.e. the vector G c, in one sparse
    solve and one sparse product.  :meth:`optimal` applies the test of
    :func:`basis_still_optimal` to it (same rows, same tolerance; the values agree with
    G c to rounding).  ``valid`` is False when there is no basis or it is singular
    (then :meth:`optimal` always says no, and the caller re-solves).

    Parameters
    ----------
    data, sol, slots, zero_slots
        As in :func:`basis_checks`.
    """

    def __init__(self, data: LPData, sol: LPSolution, slots: np.ndarray,
                 zero_slots: np.ndarray | None = None):
        self.valid = False
        self.slots = np.asarray(slots, dtype=np.int64)
        self.priced = np.ones(self.slots.size, dtype=bool)  # pair columns with a cost
        if zero_slots is not None and len(zero_slots):
            self.priced = ~np.isin(self.slots, zero_slots)
        if sol.col_status is None or sol.row_status is None:
            return
        A = sp.csr_matrix((data.data, data.indices, data.indptr),
                          shape=(data.n_rows, data.n_cols))
        basic = sol.col_status == _BASIC
        tight = sol.row_status != _BASIC
        if int(basic.sum()) != int(tight.sum()):
            return
        At = A[np.flatnonzero(tight)].tocsc()
        self.b_idx = np.flatnonzero(basic)
        self.nb_idx = np.flatnonzero(~basic & (data.lb < data.ub))
        self.sign = np.where(sol.col_status[self.nb_idx] == _UPPER, -1.0, 1.0)
        self.An_T = At[:, self.nb_idx].T.tocsr()
        self.lu = None
        if self.b_idx.size:
            S = At[:, self.b_idx]
            try:
                self.lu = splu(S.T.tocsc())
            except RuntimeError:  # exactly singular
                return
            # the accuracy check of basis_checks, on a random right-hand side
            e = np.random.default_rng(0).standard_normal(self.b_idx.size)
            y = self.lu.solve(e)
            if not np.all(np.isfinite(y)) or np.abs(S.T @ y - e).max() > 1e-9 * max(
                    1.0, float(np.abs(y).max())):
                return
        self.valid = True

    def _column_costs(self, c: np.ndarray) -> np.ndarray:
        """Costs of the LP's pair columns from the K·K cost vector (zero slots dropped)."""
        return np.where(self.priced, c[self.slots], 0.0)

    def values(self, c: np.ndarray) -> np.ndarray:
        """[y; sign·z] at costs ``c`` (K·K vector): the vector G c of :func:`basis_checks`."""
        cp = self._column_costs(np.asarray(c, dtype=np.float64))
        P = cp.size
        cb = np.zeros(self.b_idx.size)
        mask = self.b_idx < P
        cb[mask] = cp[self.b_idx[mask]]
        y = self.lu.solve(cb) if self.lu is not None else cb
        cn = np.zeros(self.nb_idx.size)
        mask = self.nb_idx < P
        cn[mask] = cp[self.nb_idx[mask]]
        z = (cn - self.An_T @ y) * self.sign
        return np.concatenate([y, z])

    def optimal(self, c: np.ndarray) -> bool:
        """True iff every entry of G c is ≥ −BASIS_TOL·max(1, max c) (the basis stays optimal)."""
        if not self.valid:
            return False
        tol = BASIS_TOL * max(1.0, float(np.max(c)))
        v = self.values(c)
        return bool(np.all(v >= -tol))


# ------------------------------------------------------------------ tracker --------------


@dataclass
class TrackerSolution:
    """C*_{i1}(µ) for every Copeland winner with the basis tests of the solves.

    Attributes
    ----------
    values : numpy.ndarray
        C*_{i1} at the Copeland winners, +inf elsewhere (length K).
    allocation : numpy.ndarray
        q̂ (K×K) of the first minimising winner.
    evidence : numpy.ndarray
        X[i1, a·K + b] = x̂_ab of winner i1's optimal vertex (a < b).
    checks : numpy.ndarray or None
        Rows G of every winner's basis (:func:`basis_checks`): the same vertices stay
        optimal for a matrix with the same tournament while G c ≥ 0.  None when the
        solve was asked not to form them (``checks=False``; :meth:`CStarTracker.still_optimal`
        runs the same test without them).
    """

    values: np.ndarray
    allocation: np.ndarray
    evidence: np.ndarray
    checks: np.ndarray | None


class CStarTracker:
    """C*_{i1}(µ) for a sequence of matrices µ (e.g. CW-RMED's µ̂), with warm re-solves.

    Keeps one :class:`~duelbound.solvers.cstar.FamilyModel` per (tournament,
    Copeland winner) for the ``max_tournaments`` most recent tournaments.  Checks the
    shape, finiteness, [0, 1] and "no ties" (``InvalidMatrixError`` / ``TieError``);
    complementarity and the ½ diagonal are assumed (the caller's µ̂ has them by
    construction; use :class:`~duelbound.theory.PreferenceMatrix` to validate a matrix).

    Parameters
    ----------
    K : int
        Number of arms.
    backend : str, optional
        PuLP solver name (checked once here).
    max_tournaments : int
        Models kept (least recently used dropped).
    """

    def __init__(self, K: int, backend: str | None = None, max_tournaments: int = 32):
        self.K = K
        self.backend = available_backend(backend)
        self.max_tournaments = max_tournaments
        self._models: OrderedDict[bytes, dict] = OrderedDict()
        self.lp_solves = 0
        self.models_built = 0
        self._tests: list[BasisTest] = []

    def still_optimal(self, c: np.ndarray) -> bool:
        """Whether every winner's basis of the last :meth:`solve` is optimal at pair costs
        ``c`` (K·K vector, :func:`pair_costs_core`; same tournament): then the vertices
        ``evidence`` of that solve are optimal at c (:class:`BasisTest`)."""
        return bool(self._tests) and all(t.optimal(c) for t in self._tests)

    def solve(self, mu: np.ndarray, d: np.ndarray | None = None, *,
              checks: bool = True) -> TrackerSolution:
        """Solve C*_{i1}(µ) for every Copeland winner of µ (no ties allowed).

        ``d`` (d(µ_ij, ½)) may be passed when the caller keeps it already.  ``checks``:
        also form the rows G of :func:`basis_checks` (large: ~K² × K² floats); without
        them :meth:`still_optimal` answers the same question.
        """

        K = self.K
        mu = np.ascontiguousarray(mu, dtype=np.float64)
        if mu.shape != (K, K):
            raise InvalidMatrixError(f"CStarTracker.solve: expected a {K}x{K} matrix, got shape "
                                     f"{mu.shape}", "not-square")
        bad = ~np.isfinite(mu) | (mu < 0.0) | (mu > 1.0)
        if bad.any():
            entries = [(int(a), int(b)) for a, b in np.argwhere(bad)]
            raise InvalidMatrixError(f"CStarTracker.solve: entries not in [0, 1] at {entries}",
                                     "out-of-range", entries)
        off = ~np.eye(K, dtype=bool)
        if np.any(mu[off] == 0.5):
            ties = [(int(a), int(b)) for a, b in np.argwhere(off & (mu == 0.5)) if a < b]
            raise TieError(f"CStarTracker.solve: the matrix has ties (mu_ij = 1/2) at {ties}",
                           ties)
        d = kl_half_core(mu) if d is None else np.ascontiguousarray(d, dtype=np.float64)
        L = losses_core(mu)
        r = regret_core(mu)
        key = (mu > 0.5).tobytes()
        models = self._models.pop(key, None) or {}
        self._models[key] = models
        while len(self._models) > self.max_tournaments:
            self._models.popitem(last=False)
        c = np.empty(K * K)
        pair_costs_core(L, d, c)
        zero = np.flatnonzero(c == 0.0)
        X = np.zeros((K, K * K))
        rows = []
        self._tests = []
        for i1 in np.flatnonzero(L == L.min()):
            px = pair_index(mu, d, r, int(i1))
            fm = models.get(int(i1))
            if fm is None:
                fm = models[int(i1)] = FamilyModel(mu, int(i1), px, self.backend,
                                                   backend_checked=True)
                self.models_built += 1
            else:
                fm.set_costs(mu, px)
            sol = fm.solve()
            self.lp_solves += 1
            slots = px.pairs[:, 0] * K + px.pairs[:, 1]
            X[i1, slots] = np.clip(sol.v[:slots.size], 0.0, 1.0)
            self._tests.append(BasisTest(fm.model.data, sol, slots, zero))
            if checks:
                rows.append(basis_checks(fm.model.data, sol, slots, K * K, zero))
        values, q = np.empty(K), np.zeros((K, K))
        cw_values_core(c, X, L, d, values, q)
        return TrackerSolution(values, q, X, np.vstack(rows) if checks else None)

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
  (:func:`basis_still_optimal` on G; the simulator asks
  :meth:`CStarTracker.still_optimal`, which evaluates G c from the factorised basis in
  compiled code, :func:`packed_optimal`, without forming G).

Both give an optimal solution of the same LP that :func:`~duelbound.solvers.cstar`
solves (family generation, oracle-checked), so CW-RMED's choices are those of the
paper; only the choice among several optimal q̂ may depend on the warm start.  Each
warm re-solve starts from the stored basis with HiGHS's other state reset
(:meth:`~duelbound.solvers.lp.PulpLP.restart_from_basis`), so the vertex is a function of
(basis, costs) and skipping the LP while the basis test passes gives the vertices of
solving every time.  The basis test uses the relative tolerance :data:`BASIS_TOL`
(tighter than HiGHS's dual feasibility tolerance 1e-7).

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
from dataclasses import dataclass, replace

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

try:  # the routine behind splu, for the raw factors (_superlu below); splu otherwise
    from scipy.sparse.linalg._dsolve._superlu import gstrf as _gstrf
except ImportError:  # pragma: no cover - another scipy layout
    _gstrf = None

from ..theory.errors import DuelboundError, InvalidMatrixError, TieError
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


def basis_checks(data: LPData, sol: LPSolution | None, slots: np.ndarray, n_slots: int,
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
    if sol is None or sol.col_status is None or sol.row_status is None:
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


# The factorised test in compiled code.  One basis is a list of integer and float
# arrays (the fields below); several bases are packed into one int64 and one float64
# buffer so that the simulator's loop tests all of them in one compiled call.
_INT_FIELDS = ("valid", "bslot", "nbslot", "perm_r", "perm_c", "Up", "Ui", "Lp", "Li",
               "Ap", "Ai")
_FLOAT_FIELDS = ("sign", "Ux", "Ud", "Lx", "Ld", "Ax")
_NI, _NF = len(_INT_FIELDS), len(_FLOAT_FIELDS)


def pack_tests(parts: list[tuple[list[np.ndarray], list[np.ndarray]]]
               ) -> tuple[np.ndarray, np.ndarray]:
    """(int64 buffer, float64 buffer) of several bases' (int fields, float fields).

    Layout of the int buffer: [n, offsets of the n·_NI int fields (n·_NI + 1 entries,
    absolute), offsets of the n·_NF float fields (n·_NF + 1 entries), the int fields].
    """
    n = len(parts)
    ints = [np.asarray(a, dtype=np.int64) for ip, _ in parts for a in ip]
    flts = [np.asarray(a, dtype=np.float64) for _, fp in parts for a in fp]
    head = 1 + (n * _NI + 1) + (n * _NF + 1)
    ioff = head + np.concatenate([[0], np.cumsum([a.size for a in ints], dtype=np.int64)])
    foff = np.concatenate([[0], np.cumsum([a.size for a in flts], dtype=np.int64)])
    ibuf = np.concatenate([[n], ioff, foff, *ints]).astype(np.int64)
    fbuf = np.concatenate([np.zeros(0), *flts])
    return ibuf, fbuf


@numba.njit(cache=True)
def _transposed_solve(u, perm_r, Up, Ui, Ux, Ud, Lp, Li, Lx, Ld, out) -> None:
    """y = S^{-T} b into ``out[:m]`` from u = Pc^T b (overwritten), with SuperLU's factors
    Pr S Pc = L U (CSC, diagonals apart): U^T s = u forward, L^T t = s backward, y = Pr^T t."""
    m = u.size
    for j in range(m):  # U^T s = u
        acc = u[j]
        for e in range(Up[j], Up[j + 1]):
            acc -= Ux[e] * u[Ui[e]]
        u[j] = acc / Ud[j]
    for j in range(m - 1, -1, -1):  # L^T t = s
        acc = u[j]
        for e in range(Lp[j], Lp[j + 1]):
            acc -= Lx[e] * u[Li[e]]
        u[j] = acc / Ld[j]
    for i in range(m):
        out[i] = u[perm_r[i]]


@numba.njit(cache=True)
def _basis_values(ib, fb, w, c, out) -> bool:
    """G c of basis ``w`` of the packed buffers at pair costs ``c`` into ``out``
    ([y; sign·z], :func:`basis_checks`); False (``out`` untouched) if it is not valid.

    y solves S^T y = c_B with SuperLU's factors of S (Pr S Pc = L U, so
    S^T = Pc U^T L^T Pr): U^T s = Pc^T c_B forward and L^T t = s backward, both as dot
    products over the CSC columns of U and L; y = Pr^T t.  Then z_k = c_k − a_k^T y.
    """
    n = ib[0]
    io = 1 + w * _NI
    fo = 1 + n * _NI + 1 + w * _NF

    def iseg(f):
        return ib[ib[io + f]:ib[io + f + 1]]

    def fseg(f):
        return fb[ib[fo + f]:ib[fo + f + 1]]

    if iseg(0)[0] == 0:
        return False
    bslot, nbslot, perm_r, perm_c = iseg(1), iseg(2), iseg(3), iseg(4)
    Up, Ui, Lp, Li, Ap, Ai = iseg(5), iseg(6), iseg(7), iseg(8), iseg(9), iseg(10)
    sign, Ux, Ud, Lx, Ld, Ax = fseg(0), fseg(1), fseg(2), fseg(3), fseg(4), fseg(5)
    m = bslot.size
    u = np.zeros(m)
    for i in range(m):  # (Pc^T c_B)[perm_c[i]] = c_B[i]
        if bslot[i] >= 0:
            u[perm_c[i]] = c[bslot[i]]
    _transposed_solve(u, perm_r, Up, Ui, Ux, Ud, Lp, Li, Lx, Ld, out)
    for k in range(nbslot.size):
        z = c[nbslot[k]] if nbslot[k] >= 0 else 0.0
        for e in range(Ap[k], Ap[k + 1]):
            z -= Ax[e] * out[Ai[e]]
        out[m + k] = sign[k] * z
    return True


@numba.njit(cache=True)
def packed_optimal(ib: np.ndarray, fb: np.ndarray, c: np.ndarray, ok: np.ndarray) -> bool:
    """Whether every packed basis (:func:`pack_tests`) is optimal at pair costs ``c``:
    ``ok[w]`` per basis, all of them returned.  The test of :func:`basis_still_optimal`
    (every entry of G c ≥ −BASIS_TOL·max(1, max c), NaN fails) on G c evaluated from the
    factorised basis."""
    n = ib[0]
    tol = BASIS_TOL * max(1.0, c.max())
    size = 0
    for w in range(n):  # y and z of basis w: as many entries as its bslot and nbslot
        io = 1 + w * _NI
        size = max(size, ib[io + 3] - ib[io + 1])
    out = np.empty(size)
    every = True
    for w in range(n):
        good = _basis_values(ib, fb, w, c, out)
        io = 1 + w * _NI
        for k in range(ib[io + 3] - ib[io + 1]):
            if not good or not out[k] >= -tol:
                good = False
                break
        ok[w] = good
        every = every and good
    return every


@numba.njit(cache=True)
def _select(indptr, indices, data, rows, pos):
    """Rows ``rows`` of a CSR matrix with its columns renumbered by ``pos`` (−1: dropped)."""
    p = np.zeros(rows.size + 1, np.int64)
    for k in range(rows.size):
        cnt = 0
        for e in range(indptr[rows[k]], indptr[rows[k] + 1]):
            cnt += pos[indices[e]] >= 0
        p[k + 1] = p[k] + cnt
    ii = np.empty(p[-1], np.int64)
    xx = np.empty(p[-1])
    t = 0
    for k in range(rows.size):
        for e in range(indptr[rows[k]], indptr[rows[k] + 1]):
            if pos[indices[e]] >= 0:
                ii[t] = pos[indices[e]]
                xx[t] = data[e]
                t += 1
    return p, ii, xx


@numba.njit(cache=True)
def _split_diagonal(indptr, indices, data):
    """(indptr, indices, values, diagonal) of a square CSC factor, its diagonal apart."""
    n = indptr.size - 1
    diag = np.zeros(n)
    p = np.zeros(n + 1, np.int64)
    ii = np.empty(indices.size, np.int64)
    xx = np.empty(indices.size)
    t = 0
    for j in range(n):
        for e in range(indptr[j], indptr[j + 1]):
            if indices[e] == j:
                diag[j] += data[e]
            else:
                ii[t] = indices[e]
                xx[t] = data[e]
                t += 1
        p[j + 1] = t
    return p, ii[:t], xx[:t], diag


@numba.njit(cache=True)
def _transpose_residual(Sp, Si, Sx, y, e) -> float:
    """max |S^T y − e| for S in CSC (column j of S is row j of S^T)."""
    worst = 0.0
    for j in range(Sp.size - 1):
        acc = -e[j]
        for k in range(Sp[j], Sp[j + 1]):
            acc += Sx[k] * y[Si[k]]
        worst = max(worst, abs(acc))
    return worst


@numba.njit(cache=True)
def _canonical(indptr, indices) -> bool:
    """Whether a CSC matrix has strictly increasing row indices in every column."""
    for j in range(indptr.size - 1):
        for e in range(indptr[j] + 1, indptr[j + 1]):
            if indices[e] <= indices[e - 1]:
                return False
    return True


def _raw_csc(arrays, shape=None):
    """SuperLU's L and U as their (data, indices, indptr) arrays, not as csc matrices."""
    return arrays


#: splu's default options (scipy.sparse.linalg.splu passes these to gstrf)
_SPLU_OPTIONS = {"DiagPivotThresh": None, "ColPerm": "COLAMD", "PanelSize": None,
                 "Relax": None}


def _superlu(Sp, Si, Sx, m: int) -> tuple:
    """(perm_r, perm_c, U, L) of SuperLU on S (canonical CSC arrays), U and L as
    (data, indices, indptr); raises RuntimeError when S is exactly singular.

    The factorisation of ``splu`` (same routine, same options), called without the
    sparse-matrix objects around it: at K = 30 they cost more than the factorisation
    (three csc constructions with format checks per basis).  Falls back to ``splu``
    where scipy's private ``_superlu.gstrf`` is missing or has another signature.
    """
    if _gstrf is not None:
        try:
            lu = _gstrf(m, int(Sp[-1]), np.ascontiguousarray(Sx, dtype=np.float64),
                        Si.astype(np.intc), Sp.astype(np.intc), csc_construct_func=_raw_csc,
                        ilu=False, options=_SPLU_OPTIONS)
            return lu.perm_r, lu.perm_c, lu.U, lu.L
        except TypeError:  # another scipy: the public route below
            pass
    lu = splu(sp.csc_matrix((Sx, Si, Sp), shape=(m, m)))
    return lu.perm_r, lu.perm_c, (lu.U.data, lu.U.indices, lu.U.indptr), (
        lu.L.data, lu.L.indices, lu.L.indptr)


def _factors(Sp, Si, Sx, m: int) -> tuple[list, list] | None:
    """SuperLU factors of S (CSC arrays) as the fields of :func:`_basis_values`
    (int: perm_r, perm_c, Up, Ui, Lp, Li; float: Ux, Ud, Lx, Ld); None if singular."""
    if not _canonical(Sp, Si):  # rows of A^T in CSR order are; splu would sort them
        S = sp.csc_matrix((Sx, Si, Sp), shape=(m, m))
        S.sum_duplicates()
        Sp, Si, Sx = S.indptr, S.indices, S.data
    try:
        perm_r, perm_c, (Ux, Ui, Up), (Lx, Li, Lp) = _superlu(Sp, Si, Sx, m)
    except RuntimeError:  # exactly singular
        return None
    Up, Ui, Ux, Ud = _split_diagonal(Up, Ui, Ux)
    Lp, Li, Lx, Ld = _split_diagonal(Lp, Li, Lx)
    return [perm_r, perm_c, Up, Ui, Lp, Li], [Ux, Ud, Lx, Ld]


class BasisTest:
    """"The basis of ``sol`` is optimal at costs c" without the rows G of :func:`basis_checks`.

    :func:`basis_checks` writes the duals and reduced costs of a basis as rows G (one
    column per pair): at K = 100 that is ~10⁴ × 10⁴ floats and 26 s of sparse solves per
    basis.  Here the basis matrix S (tight rows × basic columns) is factorised once
    (SuperLU) and the same quantities are evaluated at the costs asked for, in compiled
    code (:func:`packed_optimal`): y = S^{-T} c_B and z_j = c_j − a_j^T y for the
    nonbasic columns, i.e. the vector G c, in two sparse triangular solves and one
    sparse product.  :meth:`optimal` applies the test of :func:`basis_still_optimal` to
    it (same rows, same tolerance; the values agree with G c to rounding).  ``valid`` is
    False when there is no basis or it is singular or inaccurate (then :meth:`optimal`
    always says no, and the caller re-solves).

    Parameters
    ----------
    data, sol, slots, zero_slots
        As in :func:`basis_checks`.
    AT : scipy.sparse.csr_matrix, optional
        A^T of ``data`` (the caller may keep it between bases of one model).
    """

    def __init__(self, data: LPData, sol: LPSolution, slots: np.ndarray,
                 zero_slots: np.ndarray | None = None, AT: sp.csr_matrix | None = None):
        self.valid = False
        slots = np.asarray(slots, dtype=np.int64)
        colslot = np.full(data.n_cols, -1, dtype=np.int64)  # cost slot of each column
        colslot[:slots.size] = slots
        if zero_slots is not None and len(zero_slots) and slots.size:
            zero = np.zeros(max(int(slots.max()), int(np.max(zero_slots))) + 1, dtype=bool)
            zero[zero_slots] = True
            colslot[:slots.size][zero[slots]] = -1
        self.parts = ([np.zeros(1)] + [np.zeros(0)] * (_NI - 1), [np.zeros(0)] * _NF)
        if sol.col_status is None or sol.row_status is None:
            return
        basic = sol.col_status == _BASIC
        tight = sol.row_status != _BASIC
        if int(basic.sum()) != int(tight.sum()):
            return
        if AT is None:
            AT = sp.csr_matrix((data.data, data.indices, data.indptr),
                               shape=(data.n_rows, data.n_cols)).T.tocsr()
        pos = np.full(data.n_rows, -1, dtype=np.int64)  # tight row -> its index in y
        pos[tight] = np.arange(int(tight.sum()))
        b_idx = np.flatnonzero(basic)
        nb_idx = np.flatnonzero(~basic & (data.lb < data.ub))
        sign = np.where(sol.col_status[nb_idx] == _UPPER, -1.0, 1.0)
        Ap, Ai, Ax = _select(AT.indptr, AT.indices, AT.data, nb_idx, pos)
        Sp, Si, Sx = _select(AT.indptr, AT.indices, AT.data, b_idx, pos)  # S in CSC
        fac = _factors(Sp, Si, Sx, b_idx.size) if b_idx.size else (
            [np.zeros(n, dtype=np.int64) for n in (0, 0, 1, 0, 1, 0)], [np.zeros(0)] * 4)
        if fac is None:
            return
        (perm_r, perm_c, Up, Ui, Lp, Li), (Ux, Ud, Lx, Ld) = fac
        parts = ([np.ones(1), colslot[b_idx], colslot[nb_idx], perm_r, perm_c, Up, Ui, Lp,
                  Li, Ap, Ai], [sign, Ux, Ud, Lx, Ld, Ax])
        # the accuracy check of basis_checks through the compiled solve itself, on a
        # fixed right-hand side without structure (every basic column priced by it)
        e = np.cos(1.7 * np.arange(b_idx.size) + 0.3)
        u = np.empty(b_idx.size)
        u[perm_c] = e  # Pc^T e
        y = np.empty(b_idx.size)
        _transposed_solve(u, perm_r, Up, Ui, Ux, Ud, Lp, Li, Lx, Ld, y)
        if not np.all(np.isfinite(y)) or _transpose_residual(Sp, Si, Sx, y, e) > 1e-9 * max(
                1.0, float(np.abs(y).max(initial=0.0))):
            return
        self.parts = parts
        self.valid = True

    def values(self, c: np.ndarray) -> np.ndarray:
        """[y; sign·z] at costs ``c`` (K·K vector): the vector G c of :func:`basis_checks`."""
        ints = self.parts[0]
        out = np.empty(ints[1].size + ints[2].size)
        ib, fb = pack_tests([self.parts])
        if not _basis_values(ib, fb, 0, np.asarray(c, dtype=np.float64), out):
            raise ValueError("BasisTest.values: no valid basis")
        return out

    def optimal(self, c: np.ndarray) -> bool:
        """True iff every entry of G c is ≥ −BASIS_TOL·max(1, max c) (the basis stays optimal)."""
        ib, fb = pack_tests([self.parts])
        return bool(packed_optimal(ib, fb, np.asarray(c, dtype=np.float64),
                                   np.empty(1, dtype=np.bool_)))


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


@dataclass
class _Winner:
    """One (tournament, winner) model of :class:`CStarTracker` and its last solve."""

    fm: FamilyModel
    slots: np.ndarray  # cost slot a·K + b of each pair column
    sol: LPSolution | None = None
    test: BasisTest | None = None  # of ``sol``'s basis, built when first asked
    AT: sp.csr_matrix | None = None  # A^T of the model, while it has this many rows

    def basis_test(self, zero: np.ndarray) -> BasisTest:
        assert self.sol is not None, "basis_test before the first solve"
        if self.test is None:
            data = self.fm.model.data
            if self.AT is None or self.AT.shape[1] != data.n_rows:
                self.AT = sp.csr_matrix((data.data, data.indices, data.indptr),
                                        shape=(data.n_rows, data.n_cols)).T.tocsr()
            self.test = BasisTest(data, self.sol, self.slots, zero, self.AT)
        return self.test


class CStarTracker:
    """C*_{i1}(µ) for a sequence of matrices µ (e.g. CW-RMED's µ̂), with warm re-solves.

    Keeps one :class:`~duelbound.solvers.cstar.FamilyModel` per (tournament,
    Copeland winner) for the ``max_tournaments`` most recent tournaments.  Checks the
    shape, finiteness, [0, 1] and "no ties" (``InvalidMatrixError`` / ``TieError``);
    complementarity and the ½ diagonal are assumed (the caller's µ̂ has them by
    construction; use :class:`~duelbound.theory.PreferenceMatrix` to validate a matrix).

    :meth:`solve` after a :meth:`still_optimal` that failed at the same costs (same
    tournament) re-solves only the winners whose basis failed: the others' vertices are
    optimal at those costs, and a warm HiGHS run from an optimal basis makes no pivot,
    so it would return them unchanged.

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
        self._models: OrderedDict[bytes, dict[int, _Winner]] = OrderedDict()
        self.lp_solves = 0
        self.models_built = 0
        self._key: bytes | None = None  # tournament of the last solve
        self._current: list[tuple[int, _Winner]] = []  # its winners
        self._zero = np.zeros(0, dtype=np.int64)  # its pairs of cost 0 (two winners)
        self._packed: tuple[np.ndarray, np.ndarray] | None = None  # its bases' tests
        self._verdict: tuple[np.ndarray, np.ndarray] | None = None  # (costs, ok per winner)

    def still_optimal(self, c: np.ndarray) -> bool:
        """Whether every winner's basis of the last :meth:`solve` is optimal at pair costs
        ``c`` (K·K vector, :func:`pair_costs_core`; same tournament): then the vertices
        ``evidence`` of that solve are optimal at c (:class:`BasisTest`, compiled)."""
        if not self._current:
            return False
        if self._packed is None:  # factorise the bases now (not at every solve)
            self._packed = pack_tests([w.basis_test(self._zero).parts
                                       for _, w in self._current])
        ok = np.empty(len(self._current), dtype=np.bool_)
        c = np.ascontiguousarray(c, dtype=np.float64)
        every = packed_optimal(*self._packed, c, ok)
        self._verdict = (c.copy(), ok)
        return bool(every)

    def _check(self, mu: np.ndarray) -> np.ndarray:
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
        return mu

    def _check_out(self, out) -> None:
        K = self.K
        if not (isinstance(out, np.ndarray) and out.shape == (K, K * K)
                and out.dtype == np.float64 and out.flags.writeable):
            raise DuelboundError(f"CStarTracker.solve: out must be a writeable float64 array "
                                 f"of shape ({K}, {K * K}), got {getattr(out, 'shape', out)!r}")

    def _passed(self, key: bytes, c: np.ndarray) -> np.ndarray | None:
        """Per winner, whether its basis passed :meth:`still_optimal` at exactly ``c``."""
        if self._verdict is None or key != self._key or not np.array_equal(self._verdict[0], c):
            return None
        return self._verdict[1]

    def solve(self, mu: np.ndarray, d: np.ndarray | None = None, *,
              checks: bool = True, out: np.ndarray | None = None) -> TrackerSolution:
        """Solve C*_{i1}(µ) for every Copeland winner of µ (no ties allowed).

        ``d`` (d(µ_ij, ½)) may be passed when the caller keeps it already.  ``checks``:
        also form the rows G of :func:`basis_checks` (large: ~K² × K² floats); without
        them :meth:`still_optimal` answers the same question.  ``out``: a K × K² float
        buffer that receives ``evidence`` (and is returned as it); only the rows of the
        Copeland winners are written, each whole (a fresh K × K² array of zeros per
        solve cost the simulator ≈ 1 ms at K = 100).
        """

        K = self.K
        mu = self._check(mu)
        if out is not None:
            self._check_out(out)
        d = kl_half_core(mu) if d is None else np.ascontiguousarray(d, dtype=np.float64)
        L = losses_core(mu)
        key = (mu > 0.5).tobytes()
        models = self._models.pop(key, None) or {}
        self._models[key] = models
        while len(self._models) > self.max_tournaments:
            self._models.popitem(last=False)
        c = np.empty(K * K)
        pair_costs_core(L, d, c)
        passed = self._passed(key, c)
        zero = np.flatnonzero(c == 0.0)
        X = np.zeros((K, K * K)) if out is None else out
        current = []
        for n, i1 in enumerate(int(i) for i in np.flatnonzero(L == L.min())):
            w = models.get(i1)
            if passed is None or not passed[n]:
                if w is None:
                    px = pair_index(mu, d, regret_core(mu), i1)
                    fm = FamilyModel(mu, i1, px, self.backend, backend_checked=True, lean=True)
                    w = models[i1] = _Winner(fm, px.pairs[:, 0] * K + px.pairs[:, 1])
                    self.models_built += 1
                else:  # same pairs as the model's; c holds their costs r/d (pair_index's)
                    w.fm.set_costs(mu, replace(w.fm.px, cost=c[w.slots],
                                               d=d.ravel()[w.slots]))
                    w.fm.model.restart_from_basis()  # the vertex: f(basis, costs) only
                w.sol, w.test = w.fm.solve(), None
                self.lp_solves += 1
            # a basis that passed its test belongs to a model solved before
            assert w is not None and w.sol is not None
            if out is not None:
                X[i1] = 0.0
            X[i1, w.slots] = np.clip(w.sol.v[:w.slots.size], 0.0, 1.0)
            current.append((i1, w))
        self._key, self._current, self._zero = key, current, zero
        self._packed = self._verdict = None
        values, q = np.empty(K), np.zeros((K, K))
        cw_values_core(c, X, L, d, values, q)
        rows = [basis_checks(w.fm.model.data, w.sol, w.slots, K * K, zero)
                for _, w in current] if checks else []
        return TrackerSolution(values, q, X, np.vstack(rows) if checks else None)

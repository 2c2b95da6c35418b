"""Sorting separation oracle for the feasible sets R_{i1} and R^E_{i1} (docs/math.md §5–§6).

[K16] §4.1.1: for fixed (i1, i2, l) the tightest constraint of R_{i1} takes the
smallest evidence values x = q·d, so one pass of sorting and prefix sums gives
the most violated constraint of every (i2, l, case) in O(K² log K).  The array
cores here are ``numba.njit`` functions on plain numpy arrays, so compiled code
(the simulator's CW-/ECW-RMED loops) can call them on an empirical matrix µ̂.

Jitted cores (all inputs float64 / int64 numpy arrays, 0-based arms)
-----------------------------------------------------------------
``kl_half_core(mu) -> d``            d_ij = d(µ_ij, 1/2), series near 1/2.
``losses_core(mu) -> L``             L_i = #{j : µ_ij < 1/2}.
``regret_core(mu) -> r``             komiyama regret (L_i + L_j − 2 L1)/(2(K−1)).
``cw_oracle_core(mu, i1, x) -> V``   V[i2, l − l0, case] = smallest left-hand side
                                     of a constraint of R_{i1} with that (i2, l, case),
                                     +inf where that (i2, l, case) imposes nothing;
                                     l0 = max(0, L1 − 1), case 0: i2 ∉ I, 1: i2 ∈ I.
``ecw_oracle_core(mu, i1, x) -> v``  smallest slack-free left-hand side over (4)–(5)
                                     (each (4) row contributes x_{i1 j}).
Python: :func:`in_region`, :func:`tight_constraints`.

Examples
--------
>>> import numpy as np
>>> from duelbound.theory import datasets
>>> from duelbound.solvers.oracle import in_region
>>> M = datasets.load("cyclic")
>>> in_region(M, 0, np.ones((4, 4)), kind="cw")
True
>>> in_region(M, 0, np.zeros((4, 4)), kind="ecw")
False
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import combinations, islice
from typing import Any

import numba
import numpy as np

from ..theory.errors import DuelboundError, InvalidMatrixError, UnknownNameError
from ..theory.kl import kl_half_scalar


@numba.njit(cache=True, inline="always")
def insert_sorted(buf: np.ndarray, k: int, v: float) -> int:
    """Insert v into the ascending ``buf[:k]`` (``buf[k]`` free), after the entries equal to
    it (a stable insertion sort step); returns its position."""
    while k > 0 and buf[k - 1] > v:
        buf[k] = buf[k - 1]
        k -= 1
    buf[k] = v
    return k

@numba.njit(cache=True, inline="always")
def insert_sorted_indexed(buf: np.ndarray, ibuf: np.ndarray, k: int, v: float, j: int) -> int:
    """:func:`insert_sorted` carrying the index ``j`` along in ``ibuf``."""
    while k > 0 and buf[k - 1] > v:
        buf[k] = buf[k - 1]
        ibuf[k] = ibuf[k - 1]
        k -= 1
    buf[k] = v
    ibuf[k] = j
    return k

__all__ = [
    "kl_half_core", "losses_core", "regret_core", "l_range_core", "cw_oracle_core",
    "ecw_oracle_core", "ecw_oracle_into", "in_region", "Constraint", "tight_constraints", "as_mu",
]

#: d(p, 1/2) compiled for the cores below: the one implementation in theory.kl.
_kl_half_scalar = numba.njit(cache=True)(kl_half_scalar)

@numba.njit(cache=True)
def kl_half_core(mu: np.ndarray) -> np.ndarray:
    """d_ij = d(µ_ij, 1/2) for a K×K array (zero on the diagonal), docs/math.md §3."""
    K = mu.shape[0]
    d = np.zeros((K, K))
    for i in range(K):
        for j in range(K):
            if i != j:
                d[i, j] = _kl_half_scalar(mu[i, j])
    return d

@numba.njit(cache=True)
def losses_core(mu: np.ndarray) -> np.ndarray:
    """L_i = |S_i| = #{j : µ_ij < 1/2} (docs/math.md §2)."""
    K = mu.shape[0]
    L = np.zeros(K, dtype=np.int64)
    for i in range(K):
        for j in range(K):
            if i != j and mu[i, j] < 0.5:
                L[i] += 1
    return L

@numba.njit(cache=True)
def regret_core(mu: np.ndarray) -> np.ndarray:
    """komiyama regret r_ij = (L_i + L_j − 2 L1)/(2(K − 1)) (docs/math.md §4)."""
    K = mu.shape[0]
    L = losses_core(mu)
    l1 = L.min()
    r = np.empty((K, K))
    for i in range(K):
        for j in range(K):
            r[i, j] = (L[i] + L[j] - 2.0 * l1) / (2.0 * (K - 1))
    return r

@numba.njit(cache=True)
def l_range_core(L: np.ndarray) -> tuple[int, int]:
    """(l0, l_max) = (max(0, L1 − 1), L2): the range of l in the constraints of R_{i1}."""
    s = np.sort(L)
    return max(0, s[0] - 1), s[1]

@numba.njit(cache=True)
def _sorted_prefix(x_row: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    vals = x_row[members]
    order = np.argsort(vals, kind="mergesort")
    pre = np.zeros(members.size + 1)
    for t in range(members.size):
        pre[t + 1] = pre[t] + vals[order[t]]
    return pre, members[order]

@numba.njit(cache=True)
def cw_oracle_core(mu: np.ndarray, i1: int, x: np.ndarray) -> np.ndarray:
    """Smallest constraint left-hand side of R_{i1} per (i2, l, case) (docs/math.md §5).

    Returns V with shape (K, l_max − l0 + 1, 2); +inf where no constraint exists.
    ``x`` is the symmetric K×K evidence matrix x_ij = q_ij d_ij.
    """
    K = mu.shape[0]
    L = losses_core(mu)
    l0, lmax = l_range_core(L)
    nl = lmax - l0 + 1
    l1 = L[i1]
    V = np.full((K, nl, 2), np.inf)
    inf_i1 = np.array([j for j in range(K) if j != i1 and mu[i1, j] > 0.5], dtype=np.int64)
    for i2 in range(K):
        if i2 == i1:
            continue
        A = np.array([j for j in inf_i1 if j != i2], dtype=np.int64)
        B = np.array([j for j in range(K) if j != i2 and j != i1 and mu[i2, j] < 0.5],
                     dtype=np.int64)
        preA, _ = _sorted_prefix(x[i1], A)
        preB, _ = _sorted_prefix(x[i2], B)
        cw_levels_into(V[i2], preA, A.size, preB, B.size, x[i1, i2], mu[i1, i2] > 0.5,
                       L[i2], l0, l1)
    return V


@numba.njit(cache=True)
def cw_levels_into(out: np.ndarray, preA: np.ndarray, nA: int, preB: np.ndarray, nB: int,
                   x12: float, i2_in: bool, L2: int, l0: int, l1: int) -> None:
    """The left-hand sides of i2's constraints of R_{i1} into ``out[li, case]`` (l = l0 + li):
    case 0 = preA[m] + preB[s], case 1 = x_{i1 i2} + preA[m − 1] + preB[s − 1], with
    m = l + 1 − L1 and s = max(0, L_{i2} − l) (docs/math.md §5); ``preA``/``preB`` are the
    prefix sums (preX[0] = 0) of the ascending x_{i1 j}, j ∈ A and x_{i2 j}, j ∈ B.
    Entries without a constraint are left as they are."""
    for li in range(out.shape[0]):
        l = l0 + li
        m = l + 1 - l1
        if m < 0:
            continue
        s = max(0, L2 - l)
        if m <= nA and s <= nB:
            out[li, 0] = preA[m] + preB[s]
        s2 = max(0, L2 - l - 1)
        if i2_in and m >= 1 and m - 1 <= nA and s2 <= nB:
            out[li, 1] = x12 + preA[m - 1] + preB[s2]

@numba.njit(cache=True)
def ecw_oracle_core(mu: np.ndarray, i1: int, x: np.ndarray) -> float:
    """Smallest left-hand side over the constraints (4)–(5) of R^E_{i1} (docs/math.md §6).

    (4) contributes x_{i1 j} (j ∈ I_{i1}, must be ≥ 1); (5) the sum of the
    m = L_{i2} − L_{i1} + 1 smallest x_{j i2}, j ∈ S_{i2} \\ {i1}.  +inf if none.
    """
    return ecw_oracle_into(mu, losses_core(mu), i1, x, -np.inf, np.empty(mu.shape[0]))

@numba.njit(cache=True)
def ecw_oracle_into(mu: np.ndarray, L: np.ndarray, i1: int, x: np.ndarray,
                    stop_below: float, buf: np.ndarray) -> float:
    """:func:`ecw_oracle_core` without allocations (the simulator's per-step call).

    ``L`` = :func:`losses_core` (mu), ``buf`` a float work array of length ≥ K.
    Returns as soon as the running minimum is < ``stop_below`` (a membership test
    needs no more); with ``stop_below = -inf`` it is the full minimum.  The sums
    add the sorted values in ascending order, as ``_sorted_prefix`` does, so the
    result is bit-identical to the allocating formulation.
    """
    K = mu.shape[0]
    best = np.inf
    for j in range(K):
        if j != i1 and mu[i1, j] > 0.5:
            best = min(best, x[i1, j])
    if best < stop_below:
        return best
    for i2 in range(K):
        if i2 == i1:
            continue
        m = L[i2] - L[i1] + 1
        if m < 1:
            continue
        n = 0
        for j in range(K):  # B = S_{i2} \\ {i1}, its x values insertion-sorted into buf
            if j != i2 and j != i1 and mu[i2, j] < 0.5:
                insert_sorted(buf, n, x[i2, j])
                n += 1
        if m > n:
            continue
        acc = 0.0
        for k in range(m):
            acc += buf[k]
        best = min(best, acc)
        if best < stop_below:
            return best
    return best

# -- Python layer -------------------------------------------------------------------------

def as_mu(M_or_mu: Any) -> np.ndarray:
    """A C-contiguous float64 K×K array from a PreferenceMatrix or an array."""
    vals = getattr(M_or_mu, "values", M_or_mu)
    mu = np.ascontiguousarray(vals, dtype=np.float64)
    if mu.ndim != 2 or mu.shape[0] != mu.shape[1] or mu.shape[0] < 2:
        raise InvalidMatrixError(f"need a K×K matrix with K >= 2, got shape {mu.shape}",
                                 "not-square")
    return mu

def _check_winner(mu: np.ndarray, i1: int) -> None:
    L = losses_core(mu)
    if not 0 <= i1 < mu.shape[0] or L[i1] != L.min():
        raise DuelboundError(f"arm {i1} is not a Copeland winner (winners: "
                             f"{np.flatnonzero(L == L.min()).tolist()})")

def in_region(M_or_mu: Any, i1: int, x: Any, kind: str = "cw", tol: float = 1e-9) -> bool:
    """Is the evidence matrix x = q·d in R_{i1} (``"cw"``) or R^E_{i1} (``"ecw"``)?

    Parameters
    ----------
    M_or_mu : PreferenceMatrix or array_like
        The preference matrix (empirical matrices are fine: only the signs of
        µ_ij − 1/2 matter).
    i1 : int
        A Copeland winner of the matrix.
    x : array_like
        Symmetric K×K evidence, x_ij = q_ij d_ij (only entries i ≠ j are read).
    kind : {"cw", "ecw"}
        R_{i1} of [K16] Theorem 2 (docs/math.md §5) or R^E_{i1} of [K16] §4.2 (docs/math.md §6).
    tol : float
        Every constraint must hold up to ``tol`` (left-hand side ≥ 1 − tol).

    Notes
    -----
    The box 0 ≤ x ≤ 1 is not checked: [K16]'s ECW-RMED clips N/log T to it.
    Complexity O(K² log K · (L2 − L1 + 2)) for ``"cw"``, O(K² log K) for ``"ecw"``.
    """
    mu = as_mu(M_or_mu)
    xa = np.ascontiguousarray(x, dtype=np.float64)
    if xa.shape != mu.shape:
        raise InvalidMatrixError(f"x must have shape {mu.shape}, got {xa.shape}", "not-square")
    _check_winner(mu, int(i1))
    if kind == "cw":
        return bool(cw_oracle_core(mu, int(i1), xa).min() >= 1.0 - tol)
    if kind == "ecw":
        return bool(ecw_oracle_core(mu, int(i1), xa) >= 1.0 - tol)
    raise UnknownNameError(f"unknown region kind {kind!r}; choose 'cw' or 'ecw'")

@dataclass(frozen=True)
class Constraint:
    """One constraint of R_{i1} ([K16] Theorem 2, docs/math.md §5).

    Form: Σ_{j∈I} x_{i1 j} + Σ_{j∈S} x_{i2 j} ≥ 1.
    """

    i1: int
    i2: int
    l: int
    I: tuple[int, ...]
    S: tuple[int, ...]

    def pairs(self) -> list[tuple[int, int]]:
        """The unordered pairs (a < b) whose evidence the constraint sums."""
        out = [(min(self.i1, j), max(self.i1, j)) for j in self.I]
        out += [(min(self.i2, j), max(self.i2, j)) for j in self.S]
        return out

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["I"], d["S"] = list(self.I), list(self.S)
        return d

def oracle_constraint(mu: np.ndarray, i1: int, x: np.ndarray, i2: int, l: int,
                      case: int) -> Constraint:
    """The tightest constraint with this (i2, l, case): the smallest x values (ties by index)."""
    K = mu.shape[0]
    L = losses_core(mu)
    m = l + 1 - int(L[i1])
    A = [j for j in range(K) if j not in (i1, i2) and mu[i1, j] > 0.5]
    B = [j for j in range(K) if j not in (i1, i2) and mu[i2, j] < 0.5]
    A.sort(key=lambda j: (x[i1, j], j))
    B.sort(key=lambda j: (x[i2, j], j))
    if case == 0:
        s = max(0, int(L[i2]) - l)
        return Constraint(i1, i2, l, tuple(sorted(A[:m])), tuple(sorted(B[:s])))
    s = max(0, int(L[i2]) - l - 1)
    return Constraint(i1, i2, l, tuple(sorted([i2] + A[:m - 1])), tuple(sorted(B[:s])))

def _tied_choices(members: list[int], row: np.ndarray, k: int, tol: float,
                  cap: int) -> list[tuple[int, ...]]:
    """Up to ``cap`` k-subsets of ``members`` with the smallest sum (ties within ``tol``)."""
    if k == 0:
        return [()]
    ms = sorted(members, key=lambda j: (row[j], j))
    v = row[ms[k - 1]]
    below = [j for j in ms if row[j] < v - tol]
    tied = [j for j in ms if abs(row[j] - v) <= tol]
    return [tuple(below) + c for c in islice(combinations(tied, k - len(below)), cap)]

def family_constraints(mu: np.ndarray, i1: int, x: np.ndarray, i2: int, l: int, case: int,
                       tol: float = 1e-9, cap: int = 1) -> list[Constraint]:
    """Up to ``cap`` tightest constraints of (i2, l, case): all choices among tied x values."""
    if cap <= 1:
        return [oracle_constraint(mu, i1, x, i2, l, case)]
    K = mu.shape[0]
    L = losses_core(mu)
    m = l + 1 - int(L[i1])
    A = [j for j in range(K) if j not in (i1, i2) and mu[i1, j] > 0.5]
    B = [j for j in range(K) if j not in (i1, i2) and mu[i2, j] < 0.5]
    s = max(0, int(L[i2]) - l - case)
    head = (i2,) if case == 1 else ()
    out = []
    for I in _tied_choices(A, x[i1], m - case, tol, cap):
        for S in _tied_choices(B, x[i2], s, tol, cap):
            out.append(Constraint(i1, i2, l, tuple(sorted(head + I)), tuple(sorted(S))))
            if len(out) >= cap:
                return out
    return out

def tight_constraints(M_or_mu: Any, i1: int, x: Any, tol: float = 1e-7) -> list[Constraint]:
    """Constraints of R_{i1} tight at x (one representative per (i2, l, case)).

    With ties among the smallest x values several subsets are tight; the one
    with the lowest indices is reported.  Recovered by the oracle, so the
    records are the same whichever LP formulation produced x.
    """
    mu = as_mu(M_or_mu)
    xa = np.ascontiguousarray(x, dtype=np.float64)
    V = cw_oracle_core(mu, int(i1), xa)
    l0 = l_range_core(losses_core(mu))[0]
    out = []
    for i2, li, case in np.argwhere(V <= 1.0 + tol):
        out.append(oracle_constraint(mu, int(i1), xa, int(i2), int(l0 + li), int(case)))
    return out

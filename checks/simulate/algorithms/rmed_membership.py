"""Line 8 of [K16] Algorithm 1 for CW-/ECW-RMED: is the clipped evidence a member of the region?

CW-RMED tests R_î (:func:`cw_member_fast`, the value of
:func:`duelbound.solvers.oracle.cw_oracle_core`), ECW-RMED with ``membership="RE"`` tests
R^E_î (:func:`ecw_member_fast`, the value of ``ecw_oracle_into``).  Both decide arm by arm
without allocating, try the constraint that failed last time first, and add the same
floats in the same order as the oracles, so every decision is bit-identical to theirs.
Used by :func:`duelbound.checks.simulate.algorithms.rmed.run_cw_rmed`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ....solvers.oracle import cw_levels_into, insert_sorted


@nb.njit(cache=True)
def evidence(env, dh, logt, x):
    """x_ij = min(N_ij/log t, 1/d̂_ij) · d̂_ij = min(N_ij d̂_ij / log t, 1): normalised counts
    clipped to the box of R_{i1} ([K16] Alg. 1 line 8; reading R11 of docs/math.md §10)."""
    K = dh.shape[0]
    for i in range(K):
        x[i, i] = 0.0
        for j in range(K):
            if j != i:
                x[i, j] = min(env.N[i, j] * dh[i, j] / logt, 1.0)



@nb.njit(cache=True)
def _cw_piece(mh, L, l0, nl, i1, i2, x, sa, na, pa, pb, out):
    r"""min over (l, case) of cw_oracle_core's V[i2] (+inf if empty), with the same float sums.

    ``sa[:na]`` holds x_{i1 j}, j ∈ I_{i1} (µ̂_{i1 j} > ½), ascending; A = I_{i1} \ {i2} is that
    sequence without x_{i1 i2}, B = S_{i2} \ {i1} is sorted here (``pb``, size ≥ K + 1).  The
    prefix sums add the same values in the same ascending order as ``_sorted_prefix`` and
    :func:`cw_levels_into` is cw_oracle_core's own level loop, so every left-hand side is
    bit-identical to cw_oracle_core's (``out``: a work array of ≥ nl × 2)."""
    K = mh.shape[0]
    i2_in = mh[i1, i2] > 0.5
    skip = x[i1, i2] if i2_in else np.nan  # one copy of this value is left out of A
    nA = 0
    pa[0] = 0.0
    for k in range(na):
        if sa[k] == skip:
            skip = np.nan
            continue
        pa[nA + 1] = pa[nA] + sa[k]
        nA += 1
    nB = 0
    for j in range(K):
        if j != i2 and j != i1 and mh[i2, j] < 0.5:
            insert_sorted(pb, nB, x[i2, j])
            nB += 1
    acc = 0.0
    for k in range(nB, 0, -1):  # shift up: pb[0] = 0, pb[k] = sum of the k smallest
        pb[k] = pb[k - 1]
    pb[0] = 0.0
    for k in range(1, nB + 1):
        acc += pb[k]
        pb[k] = acc
    out[:nl] = np.inf
    cw_levels_into(out[:nl], pa, nA, pb, nB, x[i1, i2], i2_in, L[i2], l0, L[i1])
    return out[:nl].min() if nl > 0 else np.inf


@nb.njit(cache=True)
def cw_member_fast(mh, L, i1, x, thr, fc, sa, pa, pb, out):
    """``cw_oracle_core(mh, i1, x).min()`` decided arm by arm: the arm i2 whose constraint
    failed for i1 last time (``fc[i1]``) is tried first — one violated constraint decides
    alone.  Returns the full minimum when i1 is a member (the value of cw_oracle_core), a
    value < ``thr`` otherwise.  No allocation: O(K log K) per arm instead of new arrays."""
    K = mh.shape[0]
    l0 = max(0, _second_smallest(L, 0) - 1)
    nl = _second_smallest(L, 1) - l0 + 1
    na = 0
    for j in range(K):
        if j != i1 and mh[i1, j] > 0.5:
            insert_sorted(sa, na, x[i1, j])
            na += 1
    f = fc[i1]
    if f >= 0 and f != i1:
        v = _cw_piece(mh, L, l0, nl, i1, f, x, sa, na, pa, pb, out)
        if v < thr:
            return v
    best = np.inf
    for i2 in range(K):
        if i2 != i1:
            best = min(best, _cw_piece(mh, L, l0, nl, i1, i2, x, sa, na, pa, pb, out))
            if best < thr:
                fc[i1] = i2
                return best
    return best


@nb.njit(cache=True)
def _second_smallest(L, k):
    """The k-th smallest (k = 0, 1) of L, as np.sort(L)[k] (l_range_core)."""
    a = np.inf
    b = np.inf
    for v in L:
        if v < a:
            b = a
            a = v
        elif v < b:
            b = v
    return int(a) if k == 0 else int(b)



# ------------------------------------------- ECW-RMED: incremental exact bookkeeping ----
# After an off-diagonal duel (a, b) only the evidence and costs of that pair change, so of
# the membership test and of the ECW allocation only the constraint (4) of a winner in
# {a, b} and the pieces (5) of the columns a and b can change (while the tournament, i.e.
# the signs of µ̂ − 1/2, stays).  The helpers below evaluate one piece with the same float
# operations in the same order as ecw_oracle_into / ecw_winner_into, so every value, and
# hence every decision of the loop, is bit-identical to the full recomputation.


@nb.njit(cache=True)
def _member_piece(N, mh, dh, L, i1, i2, logt, buf):
    """Constraint (5) of R^E_{i1} for i2: the sum of the m smallest x_{i2 j}, j ∈ S_{i2} \\ {i1},
    added in ascending order (+inf if there is no such constraint).  Only the m smallest
    are kept (same values, same order of addition as the full insertion sort)."""
    m = L[i2] - L[i1] + 1
    if m < 1:
        return np.inf
    n = 0
    for j in range(mh.shape[0]):
        if j != i2 and j != i1 and mh[i2, j] < 0.5:
            v = min(N[i2, j] * dh[i2, j] / logt, 1.0)
            if n >= m:
                if not v < buf[m - 1]:
                    n += 1
                    continue
                k = m - 1
            else:
                k = n
            insert_sorted(buf, k, v)
            n += 1
    if m > n:
        return np.inf
    acc = 0.0
    for k in range(m):
        acc += buf[k]
    return acc


@nb.njit(cache=True)
def ecw_member_fast(N, mh, dh, L, i1, logt, thr, fc, buf):
    """The R^E membership value (``ecw_oracle_into``'s minimum) decided component by
    component: the constraint that failed for i1 last time (``fc[i1]``: -3 − j = (4) at
    arm j, i2 ≥ 0 = (5) for i2, -2 = none) is tried first — if it is still violated i1 is
    not a member, whatever the others are.  Otherwise the components in ecw_oracle_into's
    order; returns the smallest left-hand side when i1 is a member (the same minimum), a
    value < thr otherwise."""
    f = fc[i1]
    if f <= -3:
        j = -3 - f
        if mh[i1, j] > 0.5:
            v = min(N[i1, j] * dh[i1, j] / logt, 1.0)
            if v < thr:
                return v
    elif f >= 0:
        v = _member_piece(N, mh, dh, L, i1, f, logt, buf)
        if v < thr:
            return v
    best = np.inf
    for j in range(mh.shape[0]):  # constraint (4)
        if j != i1 and mh[i1, j] > 0.5:
            best = min(best, min(N[i1, j] * dh[i1, j] / logt, 1.0))
            if best < thr:
                fc[i1] = -3 - j
                return best
    for i2 in range(mh.shape[0]):
        if i2 == i1:
            continue
        best = min(best, _member_piece(N, mh, dh, L, i1, i2, logt, buf))
        if best < thr:
            fc[i1] = i2
            return best
    fc[i1] = -2
    return best

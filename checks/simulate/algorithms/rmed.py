"""The RMED family: RMED1 (Komiyama et al. 2015) and CW-/ECW-RMED ([K16] Algorithm 1).

All three keep the empirical preferences µ̂ and divergences d̂_ij = d(µ̂_ij, 1/2)
up to date incrementally (only the dueled pair changes) through :func:`_play`,
and run the loop-list scheme L_C (current loop), L_R (remaining), L_N (next).
CW-/ECW-RMED call the package's solver cores (:mod:`duelbound.solvers.oracle`,
:mod:`duelbound.solvers.ecw`), so the simulator and the bounds share one code path.
"""

from __future__ import annotations

import itertools
import math

import numba as nb
import numpy as np

from ....solvers.ecw import sorted_threshold
from ....solvers.oracle import cw_levels_into, insert_sorted, insert_sorted_indexed
from ....solvers.parametric import (
    CStarTracker,
    cw_values_core,
    pair_costs_core,
)
from ....theory.errors import DuelboundError
from ..environment import duel, finished
from .common import (
    AlgorithmSpec,
    kl_half_scalar,
    log_guard,
    loglog_guard,
    random_argmax,
)
from .schedule import new_schedule, pop_due, schedule

_TOL = 1e-9  # membership tolerance, as in duelbound.solvers.in_region


@nb.njit(cache=True)
def _play(env, rng, mh, dh, i, j):
    """Duel (i, j) and refresh µ̂ and d̂ on that pair (0/0 = 1/2, docs/math.md §9)."""
    duel(env, rng, i, j)
    n = env.W[i, j] + env.W[j, i]
    if i != j and n > 0:  # n = 0 only after the horizon (duel is then a no-op)
        m = env.W[i, j] / n
        mh[i, j] = m
        mh[j, i] = 1.0 - m
        dh[i, j] = kl_half_scalar(m)
        dh[j, i] = dh[i, j]


# ---------------------------------------------------------------- RMED1 -----------------


@nb.njit(cache=True)
def _empirical_divergence(env, mh, dh, out):
    """Î_i = Σ_{j ≠ i: µ̂_ij ≤ 1/2} N_ij d(µ̂_ij, 1/2) (Komiyama et al. 2015, eq. (4))."""
    for i in range(mh.shape[0]):
        _divergence_row(env, mh, dh, out, i)


@nb.njit(cache=True)
def _divergence_row(env, mh, dh, out, i):
    """Î_i alone (a duel (l, m) changes only Î_l and Î_m; same summation order)."""
    s = 0.0
    for j in range(mh.shape[0]):
        if j != i and mh[i, j] <= 0.5:
            s += env.N[i, j] * dh[i, j]
    out[i] = s


@nb.njit(cache=True, nogil=True)
def run_rmed1(env, rng, fk_scale, fk_power):
    """RMED1 (Komiyama, Honda, Kashima, Nakagawa, COLT 2015, Alg. 1 + Alg. 2), f(K) = 0.3 K^1.01.

    Initial phase: every pair i < j once. Loop over arms l ∈ L_C: Ô_l = {j ≠ l :
    µ̂_lj ≤ 1/2}; î* = argmin Î_i (ties at random); the opponent m is î* if
    Ô_l = ∅ or î* ∈ Ô_l, else argmin_{j∈Ô_l} µ̂_lj; duel (l, m); remove l from L_R and
    add to L_N every arm j ∉ L_R with Î_j − min Î ≤ log t + f(K) (log guarded by
    max(log t, 1), docs/math.md §9). A Condorcet algorithm: linear regret without a
    Condorcet winner.

    Implementation (identical runs, O(K) per duel): Î is kept current by recomputing
    only the rows l and m of the dueled pair, in the same summation order.
    """
    K = env.mu.shape[0]
    mh = np.full((K, K), 0.5)
    dh = np.zeros((K, K))
    fK = fk_scale * K ** fk_power
    for i in range(K):
        for j in range(i + 1, K):
            _play(env, rng, mh, dh, i, j)
    Ihat = np.empty(K)
    neg = np.empty(K)
    allm = np.ones(K, np.bool_)
    inC = np.ones(K, np.bool_)
    inR = np.ones(K, np.bool_)
    inN = np.zeros(K, np.bool_)
    _empirical_divergence(env, mh, dh, Ihat)  # then kept current row by row
    while not finished(env):
        for l in range(K):
            if not inC[l] or finished(env):
                continue
            for k in range(K):
                neg[k] = -Ihat[k]
            best = random_argmax(neg, allm, rng)
            m = -1
            if mh[l, best] > 0.5 or best == l:
                lowest = 2.0
                for j in range(K):
                    if j != l and mh[l, j] <= 0.5 and mh[l, j] < lowest:
                        lowest = mh[l, j]
                        m = j
            if m < 0:
                m = best
            _play(env, rng, mh, dh, l, m)
            inR[l] = False
            if m != l:
                _divergence_row(env, mh, dh, Ihat, l)
                _divergence_row(env, mh, dh, Ihat, m)
            thresh = Ihat.min() + log_guard(env.clock[0] + 1.0) + fK
            for j in range(K):
                if not inR[j] and Ihat[j] <= thresh:
                    inN[j] = True
        for k in range(K):
            inC[k] = inN[k]
            inR[k] = inN[k]
            inN[k] = False


# -------------------------------------------------------------- CW-/ECW-RMED ------------


@nb.njit(cache=True)
def _evidence(env, dh, logt, x):
    """x_ij = min(N_ij/log t, 1/d̂_ij) · d̂_ij = min(N_ij d̂_ij / log t, 1): normalised counts
    clipped to the box of R_{i1} ([K16] Alg. 1 line 8; reading R11 of docs/math.md §10)."""
    K = dh.shape[0]
    for i in range(K):
        x[i, i] = 0.0
        for j in range(K):
            if j != i:
                x[i, j] = min(env.N[i, j] * dh[i, j] / logt, 1.0)


@nb.njit(cache=True)
def _add_next(p, inR, inN, listN, nN):
    """L_N ← L_N ∪ {p} unless p ∈ L_R or already in L_N ([K16] Alg. 1 line 15)."""
    if not inR[p] and not inN[p]:
        inN[p] = True
        listN[nN] = p
        nN += 1
    return nN


@nb.njit(cache=True)
def _play_tracked(env, rng, mh, dh, L, state, i, j):
    """:func:`_play` that also keeps L_i = #{k : µ̂_ik < 1/2} and the number of exact
    ties µ̂_ij = 1/2 (``state[1]``) up to date, and bumps ``state[0]`` (the version of
    (N, µ̂) off the diagonal) when a pair i ≠ j is drawn and ``state[2]`` (the version of
    the empirical tournament) when the sign of µ̂_ij − 1/2 changes. Self-duels change
    none of them."""
    if i == j or finished(env):
        duel(env, rng, i, j)
        return
    before = mh[i, j]
    _play(env, rng, mh, dh, i, j)
    after = mh[i, j]
    state[0] += 1
    if before == 0.5:
        state[1] -= 1
    if after == 0.5:
        state[1] += 1
    if (before < 0.5) != (after < 0.5) or (before > 0.5) != (after > 0.5):
        state[2] += 1
    if (before < 0.5) != (after < 0.5):  # i's loss to j appeared or vanished
        s = 1 if after < 0.5 else -1
        L[i] += s
    if (before > 0.5) != (after > 0.5):
        s = 1 if after > 0.5 else -1
        L[j] += s


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
def _cw_member_fast(mh, L, i1, x, thr, fc, sa, pa, pb, out):
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


# CW-RMED's LP state lives in Python (one CStarTracker per run, HiGHS models inside);
# the compiled loop holds only its id and reaches it through numba's object mode.
_TRACKERS: dict[int, CStarTracker] = {}
_TRACKER_IDS = itertools.count(1)


def _cw_prepare(M, env) -> tuple:
    """Runner arguments of CW-RMED: (ecw=False, id of a fresh per-run tracker)."""
    tid = next(_TRACKER_IDS)
    _TRACKERS[tid] = CStarTracker(M.K)
    return (False, tid)


def _cw_resolve_py(tid: int, mh: np.ndarray, dh: np.ndarray) -> np.ndarray:
    return _TRACKERS[tid].solve(mh, dh, checks=False).evidence


def _cw_still_optimal_py(tid: int, cost: np.ndarray) -> bool:
    return _TRACKERS[tid].still_optimal(cost)


@nb.njit(cache=True)
def _cw_resolve(tid, mh, dh):
    """The LP of [K16] §3 on µ̂ for every empirical winner (warm-started HiGHS models of
    :class:`duelbound.solvers.parametric.CStarTracker`): the optimal vertices X."""
    with nb.objmode(X="float64[:, :]"):
        X = _cw_resolve_py(tid, mh, dh)
    return X


@nb.njit(cache=True)
def _cw_still_optimal(tid, cost):
    """Whether the bases of the last solve stay optimal at pair costs ``cost``
    (:meth:`duelbound.solvers.parametric.CStarTracker.still_optimal`)."""
    with nb.objmode(ok="boolean"):
        ok = _cw_still_optimal_py(tid, cost)
    return ok


@nb.njit(cache=True)
def _cw_release(tid):
    with nb.objmode():
        _TRACKERS.pop(tid, None)


_WINDOW_MARGIN = 1e-12  # relative slack that keeps the cached membership rigorous in floats
_PROBE = 0.01  # ECW (R^E): the membership is also tested at log t + _PROBE to widen the window


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
def _member_fast(N, mh, dh, L, i1, logt, thr, fc, buf):
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


@nb.njit(cache=True)
def _ecw_piece(mh, dh, L, l1, i1, i2, cbuf, ibuf):
    """Piece (5) of C^E*_{i1} for i2 as in ecw_winner_into (same costs r/d, same stable
    insertion sort into cbuf/ibuf): (optimum, h, n, m); h = 0 when the piece is empty."""
    K = mh.shape[0]
    m = L[i2] - L[i1] + 1
    n = 0
    for j in range(K):
        if j != i2 and j != i1 and mh[i2, j] < 0.5:
            # r_{j i2} = (L_j + L_i2 − 2 L1)/(2(K − 1)): the regret_matrix value, bit for bit
            c = ((L[j] + L[i2] - 2.0 * l1) / (2.0 * (K - 1))) / dh[j, i2]
            insert_sorted_indexed(cbuf, ibuf, n, c, j)
            n += 1
    if n < m or m < 1:
        return 0.0, 0, n, m
    best, h = sorted_threshold(cbuf, n, m)
    return best, h, n, m



@nb.njit(cache=True)
def _slot_piece(mh, dh, L, l1, i1, i2, s, scs, srt, sn, sm):
    """:func:`_ecw_piece` kept in slot s: the sorted costs and arms of piece (i1, i2) stay in
    ``scs[s, i2]`` / ``srt[s, i2]`` (n, m in ``sn``, ``sm``) for :func:`_slot_repiece`."""
    best, h, n, m = _ecw_piece(mh, dh, L, l1, i1, i2, scs[s, i2], srt[s, i2])
    sn[s, i2] = n
    sm[s, i2] = m
    return best, h


@nb.njit(cache=True)
def _slot_repiece(mh, dh, L, l1, i1, i2, o, s, scs, srt, sn, sm):
    """Piece (i1, i2) after only the cost of arm o changed: o is moved to its place in the
    stored order — (cost, arm) ascending, the order of the stable insertion sort — so the
    sorted sequence, and hence the optimum and h, are those of :func:`_ecw_piece`."""
    K = mh.shape[0]
    n = sn[s, i2]
    m = sm[s, i2]
    cs = scs[s, i2]
    ix = srt[s, i2]
    pos = 0
    while ix[pos] != o:
        pos += 1
    for k in range(pos, n - 1):  # remove o
        cs[k] = cs[k + 1]
        ix[k] = ix[k + 1]
    c = ((L[o] + L[i2] - 2.0 * l1) / (2.0 * (K - 1))) / dh[o, i2]
    k = n - 1
    while k > 0 and (cs[k - 1] > c or (cs[k - 1] == c and ix[k - 1] > o)):
        cs[k] = cs[k - 1]
        ix[k] = ix[k - 1]
        k -= 1
    cs[k] = c
    ix[k] = o
    if n < m or m < 1:
        return 0.0, 0
    return sorted_threshold(cs, n, m)


@nb.njit(cache=True)
def _due(qv, n, tau0, tmax):
    """First integer τ ≥ tau0 with qv > n / log_guard(τ) (line 11's test at t = τ − 1 duels
    done), or tmax + 1.  The test is monotone in τ (n, qv fixed): bisection on the exact
    float expression, started around τ* = exp(n/qv)."""
    if qv > n / log_guard(float(tau0)):
        return tau0
    if tau0 >= tmax or not qv > n / log_guard(float(tmax)):
        return tmax + 1
    lo = tau0
    hi = tmax
    expo = n / qv
    if expo < math.log(float(tmax)) + 1.0:
        guess = int(math.exp(expo))
        a = max(guess - 2, lo)
        b = min(guess + 2, hi)
        if a > lo and not qv > n / log_guard(float(a)):
            lo = a
        if b < hi and b > lo and qv > n / log_guard(float(b)):
            hi = b
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        if qv > n / log_guard(float(mid)):
            hi = mid
        else:
            lo = mid
    return hi


@nb.njit(cache=True)
def _mark(p, marked, mlist, nm):
    if not marked[p]:
        marked[p] = True
        mlist[nm] = p
        nm += 1
    return nm


@nb.njit(cache=True)
def _note_duel(i, j, colver, other, colmark, clist, marked, mlist, es):
    """Record an off-diagonal duel (i, j) for ECW-RMED's incremental allocation: the columns
    i and j changed (``colver``; ``other`` = the arm of the last duel in that column; the
    list of columns changed since the last allocation step) and pair {i, j} has new counts.
    (Called by the runner only after a duel that changed µ̂: self-duels cost nothing.)"""
    colver[i] += 1
    colver[j] += 1
    other[i] = j
    other[j] = i
    for a in (i, j):
        if not colmark[a]:
            colmark[a] = True
            clist[es[6]] = a
            es[6] += 1
    K = colver.shape[0]
    es[3] = _mark(max(i, j) * K + min(i, j), marked, mlist, es[3])


@nb.njit(cache=True)
def _update_piece(mh, dh, L, l1, i1, i2, tv, colver, other, pbest, ph, pver, ptv, s, scs, srt,
                  sn, sm):
    """Bring piece (i1, i2) up to date (optimum in pbest, 0.0 when empty; h in ph)."""
    if i2 == i1 or (ptv[i1, i2] == tv and pver[i1, i2] == colver[i2]):
        return
    if ptv[i1, i2] == tv and pver[i1, i2] == colver[i2] - 1:  # one duel (i2, o) since
        o = other[i2]
        if o != i1 and mh[i2, o] < 0.5:
            b, h = _slot_repiece(mh, dh, L, l1, i1, i2, o, s, scs, srt, sn, sm)
            pbest[i1, i2] = b
            ph[i1, i2] = h
    else:
        b, h = _slot_piece(mh, dh, L, l1, i1, i2, s, scs, srt, sn, sm)
        pbest[i1, i2] = b
        ph[i1, i2] = h
        ptv[i1, i2] = tv
    pver[i1, i2] = colver[i2]


@nb.njit(cache=True)
def _write_piece(mh, dh, star, i2, h, n, m, order, newv, q, marked, mlist, es, mark):
    """Column i2 of the allocation of winner ``star`` (piece (5): its h cheapest arms
    ``order[:h]``, ecw_winner_into's values): the entries that differ from q are written
    (both orders) and, if ``mark``, their pairs marked."""
    K = mh.shape[0]
    for j in range(K):
        newv[j] = 0.0
    if h > 0:
        e = 1.0 / (h - (n - m))
        for t in range(h):
            j = order[t]
            newv[j] = e / dh[j, i2]
    for j in range(K):
        if j != i2 and j != star and mh[i2, j] < 0.5 and newv[j] != q[j, i2]:
            q[j, i2] = newv[j]
            q[i2, j] = newv[j]
            if mark:
                es[3] = _mark(max(i2, j) * K + min(i2, j), marked, mlist, es[3])


@nb.njit(cache=True)
def _ecw_allocation_step(env, mh, dh, L, state, tau, colver, other, colmark, clist, wst, c4sum,
                         c4v, pbest, ph, pver, ptv,
                         slot_of, slot_owner, scs, srt, sn, sm, q, qold, qcol, newv, cbuf,
                         ibuf, es, marked, mlist, tdue, heap, hsize, hdue, fresh, inR, inN,
                         listN, nN):
    """Lines 10–11 of ECW-RMED after τ − 1 duels: î = the first minimiser of C^E*_{i1}(µ̂)
    over the empirical winners, and L_N ← L_N ∪ ({pairs with q̂_ij > N_ij/log t} \\ L_R) in
    the scan's order, exactly as ``ecw_core_into`` followed by the scan over all pairs.

    Incremental: a piece (5) of winner i1 is re-sorted only if its column changed
    (``colver``) or the tournament did (``state[2]``); q̂ (the allocation of winner
    ``es[0]``, kept in ``q``) is rewritten only in changed columns (``qcol``) and on the
    row of (4), and the pairs whose entry changes are marked (as are pairs with new counts,
    by :func:`_note_duel`).  For a pair p the test q̂_p > N_p/log_guard(τ) is monotone in
    τ while q̂_p and N_p stay, so ``tdue[p]`` (its first true τ, :func:`_due`) is recomputed
    only for marked pairs, and future due times wait in a heap.  The first failing step of a
    pass (``es[2] = 0``) and a new allocation scan all pairs on tdue ≤ τ; later steps of the
    pass add only pairs that became true since (marked or due): every other true pair is
    already in L_N or still in L_R (a pair leaves L_R only by being drawn, which marks it).
    Returns (î, nN).
    """
    K = mh.shape[0]
    l1 = L.min()
    tv = state[2]
    tmax = env.clock[2] + 1
    best = np.inf
    star = -1
    es[7] += 1
    for i1 in range(K):
        if L[i1] != l1:
            continue
        if c4v[0, i1] != colver[i1] or c4v[1, i1] != tv:  # the sum (4) of row i1 changed
            total = 0.0
            for j in range(K):
                if j != i1 and mh[i1, j] > 0.5:
                    total += ((L[i1] + L[j] - 2.0 * l1) / (2.0 * (K - 1))) / dh[i1, j]
            c4sum[i1] = total
            c4v[0, i1] = colver[i1]
            c4v[1, i1] = tv
        total = c4sum[i1]
        s = slot_of[i1]
        if s < 0:  # a slot for the sorted pieces of i1 (round robin over the slots)
            s = es[4] % slot_owner.shape[0]
            es[4] += 1
            if slot_owner[s] >= 0:
                slot_of[slot_owner[s]] = -1
                ptv[slot_owner[s], :] = -1
                wst[0, slot_owner[s]] = -1
            slot_owner[s] = i1
            slot_of[i1] = s
            ptv[i1, :] = -1
        if wst[0, i1] == es[7] - 1 and wst[1, i1] == tv:
            # all pieces of i1 were current at the last failing step: only the columns of
            # the duels since then can have changed
            for k in range(es[6]):
                _update_piece(mh, dh, L, l1, i1, clist[k], tv, colver, other, pbest, ph, pver,
                              ptv, s, scs, srt, sn, sm)
        else:
            for i2 in range(K):
                if i2 != i1:
                    _update_piece(mh, dh, L, l1, i1, i2, tv, colver, other, pbest, ph, pver,
                                  ptv, s, scs, srt, sn, sm)
        wst[0, i1] = es[7]
        wst[1, i1] = tv
        for i2 in range(K):  # pbest = 0 on empty pieces and at i2 = i1: adding 0.0 is exact
            total += pbest[i1, i2]
        if total < best:
            best = total
            star = i1
    for k in range(es[6]):
        colmark[clist[k]] = False
    es[6] = 0
    full = es[2] == 0
    es[2] = 1
    if star < 0:  # no finite value (not reached without ties): q̂ stays, as in ecw_core_into
        star = 0
    else:
        rebuilt = es[0] != star or es[1] != tv
        if rebuilt:  # another allocation: rebuilt from zero, compared with the old one
            full = True
            es[0] = star
            es[1] = tv
            qold[:, :] = q
            q[:, :] = 0.0
            for i2 in range(K):
                qcol[i2] = -1
        if rebuilt:
            es[5] = -1
        for j in range(K if es[5] != colver[star] else 0):  # (4): q̂_{î j} = 1/d̂_{î j}, j ∈ I_î
            if j != star and mh[star, j] > 0.5:
                v = 1.0 / dh[star, j]
                if v != q[star, j]:
                    q[star, j] = v
                    q[j, star] = v
                    if not rebuilt:
                        es[3] = _mark(max(star, j) * K + min(star, j), marked, mlist, es[3])
        es[5] = colver[star]
        for i2 in range(K):
            if i2 != star and qcol[i2] != colver[i2]:
                qcol[i2] = colver[i2]
                s = slot_of[star]
                if s >= 0:
                    _write_piece(mh, dh, star, i2, ph[star, i2], sn[s, i2], sm[s, i2], srt[s, i2],
                                 newv, q, marked, mlist, es, not rebuilt)
                else:  # star's slot went to a later winner (more winners than slots)
                    b, h, n, m = _ecw_piece(mh, dh, L, l1, star, i2, cbuf, ibuf)
                    _write_piece(mh, dh, star, i2, h, n, m, ibuf, newv, q, marked, mlist, es,
                                 not rebuilt)
        if rebuilt:
            for i in range(K):
                for j in range(i):
                    if q[i, j] != qold[i, j]:
                        es[3] = _mark(i * K + j, marked, mlist, es[3])
    # due times of the marked pairs
    nf = 0
    for k in range(es[3]):
        p = mlist[k]
        marked[p] = False
        d = _due(q[p // K, p % K], env.N[p // K, p % K], tau, tmax)
        tdue[p] = d
        if d > tau:
            schedule(heap, hsize, hdue, p, d, tmax)
        else:
            schedule(heap, hsize, hdue, p, 0, tmax)
            fresh[nf] = p
            nf += 1
    es[3] = 0
    while True:
        p = pop_due(heap, hsize, hdue, tau)
        if p < 0:
            break
        fresh[nf] = p
        nf += 1
    if full:
        for i in range(K):
            for j in range(i):
                p = i * K + j
                if not inR[p] and not inN[p] and tdue[p] <= tau:
                    nN = _add_next(p, inR, inN, listN, nN)
    else:
        fresh[:nf].sort()
        for k in range(nf):
            p = fresh[k]
            if tdue[p] <= tau:
                nN = _add_next(p, inR, inN, listN, nN)
    return star, nN


@nb.njit(cache=True, nogil=True)
def run_cw_rmed(env, rng, ecw, tracker, alpha, beta, membership="RE", lazy=True):
    """CW-RMED (``ecw`` False) or ECW-RMED (``ecw`` True): [K16] Algorithm 1, α = 3, β = 0.01.

    Pairs are encoded p = i·K + j; L_C and L_R start as all pairs i > j.
    Step 4 (once per pass of the outer loop): draw every pair with
    N_ij < α √(max(log t, 1)) or |µ̂_ij − 1/2| < β / max(log log t, 1), each once.
    Steps 5–17: for each p ∈ L_C: draw p; with x = clipped evidence
    (:func:`_evidence`), if x ∈ R_î(µ̂) (CW, :func:`cw_oracle_core`) or R^E_î(µ̂)
    (ECW, :func:`ecw_oracle_into`) for some empirical Copeland winner î,
    L_NC = {(î, î)}; else î = argmin C*_{i1}(µ̂) (CW: the family-generation LP of
    :func:`duelbound.solvers.cstar` on µ̂, warm-started per tournament, with the last
    optimal vertex re-used while the tournament is the same and the last bases pass
    the exact optimality test at the current costs,
    :meth:`duelbound.solvers.parametric.CStarTracker.still_optimal`, asked only when
    some off-diagonal duel moved the costs r/d̂ since it last passed) or C^E*_{i1}(µ̂) (ECW:
    :func:`duelbound.solvers.ecw.ecw_core_into`, [K16] Th. 5), and L_NC = {pairs
    with q̂_ij > N_ij/log t} ∪ {(î, î)}. Then L_R ← L_R \\ {p}, L_N ← L_N ∪ (L_NC \\ L_R).

    ``membership`` (ECW only) is the region of line 8's test N/log t ∈ R(µ̂):

    - ``"RE"`` (default): R^E_î, the region whose optimisation (C^E*_î, [K16] Th. 5)
      lines 10–11 of ECW-RMED solve, so the test and the exploration it triggers ask
      for the same allocation; [K16] Th. 4's analysis of ECW-RMED is stated with R^E.
    - ``"R"``: R_î, line 8 as printed in [K16] Alg. 1 for both CW- and ECW-RMED.

    R^E_î ⊆ R_î (C^E* ≥ C*), so ``"R"`` stops exploring sooner (docs/simulator.md,
    "Readings", has the measured difference). CW-RMED always tests R_î.

    ``lazy`` (CW only; default True): re-solve the LP only when the empirical
    tournament changed or the bases of the last solve fail the exact optimality test at
    the current costs (below).  False solves it on every round that needs an allocation
    (the reference mode of tests/test_algorithms.py, which checks that both give the
    same duels).

    Departures from the paper (documented in docs/simulator.md):

    - log t and log log t are replaced by max(·, 1) (docs/math.md §9).
    - Membership is tested on the counts clipped to the box, x_ij = min(N_ij d̂_ij/log t, 1)
      (the region R is defined inside the box, so unclipped counts would never be members).
    - If some µ̂_ij = 1/2 exactly (possible between two step-4 passes), d̂_ij = 0 and the
      regions/optimisations are undefined; the tied pairs are put into L_NC instead
      (step 4 would draw them next anyway), with (î, î) for the first empirical winner.
    - Ties among minimising winners go to the lowest index ("ties broken arbitrarily").

    Exact shortcuts (the choices are those of the loop without them):

    - µ̂, d̂, L and the number of exact ties are updated per duel (only the drawn
      pair changes); nothing is allocated per step.
    - Step 4 is skipped when min N_ij ≥ α√log t and min |µ̂_ij − 1/2| ≥ β/log log t
      (both minima are recomputed only after an off-diagonal duel).
    - Membership cache: when the test succeeds for winner î with smallest left-hand
      side v at log t = ℓ0, and later only self-duels happen (N, µ̂ off the diagonal
      unchanged), every x_ij = min(a_ij/ℓ, 1) ≥ (ℓ0/ℓ)·x_ij(ℓ0) for ℓ ≥ ℓ0, and each
      left-hand side is a sum of x values, so î stays a member while
      ℓ ≤ ℓ0·v/(1 − tol) (with a 1e-12 relative margin for rounding); winners
      before î failed at ℓ0 and their left-hand sides only decrease, so they stay
      non-members. Within that window the answer is (î, î) without re-testing.
      ECW with R^E also tests î at ℓ1 = ℓ0 + 0.01: every x_ij = min(a_ij/ℓ, 1) is
      non-increasing in ℓ in floating point (rounded division is monotone), and so are the
      ascending sums of the m smallest and their minimum, so a member at ℓ1 is a member on
      [ℓ0, ℓ1]; the window is then extended to ℓ1 (v ≈ 1 exactly, clipped evidence, made
      the first window useless).
    - Only the first step of a pass scans all pairs for exact ties; later steps of the pass
      can only add the drawn pair (the others are unchanged and already in L_N or L_R).
    - ECW with R^E (:func:`_member_fast`): the constraint that failed for a winner last
      time is re-evaluated first (a violated constraint decides alone), on the evidence
      computed entry by entry instead of the whole matrix x.
    - ECW allocation (:func:`_ecw_allocation_step`): pieces (5) are re-sorted only in the
      columns a duel touched (one arm moved in the kept order after a single duel), q̂ is
      rewritten only there, and the line-11 test q̂_ij > N_ij/log t of each pair is kept as
      its first true t (monotone in t), so a step visits only changed or due pairs.
      Same float operations in the same order: values, allocation and L_N are bit-identical
      (tests/test_identity_simulator.py, docs/simulator.md "Speed").
    """
    region_e = ecw
    if ecw and membership == "R":
        region_e = False
    elif ecw and membership != "RE":
        raise DuelboundError("membership of ecw-rmed must be 'RE' or 'R'")
    K = env.mu.shape[0]
    KK = K * K
    mh = np.full((K, K), 0.5)
    dh = np.zeros((K, K))
    x = np.zeros((K, K))
    q = np.zeros((K, K))
    work = np.zeros((K, K))
    values = np.empty(K)
    fbuf = np.empty(K)
    pa = np.empty(K + 1)  # CW membership (_cw_member_fast): prefix sums of A and B
    pb = np.empty(K + 1)
    lvl = np.empty((K + 1, 2))  # ... and the left-hand sides of one arm per level
    ibuf = np.empty(K, np.int64)
    L = np.zeros(K, np.int64)  # losses of µ̂ (all µ̂ = 1/2 at the start: none)
    # [version of N/µ̂ off the diagonal, exact ties among i > j, version of the tournament]
    state = np.zeros(3, np.int64)
    state[1] = K * (K - 1) // 2
    inR = np.zeros(KK, np.bool_)
    inN = np.zeros(KK, np.bool_)
    listC = np.empty(KK, np.int64)
    listN = np.empty(KK, np.int64)
    nC = 0
    for i in range(K):
        for j in range(i):
            listC[nC] = i * K + j
            inR[i * K + j] = True
            nC += 1
    min_version = -1  # version at which min_n, min_gap were computed
    min_n = 0
    min_gap = 0.0
    cache_version = -1  # membership cache: valid for this version and log t ≤ cache_logt
    cache_logt = -1.0
    cache_star = -1
    cost = np.zeros(KK)  # CW: pair costs r/d̂ and the vertices of the last LP solve
    X = np.zeros((0 if ecw else K, KK))  # CW only: K·K² floats (1 GB at K = 500)
    basis_version = -1  # tournament version of the last solve
    cost_version = -1  # version of (N, µ̂) at which the bases were last known optimal
    # ECW: incremental allocation (_ecw_allocation_step) and membership (_member_fast)
    KE = K if ecw else 1
    colver = np.zeros(K, np.int64)  # bumped by every duel of a pair in that column
    other = np.zeros(K, np.int64)  # the other arm of that duel
    # winners whose pieces are kept sorted (slots): up to ~4·10⁶ entries (64 MB)
    NS = min(K, max(6, 4_000_000 // KK)) if ecw else 1
    slot_of = np.full(K, -1, np.int64)
    slot_owner = np.full(NS, -1, np.int64)
    scs = np.empty((NS, KE, KE))
    srt = np.empty((NS, KE, KE), np.int64)
    sn = np.zeros((NS, KE), np.int64)
    sm = np.zeros((NS, KE), np.int64)
    pbest = np.zeros((KE, KE))  # piece (5) of winner i1 for column i2, and its h ...
    ph = np.zeros((KE, KE), np.int64)
    pver = np.full((KE, KE), -1, np.int64)  # ... valid for colver[i2] = pver and
    ptv = np.full((KE, KE), -1, np.int64)  # tournament version state[2] = ptv
    qcol = np.full(K, -1, np.int64)  # colver at which column i2 of q was written
    newv = np.empty(K)
    fc = np.full(K, -2, np.int64)  # the constraint that failed last for winner i1
    # q's winner, q's tournament, failed in this pass, marks, slots handed out,
    # colver[q's winner] when its row (4) was written,
    # columns changed since the last allocation step, allocation steps so far
    es = np.array([-1, -1, 0, 0, 0, -1, 0, 0], np.int64)
    colmark = np.zeros(K, np.bool_)
    clist = np.empty(K, np.int64)
    wst = np.full((2, K), -5, np.int64)  # allocation step and tournament of i1's last values
    c4sum = np.zeros(K)  # Σ_(4) r/d̂ of winner i1, valid for colver[i1] = c4v[0, i1] and
    c4v = np.full((2, K), -1, np.int64)  # tournament version c4v[1, i1]
    marked = np.zeros(KK, np.bool_)
    mlist = np.empty(KK, np.int64)
    tdue = np.full(KK, env.clock[2] + 2, np.int64)  # q = 0: never true
    heap, hsize, hdue = new_schedule(KK)
    fresh = np.empty(2 * KK, np.int64)
    while not finished(env):
        # Step 4: forced exploration, evaluated at the start of the pass.
        t = env.clock[0] + 1.0
        n_min = alpha * math.sqrt(log_guard(t))
        gap = beta / loglog_guard(t)
        if min_version != state[0]:
            min_n = env.N[1, 0]
            min_gap = abs(mh[1, 0] - 0.5)
            for i in range(K):
                for j in range(i):
                    min_n = min(min_n, env.N[i, j])
                    min_gap = min(min_gap, abs(mh[i, j] - 0.5))
            min_version = state[0]
        if min_n < n_min or min_gap < gap:
            for i in range(K):
                for j in range(i):
                    if env.N[i, j] < n_min or abs(mh[i, j] - 0.5) < gap:
                        version = state[0]
                        _play_tracked(env, rng, mh, dh, L, state, i, j)
                        if state[0] != version:
                            _note_duel(i, j, colver, other, colmark, clist, marked, mlist, es)
        nN = 0
        for c in range(nC):
            if finished(env):
                break
            p = listC[c]
            version = state[0]
            _play_tracked(env, rng, mh, dh, L, state, p // K, p % K)
            if state[0] != version:
                _note_duel(p // K, p % K, colver, other, colmark, clist, marked, mlist, es)
            inR[p] = False  # line 14 comes before line 15
            logt = log_guard(env.clock[0] + 1.0)
            if cache_version == state[0] and logt <= cache_logt:
                nN = _add_next(cache_star * K + cache_star, inR, inN, listN, nN)
                continue
            l1 = L.min()
            star = -1
            if state[1] > 0:
                if c == 0:
                    for i in range(K):
                        for j in range(i):
                            if mh[i, j] == 0.5:
                                nN = _add_next(i * K + j, inR, inN, listN, nN)
                elif p // K != p % K and mh[p // K, p % K] == 0.5:  # the only new candidate
                    nN = _add_next(p, inR, inN, listN, nN)
                star = int(np.argmin(L))
            else:
                if not region_e:
                    _evidence(env, dh, logt, x)
                for i1 in range(K):
                    if L[i1] == l1:
                        if region_e:
                            v = _member_fast(env.N, mh, dh, L, i1, logt, 1.0 - _TOL, fc, fbuf)
                        else:
                            v = _cw_member_fast(mh, L, i1, x, 1.0 - _TOL, fc, fbuf, pa, pb,
                                                lvl)
                        if v >= 1.0 - _TOL:
                            star = i1
                            cache_version = state[0]
                            cache_star = i1
                            cache_logt = logt * v / (1.0 - _TOL) * (1.0 - _WINDOW_MARGIN)
                            probe = logt + _PROBE
                            if region_e and probe > cache_logt:
                                w = _member_fast(env.N, mh, dh, L, i1, probe, 1.0 - _TOL, fc,
                                                 fbuf)
                                if w >= 1.0 - _TOL:  # a member at log t = probe: also up to it
                                    cache_logt = probe
                            break
                if star < 0 and ecw:
                    star, nN = _ecw_allocation_step(
                        env, mh, dh, L, state, env.clock[0] + 1, colver, other, colmark, clist,
                        wst, c4sum, c4v, pbest, ph, pver, ptv, slot_of, slot_owner, scs, srt, sn,
                        sm, q, work, qcol, newv, fbuf, ibuf, es, marked, mlist, tdue, heap, hsize,
                        hdue, fresh, inR, inN, listN, nN)
                elif star < 0:
                    pair_costs_core(L, dh, cost)
                    # costs depend on (L, d̂) only: unchanged while state[0] is
                    keep = lazy and basis_version == state[2] and (
                        cost_version == state[0] or _cw_still_optimal(tracker, cost))
                    if not keep:
                        X = _cw_resolve(tracker, mh, dh)
                        basis_version = state[2]
                    cost_version = state[0]
                    star = cw_values_core(cost, X, L, dh, values, q)
                    for i in range(K):
                        for j in range(i):
                            if q[i, j] > env.N[i, j] / logt:
                                nN = _add_next(i * K + j, inR, inN, listN, nN)
            nN = _add_next(star * K + star, inR, inN, listN, nN)
        # Step 18: L_C, L_R ← L_N; L_N ← ∅.
        es[2] = 0
        for c in range(nC):
            inR[listC[c]] = False
        for c in range(nN):
            listC[c] = listN[c]
            inR[listN[c]] = True
            inN[listN[c]] = False
        nC = nN
    if not ecw:
        _cw_release(tracker)


RMED1_SPEC = AlgorithmSpec("rmed1", run_rmed1, {"fk_scale": 0.3, "fk_power": 1.01},
                           "Komiyama et al. 2015, Alg. 1 (RMED1)", copeland=False)
CW_SPEC = AlgorithmSpec("cw-rmed", run_cw_rmed, {"alpha": 3.0, "beta": 0.01},
                        "[K16] Alg. 1 (CW)", prepare=_cw_prepare)
ECW_SPEC = AlgorithmSpec("ecw-rmed", run_cw_rmed,
                         {"alpha": 3.0, "beta": 0.01, "membership": "RE"},
                         "[K16] Alg. 1 (ECW)", prepare=lambda M, env: (True, 0))

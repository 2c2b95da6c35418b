"""ECW-RMED's allocation step ([K16] Alg. 1 lines 10–11 with C^E*, Th. 5), kept incrementally.

After an off-diagonal duel (a, b) only the costs of that pair change, so of the ECW
allocation only the constraint (4) of a winner in {a, b} and the pieces (5) of the columns
a and b can change (while the tournament stays).  The helpers evaluate one piece with the
same float operations in the same order as ``ecw_winner_into``, so the allocation and the
pairs it adds to L_N are bit-identical to the full recomputation
(tests/test_identity_simulator.py).  Used by
:func:`duelbound.checks.simulate.algorithms.rmed.run_cw_rmed`.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ....solvers.ecw import sorted_threshold
from ....solvers.oracle import insert_sorted_indexed
from .common import log_guard
from .schedule import pop_due, schedule


@nb.njit(cache=True)
def add_next(p, inR, inN, listN, nN):
    """L_N ← L_N ∪ {p} unless p ∈ L_R or already in L_N ([K16] Alg. 1 line 15)."""
    if not inR[p] and not inN[p]:
        inN[p] = True
        listN[nN] = p
        nN += 1
    return nN


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
def note_duel(i, j, colver, other, colmark, clist, marked, mlist, es):
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
def _row_sum(mh, dh, L, l1, i1, tv, colver, c4sum, c4v):
    """Σ over (4) of r_{i1 j}/d̂_{i1 j}, j ∈ I_{i1} (ecw_winner_into's order), re-added only
    when row i1 changed (``colver[i1]``) or the tournament did (``tv``)."""
    K = mh.shape[0]
    if c4v[0, i1] != colver[i1] or c4v[1, i1] != tv:
        total = 0.0
        for j in range(K):
            if j != i1 and mh[i1, j] > 0.5:
                total += ((L[i1] + L[j] - 2.0 * l1) / (2.0 * (K - 1))) / dh[i1, j]
        c4sum[i1] = total
        c4v[0, i1] = colver[i1]
        c4v[1, i1] = tv
    return c4sum[i1]


@nb.njit(cache=True)
def _slot(i1, es, slot_of, slot_owner, ptv, wst):
    """The slot that keeps the sorted pieces of winner i1; a new one is handed out round
    robin (its previous owner forgets its pieces)."""
    s = slot_of[i1]
    if s < 0:
        s = es[4] % slot_owner.shape[0]
        es[4] += 1
        if slot_owner[s] >= 0:
            slot_of[slot_owner[s]] = -1
            ptv[slot_owner[s], :] = -1
            wst[0, slot_owner[s]] = -1
        slot_owner[s] = i1
        slot_of[i1] = s
        ptv[i1, :] = -1
    return s


@nb.njit(cache=True)
def _winner_value(mh, dh, L, l1, i1, tv, colver, other, clist, es, wst, c4sum, c4v, pbest, ph,
                  pver, ptv, slot_of, slot_owner, scs, srt, sn, sm):
    """C^E*_{i1}(µ̂) ([K16] Th. 5): the sum (4) plus the pieces (5), added in
    ecw_winner_into's order, with only the pieces of changed columns re-sorted."""
    K = mh.shape[0]
    total = _row_sum(mh, dh, L, l1, i1, tv, colver, c4sum, c4v)
    s = _slot(i1, es, slot_of, slot_owner, ptv, wst)
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
    return total


@nb.njit(cache=True)
def _rewrite_allocation(mh, dh, L, l1, star, tv, colver, q, qold, qcol, newv, cbuf, ibuf, ph,
                        slot_of, sn, sm, srt, es, marked, mlist):
    """q̂ ← the allocation of winner ``star`` (ecw_winner_into's values): rebuilt from zero
    when the winner or the tournament changed (returns True), else rewritten in the row
    of (4) and the changed columns only; every pair whose entry changed is marked."""
    K = mh.shape[0]
    rebuilt = es[0] != star or es[1] != tv
    if rebuilt:  # another allocation: rebuilt from zero, compared with the old one
        es[0] = star
        es[1] = tv
        qold[:, :] = q
        q[:, :] = 0.0
        for i2 in range(K):
            qcol[i2] = -1
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
    return rebuilt


@nb.njit(cache=True)
def _add_due_pairs(N, q, tau, tmax, full, tdue, heap, hsize, hdue, fresh, marked, mlist, es,
                   inR, inN, listN, nN):
    """Line 11's pairs into L_N: the first true τ (:func:`_due`) of each marked pair is
    recomputed and scheduled; then, if ``full``, every pair with tdue ≤ τ in the scan's
    order, else only the pairs that became due (ascending)."""
    K = q.shape[0]
    nf = 0
    for k in range(es[3]):
        p = mlist[k]
        marked[p] = False
        d = _due(q[p // K, p % K], N[p // K, p % K], tau, tmax)
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
                    nN = add_next(p, inR, inN, listN, nN)
    else:
        fresh[:nf].sort()
        for k in range(nf):
            p = fresh[k]
            if tdue[p] <= tau:
                nN = add_next(p, inR, inN, listN, nN)
    return nN


@nb.njit(cache=True)
def ecw_allocation_step(env, mh, dh, L, state, tau, colver, other, colmark, clist, wst, c4sum,
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
    by :func:`note_duel`).  For a pair p the test q̂_p > N_p/log_guard(τ) is monotone in
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
    best = np.inf
    star = -1
    es[7] += 1
    for i1 in range(K):
        if L[i1] != l1:
            continue
        total = _winner_value(mh, dh, L, l1, i1, tv, colver, other, clist, es, wst, c4sum, c4v,
                              pbest, ph, pver, ptv, slot_of, slot_owner, scs, srt, sn, sm)
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
    elif _rewrite_allocation(mh, dh, L, l1, star, tv, colver, q, qold, qcol, newv, cbuf, ibuf,
                             ph, slot_of, sn, sm, srt, es, marked, mlist):
        full = True
    nN = _add_due_pairs(env.N, q, tau, env.clock[2] + 1, full, tdue, heap, hsize, hdue, fresh,
                        marked, mlist, es, inR, inN, listN, nN)
    return star, nN

"""CCB, Copeland Confidence Bound ([Z15] Algorithm 1, docs/math.md §9)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..environment import duel, finished
from .common import AlgorithmSpec, random_argmax, ucb_column
from .schedule import (
    L_AT_MOST,
    L_BELOW,
    U_AT_LEAST,
    new_schedule,
    pop_due,
    refresh_slot,
)


@nb.njit(cache=True)
def _touch(Bsets, flags, sel, rowsel, dis, count, K, i, j):
    """Re-derive the two facts CCB asks about pair (i, j) ∈ B^i after one of its inputs
    changed: sel = (l_ij ≤ 1/2 ≤ u_ij) (line 10's sample) and dis = (l_ij > 1/2)
    (line 5's reset), with per-row and total counts (``count`` = [#dis, #sel])."""
    p = i * K + j
    KK = K * K
    b = Bsets[i, j]
    s_new = b and flags[2 * KK + p] and flags[p]
    d_new = b and not flags[2 * KK + p]
    if s_new != sel[p]:
        sel[p] = s_new
        step = 1 if s_new else -1
        rowsel[i] += step
        count[1] += step
    if d_new != dis[p]:
        dis[p] = d_new
        count[0] += 1 if d_new else -1


@nb.njit(cache=True)
def _set_beater(Bsets, bsize, flags, sel, rowsel, dis, count, K, i, j, value):
    """B^i ∋ j iff ``value``, keeping |B^i| and the line-5/line-10 counts."""
    if Bsets[i, j] != value:
        Bsets[i, j] = value
        bsize[i] += 1 if value else -1
        _touch(Bsets, flags, sel, rowsel, dis, count, K, i, j)


@nb.njit(cache=True)
def _clear_row(Bsets, bsize, flags, sel, rowsel, dis, count, K, i):
    """B^i ← ∅."""
    if bsize[i] > 0:
        for k in range(K):
            _set_beater(Bsets, bsize, flags, sel, rowsel, dis, count, K, i, k, False)


@nb.njit(cache=True)
def _reset(inB, Bsets, bsize, flags, sel, rowsel, dis, count, K):
    """B ← all arms, B^k ← ∅; returns the reset L̄_C = K ([Z15] Alg. 1 line 1)."""
    inB[:] = True
    for i in range(K):
        _clear_row(Bsets, bsize, flags, sel, rowsel, dis, count, K, i)
    return K


@nb.njit(cache=True)
def _apply(flags, slot, delta, cplus, cminus, Bsets, sel, rowsel, dis, count, K):
    """Book a status change (``delta`` = ±1) of ``flags[slot]``: slots k·K² + i·K + j hold,
    for k = 0, 1, 2, (u_ij ≥ 1/2), (l_ij < 1/2) and (l_ij ≤ 1/2)."""
    KK = K * K
    kind = slot // KK
    p = slot % KK
    i = p // K
    j = p % K
    if kind == 0:
        cplus[i] += delta
    elif kind == 1:
        cminus[i] -= delta
    _touch(Bsets, flags, sel, rowsel, dis, count, K, i, j)


@nb.njit(cache=True)
def _after_duel(W, alpha, t, T, flags, heap, size, due, cplus, cminus, Bsets, sel, rowsel,
                dis, count, K, a, b):
    """Re-test the three bounds of the dueled pair, both orders, at the next step's t."""
    if a == b:
        return
    KK = K * K
    for i, j in ((a, b), (b, a)):
        p = i * K + j
        for k in range(3):
            kind = (U_AT_LEAST, L_BELOW, L_AT_MOST)[k]
            d = refresh_slot(kind, W, i, j, alpha, t, T, flags, k * KK + p, heap, size, due)
            if d != 0:
                _apply(flags, k * KK + p, d, cplus, cminus, Bsets, sel, rowsel, dis, count, K)


@nb.njit(cache=True)
def _pick_member(mask, rng):
    """A uniformly random True index of ``mask`` (-1 if none)."""
    n = 0
    for k in range(mask.shape[0]):
        n += mask[k]
    if n == 0:
        return -1
    pick = rng.integers(0, n)
    for k in range(mask.shape[0]):
        if mask[k]:
            if pick == 0:
                return k
            pick -= 1
    return -1


@nb.njit(cache=True, nogil=True)
def run_ccb(env, rng, alpha):
    """CCB ([Z15] Algorithm 1) with α = 0.51 ([K16] §5): :func:`run_ccb_core` with B^c."""
    run_ccb_core(env, rng, alpha, True)


@nb.njit(cache=True, nogil=True)
def run_ccb_core(env, rng, alpha, use_beaters):
    """CCB ([Z15] Algorithm 1); ``use_beaters=False`` is the B^c ablation.

    Per step: U, L with α (x/0 := 1 in U, 0 in L, u_ii = l_ii = 1/2);
    Cpld⁺(i) = #{k ≠ i : u_ik ≥ 1/2}, Cpld⁻(i) = #{k ≠ i : l_ik ≥ 1/2}; C_t = argmax Cpld⁺.
    (A) reset B, L̄_C, all B^k if l_ij > 1/2 for some j ∈ B^i; (B) drop from B every
    i with Cpld⁺(i) < max_j Cpld⁻(j) (then B^i ← {k : u_ik < 1/2} unless
    |B^i| = L̄_C + 1), reset if B = ∅; (C) for i ∈ C_t with Cpld⁺(i) = Cpld⁻(i):
    B ∪= {i}, B^i ← ∅, L̄_C ← K − 1 − Cpld⁻(i), and every other B^j is emptied if
    smaller than L̄_C + 1 or cut to L̄_C + 1 random elements if larger. Selection:
    with probability 1/4 a uniform pair (c, d) with d ∈ B^c and 1/2 ∈ [l_cd, u_cd]
    (if any); otherwise C_t ← B ∩ C_t with probability 2/3 (if non-empty), c uniform
    in C_t, opponent set B^c or all arms with probability 1/2 each, and
    d = argmax_{j in the set, l_jc ≤ 1/2} u_jc, ties preferring j ≠ c.

    Reading (docs/math.md §10, R25): if the chosen opponent set B^c is empty, all arms are used.

    ``use_beaters=False`` never compares against B^c: the line-10 pair sample and the
    B^c opponent set are skipped (all arms instead).  The random draws are the same,
    so with ``True`` the run is bit for bit the registered ``ccb``.  Not a registered
    algorithm: it exists to measure what B^c does (docs/verification.md).
    """
    K = env.mu.shape[0]
    T = env.clock[2]
    KK = K * K
    W = env.W
    inB = np.ones(K, np.bool_)
    Bsets = np.zeros((K, K), np.bool_)
    bsize = np.zeros(K, np.int64)
    Lbar = K
    # Bound statuses kept incrementally (identical runs, O(K) per duel): a duel re-tests its
    # pair, the crossings of the others (radius growing with t) come from the schedule.
    flags = np.ones(3 * KK, np.bool_)  # N = 0: u = 1, l = 0; u_ii = l_ii = 1/2
    for i in range(K):
        flags[KK + i * K + i] = False  # l_ii = 1/2 is not < 1/2
    heap, size, due = new_schedule(3 * KK)
    cplus = np.full(K, K - 1, np.int64)
    cminus = np.zeros(K, np.int64)
    sel = np.zeros(KK, np.bool_)
    dis = np.zeros(KK, np.bool_)
    rowsel = np.zeros(K, np.int64)
    count = np.zeros(2, np.int64)  # [#(i, j) with j ∈ B^i, l_ij > 1/2; # line-10 pairs]
    inC = np.zeros(K, np.bool_)
    mask = np.zeros(K, np.bool_)
    vals = np.empty(K)
    perm = np.empty(K, np.int64)
    while not finished(env):
        t = env.clock[0] + 1
        slot = pop_due(heap, size, due, t)
        while slot >= 0:
            flags[slot] = True
            _apply(flags, slot, 1, cplus, cminus, Bsets, sel, rowsel, dis, count, K)
            slot = pop_due(heap, size, due, t)
        top = cplus.max()
        for i in range(K):
            inC[i] = cplus[i] == top
        # (A) reset disproven hypotheses.
        if count[0] > 0:
            Lbar = _reset(inB, Bsets, bsize, flags, sel, rowsel, dis, count, K)
        # (B) remove non-Copeland winners.
        best_minus = cminus.max()
        for i in range(K):
            if inB[i] and cplus[i] < best_minus:
                inB[i] = False
                if bsize[i] != Lbar + 1:
                    for k in range(K):  # B^i ← {k : u_ik < 1/2}
                        _set_beater(Bsets, bsize, flags, sel, rowsel, dis, count, K, i, k,
                                    not flags[i * K + k])
        if not inB.any():
            Lbar = _reset(inB, Bsets, bsize, flags, sel, rowsel, dis, count, K)
        # (C) add Copeland winners.
        for i in range(K):
            if inC[i] and cplus[i] == cminus[i]:
                inB[i] = True
                _clear_row(Bsets, bsize, flags, sel, rowsel, dis, count, K, i)
                Lbar = K - 1 - cminus[i]
                for j in range(K):
                    if j == i:
                        continue
                    if bsize[j] < Lbar + 1:
                        _clear_row(Bsets, bsize, flags, sel, rowsel, dis, count, K, j)
                    elif bsize[j] > Lbar + 1:
                        n = 0
                        for k in range(K):
                            if Bsets[j, k]:
                                perm[n] = k
                                n += 1
                        sub = perm[:n]
                        rng.shuffle(sub)
                        for m in range(Lbar + 1, n):
                            _set_beater(Bsets, bsize, flags, sel, rowsel, dis, count, K, j,
                                        sub[m], False)
        # Selection.
        if rng.random() < 0.25 and use_beaters:
            n = count[1]
            if n > 0:
                pick = rng.integers(0, n)
                i = 0
                while pick >= rowsel[i]:  # the pick-th pair in row-major order
                    pick -= rowsel[i]
                    i += 1
                j = 0
                while True:
                    if sel[i * K + j]:
                        if pick == 0:
                            break
                        pick -= 1
                    j += 1
                duel(env, rng, i, j)
                _after_duel(W, alpha, t + 1, T, flags, heap, size, due, cplus, cminus, Bsets,
                            sel, rowsel, dis, count, K, i, j)
                continue
        if rng.random() < 2.0 / 3.0:
            nboth = 0
            for i in range(K):
                nboth += inB[i] and inC[i]
            if nboth > 0:
                for i in range(K):
                    inC[i] = inB[i] and inC[i]
        c = _pick_member(inC, rng)
        use_B = rng.random() < 0.5 and use_beaters
        only_B = use_B and bsize[c] > 0
        lt = math.log(t) if t > 1.0 else 0.0
        ucb_column(W, c, alpha, lt, vals)
        for j in range(K):
            mask[j] = (Bsets[c, j] or not only_B) and flags[2 * KK + j * K + c] and j != c
        d = random_argmax(vals, mask, rng)
        if d < 0 or (vals[d] < 0.5 and not only_B):
            d = c  # all arms: u_cc = 1/2 takes part; ties prefer j ≠ c, so c only wins outright
        duel(env, rng, c, d)
        _after_duel(W, alpha, t + 1, T, flags, heap, size, due, cplus, cminus, Bsets, sel,
                    rowsel, dis, count, K, c, d)

ALGORITHM = AlgorithmSpec("ccb", run_ccb, {"alpha": 0.51}, "[Z15] Alg. 1")

"""CCB, Copeland Confidence Bound ([Z15] Algorithm 1, SPEC §6)."""

from __future__ import annotations

import numba as nb
import numpy as np

from .alg_common import AlgorithmSpec, confidence_bounds, random_argmax
from .environment import duel, finished


@nb.njit(cache=True)
def _reset(inB, Bsets, K):
    """B ← all arms, B^k ← ∅; returns the reset L̄_C = K ([Z15] Alg. 1 line 1)."""
    inB[:] = True
    Bsets[:, :] = False
    return K


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

    Reading (SPEC §6): if the chosen opponent set B^c is empty, all arms are used.

    ``use_beaters=False`` never compares against B^c: the line-10 pair sample and the
    B^c opponent set are skipped (all arms instead).  The random draws are the same,
    so with ``True`` the run is bit for bit the registered ``ccb``.  Not a registered
    algorithm: it exists to measure what B^c does (docs/verification.md).
    """
    K = env.mu.shape[0]
    U = np.empty((K, K))
    L = np.empty((K, K))
    inB = np.ones(K, np.bool_)
    Bsets = np.zeros((K, K), np.bool_)
    Lbar = K
    cplus = np.empty(K, np.int64)
    cminus = np.empty(K, np.int64)
    inC = np.zeros(K, np.bool_)
    mask = np.zeros(K, np.bool_)
    vals = np.empty(K)
    perm = np.empty(K, np.int64)
    while not finished(env):
        t = env.clock[0] + 1
        confidence_bounds(env.W, alpha, t, U, L)
        for i in range(K):
            cp = 0
            cm = 0
            for k in range(K):
                if k != i:
                    cp += U[i, k] >= 0.5
                    cm += L[i, k] >= 0.5
            cplus[i] = cp
            cminus[i] = cm
        top = cplus.max()
        for i in range(K):
            inC[i] = cplus[i] == top
        # (A) reset disproven hypotheses.
        disproven = False
        for i in range(K):
            for j in range(K):
                if Bsets[i, j] and L[i, j] > 0.5:
                    disproven = True
        if disproven:
            Lbar = _reset(inB, Bsets, K)
        # (B) remove non-Copeland winners.
        best_minus = cminus.max()
        for i in range(K):
            if inB[i] and cplus[i] < best_minus:
                inB[i] = False
                size = 0
                for k in range(K):
                    size += Bsets[i, k]
                if size != Lbar + 1:
                    for k in range(K):
                        Bsets[i, k] = U[i, k] < 0.5
        if not inB.any():
            Lbar = _reset(inB, Bsets, K)
        # (C) add Copeland winners.
        for i in range(K):
            if inC[i] and cplus[i] == cminus[i]:
                inB[i] = True
                Bsets[i, :] = False
                Lbar = K - 1 - cminus[i]
                for j in range(K):
                    if j == i:
                        continue
                    size = 0
                    for k in range(K):
                        size += Bsets[j, k]
                    if size < Lbar + 1:
                        Bsets[j, :] = False
                    elif size > Lbar + 1:
                        n = 0
                        for k in range(K):
                            if Bsets[j, k]:
                                perm[n] = k
                                n += 1
                        sub = perm[:n]
                        rng.shuffle(sub)
                        for m in range(Lbar + 1, n):
                            Bsets[j, sub[m]] = False
        # Selection.
        if rng.random() < 0.25 and use_beaters:
            n = 0
            for i in range(K):
                for j in range(K):
                    if Bsets[i, j] and L[i, j] <= 0.5 <= U[i, j]:
                        n += 1
            if n > 0:
                pick = rng.integers(0, n)
                for i in range(K):
                    for j in range(K):
                        if Bsets[i, j] and L[i, j] <= 0.5 <= U[i, j]:
                            if pick == 0:
                                duel(env, rng, i, j)
                            pick -= 1
                continue
        if rng.random() < 2.0 / 3.0:
            both = inB & inC
            if both.any():
                inC[:] = both
        c = _pick_member(inC, rng)
        use_B = rng.random() < 0.5 and use_beaters
        any_B = Bsets[c].any()
        for j in range(K):
            mask[j] = (Bsets[c, j] or not (use_B and any_B)) and L[j, c] <= 0.5 and j != c
            vals[j] = U[j, c]
        d = random_argmax(vals, mask, rng)
        if d < 0 or (U[d, c] < 0.5 and not (use_B and any_B)):
            d = c  # all arms: u_cc = 1/2 takes part; ties prefer j ≠ c, so c only wins outright
        duel(env, rng, c, d)


SPEC = AlgorithmSpec("ccb", run_ccb, {"alpha": 0.51}, "[Z15] Alg. 1")

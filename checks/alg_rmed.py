"""The RMED family: RMED1 (Komiyama et al. 2015) and CW-/ECW-RMED ([K16] Algorithm 1).

All three keep the empirical preferences µ̂ and divergences d̂_ij = d(µ̂_ij, 1/2)
up to date incrementally (only the dueled pair changes) through :func:`_play`,
and run the loop-list scheme L_C (current loop), L_R (remaining), L_N (next).
CW-/ECW-RMED call the package's solver cores (:mod:`duelbound.solvers.oracle`,
:mod:`duelbound.solvers.ecw`), so the simulator and the bounds share one code path.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from duelbound.solvers.ecw import ecw_core
from duelbound.solvers.oracle import cw_oracle_core, ecw_oracle_core, losses_core, regret_core

from .alg_common import AlgorithmSpec, kl_half_scalar, log_guard, loglog_guard, random_argmax
from .environment import duel, finished

_TOL = 1e-9  # membership tolerance, as in duelbound.solvers.in_region


@nb.njit(cache=True)
def _play(env, rng, mh, dh, i, j):
    """Duel (i, j) and refresh µ̂ and d̂ on that pair (0/0 = 1/2, SPEC §6)."""
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
    K = mh.shape[0]
    for i in range(K):
        s = 0.0
        for j in range(K):
            if j != i and mh[i, j] <= 0.5:
                s += env.N[i, j] * dh[i, j]
        out[i] = s


@nb.njit(cache=True)
def run_rmed1(env, rng, fk_scale, fk_power):
    """RMED1 (Komiyama, Honda, Kashima, Nakagawa, COLT 2015, Alg. 1 + Alg. 2), f(K) = 0.3 K^1.01.

    Initial phase: every pair i < j once. Loop over arms l ∈ L_C: Ô_l = {j ≠ l :
    µ̂_lj ≤ 1/2}; î* = argmin Î_i (ties at random); the opponent m is î* if
    Ô_l = ∅ or î* ∈ Ô_l, else argmin_{j∈Ô_l} µ̂_lj; duel (l, m); remove l from L_R and
    add to L_N every arm j ∉ L_R with Î_j − min Î ≤ log t + f(K) (log guarded by
    max(log t, 1), SPEC §6). A Condorcet algorithm: linear regret without a
    Condorcet winner.
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
    while not finished(env):
        for l in range(K):
            if not inC[l] or finished(env):
                continue
            _empirical_divergence(env, mh, dh, Ihat)
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
            _empirical_divergence(env, mh, dh, Ihat)
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
    clipped to the box of R_{i1} ([K16] Alg. 1 line 8, SPEC §6)."""
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
def _any_tie(mh):
    K = mh.shape[0]
    for i in range(K):
        for j in range(i + 1, K):
            if mh[i, j] == 0.5:
                return True
    return False


@nb.njit(cache=True)
def _member(mh, i1, x, ecw):
    if ecw:
        return ecw_oracle_core(mh, i1, x) >= 1.0 - _TOL
    return cw_oracle_core(mh, i1, x).min() >= 1.0 - _TOL


@nb.njit(cache=True)
def _cw_solve(mh, dh, r):
    """(C*_{i1}(µ̂) per winner, q̂ of the minimiser) via duelbound.solvers.lower_bound."""
    K = mh.shape[0]
    values = np.empty(K)
    q = np.empty((K, K))
    with nb.objmode():
        _cw_solve_py(mh, values, q)
    return values, q


def _cw_solve_py(mh: np.ndarray, values: np.ndarray, q: np.ndarray) -> None:
    """Python side of :func:`_cw_solve`: the LP of [K16] §3 on µ̂ (row generation)."""
    from duelbound.solvers.lower_bound import lower_bound
    from duelbound.theory.matrix import PreferenceMatrix

    res = lower_bound(PreferenceMatrix(mh), certify=False)
    values[:] = np.inf
    for i1, v in res.per_winner.items():
        values[i1] = v
    q[:, :] = res.allocation


@nb.njit(cache=True)
def run_cw_rmed(env, rng, ecw, alpha, beta):
    """CW-RMED (``ecw`` False) or ECW-RMED (``ecw`` True): [K16] Algorithm 1, α = 3, β = 0.01.

    Pairs are encoded p = i·K + j; L_C and L_R start as all pairs i > j.
    Step 4 (once per pass of the outer loop): draw every pair with
    N_ij < α √(max(log t, 1)) or |µ̂_ij − 1/2| < β / max(log log t, 1), each once.
    Steps 5–17: for each p ∈ L_C: draw p; with x = clipped evidence
    (:func:`_evidence`), if x ∈ R_î(µ̂) (CW, :func:`cw_oracle_core`) or R^E_î(µ̂)
    (ECW, :func:`ecw_oracle_core`) for some empirical Copeland winner î,
    L_NC = {(î, î)}; else î = argmin C*_{i1}(µ̂) (CW: the LP of
    :func:`duelbound.solvers.lower_bound`) or C^E*_{i1}(µ̂) (ECW:
    :func:`duelbound.solvers.ecw.ecw_core`, [K16] Th. 5), and L_NC = {pairs
    with q̂_ij > N_ij/log t} ∪ {(î, î)}. Then L_R ← L_R \\ {p}, L_N ← L_N ∪ (L_NC \\ L_R).

    Departures from the paper (documented in docs/simulator.md):

    - log t and log log t are replaced by max(·, 1) (SPEC §6).
    - Membership is tested on the counts clipped to the box, x_ij = min(N_ij d̂_ij/log t, 1)
      (the region R is defined inside the box, so unclipped counts would never be members).
    - If some µ̂_ij = 1/2 exactly (possible between two step-4 passes), d̂_ij = 0 and the
      regions/optimisations are undefined; the tied pairs are put into L_NC instead
      (step 4 would draw them next anyway), with (î, î) for the first empirical winner.
    - Ties among minimising winners go to the lowest index ("ties broken arbitrarily").
    """
    K = env.mu.shape[0]
    KK = K * K
    mh = np.full((K, K), 0.5)
    dh = np.zeros((K, K))
    x = np.zeros((K, K))
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
    while not finished(env):
        # Step 4: forced exploration, evaluated at the start of the pass.
        t = env.clock[0] + 1.0
        n_min = alpha * math.sqrt(log_guard(t))
        gap = beta / loglog_guard(t)
        for i in range(K):
            for j in range(i):
                if env.N[i, j] < n_min or abs(mh[i, j] - 0.5) < gap:
                    _play(env, rng, mh, dh, i, j)
        nN = 0
        for c in range(nC):
            if finished(env):
                break
            p = listC[c]
            _play(env, rng, mh, dh, p // K, p % K)
            inR[p] = False  # line 14 comes before line 15
            logt = log_guard(env.clock[0] + 1.0)
            L = losses_core(mh)
            l1 = L.min()
            star = -1
            if _any_tie(mh):
                for i in range(K):
                    for j in range(i):
                        if mh[i, j] == 0.5:
                            nN = _add_next(i * K + j, inR, inN, listN, nN)
                star = int(np.argmin(L))
            else:
                _evidence(env, dh, logt, x)
                for i1 in range(K):
                    if L[i1] == l1 and _member(mh, i1, x, ecw):
                        star = i1
                        break
                if star < 0:
                    r = regret_core(mh)
                    if ecw:
                        values, q = ecw_core(mh, dh, r)
                    else:
                        values, q = _cw_solve(mh, dh, r)
                    star = int(np.argmin(values))
                    for i in range(K):
                        for j in range(i):
                            if q[i, j] > env.N[i, j] / logt:
                                nN = _add_next(i * K + j, inR, inN, listN, nN)
            nN = _add_next(star * K + star, inR, inN, listN, nN)
        # Step 18: L_C, L_R ← L_N; L_N ← ∅.
        for c in range(nC):
            inR[listC[c]] = False
        for c in range(nN):
            listC[c] = listN[c]
            inR[listN[c]] = True
            inN[listN[c]] = False
        nC = nN


RMED1_SPEC = AlgorithmSpec("rmed1", run_rmed1, {"fk_scale": 0.3, "fk_power": 1.01},
                           "Komiyama et al. 2015, Alg. 1 (RMED1)", copeland=False)
CW_SPEC = AlgorithmSpec("cw-rmed", run_cw_rmed, {"alpha": 3.0, "beta": 0.01},
                        "[K16] Alg. 1 (CW)", prepare=lambda M, env: (False,))
ECW_SPEC = AlgorithmSpec("ecw-rmed", run_cw_rmed, {"alpha": 3.0, "beta": 0.01},
                         "[K16] Alg. 1 (ECW)", prepare=lambda M, env: (True,))

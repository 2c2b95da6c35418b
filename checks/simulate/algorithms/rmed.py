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
from .ecw_allocation import add_next, ecw_allocation_step, note_duel
from .rmed_membership import cw_member_fast, ecw_member_fast, evidence
from .schedule import new_schedule

_cw_member_fast = cw_member_fast  # the name tests and earlier code import from here

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
# The membership test of line 8 lives in .rmed_membership, ECW-RMED's allocation step
# (lines 10–11) in .ecw_allocation; CW-RMED's LP bridge and the loop itself are here.


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


# CW-RMED's LP state lives in Python (one CStarTracker per run, HiGHS models inside);
# the compiled loop holds only its id and reaches it through numba's object mode.
_TRACKERS: dict[int, CStarTracker] = {}
_TRACKER_IDS = itertools.count(1)


def _cw_prepare(M, env) -> tuple:
    """Runner arguments of CW-RMED: (ecw=False, id of a fresh per-run tracker)."""
    tid = next(_TRACKER_IDS)
    _TRACKERS[tid] = CStarTracker(M.K)
    return (False, tid)


def _cw_resolve_py(tid: int, mh: np.ndarray, dh: np.ndarray, X: np.ndarray) -> None:
    _TRACKERS[tid].solve(mh, dh, checks=False, out=X)


def _cw_still_optimal_py(tid: int, cost: np.ndarray) -> bool:
    return _TRACKERS[tid].still_optimal(cost)


@nb.njit(cache=True)
def _cw_resolve(tid, mh, dh, X):
    """The LP of [K16] §3 on µ̂ for every empirical winner (warm-started HiGHS models of
    :class:`duelbound.solvers.parametric.CStarTracker`): the optimal vertices into the
    rows of X of the empirical Copeland winners."""
    with nb.objmode():
        _cw_resolve_py(tid, mh, dh, X)


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


@nb.njit(cache=True, nogil=True)
def run_cw_rmed(env, rng, ecw, tracker, alpha, beta, membership="RE", lazy=True):
    """CW-RMED (``ecw`` False) or ECW-RMED (``ecw`` True): [K16] Algorithm 1, α = 3, β = 0.01.

    Pairs are encoded p = i·K + j; L_C and L_R start as all pairs i > j.
    Step 4 (once per pass of the outer loop): draw every pair with
    N_ij < α √(max(log t, 1)) or |µ̂_ij − 1/2| < β / max(log log t, 1), each once.
    Steps 5–17: for each p ∈ L_C: draw p; with x = clipped evidence
    (:func:`evidence`), if x ∈ R_î(µ̂) (CW, :func:`cw_oracle_core`) or R^E_î(µ̂)
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
    - ECW with R^E (:func:`ecw_member_fast`): the constraint that failed for a winner last
      time is re-evaluated first (a violated constraint decides alone), on the evidence
      computed entry by entry instead of the whole matrix x.
    - ECW allocation (:func:`ecw_allocation_step`): pieces (5) are re-sorted only in the
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
    pa = np.empty(K + 1)  # CW membership (cw_member_fast): prefix sums of A and B
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
    # ECW: incremental allocation (ecw_allocation_step) and membership (ecw_member_fast)
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
                            note_duel(i, j, colver, other, colmark, clist, marked, mlist, es)
        nN = 0
        for c in range(nC):
            if finished(env):
                break
            p = listC[c]
            version = state[0]
            _play_tracked(env, rng, mh, dh, L, state, p // K, p % K)
            if state[0] != version:
                note_duel(p // K, p % K, colver, other, colmark, clist, marked, mlist, es)
            inR[p] = False  # line 14 comes before line 15
            logt = log_guard(env.clock[0] + 1.0)
            if cache_version == state[0] and logt <= cache_logt:
                nN = add_next(cache_star * K + cache_star, inR, inN, listN, nN)
                continue
            l1 = L.min()
            star = -1
            if state[1] > 0:
                if c == 0:
                    for i in range(K):
                        for j in range(i):
                            if mh[i, j] == 0.5:
                                nN = add_next(i * K + j, inR, inN, listN, nN)
                elif p // K != p % K and mh[p // K, p % K] == 0.5:  # the only new candidate
                    nN = add_next(p, inR, inN, listN, nN)
                star = int(np.argmin(L))
            else:
                if not region_e:
                    evidence(env, dh, logt, x)
                for i1 in range(K):
                    if L[i1] == l1:
                        if region_e:
                            v = ecw_member_fast(env.N, mh, dh, L, i1, logt, 1.0 - _TOL, fc, fbuf)
                        else:
                            v = cw_member_fast(mh, L, i1, x, 1.0 - _TOL, fc, fbuf, pa, pb,
                                                lvl)
                        if v >= 1.0 - _TOL:
                            star = i1
                            cache_version = state[0]
                            cache_star = i1
                            cache_logt = logt * v / (1.0 - _TOL) * (1.0 - _WINDOW_MARGIN)
                            probe = logt + _PROBE
                            if region_e and probe > cache_logt:
                                w = ecw_member_fast(env.N, mh, dh, L, i1, probe, 1.0 - _TOL, fc,
                                                 fbuf)
                                if w >= 1.0 - _TOL:  # a member at log t = probe: also up to it
                                    cache_logt = probe
                            break
                if star < 0 and ecw:
                    star, nN = ecw_allocation_step(
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
                        _cw_resolve(tracker, mh, dh, X)
                        basis_version = state[2]
                    cost_version = state[0]
                    star = cw_values_core(cost, X, L, dh, values, q)
                    for i in range(K):
                        for j in range(i):
                            if q[i, j] > env.N[i, j] / logt:
                                nN = add_next(i * K + j, inR, inN, listN, nN)
            nN = add_next(star * K + star, inR, inN, listN, nN)
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

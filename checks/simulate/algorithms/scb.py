"""SCB, Scalable Copeland Bandits ([Z15] Algorithms 2–3, with a reconstructed Algorithm 4)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..environment import duel, finished
from .common import AlgorithmSpec, kl_scalar


@nb.njit(cache=True)
def _kl_bound(p: float, n: float, level: float, upper: bool) -> float:
    """KL confidence bound of Cappé et al. (2013): the q on the chosen side of p with
    n·d(p, q) = level (bisection, 50 steps; d from :func:`kl_scalar`)."""
    lo, hi = (p, 1.0) if upper else (0.0, p)
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        inside = n * kl_scalar(p, mid) <= level
        if upper == inside:
            lo = mid
        else:
            hi = mid
    return lo if upper else hi


@nb.njit(cache=True)
def _reward(env, rng, Wl, delta, i, stop_at, anytime):
    """[Z15] Alg. 2 reward(i): a uniform j ≠ i, duel (i, j) until the Hoeffding interval
    µ̂ ± sqrt(log(4 K² n² / δ)/(2n)) excludes 1/2 (anytime, failure δ/K² per pair).
    Returns 1/0, or -1 if the round budget ran out first. Pair statistics ``Wl`` are
    kept for the whole Alg. 2 call (duelpy's reading), so a settled pair answers at once."""
    K = Wl.shape[0]
    j = int(rng.random() * (K - 1))
    if j >= i:
        j += 1
    while True:
        settled = _settled(Wl, delta, i, j, anytime)
        if settled >= 0:
            return settled
        if env.clock[0] >= stop_at or finished(env):
            return -1
        if duel(env, rng, i, j):
            Wl[i, j] += 1
        else:
            Wl[j, i] += 1


@nb.njit(cache=True)
def _settled(Wl, delta, i, j, anytime):
    """-1 while the pair is unsettled, else 1 if i beats j, 0 if not (same test as _reward).

    ``anytime``: radius sqrt(log(4 K² n² / δ)/(2n)), valid simultaneously for every n (a
    sequential test); else the fixed-n radius sqrt(log(K²/δ)/(2n)) (duelpy's, ablation)."""
    K = Wl.shape[0]
    n = Wl[i, j] + Wl[j, i]
    if n == 0:
        return -1
    m = Wl[i, j] / n
    level = 4.0 * K * K * n * n / delta if anytime else K * K / delta
    rad = math.sqrt(max(math.log(level), 0.0) / (2.0 * n))
    if m - rad > 0.5:
        return 1
    if m + rad < 0.5:
        return 0
    return -1


@nb.njit(cache=True)
def _all_settled(Wl, alive, delta, anytime):
    K = Wl.shape[0]
    for i in range(K):
        if alive[i]:
            for j in range(K):
                if j != i and _settled(Wl, delta, i, j, anytime) < 0:
                    return False
    return True


@nb.njit(cache=True)
def _settled_score(Wl, i):
    K = Wl.shape[0]
    wins = 0
    for j in range(K):
        if j != i and Wl[i, j] > Wl[j, i]:
            wins += 1
    return wins / (K - 1)


@nb.njit(cache=True)
def _identify(env, rng, delta, stop_at, Wl, anytime):
    """[Z15] Alg. 2 with the KL arm elimination (our reconstruction of Alg. 4), ε = 0.

    Rounds over the surviving candidates: one reward(i) each; KL bounds
    [λ_i, υ_i] at level log(4 K N / δ) + 2 log(max(log N, 1)) (N = total reward
    draws, as in Cappé et al. 2013 / duelpy's reading); drop i when υ_i < max_k λ_k;
    stop with one candidate left or when the budget ``stop_at`` is reached. Departure:
    once every pair touching a candidate is settled, rewards cost no duel and are
    known exactly, so we stop with the exact scores (with several Copeland winners
    the elimination would otherwise loop forever without dueling).
    Returns the surviving candidate with the largest mean reward (lowest index on ties).
    """
    K = env.mu.shape[0]
    alive = np.ones(K, np.bool_)
    n = np.zeros(K)
    s = np.zeros(K)
    lower = np.zeros(K)
    upper = np.ones(K)
    while True:
        for i in range(K):
            if not alive[i]:
                continue
            rwd = _reward(env, rng, Wl, delta, i, stop_at, anytime)
            if rwd < 0:
                break
            n[i] += 1
            s[i] += rwd
        total = n.sum()
        level = math.log(4.0 * K * max(total, 1.0) / delta) + 2.0 * math.log(
            max(math.log(max(total, 1.0)), 1.0))
        best_lower = 0.0
        for i in range(K):
            if alive[i] and n[i] > 0:
                p = s[i] / n[i]
                lower[i] = _kl_bound(p, n[i], level, False)
                upper[i] = _kl_bound(p, n[i], level, True)
                best_lower = max(best_lower, lower[i])
        left = 0
        for i in range(K):
            if alive[i] and upper[i] < best_lower:
                alive[i] = False
            left += alive[i]
        if left == 1 or env.clock[0] >= stop_at or finished(env):
            break
        if _all_settled(Wl, alive, delta, anytime):
            # Every reward of a candidate is now a free, known function of the settled
            # pairs: the means are exact (Cpld(i)/(K−1)); stop on the exact values.
            for i in range(K):
                n[i] = 1.0
                s[i] = _settled_score(Wl, i)
            break
    arm = -1
    best = -1.0
    for i in range(K):
        if alive[i]:
            mean = s[i] / n[i] if n[i] > 0 else 0.0
            if mean > best:
                best = mean
                arm = i
    return arm


@nb.njit(cache=True, nogil=True)
def run_scb(env, rng):
    """SCB ([Z15] Algorithm 3): for r = 1, 2, …, T_r = 2^(2^r); run Alg. 2 with failure
    probability log(T_r)/T_r and ε = 0, force-stopped after T_r duels; duel the found
    arm against itself for the rest of the T_r duels.

    Departures (documented in docs/simulator.md): [Z15] Alg. 4 (App. J) is not in the
    seed; :func:`_identify` reconstructs it as a KL-based elimination in the style of
    Cappé et al. (2013) (see its docstring for the exploration rate); the pair
    confidence of reward(i) is an anytime Hoeffding bound,
    kept for the whole Alg. 2 call; each round restarts Alg. 2
    from scratch (the squaring trick); T_r is capped at 2^62.
    """
    run_scb_core(env, rng, True, False)


@nb.njit(cache=True, nogil=True)
def run_scb_core(env, rng, anytime, persist):
    """:func:`run_scb` with two readings made switchable (unregistered ablation, the
    registered ``scb`` is ``anytime=True, persist=False``): ``anytime=False`` uses the
    fixed-n Hoeffding radius sqrt(log(K²/δ)/(2n)) in reward(i), ``persist=True`` keeps the
    pair statistics of reward(i) across the rounds of Alg. 3 instead of restarting
    Alg. 2 from scratch (both are duelpy's choices; docs/simulator.md, "Readings")."""
    K = env.mu.shape[0]
    Wl = np.zeros((K, K), np.int64)
    r = 0
    while not finished(env):
        r += 1
        Tr = 2.0 ** min(2.0 ** r, 62.0)
        delta = min(math.log(Tr) / Tr, 0.5)
        stop_at = env.clock[0] + np.int64(Tr)
        if not persist:
            Wl[:, :] = 0
        arm = _identify(env, rng, delta, stop_at, Wl, anytime)
        while env.clock[0] < stop_at and not finished(env):
            duel(env, rng, arm, arm)


ALGORITHM = AlgorithmSpec("scb", run_scb, {}, "[Z15] Alg. 3 (Alg. 2, reconstructed Alg. 4)")

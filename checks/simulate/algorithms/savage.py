"""Copeland SAVAGE ([U13], explore-then-exploit; reading R22 of docs/math.md §10)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..environment import duel, finished
from .common import AlgorithmSpec
from .schedule import heap_pop, heap_push


@nb.njit(cache=True, nogil=True)
def run_savage(env, rng, delta_scale):
    """Copeland SAVAGE ([U13]) with horizon T and δ = delta_scale / T (δ = 1/T, [K16] §5).

    Reading (the source text is damaged; docs/math.md §10, R22): Hoeffding intervals
    µ̂_ij ± sqrt(log(K(K−1) T / δ) / (2 N_ij)) (a union bound over the K(K−1)/2 pairs
    and at most T samples each; x/0 := the whole [0, 1]); a pair is resolved once
    its interval excludes 1/2. Optimistic Cpld⁺(i) counts unresolved and won
    pairs, pessimistic Cpld⁻(i) resolved wins. Arm i is still a candidate while
    Cpld⁺(i) ≥ max_k Cpld⁻(k); explore by dueling the least-sampled unresolved
    pair touching a candidate (ties: lowest index); stop when one arm's Cpld⁻
    exceeds every other arm's Cpld⁺, or no such pair is left; then duel the arm
    with the largest Cpld⁻ (lowest index on ties) against itself until T.

    Implementation (identical runs, O(log K) per exploration duel): the unresolved pairs
    wait in a heap ordered by (N_ij, i, j); only the dueled pair is re-tested, Cpld±
    move by one when it resolves, and the stopping test is re-evaluated only then.
    """
    K = env.mu.shape[0]
    T = env.clock[2]
    delta = delta_scale / T
    logterm = math.log(K * (K - 1) * T / delta)
    # Only the dueled pair's counts change, so its resolution is the only one to test and
    # Cpld± move by one when it resolves (same choices as recomputing every pair per step).
    cplus = np.full(K, K - 1, np.int64)  # nothing resolved: every pair may still be won
    cminus = np.zeros(K, np.int64)
    # Unresolved pairs in a min-heap of keys N_ij·K² + i·K + j (i < j): the least-sampled,
    # lowest index first. Only the dueled pair's key changes, and a pair that is resolved or
    # touches no candidate never comes back (Cpld⁺ only falls, max Cpld⁻ only grows), so
    # such pairs are dropped when they reach the top.
    KK = K * K
    heap = np.empty(KK, np.int64)
    size = np.zeros(1, np.int64)
    for i in range(K):
        for j in range(i + 1, K):
            heap_push(heap, size, i * K + j)
    winner = -1
    stale = True  # best, lead, beats_all change only when a pair resolves
    best = 0
    lead = 0
    beats_all = False
    while not finished(env):
        if winner >= 0:
            duel(env, rng, winner, winner)
            continue
        if stale:
            best = cminus.max()
            lead = np.argmax(cminus)
            beats_all = True
            for k in range(K):
                if k != lead and cplus[k] >= best:
                    beats_all = False
            stale = False
        pi = -1
        pj = -1
        while not beats_all and size[0] > 0:
            p = heap_pop(heap, size) % KK
            i = p // K
            j = p % K
            if not (cplus[i] < best and cplus[j] < best):  # resolved pairs are not in it
                pi = i
                pj = j
                break
        if pi < 0:
            winner = lead
            continue
        duel(env, rng, pi, pj)
        n = env.W[pi, pj] + env.W[pj, pi]
        rad = math.sqrt(logterm / (2.0 * n))
        m = env.W[pi, pj] / n
        if m - rad > 0.5 or m + rad < 0.5:
            w, l = (pi, pj) if env.W[pi, pj] > env.W[pj, pi] else (pj, pi)
            cminus[w] += 1
            cplus[l] -= 1
            stale = True
        else:
            heap_push(heap, size, n * KK + pi * K + pj)


ALGORITHM = AlgorithmSpec("savage", run_savage, {"delta_scale": 1.0}, "[U13] Copeland SAVAGE")

"""Copeland SAVAGE ([U13], explore-then-exploit; SPEC §6 reading of the damaged seed)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .alg_common import AlgorithmSpec
from .environment import duel, finished


@nb.njit(cache=True, nogil=True)
def run_savage(env, rng, delta_scale):
    """Copeland SAVAGE ([U13]) with horizon T and δ = delta_scale / T (δ = 1/T, [K16] §5).

    Reading (the seed text is damaged; SPEC §6): Hoeffding intervals
    µ̂_ij ± sqrt(log(K(K−1) T / δ) / (2 N_ij)) (a union bound over the K(K−1)/2 pairs
    and at most T samples each; x/0 := the whole [0, 1]); a pair is resolved once
    its interval excludes 1/2. Optimistic Cpld⁺(i) counts unresolved and won
    pairs, pessimistic Cpld⁻(i) resolved wins. Arm i is still a candidate while
    Cpld⁺(i) ≥ max_k Cpld⁻(k); explore by dueling the least-sampled unresolved
    pair touching a candidate (ties: lowest index); stop when one arm's Cpld⁻
    exceeds every other arm's Cpld⁺, or no such pair is left; then duel the arm
    with the largest Cpld⁻ (lowest index on ties) against itself until T.
    """
    K = env.mu.shape[0]
    T = env.clock[2]
    delta = delta_scale / T
    logterm = math.log(K * (K - 1) * T / delta)
    resolved = np.zeros((K, K), np.bool_)
    # Only the dueled pair's counts change, so its resolution is the only one to test and
    # Cpld± move by one when it resolves (same choices as recomputing every pair per step).
    cplus = np.full(K, K - 1, np.int64)  # nothing resolved: every pair may still be won
    cminus = np.zeros(K, np.int64)
    winner = -1
    while not finished(env):
        if winner >= 0:
            duel(env, rng, winner, winner)
            continue
        best = cminus.max()
        lead = np.argmax(cminus)
        beats_all = True
        for k in range(K):
            if k != lead and cplus[k] >= best:
                beats_all = False
        pi = -1
        pj = -1
        fewest = np.iinfo(np.int64).max
        if not beats_all:
            for i in range(K):
                for j in range(i + 1, K):
                    if resolved[i, j] or (cplus[i] < best and cplus[j] < best):
                        continue
                    n = env.W[i, j] + env.W[j, i]
                    if n < fewest:
                        fewest = n
                        pi = i
                        pj = j
        if pi < 0:
            winner = lead
            continue
        duel(env, rng, pi, pj)
        n = env.W[pi, pj] + env.W[pj, pi]
        rad = math.sqrt(logterm / (2.0 * n))
        m = env.W[pi, pj] / n
        if m - rad > 0.5 or m + rad < 0.5:
            resolved[pi, pj] = True
            resolved[pj, pi] = True
            w, l = (pi, pj) if env.W[pi, pj] > env.W[pj, pi] else (pj, pi)
            cminus[w] += 1
            cplus[l] -= 1


SPEC = AlgorithmSpec("savage", run_savage, {"delta_scale": 1.0}, "[U13] Copeland SAVAGE")

"""RUCB, Relative Upper Confidence Bound (Zoghi et al. 2014, Alg. 1) — a Condorcet baseline."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..environment import duel, finished
from .common import AlgorithmSpec, random_argmax, ucb_column
from .schedule import AT_LEAST, new_schedule, pop_due, refresh


@nb.njit(cache=True, nogil=True)
def run_rucb(env, rng, alpha):
    """RUCB (Zoghi, Whiteson, Munos, de Rijke, ICML 2014, Algorithm 1), α = 0.51.

    Each step: U from the wins (x/0 := 1, u_ii = 1/2); candidates
    C = {c : u_cj ≥ 1/2 ∀j}; if C = ∅ pick c uniformly from all arms; B ← B ∩ C;
    if |C| = 1, B ← C and c is its element; if |C| > 1 draw c from C with
    p(c) = 1/2 if c ∈ B else 1/(2^|B| |C \\ B|); then d = argmax_j u_jc (ties
    uniformly at random, j = c allowed since u_cc = 1/2); duel (c, d).
    It assumes a Condorcet winner: without one its regret grows linearly.

    Implementation (identical runs, O(K) per duel): the candidate test u_cj ≥ 1/2 is
    kept per pair, re-tested sqrt-free for the dueled pair and updated for the others
    at the t where their growing radius crosses 1/2 (:mod:`.schedule`); only
    column c of U is computed.
    """
    K = env.mu.shape[0]
    T = env.clock[2]
    inC = np.zeros(K, np.bool_)
    inB = np.zeros(K, np.bool_)
    allowed = np.ones(K, np.bool_)
    col = np.empty(K)
    W = env.W
    # ok[c·K + j] = (u_cj ≥ 1/2), bad[c] = #{j : u_cj < 1/2}: a duel re-tests its pair, the
    # crossings of the other pairs (radius growing with t) come from the schedule.
    ok = np.ones(K * K, np.bool_)  # N = 0: u = 1
    bad = np.zeros(K, np.int64)
    heap, size, due = new_schedule(K * K)
    while not finished(env):
        t = env.clock[0] + 1
        lt = math.log(t) if t > 1.0 else 0.0
        p = pop_due(heap, size, due, t)
        while p >= 0:
            ok[p] = True
            bad[p // K] -= 1
            p = pop_due(heap, size, due, t)
        nC = 0
        for c in range(K):
            inC[c] = bad[c] == 0
            nC += inC[c]
        nB = 0
        for k in range(K):
            inB[k] = inB[k] and inC[k]
            nB += inB[k]
        if nC == 0:
            c = rng.integers(0, K)
        elif nC == 1:
            c = 0
            while not inC[c]:
                c += 1
            inB[:] = False
            inB[c] = True
        else:
            # B has at most one element: p = 1/2 for it, the rest shared uniformly.
            if nB == 1 and rng.random() < 0.5:
                c = 0
                while not inB[c]:
                    c += 1
            else:
                pick = rng.integers(0, nC - nB)
                c = 0
                while True:
                    if inC[c] and not inB[c]:
                        if pick == 0:
                            break
                        pick -= 1
                    c += 1
        ucb_column(W, c, alpha, lt, col)
        d = random_argmax(col, allowed, rng)
        duel(env, rng, c, d)
        if c != d:
            tn = env.clock[0] + 1  # the next step's t
            bad[c] -= refresh(AT_LEAST, W, c, d, alpha, tn, T, ok, heap, size, due)
            bad[d] -= refresh(AT_LEAST, W, d, c, alpha, tn, T, ok, heap, size, due)


ALGORITHM = AlgorithmSpec("rucb", run_rucb, {"alpha": 0.51}, "Zoghi et al. 2014, Alg. 1",
                     copeland=False)

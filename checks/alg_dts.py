"""D-TS and D-TS+: Double Thompson Sampling for Copeland dueling bandits ([W16] Alg. 1, §4.3)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .alg_common import AlgorithmSpec, kl_half_scalar, lcb_at_most_half, random_argmax
from .alg_schedule import ABOVE, new_schedule, pop_due, refresh
from .environment import duel, finished


@nb.njit(cache=True)
def _update_above_half(P, LQ, W, i, j, i_won):
    """Keep P[a, b] = P(θ_ab > 1/2), θ_ab ~ Beta(W_ab+1, W_ba+1), after a duel (i, j).

    For integers: P(Beta(W_ab+1, W_ba+1) > 1/2) = F(n, k) := P(Bin(n, 1/2) ≤ k) with
    n = N_ab + 1, k = W_ab. One duel moves n by 1 and F by half a binomial pmf:
    F(n+1, k+1) = F(n, k) + pmf(n, k+1)/2 (a won), F(n+1, k) = F(n, k) − pmf(n, k)/2
    (a lost); LQ[a, b] = log pmf(n, k) follows by the pmf ratios (no lgamma, no
    underflow). ``W`` is already updated; (a, b) = (min, max) of (i, j).
    """
    a = min(i, j)
    b = max(i, j)
    a_won = i_won if i == a else not i_won
    n = W[a, b] + W[b, a]  # = n before the duel (N grew by 1)
    lq = LQ[a, b]
    if a_won:
        k = W[a, b] - 1
        v = P[a, b] + 0.5 * math.exp(lq + math.log((n - k) / (k + 1.0)))
        LQ[a, b] = lq + math.log((n + 1.0) / (2.0 * (k + 1.0)))
    else:
        k = W[a, b]
        v = P[a, b] - 0.5 * math.exp(lq)
        LQ[a, b] = lq + math.log((n + 1.0) / (2.0 * (n + 1.0 - k)))
    v = min(max(v, 0.0), 1.0)
    P[a, b] = v
    P[b, a] = 1.0 - v


@nb.njit(cache=True)
def _beta_above_half(W, P, LQ, rng, i, j):
    """θ ~ Beta(W_ij+1, W_ji+1) conditioned on θ > 1/2 (probability P_ij).

    P_ij ≥ 1/4: rejection (≤ 4 draws on average). Otherwise, exactly and in O(1)
    expected steps: with n = N_ij + 1 uniforms, Beta(W_ij+1, W_ji+1) is the
    (W_ij+1)-th smallest, and θ > 1/2 ⇔ k = #{uniforms ≤ 1/2} ≤ W_ij, k ~ Bin(n, 1/2).
    Draw k from that binomial truncated to ≤ W_ij by inverting its CDF downwards from
    W_ij (pmf from ``LQ``, ratios pmf(k−1)/pmf(k) = k/(n−k+1)); given k, the n − k
    uniforms above 1/2 are iid U(1/2, 1), so θ = 1/2 + Beta(W_ij+1−k, W_ji+1)/2.
    """
    a = W[i, j] + 1.0
    b = W[j, i] + 1.0
    p = P[i, j]
    if p >= 0.25:
        while True:
            x = rng.beta(a, b)
            if x > 0.5:
                return x
    lo = min(i, j)
    hi = max(i, j)
    n = W[lo, hi] + W[hi, lo] + 1.0
    lp = LQ[lo, hi]  # log pmf(n, W_lo,hi)
    if i != lo:  # pmf(n, W_ij) = pmf(n, n − 1 − W_lo,hi) = pmf(n, W_lo,hi + 1)
        lp += math.log((n - W[lo, hi]) / (W[lo, hi] + 1.0))
    k = a - 1.0
    pm = math.exp(lp)
    target = rng.random() * p
    acc = 0.0
    while True:
        acc += pm
        if acc >= target or k <= 0.0:
            break
        pm *= k / (n - k + 1.0)
        k -= 1.0
    return 0.5 + 0.5 * rng.beta(a - k, b)


@nb.njit(cache=True)
def _draw_events(P, inC, outside, above, wins, rng):
    """Draw the events θ_ij > 1/2 (i < j) of the pairs touching C (``outside`` False) or
    of the pairs with neither arm in C (``outside`` True), as Bernoulli(P_ij), and add
    them to the vote counts ``wins`` (θ_ji = 1 − θ_ij, so exactly one of i, j wins)."""
    K = P.shape[0]
    for i in range(K):
        for j in range(i + 1, K):
            if (inC[i] or inC[j]) != outside:
                _draw_event(P, above, wins, rng, i, j)


@nb.njit(cache=True)
def _draw_candidate_events(P, inC, members, above, wins, rng):
    """:func:`_draw_events` for the pairs touching C in O(K·|C|): the same pairs in the
    same order (i < j, row by row), visiting only the columns in C (``members``,
    increasing) of rows outside C."""
    K = P.shape[0]
    for i in range(K):
        if inC[i]:
            for j in range(i + 1, K):
                _draw_event(P, above, wins, rng, i, j)
        else:
            for c in members:
                if c > i:
                    _draw_event(P, above, wins, rng, i, c)


@nb.njit(cache=True)
def _draw_event(P, above, wins, rng, i, j):
    """θ_ij > 1/2 as Bernoulli(P_ij), i < j, counted as a vote for i or j."""
    e = rng.random() < P[i, j]
    above[i, j] = e
    above[j, i] = not e
    if e:
        wins[i] += 1.0
    else:
        wins[j] += 1.0


@nb.njit(cache=True)
def _plus_tie_break(W, P, LQ, inC, above, wins, theta, drawn, rng, best, score, mask):
    """D-TS+'s tie-break ([W16] §4.3) among A = {i ∈ C : votes_i = best}: ζ̃ of every arm
    (the remaining events are drawn now), θ_ij for the rows of A given their side of
    1/2 (θ_ji = 1 − θ_ij shared between two rows of A), a1 = argmin_{i∈A} R̃_i with
    R̃_i = Σ_{j≠i} (ζ̃* − (ζ̃_i + ζ̃_j)/2) / d(θ_ij, 1/2); remaining ties at random."""
    K = W.shape[0]
    _draw_events(P, inC, True, above, wins, rng)
    zstar = wins.max() / (K - 1)
    drawn[:, :] = False
    for i in range(K):
        mask[i] = inC[i] and wins[i] == best
        if mask[i]:
            r = 0.0
            for j in range(K):
                if j == i:
                    continue
                if not drawn[i, j]:
                    if above[i, j]:
                        th = _beta_above_half(W, P, LQ, rng, i, j)
                    else:
                        th = 1.0 - _beta_above_half(W, P, LQ, rng, j, i)
                    theta[i, j] = th
                    theta[j, i] = 1.0 - th
                    drawn[i, j] = True
                    drawn[j, i] = True
                rij = zstar - 0.5 * (wins[i] + wins[j]) / (K - 1)
                r += rij / kl_half_scalar(theta[i, j])
            score[i] = -r
    return random_argmax(score, mask, rng)


@nb.njit(cache=True, nogil=True)
def run_dts(env, rng, plus, alpha):
    """D-TS ([W16] Algorithm 1) with α = 0.51; D-TS+ ([W16] §4.3) when ``plus``.

    Phase 1: U, L as in RUCB with α; ζ̂_i = #{j ≠ i : u_ij > 1/2}/(K−1);
    C = argmax ζ̂; θ_ij ~ Beta(B_ij+1, B_ji+1) (i < j), θ_ji = 1 − θ_ij;
    a1 = argmax_{i∈C} #{j ≠ i : θ_ij > 1/2}, ties uniformly at random
    (D-TS+: ties broken by argmin R̃_i = Σ_{j: θ_ij ≠ 1/2} r̃_ij / d(θ_ij, 1/2),
    remaining ties at random). Phase 2: θ'_{i a1} ~ Beta(B_{i a1}+1, B_{a1 i}+1)
    for i ≠ a1, θ'_{a1 a1} = 1/2; a2 = argmax over {i : l_{i a1} ≤ 1/2} of θ'.

    Implementation (same law of the choices, different random stream than drawing
    every θ): phase 1 draws only the events θ_ij > 1/2 it needs — those of the
    pairs touching C, none when |C| = 1 — as Bernoulli(P(θ_ij > 1/2)), pair by pair
    (i < j), with the probabilities updated exactly in O(1) per duel; D-TS+ draws
    the remaining events and the θ values of the tied rows given those events only
    when it must break a tie (θ_ji = 1 − θ_ij shared by two tied rows). Phase 2
    draws the events θ'_{i a1} > 1/2 of the allowed arms (θ' of arms with
    l_{i a1} > 1/2 are not drawn): none up gives a2 = a1, one up gives that arm, and
    only with two or more are their values drawn, conditioned on > 1/2
    (:func:`_beta_above_half`). ζ̂ is kept incrementally (:mod:`.alg_schedule`), and the
    events of the pairs touching C are drawn in O(K·|C|).
    """
    K = env.mu.shape[0]
    T = env.clock[2]
    P = np.full((K, K), 0.5)
    LQ = np.full((K, K), -math.log(2.0))  # log P(Bin(1, 1/2) = 0)
    above = np.zeros((K, K), np.bool_)
    theta = np.zeros((K, K))
    drawn = np.zeros((K, K), np.bool_)
    inC = np.zeros(K, np.bool_)
    members = np.empty(K, np.int64)
    wins = np.zeros(K)
    score = np.empty(K)
    mask = np.zeros(K, np.bool_)
    # ζ̂ kept incrementally: uhalf[i·K + j] = (u_ij > 1/2), zeta[i] = Σ_j uhalf; a duel re-tests
    # its pair, the crossings of the others (radius growing with t) come from the schedule.
    uhalf = np.ones(K * K, np.bool_)  # N = 0: u = 1
    zeta = np.full(K, K - 1, np.int64)
    heap, size, due = new_schedule(K * K)
    while not finished(env):
        t = env.clock[0] + 1
        alt = alpha * math.log(t)  # the bounds of confidence_bounds, compared sqrt-free
        p = pop_due(heap, size, due, t)
        while p >= 0:
            uhalf[p] = True
            zeta[p // K] += 1
            p = pop_due(heap, size, due, t)
        best = zeta.max()
        nC = 0
        a1 = -1
        for i in range(K):
            inC[i] = zeta[i] == best
            if inC[i]:
                if nC == 0:
                    a1 = i
                members[nC] = i
                nC += 1
        if nC > 1:
            wins[:] = 0.0
            _draw_candidate_events(P, inC, members[:nC], above, wins, rng)
            top = -1.0
            nA = 0
            for i in range(K):
                if inC[i]:
                    if wins[i] > top:
                        top = wins[i]
                        nA = 0
                        a1 = i
                    nA += wins[i] == top
            if nA > 1:
                if plus:
                    a1 = _plus_tie_break(env.W, P, LQ, inC, above, wins, theta, drawn, rng, top,
                                         score, mask)
                else:
                    a1 = random_argmax(wins, inC, rng)
        # Phase 2: a2 = argmax θ' over {i : l_{i a1} ≤ 1/2}, θ'_{a1 a1} = 1/2. Only the arms
        # with θ' > 1/2 can beat a1: draw those events first, values only if ≥ 2 are up.
        a2 = a1
        nup = 0
        for i in range(K):
            up = (i != a1 and lcb_at_most_half(env.W, i, a1, alt)
                  and rng.random() < P[i, a1])
            mask[i] = up
            if up:
                nup += 1
                a2 = i
        if nup > 1:
            for i in range(K):
                if mask[i]:
                    score[i] = _beta_above_half(env.W, P, LQ, rng, i, a1)
            a2 = random_argmax(score, mask, rng)
        won = duel(env, rng, a1, a2)
        if a1 != a2:
            _update_above_half(P, LQ, env.W, a1, a2, won)
            tn = env.clock[0] + 1  # the next step's t
            zeta[a1] += refresh(ABOVE, env.W, a1, a2, alpha, tn, T, uhalf, heap, size, due)
            zeta[a2] += refresh(ABOVE, env.W, a2, a1, alpha, tn, T, uhalf, heap, size, due)


ALGORITHM = AlgorithmSpec("d-ts", run_dts, {"alpha": 0.51}, "[W16] Alg. 1",
                     prepare=lambda M, env: (False,))
PLUS_SPEC = AlgorithmSpec("d-ts+", run_dts, {"alpha": 0.51}, "[W16] §4.3",
                          prepare=lambda M, env: (True,))

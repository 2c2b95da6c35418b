"""D-TS and D-TS+: Double Thompson Sampling for Copeland dueling bandits ([W16] Alg. 1, §4.3)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .alg_common import (
    AlgorithmSpec,
    kl_half_scalar,
    lcb_at_most_half,
    random_argmax,
    ucb_above_half,
)
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
def _above(P, above, stamp, step, rng, i, j):
    """The event θ_ij > 1/2 for this step, drawn once (Bernoulli(P_ij)) and shared with
    θ_ji > 1/2 ⇔ not θ_ij > 1/2 (θ_ij = 1/2 has probability 0)."""
    if stamp[i, j] != step:
        e = rng.random() < P[i, j]
        above[i, j] = e
        above[j, i] = not e
        stamp[i, j] = step
        stamp[j, i] = step
    return above[i, j]


@nb.njit(cache=True)
def _theta_given_side(W, rng, i, j, above):
    """θ_ij ~ Beta(W_ij+1, W_ji+1) conditioned on the side of 1/2 already drawn
    (rejection: 2 draws on average over the two sides)."""
    while True:
        x = rng.beta(W[i, j] + 1.0, W[j, i] + 1.0)
        if (x > 0.5) == above:
            return x


@nb.njit(cache=True)
def _first_candidate(W, P, inC, nC, above, stamp, step, rng, plus, score, mask):
    """Phase 1 of [W16] Alg. 1 (lines 7–11), or D-TS+'s tie-break (§4.3) when ``plus``.

    Majority voting needs only the events θ_ij > 1/2, which are Bernoulli(P_ij) with
    P_ij = P(Beta(W_ij+1, W_ji+1) > 1/2) kept up to date by :func:`_update_above_half`;
    D-TS+ then draws the θ values themselves conditioned on those events.
    """
    K = W.shape[0]
    if nC == 1 and not plus:
        for i in range(K):
            if inC[i]:
                return i
    for i in range(K):
        mask[i] = inC[i]
        if inC[i]:
            wins = 0
            for j in range(K):
                if j != i and _above(P, above, stamp, step, rng, i, j):
                    wins += 1
            score[i] = wins
    if not plus:
        return random_argmax(score, mask, rng)
    best = -1.0
    nA = 0
    for i in range(K):
        if inC[i]:
            if score[i] > best:
                best = score[i]
                nA = 1
            elif score[i] == best:
                nA += 1
    if nA == 1:
        return random_argmax(score, mask, rng)
    # D-TS+: ζ̃ of every arm (all events), θ values of the tied rows, argmin over A of R̃_i.
    zeta = np.empty(K)
    for i in range(K):
        wins = 0
        for j in range(K):
            if j != i and _above(P, above, stamp, step, rng, i, j):
                wins += 1
        zeta[i] = wins / (K - 1)
    zstar = zeta.max()
    for i in range(K):
        mask[i] = inC[i] and score[i] == best
        if mask[i]:
            r = 0.0
            for j in range(K):
                if j != i:
                    th = _theta_given_side(W, rng, i, j, above[i, j])
                    r += (zstar - 0.5 * (zeta[i] + zeta[j])) / kl_half_scalar(th)
            score[i] = -r
    return random_argmax(score, mask, rng)


@nb.njit(cache=True)
def run_dts(env, rng, plus, alpha):
    """D-TS ([W16] Algorithm 1) with α = 0.51; D-TS+ ([W16] §4.3) when ``plus``.

    Phase 1: U, L as in RUCB with α; ζ̂_i = #{j ≠ i : u_ij > 1/2}/(K−1);
    C = argmax ζ̂; θ_ij ~ Beta(B_ij+1, B_ji+1) (i < j), θ_ji = 1 − θ_ij;
    a1 = argmax_{i∈C} #{j ≠ i : θ_ij > 1/2}, ties uniformly at random
    (D-TS+: ties broken by argmin R̃_i = Σ_{j: θ_ij ≠ 1/2} r̃_ij / d(θ_ij, 1/2),
    remaining ties at random). Phase 2: θ'_{i a1} ~ Beta(B_{i a1}+1, B_{a1 i}+1)
    for i ≠ a1, θ'_{a1 a1} = 1/2; a2 = argmax over {i : l_{i a1} ≤ 1/2} of θ'.

    Implementation (same law of the choices, different random stream than drawing
    every θ): phase 1 draws only the events θ_ij > 1/2 it needs (rows of
    candidates; none when |C| = 1 for D-TS) as Bernoulli(P(θ_ij > 1/2)), with the
    probabilities updated exactly in O(1) per duel; D-TS+ draws θ values given
    those events when it must break a tie; θ' of arms with l_{i a1} > 1/2 are not drawn.
    """
    K = env.mu.shape[0]
    P = np.full((K, K), 0.5)
    LQ = np.full((K, K), -math.log(2.0))  # log P(Bin(1, 1/2) = 0)
    above = np.zeros((K, K), np.bool_)
    stamp = np.full((K, K), -1, np.int64)
    inC = np.zeros(K, np.bool_)
    score = np.empty(K)
    mask = np.zeros(K, np.bool_)
    step = 0
    while not finished(env):
        step += 1
        t = env.clock[0] + 1
        alt = alpha * math.log(t)  # the bounds of confidence_bounds, compared sqrt-free
        best = -1
        nC = 0
        for i in range(K):
            z = 0
            for j in range(K):
                if j != i and ucb_above_half(env.W, i, j, alt):
                    z += 1
            if z > best:
                best = z
                nC = 0
                inC[:i] = False
            inC[i] = z == best
            nC += z == best
        a1 = _first_candidate(env.W, P, inC, nC, above, stamp, step, rng, plus, score, mask)
        for i in range(K):
            mask[i] = i == a1 or lcb_at_most_half(env.W, i, a1, alt)
            if i == a1:
                score[i] = 0.5
            elif mask[i]:
                score[i] = rng.beta(env.W[i, a1] + 1.0, env.W[a1, i] + 1.0)
        a2 = random_argmax(score, mask, rng)
        won = duel(env, rng, a1, a2)
        if a1 != a2:
            _update_above_half(P, LQ, env.W, a1, a2, won)


SPEC = AlgorithmSpec("d-ts", run_dts, {"alpha": 0.51}, "[W16] Alg. 1",
                     prepare=lambda M, env: (False,))
PLUS_SPEC = AlgorithmSpec("d-ts+", run_dts, {"alpha": 0.51}, "[W16] §4.3",
                          prepare=lambda M, env: (True,))

"""D-TS / D-TS+ choose (a1, a2) with the law of [W16] Algorithm 1 (and §4.3) for a given history.

``checks/simulate/algorithms/dts.choose`` draws only what the choice needs
(events θ_ij > 1/2 as 64-lane Bernoulli words, a maximum of uniforms for the
never-dueled arms, values only for records;
docs/simulator.md, "D-TS"). Here a literal implementation of one step — every θ_ij ~
Beta(W_ij+1, W_ji+1) drawn, votes counted, argmax taken, then every θ'_{i a1} drawn — is
sampled for fixed hand-made histories (|C| = K, |C| > 1 with excluded arms, |C| = 1, exact
ties W_ij = W_ji, a tie-heavy cyclic state for D-TS+, K = 70 for lanes in two words) and the
two empirical distributions of (a1, a2) are compared with a chi-square homogeneity test.
Seeds are fixed, so the outcome is deterministic. Wrong samplers tried once against these
tests (column votes from the wrong side, bit planes of the probabilities shifted by one, the
uniform maximum as V^(1/(m+1)), records ignoring the running maximum, D-TS+ reading a pair's
event from the wrong row) each failed at least two states with p < 1e-10.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy.stats import chi2_contingency

ALPHA = 0.51


# -- the literal step ---------------------------------------------------------------------
def _kl_half(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-300, 1 - 1e-16)
    return math.log(2.0) + p * np.log(p) + (1 - p) * np.log1p(-p)


def reference_choices(W: np.ndarray, t: int, plus: bool, n: int, seed: int) -> np.ndarray:
    """n draws of (a1, a2) by [W16] Alg. 1 / §4.3 drawing every θ (vectorised over draws)."""
    rng = np.random.default_rng(seed)
    chunk = max(1, 4_000_000 // W.size)  # keeps the (draws, K, K) arrays small
    return np.concatenate([_reference_block(W, t, plus, min(chunk, n - s), rng)
                           for s in range(0, n, chunk)])


def _reference_block(W: np.ndarray, t: int, plus: bool, n: int, rng) -> np.ndarray:
    K = W.shape[0]
    N = W + W.T
    lt = math.log(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(N > 0, W / np.maximum(N, 1), 0.5)
        rad = np.sqrt(ALPHA * lt / np.maximum(N, 1))
    u = np.where(N > 0, mean + rad, 1.0)
    lcb = np.where(N > 0, mean - rad, 0.0)
    np.fill_diagonal(u, 0.5)
    np.fill_diagonal(lcb, 0.5)
    zeta = (u > 0.5).sum(axis=1)
    C = np.flatnonzero(zeta == zeta.max())
    iu, ju = np.triu_indices(K, 1)
    th = np.full((n, K, K), 0.5)
    up = rng.beta(W[iu, ju] + 1.0, W[ju, iu] + 1.0, size=(n, iu.size))
    th[:, iu, ju] = up
    th[:, ju, iu] = 1.0 - up
    votes = (th > 0.5).sum(axis=2)  # diagonal 1/2 is not > 1/2
    vc = votes[:, C]
    top = vc.max(axis=1, keepdims=True)
    tied = vc == top
    key = rng.random((n, C.size))
    if plus:
        zt = votes / (K - 1)
        zs = zt.max(axis=1)
        r = zs[:, None, None] - 0.5 * (zt[:, :, None] + zt[:, None, :])
        idx = np.arange(K)
        kl = _kl_half(th)
        kl[:, idx, idx] = 1.0  # j = i is not in the sum
        terms = r / kl
        terms[:, idx, idx] = 0.0
        R = terms.sum(axis=2)[:, C]
        Rt = np.where(tied, R, np.inf)
        tied = Rt == Rt.min(axis=1, keepdims=True)
    a1 = C[np.argmax(np.where(tied, key, -1.0), axis=1)]
    th2 = rng.beta(W[:, a1].T + 1.0, W[a1, :] + 1.0)  # θ'_{i a1}, rows = draws
    th2[np.arange(n), a1] = 0.5
    allowed = lcb[:, a1].T <= 0.5
    a2 = np.argmax(np.where(allowed, th2, -1.0), axis=1)
    return np.stack([a1, a2], axis=1)


# -- the implementation at a fixed state ---------------------------------------------------
@functools.cache
def _sampler():
    import numba as nb

    from duelbound.checks.simulate.algorithms.dts import choose

    @nb.njit
    def sample(W, P, LQ, state, zeta, alt, plus, rng, n):
        out = np.empty((n, 2), np.int64)
        for s in range(n):
            a1, a2 = choose(W, P, LQ, state, zeta, alt, plus, rng)
            out[s, 0] = a1
            out[s, 1] = a2
        return out

    return sample


def implementation_choices(W: np.ndarray, t: int, plus: bool, n: int, seed: int) -> np.ndarray:
    from duelbound.checks.simulate.algorithms.common import ucb_above_half
    from duelbound.checks.simulate.algorithms.dts import _update_above_half, new_state
    from duelbound.checks.simulate.environment import make_rng

    K = W.shape[0]
    P = np.full((K, K), 0.5)
    LQ = np.full((K, K), -math.log(2.0))
    Wr = np.zeros((K, K), np.int64)
    for i in range(K):  # replay the counts through the run's O(1) update
        for j in range(i + 1, K):
            for _ in range(int(W[i, j])):
                Wr[i, j] += 1
                _update_above_half(P, LQ, Wr, i, j, True)
            for _ in range(int(W[j, i])):
                Wr[j, i] += 1
                _update_above_half(P, LQ, Wr, i, j, False)
    alt = ALPHA * math.log(t)
    zeta = np.array([sum(ucb_above_half(Wr, i, j, alt) for j in range(K) if j != i)
                     for i in range(K)], np.int64)
    rng = make_rng(seed)
    state = new_state(P, rng)
    return _sampler()(Wr, P, LQ, state, zeta, alt, plus, rng, n)


# -- hand-made histories -------------------------------------------------------------------
def _from_rates(K: int, mu: np.ndarray, n: np.ndarray) -> np.ndarray:
    """W with W_ij = round(n_ij µ_ij) (n symmetric)."""
    W = np.rint(n * mu).astype(np.int64)
    np.fill_diagonal(W, 0)
    return W


def state_fresh() -> tuple[np.ndarray, int]:
    """K = 5, a few duels: every arm optimistic (|C| = 5), many never-dueled pairs."""
    W = np.zeros((5, 5), np.int64)
    W[0, 1], W[1, 0] = 2, 1
    W[2, 3], W[3, 2] = 0, 3
    W[0, 4], W[4, 0] = 1, 1  # exact tie W_ij = W_ji
    return W, 20


def state_explored() -> tuple[np.ndarray, int]:
    """K = 6, unequal sample sizes: |C| > 1, some l_{i a1} > 1/2 (excluded in phase 2)."""
    rng = np.random.default_rng(3)
    mu = rng.uniform(0.2, 0.8, (6, 6))
    mu = np.triu(mu, 1) + np.tril(1 - mu.T, -1)
    n = rng.integers(0, 60, (6, 6))
    n = np.triu(n, 1) + np.triu(n, 1).T
    n[0, 1] = n[1, 0] = 400
    W = _from_rates(6, mu, n)
    W[0, 1], W[1, 0] = 300, 100  # arm 0 clearly beats arm 1
    W[2, 3], W[3, 2] = 20, 20  # exact tie
    return W, 3000


def state_single() -> tuple[np.ndarray, int]:
    """K = 4, arm 2 has u > 1/2 against everyone, 0 → 3 → 1 → 0 lose clearly: |C| = 1."""
    W = np.array([[0, 5, 4, 40],
                  [40, 0, 6, 5],
                  [6, 5, 0, 3],
                  [5, 40, 4, 0]], np.int64)
    return W, 500


def state_cyclic_ties() -> tuple[np.ndarray, int]:
    """K = 4 with a 3-cycle among 0, 1, 2 that all beat 3: vote ties are frequent."""
    W = np.array([[0, 6, 3, 9],
                  [3, 0, 6, 9],
                  [6, 3, 0, 8],
                  [1, 1, 2, 0]], np.int64)
    return W, 200


def state_two_words() -> tuple[np.ndarray, int]:
    """K = 70 (lanes in two 64-bit words), the strong arms in the second word."""
    rng = np.random.default_rng(5)
    K = 70
    s = np.linspace(-1.0, 1.0, K)
    s[[66, 68]] = 1.3  # two strong arms with index ≥ 64
    s[[2, 40]] = 1.2
    mu = 1.0 / (1.0 + np.exp(-(s[:, None] - s[None, :])))
    n = rng.integers(0, 12, (K, K))
    n = np.triu(n, 1) + np.triu(n, 1).T
    return _from_rates(K, mu, n), 800


STATES = {"fresh": state_fresh, "explored": state_explored, "single": state_single,
          "cyclic": state_cyclic_ties, "two_words": state_two_words}


def homogeneity_pvalue(x: np.ndarray, y: np.ndarray, K: int, min_expected: float = 10.0):
    """Chi-square homogeneity of two samples of (a1, a2); sparse cells pooled into one."""
    cx = np.bincount(x[:, 0] * K + x[:, 1], minlength=K * K)
    cy = np.bincount(y[:, 0] * K + y[:, 1], minlength=K * K)
    tot = cx + cy
    big = tot >= 2 * min_expected
    table = np.array([np.append(cx[big], cx[~big].sum()), np.append(cy[big], cy[~big].sum())])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        return 1.0, table
    return chi2_contingency(table)[1], table


@pytest.mark.parametrize("plus", [False, True], ids=["d-ts", "d-ts+"])
@pytest.mark.parametrize("name", list(STATES))
def test_choice_law_matches_literal_step(name, plus):
    W, t = STATES[name]()
    K = W.shape[0]
    n = 12_000 if K > 10 else 40_000
    ref = reference_choices(W, t, plus, n, seed=1)
    new = implementation_choices(W, t, plus, n, seed=2)
    p, table = homogeneity_pvalue(ref, new, K)
    assert table.shape[1] >= 2 or name == "single", table  # the states are not degenerate
    assert p > 1e-4, (name, plus, p, table)


def test_states_cover_the_cases():
    # |C| of each state as the implementation sees it (u > 1/2 in the sqrt-free form).
    from duelbound.checks.simulate.algorithms.common import ucb_above_half

    sizes = {}
    for name, make in STATES.items():
        W, t = make()
        alt = ALPHA * math.log(t)
        z = [sum(ucb_above_half(W, i, j, alt) for j in range(W.shape[0]) if j != i)
             for i in range(W.shape[0])]
        sizes[name] = int(np.sum(np.array(z) == max(z)))
    assert sizes["single"] == 1
    assert sizes["fresh"] == 5
    assert all(sizes[k] > 1 for k in ("explored", "cyclic", "two_words")), sizes


def test_a_wrong_law_is_detected():
    # The test's power: a sampler that breaks ties towards the lowest index instead of
    # uniformly (a small change of the law) is rejected on the tie-heavy state.
    W, t = state_cyclic_ties()
    ref = reference_choices(W, t, False, 40_000, seed=1)
    new = implementation_choices(W, t, False, 40_000, seed=2)
    wrong = new.copy()
    flip = (wrong[:, 0] == 1) & (np.arange(len(wrong)) % 4 == 0)
    wrong[flip, 0] = 0  # a quarter of arm 1's first choices moved to arm 0
    assert homogeneity_pvalue(ref, wrong, 4)[0] < 1e-6

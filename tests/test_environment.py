"""The simulator's environment: Bernoulli outcomes, seeds, counts, regret accounting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from scipy.stats import binomtest

from duelbound.checks.simulate.simulator import ALGORITHMS, run_policy, run_single
from duelbound.theory import datasets
from duelbound.theory.errors import DuelboundError, UnknownNameError

# cw-rmed re-solves an LP in Python on most exploration steps: covered by slow tests.
FAST = [a for a in ALGORITHMS if a != "cw-rmed"]


def test_win_rates_match_mu_binomial():
    M = datasets.load("multi_winner")
    rec = run_single(M, "uniform", 40_000, seed=3)
    K = M.K
    pvals = []
    for i in range(K):
        for j in range(i + 1, K):
            n = int(rec.counts[i, j])
            assert n == rec.wins[i, j] + rec.wins[j, i]
            pvals.append(binomtest(int(rec.wins[i, j]), n, M.values[i, j]).pvalue)
    # Bonferroni over the K(K-1)/2 pairs at level 1e-3 (seeded: deterministic).
    assert min(pvals) > 1e-3 / len(pvals)


def test_self_duels_are_fair_coins_without_information():
    class SelfPolicy:
        def select(self):
            return (2, 2)

        def update(self, i, j, won):
            pass

    M = datasets.load("cyclic")
    rec = run_policy(M, SelfPolicy(), 500, seed=1)
    assert rec.counts[2, 2] == 500 and rec.counts.sum() == 500
    assert rec.wins.sum() == 0
    # r_22 = (L_2 − L1)/(K − 1) = 2/3 per step (komiyama), hand-derived from the matrix.
    assert rec.final_regret["komiyama"] == pytest.approx(500 * 2 / 3)


@pytest.mark.parametrize("algorithm", FAST)
def test_seeds_reproduce(algorithm):
    M = datasets.load("cyclic")
    a = run_single(M, algorithm, 3000, seed=7)
    b = run_single(M, algorithm, 3000, seed=7)
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.wins, b.wins)
    for c in a.regret:
        assert np.array_equal(a.regret[c], b.regret[c])


@pytest.mark.parametrize("algorithm", FAST)
@pytest.mark.parametrize("T", [1, 2, 7])
def test_tiny_horizons_end_exactly(algorithm, T):
    # Horizons that stop inside an initial/forced-exploration phase (K = 16: 120 pairs).
    from duelbound.theory import generators

    rec = run_single(generators.random_matrix(16, seed=0), algorithm, T, seed=0)
    assert rec.counts[np.triu_indices(16, 1)].sum() + np.trace(rec.counts) == T


def test_different_seeds_differ():
    M = datasets.load("cyclic")
    a = run_single(M, "uniform", 2000, seed=1)
    b = run_single(M, "uniform", 2000, seed=2)
    assert not np.array_equal(a.wins, b.wins)


def _independent_regret(mu: np.ndarray, pairs: np.ndarray) -> dict[str, np.ndarray]:
    """Per-step regret recomputed from the matrix by hand (docs/math.md §4 table)."""
    K = mu.shape[0]
    L = np.array([sum(mu[i, j] < 0.5 for j in range(K) if j != i) for i in range(K)])
    l1 = L.min()
    i, j = pairs[:, 0], pairs[:, 1]
    kom = (L[i] + L[j] - 2 * l1) / (2 * (K - 1))
    cpld = (K - 1 - L) / (K - 1)
    zog = 2 * cpld.max() - cpld[i] - cpld[j]
    binary = np.where((L[i] == l1) & (L[j] == l1), 0.0, 1.0)
    return {"komiyama": kom, "zoghi": zog, "binary": binary}


@settings(max_examples=12, deadline=None)
@given(algorithm=hst.sampled_from(FAST),
       name=hst.sampled_from(["cyclic", "multi_winner", "unique_copeland"]),
       T=hst.integers(1, 3000), seed=hst.integers(0, 2**32))
def test_counts_and_regret_match_logged_pairs(algorithm, name, T, seed):
    M = datasets.load(name)
    rec = run_single(M, algorithm, T, seed, log_pairs=True)
    K = M.K
    # Counts add up to T and agree with the logged sequence.
    iu = np.triu_indices(K, 1)
    assert rec.counts[iu].sum() + np.trace(rec.counts) == T
    N = np.zeros((K, K), int)
    W = np.zeros((K, K), int)
    for (i, j), won in zip(rec.pairs, rec.outcomes, strict=True):
        N[i, j] += 1
        if i != j:
            N[j, i] += 1
            W[i, j] += won
            W[j, i] += not won
    assert np.array_equal(N, rec.counts) and np.array_equal(W, rec.wins)
    # Cumulative regret at the checkpoints, recomputed independently.
    for conv, per_step in _independent_regret(M.values, rec.pairs).items():
        cum = np.cumsum(per_step)
        np.testing.assert_allclose(rec.regret[conv], cum[rec.checkpoints - 1], rtol=1e-12,
                                   atol=1e-9)
        assert rec.final_regret[conv] == pytest.approx(cum[-1], rel=1e-12, abs=1e-9)


def test_run_policy_uses_same_accounting():
    M = datasets.load("cyclic")

    class Fixed:
        def select(self):
            return (1, 2)

        def update(self, i, j, won):
            pass

    rec = run_policy(M, Fixed(), 1000, seed=0, checkpoints=[10, 1000])
    # r_12 = (2 + 2 − 0)/(2·3) = 2/3 per duel, hand-derived.
    np.testing.assert_allclose(rec.regret["komiyama"], [10 * 2 / 3, 1000 * 2 / 3])
    assert rec.counts[1, 2] == rec.counts[2, 1] == 1000


@pytest.mark.parametrize("call, err", [
    (lambda M: run_single(M, "nope", 10, 0), UnknownNameError),
    (lambda M: run_single(M, "uniform", 0, 0), DuelboundError),
    (lambda M: run_single(M, "uniform", 10, -1), DuelboundError),
    (lambda M: run_single(M, "rucb", 10, 0, params={"gamma": 1}), UnknownNameError),
    (lambda M: run_single(M, "rucb", 10, 0, params={"alpha": "x"}), DuelboundError),
    (lambda M: run_single(M, "uniform", 10, 0, checkpoints=[0, 5]), DuelboundError),
    (lambda M: run_policy(M, object(), 10, 0), DuelboundError),
])
def test_bad_input_raises_package_errors(call, err):
    with pytest.raises(err):
        call(datasets.load("cyclic"))


def test_bad_policy_selection():
    class Bad:
        def select(self):
            return (0, 9)

        def update(self, i, j, won):
            pass

    with pytest.raises(DuelboundError):
        run_policy(datasets.load("cyclic"), Bad(), 10, 0)

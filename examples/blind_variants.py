"""Blind variants for the growth rules of ``duelbound verify`` (issue 32), each with the
rule it must trigger — or, for the controls, must not.

=========================  ==============================================  ====================
factory                    what it does                                    verdict (rule)
=========================  ==============================================  ====================
``etc_doubling_sqrt``      anytime explore-then-commit by doubling: each   WARN
                           epoch of n duels explores every pair ⌈√n⌉       (super-logarithmic:
                           times, then duels its empirical Copeland        regret ~ K²√T)
                           winner with itself
``dts_trials_posterior``   D-TS sampling Beta(wins + 1, trials + 1)        FAIL (linear in a
                           instead of Beta(wins + 1, losses + 1)           share of runs)
``dts_sampled_borda``      "simplified D-TS": first arm the argmax of a    FAIL (linear without
                           sampled *Borda* score, no RUCB elimination      a Condorcet winner)
``dts_losses_posterior``   control: the same code as                       PASS
                           ``dts_trials_posterior`` with the right
                           posterior Beta(wins + 1, losses + 1)
=========================  ==============================================  ====================

Written for the tests and the study of docs/verification.md §3.4c without reading the
verdict code's thresholds; ``benchmarks/bench_verdicts.py`` runs them.
"""

from __future__ import annotations

import math

import numpy as np

from examples.my_algorithms import DTS


class _Wins:
    """Win counts W[i, j] (i beat j); self-duels carry no information and are not kept."""

    def __init__(self, K: int):
        self.K = K
        self.W = np.zeros((K, K))

    def update(self, i: int, j: int, i_won: bool) -> None:
        if i != j:
            self.W[(i, j) if i_won else (j, i)] += 1


class _ETCDoubling(_Wins):
    """Epochs of n = n0, 2 n0, 4 n0, ... duels: each starts with ⌈√n⌉ duels of every pair
    (i < j, round robin), then duels the empirical Copeland winner of all data so far
    with itself until the epoch ends."""

    def __init__(self, K: int, T: int, seed: int):
        super().__init__(K)
        self.pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
        self.epoch_len = 4 * len(self.pairs) ** 2
        self.left = self.epoch_len          # duels left in this epoch
        self.queue = self._explore()
        self.leader = 0

    def _explore(self) -> list[tuple[int, int]]:
        return self.pairs * math.ceil(math.sqrt(self.epoch_len))

    def select(self) -> tuple[int, int]:
        if self.left == 0:
            self.epoch_len *= 2
            self.left = self.epoch_len
            self.queue = self._explore()
        self.left -= 1
        if self.queue:
            pair = self.queue.pop()
            if not self.queue:   # exploration over: commit for the rest of the epoch
                N = self.W + self.W.T
                wins = (self.W > N / 2).sum(axis=1)
                self.leader = int(np.argmax(wins))
            return pair
        return self.leader, self.leader


def etc_doubling_sqrt(K: int, T: int, seed: int) -> _ETCDoubling:
    return _ETCDoubling(K, T, seed)


class _TrialsBeta:
    """A generator whose ``beta(a, b)`` draws Beta(a, a + b − 1): with a = wins + 1 and
    b = losses + 1 that is Beta(wins + 1, trials + 1) — the mistaken posterior."""

    def __init__(self, rng: np.random.Generator):
        self._rng = rng

    def beta(self, a, b):
        return self._rng.beta(a, np.asarray(a) + np.asarray(b) - 1)

    def choice(self, *args, **kw):
        return self._rng.choice(*args, **kw)


class _PosteriorDTS(DTS):
    """D-TS of examples/my_algorithms.py, with the posterior of each duel's probability
    Beta(wins + 1, ``"losses"`` + 1) (right) or Beta(wins + 1, ``"trials"`` + 1)."""

    def __init__(self, K: int, T: int, seed: int, posterior: str):
        super().__init__(K, T, seed)
        if posterior == "trials":
            self.rng = _TrialsBeta(self.rng)


def dts_trials_posterior(K: int, T: int, seed: int) -> _PosteriorDTS:
    return _PosteriorDTS(K, T, seed, "trials")


def dts_losses_posterior(K: int, T: int, seed: int) -> _PosteriorDTS:
    return _PosteriorDTS(K, T, seed, "losses")


class _SampledBorda(_Wins):
    """First arm: the argmax of Σ_j θ_ij with θ_ij ~ Beta(W_ij + 1, W_ji + 1); second arm:
    the argmax of θ'_i,a1 ~ Beta(W_i,a1 + 1, W_a1,i + 1), as D-TS's second arm."""

    def __init__(self, K: int, T: int, seed: int):
        super().__init__(K)
        self.rng = np.random.default_rng(seed)

    def select(self) -> tuple[int, int]:
        theta = self.rng.beta(self.W + 1, self.W.T + 1)
        np.fill_diagonal(theta, 0.5)
        a1 = int(np.argmax(theta.sum(axis=1)))
        th2 = self.rng.beta(self.W[:, a1] + 1, self.W[a1, :] + 1)
        th2[a1] = 0.5
        return a1, int(np.argmax(th2))


def dts_sampled_borda(K: int, T: int, seed: int) -> _SampledBorda:
    return _SampledBorda(K, T, seed)

"""Deliberately broken variants, each with the verdict ``duelbound verify`` gives it.

=======================  ===========================================  ==================
factory                  what is wrong                                verdict (reason)
=======================  ===========================================  ==================
``dts_swapped``          D-TS reading W with rows and columns swapped FAIL (consistency)
``rucb_no_self_duel``    RUCB that never duels an arm with itself     FAIL (consistency)
``swallow_errors``       duel protocol; hides invalid duels in        FAIL (protocol)
                         try/except
``uniform_random``       a uniformly random pair every step           FAIL (linear)
``etc_fixed``            explore-then-commit, fixed 2000 duels of     FAIL (linear or
                         round robin, then the empirical winner        starved)
``always_00``            always duels (0, 0)                          FAIL (linear or
                                                                      starved)
``dts_skip_last``        D-TS with an off-by-one: never arm K − 1     FAIL
``borda_greedy``         explores, then duels the empirical *Borda*   FAIL
                         winner with itself (wrong without a
                         Condorcet winner)
``eps_greedy_sqrt``      a random pair with probability t^(-1/2),     WARN or FAIL
                         else the empirical Copeland winner with      (regret ~ sqrt T)
                         itself
=======================  ===========================================  ==================

The power study of docs/verification.md runs every factory here and the correct ones of
examples/my_algorithms.py (``benchmarks/bench_verdicts.py``).
"""

from __future__ import annotations

import numpy as np

from examples.my_algorithms import DTS


class _SwappedDTS(DTS):
    """D-TS whose win counts are transposed: samples θ_ij ~ Beta(W_ji + 1, W_ij + 1),
    so it believes every arm wins what it actually loses."""

    def update(self, i: int, j: int, i_won: bool) -> None:
        self.c.update(i, j, not i_won)


def dts_swapped(K: int, T: int, seed: int) -> _SwappedDTS:
    return _SwappedDTS(K, T, seed)


class _RUCBNoSelf:
    """RUCB (Zoghi et al. 2014: candidate c, opponent argmax_j u_jc) that never plays (c, c):
    the opponent is taken among j ≠ c, so even the Condorcet winner always duels a
    loser and the regret grows linearly."""

    def __init__(self, K: int, T: int, seed: int, alpha: float = 0.51):
        self.K, self.alpha, self.t = K, alpha, 0
        self.W = np.zeros((K, K))
        self.rng = np.random.default_rng(seed)

    def select(self) -> tuple[int, int]:
        K, W = self.K, self.W
        N = W + W.T
        with np.errstate(divide="ignore", invalid="ignore"):
            U = np.where(N > 0, W / N + np.sqrt(self.alpha * np.log(self.t + 1) / N), 1.0)
        np.fill_diagonal(U, 0.5)
        cand = np.flatnonzero((U >= 0.5).all(axis=1))
        c = int(self.rng.choice(cand)) if cand.size else int(self.rng.integers(K))
        col = U[:, c].copy()
        col[c] = -1.0
        d = int(self.rng.choice(np.flatnonzero(col == col.max())))
        return c, d

    def update(self, i: int, j: int, i_won: bool) -> None:
        self.t += 1
        if i != j:
            self.W[(i, j) if i_won else (j, i)] += 1


def rucb_no_self_duel(K: int, T: int, seed: int) -> _RUCBNoSelf:
    return _RUCBNoSelf(K, T, seed)


def swallow_errors(K: int, T: int, seed: int):
    def run(duel, horizon: int) -> None:
        for _ in range(horizon):
            try:
                duel(K, 0)
            except Exception:  # noqa: BLE001 — the trick: hide the protocol error
                pass
            duel(0, 0)

    return run


class _Empirical:
    """Shared bookkeeping of the simple baselines below: wins W, the step t, a generator."""

    def __init__(self, K: int, T: int, seed: int):
        self.K, self.t = K, 0
        self.W = np.zeros((K, K))
        self.rng = np.random.default_rng(seed)

    def update(self, i: int, j: int, i_won: bool) -> None:
        self.t += 1
        if i != j:
            self.W[(i, j) if i_won else (j, i)] += 1

    def copeland_leader(self) -> int:
        N = self.W + self.W.T
        wins = ((self.W > N / 2) & (N > 0)).sum(axis=1)
        return int(self.rng.choice(np.flatnonzero(wins == wins.max())))

    def round_robin(self) -> tuple[int, int]:
        pairs = [(i, j) for i in range(self.K) for j in range(i + 1, self.K)]
        return pairs[self.t % len(pairs)]


class _Uniform(_Empirical):
    def select(self) -> tuple[int, int]:
        return int(self.rng.integers(self.K)), int(self.rng.integers(self.K))


def uniform_random(K: int, T: int, seed: int) -> _Uniform:
    """The textbook linear-regret baseline: both arms uniformly at random."""
    return _Uniform(K, T, seed)


class _ETC(_Empirical):
    budget = 2000

    def select(self) -> tuple[int, int]:
        if self.t < self.budget:
            return self.round_robin()
        if not hasattr(self, "leader"):
            self.leader = self.copeland_leader()
        return self.leader, self.leader


def etc_fixed(K: int, T: int, seed: int) -> _ETC:
    """Explore-then-commit with a budget that does not grow with T: wrong with positive
    probability (linear regret), and when right it stops learning (inconsistent)."""
    return _ETC(K, T, seed)


class _Always00(_Empirical):
    def select(self) -> tuple[int, int]:
        return 0, 0


def always_00(K: int, T: int, seed: int) -> _Always00:
    return _Always00(K, T, seed)


class _SkipLast(DTS):
    """D-TS whose candidate loop runs over range(K - 1): arm K − 1 is never dueled."""

    def select(self) -> tuple[int, int]:
        a1, a2 = super().select()
        last = self.K - 1
        return (a1 if a1 != last else 0), (a2 if a2 != last else 0)


def dts_skip_last(K: int, T: int, seed: int) -> _SkipLast:
    return _SkipLast(K, T, seed)


class _BordaGreedy(_Empirical):
    explore = 1000

    def select(self) -> tuple[int, int]:
        if self.t < self.explore:
            return self.round_robin()
        N = self.W + self.W.T
        with np.errstate(invalid="ignore"):
            borda = np.nansum(np.where(N > 0, self.W / np.maximum(N, 1), 0.5), axis=1)
        b = int(np.argmax(borda))
        return b, b


def borda_greedy(K: int, T: int, seed: int) -> _BordaGreedy:
    """Greedy on the Borda score (mean win rate): right with a Condorcet winner, wrong on
    Copeland matrices whose Borda and Copeland winners differ."""
    return _BordaGreedy(K, T, seed)


class _EpsGreedy(_Empirical):
    def select(self) -> tuple[int, int]:
        if self.rng.random() < (self.t + 1) ** -0.5:
            return int(self.rng.integers(self.K)), int(self.rng.integers(self.K))
        c = self.copeland_leader()
        return c, c


def eps_greedy_sqrt(K: int, T: int, seed: int) -> _EpsGreedy:
    """ε-greedy with ε_t = t^(−1/2): consistent in the limit but regret ~ √T."""
    return _EpsGreedy(K, T, seed)

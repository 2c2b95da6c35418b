"""Deliberately broken variants, each with the verdict ``duelbound verify`` gives it.

=======================  ===========================================  ==================
factory                  what is wrong                                verdict (reason)
=======================  ===========================================  ==================
``dts_swapped``          D-TS reading W with rows and columns swapped FAIL (consistency)
``rucb_no_self_duel``    RUCB that never duels an arm with itself     FAIL (consistency)
``swallow_errors``       duel protocol; hides invalid duels in        FAIL (protocol)
                         try/except
=======================  ===========================================  ==================
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

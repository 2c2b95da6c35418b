"""The select/update protocol of ``duelbound verify``, smallest complete example.

``make(K, T, seed)`` returns an object with ``select() -> (i, j)`` and
``update(i, j, i_won)``; the judge calls select, plays the duel, calls update.  Here:
a Copeland explore-then-commit with a horizon-dependent exploration (consistent)::

    duelbound verify examples.select_protocol:make --only cyclic
"""

from __future__ import annotations

import math

import numpy as np


class ExploreThenCommit:
    """Duel every pair ``n0`` times round-robin, then self-duel the empirical Copeland
    winner (ties: the smallest index).  ``n0 = ⌈c · log T⌉`` by default."""

    def __init__(self, K: int, T: int, seed: int, n0: int | None = None, c: float = 60.0):
        self.K = K
        self.pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
        self.n0 = n0 if n0 is not None else math.ceil(c * math.log(max(T, 2)))
        self.W = np.zeros((K, K))
        self.t = 0
        self.winner: int | None = None

    def select(self) -> tuple[int, int]:
        if self.t < self.n0 * len(self.pairs):
            return self.pairs[self.t % len(self.pairs)]
        if self.winner is None:
            N = self.W + self.W.T
            beats = (self.W > N / 2).sum(axis=1)
            self.winner = int(np.argmax(beats))
        return self.winner, self.winner

    def update(self, i: int, j: int, i_won: bool) -> None:
        self.t += 1
        if i != j:
            self.W[(i, j) if i_won else (j, i)] += 1


def make(K: int, T: int, seed: int) -> ExploreThenCommit:
    return ExploreThenCommit(K, T, seed)


def etc_400(K: int, T: int, seed: int) -> ExploreThenCommit:
    """Fixed exploration of 400 duels per pair: consistent, but at small T it is still
    exploring (``verify`` says INCONCLUSIVE and names the horizon that decides)."""
    return ExploreThenCommit(K, T, seed, n0=400)

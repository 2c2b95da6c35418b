"""The duel protocol of ``duelbound verify``: the algorithm drives the loop.

``make(K, T, seed)`` returns ``run(duel, T)``, which calls ``duel(i, j) -> bool``
(True iff i won) exactly T times.  Here: Relative Upper Confidence Bound
([Z15]'s RUCB family; a Condorcet algorithm — consistent only when a Condorcet winner
exists, which ``verify`` points out)::

    duelbound verify examples.duel_protocol:make
"""

from __future__ import annotations

import math

import numpy as np


def make(K: int, T: int, seed: int, alpha: float = 0.51):
    rng = np.random.default_rng(seed)

    def run(duel, horizon: int) -> None:
        W = np.zeros((K, K))
        for t in range(1, horizon + 1):
            N = W + W.T
            with np.errstate(divide="ignore", invalid="ignore"):
                U = np.where(N > 0, W / N + np.sqrt(alpha * math.log(t) / N), 1.0)
            np.fill_diagonal(U, 0.5)
            cand = np.flatnonzero((U >= 0.5).all(axis=1))
            c = int(rng.choice(cand)) if cand.size else int(rng.integers(K))
            col = U[:, c].copy()
            col[c] = 0.5
            d = int(rng.choice(np.flatnonzero(col == col.max())))
            if duel(c, d):
                W[c, d] += 1
            elif c != d:
                W[d, c] += 1

    return run

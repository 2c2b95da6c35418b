"""Uniform exploration: the baseline of the seeds' experiments ([K16] §5, [W16] §6)."""

from __future__ import annotations

import numba as nb

from ..environment import duel, finished
from .common import AlgorithmSpec


@nb.njit(cache=True, nogil=True)
def run_uniform(env, rng):
    """Duel a uniformly random ordered pair (i, j), i ≠ j, at every step.

    The seeds do not say whether self-duels are allowed; we exclude them, so
    every duel carries information (K(K−1) equally likely ordered pairs).
    """
    K = env.mu.shape[0]
    while not finished(env):
        # floor(U·n) is uniform on 0..n−1 up to 2^-53 (faster than Generator.integers)
        i = int(rng.random() * K)
        j = int(rng.random() * (K - 1))
        if j >= i:
            j += 1
        duel(env, rng, i, j)


ALGORITHM = AlgorithmSpec("uniform", run_uniform, {}, "uniform random pairs (baseline)",
                          copeland=False)

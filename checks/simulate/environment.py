"""The duel environment and its regret accounting (docs/math.md §9).

One mechanism serves every algorithm: an :class:`Env` bundle of arrays, and the
compiled :func:`duel` that draws one Bernoulli outcome, updates the counts N_ij,
wins W_ij and the cumulative regret in the three conventions of docs/math.md §4
(komiyama, zoghi, binary), and records the cumulative regret at the
checkpoints. Algorithms are small compiled loops that call :func:`duel` until
:func:`finished`; the Python-object protocol of :func:`duelbound.checks.simulate.policy.run_policy`
uses the same :func:`duel` through :func:`duel_py`.

Conventions
-----------
- A duel (i, j) returns ``True`` ("i wins") with probability µ_ij; a self-duel
  (i, i) is a fair coin (µ_ii = 1/2) and carries no information: it adds 1 to
  N_ii and nothing to W.
- ``N`` is symmetric: N_ij = N_ji = number of duels between i and j (either
  order), so Σ_{i<j} N_ij + Σ_i N_ii = t. ``W[i, j]`` = number of duels i won
  against j, so N_ij = W_ij + W_ji for i ≠ j.
- t counts duels from 1; the cumulative regret after duel t is stored at every
  checkpoint value t.

The randomness of a run is one ``numpy.random.Generator`` (PCG64) built from
``SeedSequence(seed)``; numba draws from the same bit generator, so a run is
reproducible bit for bit from (seed, algorithm, matrix, T, params).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ...theory.errors import DuelboundError
from ...theory.matrix import PreferenceMatrix
from ...theory.regret import CONVENTIONS, regret_matrix

__all__ = ["Env", "make_env", "duel", "update_regret", "finished", "duel_py", "log_checkpoints",
           "make_rng", "check_horizon"]


class Env(NamedTuple):
    """State of one run (all arrays; passed by reference into compiled code)."""

    mu: np.ndarray           # (K, K) float64 preference matrix
    N: np.ndarray            # (K, K) int64 duel counts (symmetric)
    W: np.ndarray            # (K, K) int64 win counts
    regret: np.ndarray       # (3, K, K) float64 per-step regret, CONVENTIONS order
    cum: np.ndarray          # (3,) float64 cumulative regret (current at checkpoints;
                             # update_regret refreshes it from the counts)
    checkpoints: np.ndarray  # (n,) int64 increasing t values
    curve: np.ndarray        # (n, 3) float64 cumulative regret at the checkpoints
    clock: np.ndarray        # (3,) int64: [t, next checkpoint index, horizon T]
    pairs: np.ndarray        # (T, 2) int64 logged pairs, or (0, 2) when not logging
    outcomes: np.ndarray     # (T,) bool logged outcomes, or (0,)


def check_horizon(T: int) -> int:
    """T as a positive int, or a DuelboundError."""
    try:
        Ti = int(T)
    except (TypeError, ValueError):
        raise DuelboundError(f"horizon T must be a positive integer, got {T!r}") from None
    if Ti != T or Ti < 1:
        raise DuelboundError(f"horizon T must be a positive integer, got {T!r}")
    return Ti


def log_checkpoints(T: int, n: int = 60) -> np.ndarray:
    """About ``n`` log-spaced t values in [1, T], always including 1 and T."""
    pts = np.unique(np.round(np.geomspace(1, T, n)).astype(np.int64))
    return np.unique(np.concatenate([pts, [1, T]])).astype(np.int64)


def make_rng(seed: int) -> np.random.Generator:
    """The run's generator: PCG64 seeded by ``SeedSequence(seed)``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise DuelboundError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed))))


def make_env(M: PreferenceMatrix, T: int, checkpoints=None, log_pairs: bool = False) -> Env:
    """A fresh environment for horizon ``T`` over ``M``."""
    if not isinstance(M, PreferenceMatrix):
        M = PreferenceMatrix(M)
    T = check_horizon(T)
    K = M.K
    if checkpoints is None:
        ck = log_checkpoints(T)
    else:
        ck = np.unique(np.asarray(checkpoints, dtype=np.int64))
        if ck.size == 0 or ck[0] < 1 or ck[-1] > T:
            raise DuelboundError(f"checkpoints must be integers in [1, T={T}]")
    reg = np.stack([regret_matrix(M, c) for c in CONVENTIONS]).astype(np.float64)
    if not np.allclose(reg, reg.transpose(0, 2, 1), rtol=0.0, atol=1e-12):  # update_regret
        raise DuelboundError("internal error: per-step regret matrices must be symmetric")
    n_log = T if log_pairs else 0
    return Env(
        mu=np.ascontiguousarray(M.values, dtype=np.float64).copy(),
        N=np.zeros((K, K), np.int64), W=np.zeros((K, K), np.int64),
        regret=reg, cum=np.zeros(3), checkpoints=ck,
        curve=np.full((ck.size, 3), np.nan), clock=np.array([0, 0, T], np.int64),
        pairs=np.zeros((n_log, 2), np.int64), outcomes=np.zeros(n_log, np.bool_))


@nb.njit(cache=True)
def finished(env: Env) -> bool:
    """True once the horizon T has been reached."""
    return env.clock[0] >= env.clock[2]


@nb.njit(cache=True)
def duel(env: Env, rng: np.random.Generator, i: int, j: int) -> bool:
    """Play duel (i, j): draw the outcome, update counts and regret; True iff i wins.

    Calling it after the horizon is a no-op returning False, so algorithms
    may finish a batch of forced duels without checking the clock each time.
    """
    t = env.clock[0]
    if t >= env.clock[2]:
        return False
    won = rng.random() < env.mu[i, j]
    if env.pairs.shape[0] > 0:
        env.pairs[t, 0] = i
        env.pairs[t, 1] = j
        env.outcomes[t] = won
    t += 1
    env.clock[0] = t
    env.N[i, j] += 1
    if i != j:
        env.N[j, i] += 1
        if won:
            env.W[i, j] += 1
        else:
            env.W[j, i] += 1
    k = env.clock[1]
    if k < env.checkpoints.shape[0] and env.checkpoints[k] <= t:
        update_regret(env)
        while k < env.checkpoints.shape[0] and env.checkpoints[k] <= t:
            for c in range(3):
                env.curve[k, c] = env.cum[c]
            k += 1
        env.clock[1] = k
    return won


@nb.njit(cache=True)
def update_regret(env: Env) -> None:
    """env.cum ← cumulative regret of the duels so far, from the counts.

    The per-step regret r_ij is symmetric in every convention (docs/math.md §4), so the
    cumulative regret is Σ_{i<j} N_ij r_ij + Σ_i N_ii r_ii: :func:`duel` evaluates it
    only at the checkpoints (O(K²) each) instead of adding three floats per duel.
    """
    K = env.N.shape[0]
    for c in range(3):
        s = 0.0
        for i in range(K):
            s += env.N[i, i] * env.regret[c, i, i]
            for j in range(i + 1, K):
                s += env.N[i, j] * env.regret[c, i, j]
        env.cum[c] = s


def duel_py(env: Env, rng: np.random.Generator, i: int, j: int) -> bool:
    """:func:`duel` for Python callers (same compiled code, argument checks first)."""
    K = env.mu.shape[0]
    if not (0 <= i < K and 0 <= j < K):
        raise DuelboundError(f"arm index out of range 0..{K - 1}: ({i}, {j})")
    return bool(duel(env, rng, int(i), int(j)))

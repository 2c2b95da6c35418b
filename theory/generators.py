"""Seeded generators of random preference matrices with prescribed structure.

One entry point, :func:`random_matrix`: draw a tournament with the requested
structure (Condorcet winner or not, exactly C Copeland winners, a given L1), then
draw a gap Δ_ij for every pair from ``gap_range`` (optionally a few near-ties).
The same seed always gives the same matrix.

Examples
--------
>>> from duelbound.theory import generators, structure
>>> M = generators.random_matrix(8, seed=1, n_winners=2, l1=1)
>>> len(structure.copeland_winners(M)), structure.L1(M)
(2, 1)
"""

from __future__ import annotations

import numpy as np

from .errors import DuelboundError, InvalidMatrixError
from .matrix import PreferenceMatrix

__all__ = ["random_tournament", "random_matrix"]

_MAX_STEPS = 200_000


def _structure_error(msg: str) -> InvalidMatrixError:
    return InvalidMatrixError(msg, "infeasible-structure")


def _check_request(K: int, condorcet: bool | None, n_winners: int | None,
                   l1: int | None) -> None:
    if K < 2:
        raise _structure_error(f"need K >= 2, got {K}")
    if condorcet is True and ((n_winners not in (None, 1)) or (l1 not in (None, 0))):
        raise _structure_error("a Condorcet winner means n_winners = 1 and L1 = 0")
    if condorcet is False and K < 3:
        raise _structure_error("every tournament on 2 arms has a Condorcet winner")
    if condorcet is False and l1 == 0:
        raise _structure_error("L1 = 0 means a Condorcet winner exists")
    if n_winners is not None and not 1 <= n_winners <= K:
        raise _structure_error(f"n_winners must be in 1..K, got {n_winners}")
    if l1 is not None and not 0 <= l1 <= (K - 1) // 2:
        raise _structure_error(f"L1 must be in 0..(K-1)//2 = {(K - 1) // 2}, got {l1}")
    if n_winners is not None and l1 is not None:
        if l1 == 0 and n_winners != 1:
            raise _structure_error("L1 = 0 allows only one Copeland winner")
        if n_winners > 2 * l1 + 1:  # [Z15] Lemma 7 with d = L1
            raise _structure_error(
                f"{n_winners} Copeland winners need L1 >= {n_winners // 2} "
                "([Z15] Lemma 7)")
        if n_winners == K and 2 * l1 != K - 1:
            raise _structure_error("all arms tie as winners only if K is odd and L1 = (K-1)/2")


def _mismatch(B: np.ndarray, condorcet: bool | None, n_winners: int | None,
              l1: int | None) -> int:
    L = (~B & ~np.eye(B.shape[0], dtype=bool)).sum(axis=1)
    low = int(L.min())
    c = int((L == low).sum())
    miss = 0
    if condorcet is True:
        miss += low
    if condorcet is False:
        miss += int(low == 0)
    if n_winners is not None:
        miss += abs(c - n_winners)
    if l1 is not None:
        miss += abs(low - l1)
    return miss


def random_tournament(K: int, rng: np.random.Generator, *, condorcet: bool | None = None,
                      n_winners: int | None = None, l1: int | None = None) -> np.ndarray:
    """A random tournament as a boolean K×K beats-matrix with the requested structure.

    Starts from uniformly random edge orientations and, if the structure is not
    met, flips random edges as long as that does not move it further from the
    request (a randomised local search).

    Raises
    ------
    InvalidMatrixError
        The request is impossible (e.g. 3 winners with L1 = 0, [Z15] Lemma 7) or
        was not reached within the step budget.
    """
    _check_request(K, condorcet, n_winners, l1)
    iu = np.triu_indices(K, 1)
    B = np.zeros((K, K), dtype=bool)
    B[iu] = rng.random(len(iu[0])) < 0.5
    B = B | (~B.T & ~np.eye(K, dtype=bool) & np.tri(K, k=-1, dtype=bool))
    if condorcet is True:
        w = int(rng.integers(K))
        B[w, :] = True
        B[:, w] = False
        B[w, w] = False
    miss = _mismatch(B, condorcet, n_winners, l1)
    steps = 0
    while miss:
        if steps >= _MAX_STEPS:
            raise _structure_error(
                f"no tournament found with condorcet={condorcet}, n_winners={n_winners}, "
                f"L1={l1} on K={K} arms")
        i, j = rng.choice(K, size=2, replace=False)
        B[i, j], B[j, i] = B[j, i], B[i, j]
        new = _mismatch(B, condorcet, n_winners, l1)
        if new <= miss:
            miss = new
        else:
            B[i, j], B[j, i] = B[j, i], B[i, j]
        steps += 1
    return B


def random_matrix(
    K: int,
    seed: int | np.random.Generator | None = None,
    *,
    gap_range: tuple[float, float] = (0.05, 0.45),
    condorcet: bool | None = None,
    n_winners: int | None = None,
    l1: int | None = None,
    near_ties: int = 0,
    near_tie_gap: float = 1e-6,
    decimals: int | None = None,
    name: str | None = None,
) -> PreferenceMatrix:
    """A seeded random preference matrix with prescribed structure and gaps.

    Parameters
    ----------
    K : int
        Number of arms (≥ 2).
    seed : int or numpy.random.Generator, optional
        Seed or generator; the same seed gives the same matrix.
    gap_range : (float, float)
        Each Δ_ij is uniform on this interval, 0 < lo ≤ hi ≤ 1/2.
    condorcet : bool, optional
        Require (True) or forbid (False) a Condorcet winner.
    n_winners, l1 : int, optional
        Require exactly this many Copeland winners / this L1.
    near_ties : int
        Number of pairs whose gap is instead ``near_tie_gap`` (times a uniform
        factor in [1, 2)): near-ties that stress numerical code.
    decimals : int, optional
        Round the winning probabilities to this many decimals (readable output).

    Raises
    ------
    InvalidMatrixError
        Bad gap range or an impossible structure.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    lo, hi = (float(g) for g in gap_range)
    if not (0.0 < lo <= hi <= 0.5):
        raise InvalidMatrixError(f"gap_range must satisfy 0 < lo <= hi <= 1/2, got {gap_range}",
                                 "bad-gap-range")
    B = random_tournament(K, rng, condorcet=condorcet, n_winners=n_winners, l1=l1)
    iu = np.triu_indices(K, 1)
    gap = rng.uniform(lo, hi, size=len(iu[0]))
    if near_ties:
        if near_ties > len(gap):
            raise DuelboundError(f"near_ties={near_ties} exceeds the {len(gap)} pairs")
        idx = rng.choice(len(gap), size=near_ties, replace=False)
        gap[idx] = near_tie_gap * rng.uniform(1.0, 2.0, size=near_ties)
    win = 0.5 + gap
    if decimals is not None:
        win = np.maximum(np.round(win, decimals), 0.5 + 10.0 ** (-decimals))
    V = np.full((K, K), 0.5)
    upper_wins = B[iu]
    V[iu] = np.where(upper_wins, win, 1.0 - win)
    V[(iu[1], iu[0])] = 1.0 - V[iu]
    return PreferenceMatrix(V, name=name)

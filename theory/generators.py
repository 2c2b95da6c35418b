"""Seeded generators of random preference matrices with prescribed structure.

One entry point, :func:`random_matrix`: draw a tournament with the requested
structure (Condorcet winner or not, exactly C Copeland winners, a given L1), then
draw a gap Δ_ij for every pair from ``gap_range`` (optionally a few near-ties).
The same seed always gives the same matrix.

Examples
--------
>>> from duelbound.theory import generators, tournament
>>> M = generators.random_matrix(8, seed=1, n_winners=2, l1=1)
>>> len(tournament.copeland_winners(M)), tournament.L1(M)
(2, 1)
"""

from __future__ import annotations

import numpy as np

from .errors import DuelboundError, InvalidMatrixError
from .matrix import PreferenceMatrix

__all__ = ["random_tournament", "random_matrix"]

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


def _landau_ok(losses: np.ndarray) -> bool:
    """Landau's theorem: a loss (or score) sequence belongs to some tournament iff
    the k smallest entries sum to at least C(k, 2) for every k, with equality at K."""
    L = np.sort(np.asarray(losses))
    K = len(L)
    k = np.arange(1, K + 1)
    prefix = np.cumsum(L)
    return bool(np.all(prefix >= k * (k - 1) // 2) and prefix[-1] == K * (K - 1) // 2)


def _balanced_rest(K: int, n: int, l1: int) -> np.ndarray | None:
    """Losses of the K − n non-winners, as equal as possible (each ≥ l1 + 1).

    For a fixed total, the balanced vector has the largest sums of its smallest
    entries, so if it violates Landau's condition every sequence does.
    """
    rest = K * (K - 1) // 2 - n * l1
    m = K - n
    if m == 0:
        return np.zeros(0, dtype=np.int64) if rest == 0 else None
    base, extra = divmod(rest, m)
    seq = np.full(m, base, dtype=np.int64)
    seq[:extra] += 1
    if seq.min() < l1 + 1 or seq.max() > K - 1:
        return None
    return seq if _landau_ok(np.concatenate([np.full(n, l1), seq])) else None


def _target_losses(K: int, n: int, l1: int, rng: np.random.Generator) -> np.ndarray:
    rest = _balanced_rest(K, n, l1)
    if rest is None:
        raise _structure_error(f"no tournament on K={K} arms has exactly {n} Copeland "
                               f"winner(s) with L1={l1} (Landau's condition fails)")
    # random loss transfers between non-winners that keep the sequence valid
    for _ in range(2 * K):
        if len(rest) < 2:
            break
        a, b = rng.choice(len(rest), size=2, replace=False)
        cand = rest.copy()
        cand[a] -= 1
        cand[b] += 1
        if cand.min() >= l1 + 1 and cand.max() <= K - 1 and _landau_ok(
                np.concatenate([np.full(n, l1), cand])):
            rest = cand
    target = np.empty(K, dtype=np.int64)
    order = rng.permutation(K)
    target[order[:n]] = l1
    target[order[n:]] = rng.permutation(rest)
    return target


def _realise(B: np.ndarray, target: np.ndarray) -> None:
    """Reverse paths in B (in place) until its loss sequence equals ``target``.

    Reversing a directed path j → … → i moves one loss from i to j and leaves
    every inner vertex unchanged; when the target satisfies Landau's condition
    such a path from an arm with too few losses to one with too many exists.
    """
    import networkx as nx

    K = B.shape[0]
    while True:
        L = (~B & ~np.eye(K, dtype=bool)).sum(axis=1)
        short = np.flatnonzero(L < target)
        if short.size == 0:
            return
        over = set(np.flatnonzero(L > target).tolist())
        G = nx.DiGraph((int(a), int(b)) for a, b in np.argwhere(B))
        j = int(short[0])
        paths = nx.single_source_shortest_path(G, j)
        i = next(v for v in paths if v in over)
        path = paths[i]
        for a, b in zip(path, path[1:]):
            B[a, b], B[b, a] = False, True


def random_tournament(K: int, rng: np.random.Generator, *, condorcet: bool | None = None,
                      n_winners: int | None = None, l1: int | None = None) -> np.ndarray:
    """A random tournament as a boolean K×K beats-matrix with the requested structure.

    Edges start uniformly random.  A Condorcet requirement alone is met by
    making a random arm beat all (``True``) or by flipping edges of the Condorcet
    winner until there is none (``False``).  A request on the number of Copeland
    winners or L1 fixes a target loss sequence (winners at L1, the other arms'
    losses near-balanced and randomly perturbed, checked with Landau's theorem)
    and reverses paths until the tournament has it.

    Raises
    ------
    InvalidMatrixError
        The request is impossible (e.g. 3 winners with L1 = 0, [Z15] Lemma 7, or
        Landau's condition).
    """
    _check_request(K, condorcet, n_winners, l1)
    iu = np.triu_indices(K, 1)
    B = np.zeros((K, K), dtype=bool)
    B[iu] = rng.random(len(iu[0])) < 0.5
    B = B | (~B.T & ~np.eye(K, dtype=bool) & np.tri(K, k=-1, dtype=bool))
    if n_winners is None and l1 is None:
        if condorcet is True:
            w = int(rng.integers(K))
            B[w, :] = True
            B[:, w] = False
            B[w, w] = False
        while condorcet is False:
            L = (~B & ~np.eye(K, dtype=bool)).sum(axis=1)
            winners = np.flatnonzero(L == 0)
            if winners.size == 0:
                break
            w = int(winners[0])
            j = int(rng.choice([v for v in range(K) if v != w]))
            B[w, j], B[j, w] = False, True
        return B
    if condorcet is True:
        n_winners, l1 = 1, 0
    if l1 is None:
        assert n_winners is not None  # both None was handled above
        lo = max(1 if condorcet is False else 0, (n_winners or 1) // 2)
        options = [v for v in range(lo, (K - 1) // 2 + 1)
                   if _balanced_rest(K, n_winners, v) is not None]
        if not options:
            raise _structure_error(f"no L1 allows {n_winners} Copeland winners on K={K} arms")
        l1 = int(rng.choice(options))
    if n_winners is None:
        options = [c for c in range(1, min(K, 2 * l1 + 1) + 1)
                   if _balanced_rest(K, c, l1) is not None]
        if not options:
            raise _structure_error(f"no number of winners is possible with L1={l1} on K={K}")
        n_winners = int(rng.choice(options))
    _realise(B, _target_losses(K, n_winners, l1, rng))
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

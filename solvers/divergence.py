"""Which pairs make C* or C^E* diverge as their µ tends to 1/2 (the unbounded interval ends).

C*_{i1} = min Σ_p (r_p/d_p) x_p over the tournament's polytope ([K16] Theorem 2; docs/math.md
§5): as d_ab = d(µ_ab, 1/2) → 0 alone it stays bounded iff some feasible x has x_ab = 0.
:func:`divergent` asks the sorting oracle; :func:`divergent_pairs` answers for every pair at
once from the closed form of the single-term constraints (:func:`_single_term`), O(K) per
pair.  The interval's upper end is unbounded when such a pair's sign is undecided
(docs/uncertainty.md).

Examples
--------
>>> import numpy as np
>>> from duelbound.solvers.divergence import divergent_pairs
>>> cw, ecw = divergent_pairs(3, np.array([1, 1, 1]))   # 0 > 1 > 2, 0 > 2: a Condorcet winner
>>> cw.tolist(), ecw.tolist()
([True, False, False], [True, True, False])
"""

from __future__ import annotations

import numpy as np

from .draws import square
from .oracle import cw_oracle_core, ecw_oracle_core, losses_core, regret_core

__all__ = ["divergent_pairs", "divergent"]


def divergent_pairs(K: int, sign: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Does C* (C^E*) diverge as µ_ab → 1/2, on the tournament of µ̂ (``sign`` per pair,
    ties to the lower index) or on it with that pair flipped?  (C*, C^E*) flags per pair.

    :func:`divergent` asks the oracle at x = 1 off {a, b}, x_ab = 0, which is below 1
    exactly when some constraint has the single term x_ab: the closed form of
    :func:`_single_term` — O(K) per pair instead of O(K²) oracle work (K = 300: 44 850
    pairs, ~10 min → ~1 s).  The property test checks the two agree."""
    iu = np.triu_indices(K, 1)
    beats = square(np.where(sign >= 0, 0.75, 0.25), K) > 0.5
    L = (~beats).sum(axis=1) - 1  # losses (the diagonal is not a win)
    div_cw = np.zeros(sign.size, dtype=bool)
    div_ec = np.zeros(sign.size, dtype=bool)
    for k in range(sign.size):
        a, b = int(iu[0][k]), int(iu[1][k])
        w, l = (a, b) if beats[a, b] else (b, a)
        Lf = L.copy()
        Lf[w] += 1  # the flipped tournament: w now loses to l
        Lf[l] -= 1
        for lv, flipped in ((L, False), (Lf, True)):
            c1, c2 = _single_term(beats, lv, a, b, flipped)
            div_cw[k] |= c1
            div_ec[k] |= c2
    return div_cw, div_ec


def _single_term(beats: np.ndarray, L: np.ndarray, a: int, b: int, flipped: bool
                 ) -> tuple[bool, bool]:
    """Is x_ab the only term of some constraint of R_{i1} (of R^E_{i1}) for every Copeland
    winner i1, with r_ab > 0?  ``beats``: i beats j, with the pair {a, b} reversed when
    ``flipped``; ``L`` the losses of that tournament.

    Single-term constraints (docs/math.md §5 with m + s = 1, and §6): for a winner i1 and
    another winner i2 (L_{i2} = L1), x_{i1 j} with j ∈ I_{i1} \\ {i2} (l = L1, m = 1,
    s = 0) and, when L1 ≥ 1, x_{i2 j} with j ∈ S_{i2} \\ {i1} (l = L1 − 1, m = 0,
    s = 1); and x_{i1 i2} alone for any i2 that i1 beats with L_{i2} ≤ L1 + 1 (case
    i2 ∈ I, l = L1).  In R^E_{i1}: x_{i1 j} for every j ∈ I_{i1} ((4)) and x_{j i2} with
    j ∈ S_{i2} \\ {i1} for another winner i2 ((5) with m = 1).
    """
    def wins(i: int, j: int) -> bool:
        return bool(beats[i, j]) != (flipped and {i, j} == {a, b})

    l1 = int(L.min())
    if L[a] + L[b] - 2 * l1 <= 0:  # r_ab = 0: both Copeland winners
        return False, False
    winners = [int(i) for i in np.flatnonzero(L == l1)]
    cw = ec = True
    for i1 in winners:
        others = [w for w in winners if w != i1]
        in_cw = in_ec = False
        if i1 in (a, b):
            j = b if i1 == a else a
            if wins(i1, j):
                in_ec = True
                in_cw = any(w != j for w in others) or L[j] <= l1 + 1
        else:
            for i2, j in ((a, b), (b, a)):
                if i2 in others and wins(j, i2):
                    in_ec = True
                    in_cw = in_cw or l1 >= 1
        cw &= in_cw
        ec &= in_ec
    return cw, ec


def divergent(mu: np.ndarray, a: int, b: int) -> tuple[bool, bool]:
    """Does C* (C^E*) of the tournament of ``mu`` tend to ∞ as µ_ab → 1/2?

    C*_{i1} = min Σ_p (r_p/d_p) x_p over the tournament's polytope; as d_ab → 0 alone
    it stays bounded iff some feasible x has x_ab = 0, i.e. iff x = 1 off {a, b} and
    x_ab = 0 lies in R_{i1} (the constraints are monotone).  C* = min over winners
    diverges iff r_ab > 0 and every winner needs the pair; likewise C^E* with R^E.
    """
    K = mu.shape[0]
    if regret_core(mu)[a, b] <= 0.0:
        return False, False
    x = np.ones((K, K))
    x[a, b] = x[b, a] = 0.0
    L = losses_core(mu)
    winners = np.flatnonzero(L == L.min())
    cw = all(cw_oracle_core(mu, int(i1), x).min() < 1.0 - 1e-9 for i1 in winners)
    ec = all(ecw_oracle_core(mu, int(i1), x) < 1.0 - 1e-9 for i1 in winners)
    return cw, ec

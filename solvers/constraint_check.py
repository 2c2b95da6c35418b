"""Is a pair set one constraint of R_{i1}?  The identification of certificate rows
(docs/math.md §5): the rows of a dual must be genuine constraints for weak duality to hold.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ConstraintCheck"]


class ConstraintCheck:
    """Membership test "is this pair set one constraint of R_{i1}" (docs/math.md §5),
    with the tournament read once for all rows."""

    def __init__(self, mu: np.ndarray, i1: int, px):
        L = (mu < 0.5).sum(axis=1)
        self.i1, self.K = i1, mu.shape[0]
        self.L = [int(v) for v in L]
        self.l2 = int(np.sort(L)[1])
        self.pairs = [(int(a), int(b)) for a, b in px.pairs.tolist()]
        self.beats_i1 = (mu[i1] < 0.5).tolist()  # j with µ_{i1 j} < ½ cannot be in I
        self.loses = (mu > 0.5).tolist()  # loses[i2][j]: j is not a superior of i2

    def __call__(self, cols) -> bool:
        return self.identify(cols) is not None

    def identify(self, cols) -> tuple[int, int, list[int], list[int]] | None:
        """(i2, l, I, S) of the constraint of R_{i1} whose pair columns are ``cols``
        (the first i2 that fits when S is empty), or None if it is no constraint."""
        i1 = self.i1
        pairs = [self.pairs[p] for p in cols]
        if len(set(pairs)) != len(pairs):
            return None
        I = {b if a == i1 else a for a, b in pairs if a == i1 or b == i1}
        rest = [(a, b) for a, b in pairs if a != i1 and b != i1]
        l1 = self.L[i1]
        l = len(I) + l1 - 1
        if any(self.beats_i1[j] for j in I) or not max(0, l1 - 1) <= l <= self.l2:
            return None
        cands = sorted(set(rest[0]) if rest else set(range(self.K)) - {i1})
        for i2 in cands:
            if any(i2 != a and i2 != b for a, b in rest):
                continue
            S = [a if b == i2 else b for a, b in rest]
            lose = self.loses[i2]
            if any(lose[j] or j == i1 for j in S):
                continue
            if len(S) == max(0, self.L[i2] - l - (1 if i2 in I else 0)):
                return i2, l, sorted(I), sorted(S)
        return None

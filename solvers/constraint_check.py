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
        pairs = [self.pairs[p] for p in cols]
        if len(set(pairs)) != len(pairs):
            return None
        first = self._i1_side(pairs)
        if first is None:
            return None
        I, rest, l = first
        cands = sorted(set(rest[0]) if rest else set(range(self.K)) - {self.i1})
        for i2 in cands:
            S = self._i2_side(i2, I, rest, l)
            if S is not None:
                return i2, l, sorted(I), sorted(S)
        return None

    def _i1_side(self, pairs) -> tuple[set[int], list[tuple[int, int]], int] | None:
        """(I, the pairs without i1, l) with I the arms paired with i1 and l = |I| + L_{i1} − 1;
        None if some j ∈ I beats i1 or l is outside [max(0, L_{i1} − 1), L_2]."""
        i1 = self.i1
        I = {b if a == i1 else a for a, b in pairs if a == i1 or b == i1}
        rest = [(a, b) for a, b in pairs if a != i1 and b != i1]
        l1 = self.L[i1]
        l = len(I) + l1 - 1
        if any(self.beats_i1[j] for j in I) or not max(0, l1 - 1) <= l <= self.l2:
            return None
        return I, rest, l

    def _i2_side(self, i2: int, I: set[int], rest: list[tuple[int, int]], l: int
                 ) -> list[int] | None:
        """S (the partners of i2 in ``rest``) if every pair of ``rest`` touches i2, every
        j ∈ S beats i2 (S ⊆ S_{i2}) and is not i1, and |S| is the constraint's size;
        else None."""
        if any(i2 != a and i2 != b for a, b in rest):
            return None
        S = [a if b == i2 else b for a, b in rest]
        lose = self.loses[i2]
        if any(lose[j] or j == self.i1 for j in S):
            return None
        if len(S) != max(0, self.L[i2] - l - (1 if i2 in I else 0)):
            return None
        return S

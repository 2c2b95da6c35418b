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
        # per column: the partner j of i1 if the pair is {i1, j}, else −1; and the first
        # column of the same pair (repeated pairs in ``cols`` make no constraint)
        self.partner = [b if a == i1 else a if b == i1 else -1 for a, b in self.pairs]
        first: dict[tuple[int, int], int] = {}
        self.pair_id = [first.setdefault(pr, p) for p, pr in enumerate(self.pairs)]

    def __call__(self, cols) -> bool:
        return self.identify(cols) is not None

    def identify(self, cols) -> tuple[int, int, list[int], list[int]] | None:
        """(i2, l, I, S) of the constraint of R_{i1} whose pair columns are ``cols``
        (the first i2 that fits when S is empty), or None if it is no constraint."""
        pair_id = self.pair_id
        if len({pair_id[p] for p in cols}) != len(cols):
            return None
        first = self._i1_side(cols)
        if first is None:
            return None
        I, rest, l = first
        cands = sorted(rest[0]) if rest else [j for j in range(self.K) if j != self.i1]
        for i2 in cands:
            S = self._i2_side(i2, I, rest, l)
            if S is not None:
                return i2, l, sorted(I), S
        return None

    def _i1_side(self, cols) -> tuple[list[int], list[tuple[int, int]], int] | None:
        """(I, the pairs without i1, l) with I the arms paired with i1 and l = |I| + L_{i1} − 1;
        None if some j ∈ I beats i1 or l is outside [max(0, L_{i1} − 1), L_2]."""
        partner = self.partner
        I = [partner[p] for p in cols if partner[p] >= 0]
        l1 = self.L[self.i1]
        l = len(I) + l1 - 1
        beats_i1 = self.beats_i1
        if not max(0, l1 - 1) <= l <= self.l2 or any(beats_i1[j] for j in I):
            return None
        pairs = self.pairs
        return I, [pairs[p] for p in cols if partner[p] < 0], l

    def _i2_side(self, i2: int, I: list[int], rest: list[tuple[int, int]], l: int
                 ) -> list[int] | None:
        """S (the partners of i2 in ``rest``, sorted) if every pair of ``rest`` touches i2,
        |S| is the constraint's size and every j ∈ S beats i2 (S ⊆ S_{i2}; no j is i1, as
        ``rest`` holds the pairs without i1); else None."""
        S = []
        for a, b in rest:
            if a == i2:
                S.append(b)
            elif b == i2:
                S.append(a)
            else:
                return None
        if len(S) != max(0, self.L[i2] - l - (1 if i2 in I else 0)):
            return None
        lose = self.loses[i2]
        if any(lose[j] for j in S):
            return None
        S.sort()
        return S

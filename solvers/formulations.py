"""LP formulations of C*_{i1} = min Σ r_ij q_ij over R_{i1} ([K16] Theorem 2; docs/math.md §5).

All formulations work in the evidence variables x_p = q_p d_p ∈ [0, 1], one per
unordered pair p = {a, b} (better conditioned than q: every constraint has 0/1
coefficients and right-hand side 1); the cost of x_p is c_p = r_p / d_p and
q_p = x_p / d_p is reported.  Pairs {j, i1} with j ∈ S_{i1} occur in no
constraint and are left out (q* = 0 there).

Three ways to write the constraints, all as plain sparse arrays (``LPData``):

* **compact** (docs/math.md §5): "the m smallest of the x_j, j ∈ A, sum to ≥ t" holds iff
  some λ, u ≥ 0 have mλ − Σ_j u_j ≥ t and u_j ≥ λ − x_j (LP duality for the
  m-subset polytope).  One block (λ, u) per distinct (set, m); blocks are shared
  between the (i2, l, case) rows that use them.  λ, u ≥ 0 are left without upper
  bound (the form of docs/math.md §5.2; its dual converts directly into a dual on explicit rows,
  see :mod:`.certificate`).
* **rows** from the sorting oracle (row generation) and
* **explicit** enumeration of every (i2, l, I, S) (reference for small K).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb

import numpy as np

from .oracle import cw_oracle_core, family_constraints, l_range_core, losses_core

__all__ = ["PairIndex", "LPData", "pair_index", "compact_lp", "rows_lp", "explicit_rows",
           "explicit_count", "constraint_families", "CompactBuilder"]


@dataclass
class PairIndex:
    """Column numbering of the pair variables x_p for one Copeland winner."""

    pairs: np.ndarray  # (P, 2) int, a < b
    pid: np.ndarray  # (K, K) int, −1 for pairs left out
    cost: np.ndarray  # (P,) c_p = r_p / d_p
    d: np.ndarray  # (P,) d_p

    def symmetric(self, vec: np.ndarray) -> np.ndarray:
        """The K × K symmetric matrix with ``vec[p]`` at both (a_p, b_p) and (b_p, a_p)."""
        K = self.pid.shape[0]
        out = np.zeros((K, K))
        a, b = self.pairs[:, 0], self.pairs[:, 1]
        out[a, b] = vec
        out[b, a] = vec
        return out


def pair_index(mu: np.ndarray, d: np.ndarray, r: np.ndarray, i1: int) -> PairIndex:
    """Pairs in some constraint of R_{i1}: all but {j, i1} with j ∈ S_{i1}."""
    K = mu.shape[0]
    a, b = np.triu_indices(K, 1)
    keep = ~(((a == i1) & (mu[i1, b] < 0.5)) | ((b == i1) & (mu[i1, a] < 0.5)))
    a, b = a[keep], b[keep]
    pid = np.full((K, K), -1, dtype=np.int64)
    pid[a, b] = np.arange(a.size)
    pid[b, a] = np.arange(a.size)
    dd = d[a, b]
    return PairIndex(np.stack([a, b], axis=1), pid, r[a, b] / dd, dd)


@dataclass
class LPData:
    """min c·v s.t. A v ≥ row_lb, lb ≤ v ≤ ub; the first ``n_pairs`` columns are x."""

    c: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    row_lb: np.ndarray
    n_pairs: int
    row_keys: list = field(default_factory=list)  # (i2, l, case) or None (block rows)
    blocks: list = field(default_factory=list)  # (λ col, u cols, member x cols, count)

    @property
    def n_rows(self) -> int:
        return self.row_lb.size

    @property
    def n_cols(self) -> int:
        return self.c.size


def constraint_families(mu: np.ndarray, i1: int):
    """Yield (i2, l, case, A, m, B, s) for every (i2, l, case) with constraints (docs/math.md §5).

    The constraints of the family are x_{i1 i2} [case 1] + Σ_{j∈I'} x_{i1 j} +
    Σ_{j∈S} x_{i2 j} ≥ 1 over all I' ⊆ A with |I'| = m and S ⊆ B with |S| = s.
    """
    K = mu.shape[0]
    L = losses_core(mu)
    l0, lmax = l_range_core(L)
    l1 = int(L[i1])
    inf_i1 = [j for j in range(K) if j != i1 and mu[i1, j] > 0.5]
    for i2 in range(K):
        if i2 == i1:
            continue
        A = [j for j in inf_i1 if j != i2]
        B = [j for j in range(K) if j not in (i1, i2) and mu[i2, j] < 0.5]
        i2_in = mu[i1, i2] > 0.5
        for l in range(l0, lmax + 1):
            m = l + 1 - l1
            if m < 0:
                continue
            s = max(0, int(L[i2]) - l)
            if m <= len(A) and s <= len(B):
                yield i2, l, 0, A, m, B, s
            s2 = max(0, int(L[i2]) - l - 1)
            if i2_in and m >= 1 and m - 1 <= len(A) and s2 <= len(B):
                yield i2, l, 1, A, m - 1, B, s2


def explicit_count(mu: np.ndarray, i1: int) -> int:
    """Exact number of constraints of R_{i1} (big integer): Σ C(|A|, m) C(|B|, s)."""
    return sum(comb(len(A), m) * comb(len(B), s)
               for _, _, _, A, m, B, s in constraint_families(mu, i1))


def explicit_rows(mu: np.ndarray, i1: int, px: PairIndex):
    """Yield (key, pair columns) for every constraint of R_{i1}, key = (i2, l, case)."""
    for i2, l, case, A, m, B, s in constraint_families(mu, i1):
        head = [px.pid[i1, i2]] if case == 1 else []
        for I in combinations(A, m):
            left = head + [px.pid[i1, j] for j in I]
            for S in combinations(B, s):
                yield (i2, l, case), left + [px.pid[i2, j] for j in S]


_LINK = np.array([1.0, -1.0, 1.0])


class ColumnBuilder:
    """Accumulates columns and ≥-rows as arrays (no per-term Python objects)."""

    def __init__(self, px: PairIndex):
        P = px.pairs.shape[0]
        self.c = [px.cost]
        self.lb = [np.zeros(P)]
        self.ub = [np.ones(P)]
        self.ncols = P
        self.row_cols: list[np.ndarray] = []
        self.row_vals: list[np.ndarray] = []
        self.row_lb: list[float] = []
        self.row_keys: list = []
        self.blocks: list = []

    def new_cols(self, n: int, ub: float = np.inf) -> np.ndarray:
        cols = np.arange(self.ncols, self.ncols + n)
        self.ncols += n
        self.c.append(np.zeros(n))
        self.lb.append(np.zeros(n))
        self.ub.append(np.full(n, ub))
        return cols

    def add_row(self, cols: np.ndarray, vals: np.ndarray, lb: float, key) -> None:
        self.row_cols.append(np.asarray(cols, dtype=np.int64))
        self.row_vals.append(np.asarray(vals, dtype=np.float64))
        self.row_lb.append(lb)
        self.row_keys.append(key)

    def add_link_rows(self, u: np.ndarray, lam: int, xcols: np.ndarray) -> None:
        """Rows u_j − λ + x_j ≥ 0 of one block, as one (n, 3) slab."""
        n = u.size
        self.row_cols.extend(np.stack([u, np.full(n, lam), xcols], axis=1))
        self.row_vals.extend([_LINK] * n)
        self.row_lb.extend([0.0] * n)
        self.row_keys.extend([None] * n)

    def finish(self, n_pairs: int) -> LPData:
        lens = np.array([c.size for c in self.row_cols], dtype=np.int64)
        indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        indices = (np.concatenate(self.row_cols) if self.row_cols
                   else np.zeros(0, dtype=np.int64))
        data = np.concatenate(self.row_vals) if self.row_vals else np.zeros(0)
        return LPData(np.concatenate(self.c), np.concatenate(self.lb), np.concatenate(self.ub),
                      indptr, indices, data, np.array(self.row_lb, dtype=np.float64),
                      n_pairs, self.row_keys, self.blocks)


class CompactBuilder(ColumnBuilder):
    """The compact extended formulation of R_{i1} (docs/math.md §5), grown family by family.

    Each (i2, l, case) family is one row; the blocks (λ, u) it needs are created on
    first use and shared afterwards.  No family is dropped as dominated: for fixed
    (i2, case), l → l + 1 adds the (m+1)-th smallest x_{i1 j} and removes the s-th
    smallest x_{i2 j} (while s > 0), a change of either sign, so no l dominates
    another in general; the only provable case (case 1 at l = L2 when L_{i2} = L2 > L1:
    both rows have s' = 0 and the l = L2 row adds one more nonnegative x to the
    l = L2 − 1 row) saves one row per such i2 and is left in.  Size comes down
    instead by generating families lazily (``method="families"``).

    **Shared A-blocks.**  The case-0 row of an i2 ∈ I_{i1} needs "the m smallest
    x_{i1 j} over I_{i1} \\ {i2}", a block of its own for every such i2 (about a third
    of all link rows).  It is written with the block of the whole set I_{i1} instead,
    shared by every i2: the m smallest over I_{i1} is min(m smallest over I_{i1} \\ {i2},
    x_{i1 i2} + (m − 1) smallest over I_{i1} \\ {i2}), so the stronger row is case 0 and
    "x_{i1 i2} + (m − 1) smallest + s smallest of B ≥ 1", which the case-1 row at the
    same l implies (its s' = max(0, s − 1) ≤ s and x ≥ 0).  Every row stays implied by
    R_{i1}, so any set of rows is still a relaxation, and the full set describes
    R_{i1}.  The certificate maps the dual of such a row onto true constraints
    (:func:`~duelbound.solvers.compact_dual.compact_certificate`).

    :meth:`add_families` may be called repeatedly (family generation): columns and
    rows are only ever appended, so an LP solver can load the new part into a live
    model and re-solve from the previous basis.
    """

    def __init__(self, mu: np.ndarray, i1: int, px: PairIndex):
        super().__init__(px)
        self.mu, self.i1, self.px = mu, i1, px
        self.families = {(i2, l, case): (A, m, B, s)
                         for i2, l, case, A, m, B, s in constraint_families(mu, i1)}
        self.inf_i1 = [int(j) for j in np.flatnonzero(mu[i1] > 0.5)]
        self.active: set = set()
        self._cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def block(self, owner: int, members: list[int], count: int) -> tuple[np.ndarray, np.ndarray]:
        """(cols, coefs) of an expression ≤ the sum of the ``count`` smallest x_{owner j}.

        Exact: mλ − Σ_j u_j with u_j ≥ λ − x_j, λ, u ≥ 0 is at most the sum of any m of
        the x_j (Σ_{j∈J} x_j ≥ Σ_{j∈J} (λ − u_j) ≥ mλ − Σ_j u_j), with equality at
        λ = the m-th smallest x, u_j = (λ − x_j)^+.
        """
        key = (owner, tuple(members), count)
        if key in self._cache:
            return self._cache[key]
        n = len(members)
        xcols = self.px.pid[owner, members] if members else np.zeros(0, dtype=np.int64)
        if count == 0:
            out = (np.zeros(0, dtype=np.int64), np.zeros(0))
        elif count == n:
            out = (xcols, np.ones(n))
        else:
            cols = self.new_cols(n + 1)
            lam, u = cols[0], cols[1:]
            self.add_link_rows(u, lam, xcols)
            self.blocks.append((int(lam), u, xcols, count))
            out = (cols, np.concatenate([[float(count)], -np.ones(n)]))
        self._cache[key] = out
        return out

    def add_families(self, keys) -> None:
        """Append the row (and any new blocks) of every (i2, l, case) in ``keys``."""
        for key in keys:
            if key in self.active:
                continue
            self.active.add(key)
            A, m, B, s = self.families[key]
            i2, _, case = key
            if case == 0 and m >= 1 and self.mu[self.i1, i2] > 0.5:
                A = self.inf_i1  # shared block, see the class docstring
            ca, va = self.block(self.i1, A, m)
            cb, vb = self.block(i2, B, s)
            cols, vals = [ca, cb], [va, vb]
            if case == 1:
                cols.append(np.array([self.px.pid[self.i1, i2]]))
                vals.append(np.array([1.0]))
            self.add_row(np.concatenate(cols), np.concatenate(vals), 1.0, key)


def compact_lp(mu: np.ndarray, i1: int, px: PairIndex, families: set | None = None) -> LPData:
    """The compact extended formulation of R_{i1} (docs/math.md §5), size O(K³) at worst.

    ``families`` (a set of (i2, l, case)) keeps only those rows: a relaxation, used
    by the family-generation method.
    """
    bld = CompactBuilder(mu, i1, px)
    bld.add_families(k for k in bld.families if families is None or k in families)
    return bld.finish(px.pairs.shape[0])


def rows_lp(px: PairIndex, rows: Iterable[tuple[tuple, Sequence[int] | np.ndarray]]) -> LPData:
    """The LP over x with the given explicit rows (row generation, enumeration)."""
    bld = ColumnBuilder(px)
    for key, cols in rows:
        bld.add_row(np.asarray(cols), np.ones(len(cols)), 1.0, key)
    return bld.finish(px.pairs.shape[0])


def violated_rows(mu: np.ndarray, i1: int, px: PairIndex, x_full: np.ndarray, tol: float,
                  ties: int = 1) -> tuple[list[tuple[int, int, int]], list[np.ndarray]]:
    """Rows of every constraint family (i2, l, case) whose smallest left-hand side at
    ``x_full`` is < 1 − tol (the separation step of row and family generation).

    Parameters
    ----------
    mu : ndarray
        The preference matrix.
    i1 : int
        The Copeland winner whose region R_{i1} ([K16] (3)) is separated.
    px : PairIndex
        Column numbering of the pair variables.
    x_full : ndarray
        The K × K point to separate (``px.symmetric(x)``).
    tol : float
        Violation tolerance.
    ties : int
        ``> 1`` adds up to that many tightest subsets per family (choices among equal x
        values), which saves rounds when the optimum has many ties.

    Returns
    -------
    keys : list of (i2, l, case)
    rows : list of ndarray
        The column indices (unit coefficients) of each violated constraint.
    """
    V = cw_oracle_core(mu, i1, x_full)
    l0 = l_range_core(losses_core(mu))[0]
    keys, rows = [], []
    for i2, li, case in np.argwhere(V < 1.0 - tol):
        key = (int(i2), int(l0 + li), int(case))
        for c in family_constraints(mu, i1, x_full, *key, cap=ties):
            keys.append(key)
            rows.append(np.array([px.pid[a, b] for a, b in c.pairs()], dtype=np.int64))
    return keys, rows

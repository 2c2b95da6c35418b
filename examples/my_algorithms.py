"""Example user algorithms for ``duelbound verify`` (one correct, several deliberately broken).

Every factory has the signature ``factory(K, T, seed)`` and returns an object with
``select() -> (i, j)`` and ``update(i, j, i_won)`` (the select/update protocol of
:func:`duelbound.checks.verify.harness.verify`)::

    duelbound verify examples.my_algorithms:dts --reference d-ts --T 20000 --runs 4
    duelbound verify examples.my_algorithms:fixed_pair            # FAIL: linear regret

============================  ==============================================  ===============
factory                       what is wrong                                   expected verdict
============================  ==============================================  ===============
``dts``                       nothing: D-TS of [W16] Alg. 1 in pure Python    PASS
``dts_no_elimination``        D-TS without the RUCB elimination step          see docs
``ccb``                       nothing: CCB of [Z15] Alg. 1 in pure Python     PASS
``ccb_no_beaters``            CCB that never compares against B^c             PASS (see docs)
``ccb_self_duel``             CCB that duels c with itself when B^c is empty  WARN (ref.) (*)
``fixed_pair``                always duels two arms that are not winners      FAIL (share)
``raise_at_1000``             raises RuntimeError on the 1000th select()      FAIL (protocol)
``out_of_range``              returns arm K once in a while                   FAIL (protocol)
``nondeterministic``          ignores the seed                                FAIL (protocol)
============================  ==============================================  ===============

(*) at T = 10000; at T ≤ 5000 its regret fit is still linear on unique_copeland (sublinear FAIL).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DTS", "CCB", "dts", "dts_no_elimination", "ccb", "ccb_no_beaters",
           "ccb_self_duel", "fixed_pair", "raise_at_1000", "out_of_range", "nondeterministic"]


class _Counts:
    """W (wins), N, and the RUCB-style confidence bounds shared by D-TS and CCB."""

    def __init__(self, K: int, alpha: float):
        self.K, self.alpha, self.t = K, alpha, 0
        self.W = np.zeros((K, K))

    def update(self, i: int, j: int, won: bool) -> None:
        self.t += 1
        if i != j:
            if won:
                self.W[i, j] += 1
            else:
                self.W[j, i] += 1

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """U, L of [Z15]/[W16] with x/0 := 1 in U and 0 in L, u_ii = l_ii = 1/2.

        ln t is taken at the duel about to be played, t = (duels so far) + 1: docs/math.md §9
        counts duels from 1, as the compiled simulator does (``env.clock[0] + 1``).
        """
        N = self.W + self.W.T
        logt = math.log(self.t + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(N > 0, self.W / np.maximum(N, 1), 0.0)
            rad = np.sqrt(self.alpha * logt / np.maximum(N, 1))
        U = np.where(N > 0, mean + rad, 1.0)
        L = np.where(N > 0, mean - rad, 0.0)
        np.fill_diagonal(U, 0.5)
        np.fill_diagonal(L, 0.5)
        return U, L


def _argmax_random(values: np.ndarray, rng: np.random.Generator) -> int:
    best = np.flatnonzero(values == values.max())
    return int(rng.choice(best))


class DTS:
    """Double Thompson Sampling, [W16] Alg. 1 (α = 0.51), select/update protocol.

    ``eliminate=False`` drops the RUCB elimination (first candidates restricted to
    argmax of the optimistic Copeland score, second arm restricted to l_{i a1} ≤ 1/2):
    a deliberately broken variant.
    """

    def __init__(self, K: int, T: int, seed: int, alpha: float = 0.51, eliminate: bool = True):
        self.c = _Counts(K, alpha)
        self.K, self.eliminate = K, eliminate
        self.rng = np.random.default_rng(seed)

    def select(self) -> tuple[int, int]:
        K, W, rng = self.K, self.c.W, self.rng
        U, L = self.c.bounds()
        iu = np.triu_indices(K, 1)
        theta = np.full((K, K), 0.5)
        theta[iu] = rng.beta(W[iu] + 1, W.T[iu] + 1)
        theta[(iu[1], iu[0])] = 1.0 - theta[iu]
        sampled = (theta > 0.5).sum(axis=1).astype(float)
        if self.eliminate:
            zeta = (U > 0.5).sum(axis=1) - 0.0  # diagonal u_ii = 1/2 is not counted
            cand = zeta == zeta.max()
            sampled = np.where(cand, sampled, -1.0)
        a1 = _argmax_random(sampled, rng)
        th2 = rng.beta(W[:, a1] + 1, W[a1, :] + 1)
        th2[a1] = 0.5
        if self.eliminate:
            th2 = np.where(L[:, a1] <= 0.5, th2, -1.0)
        a2 = _argmax_random(th2, rng)
        return a1, a2

    def update(self, i: int, j: int, i_won: bool) -> None:
        self.c.update(i, j, i_won)


class CCB:
    """Copeland Confidence Bound, [Z15] Alg. 1 (α = 0.51) as read in docs/math.md §9.

    Follows the compiled ``checks/simulate/algorithms/ccb.py`` step for step (same reading, its own
    random stream): ln t at the duel about to be played, and an empty B^c as the
    opponent set falls back to all arms.

    ``use_beaters=False`` never compares against B^c: neither the probability-1/4
    sample of a pair (i, j ∈ B^i) whose interval contains 1/2 (Alg. 1 line 10) nor
    B^c as the opponent set (line 13; always all arms) — the ablation the issue
    calls deliberately broken.  Measured: indistinguishable from CCB (see
    docs/verification.md).

    ``empty_beaters="self"`` reads line 13 literally when B^c is empty (the argmax
    over an empty set): c duels itself.  B^c is empty for every arm still in B, so
    this wastes half the steps in which a non-winner is the candidate — a misreading
    that doubles the regret (it was this class's reading before it was fixed).

    ``beater_duels`` counts the duels chosen through some B^i (line 10, or line 13
    with a non-empty B^c): how much B^c can matter on a given run.
    """

    def __init__(self, K: int, T: int, seed: int, alpha: float = 0.51,
                 use_beaters: bool = True, empty_beaters: str = "all"):
        if empty_beaters not in ("all", "self"):
            raise ValueError(f"empty_beaters must be 'all' or 'self', got {empty_beaters!r}")
        self.c = _Counts(K, alpha)
        self.K, self.use_beaters, self.empty_beaters = K, use_beaters, empty_beaters
        self.rng = np.random.default_rng(seed)
        self.beater_duels = 0
        self._reset()

    def _reset(self) -> None:
        self.B = set(range(self.K))
        self.Bi = [set() for _ in range(self.K)]
        self.LC = self.K

    def select(self) -> tuple[int, int]:
        K, rng = self.K, self.rng
        U, L = self.c.bounds()
        off = ~np.eye(K, dtype=bool)
        cp_plus = ((U >= 0.5) & off).sum(axis=1)
        cp_minus = ((L >= 0.5) & off).sum(axis=1)
        Ct = set(np.flatnonzero(cp_plus == cp_plus.max()).tolist())
        # (A) an arm in B^i is now known to lose to i: reset
        if any(L[i, j] > 0.5 for i in range(K) for j in self.Bi[i]):
            self._reset()
        # (B) remove arms that are certainly not Copeland winners
        for i in sorted(self.B):
            if cp_plus[i] < cp_minus.max():
                self.B.discard(i)
                if len(self.Bi[i]) != self.LC + 1:
                    self.Bi[i] = set(np.flatnonzero(U[i] < 0.5).tolist())
        if not self.B:
            self._reset()
        # (C) arms whose Copeland score is known
        for i in sorted(Ct):
            if cp_plus[i] == cp_minus[i]:
                self.B.add(i)
                self.Bi[i] = set()
                self.LC = K - 1 - int(cp_minus[i])
                for j in range(K):
                    if j == i:
                        continue
                    if len(self.Bi[j]) < self.LC + 1:
                        self.Bi[j] = set()
                    elif len(self.Bi[j]) > self.LC + 1:
                        keep = rng.choice(sorted(self.Bi[j]), self.LC + 1, replace=False)
                        self.Bi[j] = set(int(x) for x in keep)
        if self.use_beaters and rng.random() < 0.25:
            open_pairs = [(i, j) for i in range(K) for j in sorted(self.Bi[i])
                          if L[i, j] <= 0.5 <= U[i, j]]
            if open_pairs:
                self.beater_duels += 1
                return open_pairs[int(rng.integers(len(open_pairs)))]
        cands = Ct
        if self.B & Ct and rng.random() < 2 / 3:
            cands = self.B & Ct
        c = int(rng.choice(sorted(cands)))
        use_b = self.use_beaters and rng.random() < 0.5
        if use_b and not self.Bi[c] and self.empty_beaters == "all":
            # docs/math.md §9 reading (as checks/simulate/algorithms/ccb.py): empty B^c -> all arms
            use_b = False
        opponents = self.Bi[c] if use_b else set(range(K))
        self.beater_duels += bool(use_b and self.Bi[c])
        pool = [j for j in opponents if L[j, c] <= 0.5]
        if not pool:
            return c, c
        vals = np.array([U[j, c] for j in pool])
        best = [pool[k] for k in np.flatnonzero(vals == vals.max())]
        if len(best) > 1 and c in best:
            best.remove(c)
        return c, int(rng.choice(best))

    def update(self, i: int, j: int, i_won: bool) -> None:
        self.c.update(i, j, i_won)


class _FixedPair:
    """Always duels the two arms with the most losses (never Copeland winners if K ≥ 3)."""

    def __init__(self, K: int, T: int, seed: int):
        self.pair = (K - 1, K - 2)
        self.W = np.zeros((K, K))

    def select(self) -> tuple[int, int]:
        return self.pair

    def update(self, i: int, j: int, i_won: bool) -> None:
        self.W[i, j] += i_won


class _Faulty(DTS):
    """D-TS that breaks the protocol in one configurable way."""

    def __init__(self, K: int, T: int, seed: int, fault: str):
        super().__init__(K, T, seed)
        self.fault, self.steps = fault, 0
        if fault == "nondeterministic":
            self.rng = np.random.default_rng()  # ignores the seed

    def select(self) -> tuple[int, int]:
        self.steps += 1
        if self.fault == "raise" and self.steps == 1000:
            raise RuntimeError("simulated bug on step 1000")
        i, j = super().select()
        if self.fault == "range" and self.steps % 500 == 0:
            return self.K, j
        return i, j


def dts(K: int, T: int, seed: int) -> DTS:
    return DTS(K, T, seed)


def dts_no_elimination(K: int, T: int, seed: int) -> DTS:
    return DTS(K, T, seed, eliminate=False)


def ccb(K: int, T: int, seed: int) -> CCB:
    return CCB(K, T, seed)


def ccb_no_beaters(K: int, T: int, seed: int) -> CCB:
    return CCB(K, T, seed, use_beaters=False)


def ccb_self_duel(K: int, T: int, seed: int) -> CCB:
    return CCB(K, T, seed, empty_beaters="self")


def fixed_pair(K: int, T: int, seed: int) -> _FixedPair:
    return _FixedPair(K, T, seed)


def raise_at_1000(K: int, T: int, seed: int) -> _Faulty:
    return _Faulty(K, T, seed, "raise")


def out_of_range(K: int, T: int, seed: int) -> _Faulty:
    return _Faulty(K, T, seed, "range")


def nondeterministic(K: int, T: int, seed: int) -> _Faulty:
    return _Faulty(K, T, seed, "nondeterministic")

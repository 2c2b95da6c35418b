"""Hypothesis strategies for preference matrices (public API for your own test suites).

A preference matrix is drawn in two steps: a tournament (who beats whom) with the
requested structure, then one gap Δ_ij = |µ_ij − 1/2| per pair.  Both steps are
built so that hypothesis shrinks toward *readable* counterexamples: few arms, the
transitive order 0 > 1 > … > K−1, and round gaps (0.1, 0.2, …) before arbitrary
floats.

Examples
--------
>>> from hypothesis import given, settings
>>> from duelbound.checks.strategies import preference_matrices
>>> from duelbound.theory import tournament
>>> @settings(max_examples=20, database=None)
... @given(preference_matrices(min_K=3, max_K=6, condorcet=True))
... def test_condorcet_winner_has_no_loss(M):
...     assert tournament.L1(M) == 0
>>> test_condorcet_winner_has_no_loss()

Notes
-----
Structure requests other than ``condorcet=True`` (``condorcet=False``,
``n_winners``, ``l1``) draw a Copeland score sequence that satisfies Landau's
theorem (so *every* feasible structure is reachable, exactly), realise it by a
max-flow construction and then reverse drawn 3-cycles, which keeps all scores.

References
----------
docs/math.md §1 (model, Assumption A); [Z15] Lemma 7 (feasible (C, L1) combinations).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ..theory.errors import DuelboundError
from ..theory.matrix import PreferenceMatrix

__all__ = ["InvalidStrategyArgument", "ROUND_GAPS", "gap_sizes", "tournaments",
           "preference_matrices"]

#: Round gap values tried first (hypothesis shrinks ``one_of`` toward its first branch).
ROUND_GAPS = (0.1, 0.2, 0.3, 0.4, 0.05, 0.15, 0.25, 0.35, 0.45, 0.5)

#: Range of the gaps drawn for near-ties.
NEAR_TIE_RANGE = (1e-9, 1e-4)


class InvalidStrategyArgument(DuelboundError, InvalidArgument):
    """A strategy was built with arguments that can never produce a matrix."""


def _score_sequence_exists(K: int, C: int, l1: int) -> bool:
    """Whether some tournament on K arms has exactly C Copeland winners with L1 = l1.

    Landau's theorem: s_1 ≤ … ≤ s_K is a score sequence iff every prefix sum is
    ≥ C(k, 2), with equality at k = K.  The winners score a = K − 1 − l1, the other
    K − C arms at most a − 1; among those, the most balanced sequence has the
    largest prefix sums (it is majorised by every other), so it alone decides.
    """
    a = K - 1 - l1
    if a < 0 or not 1 <= C <= K:
        return False
    rest, n = K * (K - 1) // 2 - C * a, K - C
    if n == 0:
        return rest == 0
    if not 0 <= rest <= n * (a - 1):
        return False
    q, r = divmod(rest, n)
    seq = [q] * (n - r) + [q + 1] * r + [a] * C
    total = 0
    for k, s in enumerate(seq, start=1):
        total += s
        if total < k * (k - 1) // 2:
            return False
    return True


def _k_values(K: int | None, min_K: int, max_K: int, condorcet: bool | None,
              n_winners: int | None, l1: int | None) -> list[int]:
    """The arm counts in range for which the requested structure exists."""
    lo, hi = (K, K) if K is not None else (min_K, max_K)
    if lo < 2 or hi < lo:
        raise InvalidStrategyArgument(f"need 2 <= min_K <= max_K, got K range [{lo}, {hi}]")
    ok = []
    for k in range(lo, hi + 1):
        if _combos(k, condorcet, n_winners, l1):
            ok.append(k)
    if not ok:
        raise InvalidStrategyArgument(
            f"no K in [{lo}, {hi}] admits condorcet={condorcet}, n_winners={n_winners}, "
            f"l1={l1} (e.g. [Z15] Lemma 7: C <= 2 L1 + 1)")
    return ok


def gap_sizes(lo: float = 0.05, hi: float = 0.45, *, near_ties: bool = False,
         decimals: int | None = None) -> st.SearchStrategy[float]:
    """Strategy for one gap Δ ∈ [lo, hi], round values first.

    Parameters
    ----------
    lo, hi : float
        0 < lo ≤ hi ≤ 1/2.
    near_ties : bool
        Also draw gaps in [1e-9, 1e-4] (numerically hard near-ties).
    decimals : int, optional
        Round drawn floats to this many decimals (kept ≥ 10^-decimals).
    """
    lo, hi = float(lo), float(hi)
    if not 0.0 < lo <= hi <= 0.5:
        raise InvalidStrategyArgument(f"gap range must satisfy 0 < lo <= hi <= 1/2, "
                                      f"got ({lo}, {hi})")
    if decimals is not None and decimals < 1:
        raise InvalidStrategyArgument(f"decimals must be >= 1, got {decimals}")
    grid = [g for g in ROUND_GAPS if lo <= g <= hi]
    floats = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    if decimals is not None:
        step = 10.0 ** (-decimals)
        floats = floats.map(lambda g: min(max(round(g, decimals), lo, step), hi))
    branches = ([st.sampled_from(grid)] if grid else []) + [floats]
    if near_ties:
        branches.append(st.floats(*NEAR_TIE_RANGE))
    return st.one_of(*branches)


def _combos(K: int, condorcet: bool | None, n_winners: int | None,
            l1: int | None) -> list[tuple[int, int]]:
    """Feasible (C, L1) pairs on K arms matching the request."""
    l1s = [l1] if l1 is not None else range(0, (K - 1) // 2 + 1)
    cs = [n_winners] if n_winners is not None else range(1, K + 1)
    return [(c, lo) for lo in l1s for c in cs
            if ((condorcet is None) or (condorcet == (lo == 0)))
            and _score_sequence_exists(K, c, lo)]


def _landau_ok(scores: list[int]) -> bool:
    total = 0
    for k, v in enumerate(sorted(scores), start=1):
        total += v
        if total < k * (k - 1) // 2:
            return False
    return total == len(scores) * (len(scores) - 1) // 2


def _tournament_with_scores(scores: list[int]) -> np.ndarray:
    """A tournament whose arm i wins exactly ``scores[i]`` duels (max-flow construction).

    Each pair is a unit of supply that must go to one of its two arms; arm i can
    absorb ``scores[i]``.  Landau's condition guarantees a full flow.
    """
    import networkx as nx

    K = len(scores)
    G = nx.DiGraph()
    for i in range(K):
        for j in range(i + 1, K):
            G.add_edge("s", (i, j), capacity=1)
            G.add_edge((i, j), i, capacity=1)
            G.add_edge((i, j), j, capacity=1)
    for i in range(K):
        G.add_edge(i, "t", capacity=int(scores[i]))
    value, flow = nx.maximum_flow(G, "s", "t")
    if value != K * (K - 1) // 2:  # pragma: no cover - excluded by Landau's theorem
        raise DuelboundError(f"score sequence {scores} is not realisable")
    B = np.zeros((K, K), dtype=bool)
    for i in range(K):
        for j in range(i + 1, K):
            if flow[(i, j)][i]:
                B[i, j] = True
            else:
                B[j, i] = True
    return B


@st.composite
def _structured_tournament(draw, K: int, combos: list[tuple[int, int]]) -> np.ndarray:
    """Tournament with exactly C Copeland winners and L1 losses each.

    Draws a (C, L1), starts from the most balanced score sequence, applies drawn
    score transfers that keep Landau's condition, assigns scores to arms by a
    drawn permutation, builds the tournament by max-flow and finally reverses
    drawn 3-cycles (which keeps every score).  All of it shrinks to "no change".
    """
    C, l1 = draw(st.sampled_from(combos))
    a = K - 1 - l1
    n = K - C
    rest = K * (K - 1) // 2 - C * a
    q, r = divmod(rest, n) if n else (0, 0)
    others = [q + 1] * r + [q] * (n - r)
    for _ in range(draw(st.integers(0, n))):
        p, t = draw(st.integers(0, max(n - 1, 0))), draw(st.integers(0, max(n - 1, 0)))
        if p != t and others[p] > 0 and others[t] < a - 1:
            trial = list(others)
            trial[p] -= 1
            trial[t] += 1
            if _landau_ok(trial + [a] * C):
                others = trial
    scores = [a] * C + sorted(others, reverse=True)
    perm = draw(st.permutations(range(K)))
    B = _tournament_with_scores([scores[perm[i]] for i in range(K)])
    for _ in range(draw(st.integers(0, K))):
        i, j, k = (draw(st.integers(0, K - 1)) for _ in range(3))
        if B[i, j] and B[j, k] and B[k, i]:  # reversing a 3-cycle keeps all scores
            B[i, j], B[j, k], B[k, i] = False, False, False
            B[j, i], B[k, j], B[i, k] = True, True, True
    return B


@st.composite
def _tournament(draw, ks: list[int], condorcet: bool | None, n_winners: int | None,
                l1: int | None) -> np.ndarray:
    K = draw(st.sampled_from(ks))
    iu = np.triu_indices(K, 1)
    if condorcet is True or (condorcet, n_winners, l1) == (None, None, None):
        # Pairwise orientation bits: False = lower index wins, so everything
        # shrinks to the transitive tournament 0 > 1 > ... > K-1.
        upsets = draw(st.lists(st.booleans(), min_size=len(iu[0]), max_size=len(iu[0])))
        B = np.zeros((K, K), dtype=bool)
        B[iu] = ~np.array(upsets, dtype=bool)
        B[(iu[1], iu[0])] = ~B[iu]
        if condorcet is True:
            w = draw(st.integers(0, K - 1))
            B[w, :], B[:, w] = True, False
            B[w, w] = False
        return B
    return draw(_structured_tournament(K, _combos(K, condorcet, n_winners, l1)))


def tournaments(*, K: int | None = None, min_K: int = 2, max_K: int = 6,
                condorcet: bool | None = None, n_winners: int | None = None,
                l1: int | None = None) -> st.SearchStrategy[np.ndarray]:
    """Strategy for a tournament as a boolean K×K beats-matrix (B[i, j]: i beats j).

    Parameters
    ----------
    K : int, optional
        Fixed number of arms; otherwise K is drawn from [min_K, max_K]
        (shrinking toward min_K).  Values of K for which the structure is
        impossible are left out.
    condorcet : bool, optional
        Require (True) or forbid (False) a Condorcet winner.
    n_winners, l1 : int, optional
        Require exactly this many Copeland winners / this L1.

    Raises
    ------
    InvalidStrategyArgument
        When the strategy is built, if no K in range admits the structure.
    """
    ks = _k_values(K, min_K, max_K, condorcet, n_winners, l1)
    return _tournament(ks, condorcet, n_winners, l1)


@st.composite
def _matrix(draw, tour: st.SearchStrategy[np.ndarray], gap: st.SearchStrategy[float],
            ties: bool, tie_epsilon: float, raw: bool):
    B = draw(tour)
    K = B.shape[0]
    V = np.full((K, K), 0.5)
    tied = []
    for i in range(K):
        for j in range(i + 1, K):
            # Only pairs won by the lower index may tie: break_ties gives them back
            # to the lower index, so the tournament (and the structure) is unchanged.
            if ties and B[i, j] and draw(st.booleans()):
                tied.append((i, j))
                continue
            g = draw(gap)
            V[i, j] = 0.5 + g if B[i, j] else 0.5 - g
            V[j, i] = 1.0 - V[i, j]
    if raw:
        return V
    return PreferenceMatrix(V, break_ties=tie_epsilon if tied else None)


def preference_matrices(
    *,
    K: int | None = None,
    min_K: int = 2,
    max_K: int = 6,
    gap_range: tuple[float, float] = (0.05, 0.45),
    condorcet: bool | None = None,
    n_winners: int | None = None,
    l1: int | None = None,
    near_ties: bool = False,
    ties: bool = False,
    tie_epsilon: float = 1e-3,
    decimals: int | None = None,
    raw: bool = False,
) -> st.SearchStrategy:
    """Strategy for validated :class:`PreferenceMatrix` objects with prescribed structure.

    Parameters
    ----------
    K, min_K, max_K : int
        Fixed K, or the range K is drawn from (shrinks toward ``min_K``).
    gap_range : (float, float)
        Range of every Δ_ij = |µ_ij − 1/2|; round values in it are drawn first.
    condorcet : bool, optional
        Require (True) or forbid (False) a Condorcet winner.
    n_winners : int, optional
        Exactly this many Copeland winners C.
    l1 : int, optional
        Exactly this L1 (losses of a Copeland winner).
    near_ties : bool
        Allow gaps in [1e-9, 1e-4] (stress numerical code; Assumption A still holds).
    ties : bool
        Allow exact ties µ_ij = 1/2.  The matrix is then built with
        ``break_ties=tie_epsilon`` (so it records ``broken_ties`` and every bound
        on it is for the perturbed matrix); ties are placed only on pairs the
        lower index wins, so the requested structure is preserved.
    raw : bool
        Return the plain float K×K array instead (with exact ties still in it
        when ``ties=True``) — for testing that your code rejects bad input.

    Raises
    ------
    InvalidStrategyArgument
        At build time, for an empty gap range, an impossible structure
        (e.g. ``n_winners=3, l1=0``), or ``tie_epsilon`` outside (0, 1/2).

    Examples
    --------
    >>> s = preference_matrices(K=5, n_winners=3, l1=1)
    >>> s = preference_matrices(min_K=3, max_K=8, condorcet=False, gap_range=(0.1, 0.4))
    """
    if not 0.0 < tie_epsilon < 0.5:
        raise InvalidStrategyArgument(f"tie_epsilon must lie in (0, 1/2), got {tie_epsilon}")
    tour = tournaments(K=K, min_K=min_K, max_K=max_K, condorcet=condorcet,
                       n_winners=n_winners, l1=l1)
    gap = gap_sizes(*gap_range, near_ties=near_ties, decimals=decimals)
    return _matrix(tour, gap, ties, tie_epsilon, raw)

"""The public hypothesis strategies produce exactly the structure they promise."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis.errors import InvalidArgument

from duelbound.checks import strategies as S
from duelbound.theory import tournament as stc
from duelbound.theory.errors import DuelboundError, TieError
from duelbound.theory.matrix import PreferenceMatrix


def _brute_force_structures(K: int) -> set[tuple[int, int]]:
    """Every (L1, C) realised by some tournament on K arms (all 2^(K choose 2) of them)."""
    pairs = list(itertools.combinations(range(K), 2))
    seen = set()
    for bits in itertools.product((0, 1), repeat=len(pairs)):
        L = [0] * K
        for (i, j), b in zip(pairs, bits):
            L[j if b else i] += 1
        seen.add((min(L), L.count(min(L))))
    return seen


@pytest.mark.parametrize("K", [2, 3, 4, 5, 6])
def test_landau_feasibility_matches_brute_force(K):
    seen = _brute_force_structures(K)
    for l1 in range(K):
        for C in range(1, K + 1):
            assert S._score_sequence_exists(K, C, l1) == ((l1, C) in seen), (K, C, l1)


@settings(max_examples=40)
@given(S.preference_matrices(min_K=2, max_K=7, condorcet=True))
def test_condorcet_true_gives_condorcet_winner(M):
    assert stc.condorcet_winner(M) is not None


@settings(max_examples=40)
@given(S.preference_matrices(min_K=3, max_K=7, condorcet=False))
def test_condorcet_false_gives_none(M):
    assert stc.condorcet_winner(M) is None and M.K >= 3


@pytest.mark.parametrize("C,l1", [(2, 1), (3, 1), (5, 2), (1, 2), (4, 3)])
def test_n_winners_and_l1_are_exact(C, l1):
    @settings(max_examples=25)
    @given(S.preference_matrices(min_K=2, max_K=9, n_winners=C, l1=l1))
    def check(M):
        L = stc.losses(M)
        assert int(L.min()) == l1 and int((L == L.min()).sum()) == C

    check()


@settings(max_examples=40)
@given(S.preference_matrices(min_K=2, max_K=6, gap_range=(0.1, 0.3)))
def test_gaps_stay_in_range(M):
    G = stc.gaps(M)[~np.eye(M.K, dtype=bool)]
    assert G.min() >= 0.1 - 1e-12 and G.max() <= 0.3 + 1e-12


@settings(max_examples=30)
@given(S.preference_matrices(min_K=3, max_K=6, n_winners=1, l1=1, ties=True))
def test_ties_are_broken_without_changing_structure(M):
    L = stc.losses(M)
    assert int(L.min()) == 1 and int((L == 1).sum()) == 1
    for i, j in M.broken_ties:  # broken ties go to the lower index, as documented
        assert i < j and M[i, j] == 0.5 + 1e-3


@settings(max_examples=30)
@given(S.preference_matrices(K=4, ties=True, raw=True))
def test_raw_arrays_keep_exact_ties(V):
    if np.any(V[np.triu_indices(4, 1)] == 0.5):
        with pytest.raises(TieError):
            PreferenceMatrix(V)
    else:
        PreferenceMatrix(V)


@settings(max_examples=30)
@given(S.preference_matrices(min_K=2, max_K=5, near_ties=True))
def test_near_ties_respect_assumption_a(M):
    assert stc.delta_min(M) > 0


@pytest.mark.parametrize("kwargs", [
    dict(K=3, n_winners=3, l1=0),          # [Z15] Lemma 7: C <= 2 L1 + 1
    dict(K=3, n_winners=2),                # no 3-arm tournament has exactly 2 winners
    dict(K=2, condorcet=False),
    dict(gap_range=(0.3, 0.2)),
    dict(gap_range=(0.0, 0.2)),
    dict(min_K=5, max_K=4),
    dict(tie_epsilon=0.0),
])
def test_impossible_requests_fail_when_built(kwargs):
    with pytest.raises(S.InvalidStrategyArgument) as err:
        S.preference_matrices(**kwargs)
    assert isinstance(err.value, DuelboundError) and isinstance(err.value, InvalidArgument)


def test_shrinks_to_small_k_and_round_gaps():
    M = find(S.preference_matrices(min_K=2, max_K=8), lambda M: M.K >= 4,
             settings=settings(database=None, max_examples=200), random=random.Random(1))
    assert M.K == 4
    off = M.values[~np.eye(4, dtype=bool)]
    assert set(np.round(np.abs(off - 0.5), 12)) == {0.1}
    assert stc.losses(M).tolist() == [0, 1, 2, 3]  # transitive 0 > 1 > 2 > 3

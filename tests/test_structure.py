"""Tournament structure (docs/math.md §2) against brute force on generated tournaments."""

from __future__ import annotations

from itertools import combinations, permutations

import networkx as nx
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from duelbound.theory import PreferenceMatrix, datasets
from duelbound.theory import tournament as s


@st.composite
def matrices(draw, min_k=2, max_k=7):
    """Any tie-free matrix: a random orientation per pair and a round gap per pair."""
    K = draw(st.integers(min_k, max_k))
    V = np.full((K, K), 0.5)
    for i, j in combinations(range(K), 2):
        gap = draw(st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.4]))
        v = 0.5 + gap if draw(st.booleans()) else 0.5 - gap
        V[i, j], V[j, i] = v, 1 - v
    return PreferenceMatrix(V)


def brute_three_cycles(M):
    B = M.values > 0.5
    return sum(1 for a, b, c in combinations(range(M.K), 3)
               if (B[a, b] and B[b, c] and B[c, a]) or (B[b, a] and B[c, b] and B[a, c]))


def brute_smith_set(M):
    """Smallest non-empty set whose members all beat every outsider."""
    B = M.values > 0.5
    for size in range(1, M.K + 1):
        for S in combinations(range(M.K), size):
            out = [j for j in range(M.K) if j not in S]
            if all(B[i, j] for i in S for j in out):
                return sorted(S)
    raise AssertionError("unreachable")


@given(matrices())
def test_losses_sum_to_number_of_pairs(M):
    assert s.losses(M).sum() == M.K * (M.K - 1) // 2


@given(matrices())
def test_losses_count_superiors(M):
    for i in range(M.K):
        assert s.losses(M)[i] == len(s.superiors(M, i))
        assert len(s.superiors(M, i)) + len(s.inferiors(M, i)) == M.K - 1
        assert not set(s.superiors(M, i)) & set(s.inferiors(M, i))


@given(matrices())
def test_three_cycle_formula_matches_enumeration(M):
    assert s.three_cycles(M) == brute_three_cycles(M)


@given(matrices())
def test_condorcet_winner_iff_L1_zero_iff_single_winner_with_no_loss(M):
    cw = s.condorcet_winner(M)
    assert (cw is not None) == (s.L1(M) == 0)
    assert (cw is not None) == (len(s.copeland_winners(M)) == 1 and s.L1(M) == 0)
    if cw is not None:
        assert all(M[cw, j] > 0.5 for j in range(M.K) if j != cw)


@given(matrices())
def test_top_cycle_is_smith_set_and_single_iff_condorcet(M):
    top = s.top_cycle(M)
    assert top == brute_smith_set(M)
    assert (len(top) == 1) == (s.condorcet_winner(M) is not None)
    assert set(s.copeland_winners(M)) <= set(top)


@given(matrices())
def test_transitive_iff_no_three_cycles(M):
    B = M.values > 0.5
    transitive = all(B[a, c] for a, b, c in permutations(range(M.K), 3) if B[a, b] and B[b, c])
    assert s.is_transitive(M) == transitive == (brute_three_cycles(M) == 0)


@given(matrices())
def test_hamiltonian_path_visits_all_and_each_beats_next(M):
    path = s.hamiltonian_path(M)
    assert sorted(path) == list(range(M.K))
    assert all(M[a, b] > 0.5 for a, b in zip(path, path[1:]))


@given(matrices())
def test_copeland_scores_match_networkx_score_sequence(M):
    G = s.beats_graph(M)
    assert nx.tournament.is_tournament(G)
    assert sorted(s.copeland_scores(M).tolist()) == nx.tournament.score_sequence(G)
    norm = s.copeland_scores(M, normalized=True)
    assert np.allclose(norm * (M.K - 1), s.copeland_scores(M))


@given(matrices())
def test_winners_L1_L2_definitions(M):
    L = sorted(s.losses(M).tolist())
    assert s.L1(M) == L[0] and s.L2(M) == L[1]
    winners = s.copeland_winners(M)
    assert winners == [i for i in range(M.K) if s.losses(M)[i] == L[0]]
    if len(winners) >= 2:
        assert s.L2(M) == s.L1(M)


@given(matrices())
def test_gaps_and_delta_min(M):
    off = [abs(M[i, j] - 0.5) for i in range(M.K) for j in range(M.K) if i != j]
    assert s.delta_min(M) == min(off)
    assert np.all(s.gaps(M) == np.abs(M.values - 0.5))


def test_cyclic_structure_by_hand():
    M = datasets.load("cyclic")
    st_ = s.structure(M)
    assert st_.losses == [0, 2, 2, 2]
    assert st_.copeland_winners == [0] and st_.condorcet_winner == 0
    assert st_.L1 == 0 and st_.L2 == 2 and st_.C == 1
    assert st_.three_cycles == 1 and not st_.transitive
    assert st_.top_cycle == [0]
    assert abs(st_.delta_min - 0.1) < 1e-15
    assert st_.to_dict()["losses"] == [0, 2, 2, 2]


def test_bundled_examples_have_their_advertised_structure():
    arith = s.structure(datasets.load("arithmetic"))
    assert arith.transitive and arith.condorcet_winner == 0 and arith.losses == [0, 1, 2, 3, 4]
    multi = s.structure(datasets.load("multi_winner"))
    assert multi.condorcet_winner is None and multi.C == 3 and multi.L1 == 1
    uniq = s.structure(datasets.load("unique_copeland"))
    assert uniq.condorcet_winner is None and uniq.copeland_winners == [0]
    assert uniq.L1 == 1 and uniq.L2 == 2


def test_published_matrices_match_their_headers(dataset_dir):
    from duelbound.theory import TieError, read_matrix

    cyc = read_matrix(dataset_dir / "cyclic.txt")
    assert s.copeland_winners(cyc) == [0] and s.losses(cyc).tolist() == [0, 2, 2, 2]
    assert cyc == datasets.load("cyclic")
    mslr = read_matrix(dataset_dir / "mslr5.txt")
    assert mslr.K == 5 and s.condorcet_winner(mslr) == 0
    try:
        read_matrix(dataset_dir / "arxiv6.txt")
    except TieError as exc:
        assert exc.entries == [(3, 5)]
    else:
        raise AssertionError("arxiv6 has a tie at (3,5) and must be rejected")
    arxiv = read_matrix(dataset_dir / "arxiv6.txt", break_ties=1e-3)
    assert arxiv.broken_ties == ((3, 5),) and arxiv.tie_epsilon == 1e-3
    assert arxiv[3, 5] == 0.501 and s.structure(arxiv).broken_ties == [[3, 5]]


def _random_tournament_matrix(K, seed):
    rng = np.random.default_rng(seed)
    win = rng.random((K, K)) < 0.5
    gap = rng.uniform(0.005, 0.45, (K, K))
    V = np.where(win, 0.5 + gap, 0.5 - gap)
    V = np.triu(V, 1)
    V = V + (1.0 - V.T) * np.tril(np.ones((K, K)), -1)
    np.fill_diagonal(V, 0.5)
    return PreferenceMatrix(V)


@given(st.integers(0, 10**6), st.integers(8, 60))
def test_top_cycle_and_path_agree_with_networkx_on_larger_tournaments(seed, K):
    M = _random_tournament_matrix(K, seed)
    C = nx.condensation(s.beats_graph(M))
    source = next(n for n in C.nodes if C.in_degree(n) == 0)
    assert s.top_cycle(M) == sorted(C.nodes[source]["members"])
    path = s.hamiltonian_path(M)
    assert sorted(path) == list(range(K)) and all(M[a, b] > 0.5 for a, b in zip(path, path[1:]))


def test_structure_scales_without_recursion():
    """networkx's recursive Hamiltonian path raised RecursionError from K ≈ 250 on."""
    import time

    M = _random_tournament_matrix(2000, 0)
    t0 = time.perf_counter()
    rec = s.structure(M)
    assert time.perf_counter() - t0 < 20  # ~0.2 s alone on a quiet machine
    path = np.array(rec.hamiltonian_path)
    assert sorted(path.tolist()) == list(range(M.K))
    assert np.all(M.values[path[:-1], path[1:]] > 0.5)
    assert set(rec.copeland_winners) <= set(rec.top_cycle)

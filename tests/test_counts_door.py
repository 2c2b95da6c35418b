"""One way in for win counts (issue 33): one validator, one posterior sampler, the undefined
pairs found once, and duels counted (not wins rounded) when draws are halves.

Expected values are tallied independently here (plain dicts and sets over the generated
duels), never read back from the code under test.
"""

from __future__ import annotations

import csv
import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from duelbound.solvers import lower_bound_interval
from duelbound.solvers.posterior_table import posterior_table
from duelbound.theory.counts import (
    WinCounts,
    as_win_counts,
    read_comparisons,
    read_counts,
    undefined_pairs,
    write_counts,
)
from duelbound.theory.errors import DuelboundError, InvalidMatrixError
from duelbound.theory.posterior import posterior_blocks, posterior_structure, sample_posterior

BAD = {  # counts no draw policy can make, and what the one validator says about them
    "fractional": ([[0, 0.3, 2], [1, 0, 1], [0, 2, 0]], "non-integer counts at (0,1)"),
    "negative": ([[0, -1, 2], [1, 0, 1], [0, 2, 0]], "negative counts at (0,1)"),
    "unpaired half": ([[0, 1.5, 2], [1, 0, 1], [0, 2, 0]], "half wins without a half"),
    "non-finite": ([[0, np.inf, 2], [1, 0, 1], [0, 2, 0]], "non-finite counts at (0,1)"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("door", ["WinCounts", "posterior_structure", "lower_bound_interval",
                                  "posterior_table"])
def test_every_door_refuses_the_same_counts_with_the_same_words(case, door):
    wins, words = BAD[case]
    call = {"WinCounts": lambda W: WinCounts(W),
            "posterior_structure": lambda W: posterior_structure(np.array(W), draws=20),
            "lower_bound_interval": lambda W: lower_bound_interval(np.array(W), draws=20),
            "posterior_table": lambda W: posterior_table([np.array(W)], draws=20)}[door]
    with pytest.raises(InvalidMatrixError, match=words.replace("(", r"\(").replace(")", r"\)")):
        call(wins)
    assert issubclass(InvalidMatrixError, DuelboundError)


def test_paired_halves_are_draws_and_count_one_duel_each():
    # 3 wins and 1 draw of arm 0 over arm 1: W = 3.5 : 0.5, four duels
    C = WinCounts([[0, 3.5, 1], [0.5, 0, 0], [2, 2, 0]])
    assert C.n_comparisons == 4 + 3 + 2
    assert as_win_counts(C) is C
    assert as_win_counts(np.array([[0, 1], [2, 0]])) == WinCounts([[0, 1], [2, 0]])


def _draw_log(rng: np.random.Generator, K: int, n: int, draw: float, span: int
              ) -> list[tuple[str, str, str]]:
    """n duels (arm_a, arm_b, outcome) between arms at most ``span`` apart on a ring: most of
    the K(K-1)/2 pairs are never compared; a share ``draw`` of the duels are draws."""
    rows = []
    for _ in range(n):
        a = int(rng.integers(K))
        b = (a + int(rng.integers(1, span + 1))) % K
        u = rng.random()
        outcome = "draw" if u < draw else ("1" if u < draw + (1 - draw) * 0.6 else "0")
        rows.append((f"t{a}", f"t{b}", outcome))
    return rows


def _write_log(path, rows) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["arm_a", "arm_b", "outcome"])
        w.writerows(rows)


def test_a_1183_duel_log_with_draws_reports_1183_and_round_trips(tmp_path):
    rows = _draw_log(np.random.default_rng(1183), K=6, n=1183, draw=0.23, span=2)
    _write_log(tmp_path / "log.csv", rows)
    C = read_comparisons(tmp_path / "log.csv")
    # rows of wins end in halves: rounding each row down once reported 1 182
    assert any(not float(r).is_integer() for r in C.wins.sum(axis=1))
    assert C.n_comparisons == 1183
    assert float(C.wins.sum()) == 1183.0
    write_counts(C, tmp_path / "c.json")
    assert json.loads((tmp_path / "c.json").read_text())["n_comparisons"] == 1183
    assert read_counts(tmp_path / "c.json") == C  # a counts JSON saying 1 183 is accepted


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 4), st.sampled_from("ab=")),
                min_size=1, max_size=60))
def test_n_comparisons_is_the_number_of_duels(duels):
    W = np.zeros((5, 5))
    for a, step, out in duels:
        b = (a + step) % 5
        if out == "=":
            W[a, b] += 0.5
            W[b, a] += 0.5
        else:
            W[(a, b) if out == "a" else (b, a)] += 1
    assert WinCounts(W).n_comparisons == len(duels)


def test_k300_sparse_log_with_draws_against_independent_tallies(tmp_path):
    """K = 300 arms, 30 000 duels, 23 % draws, most pairs never compared (seeded)."""
    K, n = 300, 30_000
    rows = _draw_log(np.random.default_rng(300), K=K, n=n, draw=0.23, span=8)
    _write_log(tmp_path / "big.csv", rows)
    C = read_comparisons(tmp_path / "big.csv")
    assert C.K == K and C.n_comparisons == n
    # independent tally: twice the wins, as integers, keyed by names
    twice: Counter = Counter()
    for a, b, out in rows:
        if out == "draw":
            twice[a, b] += 1
            twice[b, a] += 1
        else:
            twice[(a, b) if out == "1" else (b, a)] += 2
    pos = {name: i for i, name in enumerate(C.arms)}
    got = {(C.arms[i], C.arms[j]): int(2 * C.wins[i, j]) for i, j in zip(*np.nonzero(C.wins))}
    assert got == {k: v for k, v in twice.items() if v}
    assert abs(sum(r[2] == "draw" for r in rows) / n - 0.23) < 0.01
    # the undefined pairs, from sets of names
    played = {frozenset((a, b)) for a, b, _ in rows}
    tied = {p for p in played if len(p) == 2 and twice[tuple(p)] == twice[tuple(p)[::-1]]}
    u = undefined_pairs(C)
    assert u.n_never == K * (K - 1) // 2 - len(played) > 0.9 * K * (K - 1) // 2
    assert u.n_tied == len(tied) > 0
    assert {frozenset((C.arms[i], C.arms[j])) for i, j in u.tied} == tied
    assert all(frozenset((C.arms[i], C.arms[j])) not in played for i, j in u.never)
    assert all(pos[C.arms[i]] < pos[C.arms[j]] for i, j in u.never)
    with pytest.raises(InvalidMatrixError, match="no comparisons of"):
        C.matrix()
    ps = posterior_structure(C, draws=20, seed=0)
    assert ps.comparisons == n and ps.undefined == u
    assert ps.p_winner.sum() >= 1.0 - 1e-12


def test_one_sampler_whatever_the_block_size_and_its_moments():
    W = np.array([[0, 7, 0.5], [3, 0, 2.5], [0.5, 4.5, 0]])
    whole = sample_posterior(W, 4000, np.random.default_rng(5))
    rows = np.concatenate(list(posterior_blocks(W, 4000, np.random.default_rng(5), block=7)))
    assert np.array_equal(whole, rows)
    # Beta(W_ab + 1, W_ba + 1): mean (W_ab + 1) / (N_ab + 2), pairs in triu order
    mean = np.array([(7 + 1) / (10 + 2), (0.5 + 1) / (1 + 2), (2.5 + 1) / (7 + 2)])
    sd = np.sqrt(mean * (1 - mean) / (np.array([10, 1, 7]) + 3))
    assert np.all(np.abs(whole.mean(axis=0) - mean) < 4 * sd / np.sqrt(4000))

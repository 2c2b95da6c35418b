"""The exact C* of posterior draws (duelbound.solvers.draws), issue 31 item 7.

Every value is compared with an independent computation: a cold ``lower_bound`` of the
drawn matrix by another formulation (the full compact LP, or the explicit rows at K = 4),
never with the evaluator's own output.  The draws come from logs of the users' shape
(draws, most pairs never compared: every draw a tournament of its own) and from decisive
counts (one tournament, where kept bases are re-used).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st_

from duelbound.solvers import lower_bound
from duelbound.solvers.draws import (
    REUSE_MIN_GROUP,
    DrawEvaluator,
    cstar_task,
    draw_chunks,
    estimate_draw_seconds,
    square,
    tournament_ids,
)
from duelbound.theory import PreferenceMatrix, datasets
from duelbound.theory.posterior import sample_posterior

LP_RTOL = 1e-7  # two HiGHS optima of different LPs with the same value


def _ring_league(K: int, matches: int, span: int, seed: int) -> np.ndarray:
    """Win counts of ``matches`` duels between arms at most ``span`` apart on a ring (most
    pairs never compared), a quarter of them draws (half a win each)."""
    rng = np.random.default_rng(seed)
    W = np.zeros((K, K))
    for _ in range(matches):
        a = int(rng.integers(K))
        b = (a + int(rng.integers(1, span + 1))) % K
        u = rng.random()
        if u < 0.25:
            W[a, b] += 0.5
            W[b, a] += 0.5
        else:
            W[(a, b) if u < 0.25 + 0.75 * (0.5 + 0.4 * (a < b)) else (b, a)] += 1.0
    return W


def _cold(p: np.ndarray, K: int, method: str) -> float:
    return float(lower_bound(PreferenceMatrix(square(p, K)), method=method,
                             certify=False).value)


def test_users_shape_draws_equal_a_cold_compact_lp_on_both_paths():
    """K = 30, draws and ~80 % of the pairs never compared: draws with one Copeland winner
    (the family LP) and with several (ECW's threshold, oracle-checked) against the full
    compact LP solved cold on the drawn matrix."""
    K = 30
    W = _ring_league(K, 900, 3, seed=31)
    iu = np.triu_indices(K, 1)
    assert np.mean(W[iu] + W.T[iu] == 0) > 0.7
    P = sample_posterior(W, 40, np.random.default_rng(7))
    tid = tournament_ids(P)
    assert np.unique(tid).size == 40  # every draw a tournament of its own
    losses = np.array([(square(p, K) > 0.5).sum(axis=0) for p in P])  # arms beating each
    n_win = np.sum(losses == losses.min(axis=1, keepdims=True), axis=1)
    single, several = np.flatnonzero(n_win == 1)[:3], np.flatnonzero(n_win > 1)[:3]
    assert single.size == 3 and several.size == 3
    pick = np.concatenate([single, several])
    ev = DrawEvaluator(K)
    got = ev.cstar(P[pick], tid[pick])
    assert ev.lp_solves >= 3 and ev.thresholds >= 3
    want = [_cold(P[s], K, "compact") for s in pick]
    np.testing.assert_allclose(got, want, rtol=LP_RTOL)


def test_kept_bases_are_reused_and_their_values_equal_explicit_rows():
    """One decisive tournament (cyclic, 200 duels per pair): values from kept basis tests
    (no LP) equal a cold LP over the explicit constraints of R_{i1} on every draw."""
    M = datasets.load("cyclic")
    K = M.K
    W = np.round(M.values * 200)
    np.fill_diagonal(W, 0)
    P = sample_posterior(W, 120, np.random.default_rng(3))
    tid = tournament_ids(P)
    ev = DrawEvaluator(K)
    got = ev.cstar(P, tid)
    assert ev.reused > 0 and ev.lp_solves + ev.reused + ev.thresholds >= P.shape[0]
    want = [_cold(p, K, "enumerate") for p in P]
    np.testing.assert_allclose(got, want, rtol=LP_RTOL)


def test_the_tail_of_a_group_keeps_no_basis():
    """Bases are kept only while more than REUSE_MIN_GROUP draws of the tournament remain:
    a group of exactly that many draws is all LP solves (one model, warm re-solves)."""
    M = datasets.load("cyclic")
    W = np.round(M.values * 200)
    np.fill_diagonal(W, 0)
    P = sample_posterior(W, 200, np.random.default_rng(5))
    tid = tournament_ids(P)
    same = np.flatnonzero(tid == np.bincount(tid).argmax())[:REUSE_MIN_GROUP]
    ev = DrawEvaluator(M.K)
    ev.cstar(P[same], tid[same])
    assert ev.reused == 0 and ev.models == 1


@given(st_.lists(st_.integers(0, 40), min_size=1, max_size=300), st_.sampled_from([4, 30, 100]))
def test_draw_chunks_cut_whole_tournaments_in_id_order(ids, K):
    tid = np.array(ids)
    chunks = draw_chunks(tid, K)
    flat = np.concatenate(chunks)
    assert np.array_equal(np.sort(flat), np.arange(tid.size))  # every draw once
    ids_of = [np.unique(tid[c]) for c in chunks]
    for c, u in zip(chunks, ids_of):  # whole tournaments
        assert np.sum(np.isin(tid, u)) == c.size
    order = np.concatenate(ids_of)
    assert np.array_equal(order, np.unique(tid))  # in the order of their ids
    size = max(1, min(int(np.ceil(2.0 / estimate_draw_seconds(K))),
                      int(np.ceil(tid.size / 64))))
    for c, u in zip(chunks[:-1], ids_of[:-1]):  # cut as soon as a task holds `size` draws
        assert c.size >= size and c.size - np.sum(tid == u[-1]) < size


def test_a_task_ships_the_draws_in_and_the_values_out_only():
    """What a Dask task carries: its draws in, C* values and five counts out (at K = 100 a
    dense basis test was ~0.8 GB)."""
    K = 30
    W = _ring_league(K, 900, 3, seed=2)
    P = sample_posterior(W, 6, np.random.default_rng(0))
    vals, counts = cstar_task(K, "HiGHS", P, tournament_ids(P))
    assert vals.shape == (6,) and set(counts) == {"lp_solves", "models", "reused",
                                                  "thresholds", "cstar_seconds"}
    assert len(pickle.dumps((vals, counts))) < 500
    assert sum(counts[k] for k in ("lp_solves", "reused", "thresholds")) >= 6


@pytest.mark.parametrize("shape", ["league", "decisive"])
def test_interval_stats_count_every_answer(shape):
    from duelbound.solvers import lower_bound_interval

    W = (_ring_league(12, 300, 2, seed=4) if shape == "league"
         else np.round(datasets.load("cyclic").values * 200))
    np.fill_diagonal(W, 0)
    rep = lower_bound_interval(W, draws=60, seed=1, cstar_draws="all")
    st = rep.stats
    assert st["lp_solves"] + st["reused"] + st["thresholds"] >= 60
    K = W.shape[0]
    losses = np.array([(square(p, K) > 0.5).sum(axis=0) for p in rep.samples["mu"]])
    multi = int(np.sum(np.sum(losses == losses.min(axis=1, keepdims=True), axis=1) > 1))
    assert multi > 0 or shape == "decisive"
    # every winner of a draw with several is answered by the threshold (Theorem 6): >= 2 each
    assert st["thresholds"] >= 2 * multi and (st["thresholds"] > 0) == (multi > 0)
    assert f"{st['thresholds']} winners by the checked threshold rule" in rep.render()

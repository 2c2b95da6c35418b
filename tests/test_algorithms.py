"""Each algorithm behaves as its paper says: consistency (Copeland) or the Condorcet failure."""

from __future__ import annotations

import numpy as np
import pytest

from duelbound.checks.simulator import ALGORITHMS, run_single
from duelbound.theory import examples
from duelbound.theory import structure as st

COPELAND = [a for a, s in ALGORITHMS.items() if s.copeland and a != "cw-rmed"]


def _non_winner_fraction(M, algorithm, T, seed):
    """Fraction of the last T/2 duels that involve a non-Copeland-winner."""
    rec = run_single(M, algorithm, T, seed, log_pairs=True)
    win = np.zeros(M.K, bool)
    win[st.copeland_winners(M)] = True
    tail = rec.pairs[T // 2:]
    return float(np.mean(~(win[tail[:, 0]] & win[tail[:, 1]])))


@pytest.mark.parametrize("name", ["cyclic", "multi_winner"])
@pytest.mark.parametrize("algorithm", COPELAND)
def test_copeland_algorithms_concentrate_on_winners(algorithm, name):
    M = examples.load(name)
    fracs = [_non_winner_fraction(M, algorithm, 20_000, seed) for seed in (0, 1)]
    assert max(fracs) < 0.1, fracs


@pytest.mark.parametrize("algorithm", ["rucb", "rmed1"])
def test_condorcet_algorithms_fail_without_condorcet_winner(algorithm):
    # unique_copeland: one Copeland winner (arm 0) and no Condorcet winner.
    M = examples.load("unique_copeland")
    assert st.condorcet_winner(M) is None
    for seed in (0, 1):
        assert _non_winner_fraction(M, algorithm, 20_000, seed) > 0.5
        rec = run_single(M, algorithm, 20_000, seed, checkpoints=[10_000, 20_000])
        # Linear regret: the second half costs at least min positive r_ij per duel on
        # almost every duel (min r = 1/(2(K−1)) = 1/8 here) — far above log growth.
        second_half = np.diff(rec.regret["komiyama"])[0]
        assert second_half > 0.5 * 10_000 / 8


def test_condorcet_algorithms_fine_with_condorcet_winner():
    M = examples.load("cyclic")
    for algorithm in ("rucb", "rmed1"):
        assert _non_winner_fraction(M, algorithm, 20_000, 0) < 0.1


@pytest.mark.slow
def test_cw_rmed_concentrates_on_winners():
    # CW-RMED calls the LP of duelbound.solvers.lower_bound from its loop (~1e3 duels/s).
    for name in ("cyclic", "multi_winner"):
        assert _non_winner_fraction(examples.load(name), "cw-rmed", 20_000, 0) < 0.1


@pytest.mark.slow
def test_cw_rmed_reproducible_and_counts():
    M = examples.load("cyclic")
    a = run_single(M, "cw-rmed", 3000, 5)
    b = run_single(M, "cw-rmed", 3000, 5)
    assert np.array_equal(a.counts, b.counts)
    iu = np.triu_indices(M.K, 1)
    assert a.counts[iu].sum() + np.trace(a.counts) == 3000


def test_dts_above_half_probability_matches_beta_sf():
    # Independent check of the O(1) recurrence against scipy's Beta survival function.
    from scipy.stats import beta

    from duelbound.checks.alg_dts import _update_above_half

    rng = np.random.default_rng(0)
    W = np.zeros((2, 2), np.int64)
    P = np.full((2, 2), 0.5)
    LQ = np.full((2, 2), -np.log(2.0))
    for step in range(3000):
        won = bool(rng.random() < 0.3)
        if won:
            W[0, 1] += 1
        else:
            W[1, 0] += 1
        # alternate the orientation of the call: (0, 1) and (1, 0)
        if step % 2:
            _update_above_half(P, LQ, W, 1, 0, not won)
        else:
            _update_above_half(P, LQ, W, 0, 1, won)
        if step in (0, 1, 10, 100, 2999):
            exact = beta.sf(0.5, W[0, 1] + 1, W[1, 0] + 1)
            assert P[0, 1] == pytest.approx(exact, abs=1e-9)
            assert P[1, 0] == pytest.approx(1 - exact, abs=1e-9)

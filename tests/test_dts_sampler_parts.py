"""Parts of the D-TS sampler (``checks/simulate/algorithms/dts.py``) against direct computations.

The whole step is tested for its law in ``tests/test_dts_law.py`` and its runs duel for duel
in ``tests/test_identity_simulator.py``; here the pieces that must be exact on their own:
the column counters of phase 1's votes (θ_ji > 1/2 counted down column i), checked against
plain column sums of the same 0/1 matrix at the field-width boundaries of the counters, and
the table of binomial log pmfs of both orientations of a pair, checked against scipy.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from duelbound.checks.simulate.algorithms.dts import (
    _add_column,
    _column_count,
    _field_low,
    new_state,
)


def _counters(K: int) -> np.ndarray:
    """The run's (zeroed) column counters for K arms, as ``new_state`` allocates them."""
    return new_state(np.full((K, K), 0.5), np.random.default_rng(0))[5]


@settings(max_examples=40, deadline=None)
@given(K=hst.sampled_from([2, 3, 4, 5, 16, 17, 64, 65, 200, 256, 257]),
       seed=hst.integers(0, 2**32 - 1), density=hst.floats(0.0, 1.0))
def test_column_counters_are_the_column_sums(K, seed, density):
    # Up to K − 1 rows of random lanes (a column never receives more in a run: each pair is
    # drawn once), added word by word as _draw_rows does; every column's counter must equal
    # the column sum of the 0/1 matrix, also when all K − 1 rows hit a column (full fields).
    rng = np.random.default_rng(seed)
    rows = rng.random((K - 1, K)) < density
    VC = _counters(K)
    width = VC.shape[1]
    assert 2**width > K - 1 and 64 % width == 0
    low = np.uint64(_field_low(width))  # numba returns a uint64 as a Python int
    assert int(low) == sum(1 << (q * width) for q in range(64 // width))
    for row in rows:
        for w in range((K + 63) // 64):
            lanes = row[64 * w:64 * (w + 1)]
            x = sum(1 << b for b in np.flatnonzero(lanes))
            _add_column(VC, w, np.uint64(x), low)
    got = [_column_count(VC, j) for j in range(K)]
    assert got == rows.sum(axis=0).tolist()


@settings(max_examples=30, deadline=None)
@given(wins=hst.lists(hst.booleans(), min_size=1, max_size=300), flip=hst.booleans())
def test_log_pmf_table_holds_both_orientations(wins, flip):
    # _update_above_half keeps LQ[i, j] = log P(Bin(N_ij + 1, 1/2) = W_ij) for both (0, 1) and
    # (1, 0) (the phase-2 checks read the pair's own orientation): scipy's binomial log pmf
    # after every duel of a random sequence, called with either orientation of the pair.
    from scipy.stats import binom

    from duelbound.checks.simulate.algorithms.dts import _update_above_half

    W = np.zeros((2, 2), np.int64)
    P = np.full((2, 2), 0.5)
    LQ = np.full((2, 2), -np.log(2.0))
    i, j = (1, 0) if flip else (0, 1)
    for won in wins:
        W[i, j] += won
        W[j, i] += not won
        _update_above_half(P, LQ, W, i, j, won)
        n = W[0, 1] + W[1, 0] + 1
        assert LQ[0, 1] == pytest.approx(binom.logpmf(W[0, 1], n, 0.5), abs=1e-9)
        assert LQ[1, 0] == pytest.approx(binom.logpmf(W[1, 0], n, 0.5), abs=1e-9)

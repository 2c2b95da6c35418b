"""Which pair sets are constraints of R_{i1} (solvers/constraint_check.py, docs/math.md §5).

Independent computation: R_{i1} enumerated from its definition with itertools
(tests/test_certificate_file.py); every set of up to five pair columns of small tournaments
is identified exactly when it is an enumerated constraint, the (i2, l, I, S) returned spell
out the same pairs, and repeated columns are refused.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from test_certificate_file import _enumerated_rows  # tests/ is on sys.path

from duelbound.solvers.constraint_check import ConstraintCheck
from duelbound.solvers.cstar import solve_winner
from duelbound.theory import tournament
from duelbound.theory.generators import random_matrix


@pytest.mark.parametrize("K,seed", [(5, 0), (6, 1), (6, 7), (7, 2)])
def test_identify_accepts_exactly_the_constraints_of_the_definition(K, seed):
    M = random_matrix(K, seed)
    mu = np.ascontiguousarray(M.values)
    exact = [[Fraction(float(v)) for v in row] for row in mu]
    for i1 in (int(i) for i in tournament.copeland_winners(M)):
        px = solve_winner(M, i1, "compact").px
        pairs = [frozenset(p) for p in px.pairs.tolist()]
        want = _enumerated_rows(exact, i1)
        check = ConstraintCheck(mu, i1, px)
        found = 0
        for n in range(1, 6):
            for cols in combinations(range(len(pairs)), n):
                got = check.identify(list(cols))
                row = frozenset(pairs[p] for p in cols)
                assert (got is not None) == (row in want), (i1, cols)
                if got is not None:
                    found += 1
                    i2, l, I, S = got
                    assert row == {frozenset((i1, j)) for j in I} | {frozenset((i2, j)) for j in S}
                    assert l == len(I) + int((mu[i1] < 0.5).sum()) - 1
                    assert not check.identify([*cols, cols[0]])  # a repeated column
        assert found == sum(1 for r in want if len(r) <= 5) > 0

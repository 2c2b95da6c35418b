"""User messages quote values as the user wrote them: no numpy 2 reprs (``np.int64(-1)``)."""

from __future__ import annotations

import numpy as np
import pytest

from duelbound.errors import DuelboundError, shown
from duelbound.render import LatexStyle
from duelbound.solvers import bound_terms
from duelbound.theory import datasets


@pytest.mark.parametrize("value, text", [
    (np.int64(-1), "-1"), (np.float64(0.25), "0.25"), (np.bool_(True), "True"),
    (np.array(3.5), "3.5"), (-1, "-1"), ("cyclic", "'cyclic'"), (None, "None")])
def test_shown_quotes_numpy_scalars_as_python_values(value, text):
    assert shown(value) == text


def test_shown_leaves_arrays_to_repr():
    assert shown(np.array([1, 2])) == repr(np.array([1, 2]))


@pytest.mark.parametrize("call, number", [
    (lambda: LatexStyle(width=np.float64(-1.0)), "-1.0"),
    (lambda: bound_terms.upper_bound(datasets.load("cyclic"), "ccb", alpha=np.float64(0.25)),
     "0.25"),
])
def test_bad_numpy_arguments_give_plain_messages(call, number):
    with pytest.raises(DuelboundError) as info:
        call()
    assert "np." not in str(info.value) and f"got {number}" in str(info.value)

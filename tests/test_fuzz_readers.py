"""Fuzzing the file readers: whatever the bytes, only DuelboundError subclasses come out.

Every reader (``read_matrix``, ``read_counts``, ``read_comparisons``) is fed random bytes,
random JSON documents, text grids of random cells and .npy arrays of every dtype; anything
other than a valid result or a :class:`DuelboundError` is a bug.  Examples are few and small,
so the file runs in seconds; the profile in ``conftest.py`` derandomises them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from duelbound.theory import DuelboundError, read_comparisons, read_counts, read_matrix

READERS = (read_matrix, read_counts, read_comparisons)
FAST = settings(max_examples=60)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def _only_package_errors(path) -> None:
    for reader in READERS:
        try:
            reader(path)
        except DuelboundError as exc:
            assert str(exc).strip(), f"{reader.__name__}: empty message"
        # any other exception propagates and fails the test


@FAST
@given(blob=st.binary(max_size=200),
       ext=st.sampled_from([".txt", ".csv", ".tsv", ".json", ".jsonl", ".npy", ""]))
def test_random_bytes(folder, blob, ext):
    path = folder / f"bytes{ext}"
    path.write_bytes(blob)
    _only_package_errors(path)


@FAST
@given(blob=st.binary(max_size=120))
def test_npy_header_then_garbage(folder, blob):
    path = folder / "garbage.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00" + blob)
    _only_package_errors(path)


_scalars = (st.none() | st.booleans() | st.integers(-10**400, 10**400)
            | st.floats(allow_nan=True, allow_infinity=True)
            | st.text(max_size=6) | st.sampled_from(["0.5", "a", "b", "1", "0", "winner"]))
_json = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=4)
                     | st.dictionaries(st.sampled_from(
                         ["matrix", "wins", "arms", "name", "K", "sha256", "tie_epsilon",
                          "broken_ties", "notes", "n_comparisons", "winner", "loser", "arm_a",
                          "arm_b", "outcome", "count", "x"]), kids, max_size=5),
                     max_leaves=20)


@FAST
@given(doc=_json)
def test_random_json(folder, doc):
    text = json.dumps(doc, allow_nan=True)
    for name in ("doc.json", "doc.jsonl"):
        path = folder / name
        path.write_text(text)
        _only_package_errors(path)


_cells = st.sampled_from(["0.5", "0.7", "0.3", "1", "0", "7", "nan", "-inf", "1e999", "",
                          "abc", "a b", '"q,x"', "0.7_0", "\u0660.5", "\uff10", "#c", "winner",
                          "loser", "arm_a", "arm_b", "outcome", "count", "-1", "2.5", "1e3"])


@FAST
@given(rows=st.lists(st.lists(_cells, min_size=1, max_size=4), min_size=1, max_size=5),
       sep=st.sampled_from([" ", ",", "\t", ";", ", "]))
def test_random_text_grids(folder, rows, sep):
    path = folder / "grid.txt"
    path.write_text("\n".join(sep.join(r) for r in rows) + "\n")
    _only_package_errors(path)


_dtypes = (hnp.integer_dtypes() | hnp.unsigned_integer_dtypes() | hnp.floating_dtypes()
           | hnp.complex_number_dtypes() | hnp.boolean_dtypes() | hnp.datetime64_dtypes()
           | hnp.timedelta64_dtypes() | hnp.unicode_string_dtypes(max_len=3)
           | hnp.byte_string_dtypes(max_len=3))


@FAST
@given(arr=hnp.arrays(_dtypes, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                max_side=3)))
def test_npy_every_dtype(folder, arr):
    path = folder / "arr.npy"
    np.save(path, arr, allow_pickle=False)
    _only_package_errors(path)


_columns = st.lists(st.sampled_from(["winner", "loser", "arm_a", "arm_b", "outcome", "count",
                                     "t", "Winner"]), min_size=1, max_size=4)
_log_cells = st.sampled_from(["x", "y", "z", "1", "0", "a", "b", "3", "-1", "1.5", "", "draw",
                              "\u0661", "99999999999999999999"])


@FAST
@given(header=_columns, rows=st.lists(st.lists(_log_cells, min_size=1, max_size=4),
                                      max_size=6),
       sep=st.sampled_from([",", "\t", " ", ";"]), jsonl=st.booleans())
def test_random_logs(folder, header, rows, sep, jsonl):
    path = folder / ("log.jsonl" if jsonl else "log.csv")
    if jsonl:
        path.write_text("".join(json.dumps(dict(zip(header, r))) + "\n" for r in rows))
    else:
        path.write_text(sep.join(header) + "\n" + "".join(sep.join(r) + "\n" for r in rows))
    _only_package_errors(path)

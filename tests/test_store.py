"""The SQLite sweep store: schema, atomic rows, isolation of readers, seeds of a grid."""

from __future__ import annotations

import sqlite3
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from duelbound.checks.store import SCHEMA_VERSION, SweepStore
from duelbound.checks.sweep import derive_seed, grid
from duelbound.theory import DuelboundError, examples

CYCLIC = examples.load("cyclic")


def _task(key: str = "k0", run: int = 0) -> dict:
    return {"task_key": key, "matrix_hash": CYCLIC.content_hash(), "algorithm": "uniform",
            "params": {}, "T": 10, "sweep_seed": 0, "run": run, "seed": 123}


def _record(final: float = 2.5) -> dict:
    return {"checkpoints": [5, 10], "regret": {"komiyama": [1.0, final]},
            "final_regret": {"komiyama": final, "zoghi": 2 * final, "binary": 7.0},
            "counts": [[1, 2, 0, 0], [2, 3, 1, 0], [0, 1, 1, 2], [0, 0, 2, 1]], "wins": None,
            "wall_time": 0.01}


@pytest.fixture
def store(tmp_path):
    with SweepStore(tmp_path / "s.sqlite") as s:
        s.add_matrix(CYCLIC)
        yield s


def test_store_is_wal_and_versioned(store):
    assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)


def test_run_row_round_trips(store):
    store.write_run(_task(), status="ok", attempts=1, record=_record(), worker="w")
    (row,) = store.runs()
    assert row["final_komiyama"] == 2.5 and row["final_zoghi"] == 5.0
    assert row["counts"] == _record()["counts"] and row["regret"] == {"komiyama": [1.0, 2.5]}
    assert row["seed"] == 123 and row["attempts"] == 1 and row["version"]
    assert store.matrices()[CYCLIC.content_hash()] == CYCLIC


def test_ok_row_is_never_overwritten_failed_row_is(store):
    store.write_run(_task("a"), status="failed", attempts=2, error="boom")
    store.write_run(_task("a"), status="ok", attempts=1, record=_record(1.0))
    store.write_run(_task("a"), status="ok", attempts=1, record=_record(9.0))
    store.write_run(_task("a"), status="failed", attempts=2, error="late")
    (row,) = store.runs(None)
    assert (row["status"], row["final_komiyama"], row["error"]) == ("ok", 1.0, None)


def test_ok_row_without_results_is_impossible(store):
    with pytest.raises(sqlite3.IntegrityError):
        store.write_run(_task(), status="ok", attempts=1, record={"final_regret": {}})
    assert store.count() == 0


def test_duplicate_task_identity_is_rejected(store):
    store.write_run(_task("a"), status="ok", attempts=1, record=_record())
    # same (matrix, algorithm, params, T, sweep seed, run) under another key
    with pytest.raises(sqlite3.IntegrityError):
        store.write_run(_task("b"), status="ok", attempts=1, record=_record())
    assert store.count() == 1


def test_reader_sees_only_committed_rows_and_is_not_blocked(store):
    reader = SweepStore(store.path, readonly=True, timeout=0.2)
    store._conn.execute("BEGIN IMMEDIATE")
    store._conn.execute(
        "INSERT INTO runs (task_key, matrix_hash, algorithm, params, T, sweep_seed, run, seed,"
        " status, attempts, version, finished_at) VALUES ('x', ?, 'u', '{}', 1, 0, 0, 1,"
        " 'failed', 1, 'v', 0)", (CYCLIC.content_hash(),))
    t0 = time.perf_counter()
    assert reader.count() == 0  # uncommitted row invisible, and WAL: no lock wait
    assert time.perf_counter() - t0 < 0.15
    store._conn.execute("COMMIT")
    assert reader.count() == 1
    with pytest.raises(DuelboundError):
        reader.write_run(_task(), status="failed", attempts=1, error="x")
    reader.close()


def test_bad_files_are_package_errors(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(DuelboundError, match="not a usable sweep store"):
        SweepStore(junk)
    with pytest.raises(DuelboundError, match="no sweep store"):
        SweepStore(tmp_path / "missing.sqlite", readonly=True)
    other = tmp_path / "other.sqlite"
    SweepStore(other).close()
    conn = sqlite3.connect(other)
    conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(DuelboundError, match="schema version 999"):
        SweepStore(other, readonly=True)


def test_bound_rows(store):
    h = CYCLIC.content_hash()
    store.write_bounds(h, status="failed", attempts=2, error="x")
    store.write_bounds(h, status="ok", attempts=1, result={"c_star": 27.5, "c_ecw": 49.7})
    (row,) = store.bounds()
    assert (row["c_star"], row["c_ecw"], row["result"]["c_star"]) == (27.5, 49.7, 27.5)


# -- the grid and its seeds -------------------------------------------------------------------
MATRICES = [examples.load(n, break_ties=1e-3) for n in examples.names()]


@given(st.integers(0, 2**32), st.integers(1, 4), st.integers(1, 3),
       st.lists(st.sampled_from(["uniform", "d-ts", "rucb"]), min_size=1, max_size=3,
                unique=True))
def test_grid_seeds_do_not_depend_on_the_rest_of_the_grid(S, n_mat, runs, algs):
    small = grid(MATRICES[:n_mat], algs[:1], T=10, runs=runs, seed=S)
    big = grid(MATRICES, algs, T=10, runs=runs + 2, seed=S)
    by_key = {t.task_key: t.seed for t in big}
    assert all(by_key[t.task_key] == t.seed for t in small)
    assert len({t.seed for t in big}) == len(big)  # 63-bit hashes: no collision here
    assert len({t.task_key for t in big}) == len(big) == len(MATRICES) * len(algs) * (runs + 2)


def test_seed_is_a_hash_of_its_four_inputs():
    import hashlib

    h = CYCLIC.content_hash()
    text = f"duelbound-sweep|5|{h}|d-ts|3".encode()
    expected = int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1
    assert derive_seed(5, h, "d-ts", 3) == expected
    assert derive_seed(5, h, "d-ts", 3) != derive_seed(5, h, "d-ts", 4)


def test_same_matrix_twice_gives_each_task_once():
    assert len(grid([CYCLIC, CYCLIC], ["uniform"], T=5, runs=3, seed=0)) == 3


@pytest.mark.parametrize("kwargs, match", [
    ({"T": 0}, "T must be"), ({"runs": 0}, "runs must"), ({"algorithms": []}, "algorithm"),
    ({"params": {"rucb": {}}}, "not in the sweep"), ({"algorithms": ["nope"]}, "unknown"),
    ({"params": {"uniform": {"zeta": 1}}}, "unknown parameter"),
])
def test_bad_grids_are_package_errors(kwargs, match):
    args = {"matrices": [CYCLIC], "algorithms": ["uniform"], "T": 5, "runs": 1, "seed": 0,
            **kwargs}
    with pytest.raises(DuelboundError, match=match):
        grid(**args)
